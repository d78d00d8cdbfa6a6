/* run_rail_probe.c — `run --rails`: the leaf a port off its rail's leaf is in, from probes.
 * For each port the rails judge puts off its rail's leaf (node X, rail r), a reference node Y
 * of X's scalable unit, none of whose ports is off, probes X's rail r port from its own port of
 * every rail s: R small probes a port (200 TCP round trips of 8 B from the address of Y's rail s to
 * the address of X's rail r, one probe at a time), not every port against every port. The
 * nearest probe names the leaf the port is cabled into when it stands apart from the others
 * (where_decide, against the rails' maps' leaf and spine levels). A healthy fabric takes no
 * probe. A tcp: rail is probed on its interface; a verbs: rail on its port's netdev (RoCE's
 * Ethernet interface, IPoIB's ib0: the same port and cable), each socket bound to it. Written
 * to rail_probes.csv. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/log.h"
#include "core/mpi_util.h"
#include "core/results.h"
#include "fabric/io/p2p_csv.h"
#include "fabric/judge/rails.h"
#include "node/inv_link.h"
#include "run_stage.h"

#define PROBE_WARMUP 20
#define PROBE_ITERS 200
#define PROBE_DEADLINE_S 5.0
#define PROBE_TAG 0x7a11
#define PROBE_PORTS_MAX 64 /* ports probed a run: more off their leaves is a fabric to recable */

/* The interface's first IPv4 address (network order), 0 when none. */
static uint32_t dev_ipv4(const char *dev)
{
	struct ifaddrs *all, *a;
	uint32_t ip = 0;

	if (getifaddrs(&all))
		return 0;
	for (a = all; a && !ip; a = a->ifa_next)
		if (a->ifa_addr && a->ifa_addr->sa_family == AF_INET && !strcmp(a->ifa_name, dev))
			ip = ((struct sockaddr_in *)a->ifa_addr)->sin_addr.s_addr;
	freeifaddrs(all);
	return ip;
}

/* wait for ev on fd until deadline: 0, or -1 (timed out or failed) */
static int wait_for(int fd, short ev, double deadline)
{
	struct pollfd p = { .fd = fd, .events = ev };
	double left = deadline - clock_now();

	return left > 0 && poll(&p, 1, (int)(left * 1000) + 1) == 1 && (p.revents & ev) ? 0 : -1;
}

/* n bytes of fd into or out of buf (a non-blocking socket) before deadline: 0, 1 at the end of
 * the stream, or -1 */
static int move(int fd, char *buf, size_t n, int sending, double deadline)
{
	for (size_t k = 0; k < n;) {
		ssize_t m = sending ? send(fd, buf + k, n - k, MSG_NOSIGNAL) : recv(fd, buf + k, n - k, 0);

		if (m > 0)
			k += (size_t)m;
		else if (m == 0 && !sending)
			return 1;
		else if ((m < 0 && errno != EAGAIN && errno != EINTR) ||
			 wait_for(fd, sending ? POLLOUT : POLLIN, deadline))
			return -1;
	}
	return 0;
}

/* the netdev a rail is probed on: tcp:<netdev>'s, a verbs:<dev>:<port>'s (inv_port_netdev);
 * "" none */
static void probe_dev(const char *path, char *out, size_t len)
{
	char dev[64];
	int port;

	out[0] = 0;
	if (!strncmp(path, "tcp:", 4))
		snprintf(out, len, "%s", path + 4);
	else if (!strncmp(path, "verbs:", 6) && !inv_verbs_arg(path + 6, dev, sizeof dev, &port))
		inv_port_netdev(NULL, dev, port, out, (int)len);
}

static int tcp_socket(uint32_t ip, const char *dev)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = ip };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1;

	if (fd >= 0) /* out of this port, where routing would pick another (root only: best effort) */
		setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev, (socklen_t)strlen(dev));

	if (fd >= 0 && (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) ||
			bind(fd, (struct sockaddr *)&sa, sizeof sa))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* X: listen on dev's address, tell Y (world rank peer) where, and echo until Y is done */
