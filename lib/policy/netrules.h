// SPDX-License-Identifier: GPL-2.0-only
/* Network rules: policy entries parsed, compiled into trie nodes, and the
 * kernel's matching done again in C (for tests and `check`). */
#ifndef AGENTCAGE_NETRULES_H
#define AGENTCAGE_NETRULES_H
#include <stddef.h>
#include <stdint.h>
#include "agentcage/net.h"

/* One `network.allow` / `network.deny` entry as written:
 *   ADDR[/PLEN][:PORT[-PORT]][/tcp|/udp]            IPv4 or hostname
 *   [ADDR6[/PLEN]][:PORT[-PORT]][/tcp|/udp]         IPv6 in brackets
 *   ADDR6[/PLEN][/tcp|/udp]                         IPv6 without brackets: no port
 * No port: every port; no protocol: tcp and udp with a port, every protocol
 * (ICMP included) without one. */
struct netspec {
	char host[256];     /* non-empty: a hostname, resolved later; addr/plen unused */
	uint8_t addr[16];   /* IPv4 as ::ffff:a.b.c.d; IPv4-compatible ::a.b.c.d likewise */
	uint8_t plen;       /* 0..128 in the 128-bit space (IPv4 /n is 96+n) */
	uint16_t lo, hi;    /* port range; 0-65535 when no port is given */
	uint8_t protos;     /* AC_P_* bits */
	uint8_t has_port;
};

/* Parse one entry. On error returns -1 with a one-line reason in err. */
int netspec_parse(const char *s, struct netspec *out, char *err, size_t errlen);

/* One address rule, ready to compile (hostnames already resolved). */
struct net_entry {
	uint8_t addr[16];
	uint8_t plen;
	uint16_t lo, hi;
	uint8_t protos;
	uint8_t verdict;    /* AC_NET_ALLOW or AC_NET_DENY */
};

/* A trie node: one distinct prefix and every rule covering it. */
struct net_node {
	uint8_t addr[16];
	uint8_t plen;
	struct ac_net_val val;
};

struct netset {
	struct net_node *nodes;
	size_t n;
};

/* Build one node per distinct prefix; each holds its own rules and those of
 * every shorter prefix covering it, ordered as struct ac_net_val says.
 * Fails (one line in err, naming the prefix) when a node would need more
 * than AC_NET_RULES rules. */
int net_compile(const struct net_entry *e, size_t n, struct netset *out, char *err, size_t errlen);
void net_free(struct netset *s);

/* The kernel's decision, in C: longest node covering addr, first rule
 * matching proto_bit (one AC_P_* bit) and port. AC_NET_ALLOW or AC_NET_DENY. */
int net_match(const struct netset *s, const uint8_t addr[16], uint8_t proto_bit, uint16_t port);

/* IPv4-compatible ::a.b.c.d (not :: or ::1) becomes ::ffff:a.b.c.d. */
void net_addr_normalize(uint8_t addr[16]);

/* "10.0.0.0/8", "192.0.2.1" (no /32), "2001:db8::/32", "::1" (no /128). */
void net_format_prefix(const uint8_t addr[16], uint8_t plen, char *buf, size_t len);
#endif
