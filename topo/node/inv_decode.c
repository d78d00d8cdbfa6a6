/* inv_decode.c — pure decoding of what sysfs reports (rate and state strings, locality class
 * names), and the small helpers that every probe uses to fill a struct inv_node. The link
 * kinds, verbs rate codes and GIDs are in inv_link.c. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "inv_probe.h"

const char *inv_class_name(int cls)
{
	static const char *const names[] = { "PIX", "PXB", "PHB", "NODE", "SYS", "" };

	return cls >= 0 && cls <= INV_CLASS_UNKNOWN ? names[cls] : "";
}

int inv_rate_parse(const char *s, double *gbps, int *lanes, char *speed, int speed_len)
{
	char *end;
	double v = strtod(s, &end);
	int n = 0, used = 0;
	char name[16] = "";

	if (end == s || !(v >= 0) || strncmp(end, " Gb/sec", 7))
		return FP_EUSAGE;
	*gbps = v;
	*lanes = -1;
	if (speed_len > 0)
		speed[0] = 0;
	end += 7;
	while (*end == ' ')
		end++;
	if (!*end)
		return 0; /* some drivers write only the figure */
	if (sscanf(end, "(%dX %15[^)])%n", &n, name, &used) < 2 || used == 0 || n <= 0)
		return FP_EUSAGE;
	*lanes = n;
	if (speed_len > 0)
		snprintf(speed, (size_t)speed_len, "%s", name);
	return 0;
}

int inv_state_parse(const char *s, char *out, int len)
{
	const char *p = strchr(s, ':');
	int i = 0;

	if (!p || !isdigit((unsigned char)s[0]))
		return FP_EUSAGE;
	for (p++; *p == ' '; p++)
		;
	if (!*p)
		return FP_EUSAGE;
	for (; *p && i < len - 1; p++)
		out[i++] = (char)tolower((unsigned char)*p);
	out[i] = 0;
	return 0;
}

/* ------------------------------------------------------------------ node helpers */

void inv_node_init(struct inv_node *node)
{
	memset(node, 0, sizeof *node);
	node->sockets = node->cores = node->threads = node->numa_nodes = -1;
	node->mem_bytes = node->numa_mem_bytes = -1;
}

void inv_copy(char *dst, const char *src, size_t len)
{
	size_t n = src ? strnlen(src, len - 1) : 0;

	memcpy(dst, src ? src : "", n);
	dst[n] = 0;
}

void inv_note(struct inv_node *node, const char *fmt, ...)
{
	va_list ap;

	if (node->nnotes >= INV_NOTES_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(node->notes[node->nnotes++], INV_NOTE_MAX, fmt, ap);
	va_end(ap);
}

struct inv_nic *inv_nic_get(struct inv_node *node, const char *device, int port, const char *netdev)
{
	struct inv_nic *n;

	for (int i = 0; i < node->nnics; i++) {
		n = &node->nics[i];
		if (device && *device ? !strcmp(n->device, device) && n->port == port
				      : !n->device[0] && !strcmp(n->netdev, netdev))
			return n;
	}
	if (node->nnics >= INV_NICS_MAX)
		return NULL;
	n = &node->nics[node->nnics++];
	memset(n, 0, sizeof *n);
	snprintf(n->device, sizeof n->device, "%s", device ? device : "");
	n->port = device && *device ? port : -1;
	snprintf(n->netdev, sizeof n->netdev, "%s", netdev ? netdev : "");
	n->rate_gbps = NAN;
	n->width = n->mtu = n->numa = n->ipv4_prefix = n->gid_index = -1;
	return n;
}

/* ------------------------------------------------------------------ plausible ranges */

/* A value outside [lo, hi] (unknown excepted) becomes unknown, said once per value. */
static void range_int(struct inv_node *node, const char *what, const char *name, int32_t *v, int32_t lo,
		      int32_t hi)
{
	if (*v == -1 || (*v >= lo && *v <= hi))
		return;
	LOG_WARN("%s: %s %s = %d is outside %d..%d: left empty", node->host, what, name, *v, lo, hi);
	inv_note(node, "%s %s = %d is outside %d..%d: left empty", what, name, *v, lo, hi);
	*v = -1;
}

void inv_node_check_ranges(struct inv_node *node)
{
	for (int i = 0; i < node->nnics && i < INV_NICS_MAX; i++) {
		struct inv_nic *n = &node->nics[i];
		char label[2 * INV_NAME_MAX + 16];

		snprintf(label, sizeof label, "%s%s%s", n->device, n->device[0] && n->netdev[0] ? "/" : "", n->netdev);
		/* 10 Tb/s is beyond any port made; 0 is "unknown" written as a number */
		if (!isnan(n->rate_gbps) && !(n->rate_gbps > 0 && n->rate_gbps <= 10000)) {
			LOG_WARN("%s: NIC %s rate %g Gb/s is outside (0, 10000]: left empty", node->host, label,
				 n->rate_gbps);
			inv_note(node, "NIC %s rate %g Gb/s is outside (0, 10000]: left empty", label, n->rate_gbps);
			n->rate_gbps = NAN;
		}
		range_int(node, "NIC", "mtu", &n->mtu, 68, 65536); /* IPv4's minimum, loopback's maximum */
		range_int(node, "NIC", "width", &n->width, 1, 32);
		range_int(node, "NIC", "numa_node", &n->numa, 0, 4095);
		range_int(node, "NIC", "gid_index", &n->gid_index, 0, 65535);
	}
	for (int i = 0; i < node->ngpus && i < INV_GPUS_MAX; i++)
		range_int(node, "GPU", "numa_node", &node->gpus[i].numa, 0, 4095);
	range_int(node, "node", "sockets", &node->sockets, 1, 1 << 16);
	range_int(node, "node", "cores", &node->cores, 1, 1 << 22);
	range_int(node, "node", "threads", &node->threads, 1, 1 << 22);
	range_int(node, "node", "numa_nodes", &node->numa_nodes, 1, 4096);
	if (node->mem_bytes < -1 || node->mem_bytes > (1LL << 60))
		node->mem_bytes = -1;
	if (node->numa_mem_bytes < -1 || node->numa_mem_bytes > (1LL << 60))
		node->numa_mem_bytes = -1;
}
