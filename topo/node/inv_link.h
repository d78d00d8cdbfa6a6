/* inv_link.h — a network port as the inventory and the transports both see it: the link kinds
 * and their names, the verbs rate codes, the netdev reader and the GID reader. Each reader
 * looks under a sysfs root ("/sys" on a live node, a captured tree in tests). This is all a
 * transport needs of topo/node: it includes nothing of the node model (inventory.h). */
#ifndef FP_INV_LINK_H
#define FP_INV_LINK_H

#include <stdint.h>

#define INV_NAME_MAX 32     /* device, netdev, state names */
#define INV_GIDS_MAX 256    /* GID table entries examined per port (mlx5's RoCE tables hold 255) */

/* What carries a port or an interface. A netdev is ethernet, ipoib (an InfiniBand netdev),
 * loopback or other by its ARPHRD type; an RDMA port is infiniband or roce by its link layer. */
enum inv_kind { INV_KIND_UNKNOWN, INV_KIND_INFINIBAND, INV_KIND_ROCE, INV_KIND_ETHERNET,
		INV_KIND_LOOPBACK, INV_KIND_IPOIB, INV_KIND_OTHER };

/* "infiniband", "roce", "ethernet", "loopback", "ipoib", "other"; "" for unknown. */
const char *inv_kind_name(int kind);
/* The kind of the netdev of a port of this kind: TCP over a RoCE port's netdev is ethernet,
 * over an InfiniBand port's is ipoib; other kinds are their own. */
int inv_kind_netdev(int kind);

/* ------------------------------------------------------------------ verbs rate codes (pure) */

/* verbs active_width → lanes (1,2,4,8,16 → 1,4,8,12,2); -1 for other values. */
int inv_width_lanes(int active_width);
/* verbs active_speed → Gb/s per lane; NAN for other values. name gets "HDR" etc. or "". */
double inv_speed_lane_gbps(int active_speed, const char **name);

/* ------------------------------------------------------------------ netdevs */

/* One interface as "<root>/class/net/<name>/{type,device,operstate,mtu,address,speed}" say. */
struct inv_netdev {
	int kind;                     /* INV_KIND_ETHERNET, IPOIB, LOOPBACK, OTHER; UNKNOWN: no type */
	int is_virtual;               /* no device behind it (lo, veth, bridges, docker…) */
	char operstate[INV_NAME_MAX]; /* "up", "down", …; "" when unreadable */
	int mtu;                      /* bytes, -1 when unreadable */
	char address[48];             /* hardware address, "" */
	double rate_gbps;             /* speed; NAN when unknown (-1, unreadable, malformed) */
	unsigned bad;                 /* INV_NETDEV_BAD_*: files there but unreadable/malformed */
};
enum { INV_NETDEV_BAD_OPERSTATE = 1, INV_NETDEV_BAD_SPEED = 2 };

/* Fill out for the interface name (an absent one reads as unknown everywhere). */
void inv_netdev_read(const char *root, const char *name, struct inv_netdev *out);

/* ------------------------------------------------------------------ GIDs */

struct inv_gid {
	int index;
	uint8_t gid[16];
	int roce_v2;      /* gid_attrs/types says "RoCE v2" */
	int malformed;    /* the entry could not be read as a GID: never picked */
};

/* A GID as sysfs writes it ("fe80:0000:…", 8 groups of 4 hex digits) → 16 bytes. */
int inv_gid_parse(const char *s, uint8_t gid[16]);
/* 1 when all 16 bytes are zero (an unset GID table entry). */
int inv_gid_is_zero(const uint8_t *g);
/* 1 when the GID is an IPv4-mapped address (::ffff:a.b.c.d: a RoCE v2 GID of an IPv4 address). */
int inv_gid_is_v4(const uint8_t *g);
/* The GID as an address: "10.2.0.21" when IPv4-mapped, else IPv6 text. */
void inv_gid_format(const uint8_t *g, char *out, size_t len);
/* The port of a verbs path's argument ("mlx5_0:1" of verbs:mlx5_0:1): dev (up to the last ':',
 * 1..devlen-1 printable ASCII bytes, no blank or '/', not "." or "..") and port (1..255, digits only). 0; -1 when the
 * device part is malformed; -2 when the port is. The one parser of that argument. */
int inv_verbs_arg(const char *arg, char *dev, size_t devlen, int *port);

/* A port's speed code: active_speed_ex when the library and the port give one (XDR and later
 * exist only there, 0x100 and up), else active_speed (ibv_port_attr). */
int inv_speed_code(int active_speed, uint32_t active_speed_ex);

/* The GID perftest would pick: RoCE v2, IPv4-mapped over IPv6, never link-local (fe80::/10,
 * 169.254/16), zero or malformed.
 * Returns its index, or -1 when no RoCE v2 GID qualifies. */
int inv_gid_pick(const struct inv_gid *g, int n);
/* The GID table of dev:port: "<root>/class/infiniband/<dev>/ports/<port>/gids/<i>" and
 * gid_attrs/types/<i>, for i < INV_GIDS_MAX up to the first entry that cannot be read (a
 * captured tree; a live port's table comes from ibv_query_gid_table). A malformed entry is
 * kept, marked. Returns the number of entries in g. */
int inv_gid_read(const char *root, const char *dev, int port, struct inv_gid g[INV_GIDS_MAX]);
/* The netdev of RDMA port dev:port under root ("/sys" when NULL) into out (len bytes): RoCE's
 * Ethernet interface (gid_attrs/ndevs/0), else the netdev of the port's PCI function (IPoIB's
 * ib0), matched on dev_port when the function has several; "" when none. */
void inv_port_netdev(const char *root, const char *dev, int port, char *out, int len);
/* The RoCE v2 GID perftest would use on dev:port (inv_gid_read, then inv_gid_pick): its
 * index, or -1 when no entry qualifies; gid gets its 16 bytes when not NULL. */
int inv_gid_choose(const char *root, const char *dev, int port, uint8_t gid[16]);

#endif
