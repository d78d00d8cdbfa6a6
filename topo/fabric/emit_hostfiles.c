/* emit_hostfiles.c — node order and the launchers' host files, every one in tree order, so
 * that ranks fill each leaf before the next (NCCL rings follow rank order). */
#include <string.h>

#include "core/log.h"
#include "emit.h"

/* A name a launcher reads as one host: no white space, no ':' (MPICH's separator), not empty. */
static int host_ok(const struct emit_topo *t, char *err)
{
	for (int k = 0; k < t->n; k++) {
		const char *h = t->hosts[t->tree->order[k]];

		if (!*h || strpbrk(h, " \t\r\n:,#")) {
			snprintf(err, EMIT_ERR_MAX, "host name '%.100s' cannot be written in a host file", h);
			return FP_EUSAGE;
		}
	}
	return 0;
}

#define EACH_HOST(t, h) \
	for (int k_ = 0; k_ < (t)->n && ((h) = (t)->hosts[(t)->tree->order[k_]]); k_++)

int emit_node_order(FILE *f, const struct emit_topo *t, char *err)
{
	const char *h;

	if (host_ok(t, err))
		return FP_EUSAGE;
	EACH_HOST(t, h)
		fprintf(f, "%s\n", h);
	return 0;
}

int emit_ompi_hostfile(FILE *f, const struct emit_topo *t, char *err)
{
	const char *h;

	if (host_ok(t, err))
		return FP_EUSAGE;
	fprintf(f, "# Open MPI hostfile in switch-tree order: mpirun --hostfile THIS --map-by slot\n# %s\n", t->how);
	EACH_HOST(t, h)
		fprintf(f, "%s slots=%d\n", h, t->slots);
	return 0;
}

int emit_ompi_rankfile(FILE *f, const struct emit_topo *t, char *err)
{
	const char *h;
	int rank = 0;

	if (host_ok(t, err))
		return FP_EUSAGE;
	fprintf(f, "# Open MPI rankfile in switch-tree order: mpirun --rankfile THIS\n"
		   "# slot S = logical CPU S; edit to bind ranks near their GPU and NIC\n# %s\n", t->how);
	EACH_HOST(t, h)
		for (int s = 0; s < t->slots; s++)
			fprintf(f, "rank %d=%s slot=%d\n", rank++, h, s);
	return 0;
}

int emit_mpich_machinefile(FILE *f, const struct emit_topo *t, char *err)
{
	const char *h;

	if (host_ok(t, err))
		return FP_EUSAGE;
	fprintf(f, "# MPICH machinefile in switch-tree order: mpiexec -f THIS\n# %s\n", t->how);
	EACH_HOST(t, h)
		fprintf(f, "%s:%d\n", h, t->slots);
	return 0;
}

int emit_slurm_hostfile(FILE *f, const struct emit_topo *t, char *err)
{
	const char *h;

	/* no comment lines: srun reads every line of SLURM_HOSTFILE as a task's host */
	if (host_ok(t, err))
		return FP_EUSAGE;
	EACH_HOST(t, h)
		for (int s = 0; s < t->slots; s++)
			fprintf(f, "%s\n", h);
	return 0;
}
