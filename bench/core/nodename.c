/* nodename.c — see nodename.h. */
#include "nodename.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"

int nodename_mode_parse(const char *s)
{
	static const char *const names[] = { [NODENAME_HOSTNAME] = "hostname", [NODENAME_SHORT] = "short",
					     [NODENAME_SLURM] = "slurm" };

	for (int m = NODENAME_HOSTNAME; m <= NODENAME_SLURM; m++)
		if (!strcmp(s, names[m]))
			return m;
	return -1;
}

/* A name Slurm could have given: 1..len-1 printable characters, no blank. */
static int usable(const char *s, size_t n, size_t len)
{
	if (n == 0 || n >= len)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return 0;
	return 1;
}

const char *nodename_slurm(const char *slurmd_nodename, const char *topology_addr, char *out, size_t len)
{
	const char *s = NULL;

	if (slurmd_nodename && usable(slurmd_nodename, strlen(slurmd_nodename), len))
		s = slurmd_nodename;
	else if (topology_addr) {
		const char *dot = strrchr(topology_addr, '.');

		s = dot ? dot + 1 : topology_addr;
		if (!usable(s, strlen(s), len))
			s = NULL;
	}
	if (!s)
		return NULL;
	memcpy(out, s, strlen(s) + 1);
	return out;
}

int nodename_choose(int mode, const char *proc, const char *slurm, char *out, size_t len)
{
	const char *s = proc;
	size_t n;

	if (mode == NODENAME_SLURM && !slurm)
		return FP_EUSAGE;
	if (mode == NODENAME_SLURM || (mode == NODENAME_AUTO && slurm))
		s = slurm;
	n = mode == NODENAME_SHORT ? strcspn(s, ".") : strlen(s);
	if (n == 0 && mode == NODENAME_SHORT) /* ".x" has no short name: keep it whole */
		n = strlen(s);
	if (n >= len)
		return FP_EUSAGE;
	memcpy(out, s, n);
	out[n] = 0;
	return 0;
}

struct pair {
	const char *chosen, *proc;
	int rank;
};

static int pair_cmp(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	int c = strcmp(x->chosen, y->chosen);

	return c ? c : strcmp(x->proc, y->proc);
}

int nodename_conflict(const char *proc, const char *chosen, size_t stride, int n, int *other)
{
	struct pair *p = malloc(sizeof *p * (size_t)(n > 0 ? n : 1));
	int found = -1;

	if (!p)
		return FP_ERUNTIME;
	for (int r = 0; r < n; r++)
		p[r] = (struct pair){ chosen + (size_t)r * stride, proc + (size_t)r * stride, r };
	qsort(p, (size_t)n, sizeof *p, pair_cmp);
	for (int i = 1; i < n && found < 0; i++)
		if (!strcmp(p[i].chosen, p[i - 1].chosen) && strcmp(p[i].proc, p[i - 1].proc)) {
			found = p[i].rank < p[i - 1].rank ? p[i].rank : p[i - 1].rank;
			*other = p[i].rank < p[i - 1].rank ? p[i - 1].rank : p[i].rank;
		}
	free(p);
	return found;
}
