/* Results directories under faults: a full disk never leaves a torn row in a
 * streamed CSV, and a run whose meta.json says "running" while its
 * process is gone is told apart from one that still runs. And hostile directories: what was
 * planted (a link, a FIFO, a directory, a file) at a target or at the old temporary's name is
 * never followed or opened, and a full disk leaves the target as it was. */
#include <dirent.h>
#include <fcntl.h>
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

/* dir/name as text ("" when unreadable), through links: what a victim holds */
static void slurp(const char *name, char *out, size_t len)
{
	char path[256];
	FILE *f;
	size_t n = 0;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if ((f = fopen(path, "r"))) {
		n = fread(out, 1, len - 1, f);
		fclose(f);
	}
	out[n] = 0;
}

/* mkdir dir/sub afresh, with dir/victim (outside sub) holding "victim\n" */
static void hostile_dir(char *sub, size_t len, const char *name)
{
	char path[256];
	FILE *f;

	snprintf(sub, len, "%s/%s", dir, name);
	CHECK(mkdir(sub, 0777) == 0);
	snprintf(path, sizeof path, "%s/victim", dir);
	if ((f = fopen(path, "w"))) {
		fputs("victim\n", f);
		fclose(f);
	}
}

/* how many entries of dir/sub start with '.' (left-over temporaries), . and .. aside */
static int hidden_entries(const char *sub)
{
	DIR *d = opendir(sub);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

/* publish "new\n" as sub/file: 0 or FP_ERUNTIME */
static int write_new(const char *sub, const char *file)
{
	struct results_file w;

	if (results_tmp_open(&w, sub, file))
		return results_tmp_commit(&w);
	fputs("new\n", w.f);
	return results_tmp_commit(&w);
}

static void test_links_never_followed(void)
{
	char sub[256], path[300], victim[300], text[64];
	struct stat st;

	hostile_dir(sub, sizeof sub, "links");
	snprintf(victim, sizeof victim, "%s/victim", dir);
	/* a link at the target: replaced by a regular file, the victim unchanged */
	snprintf(path, sizeof path, "%s/report.html", sub);
	CHECK(symlink(victim, path) == 0);
	CHECK(write_new(sub, "report.html") == 0);
	CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
	slurp("victim", text, sizeof text);
	CHECK_STR(text, "victim\n");
	slurp("links/report.html", text, sizeof text);
	CHECK_STR(text, "new\n");
	/* a link at the old temporary's name: neither followed nor touched */
	snprintf(path, sizeof path, "%s/topology.conf.tmp", sub);
	CHECK(symlink(victim, path) == 0);
	CHECK(write_new(sub, "topology.conf") == 0);
	slurp("victim", text, sizeof text);
	CHECK_STR(text, "victim\n");
	CHECK(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));
	/* a streamed file over a planted link: refused, the victim unchanged */
	snprintf(path, sizeof path, "%s/p2p.csv", sub);
	CHECK(symlink(victim, path) == 0);
	CHECK(results_open(sub, "p2p.csv") == NULL);
	slurp("victim", text, sizeof text);
	CHECK_STR(text, "victim\n");
	/* the directory itself a link: refused, nothing written where it points */
	snprintf(path, sizeof path, "%s/links-link", dir);
	CHECK(symlink(sub, path) == 0);
	CHECK(write_new(path, "x.csv") == FP_ERUNTIME);
	snprintf(path, sizeof path, "%s/x.csv", sub);
	CHECK(access(path, F_OK) != 0);
	CHECK(results_open(dir, "../victim") == NULL); /* one name, never a path */
	CHECK_EQ(hidden_entries(sub), 0);
}

/* a later pass of the run continues its file: created when no pass did (fresh, the header
 * the caller's), else written from its end (not fresh), the earlier rows kept; a link at the
 * name is never followed, nor a FIFO opened */
