// SPDX-License-Identifier: GPL-2.0-only
/* Background re-resolution of a policy's hostnames: a thread resolves them
 * when their TTL runs out (and at least every max seconds) and wakes the
 * event loop through a pipe; the loop takes the answers and applies them. */
#ifndef AGENTCAGE_DNSREFRESH_H
#define AGENTCAGE_DNSREFRESH_H
#include <pthread.h>
#include "policy/netpolicy.h"

struct dns_refresh {
	pthread_t thread;
	pthread_mutex_t mu;
	int running;
	int wake[2];        /* thread -> loop: answers ready */
	int stop[2];        /* loop -> thread: stop */
	struct net_hosts work;   /* the thread's copy: names and latest answers */
	int ready;
	unsigned max;       /* seconds */
};

/* Start refreshing the names in hs (nothing to do without names). */
int dns_refresh_start(struct dns_refresh *d, const struct net_hosts *hs, unsigned max);
/* The fd to poll, or -1 when not running. */
int dns_refresh_fd(const struct dns_refresh *d);
/* After the fd is readable: merge the answers into hs; 1 if an address is new. */
int dns_refresh_take(struct dns_refresh *d, struct net_hosts *hs);
void dns_refresh_stop(struct dns_refresh *d);
#endif
