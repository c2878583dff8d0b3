// SPDX-License-Identifier: GPL-2.0-only
/* The event stream of the control socket (method "events"): every event
 * as one line, the existing JSON schema plus "v", to each subscriber whose
 * cage filter it passes, and to a backlog of the last EVENTS_BACKLOG for
 * new subscribers. Each subscriber has a bounded queue (SUB_MAX bytes
 * unread): what does not fit is dropped and counted, and the count is
 * sent to that subscriber ({"v":1,"dropped":N}) as soon as there is room,
 * so a slow or stuck subscriber never stalls the daemon, its ring-buffer
 * consumption, or the other subscribers. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "daemon.h"
#include "event/event.h"
#include "proto/proto.h"

#define SUB_MAX (256 << 10)

/* e as {"v":1,...}\n, malloc'd */
static char *event_line(const struct ac_event *e, const char *cage, uint64_t t, const char *rule,
			size_t *n)
{
	char *buf = NULL, *line;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	event_write_json(f, e, cage, t, rule);
	fclose(f);
	if (!buf || len < 2 || buf[0] != '{' || !(line = malloc(len + 7))) {
		free(buf);
		return NULL;
	}
	memcpy(line, "{\"v\":1,", 7);
	memcpy(line + 7, buf + 1, len - 1);
	*n = len + 6;
	if (line[*n - 1] != '\n')
		line[(*n)++] = '\n';
	free(buf);
	return line;
}

/* one line to c, or counted as dropped; a pending count goes first */
static void deliver(struct client *c, const char *line, size_t n)
{
	char drop[64];
	int dn;

	if (c->dropped) {
		dn = snprintf(drop, sizeof(drop), "{\"v\":1,\"dropped\":%llu}\n",
			      (unsigned long long)c->dropped);
		if (c->outlen + dn + n > SUB_MAX) {
			c->dropped++;
			return;
		}
		server_queue_line(c, drop, (size_t)dn, SUB_MAX);
		c->dropped = 0;
	}
	if (server_queue_line(c, line, n, SUB_MAX))
		c->dropped++;
}

/* a line (owned, malloc'd) to the subscribers of cage and the backlog */
static void publish(struct daemon *d, char *line, size_t n, const char *cage)
{
	struct backlog *b = &d->backlog[d->nbacklog % EVENTS_BACKLOG];

	for (int i = 0; i < d->clients_hi; i++) {
		struct client *c = d->clients[i];

		if (!c || !c->sub || c->closing || (c->sub_cage[0] && strcmp(c->sub_cage, cage)))
			continue;
		deliver(c, line, n);
		server_flush_client(d, c);
	}
	free(b->line);
	b->line = line;
	b->len = n;
	snprintf(b->cage, sizeof(b->cage), "%s", cage);
	d->nbacklog++;
}

void events_publish(struct daemon *d, const struct ac_event *e, const char *cage, uint64_t t,
		    const char *rule)
{
	size_t n;
	char *line = event_line(e, cage, t, rule, &n);

	if (line)
		publish(d, line, n, cage);
}

void events_publish_error(struct daemon *d, const char *cage, const char *file, const char *code,
			  const char *msg)
{
	struct timespec ts;
	char when[64], *line;
	json_object *o = json_object_new_object();
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	event_time((uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec, when, sizeof(when));
	json_object_object_add(o, "v", json_object_new_int(PROTO_VERSION));
	json_object_object_add(o, "time", json_object_new_string(when));
	json_object_object_add(o, "cage", json_object_new_string(cage));
	json_object_object_add(o, "level", json_object_new_string("error"));
	json_object_object_add(o, "code", json_object_new_string(code));
	json_object_object_add(o, "file", json_object_new_string(file));
	json_object_object_add(o, "message", json_object_new_string(msg));
	if ((line = proto_line(o, &n)))
		publish(d, line, n, cage);
}

void events_rotate(struct daemon *d)
{
	char old[PATH_MAX + 8];
	FILE *f;
	long pos = ftell(d->events);

	if (pos < 0 || pos < d->events_max || !d->events_path)
		return;
	snprintf(old, sizeof(old), "%s.1", d->events_path);
	fflush(d->events);
	if (rename(d->events_path, old) || !(f = fopen(d->events_path, "ae"))) {
		/* keep writing where we were; a warning at most once a rotation size */
		d->events_max += d->events_max;
		return;
	}
	setvbuf(f, NULL, _IOLBF, 0);
	fclose(d->events);
	d->events = f;
}

json_object *events_subscribe(struct daemon *d, struct client *c, const char *cage, int follow)
{
	size_t first = d->nbacklog > EVENTS_BACKLOG ? d->nbacklog - EVENTS_BACKLOG : 0, n;
	json_object *r;
	char *line;

	if (!c)
		return proto_error(AC_E_USAGE, "events needs a connection");
	if (cage[0] && !daemon_find(d, cage))
		return proto_error(AC_E_NOT_FOUND, "no cage of that name");
	r = proto_ok();
	json_object_object_add(r, "follow", json_object_new_boolean(follow));
	if (!(line = proto_line(r, &n)))
		return proto_error(AC_E_NOMEM, "out of memory");
	server_queue_line(c, line, n, SUB_MAX);
	free(line);
	snprintf(c->sub_cage, sizeof(c->sub_cage), "%s", cage);
	for (size_t i = first; i < d->nbacklog; i++) {
		struct backlog *b = &d->backlog[i % EVENTS_BACKLOG];

		if (!cage[0] || !strcmp(b->cage, cage))
			deliver(c, b->line, b->len);
	}
	if (follow) {
		c->sub = 1;
	} else {
		deliver(c, "{\"v\":1,\"end\":true}\n", 19);
		c->closing = 1;
	}
	return NULL;
}

void events_end(struct daemon *d, const char *cage, uint64_t over_budget)
{
	char end[96];
	int n = snprintf(end, sizeof(end), "{\"v\":1,\"end\":true,\"over_budget\":%llu}\n",
			 (unsigned long long)over_budget);

	for (int i = 0; i < d->clients_hi; i++) {
		struct client *c = d->clients[i];

		if (!c || !c->sub || c->closing || strcmp(c->sub_cage, cage))
			continue;
		/* past its bound, the end waits for room no more than events do:
		 * the drop count then tells the client what it missed */
		deliver(c, end, (size_t)n);
		c->sub = 0;
		c->closing = 1;
		server_flush_client(d, c);
	}
}

void events_close(struct daemon *d)
{
	for (size_t i = 0; i < EVENTS_BACKLOG; i++)
		free(d->backlog[i].line);
}
