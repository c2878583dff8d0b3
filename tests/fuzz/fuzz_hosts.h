/* SPDX-License-Identifier: GPL-2.0-only */
/* Fuzzers never resolve hostnames: each collected name gets addresses made
 * from its own bytes (none for some, so the unresolved path runs too). */
#ifndef AGENTCAGE_FUZZ_HOSTS_H
#define AGENTCAGE_FUZZ_HOSTS_H
#include <stdio.h>
#include <string.h>
#include "policy/netpolicy.h"

static inline void fuzz_fake_resolve(struct net_host *h)
{
	unsigned hash = 2166136261u;

	for (const char *c = h->name; *c; c++)
		hash = (hash ^ (unsigned char)*c) * 16777619u;
	h->n = hash % 4;                     /* 0..3 addresses */
	h->ttl = hash % 7;
	h->error[0] = 0;
	if (!h->n)
		snprintf(h->error, sizeof(h->error), "not resolved by the fuzzer");
	for (size_t i = 0; i < h->n; i++) {
		uint8_t *a = h->addrs[i];

		memset(a, 0, 16);
		if ((hash >> (8 + i)) & 1) {     /* IPv4 198.18.0.0/15, as ::ffff:a.b.c.d */
			a[10] = a[11] = 0xff;
			a[12] = 198;
			a[13] = 18 | ((hash >> 4) & 1);
			a[14] = (uint8_t)(hash >> 16);
			a[15] = (uint8_t)(i + 1);
		} else {                         /* IPv6 2001:db8::/32 */
			a[0] = 0x20, a[1] = 0x01, a[2] = 0x0d, a[3] = 0xb8;
			memcpy(a + 8, &hash, sizeof(hash));
			a[15] = (uint8_t)(i + 1);
		}
	}
}
#endif
