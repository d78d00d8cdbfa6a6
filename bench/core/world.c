/* world.c — see world.h. */
#include "world.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_util.h"
#include "nodename.h"

int world_pick_endpoints(const char (*names)[WORLD_HOST_MAX], int n, int *ep_rank, int *nnodes,
			 int *single)
{
	int nep = 0;

	/* O(n * nodes): fine for the tens of thousands of ranks a cluster has */
	for (int r = 0; r < n; r++) {
		int seen = 0;

		for (int e = 0; e < nep && !seen; e++)
			seen = !strcmp(names[ep_rank[e]], names[r]);
		if (!seen)
			ep_rank[nep++] = r;
	}
	*nnodes = nep;
	*single = nep == 1;
	if (*single)
		for (nep = 0; nep < n; nep++)
			ep_rank[nep] = nep;
	return nep;
}

/* This rank's name under naming, agreed on every rank: 0, or FP_EUSAGE everywhere. */
static int name_this_node(struct world *w, int naming)
{
	char slurm[WORLD_HOST_MAX];
	const char *s = nodename_slurm(getenv("SLURMD_NODENAME"), getenv("SLURM_TOPOLOGY_ADDR"), slurm,
				       sizeof slurm);
	int rc = nodename_choose(naming, w->hostname, s, w->host, sizeof w->host), all = 0;

	if (rc && naming == NODENAME_SLURM && !s)
		LOG_ERROR("--node-names slurm: %s: neither SLURMD_NODENAME nor SLURM_TOPOLOGY_ADDR is set "
			  "(not a task started by srun?)", w->hostname);
	else if (rc)
		LOG_ERROR("--node-names: the name of %s does not fit in %d bytes", w->hostname, WORLD_HOST_MAX - 1);
	CHECK_MPI(MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
	return all ? FP_EUSAGE : 0;
}

/* After the names are gathered: a name two hosts share is a Slurm name copied between nodes
 * with the environment (then, by default, the nodes are named by host), or a short name two
 * domains share; asked for explicitly, either is an error. Every rank decides alike. */
static int check_names(struct world *w, int naming)
{
	int other = -1, r = nodename_conflict(w->hostnames[0], w->hosts[0], WORLD_HOST_MAX, w->size, &other);

	if (r == FP_ERUNTIME) {
		LOG_ERROR("out of memory checking %d node names", w->size);
		return FP_ERUNTIME;
	}
	if (r < 0)
		return 0;
	if (w->rank == 0 && naming == NODENAME_SHORT)
		LOG_ERROR("--node-names short: hosts %s and %s are both %s", w->hostnames[r], w->hostnames[other],
			  w->hosts[r]);
	else if (w->rank == 0)
		LOG_WARN("hosts %s and %s both say they are Slurm node %s (SLURMD_NODENAME copied from another "
			 "node by the launcher?): %s", w->hostnames[r], w->hostnames[other], w->hosts[r],
			 naming == NODENAME_AUTO ? "naming nodes by their host names instead" : "giving up");
	if (naming != NODENAME_AUTO)
		return FP_EUSAGE;
	memcpy(w->hosts, w->hostnames, (size_t)w->size * sizeof *w->hosts);
	memcpy(w->host, w->hostname, sizeof w->host);
	return 0;
}

int world_create(struct world *w, int naming)
{
	int len = 0, rc;

	memset(w, 0, sizeof *w);
	w->epcomm = MPI_COMM_NULL;
	CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &w->rank));
	CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &w->size));
	CHECK_MPI(MPI_Get_processor_name(w->hostname, &len));
	if ((rc = name_this_node(w, naming)))
		return rc;
	w->hosts = calloc((size_t)w->size, sizeof *w->hosts);
	w->hostnames = calloc((size_t)w->size, sizeof *w->hostnames);
	w->ep_rank = calloc((size_t)w->size, sizeof *w->ep_rank);
	w->ep_label = calloc((size_t)w->size, sizeof *w->ep_label);
	w->labels = calloc((size_t)w->size, sizeof *w->labels);
	if (!w->hosts || !w->hostnames || !w->ep_rank || !w->ep_label || !w->labels) {
		LOG_ERROR("out of memory for %d ranks", w->size);
		return FP_ERUNTIME;
	}
	CHECK_MPI(MPI_Allgather(w->host, WORLD_HOST_MAX, MPI_CHAR, w->hosts, WORLD_HOST_MAX, MPI_CHAR,
				MPI_COMM_WORLD));
	CHECK_MPI(MPI_Allgather(w->hostname, WORLD_HOST_MAX, MPI_CHAR, w->hostnames, WORLD_HOST_MAX, MPI_CHAR,
				MPI_COMM_WORLD));
	if ((rc = check_names(w, naming)))
		return rc;
	w->nep = world_pick_endpoints((const char (*)[WORLD_HOST_MAX])w->hosts, w->size, w->ep_rank,
				      &w->nnodes, &w->single_node);
	w->my_ep = -1;
	for (int e = 0; e < w->nep; e++) {
		int r = w->ep_rank[e];

		if (w->single_node && w->size > 1)
			snprintf(w->ep_label[e], WORLD_LABEL_MAX, "%s/r%d", w->hosts[r], r);
		else
			snprintf(w->ep_label[e], WORLD_LABEL_MAX, "%s", w->hosts[r]);
		w->labels[e] = w->ep_label[e];
		if (r == w->rank)
			w->my_ep = e;
	}
	/* key = world rank keeps endpoint index == rank in epcomm */
	CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, w->my_ep >= 0 ? 0 : MPI_UNDEFINED, w->rank,
				 &w->epcomm));
	if (w->epcomm != MPI_COMM_NULL)
		MPI_Comm_set_errhandler(w->epcomm, MPI_ERRORS_RETURN);
	return 0;
}

void world_destroy(struct world *w)
{
	if (w->epcomm != MPI_COMM_NULL)
		MPI_Comm_free(&w->epcomm);
	free(w->hosts);
	free(w->hostnames);
	free(w->ep_rank);
	free(w->ep_label);
	free(w->labels);
	memset(w, 0, sizeof *w);
	w->epcomm = MPI_COMM_NULL;
}
