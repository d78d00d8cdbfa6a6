/* run_counters.c — `run`'s link counters (run_stage.h). Stage counters_before: every node (its
 * inventory leader) reads its ports' counters (topo/node/counters.h) before the first pair.
 * Stage counters, after the last transfer of the run (the pairs, their confirmation, the
 * collectives, the order): it reads them again, and rank 0 receives each node's rows in turn
 * (memory for one node at a time, streamed into counters.csv) and keeps the findings: a flap
 * or error counter that rose above its threshold on a judged port names the node, the port, the
 * counter, its rise and the threshold. And the counters over the one pass with no incast (the
 * rails at once): a RoCE rail port's ECN marks and CNPs that rose then (run_quiet_*). */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/escape.h"
#include "core/log.h"
#include "core/mpi_util.h"
#include "core/results.h"
#include "fabric/io/ctr_csv.h"
#include "run_stage.h"

#define ROWS_MAX 16384 /* rows one node sends; beyond, counted as left out */
#define TAG_CTR 7301

enum { O_NO_COUNTERS = 1, O_TEST_FLAP };

/* --no-counters, --test-flap RANK:NETDEV. */
static int run_counters_take(void *ctx, int val, const char *arg, char *err)
{
	struct run_opts *c = ctx;
	const char *colon;
	char rank[32];

	if (val == O_NO_COUNTERS) {
		c->no_counters = 1;
		return 0;
	}
	colon = strchr(arg, ':');
	if (!colon || (size_t)(colon - arg) >= sizeof rank)
		OPTS_FAIL("--test-flap: expected RANK:NETDEV, got '%.100s'", arg);
	memcpy(rank, arg, (size_t)(colon - arg));
	rank[colon - arg] = 0;
	if (opts_long("--test-flap", rank, 0, 10000000, &c->test_flap_rank, err))
		return FP_EUSAGE;
	colon++;
	if (!*colon || strlen(colon) >= sizeof c->test_flap_if || strpbrk(colon, "/ \t\n:") || !strcmp(colon, "lo"))
		OPTS_FAIL("--test-flap: '%.100s' is not a network interface name", colon);
	strcpy(c->test_flap_if, colon);
	return 0;
}

/* The link counters' options into g. */
static int run_counters_options(struct run_opts *c, struct opts_group *g)
{
	static const struct option lo[] = {
		{ "no-counters", no_argument, NULL, O_NO_COUNTERS },
		{ "test-flap", required_argument, NULL, O_TEST_FLAP },
		{ NULL, 0, NULL, 0 },
	};

	c->test_flap_rank = -1;
	*g = (struct opts_group){ .longopts = lo, .take = run_counters_take, .ctx = c };
	return 1;
}

/* Left in unless --no-counters. */
static int run_counters_on(const struct run_opts *c)
{
	return !c->no_counters;
}

/* the sysfs root of this rank (the inventory's --sysfs-root, expanded) into *root, NULL for
 * /sys; -1 when the pattern does not expand (then nothing is read: never /sys instead) */
static int sysfs_root(const struct run_opts *c, const struct world *w, char *buf, size_t len, const char **root)
{
	*root = NULL;
	if (!c->inv.sysfs_root)
		return 0;
	if (inv_expand(c->inv.sysfs_root, w->host, w->rank, buf, len))
		return -1;
	*root = buf;
	return 0;
}

/* Every rank: the leaders read their node's counters, the first time. A node whose counters
 * cannot be read is said, and left out; the run goes on. */
static int run_counters_before_step(struct world *w, struct run_out *ro, struct run_state *st)
{
	struct run_links *l = &st->links;
	char buf[4096];
	const char *root;

	(void)ro;
	l->leader = inventory_leader(w, &st->c->inv, l->node, sizeof l->node);
	if (!l->leader)
		return 0;
	if (sysfs_root(st->c, w, buf, sizeof buf, &root))
		LOG_WARN("--sysfs-root: the expanded path is too long: this node's link counters are not read");
	else if (ctr_read(root, &l->before) == 0)
		l->read = 1;
	else
		LOG_WARN("out of memory for the link counters: this node's are not read");
	return 0;
}

