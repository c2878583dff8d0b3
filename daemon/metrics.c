// SPDX-License-Identifier: GPL-2.0-only
/* agentcage daemon --metrics ADDR:PORT: a Prometheus text endpoint.
 * Every connection is non-blocking and bounded (METRICS_CONNS at once, a
 * request of at most 4 KiB, answered once its header has come, then
 * closed), so a scraper never stalls the daemon. The counts come from the
 * events the daemon reads (denied or audited decisions by cage, op and
 * action), the kernel's own counters (events lost, dropped-packet events
 * not sent), the scans (reloads by result) and the cages (rules,
 * generation, runs). */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include "daemon.h"
#include "event/event.h"

int metrics_open(struct daemon *d, const char *spec, struct ac_error *e)
{
	char host[256], *colon;
	const char *port;
	struct addrinfo hints = { .ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM }, *ai = NULL;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &d->mfd };
	int one = 1, rc;

	snprintf(host, sizeof(host), "%s", spec);
	if (!(colon = strrchr(host, ':')) || !colon[1])
		return ac_error_set(e, AC_E_USAGE, "--metrics takes ADDR:PORT (127.0.0.1:9464, "
				    "[::1]:9464), not '%s'", spec);
	*colon = 0;
	port = colon + 1;
	if (strspn(port, "0123456789") != strlen(port) || strlen(port) > 5 || !atoi(port) ||
	    atoi(port) > 65535)
		return ac_error_set(e, AC_E_USAGE, "--metrics %s: the port must be 1 to 65535", spec);
	if (host[0] == '[' && colon > host + 1 && colon[-1] == ']') {
		colon[-1] = 0;
		memmove(host, host + 1, strlen(host));
	}
	if ((rc = getaddrinfo(host[0] ? host : NULL, port, &hints, &ai)))
		return ac_error_set(e, AC_E_USAGE, "--metrics %s: %s (give a numeric address and "
				    "port, such as 127.0.0.1:9464)", spec, gai_strerror(rc));
	d->mfd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (d->mfd < 0 || setsockopt(d->mfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(d->mfd, ai->ai_addr, ai->ai_addrlen) || listen(d->mfd, 16)) {
		ac_error_set(e, AC_E_SYSTEM, "--metrics %s: cannot listen: %s", spec, strerror(errno));
		freeaddrinfo(ai);
		return -1;
	}
	freeaddrinfo(ai);
	epoll_ctl(d->ep, EPOLL_CTL_ADD, d->mfd, &ev);
	return 0;
}

static void conn_free(struct daemon *d, struct mconn *c)
{
	for (int i = 0; i < METRICS_CONNS; i++)
		if (d->mconns[i] == c)
			d->mconns[i] = NULL;
	close(c->fd);
	free(c->out);
	free(c);
}

void metrics_accept(struct daemon *d)
{
	for (;;) {
		int fd = accept4(d->mfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), slot = -1;
		struct epoll_event ev = { .events = EPOLLIN };
		struct mconn *c;

		if (fd < 0)
			return;
		for (int i = 0; i < METRICS_CONNS && slot < 0; i++)
			if (!d->mconns[i])
				slot = i;
		if (slot < 0 || !(c = calloc(1, sizeof(*c)))) {
			close(fd);
			continue;
		}
		c->fd = fd;
		d->mconns[slot] = c;
		ev.data.ptr = c;
		epoll_ctl(d->ep, EPOLL_CTL_ADD, fd, &ev);
	}
}

struct mconn *metrics_conn_of(struct daemon *d, void *tag)
{
	for (int i = 0; i < METRICS_CONNS; i++)
		if (d->mconns[i] && d->mconns[i] == tag)
			return d->mconns[i];
	return NULL;
}

void metrics_count(struct daemon *d, const struct ac_event *e, struct dcage *c)
{
	uint64_t (*n)[2] = c ? c->decisions : d->decisions_unknown;

	if (e->op < AC_OP__MAX)
		n[e->op][e->action == AC_AUDITED]++;
}

/* the text, in a growing buffer */
struct text {
	char *p;
	size_t len, cap;
};

static void add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->p ? t->p + t->len : NULL, t->p ? t->cap - t->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (t->p && t->len + (size_t)n < t->cap) {
			t->len += (size_t)n;
			return;
		}
		size_t cap = (t->cap ? t->cap : 4096) * 2 + (size_t)n;
		char *q = realloc(t->p, cap);

		if (!q)
			return;
		t->p = q;
		t->cap = cap;
	}
}

static void decisions(struct text *t, const char *cage, uint64_t (*n)[2])
{
	for (uint32_t op = 0; op < AC_OP__MAX; op++)
		for (int a = 0; a < 2; a++)
			if (n[op][a])
				add(t, "agentcage_decisions_total{cage=\"%s\",op=\"%s\",action=\"%s\"} %llu\n",
				    cage, event_op_name(op), a ? "audited" : "denied",
				    (unsigned long long)n[op][a]);
}

