// SPDX-License-Identifier: GPL-2.0-only
/* Hostnames in a daemon cage's network rules are re-resolved in the
 * background, as a standalone run's are (lib/policy/dnsrefresh.c): one
 * resolver thread for each cage whose policy names hosts, started when its
 * policy is installed or swapped, its wake-up descriptor in the daemon's
 * loop; a new address becomes network rules in one transaction
 * (cage_swap_net), and a failure keeps the rules in force. */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include "../cli/diag.h"
#include "daemon.h"

void cage_dns_stop(struct daemon *d, struct dcage *c)
{
	if (!c->dns_on)
		return;
	if (dns_refresh_fd(&c->dns) >= 0)
		epoll_ctl(d->ep, EPOLL_CTL_DEL, dns_refresh_fd(&c->dns), NULL);
	dns_refresh_stop(&c->dns);
	c->dns_on = 0;
}

void cage_dns_start(struct daemon *d, struct dcage *c)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &c->dns };

	cage_dns_stop(d, c);
	if (dns_refresh_start(&c->dns, &c->cage.policy.hosts, d->dns_max)) {
		diag_warn("cage %s: cannot start re-resolving its hostnames: %s; their addresses "
			  "stay those of its last install", c->name, strerror(errno));
		return;
	}
	c->dns_on = 1;
	if (dns_refresh_fd(&c->dns) >= 0)
		epoll_ctl(d->ep, EPOLL_CTL_ADD, dns_refresh_fd(&c->dns), &ev);
}

struct dcage *cage_dns_of(struct daemon *d, void *tag)
{
	for (size_t i = 0; i < d->ncages; i++)
		if (tag == &d->cages[i]->dns)
			return d->cages[i];
	return NULL;
}

void cage_dns_ready(struct daemon *d, struct dcage *c)
{
	struct ac_error e;
	int r;

	if (!dns_refresh_take(&c->dns, &c->cage.policy.hosts))
		return;
	r = cage_swap_net(&c->cage, &e);
	state_save_ids(d);     /* the ids it took, whatever came of them */
	if (r) {
		diag_error_code(e.code, "cage %s: hostname refresh: keeping its network rules: %s",
				c->name, e.msg);
		return;
	}
	diag_info("cage %s: hostnames re-resolved: %zu network trie entries", c->name,
		  c->cage.policy.ns.n);
}