const struct run_stage run_stage_counters_before = { .name = "counters_before", .opts = run_counters_options,
						      .on = run_counters_on, .step = run_counters_before_step };

/* ---------------------------------------------------------------- the test hook */

/* The world rank of --test-flap takes its interface down and up again, as `ip link set dev X
 * down; ... up` does (SIOCSIFFLAGS), and waits for its carrier (at most 5 s). */
static void test_flap(const char *ifname)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM, 0), rc = -1;
	char rel[64], state[16] = "";

	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
	if (fd >= 0 && ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		short up = ifr.ifr_flags;

		ifr.ifr_flags = (short)(up & ~IFF_UP);
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) == 0) {
			usleep(200 * 1000);
			ifr.ifr_flags = up;
			rc = ioctl(fd, SIOCSIFFLAGS, &ifr);
		}
	}
	if (rc)
		LOG_WARN("--test-flap %s: %s", ifname, strerror(errno));
	if (fd >= 0)
		close(fd);
	snprintf(rel, sizeof rel, "/sys/class/net/%s/operstate", ifname);
	for (int i = 0; rc == 0 && i < 50 && strcmp(state, "up"); i++) {
		FILE *f = fopen(rel, "r");

		usleep(100 * 1000);
		if (f && fscanf(f, "%15s", state) != 1)
			state[0] = 0;
		if (f)
			fclose(f);
	}
	printf("run: --test-flap: %s down and up again (operstate %s)\n", ifname, state[0] ? state : "unknown");
	fflush(stdout);
}

/* ---------------------------------------------------------------- the second read */

/* the netdevs of the measured paths (tcp:<netdev>): judged even when virtual */
static int path_netdevs(const struct run_opts *c, const char **out)
{
	int n = 0;

	for (int i = 0; i < c->p2p.npaths; i++)
		if (!strncmp(c->p2p.paths[i], "tcp:", 4))
			out[n++] = c->p2p.paths[i] + 4;
	return n;
}

/* a leader: its rows between the two reads (malloc'd into *rows), the count */
static int my_rows(const struct run_state *st, const struct world *w, struct ctr_delta **rows, int *ports,
		   int *left_out)
{
	const struct run_links *l = &st->links;
	const char *netdevs[P2P_PATHS_MAX];
	struct ctr_set after;
	char buf[4096];
	const char *root;
	int n = 0;

	*rows = NULL, *ports = 0, *left_out = 0;
	if (!l->read || sysfs_root(st->c, w, buf, sizeof buf, &root) || ctr_read(root, &after))
		return 0;
	if ((*rows = malloc(sizeof **rows * ROWS_MAX))) {
		n = ctr_deltas(&l->before, &after, netdevs, path_netdevs(st->c, netdevs), *rows, ROWS_MAX);
		*left_out = after.left_out + l->before.left_out + (n > ROWS_MAX ? n - ROWS_MAX : 0);
		n = n > ROWS_MAX ? ROWS_MAX : n;
		*ports = after.nports;
	}
	ctr_set_free(&after);
	return n;
}

/* rank 0: one finding of node/port more, or the counter added to the one it has (the rows of a
 * port come together) */
