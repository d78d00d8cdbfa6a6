/* world.c — see world.h. */
#include "world.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_util.h"

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

int world_create(struct world *w)
{
	int len = 0;

	memset(w, 0, sizeof *w);
	w->epcomm = MPI_COMM_NULL;
	CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &w->rank));
	CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &w->size));
	CHECK_MPI(MPI_Get_processor_name(w->host, &len));
	w->hosts = calloc((size_t)w->size, sizeof *w->hosts);
	w->ep_rank = calloc((size_t)w->size, sizeof *w->ep_rank);
	w->ep_label = calloc((size_t)w->size, sizeof *w->ep_label);
	w->labels = calloc((size_t)w->size, sizeof *w->labels);
	if (!w->hosts || !w->ep_rank || !w->ep_label || !w->labels) {
		LOG_ERROR("out of memory for %d ranks", w->size);
		return FP_ERUNTIME;
	}
	CHECK_MPI(MPI_Allgather(w->host, WORLD_HOST_MAX, MPI_CHAR, w->hosts, WORLD_HOST_MAX, MPI_CHAR,
				MPI_COMM_WORLD));
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
	free(w->ep_rank);
	free(w->ep_label);
	free(w->labels);
	memset(w, 0, sizeof *w);
	w->epcomm = MPI_COMM_NULL;
}
