/* inventory.c — `fabprobe inventory`: the inventory stage under cmd_measure (options and usage:
 * inventory/inv_opts.c). */
#include "cmd.h"
#include "coll/coll.h"
#include "inventory/inv_stage.h"

int cmd_inventory(int argc, char **argv)
{
	static const struct cmd_stage stage = { .name = "inventory", .usage = inv_usage, .check = inventory_check,
						.body = inventory_stage };
	struct inv_opts o;
	char err[OPTS_ERR_MAX];
	int rc = inv_opts_parse(argc, argv, &o, err);

	o.gpu_path = coll_gpu_backend(); /* the inventory does not know the collectives */
	return cmd_measure(&stage, argc, argv, rc, err, &o.where, 0, &o);
}