static void finding_add(struct run_links *l, const char *node, const struct ctr_delta *d, const char *kind)
{
	struct ctr_finding *f = l->sum.nfind ? &l->sum.find[l->sum.nfind - 1] : NULL;
	size_t k;

	if (!f || strcmp(f->node, node) || strcmp(f->port, d->port) || strcmp(f->kind, kind)) {
		l->sum.nfind_all++;
		if (l->sum.nfind >= RUN_LINK_FINDINGS_MAX)
			return;
		f = &l->sum.find[l->sum.nfind++];
		memset(f, 0, sizeof *f);
		snprintf(f->node, sizeof f->node, "%s", node);
		snprintf(f->port, sizeof f->port, "%s", d->port);
		snprintf(f->kind, sizeof f->kind, "%s", kind);
	}
	k = strlen(f->what);
	if (k + 8 < sizeof f->what)
		snprintf(f->what + k, sizeof f->what - k, "%s%s +%llu%s (over %lld)", k ? ", " : "", d->name,
			 (unsigned long long)(d->after - d->before), d->note == CTR_NOTE_SATURATED ? " or more" : "",
			 ctr_threshold(d->source, d->name));
}

/* rank 0: one node's rows into counters.csv, the findings, and its judged ports counted (the
 * rows of a port come together) */
static void node_rows(FILE *csv, struct run_links *l, const char *node, struct ctr_delta *rows, int n)
{
	const char *last = NULL;

	for (int i = 0; i < n; i++) {
		struct ctr_delta *d = &rows[i];

		d->port[sizeof d->port - 1] = d->name[sizeof d->name - 1] = 0; /* a peer's bytes */
		if (d->judged && (!last || strcmp(last, d->port)))
			l->sum.judged_ports++, last = d->port;
	}
	for (int i = 0; i < n; i++) {
		const struct ctr_delta *d = &rows[i];
		const char *finding = ctr_finding(d);
		int unread = d->note != CTR_NOTE_NONE && d->note != CTR_NOTE_SATURATED;
		struct ctr_csv_row r = {
			.node = node, .port = d->port, .kind = ctr_kind_name(d->kind), .source = ctr_source_name(d->source),
			.counter = d->name, .cls = ctr_class_name(d->cls),
			.before = d->note == CTR_NOTE_NEW || d->before > INT64_MAX ? -1 : (int64_t)d->before,
			.after = d->note == CTR_NOTE_GONE || d->after > INT64_MAX ? -1 : (int64_t)d->after,
			.delta = unread || d->after - d->before > INT64_MAX ? -1 : (int64_t)(d->after - d->before),
			.judged = d->judged, .finding = finding ? finding : "", .note = ctr_note_text(d->note),
			.threshold = ctr_threshold(d->source, d->name),
		};

		if (csv)
			ctr_csv_write(csv, &r);
		if (finding)
			finding_add(l, node, d, finding);
	}
}

struct ctr_head {
	char node[WORLD_LABEL_MAX];
	int nrows, nports, left_out;
};

/* rank 0: every leader's rows in rank order, one node at a time */
static int receive_all(const struct world *w, struct run_links *l, FILE *csv, struct ctr_delta *mine,
		       const struct ctr_head *mh)
{
	struct ctr_delta *buf = malloc(sizeof *buf * ROWS_MAX);
	int rc = buf ? 0 : FP_ERUNTIME;

	for (int r = 0; rc == 0 && r < w->size; r++) {
		struct ctr_head h = *mh;
		struct ctr_delta *rows = mine;
		MPI_Request req;

		if (r > 0) {
			if ((rc = MPI_RC(MPI_Irecv(&h, sizeof h, MPI_BYTE, r, TAG_CTR, MPI_COMM_WORLD, &req))) ||
			    (rc = mpi_wait_sleepy(&req, 0)))
				break;
			if (h.nrows < 0) /* not a leader, or its counters unread */
				continue;
			h.node[sizeof h.node - 1] = 0;
			h.nrows = h.nrows > ROWS_MAX ? ROWS_MAX : h.nrows;
			if ((rc = MPI_RC(MPI_Irecv(buf, h.nrows * (int)sizeof *buf, MPI_BYTE, r, TAG_CTR + 1, MPI_COMM_WORLD,
						   &req))) || (rc = mpi_wait_sleepy(&req, 0)))
				break;
			rows = buf;
		} else if (h.nrows < 0) {
			continue;
		}
		l->sum.nodes++, l->sum.ports += h.nports, l->sum.left_out += h.left_out, l->sum.rows += h.nrows;
		node_rows(csv, l, h.node, rows, h.nrows);
	}
	free(buf);
	return rc;
}

