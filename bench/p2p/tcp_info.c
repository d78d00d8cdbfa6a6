/* tcp_info.c — see tcp_info.h. */
#include "tcp_info.h"

#include <ifaddrs.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* /sys/class/net/<if>/type values (ARPHRD_*) */
#define TYPE_ETHER 1
#define TYPE_INFINIBAND 32
#define TYPE_LOOPBACK 772

int tcp_if_ipv4(const char *dev, uint32_t *ip)
{
	struct ifaddrs *all, *a;
	int rc = -1;

	if (getifaddrs(&all))
		return -1;
	for (a = all; a; a = a->ifa_next)
		if (a->ifa_addr && a->ifa_addr->sa_family == AF_INET && !strcmp(a->ifa_name, dev)) {
			*ip = ((struct sockaddr_in *)a->ifa_addr)->sin_addr.s_addr;
			rc = 0;
			break;
		}
	freeifaddrs(all);
	return rc;
}

static long read_long(const char *root, const char *dev, const char *attr, int *ok)
{
	char path[512], buf[64];
	FILE *f;
	char *end;
	long v = 0;

	snprintf(path, sizeof path, "%s/sys/class/net/%s/%s", root ? root : "", dev, attr);
	*ok = 0;
	if (!(f = fopen(path, "r")))
		return 0;
	if (fgets(buf, sizeof buf, f)) {
		v = strtol(buf, &end, 10);
		*ok = end != buf && (*end == '\n' || *end == 0);
	}
	fclose(f);
	return *ok ? v : 0;
}

void tcp_if_describe(const char *root, const char *dev, char *kind, size_t klen, double *rate_gbps)
{
	int ok;
	long type = read_long(root, dev, "type", &ok), speed;

	snprintf(kind, klen, "%s", !ok ? "" : type == TYPE_ETHER ? "ethernet" : type == TYPE_INFINIBAND ? "ipoib"
				    : type == TYPE_LOOPBACK ? "loopback" : "other");
	speed = read_long(root, dev, "speed", &ok); /* Mb/s; -1 when the driver does not know */
	*rate_gbps = ok && speed > 0 ? speed / 1000.0 : NAN;
}
