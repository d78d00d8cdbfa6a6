/* measure.c — the skeleton every measuring subcommand shares (cmd.h). */
#include "cmd.h"

#include "core/launcher.h"
#include "core/log.h"
#include "core/run.h"

int cmd_measure(const struct cmd_stage *s, int argc, char **argv, int parse_rc, const char *err,
		const struct results_where *where, int progress, void *opts)
{
	if (parse_rc == 1) {
		s->usage(stdout);
		return FP_EXIT_OK;
	}
	if (parse_rc)
		return launcher_usage_error(s->name, err);
	return run_command(argc, argv, s->name, where, progress, s->check, s->body, opts);
}
