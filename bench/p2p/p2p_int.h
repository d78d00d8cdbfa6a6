/* p2p_int.h — private to the all-pairs engine (p2p.c: the steps and paths; p2p_pair.c: one
 * pair measured through its transport). */
#ifndef FP_P2P_INT_H
#define FP_P2P_INT_H

#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>

#include "core/clock.h"
#include "p2p.h"
#include "transport.h"

#define WARMUP_WINDOWS_MAX 4096 /* warm-up windows kept for the rule; beyond: not converged */

struct p2p_run {
	const struct p2p_opts *o;
	struct world *w;
	struct run_out *out;     /* the results directory */
	FILE *csv;               /* rank 0: p2p.csv, rows streamed as each step ends */
	double timeout;          /* seconds per pair */
	int nrec;                /* records per endpoint per step: 2 directions x sizes */
	struct p2p_rec *mine;    /* nrec */
	struct p2p_rec *all;     /* nep x nrec, rank 0 */
	double *samples;         /* lat_iters */
	uint64_t *ticks;         /* lat_iters + 1 clock readings */
	struct clock_tick clk;   /* the per-sample clock */
	double *wtimes;          /* window times: WARMUP_WINDOWS_MAX, at least bw_iters */
	MPI_Comm ctl;            /* per path: the warm-up decisions, sender to receiver */
	const char *csv_name;    /* "p2p.csv", or the plan's file */
	int pin;                 /* place the endpoints on the cores they share (pin_init) */
	int machine_eps;         /* endpoints on this machine (the same kernel boot id) */
	cpu_set_t cpus;          /* this rank's affinity, restored at the end */
	int stall_pending;       /* test-only stall not yet done */
	int failed;              /* directions that failed, all paths */
	double sync_s, write_s;  /* rank 0, this path: the engine's own time in its steps (below) */
	struct p2p_result *res;  /* rank 0: every path's matrices, or NULL */
	int lat_only;            /* an earlier latency pass: no stream, nothing written */
	double est_s;            /* a plan's estimate of the path being measured (0: generic) */
	const struct p2p_plan *plan; /* p2p_plan_main's, else NULL */
	int path_i;              /* the index of the path being measured (in the plan) */
	int ndirs;               /* directions a pair measures: 2, or 1 (a directed plan: a to b) */
	struct p2p_rec *step_rec; /* rank 0, an adaptive plan: a step's directions at the last size */
	int nstep_rec;
	struct sched_pair *next;  /* an adaptive plan: the next step's pairs (nep / 2 + 1) */
	struct lat_best *best;   /* nep x nrec: per peer, the earlier passes' best latency figures */
	MPI_Request step_req;    /* the step's barrier: every endpoint done with its pairs */
	int step_posted;         /* …posted by this endpoint (step_post) */
};

/* A direction's latency figures from the pass with the lowest minimum (--lat-passes), and the
 * highest minimum of any pass (hi). */
struct lat_best {
	int64_t iters;
	double min, avg, p50, p99, hi;
};

/* Rank 0, once a run: a verbs path's QoS into meta.json (p2p_report.c). */
void p2p_meta_qos(struct p2p_run *run, const char (*paths)[P2P_PATH_MAX], int npaths);

/* The pair (a, b), me one of them, every size: both directions, a to b first, or a to b alone
 * (run->ndirs 1); fills run->mine (the slots of a direction not measured: src -1). slot: the
 * pair's place among the nslots pairs of its step (where it is placed, run->pin). */
void p2p_pair_run(struct p2p_run *run, const struct transport_ops *tr, void *ctx, const struct tr_port *ports, int a,
		  int b, unsigned seq, int slot, int nslots);
/* After an earlier latency pass of peer's pair: its figures kept where they beat the best so far. */
void p2p_lat_keep_best(struct p2p_run *run, int peer);
/* This endpoint is done with its pairs of the step: its part of the step's barrier posted. */
int p2p_step_post(struct p2p_run *run);

/* Place this endpoint on core n of those its node's endpoints share (pin_init's plan). */
void p2p_pin_to(const struct p2p_run *run, int n);
/* An empty record of the direction src to dst at size index size_idx (nothing measured). */
void p2p_rec_init(struct p2p_rec *r, int src, int dst, int size_idx);

/* This endpoint placed on the cores and memory of path's port's NUMA node before the path
 * opens (p2p_place.c; nothing when the machine's endpoints share it), that placement put in
 * its port (after open, before the ports are gathered), undone after the path; rank 0: every
 * endpoint's placement into placement.csv, and those off their port's node said. */
struct nic_place;
void p2p_place(const struct p2p_run *run, const char *path, struct nic_place *pl);
void p2p_place_port(const struct nic_place *pl, struct tr_port *port);
void p2p_unplace(const struct p2p_run *run, const struct nic_place *pl);
void p2p_place_write(struct p2p_run *run, const char *path, const struct tr_port *ports);

/* The endpoints of one machine placed on the cores they share (none when each has its own), and
 * the cross-core probe before the first pass and after the last (after). */
void p2p_pin_init(struct p2p_run *run);
void p2p_pin_probe(struct p2p_run *run, int after);

/* rank 0, after a path's nsteps steps (p2p_report.c): the engine's own time in them, into
 * meta.json's figures and on the terminal */
void p2p_engine_report(struct p2p_run *run, int nsteps);
/* rank 0: a path's progress on stderr, after step step of nsteps (t0: the path's start). */
void p2p_progress_print(struct p2p_run *run, const char *path, int step, int nsteps, int pairs_done, int npairs,
			double t0);

/* rank 0: the path's line rate (its slowest usable port of n; NAN when one is unknown) and
 * kind into m. */
void p2p_path_rate(struct p2p_matrices *m, const struct tr_port *ports, int n);

#endif
