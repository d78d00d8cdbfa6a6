/* coll_path.c — `coll --path P` (coll.h): the settings that make MPI and NCCL carry their
 * traffic over one network path, set in the environment before MPI_Init, where both libraries
 * read them once per process. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "coll_backend.h"
#include "core/log.h"
#include "core/mpi_util.h"
#include "node/inv_link.h"

/* a netdev or RDMA device name: letters, digits, '_', '-', '.', at most max bytes */
static int name_ok(const char *s, size_t len, size_t max)
{
	if (len == 0 || len > max)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '_' || s[i] == '-' || s[i] == '.'))
			return 0;
	return 1;
}

/* one port of a path of kind tcp (netdev) or verbs (dev:port), len bytes at s */
static int port_ok(int tcp, const char *s, size_t len)
{
	const char *b = memchr(s, ':', len);
	size_t dl = b ? (size_t)(b - s) : len, pl = b ? len - dl - 1 : 0;
	int port = 0;

	if (tcp)
		return name_ok(s, len, 15);
	if (!b || !name_ok(s, dl, 63) || pl < 1 || pl > 3)
		return 0;
	for (size_t i = 0; i < pl; i++)
		if (b[1 + i] < '0' || b[1 + i] > '9')
			return 0;
		else
			port = port * 10 + b[1 + i] - '0';
	return port >= 1 && port <= 255;
}

int coll_path_parse(const char *path, char *err)
{
	int tcp = !strncmp(path, "tcp:", 4), n = 0;
	const char *a;

	if (!strcmp(path, "mpi"))
		return 0;
	if (!tcp && strncmp(path, "verbs:", 6))
		OPTS_FAIL("--path %.80s: not mpi, tcp:<netdev> or verbs:<device>:<port>", path);
	if (strlen(path) >= COLL_PATH_MAX * 2)
		OPTS_FAIL("--path %.80s...: longer than %d bytes", path, COLL_PATH_MAX * 2 - 1);
	for (a = path + (tcp ? 4 : 6);; a += strcspn(a, "+") + 1) {
		if (!port_ok(tcp, a, strcspn(a, "+")))
			OPTS_FAIL(tcp ? "--path %.80s: tcp:<netdev> needs a network interface name (at most 15 letters, "
					"digits, '_', '-', '.'), several joined by '+'"
				      : "--path %.80s: verbs:<device>:<port> needs an RDMA device and a port 1..255 "
					"(e.g. verbs:mlx5_0:1), several joined by '+'",
				  path);
		if (++n > COLL_PATH_PORTS_MAX)
			OPTS_FAIL("--path %.80s: more than %d ports", path, COLL_PATH_PORTS_MAX);
		if (!a[strcspn(a, "+")])
			return 0;
	}
}

int coll_path_ports(const char *path, char (*out)[COLL_PATH_MAX], int max)
{
	int tcp = !strncmp(path, "tcp:", 4), n = 0;
	const char *a;

	if (!tcp && strncmp(path, "verbs:", 6))
		return max > 0 ? (snprintf(out[0], COLL_PATH_MAX, "%s", path), 1) : 0;
	for (a = path + (tcp ? 4 : 6); n < max; a += strcspn(a, "+") + 1) {
		snprintf(out[n++], COLL_PATH_MAX, "%s%.*s", tcp ? "tcp:" : "verbs:", (int)strcspn(a, "+"), a);
		if (!a[strcspn(a, "+")])
			break;
	}
	return n;
}

static void put(struct coll_path_set *e, const char *name, const char *fmt, const char *a, int alen)
{
	if (e->n >= COLL_ENV_MAX)
		return;
	snprintf(e->v[e->n].name, sizeof e->v[e->n].name, "%s", name);
	snprintf(e->v[e->n].value, sizeof e->v[e->n].value, fmt, alen, a);
	e->n++;
}

void coll_path_env(const char *path, struct coll_path_set *e)
{
	e->n = 0;
	if (!path || !strcmp(path, "mpi"))
		return; /* each library's own choice */
	char list[COLL_ENV_VALUE_MAX];
	int len = snprintf(list, sizeof list, "%s", path + (strncmp(path, "tcp:", 4) ? 6 : 4));
	const char *dev = list;

	for (char *c = list; (c = strchr(c, '+'));)
		*c = ','; /* several ports: each library's list */
	if (!strncmp(path, "tcp:", 4)) {
		/* Open MPI: ob1 over TCP on that netdev alone (no shared memory, no RDMA) */
		put(e, "OMPI_MCA_pml", "%.*s", "ob1", 3);
		put(e, "OMPI_MCA_btl", "%.*s", "tcp,self", 8);
		put(e, "OMPI_MCA_btl_tcp_if_include", "%.*s", dev, len);
		/* NCCL: its socket transport on that netdev ('=': that name exactly, not a prefix) */
		put(e, "NCCL_NET", "%.*s", "Socket", 6);
		put(e, "NCCL_SOCKET_IFNAME", "=%.*s", dev, len);
	} else {
		/* Open MPI through UCX on that port, its RDMA transports (no shared memory) */
		put(e, "OMPI_MCA_pml", "%.*s", "ucx", 3);
		put(e, "UCX_NET_DEVICES", "%.*s", dev, len);
		put(e, "UCX_TLS", "%.*s", "self,rc,ud", 10);
		/* NCCL: its IB/RoCE transport on that port exactly */
		put(e, "NCCL_NET", "%.*s", "IB", 2);
		put(e, "NCCL_IB_HCA", "=%.*s", dev, len);
	}
	/* what is measured is the network: no NVLink, PCIe peer, shared-memory, NVLS or CollNet
	 * shortcut between GPUs */
	put(e, "NCCL_P2P_DISABLE", "%.*s", "1", 1);
	put(e, "NCCL_SHM_DISABLE", "%.*s", "1", 1);
	put(e, "NCCL_NVLS_ENABLE", "%.*s", "0", 1);
	put(e, "NCCL_COLLNET_ENABLE", "%.*s", "0", 1);
}

