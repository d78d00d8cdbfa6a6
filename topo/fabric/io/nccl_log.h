/* nccl_log.h — what carried NCCL's traffic, read from its INFO log (NCCL_DEBUG=INFO, one file a
 * process), and whether that is the path a run asked for. NCCL says the network it took
 * ("Using network IB"), the devices of that network with their index ("NET/IB : Using
 * [0]mlx5_0:1/RoCE [1]mlx5_1:1/IB ..."; "NET/Socket : Using [0]eth0:10.0.0.1<0>"), and for each
 * channel's connection the transport ("Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/1/GDRDMA",
 * "via P2P/CUMEM/read", "via SHM/direct/direct"), NVLS and CollNet when it sets them up. A line
 * of any other form is skipped; nothing read is trusted to be well formed. Pure. */
#ifndef FP_NCCL_LOG_H
#define FP_NCCL_LOG_H

#include <stddef.h>
#include <stdio.h>

#define NCCL_LOG_DEVS 32
#define NCCL_LOG_NAME 64

struct nccl_seen {
	char network[NCCL_LOG_NAME];            /* "IB", "Socket", a plugin's name; "" not said */
	int ndevs;                              /* the network's devices, by index */
	char dev[NCCL_LOG_DEVS][NCCL_LOG_NAME]; /* "mlx5_0:1" (IB), "eth0" (Socket) */
	char link[NCCL_LOG_DEVS][8];            /* "IB", "RoCE"; "" for sockets */
	unsigned used;                          /* bit i: a channel went through device i */
	long via_net, via_p2p, via_shm, via_other; /* channel connections by transport */
	char via_net_name[NCCL_LOG_NAME];       /* "IB", "IBext_v8", "Socket": the first seen */
	int gdr;                                /* a NET connection used GPUDirect RDMA */
	int nvls, collnet;                      /* set up and used */
	long lines;                             /* NCCL lines read */
};

/* Every line of f into s (zeroed first). 0; -1 when f could not be read to its end. */
int nccl_log_read(FILE *f, struct nccl_seen *s);

/* What carried the traffic, one line into out: "NET/IB mlx5_0:1,mlx5_1:1 (GDRDMA)", "NET/Socket
 * eth0", "P2P+SHM within the node", "NVLS", or "unknown (no channel in the log)". */
void nccl_seen_text(const struct nccl_seen *s, char *out, size_t len);

/* s against the path asked for ("tcp:eth0", "verbs:mlx5_0:1", '+'-joined ports; "mpi" or NULL:
 * the library's own choice, never a mismatch): 0 when NCCL used that network and no device
 * outside the path's, and neither NVLS nor CollNet nor a transport within the node; 1 with why
 * ("asked for verbs:mlx5_0:1, NCCL used Socket on eth0"); -1 when the log says no channel (not
 * judged: NCCL_DEBUG was not INFO, or its subsystems left the channels out). */
int nccl_seen_check(const struct nccl_seen *s, const char *path, char *why, size_t len);

#endif
