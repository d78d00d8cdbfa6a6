/* inv_sysfs.c — the sysfs probe: CPUs, NUMA nodes and netdevs from sysfs (the infiniband
 * class is in inv_sysfs_ib.c), addresses from getifaddrs. Every path goes under the root
 * given in struct inv_probe_ctx ("/sys" on a live node; a captured tree in tests). With a
 * root other than "/sys" nothing of the running machine is read, except uname: addresses
 * then come from "<root>/fabprobe-ipv4" (lines "eth0 10.0.0.1/24"; a fixture file, not a
 * kernel one). */
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/log.h"
#include "core/natsort.h"
#include "inv_probe.h"

/* ------------------------------------------------------------------ access under a root */

/* open "<root>/<rel>" read-only, never blocking, only a regular file: a fd or -errno */
static int open_regular(const char *root, const char *rel, off_t *size)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	if ((unsigned)snprintf(path, sizeof path, "%s/%s", root, rel) >= sizeof path)
		return -ENAMETOOLONG;
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)) < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	*size = st.st_size;
	return fd;
}

int inv_sysfs_read(const char *root, char *buf, int len, const char *fmt, ...)
{
	char rel[PATH_MAX];
	va_list ap;
	ssize_t n = 0, got;
	off_t size;
	int fd;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof rel, fmt, ap);
	va_end(ap);
	buf[0] = 0;
	if ((fd = open_regular(root, rel, &size)) < 0)
		return fd;
	while (n < len - 1 && (got = read(fd, buf + n, (size_t)(len - 1 - n))) != 0) {
		if (got < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			close(fd);
			buf[0] = 0;
			return -e;
		}
		n += got;
	}
	close(fd);
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

FILE *inv_sysfs_fopen(const char *root, const char *rel)
{
	off_t size;
	int fd = open_regular(root, rel, &size);
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	if (size > INV_FILE_MAX || fcntl(fd, F_SETFL, 0) || !(f = fdopen(fd, "r"))) {
		close(fd);
		errno = EFBIG;
		return NULL;
	}
	return f;
}

int inv_sysfs_exists(const char *root, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof path, "%s/%s", root, rel);
	return access(path, F_OK) == 0;
}

static int name_cmp(const void *a, const void *b)
{
	return natsort_cmp(a, b);
}

int inv_sysfs_list(const char *root, const char *rel, char (*names)[INV_NAME_MAX], int max)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	if (!(d = opendir(path)))
		return -errno;
	while ((e = readdir(d)) && n < max)
		if (e->d_name[0] != '.' && strlen(e->d_name) < INV_NAME_MAX)
			strcpy(names[n++], e->d_name);
	closedir(d);
	qsort(names, (size_t)n, sizeof *names, name_cmp);
	return n;
}

static int looks_pci(const char *s)
{
	unsigned a, b, c, d;
	int used = 0;

	return sscanf(s, "%4x:%2x:%2x.%1x%n", &a, &b, &c, &d, &used) == 4 && used == 12 && !s[used];
}

int inv_sysfs_pci(const char *root, const char *rel, char *out, int len)
{
	char path[PATH_MAX], real[PATH_MAX], *p;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	if (!realpath(path, real))
		return 1;
	/* the device may sit below its PCI function (virtio2 under 0000:00:03.0) */
	while ((p = strrchr(real, '/'))) {
		if (looks_pci(p + 1)) {
			snprintf(out, (size_t)len, "%s", p + 1);
			return 0;
		}
		*p = 0;
	}
	return 1;
}

void inv_sysfs_bad(struct inv_node *node, const char *root, const char *rel, const char *why)
{
	LOG_WARN("%s/%s: %s", root, rel, why);
	inv_note(node, "%s/%s: %s", root, rel, why);
}

/* ------------------------------------------------------------------ CPUs and memory */

static int is_indexed(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	return !strncmp(name, prefix, n) && name[n] >= '0' && name[n] <= '9';
}

static int pair_add(int (*set)[2], int *n, int max, int a, int b)
{
	for (int k = 0; k < *n; k++)
		if (set[k][0] == a && set[k][1] == b)
			return 0;
	if (*n < max)
		set[*n][0] = a, set[*n][1] = b, (*n)++;
	return 1;
}

