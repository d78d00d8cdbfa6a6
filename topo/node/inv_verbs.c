/* inv_verbs.c — the libibverbs probe (compiled only with libibverbs): for each RDMA device
 * and port, what the driver negotiated (ibv_query_port: state, link layer, active width and
 * speed, active MTU), the firmware and node GUID (ibv_query_device), and the RoCE v2 GID of
 * the port's whole GID table (inv_gid_choose_live, which the verbs transport uses too; the
 * captured trees' reader, inv_gid_choose, shares its choice, inv_gid_pick).
 * Its figures override what sysfs's text files said. It reads the real devices, so it does
 * not run when a captured sysfs tree is given. */
#include <endian.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "inv_link.h"
#include "inv_probe.h"
#include "inv_verbs.h"

/* ibv calls return 0 or an errno value (some return -1 and set errno): warn naming the
 * call and where, give the code back. The inventory only warns (a port it cannot query is a
 * row with empty fields); the transport's WARN_IBV (bench/p2p/tr_verbs.h) unwinds a
 * connection instead, so the two are named apart. */
static int ibv_check(int rc, const char *call, int line)
{
	if (rc)
		log_msg("warning", __FILE__, line, "%s: %s", call, strerror(rc > 0 ? rc : errno));
	return rc;
}
#define WARN_IBV(call) ibv_check((call), #call, __LINE__)

int inv_port_speed_code(const struct ibv_port_attr *pa)
{
#ifdef HAVE_IBV_SPEED_EX
	return inv_speed_code(pa->active_speed, pa->active_speed_ex);
#else
	return inv_speed_code(pa->active_speed, 0);
#endif
}

int inv_gid_choose_live(struct ibv_context *ctx, int port, uint8_t gid[16])
{
	struct ibv_port_attr pa;
	struct inv_gid g[INV_GIDS_MAX];
	struct ibv_gid_entry e[INV_GIDS_MAX];
	ssize_t n = ibv_query_gid_table(ctx, e, INV_GIDS_MAX, 0);
	int k = 0, pick;

	if (n >= 0) {
		for (ssize_t i = 0; i < n; i++)
			if (e[i].port_num == (uint32_t)port && e[i].gid_index < INV_GIDS_MAX) {
				g[k] = (struct inv_gid){ .index = (int)e[i].gid_index,
							 .roce_v2 = e[i].gid_type == IBV_GID_TYPE_ROCE_V2 };
				memcpy(g[k++].gid, e[i].gid.raw, 16);
			}
	} else if (ibv_query_port(ctx, (uint8_t)port, &pa) == 0) { /* no table call: entry by entry */
		for (int i = 0; i < pa.gid_tbl_len && i < INV_GIDS_MAX; i++)
			if (ibv_query_gid_ex(ctx, (uint32_t)port, (uint32_t)i, &e[0], 0) == 0) {
				g[k] = (struct inv_gid){ .index = i, .roce_v2 = e[0].gid_type == IBV_GID_TYPE_ROCE_V2 };
				memcpy(g[k++].gid, e[0].gid.raw, 16);
			}
	}
	pick = inv_gid_pick(g, k);
	for (int i = 0; gid && i < k; i++)
		if (g[i].index == pick)
			memcpy(gid, g[i].gid, 16);
	return pick;
}

static const char *port_state_name(enum ibv_port_state s)
{
	switch (s) {
	case IBV_PORT_DOWN: return "down";
	case IBV_PORT_INIT: return "init";
	case IBV_PORT_ARMED: return "armed";
	case IBV_PORT_ACTIVE: return "active";
	case IBV_PORT_ACTIVE_DEFER: return "active_defer";
	default: return "unknown";
	}
}

static void port_fill(struct ibv_context *ctx, const struct ibv_device_attr *da,
		      int port, struct inv_node *node)
{
	const char *dev = ibv_get_device_name(ctx->device), *speed = "";
	struct ibv_port_attr pa;
	struct inv_nic *n;
	uint64_t guid = be64toh(da->node_guid);

	if (WARN_IBV(ibv_query_port(ctx, (uint8_t)port, &pa)))
		return;
	if (!(n = inv_nic_get(node, dev, port, "")))
		return;
	n->kind = pa.link_layer == IBV_LINK_LAYER_ETHERNET ? INV_KIND_ROCE : INV_KIND_INFINIBAND;
	n->is_virtual = 0;
	snprintf(n->state, sizeof n->state, "%s", port_state_name(pa.state));
	n->rate_gbps = NAN;
	n->width = -1;
	n->speed[0] = 0;
	if (pa.state == IBV_PORT_ACTIVE) {
		double lane = inv_speed_lane_gbps(inv_port_speed_code(&pa), &speed);

		n->width = inv_width_lanes(pa.active_width);
		n->rate_gbps = n->width > 0 ? n->width * lane : NAN;
		snprintf(n->speed, sizeof n->speed, "%s", speed);
	}
	if (n->mtu < 0 && pa.active_mtu >= IBV_MTU_256 && pa.active_mtu <= IBV_MTU_4096)
		n->mtu = 128 << pa.active_mtu; /* IBV_MTU_256 = 1 */
	inv_copy(n->fw_ver, da->fw_ver, sizeof n->fw_ver);
	if (n->kind == INV_KIND_INFINIBAND || !n->guid_or_mac[0])
		snprintf(n->guid_or_mac, sizeof n->guid_or_mac, "%04x:%04x:%04x:%04x",
			 (unsigned)(guid >> 48), (unsigned)(guid >> 32) & 0xffff,
			 (unsigned)(guid >> 16) & 0xffff, (unsigned)guid & 0xffff);
	if (n->kind == INV_KIND_ROCE)
		n->gid_index = inv_gid_choose_live(ctx, port, NULL);
}

static int verbs_probe(const struct inv_probe_ctx *ctx, struct inv_node *node, char *why, int whylen)
{
	const char *root = ctx->sysfs_root ? ctx->sysfs_root : "/sys";
	struct ibv_device **list;
	int num = 0;

	if (strcmp(root, "/sys")) {
		snprintf(why, (size_t)whylen, "skipped: --sysfs-root given (verbs reads the real devices)");
		return 1;
	}
	if (!(list = ibv_get_device_list(&num))) {
		snprintf(why, (size_t)whylen, "no RDMA devices (%s)", strerror(errno));
		return 1;
	}
	if (num == 0) {
		snprintf(why, (size_t)whylen, "no RDMA devices");
		ibv_free_device_list(list);
		return 1;
	}
	for (int d = 0; d < num; d++) {
		struct ibv_context *c = ibv_open_device(list[d]);
		struct ibv_device_attr da;

		if (!c) {
			LOG_WARN("ibv_open_device(%s): %s", ibv_get_device_name(list[d]), strerror(errno));
			continue;
		}
		if (!WARN_IBV(ibv_query_device(c, &da)))
			for (int p = 1; p <= da.phys_port_cnt; p++)
				port_fill(c, &da, p, node);
		ibv_close_device(c);
	}
	ibv_free_device_list(list);
	return 0;
}

const struct inv_probe_ops inv_probe_verbs = {
	.name = "ibverbs",
	.probe = verbs_probe,
};
