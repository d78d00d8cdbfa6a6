/* inv_decode.c — pure decoding of what verbs and sysfs report: lane widths and speeds,
 * rate and state strings, GIDs and the RoCE v2 GID choice; and the small helpers that
 * every probe uses to fill a struct inv_node. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "inventory.h"

const char *inv_kind_name(int kind)
{
	static const char *const names[] = { "", "infiniband", "roce", "ethernet", "loopback" };

	return kind >= 0 && kind <= INV_KIND_LOOPBACK ? names[kind] : "";
}

const char *inv_class_name(int cls)
{
	static const char *const names[] = { "PIX", "PXB", "PHB", "NODE", "SYS", "" };

	return cls >= 0 && cls <= INV_CLASS_UNKNOWN ? names[cls] : "";
}

int inv_width_lanes(int active_width)
{
	switch (active_width) {
	case 1: return 1;
	case 2: return 4;
	case 4: return 8;
	case 8: return 12;
	case 16: return 2;
	default: return -1;
	}
}

double inv_speed_lane_gbps(int active_speed, const char **name)
{
	/* IBTA per-lane signalling rates as verbs encodes them (ibv_port_attr.active_speed) */
	static const struct { int code; double gbps; const char *name; } t[] = {
		{ 1, 2.5, "SDR" }, { 2, 5, "DDR" }, { 4, 10, "QDR" }, { 8, 10, "FDR10" },
		{ 16, 14, "FDR" }, { 32, 25, "EDR" }, { 64, 50, "HDR" }, { 128, 100, "NDR" },
		{ 256, 200, "XDR" },
	};

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (t[i].code == active_speed) {
			if (name)
				*name = t[i].name;
			return t[i].gbps;
		}
	if (name)
		*name = "";
	return NAN;
}

int inv_rate_parse(const char *s, double *gbps, int *lanes, char *speed, int speed_len)
{
	char *end;
	double v = strtod(s, &end);
	int n = 0, used = 0;
	char name[16] = "";

	if (end == s || !(v >= 0) || strncmp(end, " Gb/sec", 7))
		return FP_EUSAGE;
	*gbps = v;
	*lanes = -1;
	if (speed_len > 0)
		speed[0] = 0;
	end += 7;
	while (*end == ' ')
		end++;
	if (!*end)
		return 0; /* some drivers write only the figure */
	if (sscanf(end, "(%dX %15[^)])%n", &n, name, &used) < 2 || used == 0 || n <= 0)
		return FP_EUSAGE;
	*lanes = n;
	if (speed_len > 0)
		snprintf(speed, (size_t)speed_len, "%s", name);
	return 0;
}

int inv_state_parse(const char *s, char *out, int len)
{
	const char *p = strchr(s, ':');
	int i = 0;

	if (!p || !isdigit((unsigned char)s[0]))
		return FP_EUSAGE;
	for (p++; *p == ' '; p++)
		;
	if (!*p)
		return FP_EUSAGE;
	for (; *p && i < len - 1; p++)
		out[i++] = (char)tolower((unsigned char)*p);
	out[i] = 0;
	return 0;
}

int inv_gid_parse(const char *s, uint8_t gid[16])
{
	unsigned g[8];
	int used = 0;

	if (sscanf(s, "%4x:%4x:%4x:%4x:%4x:%4x:%4x:%4x%n", &g[0], &g[1], &g[2], &g[3], &g[4], &g[5],
		   &g[6], &g[7], &used) != 8 || used != 39 || s[used])
		return FP_EUSAGE;
	for (int i = 0; i < 8; i++) {
		gid[2 * i] = (uint8_t)(g[i] >> 8);
		gid[2 * i + 1] = (uint8_t)g[i];
	}
	return 0;
}

int inv_gid_is_zero(const uint8_t *g)
{
	for (int i = 0; i < 16; i++)
		if (g[i])
			return 0;
	return 1;
}

static int gid_is_v4mapped(const uint8_t *g)
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(g, prefix, sizeof prefix);
}

int inv_gid_pick(const struct inv_gid *g, int n)
{
	int best = -1, best_score = 0;

	for (int i = 0; i < n; i++) {
		int score;

		if (!g[i].roce_v2 || inv_gid_is_zero(g[i].gid))
			continue;
		if (g[i].gid[0] == 0xfe && (g[i].gid[1] & 0xc0) == 0x80)
			continue; /* fe80::/10 link-local: not routable, never chosen */
		score = gid_is_v4mapped(g[i].gid) ? 2 : 1;
		if (score > best_score) /* the lowest index wins a tie, as perftest scans upward */
			best = g[i].index, best_score = score;
	}
	return best;
}