/* threads = cpuN directories; cores = distinct (package, core_id); sockets = packages */
static void scan_cpus(const char *root, struct inv_node *node)
{
	enum { MAXCPU = 4096 };
	char (*names)[INV_NAME_MAX] = malloc(MAXCPU * sizeof *names);
	int (*cores)[2] = malloc(MAXCPU * sizeof *cores), (*pkgs)[2] = malloc(MAXCPU * sizeof *pkgs);
	int n = names ? inv_sysfs_list(root, "devices/system/cpu", names, MAXCPU) : -1;
	int ncore = 0, npkg = 0, threads = 0;
	char buf[64];

	for (int i = 0; cores && pkgs && i < n; i++) {
		int pkg = -1, core = -1;

		if (!is_indexed(names[i], "cpu"))
			continue;
		threads++;
		if (!inv_sysfs_read(root, buf, sizeof buf, "devices/system/cpu/%s/topology/physical_package_id", names[i]))
			pkg = atoi(buf);
		if (!inv_sysfs_read(root, buf, sizeof buf, "devices/system/cpu/%s/topology/core_id", names[i]))
			core = atoi(buf);
		pair_add(cores, &ncore, MAXCPU, pkg, core);
		pair_add(pkgs, &npkg, MAXCPU, pkg, 0);
	}
	if (threads > 0)
		node->threads = threads, node->cores = ncore, node->sockets = npkg;
	free(names);
	free(cores);
	free(pkgs);
}

static void scan_numa(const char *root, struct inv_node *node)
{
	char names[INV_DIR_MAX][INV_NAME_MAX], buf[128];
	int n = inv_sysfs_list(root, "devices/system/node", names, INV_DIR_MAX), count = 0;
	int64_t mem = 0;

	for (int i = 0; i < n; i++) {
		long long kb;

		if (!is_indexed(names[i], "node"))
			continue;
		count++;
		if (inv_sysfs_read(root, buf, sizeof buf, "devices/system/node/%s/meminfo", names[i]) ||
		    sscanf(buf, "Node %*d MemTotal: %lld kB", &kb) != 1 || kb < 0 || kb > INT64_MAX / 1024 / INV_DIR_MAX) {
			char rel[96];

			snprintf(rel, sizeof rel, "devices/system/node/%.32s/meminfo", names[i]);
			inv_sysfs_bad(node, root, rel, "unreadable, malformed or out of range (expected 'Node N MemTotal: K kB')");
			mem = -1;
		} else if (mem >= 0) {
			mem += kb * 1024;
		}
	}
	if (count > 0)
		node->numa_nodes = count, node->numa_mem_bytes = mem;
}

/* The running OS's own view: only when probing the live machine. */
static void scan_proc(struct inv_node *node)
{
	char line[256];
	long long kb;
	FILE *f;

	if ((f = fopen("/proc/meminfo", "r"))) {
		while (fgets(line, sizeof line, f))
			if (sscanf(line, "MemTotal: %lld kB", &kb) == 1)
				node->mem_bytes = kb * 1024;
		fclose(f);
	}
	if ((f = fopen("/proc/cpuinfo", "r"))) {
		while (!node->cpu_model[0] && fgets(line, sizeof line, f))
			if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
				line[strcspn(line, "\n")] = 0;
				snprintf(node->cpu_model, sizeof node->cpu_model, "%s", strchr(line, ':') + 2);
			}
		fclose(f);
	}
}

/* ------------------------------------------------------------------ netdevs */

/* One /sys/class/net entry (inv_netdev_read). A netdev without a "device" link is virtual
 * (lo, veth, bridges, docker0, ifb): listed, never tested unless asked. */
static void scan_netdev(const char *root, const char *name, struct inv_node *node)
{
	struct inv_nic *n = inv_nic_get(node, NULL, -1, name);
	struct inv_netdev nd;
	char buf[128], rel[96];

	if (!n)
		return;
	inv_netdev_read(root, name, &nd);
	n->kind = nd.kind;
	n->is_virtual = nd.is_virtual;
	inv_copy(n->state, nd.operstate, sizeof n->state);
	inv_copy(n->netdev_state, nd.operstate, sizeof n->netdev_state);
	n->mtu = nd.mtu;
	inv_copy(n->guid_or_mac, nd.address, sizeof n->guid_or_mac);
	n->rate_gbps = nd.rate_gbps;
	if (nd.bad & INV_NETDEV_BAD_OPERSTATE) {
		snprintf(rel, sizeof rel, "class/net/%.32s/operstate", name);
		inv_sysfs_bad(node, root, rel, "unreadable");
	}
	if (nd.bad & INV_NETDEV_BAD_SPEED) {
		snprintf(rel, sizeof rel, "class/net/%.32s/speed", name);
		inv_sysfs_bad(node, root, rel, "malformed (expected Mb/s, or -1)");
	}
	if (n->is_virtual)
		return;
	snprintf(rel, sizeof rel, "class/net/%.32s/device", name);
	if (inv_sysfs_pci(root, rel, n->pci, sizeof n->pci))
		n->pci[0] = 0; /* not a PCI device (platform NIC): no locality */
	if (!inv_sysfs_read(root, buf, sizeof buf, "class/net/%s/device/numa_node", name) ||
	    (n->pci[0] && !inv_sysfs_read(root, buf, sizeof buf, "bus/pci/devices/%s/numa_node", n->pci)))
		n->numa = atoi(buf) >= 0 ? atoi(buf) : -1;
}

