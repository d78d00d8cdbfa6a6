/* results.c — see results.h. */
#include "results.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "nodename.h"
#include "opts.h"

static int mkdir_p(const char *path)
{
	char buf[RESULTS_PATH_MAX];

	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
		return -ENAMETOOLONG;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0777) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0777) && errno != EEXIST)
		return -errno;
	return 0;
}

/* 1 when dir exists and holds nothing but . and .., 0 when it holds something, -errno. */
static int dir_is_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int empty = 1;

	if (!d)
		return -errno;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			empty = 0;
			break;
		}
	closedir(d);
	return empty;
}

int results_dir_create(const char *root, const char *name, const char *dir, time_t now,
		       char *out, size_t outlen, char *err, size_t errlen)
{
	char stamp[32];
	struct tm tm;
	int rc;

	if (dir) {
		if ((rc = mkdir_p(dir)) < 0) {
			snprintf(err, errlen, "cannot create results directory %s: %s", dir, strerror(-rc));
			return FP_ERUNTIME;
		}
		if ((rc = dir_is_empty(dir)) <= 0) {
			snprintf(err, errlen, rc == 0 ? "results directory %s is not empty: refusing to "
				 "overwrite an earlier run (choose a new -o DIR)"
				 : "cannot read results directory %s: %s", dir, strerror(-rc));
			return rc == 0 ? FP_EUSAGE : FP_ERUNTIME;
		}
		if (snprintf(out, outlen, "%s", dir) >= (int)outlen)
			goto too_long;
		return 0;
	}
	if ((rc = mkdir_p(root)) < 0) {
		snprintf(err, errlen, "cannot create results root %s: %s", root, strerror(-rc));
		return FP_ERUNTIME;
	}
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	for (int k = 1; k < 1000; k++) {
		int n = snprintf(out, outlen, "%s/%s%s%s", root, stamp, name ? "-" : "", name ? name : "");

		if (k > 1)
			n += snprintf(out + n, outlen > (size_t)n ? outlen - (size_t)n : 0, ".%d", k);
		if (n >= (int)outlen)
			goto too_long;
		if (mkdir(out, 0777) == 0)
			return 0;
		if (errno != EEXIST) {
			snprintf(err, errlen, "cannot create results directory %s: %s", out, strerror(errno));
			return FP_ERUNTIME;
		}
	}
	snprintf(err, errlen, "too many runs named %s under %s", stamp, root);
	return FP_ERUNTIME;
too_long:
	snprintf(err, errlen, "results directory path is too long");
	return FP_EUSAGE;
}

static FILE *open_path(const char *dir, const char *file, const char *suffix, const char *mode)
{
	char path[RESULTS_PATH_MAX];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s%s", dir, file, suffix);
	if (!(f = fopen(path, mode)))
		LOG_ERROR("cannot open %s: %s", path, strerror(errno));
	return f;
}

FILE *results_open(const char *dir, const char *file)
{
	/* "x": the run directory is new, so an existing file here is a bug, never overwritten */
	return open_path(dir, file, "", "wx");
}

FILE *results_tmp_open(const char *dir, const char *file)
{
	return open_path(dir, file, ".tmp", "w");
}

int results_close(FILE *f, const char *dir, const char *file)
{
	int bad = fflush(f) != 0 || ferror(f);
	int err = errno;

	if (fclose(f) != 0 && !bad) {
		bad = 1;
		err = errno;
	}
	if (bad) {
		LOG_ERROR("writing %s/%s: %s", dir, file, strerror(err));
		return FP_ERUNTIME;
	}
	return 0;
}

int results_tmp_commit(FILE *f, const char *dir, const char *file)
{
	char tmp[RESULTS_PATH_MAX], path[RESULTS_PATH_MAX];
	int rc = results_close(f, dir, file);

	snprintf(tmp, sizeof tmp, "%s/%s.tmp", dir, file);
	snprintf(path, sizeof path, "%s/%s", dir, file);
	if (rc == 0 && rename(tmp, path) != 0) {
		LOG_ERROR("renaming %s to %s: %s", tmp, path, strerror(errno));
		rc = FP_ERUNTIME;
	}
	if (rc)
		unlink(tmp);
	return rc;
}

void results_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

int results_where_opt(struct results_where *w, int opt, const char *arg, char *err)
{
	switch (opt) {
	case RESULTS_OPT_OUTPUT: w->output = arg; return 0;
	case RESULTS_OPT_ROOT: w->root = arg; return 0;
	case RESULTS_OPT_NAME: w->name = arg; return opts_name("--name", arg, err);
	case RESULTS_OPT_NODE_NAMES:
		if ((w->node_names = nodename_mode_parse(arg)) < 0)
			OPTS_FAIL("--node-names: '%.60s' is not one of " NODENAME_MODES, arg);
		return 0;
	default: OPTS_FAIL("internal: option %d is not a results option", opt);
	}
}

int results_where_check(struct results_where *w, char *err)
{
	if (w->output && (w->name || w->root))
		OPTS_FAIL("-o/--output names the directory itself; it cannot be combined with %s",
			  w->name ? "--name" : "--results-root");
	if (w->output && !*w->output)
		OPTS_FAIL("-o/--output: empty directory name");
	if (w->root && !*w->root)
		OPTS_FAIL("--results-root: empty directory name");
	if (!w->root && !w->output)
		w->root = "results";
	return 0;
}
