/* infer_model.h — the tier model (tier level + node offset + node offset, µs) and what is
 * judged against it: slow nodes, slow and fast links, unmeasured pairs, low bandwidth; the
 * per-tier statistics. Not a public header (see infer.h). */
#ifndef FP_INFER_MODEL_H
#define FP_INFER_MODEL_H

#include "infer_int.h"

#define INFER_SUSPECTS_MAX 10000 /* a list longer than this says the grouping itself is in doubt */

struct infer_model {
	int ntiers;
	double level[INFER_TIERS_MAX]; /* µs between two nodes of offset 0 that meet at tier t */
	double *off;                   /* µs per node (n), the median node 0 */
	float *se;                     /* their standard errors */
	double sigma;                  /* spread of the pairs around the model, log units */
	double dof;                    /* pairs less parameters: what sigma rests on */
	double sigma0;                 /* the same over the lowest tier's pairs alone (NAN: few) */
};

/* Fit the model to the pairs in c->d (built with c->off) under the tiers ti; warm: start from
 * m as it is (the same tiers, fitted before), else from the tiers' means and c->off. */
int infer_model_fit(const struct infer_ctx *c, const struct infer_tiers *ti, struct infer_model *m, int warm);

/* Per-tier pairs and medians, then the suspects, into r (its groups and order already set). */
int infer_suspects(struct infer_ctx *c, const struct infer_model *m, const float *bw, struct infer_result *r);

#endif