static void body(struct daemon *d, struct text *t)
{
	int runs = 0;

	for (int i = 0; i < DAEMON_MAX_RUNS; i++)
		runs += d->runs[i] != NULL;
	add(t, "# HELP agentcage_cages Cages the daemon enforces.\n# TYPE agentcage_cages gauge\n"
	    "agentcage_cages %zu\n", d->ncages);
	add(t, "# HELP agentcage_enforcer The kernel mechanism that holds the daemon's cages.\n"
	    "# TYPE agentcage_enforcer gauge\nagentcage_enforcer{enforcer=\"bpf-lsm\"} 1\n");
	add(t, "# HELP agentcage_runs Runs (agentcage run --cage) going on.\n"
	    "# TYPE agentcage_runs gauge\nagentcage_runs %d\n", runs);
	add(t, "# HELP agentcage_decisions_total Denied or audited accesses, as reported by the "
	    "kernel.\n# TYPE agentcage_decisions_total counter\n");
	for (size_t i = 0; i < d->ncages; i++)
		decisions(t, d->cages[i]->name, d->cages[i]->decisions);
	decisions(t, "?", d->decisions_unknown);
	add(t, "# HELP agentcage_events_lost_total Events lost to a full ring buffer (decisions "
	    "were not affected).\n# TYPE agentcage_events_lost_total counter\n"
	    "agentcage_events_lost_total %llu\n",
	    (unsigned long long)loader_stat(&d->ld, AC_STAT_LOST));
	add(t, "# HELP agentcage_packet_events_suppressed_total Dropped-packet events over the rate "
	    "limit, not sent.\n# TYPE agentcage_packet_events_suppressed_total counter\n"
	    "agentcage_packet_events_suppressed_total %llu\n",
	    (unsigned long long)loader_stat(&d->ld, AC_STAT_SUPPRESSED));
	add(t, "# HELP agentcage_events_over_budget_total Events a cage made over its budget of "
	    "events a second, not sent (decisions were not affected).\n"
	    "# TYPE agentcage_events_over_budget_total counter\n");
	for (size_t i = 0; i < d->ncages; i++)
		add(t, "agentcage_events_over_budget_total{cage=\"%s\"} %llu\n", d->cages[i]->name,
		    (unsigned long long)loader_over_budget(&d->ld, d->cages[i]->cage.cg.id));
	add(t, "# HELP agentcage_reloads_total Policy files read by scans, by result.\n"
	    "# TYPE agentcage_reloads_total counter\n");
	for (int r = 0; r < RELOAD__N; r++)
		add(t, "agentcage_reloads_total{result=\"%s\"} %llu\n", reload_names[r],
		    (unsigned long long)d->reloads[r]);
	add(t, "# HELP agentcage_cage_rules Rules of a cage's policy in force.\n"
	    "# TYPE agentcage_cage_rules gauge\n");
	for (size_t i = 0; i < d->ncages; i++) {
		const struct compiled_policy *p = &d->cages[i]->cage.policy;
		const char *n = d->cages[i]->name;

		add(t, "agentcage_cage_rules{cage=\"%s\",kind=\"file\"} %zu\n", n, p->rs.nfiles);
		add(t, "agentcage_cage_rules{cage=\"%s\",kind=\"exec\"} %zu\n", n, p->rs.nexec);
		add(t, "agentcage_cage_rules{cage=\"%s\",kind=\"net\"} %zu\n", n, p->ns.n);
		add(t, "agentcage_cage_rules{cage=\"%s\",kind=\"unix\"} %zu\n", n, p->rs.nunix);
	}
	add(t, "# HELP agentcage_cage_generation A cage's policy generation (1 at install, +1 per "
	    "reload).\n# TYPE agentcage_cage_generation gauge\n");
	for (size_t i = 0; i < d->ncages; i++)
		add(t, "agentcage_cage_generation{cage=\"%s\"} %llu\n", d->cages[i]->name,
		    (unsigned long long)d->cages[i]->generation);
}

/* the request's header complete: the reply, written as the socket takes it */
static int respond(struct daemon *d, struct mconn *c)
{
	struct text b = { 0 }, h = { 0 };
	int get = !strncmp(c->in, "GET ", 4);
	struct epoll_event ev = { .events = EPOLLOUT, .data.ptr = c };

	if (get)
		body(d, &b);
	add(&h, "HTTP/1.0 %s\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: %zu\r\n"
	    "Connection: close\r\n\r\n%s", get ? "200 OK" : "405 Method Not Allowed",
	    get ? b.len : strlen("GET only\n"), get ? (b.p ? b.p : "") : "GET only\n");
	free(b.p);
	if (!h.p)
		return -1;
	c->out = h.p;
	c->outlen = h.len;
	epoll_ctl(d->ep, EPOLL_CTL_MOD, c->fd, &ev);
	return 0;
}

void metrics_conn(struct daemon *d, struct mconn *c, uint32_t events)
{
	ssize_t n;

	if (!c->out && (events & EPOLLIN)) {
		n = recv(c->fd, c->in + c->inlen, sizeof(c->in) - 1 - c->inlen, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return conn_free(d, c);
		if (n > 0)
			c->inlen += (size_t)n;
		c->in[c->inlen] = 0;
		if (strstr(c->in, "\r\n\r\n") || strstr(c->in, "\n\n")) {
			if (respond(d, c))
				return conn_free(d, c);
		} else if (c->inlen == sizeof(c->in) - 1) {
			return conn_free(d, c);   /* no header end in 4 KiB: not a scraper */
		}
	}
	while (c->out && c->off < c->outlen) {
		n = send(c->fd, c->out + c->off, c->outlen - c->off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0)
			return conn_free(d, c);
		c->off += (size_t)n;
	}
	if (c->out || (events & (EPOLLERR | EPOLLHUP)))
		conn_free(d, c);
}

void metrics_close(struct daemon *d)
{
	for (int i = 0; i < METRICS_CONNS; i++)
		if (d->mconns[i])
			conn_free(d, d->mconns[i]);
	if (d->mfd >= 0)
		close(d->mfd);
}
