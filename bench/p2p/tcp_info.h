/* tcp_info.h — what the tcp transport needs to know of an interface. */
#ifndef FP_TCP_INFO_H
#define FP_TCP_INFO_H

#include <stddef.h>
#include <stdint.h>

/* The interface's first IPv4 address (network order). 0, or -1 when it has none. */
int tcp_if_ipv4(const char *dev, uint32_t *ip);
/* Kind ("ethernet", "ipoib" for an InfiniBand netdev, "loopback", "other"; "" unreadable) and negotiated rate in Gb/s (NAN when
 * the driver does not say: speed -1 or unreadable), from <root>/sys/class/net/<dev>/{type,speed};
 * root NULL = "". Pure apart from the two reads, so tests point root at fixtures. */
void tcp_if_describe(const char *root, const char *dev, char *kind, size_t klen, double *rate_gbps);

#endif
