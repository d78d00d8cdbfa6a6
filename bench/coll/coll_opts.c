/* coll_opts.c — the options of the collectives stage (coll.h), as `fabprobe coll` takes them
 * (nccl-tests' letters, parsed and validated in one place): usage, defaults, validation. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "coll.h"
#include "coll_backend.h"
#include "core/log.h"

/* "mpi, nccl": every backend of the registry, in this build or not */
static void backend_names(char *out, size_t len)
{
	out[0] = 0;
	for (int i = 0; coll_backends[i]; i++)
		snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? ", " : "", coll_backends[i]->name);
}

/* coll --help's head: what it does, the sweep and what is measured */
static void usage_what(FILE *f)
{
	fputs("usage: mpirun [...] fabprobe coll [options]\n"
	      "\n"
	      "Collective benchmarks over every rank, through MPI (host buffers) and NCCL (one GPU per\n"
	      "rank, device buffers), and fabprobe's own ring over one of its point-to-point paths\n"
	      "(one rank per node; allreduce, reducescatter, allgather, sendrecv; the pattern of\n"
	      "NCCL's ring), out of place and in place, each size checked exactly after it is timed.\n"
	      "Sizes, counts and bandwidths follow nccl-tests (busbw = algbw x bus factor).\n"
	      "\n"
	      "Sweep (as nccl-tests):\n"
	      "  -b, --minbytes SIZE     smallest size (default 8)\n"
	      "  -e, --maxbytes SIZE     largest size (default 32M)\n"
	      "  -f, --stepfactor N      multiply the size by N each step (default 2)\n"
	      "  -i, --stepbytes SIZE    or add SIZE each step (not with -f)\n"
	      "  -n, --iters N           timed iterations per size (default 20)\n"
	      "  -w, --warmup_iters N    untimed iterations before them (default 5)\n"
	      "  -c, --check 0|1         check the result of a separate run after timing (default 1)\n"
	      "What:\n"
	      "  -o, --op LIST           collectives: allreduce (default), allgather, reducescatter,\n"
	      "                          broadcast, reduce, alltoall, sendrecv, or all\n"
	      "  -d, --datatype LIST     float (default), double, int32, half, bfloat16, or all\n"
	      "                          (half and bfloat16: NCCL only)\n"
	      "  -O, --redop LIST        reduction of allreduce/reducescatter/reduce: sum (default),\n"
	      "                          prod, max, min, or all. Note: nccl-tests' -o is the\n"
	      "                          reduction; here -o is the collective and -O the reduction\n"
	      "  -r, --root N            root rank of broadcast and reduce (default 0)\n",
	      f);
}

/* `fabprobe coll --help`. */
void coll_usage(FILE *f)
{
	char names[128];

	usage_what(f);
	backend_names(names, sizeof names);
	fprintf(f, "      --backend B         %s or all (default all; a backend that cannot run\n"
		"                          here, e.g. without a GPU, is skipped with a reason)\n", names);
	fputs("      --path P            the network path: tcp:<netdev> (Open MPI's ob1/tcp on that\n"
	      "                          interface alone, NCCL's sockets on it), verbs:<dev>:<port>\n"
	      "                          (Open MPI over UCX on that port, NCCL's IB transport on it),\n"
	      "                          or mpi (default: each library's own choice); several ports of\n"
	      "                          one kind joined by '+' (tcp:rail0+rail1, verbs:mlx5_0:1+\n"
	      "                          mlx5_1:1): the libraries take them at once, the ring each in\n"
	      "                          turn, a row per port (collectives.csv's path); NVLink, shared\n"
	      "                          memory, NVLS and CollNet off, so that the network is measured.\n"
	      "                          The ring runs over fabprobe's transport of that name (default\n"
	      "                          mpi) and knows its line rate: the slowest rank's port\n"
	      "      --min-pct PCT       an all-reduce whose line rate is known (the ring over tcp:;\n"
	      "                          over verbs: said, not judged: it copies through its slots)\n"
	      "                          with busbw at the largest size below PCT % of it is a\n"
	      "                          finding (exit 1). Default 0: not judged, since a ring's busbw\n"
	      "                          is bound by the fabric's oversubscription as much as by the\n"
	      "                          ports; give the figure the fabric was bought for\n"
	      "      --timeout SEC       the longest one step may take (NCCL's communicator, a batch\n"
	      "                          of collectives, a wait for the GPU, an MPI collective; default\n"
	      "                          300): past it the rank aborts NCCL, says which collective and\n"
	      "                          which ranks have not arrived or do not answer, and exits 3\n"
	      "      --shared-gpu        let two ranks share a GPU (NCCL needs a distinct NCCL_HOSTID\n"
	      "                          per rank then: a check of two ranks on one GPU, timings not\n"
	      "                          meaningful)\n",
	      f);
	fputs("Output (long options only: -o is the op):\n"
	      RESULTS_HELP_LONG
	      "Testing:\n"
	      "      --test-corrupt RANK corrupt one result element on world rank RANK before each\n"
	      "                          check (the check must catch it)\n"
	      "      --test-stall RANK   world rank RANK stops before its first timed batch and never\n"
	      "                          comes back (a hung node: the others must end their wait)\n"
	      "  -h, --help\n"
	      "\n"
	      "Sizes take K, M, G suffixes (powers of 1024); bandwidths are GB/s (10^9 B/s). size_B is\n"
	      "the larger of the send and receive bytes per rank; count is the count argument of the\n"
	      "call (elements per rank block). Writes results/<UTC time>[-NAME]/: collectives.csv,\n"
	      "coll_meta.json, meta.json. Exit: 0 all results right, 1 a wrong element or a path\n"
	      "below --min-pct, 2 usage error, 3 runtime error (also: --backend B asked for and B\n"
	      "cannot run here, e.g. nccl without a GPU).\n",
	      f);
}