static void serve(const char *path, int peer)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof sa;
	char dev[64];
	uint32_t at[2] = { 0, 0 };
	int lfd, fd = -1;

	probe_dev(path, dev, sizeof dev);
	at[0] = dev[0] ? dev_ipv4(dev) : 0;
	lfd = at[0] ? tcp_socket(at[0], dev) : -1;
	double deadline = clock_now() + PROBE_DEADLINE_S;
	char b[8];

	if (lfd >= 0 && !listen(lfd, 1) && !getsockname(lfd, (struct sockaddr *)&sa, &sl))
		at[1] = sa.sin_port;
	MPI_Send(at, 2, MPI_UINT32_T, peer, PROBE_TAG, MPI_COMM_WORLD);
	if (at[1] && !wait_for(lfd, POLLIN, deadline) && (fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0)
		while (!move(fd, b, sizeof b, 0, deadline) && !move(fd, b, sizeof b, 1, deadline))
			;
	if (fd >= 0)
		close(fd);
	if (lfd >= 0)
		close(lfd);
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Y: from dev's address to X's (world rank peer): the 10th percentile of the half round trips
 * (µs; near the wire's floor, where a median moves with a busy host's scheduling), or INFINITY
 * when it could not be measured */
static double probe(const char *path, int peer)
{
	uint32_t at[2], ip;
	double t[PROBE_ITERS], deadline = clock_now() + PROBE_DEADLINE_S, us = INFINITY;
	int fd, k = 0, err = 0;
	char b[8] = "fabprobe", dev[64];

	probe_dev(path, dev, sizeof dev);
	ip = dev[0] ? dev_ipv4(dev) : 0;
	MPI_Recv(at, 2, MPI_UINT32_T, peer, PROBE_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (!at[1] || !ip || (fd = tcp_socket(ip, dev)) < 0)
		return INFINITY;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = at[0], .sin_port = (in_port_t)at[1] };

	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) && errno != EINPROGRESS)
		err = 1;
	else if (wait_for(fd, POLLOUT, deadline) ||
		 getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &(socklen_t){ sizeof err }))
		err = 1;
	for (int i = 0; !err && i < PROBE_WARMUP + PROBE_ITERS; i++) {
		double t0 = clock_now();

		err = move(fd, b, sizeof b, 1, deadline) || move(fd, b, sizeof b, 0, deadline);
		if (!err && i >= PROBE_WARMUP)
			t[k++] = (clock_now() - t0) * 0.5e6;
	}
	close(fd);
	if (!err && k == PROBE_ITERS) {
		qsort(t, (size_t)k, sizeof *t, dcmp);
		us = t[k / 10];
	}
	return us;
}

/* rank 0: a node of i's unit with no port off (sharing i's leaf on a rail where i's port is in
 * its own leaf), or -1 */
static int reference(const struct infer_result *const *maps, int nrails, int n, int i, const char *off)
{
	for (int r = 0; r < nrails; r++) {
		int t = rails_leaf_tier(maps[r]);
		const int *leaf = t < 0 ? NULL : maps[r]->group + (size_t)t * (size_t)n;

		for (int j = 0; leaf && !off[(size_t)i * RAILS_MAX + (size_t)r] && j < n; j++) {
			int clean = j != i && leaf[j] == leaf[i];

			for (int s = 0; clean && s < nrails; s++)
				clean = !off[(size_t)j * RAILS_MAX + (size_t)s];
			if (clean)
				return j;
		}
	}
	return -1;
}

/* rank 0: the probes (X, r, Y, s), four ints each, of the ports off their rails' leaves, into
 * st->where (one a port); the count, or -1 (out of memory) */
