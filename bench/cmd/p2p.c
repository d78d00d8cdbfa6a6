/* p2p.c — `fabprobe p2p`: the pairs of every endpoint over the paths given (options and usage:
 * p2p/p2p_opts.c). */
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "core/log.h"
#include "core/run.h"
#include "core/world.h"
#include "p2p/p2p.h"

const char *p2p_status_name(int status)
{
	static const char *const names[] = { "ok", "skipped", "error", "timeout" };

	return status >= 0 && status <= P2P_TIMEOUT ? names[status] : "unknown";
}

/* The matrices in natural name order: `fabprobe p2p` infers no tree. */
static int p2p_body(struct world *w, struct run_out *ro, void *arg)
{
	ro->after = cmd_report_after;
	struct p2p_result res = { 0 };
	int *order = malloc(sizeof *order * (size_t)w->nep), rc = 0, wrc = 0;

	if (w->my_ep >= 0)
		rc = p2p_main(arg, w, ro, w->rank == 0 ? &res : NULL);
	for (int i = 0; order && i < res.npaths; i++) {
		p2p_order_natural(w->nep, w->labels, order);
		wrc |= p2p_matrices_write(ro->dir, &res.path[i], w->labels, order);
	}
	if (w->rank == 0 && !order)
		wrc = FP_ERUNTIME;
	p2p_result_free(&res);
	free(order);
	return rc < 0 ? rc : wrc ? FP_ERUNTIME : rc;
}

/* Before the run: two endpoints at least, or there is nothing to measure (every rank knows
 * the endpoints alike, so every rank decides alike). */
static int p2p_check(struct world *w, void *arg)
{
	(void)arg;
	if (w->nep >= 2)
		return 0;
	if (w->rank == 0)
		fprintf(stderr, "fabprobe p2p: one endpoint (%s): nothing to measure; run 2 or more ranks "
			"(mpirun -np 2 … on one node, or one rank per node)\n", w->host);
	return FP_EUSAGE;
}

int cmd_p2p(int argc, char **argv)
{
	static const struct cmd_stage stage = { .name = "p2p", .usage = p2p_usage, .check = p2p_check,
						.body = p2p_body };
	struct p2p_opts o;
	char err[OPTS_ERR_MAX];
	int rc = p2p_opts_parse(argc, argv, &o, err);

	return cmd_measure(&stage, argc, argv, rc, err, &o.where, o.progress, &o);
}