/* rank 0: what the counters say, on the terminal */
static void links_say(const struct run_links *l)
{
	printf("\nlink counters: %d port%s on %d node%s read before the first pair and after the last transfer, "
	       "%d judged (counters.csv)", l->sum.ports, l->sum.ports == 1 ? "" : "s", l->sum.nodes, l->sum.nodes == 1 ? "" : "s",
	       l->sum.judged_ports);
	if (l->sum.left_out)
		printf("; %d counter%s left out (too many)", l->sum.left_out, l->sum.left_out == 1 ? "" : "s");
	if (!l->sum.nfind_all)
		printf(": no flap or error counter rose on a judged port\n");
	else
		printf(": %d finding%s\n", l->sum.nfind_all, l->sum.nfind_all == 1 ? "" : "s");
	for (int i = 0; i < l->sum.nfind; i++)
		escape_term_line(stdout, "  %s %s:%s (%s)", l->sum.find[i].kind, l->sum.find[i].node, l->sum.find[i].port,
				 l->sum.find[i].what);
	fflush(stdout);
}

/* Every rank: the test hook, then the second read; rank 0 writes counters.csv and keeps the
 * findings. Returns 1 when a link counts (a finding), 0, or FP_E*. */
static int run_counters_step(struct world *w, struct run_out *ro, struct run_state *st)
{
	struct run_links *l = &st->links;
	struct ctr_delta *rows = NULL;
	struct ctr_head h = { .nrows = -1 };
	FILE *csv = NULL;
	int rc = 0;

	if (st->c->test_flap_rank == w->rank)
		test_flap(st->c->test_flap_if);
	if (mpi_barrier_sleepy(MPI_COMM_WORLD))
		return st->lrc = FP_ERUNTIME;
	if (l->leader && l->read) {
		h.nrows = my_rows(st, w, &rows, &h.nports, &h.left_out);
		snprintf(h.node, sizeof h.node, "%s", l->node);
	}
	ctr_set_free(&l->before);
	if (w->rank == 0) {
		if (!(l->sum.find = calloc(RUN_LINK_FINDINGS_MAX, sizeof *l->sum.find)))
			rc = FP_ERUNTIME;
		else if ((csv = results_open(ro->dir, "counters.csv")))
			ctr_csv_header(csv);
		if (rc == 0)
			rc = receive_all(w, l, csv, rows, &h);
		if (csv && results_close(csv, ro->dir, "counters.csv") && rc == 0)
			rc = FP_ERUNTIME;
		l->sum.done = rc == 0;
		if (rc == 0)
			links_say(l);
	} else {
		MPI_Request req;

		if (!(rc = MPI_RC(MPI_Isend(&h, sizeof h, MPI_BYTE, 0, TAG_CTR, MPI_COMM_WORLD, &req))))
			rc = mpi_wait_sleepy(&req, 0);
		if (rc == 0 && h.nrows >= 0 &&
		    !(rc = MPI_RC(MPI_Isend(rows, h.nrows * (int)sizeof *rows, MPI_BYTE, 0, TAG_CTR + 1, MPI_COMM_WORLD,
					    &req))))
			rc = mpi_wait_sleepy(&req, 0);
	}
	free(rows);
	if (mpi_allreduce_sleepy(&rc, MPI_MIN, MPI_COMM_WORLD))
		rc = FP_ERUNTIME;
	return st->lrc = rc ? rc : l->sum.nfind_all > 0;
}

const struct run_stage run_stage_counters = { .name = "counters", .on = run_counters_on, .step = run_counters_step };

/* ---------------------------------------------------------------- a pass with no incast */

