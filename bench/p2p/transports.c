/* transports.c — the registry of point-to-point transports: the one place that knows which
 * ones this build has. */
#include <string.h>

#include "transport.h"

const struct transport_ops *const transport_registry[] = {
	&transport_mpi,
	&transport_tcp,
#if HAVE_IBVERBS
	&transport_verbs,
#endif
	NULL,
};

const struct transport_ops *transport_find(const char *path)
{
	size_t len = strcspn(path, ":");

	for (int i = 0; transport_registry[i]; i++)
		if (strlen(transport_registry[i]->name) == len &&
		    !strncmp(transport_registry[i]->name, path, len))
			return transport_registry[i];
	return NULL;
}
