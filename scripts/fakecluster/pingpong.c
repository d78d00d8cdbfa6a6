/*
 * pingpong: UDP round-trip latency between two emulated nodes, for checking
 * scripts/fakecluster.sh (the image has no ping, and ping's 1 ms resolution
 * floor and ICMP path are a poor stand-in for a message ping-pong anyway).
 *
 *   pingpong -s [-p PORT] [-t IDLE_S]        echo server; exits on a "quit"
 *                                            datagram or after IDLE_S idle
 *   pingpong -c HOST [-B ADDR] [-p PORT] [-n N] [-w W] [-i US] [-b BYTES] [-q]
 *                                            N timed round trips after W
 *                                            warm-up ones, US µs apart, sent
 *                                            from ADDR (one of this node's);
 *                                            -q: then tell the server to quit
 *
 * The server answers from the address each probe was sent to (IP_PKTINFO), so
 * that on a node with several interfaces (the rails) the reply leaves by the
 * interface that address belongs to, as the probe came in.
 *
 * The client prints one line: "n=N lost=L min=.. p50=.. p99=.. max=.." where
 * the figures are half round trips in microseconds (the OSU convention).
 * Each probe carries a sequence number (so BYTES >= 4), so that a late reply
 * is never taken for a later probe's. A probe unanswered within 200 ms is
 * lost; the client gives up after PP_MAX_LOST_RUN losses in a row (server
 * gone).
 * Exit: 0 ok, 1 runtime error or no reply, 2 usage.
 *
 * Build: gcc -O2 -Wall -Wextra -o pingpong pingpong.c
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PP_MAX_BYTES 8192
#define PP_QUIT "quit"
#define PP_MAX_LOST_RUN 5

struct pp_opts {
	int server;
	const char *host;
	const char *from;
	const char *port;
	int count;
	int warmup;
	int interval_us;
	int bytes;
	int idle_s;
	int quit;
};

static double pp_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int pp_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Socket bound (server) or connected (client) to host:port; -1 on error. */
static int pp_socket(const char *host, const char *port, int server, const char *from)
{
	struct sockaddr_in src = { .sin_family = AF_INET };
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_DGRAM,
				  .ai_flags = server ? AI_PASSIVE : 0 };
	struct addrinfo *ai;
	int fd, rc;

	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc != 0) {
		fprintf(stderr, "pingpong: %s:%s: %s\n", host ? host : "*", port,
			gai_strerror(rc));
		return -1;
	}
	fd = socket(ai->ai_family, ai->ai_socktype, 0);
	if (fd >= 0 && from && (inet_pton(AF_INET, from, &src.sin_addr) != 1 ||
				bind(fd, (struct sockaddr *)&src, sizeof src) != 0)) {
		fprintf(stderr, "pingpong: cannot send from %s\n", from);
		close(fd);
		fd = -1;
	}
	if (fd >= 0 && (server ? bind(fd, ai->ai_addr, ai->ai_addrlen)
			       : connect(fd, ai->ai_addr, ai->ai_addrlen)) != 0) {
		perror("pingpong: bind/connect");
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

static int pp_set_timeout(int fd, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = ms % 1000 * 1000 };

	return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

static int pp_serve(const struct pp_opts *o)
{
	char buf[PP_MAX_BYTES];
	struct sockaddr_storage peer;
	socklen_t len;
	ssize_t n;
	int fd = pp_socket(NULL, o->port, 1, NULL), one = 1;
	union {
		char space[CMSG_SPACE(sizeof(struct in_pktinfo))];
		struct cmsghdr align;
	} ctl;

	if (fd < 0 || pp_set_timeout(fd, o->idle_s * 1000) != 0 ||
	    setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof one) != 0)
		return 1;
	for (;;) {
		struct iovec iov = { buf, sizeof buf };
		struct msghdr m = { .msg_name = &peer, .msg_namelen = sizeof peer, .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = ctl.space, .msg_controllen = sizeof ctl.space };
		struct cmsghdr *c;

		n = recvmsg(fd, &m, 0);
		len = m.msg_namelen;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break; /* idle timeout or error: stop serving */
		}
		if (n == (ssize_t)strlen(PP_QUIT) && memcmp(buf, PP_QUIT, n) == 0)
			break;
		/* the reply from the address the probe was sent to: its pktinfo, as it came */
		for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
			if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO)
				((struct in_pktinfo *)CMSG_DATA(c))->ipi_ifindex = 0;
		iov.iov_len = (size_t)n;
		m.msg_namelen = len;
		m.msg_flags = 0;
		sendmsg(fd, &m, 0);
	}
	close(fd);
	return 0;
}

