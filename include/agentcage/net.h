/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Network policy types shared by the BPF programs and userspace. */
#ifndef AGENTCAGE_NET_H
#define AGENTCAGE_NET_H
#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "agentcage/cage.h"   /* AC_INLINE */

/* Addresses live in one 128-bit space: IPv6 as is, IPv4 as the mapped
 * address ::ffff:a.b.c.d, so an IPv4 /n prefix is /(96+n) here. */

#define AC_NET_RULES 32   /* port rules an address prefix carries, covering prefixes' included */

/* protocol bits of a port rule */
#define AC_P_TCP 0x01
#define AC_P_UDP 0x02
#define AC_P_OTHER 0x80   /* ICMP and every protocol without ports */
#define AC_P_ANY 0xff

/* IPv4-compatible ::a.b.c.d (not :: or ::1) is matched as the IPv4 address
 * it carries: it becomes ::ffff:a.b.c.d. */
AC_INLINE void ac_addr_normalize(__u8 a[16])
{
	__u32 w[3];

	__builtin_memcpy(w, a, sizeof(w));
	if (!(w[0] | w[1] | w[2]) && (a[12] | a[13] | a[14] | (a[15] > 1))) {
		a[10] = 0xff;
		a[11] = 0xff;
	}
}

enum ac_net_verdict { AC_NET_NOMATCH = 0, AC_NET_ALLOW = 1, AC_NET_DENY = 2 };

/* One rule of a prefix: ports lo..hi of the protocols in `protos`. */
struct ac_port_rule {
	__u16 lo;
	__u16 hi;
	__u8 protos;
	__u8 verdict;     /* enum ac_net_verdict */
	__u8 plen;        /* prefix length of the policy entry it came from */
	__u8 pad;
};

/* net_rules trie key: prefix length in bits (32 + address bits), policy id, address */
struct ac_net_key {
	__u32 prefixlen;
	__u32 policy;
	__u8 addr[16];
};

/* The rules that apply to every address under a prefix, most specific
 * first (longer prefix first, deny before allow on equal length): the
 * first rule matching protocol and port decides; no match denies. */
struct ac_net_val {
	__u32 n;
	__u32 pad;
	struct ac_port_rule r[AC_NET_RULES];
};

_Static_assert(sizeof(struct ac_port_rule) == 8, "struct ac_port_rule");
_Static_assert(sizeof(struct ac_net_key) == 24, "struct ac_net_key");
_Static_assert(sizeof(struct ac_net_val) == 8 + 8 * AC_NET_RULES, "struct ac_net_val");
#endif
