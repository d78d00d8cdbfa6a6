/* natsort.c — see natsort.h. */
#include "natsort.h"

#include <ctype.h>
#include <string.h>

int natsort_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *sa = a, *sb = b;
			size_t la, lb, za, zb;

			while (*sa == '0')
				sa++;
			while (*sb == '0')
				sb++;
			for (la = 0; isdigit((unsigned char)sa[la]); la++)
				;
			for (lb = 0; isdigit((unsigned char)sb[lb]); lb++)
				;
			if (la != lb)
				return la < lb ? -1 : 1;
			int c = strncmp(sa, sb, la);
			if (c)
				return c;
			za = (size_t)(sa - a);
			zb = (size_t)(sb - b);
			if (za != zb) /* same value: fewer leading zeros first */
				return za < zb ? -1 : 1;
			a = sa + la;
			b = sb + lb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}
