/* world.h — who takes part: node names, and the endpoints that measure. */
#ifndef FP_WORLD_H
#define FP_WORLD_H

#include <mpi.h>

#define WORLD_HOST_MAX 256  /* MPI_MAX_PROCESSOR_NAME in Open MPI and MPICH */
#define WORLD_LABEL_MAX 272

struct world {
	int rank, size;
	char host[WORLD_HOST_MAX];          /* this rank's node, by the name chosen (nodename.h) */
	char (*hosts)[WORLD_HOST_MAX];      /* every rank's node */
	char hostname[WORLD_HOST_MAX];      /* this rank's processor name (MPI_Get_processor_name) */
	char (*hostnames)[WORLD_HOST_MAX];  /* every rank's */
	int nnodes;
	int nep;                            /* endpoints */
	int *ep_rank;                       /* world rank of each endpoint */
	char (*ep_label)[WORLD_LABEL_MAX];  /* host, or host/r<rank> on a single node */
	const char **labels;                /* nep pointers into ep_label, for name lists */
	int my_ep;                          /* this rank's endpoint index, -1 if none */
	int single_node;
	MPI_Comm epcomm;                    /* endpoints only (MPI_COMM_NULL elsewhere) */
};

/* Pure: pick the endpoints from the node name of each of n ranks (names[i], stride
 * WORLD_HOST_MAX): the lowest rank of each node, or every rank when all share one node.
 * Fills ep_rank (n entries of room), returns the count; *nnodes and *single set. */
int world_pick_endpoints(const char (*names)[WORLD_HOST_MAX], int n, int *ep_rank, int *nnodes,
			 int *single);

/* Collective over MPI_COMM_WORLD: name the nodes (naming: enum nodename_mode), gather the
 * names, pick endpoints, split their communicator. Returns 0; FP_EUSAGE on every rank when
 * the names asked for cannot be had (--node-names slurm outside Slurm), after logging;
 * FP_ERUNTIME. */
int world_create(struct world *w, int naming);
void world_destroy(struct world *w);

#endif