static int plan(struct run_state *st, const struct infer_result *const *maps, int **out)
{
	const struct run_opts *c = st->c;
	struct rails_report rep;
	int n = maps[0]->n, np = 0, *p = NULL;
	char *off = NULL;

	if (rails_judge(c->nrails, n, maps, &rep))
		return 0;
	off = calloc((size_t)n * RAILS_MAX, 1);
	p = malloc(sizeof *p * 4 * (size_t)(rep.noff * c->nrails + 1));
	st->where = calloc((size_t)rep.noff + 1, sizeof *st->where);
	if (!off || !p || !st->where) {
		free(off);
		free(p);
		rails_report_free(&rep);
		return -1;
	}
	for (int k = 0; k < rep.noff; k++)
		off[(size_t)rep.off[k].node * RAILS_MAX + (size_t)rep.off[k].rail] = 1;
	for (int k = 0; k < rep.noff && k < PROBE_PORTS_MAX; k++) {
		struct rail_where *wh = &st->where[st->nwhere++];
		int x = rep.off[k].node, r = rep.off[k].rail, y = reference(maps, c->nrails, n, x, off);

		*wh = (struct rail_where){ .node = x, .rail = r, .ref = y, .leaf_rail = -1 };
		for (int s = 0; s < c->nrails; s++) {
			wh->us[s] = NAN;
			if (y >= 0) {
				int *q = p + 4 * np++;

				q[0] = x, q[1] = r, q[2] = y, q[3] = s;
			}
		}
	}
	free(off);
	rails_report_free(&rep);
	*out = p;
	return np;
}

/* A port's leaf from its probes: the rail of its nearest probe, when that probe alone is below
 * its map's midpoint between leaf and spine, or when the next nearest is farther by more than
 * half that map's step from leaf to spine (a busy host lifts every probe alike: the gap
 * stands where the midpoint does not). */
static void where_decide(struct rail_where *wh, int nrails, const struct infer_result *const *maps)
{
	int best = -1, t;
	double next = INFINITY, step = NAN;

	for (int s = 0; s < nrails; s++)
		if (isfinite(wh->us[s]) && (best < 0 || wh->us[s] < wh->us[best]))
			best = s;
	for (int s = 0; best >= 0 && s < nrails; s++)
		if (s != best && isfinite(wh->us[s]) && wh->us[s] < next)
			next = wh->us[s];
	if (best >= 0 && (t = rails_leaf_tier(maps[best])) >= 0)
		step = maps[best]->lat_p50_us[t + 1] - maps[best]->lat_p50_us[t];
	wh->leaf_rail = best >= 0 && (wh->nnear == 1 || next - wh->us[best] > 0.5 * step) ? best : -1;
}

/* the rail_where of probe q's port */
static struct rail_where *probed(struct run_state *st, const int *q)
{
	struct rail_where *wh = st->where;

	while (wh->node != q[0] || wh->rail != q[1])
		wh++;
	return wh;
}

/* a map's leaf and spine levels (NAN without a certain leaf tier) */
static void levels(const struct infer_result *m, double *leaf, double *spine)
{
	int t = rails_leaf_tier(m);

	*leaf = t < 0 ? NAN : m->lat_p50_us[t];
	*spine = t < 0 ? NAN : m->lat_p50_us[t + 1];
}