enum { O_BACKEND = 256, O_CORRUPT, O_PATH, O_MIN_PCT, O_TIMEOUT, O_SHARED_GPU, O_STALL };

static const struct option long_opts[] = {
	{ "minbytes", required_argument, NULL, 'b' },
	{ "maxbytes", required_argument, NULL, 'e' },
	{ "stepfactor", required_argument, NULL, 'f' },
	{ "stepbytes", required_argument, NULL, 'i' },
	{ "iters", required_argument, NULL, 'n' },
	{ "warmup_iters", required_argument, NULL, 'w' },
	{ "check", required_argument, NULL, 'c' },
	{ "op", required_argument, NULL, 'o' },
	{ "datatype", required_argument, NULL, 'd' },
	{ "redop", required_argument, NULL, 'O' },
	{ "root", required_argument, NULL, 'r' },
	{ "backend", required_argument, NULL, O_BACKEND },
	{ "test-corrupt", required_argument, NULL, O_CORRUPT },
	{ "path", required_argument, NULL, O_PATH },
	{ "min-pct", required_argument, NULL, O_MIN_PCT },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "shared-gpu", no_argument, NULL, O_SHARED_GPU },
	{ "test-stall", required_argument, NULL, O_STALL },
	{ NULL, 0, NULL, 0 },
};

int coll_sweep(uint64_t min, uint64_t max, long factor, uint64_t step, uint64_t *out, int cap,
	       char *err)
{
	int n = 0;

	for (uint64_t s = min; s <= max;) {
		if (n == cap)
			OPTS_FAIL("the sweep %llu..%llu has more than %d sizes", (unsigned long long)min,
			     (unsigned long long)max, cap);
		out[n++] = s;
		if (step ? s > UINT64_MAX - step : s > UINT64_MAX / (uint64_t)factor)
			break;
		s = step ? s + step : s * (uint64_t)factor;
	}
	return n;
}

/* A comma-separated list of names (or "all") into ids; find returns the id or -1. */
static int name_list(const char *opt, const char *s, int (*find)(const char *), int nall, int *ids,
		     int *n, char *err)
{
	char buf[256], *tok, *save = NULL;

	if (strlen(s) >= sizeof buf || !*s || s[strlen(s) - 1] == ',' || strstr(s, ",,") || *s == ',')
		OPTS_FAIL("%s: '%.60s' is not a comma-separated list of names", opt, s);
	strcpy(buf, s);
	*n = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int id = find(tok);

		if (!strcmp(tok, "all")) {
			for (*n = 0; *n < nall; (*n)++)
				ids[*n] = *n;
			continue;
		}
		if (id < 0)
			OPTS_FAIL("%s: unknown name '%.60s'", opt, tok);
		for (int i = 0; i < *n; i++)
			if (ids[i] == id)
				OPTS_FAIL("%s: '%.60s' is given twice", opt, tok);
		if (*n == nall)
			OPTS_FAIL("%s: '%.60s' is given twice", opt, tok);
		ids[(*n)++] = id;
	}
	return 0;
}

/* name_list's look-ups: the id of a name, or -1. */
static int find_op(const char *s) { const struct coll_op *o = coll_op_find(s); return o ? o->id : -1; }
static int find_dtype(const char *s) { const struct coll_dtype *d = coll_dtype_find(s); return d ? d->id : -1; }

/* all, or one backend of the registry that this build has */
static int parse_backend(const char *s, const char **out, char *err)
{
	const struct coll_backend *be = coll_backend_find(s);
	char names[128];

	*out = NULL;
	if (!strcmp(s, "all"))
		return 0;
	if (!be) {
		backend_names(names, sizeof names);
		OPTS_FAIL("--backend: '%.60s' is not one of %s, all", s, names);
	}
	if (be->absent)
		OPTS_FAIL("--backend %s: %s", be->name, be->absent);
	*out = be->name;
	return 0;
}