#define QUIET_MAX 8       /* congestion counters a node reports (its rails' ports) */
#define QUIET_ROWS_MAX 8192

/* one RoCE rail port's congestion counter that rose over the pass, as an endpoint sends it */
struct quiet_row {
	char port[CTR_PORT_MAX], name[CTR_NAME_MAX];
	uint64_t rise;
};

void run_quiet_before(const struct run_opts *c, const struct world *w, struct run_quiet *q)
{
	char buf[4096];
	const char *root;
	int verbs = 0;

	q->have = 0;
	for (int i = 0; i < c->nrails; i++)
		verbs |= !strncmp(c->rails[i], "verbs:", 6);
	if (verbs && !c->no_counters && !sysfs_root(c, w, buf, sizeof buf, &root))
		q->have = !ctr_read(root, &q->before);
}

/* an endpoint: its rails' ports' congestion counters that rose since run_quiet_before (at most
 * QUIET_MAX into out, the rest zeroed) */
static void quiet_rows(const struct run_opts *c, const struct world *w, struct run_quiet *q, struct quiet_row *out)
{
	struct ctr_set after;
	struct ctr_delta *d = NULL;
	char buf[4096];
	const char *root;
	int n = 0, k = 0;

	if (!sysfs_root(c, w, buf, sizeof buf, &root) && !ctr_read(root, &after)) {
		if ((d = malloc(sizeof *d * QUIET_ROWS_MAX)))
			n = ctr_deltas(&q->before, &after, NULL, 0, d, QUIET_ROWS_MAX);
		ctr_set_free(&after);
	}
	for (int i = 0; i < n && i < QUIET_ROWS_MAX && k < QUIET_MAX; i++) {
		int rail = 0;

		for (int r = 0; r < c->nrails; r++)
			rail |= !strncmp(c->rails[r], "verbs:", 6) && !strcmp(c->rails[r] + 6, d[i].port);
		if (rail && ctr_quiet_finding(&d[i])) {
			snprintf(out[k].port, sizeof out[k].port, "%s", d[i].port);
			snprintf(out[k].name, sizeof out[k].name, "%s", d[i].name);
			out[k++].rise = d[i].after - d[i].before;
		}
	}
	free(d);
}

/* rank 0: each endpoint's rows (all: nep × QUIET_MAX) into st->quiet */
static void quiet_keep(struct run_state *st, const struct quiet_row *all, int nep)
{
	free(st->quiet);
	st->nquiet = 0;
	if (!(st->quiet = calloc((size_t)nep * QUIET_MAX + 1, sizeof *st->quiet)))
		return;
	for (int e = 0; e < nep; e++)
		for (int k = 0; k < QUIET_MAX; k++) {
			const struct quiet_row *q = &all[(size_t)e * QUIET_MAX + k];
			struct rail_quiet *o = &st->quiet[st->nquiet];

			if (!q->rise)
				continue;
			o->node = e;
			snprintf(o->port, sizeof o->port, "%.*s", (int)sizeof q->port - 1, q->port);
			snprintf(o->name, sizeof o->name, "%.*s", (int)sizeof q->name - 1, q->name);
			o->rise = q->rise;
			st->nquiet++;
		}
}

void run_quiet_after(struct run_state *st, const struct world *w, struct run_quiet *q, int measured)
{
	struct quiet_row mine[QUIET_MAX], *all = NULL;

	memset(mine, 0, sizeof mine);
	if (q->have && measured)
		quiet_rows(st->c, w, q, mine);
	if (q->have)
		ctr_set_free(&q->before);
	q->have = 0;
	if (w->rank == 0 && !(all = malloc(sizeof *all * QUIET_MAX * (size_t)w->nep)))
		MPI_Abort(MPI_COMM_WORLD, FP_ERUNTIME);
	MPI_Gather(mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, w->epcomm);
	if (w->rank == 0)
		quiet_keep(st, all, w->nep);
	free(all);
}
