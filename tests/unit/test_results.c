/* Results directories under faults: a full disk never leaves a torn row in a
 * streamed CSV, and a run whose meta.json says "running" while its
 * process is gone is told apart from one that still runs. */
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "core/csv.h"
#include "core/log.h"
#include "core/results.h"

static char dir[] = "/tmp/fp-results-XXXXXX";

/* a child process whose files may not grow past `limit` bytes: the disk is full there */
static void write_rows_until_full(const char *file, long limit, int flush_each)
{
	struct rlimit rl = { (rlim_t)limit, (rlim_t)limit };
	FILE *f;

	signal(SIGXFSZ, SIG_IGN); /* a write past the limit fails with EFBIG, as on a full disk */
	if (setrlimit(RLIMIT_FSIZE, &rl) || !(f = results_open(dir, file)))
		_exit(2);
	fputs("a,b,note\n", f);
	for (int i = 0; i < 1000; i++) {
		fprintf(f, "%d,%d,", i, i * 7);
		csv_field(f, i % 3 ? "plain" : "two\nlines, \"quoted\"");
		fputc('\n', f);
		if ((flush_each || i % 5 == 4) && csv_flush(f, file))
			break;
	}
	results_close(f, dir, file);
	_exit(0);
}

/* every record of the file is whole: it ends in LF, and quotes are balanced */
static int whole_rows(const char *file, long *size, int *rows)
{
	char path[256];
	FILE *f;
	int c, last = '\n', quoted = 0;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	if (!(f = fopen(path, "r")))
		return 0;
	*size = 0;
	*rows = 0;
	while ((c = fgetc(f)) != EOF) {
		(*size)++;
		if (c == '"')
			quoted = !quoted;
		else if (c == '\n' && !quoted)
			(*rows)++;
		last = c;
	}
	fclose(f);
	return last == '\n' && !quoted;
}

static void test_full_disk_keeps_whole_rows(void)
{
	static const char *const files[] = { "p2p.csv", "flushed-each.csv" };

	for (int k = 0; k < 2; k++) {
		pid_t pid = fork();
		int status = 0, rows = 0;
		long size = 0;

		if (pid == 0)
			write_rows_until_full(files[k], 1000, k);
		waitpid(pid, &status, 0);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		CHECK(whole_rows(files[k], &size, &rows));
		if (!whole_rows(files[k], &size, &rows))
			printf("#   %s: %ld bytes, torn after %d rows\n", files[k], size, rows);
		CHECK(size > 100 && size <= 1000 && rows > 5);
	}
}

static void meta(const char *run, const char *body)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, run);
	mkdir(path, 0777);
	snprintf(path, sizeof path, "%s/%s/meta.json", dir, run);
	if ((f = fopen(path, "w"))) {
		fputs(body, f);
		fclose(f);
	}
}

static void test_run_state(void)
{
	char host[256], boot[64], body[1024], why[512], path[256];
	pid_t dead = fork();

	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	gethostname(host, sizeof host);
	results_boot_id(boot, sizeof boot);
	snprintf(body, sizeof body, "{\n  \"status\": \"running\",\n  \"pid\": %d,\n  \"pid_host\": \"%s\",\n"
		 "  \"boot_id\": \"%s\",\n  \"hosts\": [\"a\"]\n}\n", (int)dead, host, boot);
	meta("gone", body);
	snprintf(path, sizeof path, "%s/gone", dir);
	CHECK_STR(results_run_state(path, why, sizeof why), "incomplete");
	CHECK(strstr(why, "is gone") != NULL);
	snprintf(body, sizeof body, "{\n  \"status\": \"running\",\n  \"pid\": %d,\n  \"pid_host\": \"%s\",\n"
		 "  \"boot_id\": \"%s\"\n}\n", (int)getpid(), host, boot);
	meta("alive", body);
	snprintf(path, sizeof path, "%s/alive", dir);
	CHECK_STR(results_run_state(path, why, sizeof why), "running");
	/* our own pid, but from before a reboot: gone */
	snprintf(body, sizeof body, "{\n  \"status\": \"running\",\n  \"pid\": %d,\n  \"pid_host\": \"%s\",\n"
		 "  \"boot_id\": \"00000000-0000-0000-0000-000000000000\"\n}\n", (int)getpid(), host);
	meta("rebooted", body);
	snprintf(path, sizeof path, "%s/rebooted", dir);
	CHECK_STR(results_run_state(path, why, sizeof why), boot[0] ? "incomplete" : "running");
	meta("elsewhere", "{ \"status\": \"running\", \"pid\": 1, \"pid_host\": \"no-such-host.example\" }\n");
	snprintf(path, sizeof path, "%s/elsewhere", dir);
	CHECK_STR(results_run_state(path, why, sizeof why), "running");
	CHECK(strstr(why, "no-such-host.example") != NULL);
	/* the run's own member, not a nested one of the same name that comes first */
	meta("argv", "{ \"checks\": { \"status\": \"ok\" }, \"status\": \"failed\" }\n");
	snprintf(path, sizeof path, "%s/argv", dir);
	CHECK_STR(results_run_state(path, why, sizeof why), "failed");
	meta("torn", "{ \"status\": \"ok\", \"pid\": ");
	snprintf(path, sizeof path, "%s/torn", dir);
	CHECK_STR(results_run_state(path, why, sizeof why), "unknown");
	meta("done", "{ \"status\": \"interrupted\", \"exit_code\": 130 }\n");
	snprintf(path, sizeof path, "%s/done", dir);
	CHECK_STR(results_run_state(path, why, sizeof why), "interrupted");
	snprintf(path, sizeof path, "%s/none", dir);
	CHECK_STR(results_run_state(path, why, sizeof why), "unknown");
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("not ok - mkdtemp\n");
		return 1;
	}
	RUN(test_full_disk_keeps_whole_rows);
	RUN(test_run_state);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd))
		printf("# could not remove %s\n", dir);
	CHECK_EXIT();
}
