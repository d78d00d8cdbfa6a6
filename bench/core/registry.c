/* registry.c — see registry.h. */
#include "registry.h"

#include <string.h>

const void *registry_find(const void *const *table, const char *name, size_t len)
{
	if (len == (size_t)-1)
		len = strlen(name);
	for (int i = 0; table[i]; i++) {
		const struct registry_head *h = table[i];

		if (strlen(h->name) == len && !strncmp(h->name, name, len))
			return table[i];
	}
	return NULL;
}