static void scan_net(const char *root, struct inv_node *node)
{
	char names[INV_DIR_MAX][INV_NAME_MAX];
	int n = inv_sysfs_list(root, "class/net", names, INV_DIR_MAX);

	if (n < 0) {
		inv_sysfs_bad(node, root, "class/net", strerror(-n));
		return;
	}
	for (int i = 0; i < n; i++)
		scan_netdev(root, names[i], node);
}

/* ------------------------------------------------------------------ IPv4 addresses */

static void ipv4_set(struct inv_node *node, const char *netdev, const char *addr, int prefix)
{
	for (int i = 0; i < node->nnics; i++) {
		struct inv_nic *n = &node->nics[i];

		if (!strcmp(n->netdev, netdev) && !n->ipv4[0]) {
			snprintf(n->ipv4, sizeof n->ipv4, "%s", addr);
			n->ipv4_prefix = prefix;
		}
	}
}

static void ipv4_live(struct inv_node *node)
{
	struct ifaddrs *ifa, *p;
	char addr[INET_ADDRSTRLEN];

	if (getifaddrs(&ifa)) {
		LOG_WARN("getifaddrs: %s", strerror(errno));
		return;
	}
	for (p = ifa; p; p = p->ifa_next) {
		int prefix = 0;
		uint32_t m;

		if (!p->ifa_addr || p->ifa_addr->sa_family != AF_INET)
			continue;
		inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)p->ifa_addr)->sin_addr, addr, sizeof addr);
		m = p->ifa_netmask ? ntohl(((struct sockaddr_in *)(void *)p->ifa_netmask)->sin_addr.s_addr) : 0;
		for (; m & 0x80000000u; m <<= 1)
			prefix++;
		ipv4_set(node, p->ifa_name, addr, prefix);
	}
	freeifaddrs(ifa);
}

static void ipv4_fixture(const char *root, struct inv_node *node)
{
	char line[256], dev[64], addr[32];
	int prefix, lineno = 0;
	FILE *f;

	if (!(f = inv_sysfs_fopen(root, "fabprobe-ipv4"))) {
		if (errno != ENOENT)
			inv_sysfs_bad(node, root, "fabprobe-ipv4", errno == EINVAL ? "not a regular file" : strerror(errno));
		return; /* a fixture without addresses */
	}
	while (fgets(line, sizeof line, f)) {
		struct in_addr a;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%63s %31[0-9.]/%d", dev, addr, &prefix) != 3 || prefix < 0 ||
		    prefix > 32 || inet_pton(AF_INET, addr, &a) != 1) {
			char rel[48];

			snprintf(rel, sizeof rel, "fabprobe-ipv4 line %d", lineno);
			inv_sysfs_bad(node, root, rel, "expected '<netdev> <a.b.c.d>/<prefix>'");
			continue;
		}
		ipv4_set(node, dev, addr, prefix);
	}
	fclose(f);
}

/* ------------------------------------------------------------------ the probe */

static int sysfs_probe(const struct inv_probe_ctx *ctx, struct inv_node *node, char *why, int whylen)
{
	const char *root = ctx->sysfs_root ? ctx->sysfs_root : "/sys";
	int live = !strcmp(root, "/sys");
	struct utsname u;

	if (!inv_sysfs_exists(root, ".")) {
		snprintf(why, (size_t)whylen, "%s: %s", root, strerror(errno));
		LOG_ERROR("sysfs root %s", why);
		return FP_EUSAGE;
	}
	if (!uname(&u))
		snprintf(node->kernel, sizeof node->kernel, "%s", u.release);
	if (!node->host[0])
		gethostname(node->host, sizeof node->host - 1);
	scan_cpus(root, node);
	scan_numa(root, node);
	if (live)
		scan_proc(node);
	scan_net(root, node);
	inv_sysfs_scan_ib(root, node);
	if (live)
		ipv4_live(node);
	else
		ipv4_fixture(root, node);
	return 0;
}

const struct inv_probe_ops inv_probe_sysfs = {
	.name = "sysfs",
	.probe = sysfs_probe,
};
