/* coll.c — `fabprobe coll`: the collectives stage under cmd_measure (options and usage:
 * coll/coll_opts.c). */

#include "cmd.h"
#include "coll/coll.h"
#include "core/log.h"
#include "core/run.h"

static int coll_body(struct world *w, struct run_out *ro, void *opts)
{
	ro->after = cmd_report_after;
	return coll_stage(w, ro, opts);
}

int cmd_coll(int argc, char **argv)
{
	static const struct cmd_stage stage = { .name = "coll", .usage = coll_usage, .prepare = coll_path_apply,
						.check = coll_check, .body = coll_body };
	struct coll_opts o;
	char err[OPTS_ERR_MAX];
	int rc = coll_opts_parse(argc, argv, &o, err);

	return cmd_measure(&stage, argc, argv, rc, err, &o.where, 0, &o);
}
