/* launcher.c — see launcher.h. */
#include "launcher.h"

#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "escape.h"
#include "log.h"

#define USAGE_GRACE_US 300000 /* long enough for rank 0 to print and exit first */

int launcher_rank(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
					     "SLURM_PROCID" };

	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		if (getenv(vars[i]))
			return atoi(getenv(vars[i]));
	return 0;
}

int launcher_usage_error(const char *cmd, const char *err)
{
	if (launcher_rank() == 0)
		escape_term_line(stderr, "fabprobe %s: %s", cmd, err);
	else
		clock_sleep_us(USAGE_GRACE_US);
	return FP_EXIT_USAGE;
}