/* rank 0: each port's probes into its rail_where, the leaf they put it in, and rail_probes.csv */
static void judge(struct run_state *st, const struct world *w, struct run_out *ro, const int *p, int np,
		  const double *us, const struct infer_result *const *maps)
{
	const struct run_opts *c = st->c;
	FILE *f = NULL;
	double leaf, spine;
	int fresh;

	for (int k = 0; k < np; k++) {
		struct rail_where *wh = probed(st, p + 4 * k);

		levels(maps[p[4 * k + 3]], &leaf, &spine);
		wh->us[p[4 * k + 3]] = isfinite(us[k]) ? us[k] : NAN;
		wh->nnear += isfinite(us[k]) && us[k] < 0.5 * (leaf + spine);
	}
	for (int i = 0; i < st->nwhere; i++)
		where_decide(&st->where[i], c->nrails, maps);
	for (int k = 0; k < np && (f || (f = results_append(ro->dir, "rail_probes.csv", &fresh))); k++) {
		const int *q = p + 4 * k;
		const struct rail_where *wh = probed(st, q);

		levels(maps[q[3]], &leaf, &spine);
		if (fresh)
			csv_header(f, rail_probe_cols, RAIL_PROBE_NCOLS);
		fresh = 0;
		csv_row(f, rail_probe_cols, RAIL_PROBE_NCOLS, &(struct rail_probe_row){
			.host = w->labels[q[0]], .path = c->rails[q[1]], .from_host = w->labels[q[2]],
			.from_path = c->rails[q[3]], .lat_us_p10 = wh->us[q[3]], .leaf_us = leaf, .spine_us = spine,
			.in_leaf = isfinite(wh->us[q[3]]) ? wh->leaf_rail == q[3] : -1 });
	}
	if (f && results_close(f, ro->dir, "rail_probes.csv"))
		LOG_WARN("rail_probes.csv could not be written whole");
}

/* every rank: the probes rank 0 planned, one at a time; rank 0 judges them */
static int run_rail_probe_step(struct world *w, struct run_out *ro, struct run_state *st)
{
	const struct run_opts *c = st->c;
	const struct infer_result *maps[RAILS_MAX] = { 0 };
	int np = 0, *p = NULL;
	double t0 = clock_now(), *us, *got = NULL;

	if (w->rank == 0 && !w->single_node) {
		int all = 1;

		for (int r = 0; r < c->nrails; r++) {
			maps[r] = NULL;
			for (int i = 0; i < st->mp.npaths; i++)
				if (!strcmp(st->mp.p[i].m->path, c->rails[r]))
					maps[r] = run_maps_map(&st->mp, i);
			all = all && maps[r] && (!strncmp(c->rails[r], "tcp:", 4) || !strncmp(c->rails[r], "verbs:", 6));
		}
		np = all ? plan(st, maps, &p) : 0;
	}
	MPI_Bcast(&np, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (np <= 0) {
		free(p);
		return np < 0 ? FP_ERUNTIME : 0;
	}
	if (w->rank && !(p = malloc(sizeof *p * 4 * (size_t)np)))
		MPI_Abort(MPI_COMM_WORLD, FP_ERUNTIME);
	MPI_Bcast(p, 4 * np, MPI_INT, 0, MPI_COMM_WORLD);
	if (!(us = malloc(sizeof *us * (size_t)np)) || (w->rank == 0 && !(got = malloc(sizeof *got * (size_t)np))))
		MPI_Abort(MPI_COMM_WORLD, FP_ERUNTIME);
	for (int k = 0; k < np; k++) {
		const int *q = p + 4 * k;
		int x = w->ep_rank[q[0]], y = w->ep_rank[q[2]];

		us[k] = INFINITY;
		if (w->rank == x)
			serve(c->rails[q[1]], y);
		else if (w->rank == y)
			us[k] = probe(c->rails[q[3]], x);
		mpi_barrier_sleepy(MPI_COMM_WORLD); /* the others wait asleep: the probes share their cores */
	}
	MPI_Reduce(us, got, np, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
	if (w->rank == 0) {
		judge(st, w, ro, p, np, got, maps);
		long long all = (long long)w->nep * c->nrails * (w->nep * c->nrails - 1);

		printf("rails: %d probe%s of %d port%s off their rails' leaves in %.2f s (rail_probes.csv; every port "
		       "against every port: %lld directions)\n",
		       np, np == 1 ? "" : "s", st->nwhere, st->nwhere == 1 ? "" : "s", clock_now() - t0, all);
	}
	free(p);
	free(us);
	free(got);
	return 0;
}

static int run_rail_probe_on(const struct run_opts *c)
{
	return c->nrails > 0;
}

const struct run_stage run_stage_rails = { .name = "rails", .on = run_rail_probe_on, .step = run_rail_probe_step };
