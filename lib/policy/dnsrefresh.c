// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "policy/dnsrefresh.h"

static void *loop(void *arg)
{
	struct dns_refresh *d = arg;

	for (;;) {
		unsigned wait;
		struct pollfd p = { .fd = d->stop[0], .events = POLLIN };
		struct net_host fresh;

		pthread_mutex_lock(&d->mu);
		wait = net_hosts_interval(&d->work, d->max);
		pthread_mutex_unlock(&d->mu);
		if (poll(&p, 1, (int)wait * 1000) != 0)
			return NULL;             /* stop requested (or poll failed) */
		for (size_t i = 0; i < d->work.n; i++) {
			memset(&fresh, 0, sizeof(fresh));
			memcpy(fresh.name, d->work.h[i].name, sizeof(fresh.name));
			net_host_resolve(&fresh);
			pthread_mutex_lock(&d->mu);
			d->work.h[i] = fresh;
			pthread_mutex_unlock(&d->mu);
		}
		pthread_mutex_lock(&d->mu);
		d->ready = 1;
		pthread_mutex_unlock(&d->mu);
		if (write(d->wake[1], "r", 1) < 0 && errno != EAGAIN)
			return NULL;
	}
}

int dns_refresh_start(struct dns_refresh *d, const struct net_hosts *hs, unsigned max)
{
	memset(d, 0, sizeof(*d));
	d->wake[0] = d->wake[1] = d->stop[0] = d->stop[1] = -1;
	if (!hs->n)
		return 0;
	d->max = max;
	d->work.h = malloc(hs->n * sizeof(*hs->h));
	if (!d->work.h)
		return -1;
	memcpy(d->work.h, hs->h, hs->n * sizeof(*hs->h));
	d->work.n = hs->n;
	if (pipe2(d->wake, O_CLOEXEC | O_NONBLOCK) || pipe2(d->stop, O_CLOEXEC))
		goto fail;
	pthread_mutex_init(&d->mu, NULL);
	if (pthread_create(&d->thread, NULL, loop, d))
		goto fail;
	d->running = 1;
	return 0;
fail:
	dns_refresh_stop(d);
	return -1;
}

int dns_refresh_fd(const struct dns_refresh *d)
{
	return d->running ? d->wake[0] : -1;
}

int dns_refresh_take(struct dns_refresh *d, struct net_hosts *hs)
{
	char buf[16];
	int added = 0;

	while (read(d->wake[0], buf, sizeof(buf)) > 0)
		;
	pthread_mutex_lock(&d->mu);
	if (d->ready) {
		for (size_t i = 0; i < d->work.n && i < hs->n; i++)
			added |= net_host_merge(&hs->h[i], &d->work.h[i]);
		d->ready = 0;
	}
	pthread_mutex_unlock(&d->mu);
	return added;
}

void dns_refresh_stop(struct dns_refresh *d)
{
	if (d->running) {
		if (write(d->stop[1], "s", 1) == 1)
			pthread_join(d->thread, NULL);
		else
			pthread_cancel(d->thread);
		d->running = 0;
	}
	for (int i = 0; i < 2; i++) {
		if (d->wake[i] >= 0)
			close(d->wake[i]);
		if (d->stop[i] >= 0)
			close(d->stop[i]);
		d->wake[i] = d->stop[i] = -1;
	}
	free(d->work.h);
	d->work.h = NULL;
	d->work.n = 0;
}
