/* inv_link.c — see inv_link.h: link kinds, verbs rate codes, and the one netdev reader and
 * the one GID reader under a sysfs root, shared by the inventory's probes and the transports. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "inv_link.h"
#include "inv_probe.h"

/* ------------------------------------------------------------------ kinds */

const char *inv_kind_name(int kind)
{
	static const char *const names[] = { "", "infiniband", "roce", "ethernet", "loopback", "ipoib",
					      "other" };

	return kind >= 0 && kind <= INV_KIND_OTHER ? names[kind] : "";
}

int inv_kind_netdev(int kind)
{
	return kind == INV_KIND_ROCE ? INV_KIND_ETHERNET : kind == INV_KIND_INFINIBAND ? INV_KIND_IPOIB : kind;
}

/* ------------------------------------------------------------------ verbs rate codes */

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

/* ------------------------------------------------------------------ netdevs */

/* /sys/class/net/<if>/type values (ARPHRD_*) */
enum { ARPHRD_ETHER_ = 1, ARPHRD_INFINIBAND_ = 32, ARPHRD_LOOPBACK_ = 772 };

static int netdev_kind(const char *root, const char *name)
{
	char buf[32], *end;
	long type;

	if (inv_sysfs_read(root, buf, sizeof buf, "class/net/%s/type", name))
		return INV_KIND_UNKNOWN;
	type = strtol(buf, &end, 10);
	if (end == buf || *end)
		return INV_KIND_UNKNOWN;
	return type == ARPHRD_ETHER_ ? INV_KIND_ETHERNET : type == ARPHRD_INFINIBAND_ ? INV_KIND_IPOIB
	     : type == ARPHRD_LOOPBACK_ ? INV_KIND_LOOPBACK : INV_KIND_OTHER;
}

void inv_netdev_read(const char *root, const char *name, struct inv_netdev *out)
{
	char buf[128], rel[96];

	memset(out, 0, sizeof *out);
	out->mtu = -1;
	out->rate_gbps = NAN;
	out->kind = netdev_kind(root, name);
	snprintf(rel, sizeof rel, "class/net/%.32s/device", name);
	out->is_virtual = !inv_sysfs_exists(root, rel) || out->kind == INV_KIND_LOOPBACK;
	if (inv_sysfs_read(root, out->operstate, sizeof out->operstate, "class/net/%s/operstate", name))
		out->bad |= INV_NETDEV_BAD_OPERSTATE;
	if (!inv_sysfs_read(root, buf, sizeof buf, "class/net/%s/mtu", name))
		out->mtu = atoi(buf);
	inv_sysfs_read(root, out->address, sizeof out->address, "class/net/%s/address", name);
	/* Mb/s; -1 or unreadable (EINVAL while down, virtual devices) = unknown, never 0 */
	if (!inv_sysfs_read(root, buf, sizeof buf, "class/net/%s/speed", name)) {
		char *end;
		long mbps = strtol(buf, &end, 10);

		if (end == buf || *end)
			out->bad |= INV_NETDEV_BAD_SPEED;
		else if (mbps > 0)
			out->rate_gbps = mbps / 1000.0;
	}
}

/* ------------------------------------------------------------------ GIDs */

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

int inv_verbs_arg(const char *arg, char *dev, size_t devlen, int *port)
{
	const char *colon = arg ? strrchr(arg, ':') : NULL;
	size_t n = colon ? (size_t)(colon - arg) : 0;
	long p = 0;
	const char *q;

	if (!colon || n == 0 || n >= devlen || memchr(arg, '/', n) || (n == 1 && arg[0] == '.') ||
	    (n == 2 && arg[0] == '.' && arg[1] == '.'))
		return -1;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)arg[i] <= ' ' || (unsigned char)arg[i] >= 0x7f)
			return -1; /* device names are printable words: no blank, control or non-ASCII byte */
	for (q = colon + 1; *q >= '0' && *q <= '9' && p <= 255; q++)
		p = p * 10 + (*q - '0');
	if (q == colon + 1 || *q || p < 1 || p > 255)
		return -2;
	memcpy(dev, arg, n);
	dev[n] = 0;
	*port = (int)p;
	return 0;
}

int inv_speed_code(int active_speed, uint32_t active_speed_ex)
{
	return active_speed_ex ? (int)active_speed_ex : active_speed;
}

int inv_gid_is_v4(const uint8_t *g)
{
	return gid_is_v4mapped(g);
}

void inv_gid_format(const uint8_t *g, char *out, size_t len)
{
	if (gid_is_v4mapped(g))
		snprintf(out, len, "%u.%u.%u.%u", g[12], g[13], g[14], g[15]);
	else
		snprintf(out, len, "%x:%x:%x:%x:%x:%x:%x:%x", g[0] << 8 | g[1], g[2] << 8 | g[3], g[4] << 8 | g[5],
			 g[6] << 8 | g[7], g[8] << 8 | g[9], g[10] << 8 | g[11], g[12] << 8 | g[13], g[14] << 8 | g[15]);
}

int inv_gid_pick(const struct inv_gid *g, int n)
{
	int best = -1, best_score = 0;

	for (int i = 0; i < n; i++) {
		int score;

		if (!g[i].roce_v2 || g[i].malformed || inv_gid_is_zero(g[i].gid))
			continue;
		/* link-local, not routable, never chosen: fe80::/10, and 169.254/16 mapped */
		if ((g[i].gid[0] == 0xfe && (g[i].gid[1] & 0xc0) == 0x80) ||
		    (gid_is_v4mapped(g[i].gid) && g[i].gid[12] == 169 && g[i].gid[13] == 254))
			continue;
		score = gid_is_v4mapped(g[i].gid) ? 2 : 1;
		if (score > best_score) /* the lowest index wins a tie, as perftest scans upward */
			best = g[i].index, best_score = score;
	}
	return best;
}

int inv_gid_read(const char *root, const char *dev, int port, struct inv_gid g[INV_GIDS_MAX])
{
	char buf[64];
	int n = 0;

	for (int i = 0; i < INV_GIDS_MAX; i++) {
		if (inv_sysfs_read(root, buf, sizeof buf, "class/infiniband/%s/ports/%d/gids/%d", dev, port, i))
			break;
		g[n].index = i;
		if ((g[n].malformed = inv_gid_parse(buf, g[n].gid) != 0)) {
			g[n++].roce_v2 = 0;
			continue;
		}
		/* unused entries have no type (EINVAL on a live node): not RoCE v2 */
		g[n].roce_v2 = !inv_sysfs_read(root, buf, sizeof buf,
						"class/infiniband/%s/ports/%d/gid_attrs/types/%d", dev, port, i) &&
			       !strcmp(buf, "RoCE v2");
		n++;
	}
	return n;
}

int inv_gid_choose(const char *root, const char *dev, int port, uint8_t gid[16])
{
	struct inv_gid g[INV_GIDS_MAX];
	int n = inv_gid_read(root, dev, port, g), pick = inv_gid_pick(g, n);

	for (int i = 0; gid && i < n; i++)
		if (g[i].index == pick)
			memcpy(gid, g[i].gid, 16);
	return pick;
}
