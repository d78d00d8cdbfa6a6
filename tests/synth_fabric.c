/* synth_fabric.c — a synthetic fabric with a known switch tree, for testing and benchmarking
 * `fabprobe topo`. Writes the square latency matrix fabprobe reads (host,<names…> then one row
 * per host, empty diagonal and missing cells) and a truth file (host, its group at every
 * switch level, whether it was planted slow). Deterministic for a given --seed.
 *
 * Latency of a pair whose lowest common switch is at level t (0 = same leaf):
 *     (leaf_us + 2 t hop_us + off_i + off_j + cable_ij + step_ij) x exp(noise x N(0,1))
 * drawn independently for each direction; off = uniform [0, --offset-us] per node, plus
 * --slow-us for the --slow planted nodes; cable = uniform [0, --cable-us] per pair (the same
 * both ways); step = --pair-step-us for half the pairs, drawn at random, 0 for the others
 * (bimodal pair offsets: ECMP paths of two lengths, a NIC on the far socket, a host's slow
 * spells; the same both ways); each direction is missing with probability --missing.
 *
 * Stand-alone C (no project headers): it must run where only a compiler is. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEVELS_MAX 6

struct synth_opts {
	int nlev;                    /* levels in --shape (the last: nodes per leaf) */
	int lo[LEVELS_MAX], hi[LEVELS_MAX];
	double leaf_us, hop_us, noise, offset_us, slow_us, missing, cable_us, step_us;
	int slow;
	const char *names, *out, *truth;
	uint64_t seed;
};

struct synth_fabric {
	int n, nsw;                  /* nodes; switch levels (nlev - 1) */
	int *grp;                    /* [lvl * n + node]: group at switch level lvl (0 = leaf) */
	double *off;                 /* per node, µs */
	char *slow;                  /* per node */
	int *row;                    /* row k of the matrix is node row[k] */
	char (*name)[24];
};

/* ---------------------------------------------------------------- random numbers */

static uint64_t mix64(uint64_t x) /* splitmix64's finaliser */
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static double unit(uint64_t *s) /* uniform [0, 1) */
{
	*s += 0x9e3779b97f4a7c15ULL;
	return (double)(mix64(*s) >> 11) / 9007199254740992.0;
}

static double gauss(uint64_t *s)
{
	double u = unit(s), v = unit(s);

	return sqrt(-2 * log(1 - u)) * cos(2 * M_PI * v);
}

/* ---------------------------------------------------------------- options */

static void usage(FILE *f)
{
	fputs("usage: synth-fabric --shape S [options] -o MATRIX.csv [-t TRUTH.csv]\n"
	      "  --shape S        children per level from the top, 'x'-separated; the last is nodes per\n"
	      "                   leaf; each may be a range: 8x8x256 (8 spines of 8 leaves of 256),\n"
	      "                   4x4x8x32 (3 switch levels), 6x1-64 (6 leaves of 1..64 nodes)\n"
	      "  --leaf-us X      latency of a pair on one leaf (default 1.6)\n"
	      "  --hop-us X       per switch hop; a level up adds two (default 0.25)\n"
	      "  --noise PCT      lognormal noise per cell, sigma in %% (default 3)\n"
	      "  --offset-us X    per-node offset, uniform 0..X (default 0)\n"
	      "  --slow K         K nodes slow by --slow-us more (default 0; 0.6 us)\n"
	      "  --missing PCT    each direction missing with this chance (default 0)\n"
	      "  --cable-us X     per-pair extra, uniform 0..X, same both ways (default 0)\n"
	      "  --pair-step-us X half the pairs, at random, X more, same both ways (default 0)\n"
	      "  --names KIND     ordered (node00001… in tree order), shuffled (the same names dealt\n"
	      "                   at random; default) or unrelated (random names, any order)\n"
	      "  --seed N         (default 1)\n", f);
}

static int parse_shape(const char *s, struct synth_opts *o)
{
	o->nlev = 0;
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s || a < 1 || o->nlev == LEVELS_MAX)
			return -1;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a)
				return -1;
		}
		o->lo[o->nlev] = (int)a;
		o->hi[o->nlev++] = (int)b;
		if (*end && *end != 'x')
			return -1;
		s = *end ? end + 1 : end;
	}
	return o->nlev >= 1 ? 0 : -1;
}

static int num(const char *opt, const char *v, double lo, double hi, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(v, &end);
	if (*end || errno || !(*out >= lo && *out <= hi)) {
		fprintf(stderr, "synth-fabric: %s: '%s' is not a number in [%g, %g]\n", opt, v, lo, hi);
		return -1;
	}
	return 0;
}

