// SPDX-License-Identifier: GPL-2.0-only
/* The daemon's control socket, for the client verbs (docs/protocol.md). */
#ifndef AGENTCAGE_CLI_CLIENT_H
#define AGENTCAGE_CLI_CLIENT_H
#include <stdio.h>
#include <json-c/json.h>

/* Connect to the daemon's socket at path: the descriptor (close-on-exec),
 * or -1, reported (daemon.unreachable, with the fix). */
int client_connect(const char *path);
/* Send rq (put) on fd and read its reply line, and nothing past it: the
 * reply object, or NULL, reported. */
json_object *client_exchange(int fd, const char *path, json_object *rq);
/* One event of the stream as a plain line on f, after prefix: time, cage,
 * action (DENY, AUDIT, ERROR for a refused policy file), then key=value,
 * the value bare when it is one word (op=open_read), else as JSON
 * (comm="cat"): the line a standalone run prints (docs/events.md). */
void events_print_plain(FILE *f, const char *prefix, json_object *ev);
#endif
