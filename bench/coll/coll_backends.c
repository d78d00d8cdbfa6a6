/* coll_backends.c — the registry of collective backends: the one place that knows which ones
 * this build has. A backend left out of the build stays listed, saying why, so that asking
 * for it gives a reason instead of "unknown". */
#include <string.h>

#include "coll_backend.h"
#include "core/registry.h"

REGISTRY_SHAPE(struct coll_backend);

#if !HAVE_NCCL
static const struct coll_backend coll_backend_nccl_absent = {
	.name = "nccl",
	.absent = "this fabprobe was built without NCCL (see make config; WITH_NCCL=yes)",
	.gpu = 1,
};
#endif

const struct coll_backend *const coll_backends[] = {
	&coll_backend_mpi,
#if HAVE_NCCL
	&coll_backend_nccl,
#else
	&coll_backend_nccl_absent,
#endif
	&coll_backend_ring,
	NULL,
};

const struct coll_backend *coll_backend_find(const char *name)
{
	return REGISTRY_FIND(struct coll_backend, coll_backends, name, (size_t)-1);
}

const char *coll_gpu_backend(void)
{
	for (int i = 0; coll_backends[i]; i++)
		if (coll_backends[i]->gpu && !coll_backends[i]->absent)
			return coll_backends[i]->name;
	return NULL;
}
