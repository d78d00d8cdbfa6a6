/* inv_verbs.h — what a live RDMA port says through libibverbs, for the inventory and the verbs
 * transport alike. Only for files built with libibverbs. */
#ifndef FP_INV_VERBS_H
#define FP_INV_VERBS_H

#include <infiniband/verbs.h>
#include <stdint.h>

/* The RoCE v2 GID to use on a live port: its whole GID table (ibv_query_gid_table; one entry
 * at a time through ibv_query_gid_ex where the provider has no table call), then
 * inv_gid_pick. Its index, or -1 when none qualifies; gid gets its 16 bytes when not NULL. */
int inv_gid_choose_live(struct ibv_context *ctx, int port, uint8_t gid[16]);
/* The port's speed code (inv_speed_code: active_speed_ex where this libibverbs has it). */
int inv_port_speed_code(const struct ibv_port_attr *pa);

#endif
