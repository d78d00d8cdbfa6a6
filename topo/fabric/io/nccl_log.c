/* nccl_log.c — see nccl_log.h. */
#include "nccl_log.h"

#include <stdlib.h>
#include <string.h>

#define LINE_MAX_READ 4096

/* s's bytes outside printable ASCII as '?': nothing read reaches a terminal or a file raw */
static void clean(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			*s = '?';
}

/* the name of NET/<name> at p (up to '/', ' ' or ':'), into out */
static void net_name(const char *p, char *out, size_t len)
{
	size_t n = strcspn(p, "/ :\t\r\n");

	snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), p);
	clean(out);
}

/* the devices of "NET/<net> : Using [0]dev... [1]dev..." at p: IB style "mlx5_0:1/RoCE", socket
 * style "eth0:10.0.0.1<0>" (the name up to ':') */
static void devs_read(struct nccl_seen *s, const char *net, const char *p)
{
	int socket = !strcmp(net, "Socket");

	s->ndevs = 0;
	while ((p = strchr(p, '['))) {
		char *end;
		long i = strtol(p + 1, &end, 10);

		p++;
		if (end == p || *end != ']' || i < 0 || i >= NCCL_LOG_DEVS)
			continue;
		p = end + 1;
		size_t n = strcspn(p, socket ? ":<> \t\r\n" : "/ \t\r\n;");

		if (n == 0 || n >= NCCL_LOG_NAME)
			continue;
		snprintf(s->dev[i], NCCL_LOG_NAME, "%.*s", (int)n, p);
		s->link[i][0] = 0;
		if (!socket && p[n] == '/')
			snprintf(s->link[i], sizeof s->link[i], "%.*s", (int)strcspn(p + n + 1, " \t\r\n;["), p + n + 1);
		clean(s->dev[i]);
		clean(s->link[i]);
		if (i + 1 > s->ndevs)
			s->ndevs = (int)i + 1;
		p += n;
	}
}

/* one channel connection's transport, at "via " */
static void via_read(struct nccl_seen *s, const char *p)
{
	if (!strncmp(p, "NET/", 4)) {
		char name[NCCL_LOG_NAME];
		const char *q;
		char *end;
		long i;

		net_name(p + 4, name, sizeof name);
		s->via_net++;
		if (!s->via_net_name[0])
			snprintf(s->via_net_name, sizeof s->via_net_name, "%s", name);
		q = p + 4 + strlen(name);
		if (*q == '/' && (i = strtol(q + 1, &end, 10)) >= 0 && end > q + 1 && i < NCCL_LOG_DEVS) {
			s->used |= 1u << i;
			s->gdr |= !strncmp(end, "/GDRDMA", 7);
		}
	} else if (!strncmp(p, "P2P/", 4)) {
		s->via_p2p++;
	} else if (!strncmp(p, "SHM/", 4)) {
		s->via_shm++;
	} else if (!strncmp(p, "COLLNET", 7)) {
		s->collnet = 1;
	} else {
		s->via_other++;
	}
}

static void line_read(struct nccl_seen *s, const char *line)
{
	const char *p = strstr(line, "NCCL INFO ");

	if (!p)
		return;
	p += 10;
	s->lines++;
	if (!strncmp(p, "NET/", 4) && strstr(p, " : Using [")) {
		char net[NCCL_LOG_NAME];

		net_name(p + 4, net, sizeof net);
		if (!s->network[0] || !strcmp(s->network, net)) /* once chosen, another's list is not its */
			devs_read(s, net, strstr(p, " : Using [") + 8);
	} else if (!strncmp(p, "Using network ", 14)) {
		snprintf(s->network, sizeof s->network, "%.*s", (int)strcspn(p + 14, "\r\n"), p + 14);
		clean(s->network);
	} else if (!strncmp(p, "Channel ", 8) && strstr(p, " via ")) {
		via_read(s, strstr(p, " via ") + 5);
	} else if (strstr(p, "Connected NVLS") || !strncmp(p, "NVLS comm ", 10)) {
		s->nvls = 1;
	} else if (strstr(p, "Connected CollNet") || strstr(p, "Connected collnet")) {
		s->collnet = 1;
	}
}

