/* report.c — `fabprobe report DIR`: the results directory as one HTML page, DIR/report.html
 * (topo/report/report.h); no MPI. And cmd_report_after, which the measuring commands call
 * once their results are final. */
#include <getopt.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "core/escape.h"
#include "core/log.h"
#include "core/opts.h"
#include "core/results.h"
#include "report/report.h"

static void report_usage(FILE *f)
{
	fputs("usage: fabprobe report <results-dir> [options]\n"
	      "\n"
	      "Render a results directory as one self-contained HTML page, <results-dir>/report.html:\n"
	      "the verdict, the run's metadata, per path latency and bandwidth heat maps in the inferred\n"
	      "tree order (switch groups outlined, suspects marked), tiers, groups, suspects, scheduler\n"
	      "files with their install lines, latency and bandwidth against message size, collective\n"
	      "bus bandwidth, the inventory, and the comparison when compare.csv is there. Inline CSS\n"
	      "and SVG: it opens offline in any browser and prints. No MPI. `run`, `p2p` and `coll`\n"
	      "write it at their end.\n"
	      "\n"
	      "  -q, --quiet             do not list what is missing or malformed on stderr (the page\n"
	      "                          lists it at its top either way)\n"
	      "  -h, --help\n"
	      "\n"
	      "A missing or malformed file leaves its section out, said in the page and on stderr.\n"
	      "Exit: 0 written; 2 not a directory, or none of fabprobe's files in it; 3 write error.\n", f);
}

/* Render dir/report.html; notes on stderr unless quiet. 0, FP_EUSAGE or FP_ERUNTIME. */
static int report_render(const char *dir, int quiet)
{
	struct report_notes notes = { 0 };
	char err[RESULTS_PATH_MAX + 256];
	struct results_file out;
	int rc;

	if (results_tmp_open(&out, dir, "report.html"))
		return FP_ERUNTIME;
	rc = report_write(out.f, dir, &notes, err, sizeof err);
	for (int i = 0; !quiet && i < notes.n; i++)
		escape_term_line(stderr, "fabprobe report: %s", notes.msg[i]);
	report_notes_free(&notes);
	if (rc) {
		results_tmp_abort(&out);
		escape_term_line(stderr, "fabprobe report: %s", err);
		return rc;
	}
	return results_tmp_commit(&out);
}

void cmd_report_after(const char *dir)
{
	if (report_render(dir, 1))
		escape_term_line(stderr, "fabprobe: warning: %s/report.html not written (the results stand)", dir);
	else
		printf("report: %s/report.html\n", dir);
}

int cmd_report(int argc, char **argv)
{
	static const struct option lo[] = { { "quiet", no_argument, NULL, 'q' }, { "help", no_argument, NULL, 'h' },
					    { NULL, 0, NULL, 0 } };
	struct stat st;
	int c, quiet = 0, rc;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qh", lo, NULL)) != -1) {
		switch (c) {
		case 'q': quiet = 1; break;
		case 'h': report_usage(stdout); return FP_EXIT_OK;
		default:
			fprintf(stderr, "fabprobe report: unknown option %s (see fabprobe report --help)\n", argv[optind - 1]);
			return FP_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "fabprobe report: %s (see fabprobe report --help)\n",
			optind >= argc ? "expected a results directory" : "expected one results directory");
		return FP_EXIT_USAGE;
	}
	if (stat(argv[optind], &st) || !S_ISDIR(st.st_mode)) {
		escape_term_line(stderr, "fabprobe report: %s: not a directory", argv[optind]);
		return FP_EXIT_USAGE;
	}
	rc = report_render(argv[optind], quiet);
	if (rc == 0)
		printf("report: %s/report.html\n", argv[optind]);
	return rc == 0 ? FP_EXIT_OK : rc == FP_EUSAGE ? FP_EXIT_USAGE : FP_EXIT_RUNTIME;
}