static int parse(int argc, char **argv, struct synth_opts *o)
{
	double x;

	*o = (struct synth_opts){ .leaf_us = 1.6, .hop_us = 0.25, .noise = 0.03, .slow_us = 0.6,
				  .names = "shuffled", .seed = 1 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int rc = 0;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		}
		if (!v) {
			fprintf(stderr, "synth-fabric: %s needs a value\n", a);
			return -1;
		}
		i++;
		if (!strcmp(a, "--shape")) {
			if (parse_shape(v, o)) {
				fprintf(stderr, "synth-fabric: --shape: '%s' is not like 8x8x256 or 6x1-64\n", v);
				return -1;
			}
		} else if (!strcmp(a, "--leaf-us"))
			rc = num(a, v, 0.001, 1e6, &o->leaf_us);
		else if (!strcmp(a, "--hop-us"))
			rc = num(a, v, 0, 1e6, &o->hop_us);
		else if (!strcmp(a, "--noise") && !(rc = num(a, v, 0, 100, &x)))
			o->noise = x / 100;
		else if (!strcmp(a, "--offset-us"))
			rc = num(a, v, 0, 1e6, &o->offset_us);
		else if (!strcmp(a, "--slow") && !(rc = num(a, v, 0, 1e6, &x)))
			o->slow = (int)x;
		else if (!strcmp(a, "--slow-us"))
			rc = num(a, v, 0, 1e6, &o->slow_us);
		else if (!strcmp(a, "--missing") && !(rc = num(a, v, 0, 100, &x)))
			o->missing = x / 100;
		else if (!strcmp(a, "--cable-us"))
			rc = num(a, v, 0, 1e6, &o->cable_us);
		else if (!strcmp(a, "--pair-step-us"))
			rc = num(a, v, 0, 1e6, &o->step_us);
		else if (!strcmp(a, "--names"))
			o->names = v;
		else if (!strcmp(a, "--seed") && !(rc = num(a, v, 0, 1e18, &x)))
			o->seed = (uint64_t)x;
		else if (!strcmp(a, "-o"))
			o->out = v;
		else if (!strcmp(a, "-t"))
			o->truth = v;
		else if (strcmp(a, "--noise") && strcmp(a, "--slow") && strcmp(a, "--missing") && strcmp(a, "--seed")) {
			fprintf(stderr, "synth-fabric: unknown option %s\n", a);
			return -1;
		}
		if (rc)
			return -1;
	}
	if (!o->nlev || !o->out || (strcmp(o->names, "ordered") && strcmp(o->names, "shuffled") &&
				    strcmp(o->names, "unrelated"))) {
		usage(stderr);
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- the tree */

/* Depth-first: every node gets its group at each switch level. */
static int build(const struct synth_opts *o, struct synth_fabric *f, uint64_t *rng)
{
	int nsw = o->nlev - 1, cap = 1 << 16, count[LEVELS_MAX] = { 0 }, left[LEVELS_MAX], d = 0;
	int *grp = malloc(sizeof *grp * LEVELS_MAX * (size_t)cap);

	if (!grp)
		return -1;
	f->n = 0;
	f->nsw = nsw;
	left[0] = o->lo[0] + (int)(unit(rng) * (o->hi[0] - o->lo[0] + 1));
	/* walk the tree: left[d] = children still to make at depth d */
	while (d >= 0) {
		if (left[d] == 0) {
			d--;
			continue;
		}
		left[d]--;
		if (d < o->nlev - 1) { /* a switch at level nsw - 1 - d */
			count[d]++;
			d++;
			left[d] = o->lo[d] + (int)(unit(rng) * (o->hi[d] - o->lo[d] + 1));
			continue;
		}
		if (f->n == cap || f->n >= 1 << 20) {
			fprintf(stderr, "synth-fabric: more than %d nodes\n", f->n);
			free(grp);
			return -1;
		}
		for (int lvl = 0; lvl < nsw; lvl++) /* level lvl's group = count at depth nsw-1-lvl */
			grp[(size_t)lvl * cap + f->n] = count[nsw - 1 - lvl] - 1;
		f->n++;
	}
	f->grp = malloc(sizeof *f->grp * (size_t)(nsw ? nsw : 1) * f->n);
	if (!f->grp) {
		free(grp);
		return -1;
	}
	for (int lvl = 0; lvl < nsw; lvl++)
		memcpy(f->grp + (size_t)lvl * f->n, grp + (size_t)lvl * cap, sizeof *grp * (size_t)f->n);
	free(grp);
	return 0;
}

static void shuffle(int *v, int n, uint64_t *rng)
{
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(unit(rng) * (i + 1)), x = v[i];

		v[i] = v[j];
		v[j] = x;
	}
}

