/* emit_hostfiles.c — node order and the launchers' host files, every one in tree order, so
 * that ranks fill each leaf before the next (NCCL rings follow rank order). */
#include <string.h>

#include "core/log.h"
#include "emit.h"

/* Every name as a launcher reads it: one host (emit_name_check, EMIT_FMT_HOSTFILE). */
static int host_ok(const struct emit_topo *t, char *err)
{
	return emit_hosts_check(t, EMIT_FMT_HOSTFILE, err);
}

#define EACH_HOST(t, h) \
	for (int k_ = 0; k_ < (t)->n && ((h) = (t)->hosts[(t)->tree->order[k_]]); k_++)

int emit_node_order(FILE *f, const struct emit_topo *t, char *err)
{
	const char *h;

	int rc = host_ok(t, err);

	if (rc)
		return rc;
	EACH_HOST(t, h)
		fprintf(f, "%s\n", h);
	return 0;
}

int emit_ompi_hostfile(FILE *f, const struct emit_topo *t, char *err)
{
	const char *h;

	int rc = host_ok(t, err);

	if (rc)
		return rc;
	fputs("# Open MPI hostfile in switch-tree order: mpirun --hostfile THIS --map-by slot\n", f);
	emit_comment(f, t->how);
	EACH_HOST(t, h)
		fprintf(f, "%s slots=%d\n", h, t->slots);
	return 0;
}

int emit_ompi_rankfile(FILE *f, const struct emit_topo *t, char *err)
{
	const char *h;
	int rank = 0;

	int rc = host_ok(t, err);

	if (rc)
		return rc;
	fputs("# Open MPI rankfile in switch-tree order: mpirun --rankfile THIS\n"
	      "# slot S = logical CPU S; edit to bind ranks near their GPU and NIC\n", f);
	emit_comment(f, t->how);
	EACH_HOST(t, h)
		for (int s = 0; s < t->slots; s++)
			fprintf(f, "rank %d=%s slot=%d\n", rank++, h, s);
	return 0;
}

int emit_mpich_machinefile(FILE *f, const struct emit_topo *t, char *err)
{
	const char *h;

	int rc = host_ok(t, err);

	if (rc)
		return rc;
	fputs("# MPICH machinefile in switch-tree order: mpiexec -f THIS\n", f);
	emit_comment(f, t->how);
	EACH_HOST(t, h)
		fprintf(f, "%s:%d\n", h, t->slots);
	return 0;
}

int emit_slurm_hostfile(FILE *f, const struct emit_topo *t, char *err)
{
	const char *h;

	/* no comment lines: srun reads every line of SLURM_HOSTFILE as a task's host */
	int rc = host_ok(t, err);

	if (rc)
		return rc;
	EACH_HOST(t, h)
		for (int s = 0; s < t->slots; s++)
			fprintf(f, "%s\n", h);
	return 0;
}