int nccl_log_read(FILE *f, struct nccl_seen *s)
{
	char line[LINE_MAX_READ];

	memset(s, 0, sizeof *s);
	while (fgets(line, sizeof line, f)) {
		size_t n = strlen(line);

		line_read(s, line);
		while (n && line[n - 1] != '\n' && fgets(line, sizeof line, f)) /* the rest of a long line */
			n = strlen(line);
	}
	return ferror(f) ? -1 : 0;
}

/* the devices of used, ',' between them, into out ("device 3" where the log did not list it) */
static void used_devs(const struct nccl_seen *s, char *out, size_t len)
{
	size_t k = 0;

	out[0] = 0;
	for (int i = 0; i < NCCL_LOG_DEVS && k + 1 < len; i++)
		if (s->used >> i & 1) {
			int w = i < s->ndevs && s->dev[i][0] ? snprintf(out + k, len - k, "%s%s", k ? "," : "", s->dev[i])
							    : snprintf(out + k, len - k, "%sdevice %d", k ? "," : "", i);

			k += w > 0 ? (size_t)w : 0;
		}
	if (k >= len)
		out[len - 1] = 0;
}

void nccl_seen_text(const struct nccl_seen *s, char *out, size_t len)
{
	char devs[512];

	if (s->nvls) {
		snprintf(out, len, "NVLS%s", s->via_net ? " and the network" : "");
	} else if (s->via_net) {
		used_devs(s, devs, sizeof devs);
		snprintf(out, len, "NET/%s %s%s%s", s->via_net_name, devs, s->gdr ? " (GDRDMA)" : "",
			 s->via_p2p || s->via_shm ? ", P2P/SHM within the node" : "");
	} else if (s->via_p2p || s->via_shm) {
		snprintf(out, len, "%s within the node", s->via_p2p && s->via_shm ? "P2P+SHM" : s->via_p2p ? "P2P" : "SHM");
	} else {
		snprintf(out, len, "unknown (no channel in the log)");
	}
}

/* 1 when name is one of the ports of list ("a+b+c") */
static int listed(const char *list, const char *name)
{
	for (const char *p = list; *p; p += strcspn(p, "+") + (p[strcspn(p, "+")] == '+')) {
		size_t n = strcspn(p, "+");

		if (n == strlen(name) && !strncmp(p, name, n))
			return 1;
	}
	return 0;
}

int nccl_seen_check(const struct nccl_seen *s, const char *path, char *why, size_t len)
{
	int tcp = path && !strncmp(path, "tcp:", 4), verbs = path && !strncmp(path, "verbs:", 6);
	const char *ports = tcp ? path + 4 : verbs ? path + 6 : "";
	char text[600];
	int bad = 0;

	why[0] = 0;
	if (!s->via_net && !s->via_p2p && !s->via_shm && !s->nvls && !s->collnet)
		return -1;
	if (!tcp && !verbs)
		return 0;
	nccl_seen_text(s, text, sizeof text);
	if (s->nvls || s->collnet || s->via_p2p || s->via_shm || !s->via_net)
		bad = 1;
	else if (tcp ? strcmp(s->via_net_name, "Socket") : strncmp(s->via_net_name, "IB", 2))
		bad = 1;
	for (int i = 0; !bad && i < NCCL_LOG_DEVS; i++)
		if (s->used >> i & 1)
			bad = i >= s->ndevs || !s->dev[i][0] || !listed(ports, s->dev[i]);
	if (!bad)
		return 0;
	snprintf(why, len, "asked for %s, NCCL used %s", path, text);
	return 1;
}