/* Receives until the reply carrying sequence number seq; -1 on timeout or error. */
static int pp_await(int fd, int seq, int bytes)
{
	char buf[PP_MAX_BYTES];
	int got;

	for (;;) {
		if (recv(fd, buf, sizeof(buf), 0) != bytes)
			return -1;
		memcpy(&got, buf, sizeof(got));
		if (got == seq)
			return 0;
	}
}

static int pp_client(const struct pp_opts *o)
{
	char buf[PP_MAX_BYTES] = { 0 };
	double *half = calloc(o->count, sizeof(*half));
	int fd = pp_socket(o->host, o->port, 0, o->from);
	int i, got = 0, lost = 0, lost_run = 0;

	int rc = 1;

	if (!half || fd < 0 || pp_set_timeout(fd, 200) != 0)
		goto out;
	for (i = 0; i < o->warmup + o->count && lost_run < PP_MAX_LOST_RUN; i++) {
		double t0 = pp_now_us();

		memcpy(buf, &i, sizeof(i)); /* sequence number: a late reply is not this one's */
		if (send(fd, buf, o->bytes, 0) != o->bytes || pp_await(fd, i, o->bytes) != 0) {
			lost += i >= o->warmup;
			lost_run++;
			continue;
		}
		lost_run = 0;
		if (i >= o->warmup)
			half[got++] = (pp_now_us() - t0) / 2;
		if (o->interval_us > 0)
			usleep(o->interval_us);
	}
	if (o->quit)
		send(fd, PP_QUIT, strlen(PP_QUIT), 0);
	if (got == 0 || lost_run >= PP_MAX_LOST_RUN) {
		fprintf(stderr, "pingpong: no reply from %s\n", o->host);
		goto out;
	}
	qsort(half, got, sizeof(*half), pp_cmp_double);
	printf("n=%d lost=%d min=%.1f p50=%.1f p99=%.1f max=%.1f\n", got, lost,
	       half[0], half[got / 2], half[(int)(got * 0.99)], half[got - 1]);
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	free(half);
	return rc;
}

static void pp_usage(FILE *f)
{
	fprintf(f, "usage: pingpong -s [-p PORT] [-t IDLE_S]\n"
		   "       pingpong -c HOST [-B ADDR] [-p PORT] [-n N] [-w WARMUP] [-i US] [-b BYTES] [-q]\n");
}

int main(int argc, char **argv)
{
	struct pp_opts o = { .port = "7777", .count = 1000, .warmup = 50,
			     .bytes = 8, .idle_s = 30 };
	int c;

	while ((c = getopt(argc, argv, "sc:B:p:n:w:i:b:t:qh")) != -1) {
		switch (c) {
		case 'B': o.from = optarg; break;
		case 's': o.server = 1; break;
		case 'c': o.host = optarg; break;
		case 'p': o.port = optarg; break;
		case 'n': o.count = atoi(optarg); break;
		case 'w': o.warmup = atoi(optarg); break;
		case 'i': o.interval_us = atoi(optarg); break;
		case 'b': o.bytes = atoi(optarg); break;
		case 't': o.idle_s = atoi(optarg); break;
		case 'q': o.quit = 1; break;
		case 'h': pp_usage(stdout); return 0;
		default: pp_usage(stderr); return 2;
		}
	}
	if (o.server == !!o.host || o.count < 1 || o.warmup < 0 || o.idle_s < 1 ||
	    o.bytes < (int)sizeof(int) || o.bytes > PP_MAX_BYTES || o.interval_us < 0) {
		pp_usage(stderr);
		return 2;
	}
	return o.server ? pp_serve(&o) : pp_client(&o);
}