/* Offsets, slow nodes, names, the row order. */
static int decorate(const struct synth_opts *o, struct synth_fabric *f, uint64_t *rng)
{
	int n = f->n, *perm = malloc(sizeof *perm * (size_t)n);

	f->off = malloc(sizeof *f->off * (size_t)n);
	f->slow = calloc((size_t)n, 1);
	f->row = malloc(sizeof *f->row * (size_t)n);
	f->name = malloc(sizeof *f->name * (size_t)n);
	if (!perm || !f->off || !f->slow || !f->row || !f->name)
		return -1;
	for (int i = 0; i < n; i++) {
		f->off[i] = o->offset_us * unit(rng);
		perm[i] = f->row[i] = i;
	}
	shuffle(perm, n, rng);
	for (int k = 0; k < o->slow && k < n; k++) {
		f->slow[perm[k]] = 1;
		f->off[perm[k]] += o->slow_us;
	}
	if (strcmp(o->names, "ordered"))
		shuffle(f->row, n, rng);
	shuffle(perm, n, rng);
	for (int i = 0; i < n; i++) {
		if (!strcmp(o->names, "unrelated")) { /* letters and digits of random length */
			static const char al[] = "abcdefghijklmnopqrstuvwxyz0123456789";
			int len = 4 + (int)(unit(rng) * 8);

			f->name[i][0] = "bcdfghjkmnpqrstvwxz"[(int)(unit(rng) * 19)];
			for (int c = 1; c < len; c++)
				f->name[i][c] = al[(int)(unit(rng) * 36)];
			snprintf(f->name[i] + len, sizeof f->name[i] - (size_t)len, "-%d", i % 7);
		} else
			snprintf(f->name[i], sizeof f->name[i], "node%05d",
				 (strcmp(o->names, "shuffled") ? i : perm[i]) + 1);
	}
	free(perm);
	return 0;
}

/* ---------------------------------------------------------------- output */

/* v >= 0 with 3 decimals, fast: the 16,384-node matrix has 268 million cells */
static char *fmt3(char *p, double v)
{
	uint64_t m = (uint64_t)(v * 1000 + 0.5), ip = m / 1000, fp = m % 1000;
	char tmp[24];
	int k = 0;

	do
		tmp[k++] = (char)('0' + ip % 10);
	while (ip /= 10);
	while (k)
		*p++ = tmp[--k];
	*p++ = '.';
	*p++ = (char)('0' + fp / 100);
	*p++ = (char)('0' + fp / 10 % 10);
	*p++ = (char)('0' + fp % 10);
	return p;
}

static int level_of(const struct synth_fabric *f, int i, int j)
{
	int t = 0;

	while (t < f->nsw && f->grp[(size_t)t * f->n + i] != f->grp[(size_t)t * f->n + j])
		t++;
	return t;
}

static int write_matrix(const struct synth_opts *o, const struct synth_fabric *f, FILE *out, uint64_t *rng)
{
	int n = f->n;
	char *line = malloc((size_t)n * 24 + 64);

	if (!line)
		return -1;
	fputs("host", out);
	for (int k = 0; k < n; k++)
		fprintf(out, ",%s", f->name[f->row[k]]);
	fputc('\n', out);
	for (int a = 0; a < n; a++) {
		int i = f->row[a];
		char *p = line + sprintf(line, "%s", f->name[i]);

		for (int b = 0; b < n; b++) {
			int j = f->row[b];

			*p++ = ',';
			if (i == j || unit(rng) < o->missing)
				continue;
			uint64_t h = mix64(o->seed ^ mix64((uint64_t)(i < j ? i : j) << 32 | (uint64_t)(i < j ? j : i)));
			double cable = o->cable_us * (double)(h >> 11) / 9007199254740992.0;
			double step = mix64(h) >> 63 ? o->step_us : 0;
			double base = o->leaf_us + 2 * o->hop_us * level_of(f, i, j) + f->off[i] + f->off[j] + cable + step;
			p = fmt3(p, base * exp(o->noise * gauss(rng)));
		}
		*p++ = '\n';
		if (fwrite(line, 1, (size_t)(p - line), out) != (size_t)(p - line)) {
			free(line);
			return -1;
		}
	}
	free(line);
	return 0;
}

static void write_truth(const struct synth_fabric *f, FILE *out)
{
	fputs("host", out);
	for (int lvl = 0; lvl < f->nsw; lvl++)
		fprintf(out, ",level%d", lvl);
	fputs(",slow,offset_us\n", out);
	for (int i = 0; i < f->n; i++) {
		fputs(f->name[i], out);
		for (int lvl = 0; lvl < f->nsw; lvl++)
			fprintf(out, ",%d", f->grp[(size_t)lvl * f->n + i]);
		fprintf(out, ",%d,%.4f\n", f->slow[i], f->off[i]);
	}
}

int main(int argc, char **argv)
{
	struct synth_opts o;
	struct synth_fabric f = { 0 };
	FILE *out;

	if (parse(argc, argv, &o))
		return 2;
	uint64_t rng = mix64(o.seed);
	if (build(&o, &f, &rng) || decorate(&o, &f, &rng)) {
		fprintf(stderr, "synth-fabric: out of memory\n");
		return 1;
	}
	if (o.truth) {
		if (!(out = fopen(o.truth, "w"))) {
			fprintf(stderr, "synth-fabric: %s: %s\n", o.truth, strerror(errno));
			return 1;
		}
		write_truth(&f, out);
		if (fclose(out)) {
			fprintf(stderr, "synth-fabric: %s: write error\n", o.truth);
			return 1;
		}
	}
	if (!(out = fopen(o.out, "w"))) {
		fprintf(stderr, "synth-fabric: %s: %s\n", o.out, strerror(errno));
		return 1;
	}
	if (write_matrix(&o, &f, out, &rng) | fclose(out)) {
		fprintf(stderr, "synth-fabric: %s: write error\n", o.out);
		return 1;
	}
	return 0;
}
