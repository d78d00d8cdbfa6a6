/* replay.c — a plain driver for one fuzz target (any compiler, no libFuzzer): every input of
 * its seed corpus ($FP_FUZZ_SEEDS/<target>, made from tests/fixtures by seeds.sh) and of its
 * regression corpus (tests/fuzz/regressions/<target>: every crash input ever found), or the
 * files and directories given. One line for tests/run.sh: "ok - replay <target>: N inputs";
 * a crash or a hang names the input. */
#include <dirent.h>
#include <signal.h>

#include "fuzz.h"

#ifndef FUZZ_NAME
#define FUZZ_NAME "fuzz"
#endif
#define INPUT_SECONDS 60 /* one input longer than this is a hang */

static char replay_current[1024]; /* the input being replayed, for the crash message */

static void replay_died(int sig)
{
	static const char a[] = "not ok - replay " FUZZ_NAME ": ", b[] = " on input ", c[] = "\n";
	const char *what = sig == SIGALRM ? "hung" : "crashed";

	(void)!write(1, a, sizeof a - 1);
	(void)!write(1, what, strlen(what));
	(void)!write(1, b, sizeof b - 1);
	(void)!write(1, replay_current, strlen(replay_current));
	(void)!write(1, c, 1);
	signal(sig, SIG_DFL);
	raise(sig == SIGALRM ? SIGKILL : sig);
}

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	long size;

	if (!f)
		return 0;
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    !(data = malloc((size_t)size + 1)) || fread(data, 1, (size_t)size, f) != (size_t)size) {
		fclose(f);
		free(data);
		return 0;
	}
	fclose(f);
	snprintf(replay_current, sizeof replay_current, "%s", path);
	alarm(INPUT_SECONDS);
	LLVMFuzzerTestOneInput(data, (size_t)size);
	alarm(0);
	free(data);
	return 1;
}

/* a file, or every file of a directory (not recursive); returns the inputs replayed */
static int replay_path(const char *path)
{
	struct stat st;
	struct dirent *e;
	DIR *d;
	int n = 0;

	if (stat(path, &st))
		return 0;
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);
	if (!(d = opendir(path)))
		return 0;
	while ((e = readdir(d))) {
		char file[1024];

		if (e->d_name[0] == '.')
			continue;
		snprintf(file, sizeof file, "%s/%s", path, e->d_name);
		n += replay_file(file);
	}
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	static const int sigs[] = { SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGALRM };
	const char *seeds = getenv("FP_FUZZ_SEEDS");
	char dir[512];
	int n = 0;

	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], replay_died);
	if (!freopen("/dev/null", "w", stderr)) /* the readers' warnings are expected here */
		return 1;
	for (int i = 1; i < argc; i++)
		n += replay_path(argv[i]);
	if (argc == 1) {
		snprintf(dir, sizeof dir, "%s/%s", seeds ? seeds : "build/fuzz-seeds", FUZZ_NAME);
		n += replay_path(dir);
		n += replay_path("tests/fuzz/regressions/" FUZZ_NAME);
	}
	if (n == 0) {
		printf("not ok - replay %s: no input found (run tests/fuzz/seeds.sh)\n", FUZZ_NAME);
		return 1;
	}
	printf("ok - replay %s: %d inputs (seed and regression corpus), no crash, no hang\n", FUZZ_NAME, n);
	return 0;
}
