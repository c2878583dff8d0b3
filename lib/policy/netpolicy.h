// SPDX-License-Identifier: GPL-2.0-only
/* A policy's network section made concrete: hostnames resolved (outside the
 * cage, by agentcage, with the system resolver) and every entry compiled. */
#ifndef AGENTCAGE_NETPOLICY_H
#define AGENTCAGE_NETPOLICY_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "policy/netrules.h"
#include "policy/policy.h"

#define NET_HOST_ADDRS 64      /* addresses remembered per hostname */
#define NET_REFRESH_MAX 300    /* seconds: hostnames are resolved at least this often */

struct net_host {
	char name[256];
	uint8_t addrs[NET_HOST_ADDRS][16];
	size_t n;                  /* addresses learned so far (they stay allowed) */
	uint32_t ttl;              /* seconds the last answer is valid; 0: unknown */
	char error[192];           /* the last failure, "" after a success */
};

struct net_hosts {
	struct net_host *h;
	size_t n;
};

/* Add every hostname p's network entries name to hs (no resolution). */
int net_hosts_collect(struct net_hosts *hs, const struct policy *p);
/* Resolve one hostname: fills addrs/n (replacing them), ttl and error.
 * Returns 0, or -1 with h->error set; never fatal for the cage. */
int net_host_resolve(struct net_host *h);
/* Merge a fresh answer into the learned addresses; returns 1 if one was new. */
int net_host_merge(struct net_host *into, const struct net_host *fresh);
/* Seconds until the next resolution is due: the smallest TTL, at most max. */
unsigned net_hosts_interval(const struct net_hosts *hs, unsigned max);
void net_hosts_free(struct net_hosts *hs);

/* Collect p's hostnames into hs (emptied first), resolve each once (a
 * failure stays in its `error`, for the caller to report), and compile p's
 * network rules into out. On failure hs is freed and err says why. */
int net_policy_load(const struct policy *p, struct net_hosts *hs, struct netset *out,
		    char *err, size_t errlen);
/* Compile p's allow and deny entries, hostnames as hs knows them. */
int net_policy_compile(const struct policy *p, const struct net_hosts *hs, struct netset *out,
		       char *err, size_t errlen);
/* `check` output: every entry, what it resolves to, and the unix peers. */
void net_policy_print(FILE *f, const struct policy *p, const struct net_hosts *hs,
		      const struct netset *ns);
/* The same as a JSON object: {"trie_entries":N,"allow":[...],"deny":[...],"unix":[...]},
 * each entry {"entry":..., "prefix"|"host":..., "ports":[lo,hi]|null, "protocols":...,
 * and for a host "addresses":[...] or "error":...}. */
void net_policy_print_json(FILE *f, const struct policy *p, const struct net_hosts *hs,
			   const struct netset *ns);
#endif