/* ------------------------------------------------------------------ node helpers */

void inv_node_init(struct inv_node *node)
{
	memset(node, 0, sizeof *node);
	node->sockets = node->cores = node->threads = node->numa_nodes = -1;
	node->mem_bytes = node->numa_mem_bytes = -1;
}

void inv_copy(char *dst, const char *src, size_t len)
{
	size_t n = src ? strnlen(src, len - 1) : 0;

	memcpy(dst, src ? src : "", n);
	dst[n] = 0;
}

void inv_note(struct inv_node *node, const char *fmt, ...)
{
	va_list ap;

	if (node->nnotes >= INV_NOTES_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(node->notes[node->nnotes++], INV_NOTE_MAX, fmt, ap);
	va_end(ap);
}

struct inv_nic *inv_nic_get(struct inv_node *node, const char *device, int port, const char *netdev)
{
	struct inv_nic *n;

	for (int i = 0; i < node->nnics; i++) {
		n = &node->nics[i];
		if (device && *device ? !strcmp(n->device, device) && n->port == port
				      : !n->device[0] && !strcmp(n->netdev, netdev))
			return n;
	}
	if (node->nnics >= INV_NICS_MAX)
		return NULL;
	n = &node->nics[node->nnics++];
	memset(n, 0, sizeof *n);
	snprintf(n->device, sizeof n->device, "%s", device ? device : "");
	n->port = device && *device ? port : -1;
	snprintf(n->netdev, sizeof n->netdev, "%s", netdev ? netdev : "");
	n->rate_gbps = NAN;
	n->width = n->mtu = n->numa = n->ipv4_prefix = n->gid_index = -1;
	return n;
}

/* ------------------------------------------------------------------ plausible ranges */

/* A value outside [lo, hi] (unknown excepted) becomes unknown, said once per value. */
static void range_int(struct inv_node *node, const char *what, const char *name, int32_t *v, int32_t lo,
		      int32_t hi)
{
	if (*v == -1 || (*v >= lo && *v <= hi))
		return;
	LOG_WARN("%s: %s %s = %d is outside %d..%d: left empty", node->host, what, name, *v, lo, hi);
	inv_note(node, "%s %s = %d is outside %d..%d: left empty", what, name, *v, lo, hi);
	*v = -1;
}

void inv_node_check_ranges(struct inv_node *node)
{
	for (int i = 0; i < node->nnics && i < INV_NICS_MAX; i++) {
		struct inv_nic *n = &node->nics[i];
		char label[2 * INV_NAME_MAX + 16];

		snprintf(label, sizeof label, "%s%s%s", n->device, n->device[0] && n->netdev[0] ? "/" : "", n->netdev);
		/* 10 Tb/s is beyond any port made; 0 is "unknown" written as a number */
		if (!isnan(n->rate_gbps) && !(n->rate_gbps > 0 && n->rate_gbps <= 10000)) {
			LOG_WARN("%s: NIC %s rate %g Gb/s is outside (0, 10000]: left empty", node->host, label,
				 n->rate_gbps);
			inv_note(node, "NIC %s rate %g Gb/s is outside (0, 10000]: left empty", label, n->rate_gbps);
			n->rate_gbps = NAN;
		}
		range_int(node, "NIC", "mtu", &n->mtu, 68, 65536); /* IPv4's minimum, loopback's maximum */
		range_int(node, "NIC", "width", &n->width, 1, 32);
		range_int(node, "NIC", "numa_node", &n->numa, 0, 4095);
		range_int(node, "NIC", "gid_index", &n->gid_index, 0, 65535);
	}
	for (int i = 0; i < node->ngpus && i < INV_GPUS_MAX; i++)
		range_int(node, "GPU", "numa_node", &node->gpus[i].numa, 0, 4095);
	range_int(node, "node", "sockets", &node->sockets, 1, 1 << 16);
	range_int(node, "node", "cores", &node->cores, 1, 1 << 22);
	range_int(node, "node", "threads", &node->threads, 1, 1 << 22);
	range_int(node, "node", "numa_nodes", &node->numa_nodes, 1, 4096);
	if (node->mem_bytes < -1 || node->mem_bytes > (1LL << 60))
		node->mem_bytes = -1;
	if (node->numa_mem_bytes < -1 || node->numa_mem_bytes > (1LL << 60))
		node->numa_mem_bytes = -1;
}