static void test_append(void)
{
	char sub[256], path[300], text[128];
	int fresh = -1;
	FILE *f;

	hostile_dir(sub, sizeof sub, "append");
	CHECK((f = results_append(sub, "p2p_bw.csv", &fresh)) != NULL);
	CHECK_EQ(fresh, 1);
	if (f) {
		fputs("h\n1\n", f);
		CHECK_EQ(results_close(f, sub, "p2p_bw.csv"), 0);
	}
	CHECK((f = results_append(sub, "p2p_bw.csv", &fresh)) != NULL);
	CHECK_EQ(fresh, 0);
	if (f) {
		fputs("2\n3", f); /* a row never ended: not written */
		results_close(f, sub, "p2p_bw.csv");
	}
	slurp("append/p2p_bw.csv", text, sizeof text);
	CHECK_STR(text, "h\n1\n2\n");
	snprintf(path, sizeof path, "%s/link.csv", sub);
	CHECK(symlink("../victim", path) == 0);
	CHECK(results_append(sub, "link.csv", &fresh) == NULL);
	slurp("victim", text, sizeof text);
	CHECK_STR(text, "victim\n");
	snprintf(path, sizeof path, "%s/fifo.csv", sub);
	CHECK(mkfifo(path, 0666) == 0);
	CHECK(results_append(sub, "fifo.csv", &fresh) == NULL); /* no writer waited for */
}

static void test_planted_tmp_names(void)
{
	char sub[256], path[300], text[64];
	FILE *f;

	hostile_dir(sub, sizeof sub, "planted");
	/* a file, a FIFO and a directory at the old temporaries' names: no hang, written, kept */
	snprintf(path, sizeof path, "%s/a.csv.tmp", sub);
	if ((f = fopen(path, "w"))) {
		fputs("mine\n", f);
		fclose(f);
	}
	snprintf(path, sizeof path, "%s/b.csv.tmp", sub);
	CHECK(mkfifo(path, 0666) == 0);
	snprintf(path, sizeof path, "%s/c.csv.tmp", sub);
	CHECK(mkdir(path, 0777) == 0);
	CHECK(write_new(sub, "a.csv") == 0);
	CHECK(write_new(sub, "b.csv") == 0);
	CHECK(write_new(sub, "c.csv") == 0);
	slurp("planted/a.csv.tmp", text, sizeof text);
	CHECK_STR(text, "mine\n");
	slurp("planted/c.csv", text, sizeof text);
	CHECK_STR(text, "new\n");
	/* a directory at the target itself: an error, the temporary removed */
	snprintf(path, sizeof path, "%s/d.csv", sub);
	CHECK(mkdir(path, 0777) == 0);
	CHECK(write_new(sub, "d.csv") == FP_ERUNTIME);
	/* dropped: the target untouched */
	struct results_file w;

	CHECK(results_tmp_open(&w, sub, "a.csv") == 0);
	if (w.f)
		fputs("half", w.f);
	results_tmp_abort(&w);
	slurp("planted/a.csv", text, sizeof text);
	CHECK_STR(text, "new\n");
	CHECK_EQ(hidden_entries(sub), 0);
}

/* a child whose files may not grow past 1000 bytes writes 5000 into sub/file */
static void commit_when_full(const char *sub, const char *file)
{
	struct rlimit rl = { 1000, 1000 };
	struct results_file w;

	signal(SIGXFSZ, SIG_IGN);
	if (setrlimit(RLIMIT_FSIZE, &rl) || results_tmp_open(&w, sub, file))
		_exit(2);
	for (int i = 0; i < 500; i++)
		fputs("123456789\n", w.f);
	_exit(results_tmp_commit(&w) == FP_ERUNTIME ? 0 : 1);
}

static void test_full_disk_keeps_target(void)
{
	char sub[256], text[64];
	int status = 0;
	pid_t pid;

	hostile_dir(sub, sizeof sub, "full");
	CHECK(write_new(sub, "meta.json") == 0);
	if ((pid = fork()) == 0)
		commit_when_full(sub, "meta.json");
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	slurp("full/meta.json", text, sizeof text);
	CHECK_STR(text, "new\n");
	CHECK_EQ(hidden_entries(sub), 0);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("not ok - mkdtemp\n");
		return 1;
	}
	RUN(test_full_disk_keeps_whole_rows);
	RUN(test_run_state);
	RUN(test_links_never_followed);
	RUN(test_planted_tmp_names);
	RUN(test_append);
	RUN(test_full_disk_keeps_target);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd))
		printf("# could not remove %s\n", dir);
	CHECK_EXIT();
}
