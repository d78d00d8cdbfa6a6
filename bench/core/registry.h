/* registry.h — the one shape of every kind of plug-in (subcommands, transports, collective
 * backends, discovery probes, emitted files).
 *
 * A plug-in is a const struct of function pointers whose first two members are
 *     const char *name;     what a user types or a file is called
 *     const char *absent;   NULL, or why it is not in this build ("built without NCCL")
 * and a kind's registry is one NULL-terminated array of pointers to them, in one file: the
 * only place with that kind's `#if HAVE_X`. An entry left out of the build stays listed with
 * `absent` set, so that asking for it gives a reason, not "unknown". Nothing else names a
 * plug-in: engines loop over the registry or find an entry by name. */
#ifndef FP_REGISTRY_H
#define FP_REGISTRY_H

#include <stddef.h>

struct registry_head {
	const char *name;
	const char *absent;
};

/* The entry whose name is the first len bytes of name (len = (size_t)-1: all of it), or NULL.
 * Absent entries are found too: the caller says why they cannot be used. */
const void *registry_find(const void *const *table, const char *name, size_t len);

/* In each registry file: the plug-in struct starts as registry_head does. */
#define REGISTRY_SHAPE(type)                                                                  \
	_Static_assert(offsetof(type, name) == offsetof(struct registry_head, name) &&          \
			       offsetof(type, absent) == offsetof(struct registry_head, absent),   \
		       #type " must start with name and absent")

/* Typed look-up: REGISTRY_FIND(struct transport_ops, transport_registry, "tcp", 3). */
#define REGISTRY_FIND(type, table, name, len)                                                 \
	((const type *)registry_find((const void *const *)(table), (name), (len)))

#endif