/* s holds only a name's characters: safe between single quotes and in a case pattern */
static int script_safe(const char *s)
{
	return s[0] && !s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:,=+-")];
}

/* one path's case into f, under name: 1 written, 0 left out */
static int script_case(FILE *f, const char *name, const char *path)
{
	struct coll_path_set e;
	int safe = script_safe(name) && script_safe(path);

	coll_path_env(path, &e);
	for (int i = 0; i < e.n; i++)
		safe = safe && script_safe(e.v[i].value);
	if (!e.n || !safe) {
		if (e.n)
			fprintf(f, "# a path left out: a character outside a name's\n");
		return 0;
	}
	fprintf(f, "'%s')\n", name);
	for (int i = 0; i < e.n; i++)
		fprintf(f, "\techo \"export %s='%s'\"\n", e.v[i].name, e.v[i].value);
	fprintf(f, "\t;;\n");
	return 1;
}

int coll_path_env_script(FILE *f, const char *how, const char *const *paths, int n, const char *rails)
{
	int k = 0;

	fprintf(f, "#!/bin/sh\n# %s\n", how);
	fputs("# The environment that points Open MPI, UCX and NCCL at one path this run measured, as\n"
	      "# `fabprobe coll --path PATH` sets it; 'rails': every rail at once, in rail order (each\n"
	      "# GPU's own NIC first where the inventory gave the rails). Written, never applied:\n"
	      "#   eval \"$(sh path-env.sh tcp:eth1)\"; mpirun -x NCCL_SOCKET_IFNAME ... (or srun's\n"
	      "# --export). A RoCE port's GID index is each node's own: not set (NCCL and UCX find it).\n"
	      "case ${1:-} in\n", f);
	for (int i = 0; i < n; i++)
		k += script_case(f, paths[i], paths[i]);
	if (rails)
		k += script_case(f, "rails", rails);
	fputs("*)\n\techo 'usage: sh path-env.sh PATH (a case above)' >&2\n\texit 2\n\t;;\nesac\n", f);
	return k;
}

void coll_path_gid(const char *root, const char *path, struct coll_path_set *e)
{
	char port[COLL_PATH_PORTS_MAX][COLL_PATH_MAX], dev[64], v[16];
	int idx = -1, n;

	if (!path || strncmp(path, "verbs:", 6))
		return;
	n = coll_path_ports(path, port, COLL_PATH_PORTS_MAX);
	for (int i = 0; i < n; i++) {
		int k, pn;

		if (inv_verbs_arg(port[i] + 6, dev, sizeof dev, &pn))
			return;
		/* RoCE: the RoCE v2 GID the verbs transport and perftest use; InfiniBand has none */
		if ((k = inv_gid_choose(root, dev, pn, NULL)) < 0 || (i && k != idx)) {
			if (i && k != idx)
				LOG_WARN("--path %s: the ports' RoCE v2 GID indices differ (%d, %d): the libraries' own", path,
					 idx, k);
			return; /* one index serves every port, or none is set */
		}
		idx = k;
	}
	int len = snprintf(v, sizeof v, "%d", idx);

	put(e, "UCX_IB_GID_INDEX", "%.*s", v, len);
	put(e, "NCCL_IB_GID_INDEX", "%.*s", v, len);
}

int coll_path_apply(void *opts)
{
	struct coll_opts *o = opts;
	const struct coll_backend *be = o->backend ? coll_backend_find(o->backend) : NULL;

	/* fabprobe's ring alone takes the path through its own transport: the libraries, which
	 * carry only its control messages then, keep their own choice */
	coll_path_env(be && be->per_path ? NULL : o->path, &o->env);
	if (!(be && be->per_path))
		coll_path_gid("/sys", o->path, &o->env);
	for (int i = 0; i < o->env.n; i++) {
		const char *was = getenv(o->env.v[i].name);

		snprintf(o->env.v[i].was, sizeof o->env.v[i].was, "%s", was ? was : "");
		o->env.v[i].had = was != NULL;
		if (setenv(o->env.v[i].name, o->env.v[i].value, 1))
			return FP_ERUNTIME;
	}
	return 0;
}

void coll_path_readback(struct coll_path_set *e)
{
	const char *names[COLL_ENV_MAX] = { 0 };
	int known[COLL_ENV_MAX], n = 0, at[COLL_ENV_MAX];
	char lib[COLL_ENV_MAX][COLL_ENV_VALUE_MAX];

	for (int k = 0; k < e->n; k++)
		if (!strncmp(e->v[k].name, "OMPI_MCA_", 9)) {
			at[n] = k;
			names[n++] = e->v[k].name + 9;
		}
	mpi_cvars_read(names, n, lib[0], sizeof lib[0], known);
	for (int i = 0; i < n; i++)
		if (known[i]) {
			snprintf(e->v[at[i]].lib, sizeof e->v[at[i]].lib, "%s", lib[i]);
			e->v[at[i]].lib_known = 1;
		}
}
