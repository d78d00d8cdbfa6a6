/* inv_sysfs_ib.c — the sysfs probe's RDMA part: /sys/class/infiniband/<dev>/{node_guid,
 * fw_ver, device} and ports/<p>/{link_layer, state, rate, gids/<i>, gid_attrs/types/<i>,
 * gid_attrs/ndevs/<i>} (the kernel's sysfs ABI for InfiniBand). Each port becomes one NIC row, merged with the netdev
 * row of its netdev (ib0 for IPoIB, the Ethernet netdev for RoCE). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "inv_probe.h"

struct ib_dev {
	const char *root, *name;
	char guid[48], fw[INV_NAME_MAX], pci[INV_PCI_MAX];
	int numa;
};

/* The netdev of a port: RoCE names it in gid_attrs/ndevs/0; otherwise the PCI function's
 * net/ directory, matched on dev_port (0-based) when a function has several. */
static void port_netdev(const struct ib_dev *d, int port, int roce, char *out, int len)
{
	char names[8][INV_NAME_MAX], rel[160], buf[32];
	int n;

	out[0] = 0;
	if (roce && !inv_sysfs_read(d->root, out, len, "class/infiniband/%s/ports/%d/gid_attrs/ndevs/0",
				    d->name, port) && out[0])
		return;
	snprintf(rel, sizeof rel, "class/infiniband/%s/device/net", d->name);
	n = inv_sysfs_list(d->root, rel, names, 8);
	for (int i = 0; i < n; i++) {
		if (n == 1 || (!inv_sysfs_read(d->root, buf, sizeof buf, "class/net/%s/dev_port", names[i]) &&
			       atoi(buf) == port - 1)) {
			inv_copy(out, names[i], (size_t)len);
			return;
		}
	}
}

void inv_port_netdev(const char *root, const char *dev, int port, char *out, int len)
{
	struct ib_dev d = { .root = root, .name = dev };

	port_netdev(&d, port, 1, out, len);
}

/* The NIC row of this port: the netdev's row when the netdev was listed, else a new one. */
static struct inv_nic *port_row(struct inv_node *node, const char *dev, int port, const char *netdev)
{
	for (int i = 0; netdev[0] && i < node->nnics; i++)
		if (!node->nics[i].device[0] && !strcmp(node->nics[i].netdev, netdev)) {
			snprintf(node->nics[i].device, sizeof node->nics[i].device, "%s", dev);
			node->nics[i].port = port;
			return &node->nics[i];
		}
	return inv_nic_get(node, dev, port, netdev);
}

/* The RoCE v2 GID (inv_gid_read), each malformed entry noted. */
static void port_gids(const struct ib_dev *d, int port, struct inv_nic *n, struct inv_node *node)
{
	struct inv_gid g[INV_GIDS_MAX];
	int ng = inv_gid_read(d->root, d->name, port, g);
	char rel[160];

	for (int i = 0; i < ng; i++)
		if (g[i].malformed) {
			snprintf(rel, sizeof rel, "class/infiniband/%s/ports/%d/gids/%d", d->name, port, g[i].index);
			inv_sysfs_bad(node, d->root, rel, "malformed GID");
		}
	n->gid_index = inv_gid_pick(g, ng);
}

static void port_rate(const struct ib_dev *d, int port, struct inv_nic *n, struct inv_node *node)
{
	char buf[64], rel[160];
	double gbps;
	int lanes;

	snprintf(rel, sizeof rel, "class/infiniband/%s/ports/%d/rate", d->name, port);
	if (inv_sysfs_read(d->root, buf, sizeof buf, "%s", rel))
		inv_sysfs_bad(node, d->root, rel, "unreadable");
	else if (inv_rate_parse(buf, &gbps, &lanes, n->speed, sizeof n->speed))
		inv_sysfs_bad(node, d->root, rel, "malformed (expected e.g. '200 Gb/sec (4X HDR)')");
	else if (!strcmp(n->state, "active")) {
		/* a port that is not active has no negotiated rate: unknown, not the default */
		n->rate_gbps = gbps;
		n->width = lanes;
	} else {
		n->speed[0] = 0;
	}
}

static void scan_port(const struct ib_dev *d, int port, struct inv_node *node)
{
	char ll[32] = "", netdev[INV_NAME_MAX], buf[64], rel[160];
	struct inv_nic *n;
	int roce;

	snprintf(rel, sizeof rel, "class/infiniband/%s/ports/%d/link_layer", d->name, port);
	if (inv_sysfs_read(d->root, ll, sizeof ll, "%s", rel))
		inv_sysfs_bad(node, d->root, rel, "unreadable");
	roce = !strcmp(ll, "Ethernet");
	port_netdev(d, port, roce, netdev, sizeof netdev);
	if (!(n = port_row(node, d->name, port, netdev)))
		return;
	n->kind = roce ? INV_KIND_ROCE : !strcmp(ll, "InfiniBand") ? INV_KIND_INFINIBAND : INV_KIND_UNKNOWN;
	n->is_virtual = 0;
	snprintf(rel, sizeof rel, "class/infiniband/%s/ports/%d/state", d->name, port);
	if (inv_sysfs_read(d->root, buf, sizeof buf, "%s", rel))
		inv_sysfs_bad(node, d->root, rel, "unreadable");
	else if (inv_state_parse(buf, n->state, sizeof n->state))
		inv_sysfs_bad(node, d->root, rel, "malformed (expected e.g. '4: ACTIVE')");
	port_rate(d, port, n, node);
	snprintf(n->pci, sizeof n->pci, "%s", d->pci);
	snprintf(n->fw_ver, sizeof n->fw_ver, "%s", d->fw);
	if (n->numa < 0)
		n->numa = d->numa;
	if (!roce || !n->guid_or_mac[0])
		snprintf(n->guid_or_mac, sizeof n->guid_or_mac, "%s", d->guid);
	if (roce)
		port_gids(d, port, n, node);
}

static void scan_device(const char *root, const char *name, struct inv_node *node)
{
	struct ib_dev d = { .root = root, .name = name, .numa = -1 };
	char ports[16][INV_NAME_MAX], rel[128], buf[32];
	int np;

	inv_sysfs_read(root, d.guid, sizeof d.guid, "class/infiniband/%s/node_guid", name);
	inv_sysfs_read(root, d.fw, sizeof d.fw, "class/infiniband/%s/fw_ver", name);
	snprintf(rel, sizeof rel, "class/infiniband/%.32s/device", name);
	if (inv_sysfs_pci(root, rel, d.pci, sizeof d.pci))
		d.pci[0] = 0;
	if (!inv_sysfs_read(root, buf, sizeof buf, "class/infiniband/%s/device/numa_node", name))
		d.numa = atoi(buf) >= 0 ? atoi(buf) : -1;
	snprintf(rel, sizeof rel, "class/infiniband/%.32s/ports", name);
	np = inv_sysfs_list(root, rel, ports, 16);
	if (np < 0)
		inv_sysfs_bad(node, root, rel, "unreadable");
	for (int i = 0; i < np; i++) {
		char *end;
		long p = strtol(ports[i], &end, 10);

		if (*end || p < 1 || p > 255)
			continue;
		scan_port(&d, (int)p, node);
	}
}

void inv_sysfs_scan_ib(const char *root, struct inv_node *node)
{
	char names[INV_DIR_MAX][INV_NAME_MAX];
	int n = inv_sysfs_list(root, "class/infiniband", names, INV_DIR_MAX);

	/* no infiniband class: no RDMA driver loaded, nothing to say */
	for (int i = 0; i < n; i++)
		scan_device(root, names[i], node);
}
