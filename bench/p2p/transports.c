/* transports.c — the registry of point-to-point transports: the one place that knows which
 * ones this build has (core/registry.h). */
#include <string.h>

#include "core/registry.h"
#include "transport.h"

REGISTRY_SHAPE(struct transport_ops);

#if !HAVE_IBVERBS
static const struct transport_ops transport_verbs_absent = {
	.name = "verbs",
	.absent = "this fabprobe was built without libibverbs (see make config; WITH_IBVERBS=yes)",
};
#endif

const struct transport_ops *const transport_registry[] = {
	&transport_mpi,
	&transport_tcp,
#if HAVE_IBVERBS
	&transport_verbs,
#else
	&transport_verbs_absent,
#endif
	NULL,
};

const struct transport_ops *transport_find(const char *path)
{
	return REGISTRY_FIND(struct transport_ops, transport_registry, path, strcspn(path, ":"));
}
