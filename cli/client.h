// SPDX-License-Identifier: GPL-2.0-only
/* The daemon's control socket, for the client verbs (docs/protocol.md). */
#ifndef AGENTCAGE_CLI_CLIENT_H
#define AGENTCAGE_CLI_CLIENT_H
#include <json-c/json.h>

/* Connect to the daemon's socket at path: the descriptor (close-on-exec),
 * or -1, reported (daemon.unreachable, with the fix). */
int client_connect(const char *path);
/* Send rq (put) on fd and read its reply line, and nothing past it: the
 * reply object, or NULL, reported. */
json_object *client_exchange(int fd, const char *path, json_object *rq);
#endif
