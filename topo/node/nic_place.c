/* nic_place.c — see nic_place.h. */
#include "nic_place.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inv_probe.h"

int cpulist_parse(const char *s, cpu_set_t *out)
{
	CPU_ZERO(out);
	while (*s == ' ' || *s == '\t')
		s++;
	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s || a < 0 || a >= CPU_SETSIZE || *s == '-' || *s == '+')
			break;
		s = end;
		if (*s == '-') {
			const char *q = s + 1;

			b = strtol(q, &end, 10);
			if (end == q || *q == '-' || *q == '+' || b < a || b >= CPU_SETSIZE)
				break;
			s = end;
		}
		for (long c = a; c <= b; c++)
			CPU_SET((int)c, out);
		if (*s == ',') {
			s++;
			continue;
		}
		while (*s == ' ' || *s == '\t')
			s++;
		break; /* a list ends after a number, or it is no list */
	}
	if (*s && *s != '\n') {
		CPU_ZERO(out);
		return -1;
	}
	return 0;
}

void cpulist_format(const cpu_set_t *s, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = 0;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		int e = c;
		char run[32];

		if (!CPU_ISSET(c, s))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, s))
			e++;
		snprintf(run, sizeof run, e > c ? "%s%d-%d" : "%s%d", k ? "," : "", c, e);
		if (k + strlen(run) + 4 > len) {
			snprintf(buf + k, len - k, "%s", len - k > 3 ? "..." : "");
			return;
		}
		k += (size_t)snprintf(buf + k, len - k, "%s", run);
		c = e;
	}
}

const char *nic_place_status_name(int status)
{
	static const char *const n[PLACE_NSTATUS] = { "", "nic_node", "off_node", "unknown" };

	return status >= 0 && status < PLACE_NSTATUS ? n[status] : "";
}

/* the sysfs directory of path's port under root ("class/net/eth3"), or 0 when path has none */
static int port_dir(const char *path, char *out, size_t len)
{
	const char *arg = strchr(path, ':') ? strchr(path, ':') + 1 : NULL;
	char dev[64];
	int port;

	if (!arg || !*arg || strchr(arg, '/') || !strcmp(arg, ".") || !strcmp(arg, ".."))
		return 0;
	if (!strncmp(path, "tcp:", 4))
		return snprintf(out, len, "class/net/%s", arg) < (int)len;
	if (strncmp(path, "verbs:", 6) || inv_verbs_arg(arg, dev, sizeof dev, &port))
		return 0;
	return snprintf(out, len, "class/infiniband/%s", dev) < (int)len;
}

void nic_place_find(const char *root, const char *path, const cpu_set_t *allowed, struct nic_place *p)
{
	char dir[320], buf[4096];
	cpu_set_t on;

	memset(p, 0, sizeof *p);
	p->numa = -1;
	p->use = *allowed;
	if (!port_dir(path, dir, sizeof dir))
		return;
	p->status = PLACE_UNKNOWN;
	if (!inv_sysfs_exists(root, dir) || inv_sysfs_read(root, buf, sizeof buf, "%s/device/numa_node", dir))
		return; /* no such port, or a virtual one: no device */
	p->numa = atoi(buf);
	if (p->numa < 0 || p->numa > 4095) {
		p->numa = -1;
		return;
	}
	if ((inv_sysfs_read(root, buf, sizeof buf, "%s/device/local_cpulist", dir) &&
	     inv_sysfs_read(root, buf, sizeof buf, "devices/system/node/node%d/cpulist", p->numa)) ||
	    cpulist_parse(buf, &p->local) || !CPU_COUNT(&p->local)) {
		CPU_ZERO(&p->local);
		return;
	}
	CPU_AND(&on, allowed, &p->local);
	p->status = CPU_COUNT(&on) ? PLACE_NIC_NODE : PLACE_OFF_NODE;
	if (CPU_COUNT(&on))
		p->use = on;
}