/* The checks that involve several options, and the sweep. */
static int validate(struct coll_opts *o, int seen_f, int seen_i, int seen_O, int seen_r, char *err)
{
	int reduces = 0, rooted = 0, n, rc;

	if (seen_f && seen_i)
		OPTS_FAIL("-f/--stepfactor and -i/--stepbytes both set the step: give one");
	if (o->minbytes > o->maxbytes)
		OPTS_FAIL("-b/--minbytes (%llu) is larger than -e/--maxbytes (%llu)",
		     (unsigned long long)o->minbytes, (unsigned long long)o->maxbytes);
	for (int i = 0; i < o->nops; i++) {
		reduces |= coll_ops[o->ops[i]].reduces;
		rooted |= coll_ops[o->ops[i]].rooted;
	}
	if (seen_O && !reduces)
		OPTS_FAIL("-O/--redop: none of the selected ops (-o) reduces");
	if (seen_r && !rooted)
		OPTS_FAIL("-r/--root: none of the selected ops (-o) has a root (broadcast, reduce)");
	if ((rc = results_where_check(&o->where, err)))
		return rc;
	n = coll_sweep(o->minbytes, o->maxbytes, o->stepfactor, o->stepbytes, o->sizes, COLL_SIZES_MAX, err);
	if (n < 0)
		return n;
	o->nsizes = n;
	return 0;
}

void coll_opts_default(struct coll_opts *o)
{
	*o = (struct coll_opts){ .minbytes = 8, .maxbytes = 32ULL << 20, .stepfactor = 2, .iters = 20,
				 .warmup = 5, .check = 1, .ops = { COLL_ALLREDUCE }, .nops = 1,
				 .dtypes = { COLL_FLOAT }, .ndtypes = 1, .redops = { COLL_SUM },
				 .nredops = 1, .test_corrupt_rank = -1, .test_stall_rank = -1, .wait_s = 300 };
}

/* coll_opts_parse's state: the options, and which of those that involve others were given. */
struct coll_parse {
	struct coll_opts *o;
	int seen_f, seen_i, seen_O, seen_r;
};

/* One option of long_opts (or its letter) into p->o. */
static int coll_opts_take(void *ctx, int c, const char *arg, char *err)
{
	struct coll_parse *p = ctx;
	struct coll_opts *o = p->o;

	switch (c) {
	case 'b': return opts_size("-b/--minbytes", arg, 1, COLL_BYTES_MAX, &o->minbytes, err);
	case 'e': return opts_size("-e/--maxbytes", arg, 1, COLL_BYTES_MAX, &o->maxbytes, err);
	case 'f': p->seen_f = 1; return opts_long("-f/--stepfactor", arg, 2, 1024, &o->stepfactor, err);
	case 'i': p->seen_i = 1; return opts_size("-i/--stepbytes", arg, 1, COLL_BYTES_MAX, &o->stepbytes, err);
	case 'n': return opts_long("-n/--iters", arg, 1, 100000000, &o->iters, err);
	case 'w': return opts_long("-w/--warmup_iters", arg, 0, 100000000, &o->warmup, err);
	case 'c': return opts_long("-c/--check", arg, 0, 1, &o->check, err);
	case 'o': return name_list("-o/--op", arg, find_op, COLL_NOPS, o->ops, &o->nops, err);
	case 'd': return name_list("-d/--datatype", arg, find_dtype, COLL_NDTYPES, o->dtypes, &o->ndtypes, err);
	case 'O': p->seen_O = 1; return name_list("-O/--redop", arg, coll_redop_find, COLL_NREDOPS, o->redops, &o->nredops, err);
	case 'r': p->seen_r = 1; return opts_long("-r/--root", arg, 0, 100000000, &o->root, err);
	case O_BACKEND: return parse_backend(arg, &o->backend, err);
	case O_CORRUPT: return opts_long("--test-corrupt", arg, 0, 100000000, &o->test_corrupt_rank, err);
	case O_PATH: o->path = arg; return coll_path_parse(arg, err);
	case O_MIN_PCT: return opts_percent("--min-pct", arg, 100, &o->min_pct, err);
	case O_TIMEOUT: return opts_seconds("--timeout", arg, 86400, &o->wait_s, err);
	case O_SHARED_GPU: o->shared_gpu = 1; return 0;
	case O_STALL: return opts_long("--test-stall", arg, 0, 100000000, &o->test_stall_rank, err);
	default: OPTS_FAIL("internal: option %d is not one of coll's", c);
	}
}

/* After every option: validate's checks and the sweep. */
static int coll_opts_finish(void *ctx, char *err)
{
	struct coll_parse *p = ctx;

	return validate(p->o, p->seen_f, p->seen_i, p->seen_O, p->seen_r, err);
}

int coll_opts_parse(int argc, char **argv, struct coll_opts *o, char *err)
{
	struct coll_parse p = { .o = o };
	struct opts_group g[2] = {
		{ .longopts = long_opts, .shortopts = "b:e:f:i:n:w:c:o:d:O:r:", .take = coll_opts_take,
		  .finish = coll_opts_finish, .ctx = &p },
		results_where_group(&o->where, 0),
	};

	coll_opts_default(o);
	return opts_parse(argc, argv, g, 2, NULL, err);
}
