// SPDX-License-Identifier: GPL-2.0-only
/* The daemon's control protocol (docs/protocol.md): one JSON object per
 * line, each with "v": PROTO_VERSION. Requests are parsed here, with
 * json-c, for the daemon and for the unit tests; replies are json-c
 * objects the daemon fills in and proto_line serialises. */
#ifndef AGENTCAGE_PROTO_H
#define AGENTCAGE_PROTO_H
#include <stddef.h>
#include <json-c/json.h>
#include "util/error.h"

#define PROTO_VERSION 1
#define PROTO_LINE_MAX 65536     /* a request line longer than this is refused */
#define PROTO_NAME_MAX 128       /* a cage name, as struct policy holds it */
#define PROTO_DEFAULT_SOCKET "/run/agentcage/agentcage.sock"

enum proto_method { PM_LS = 1, PM_STATUS, PM_RELOAD, PM_RUN, PM_EVENTS };

struct proto_req {
	enum proto_method method;
	char cage[PROTO_NAME_MAX];   /* "" when the request names no cage */
	long pid;                    /* run: the process to place (0: none) */
	int follow;                  /* events: keep streaming (else the backlog alone) */
};

/* Parse one request line (len bytes, without its newline). -1 with e
 * (AC_E_PROTOCOL) when it is not JSON, not an object, has no "v" or another
 * version, names no known method, or has a member of the wrong type. */
int proto_parse_request(const char *line, size_t len, struct proto_req *r, struct ac_error *e);
/* {"v":1,"ok":true}: the start of a success reply (the caller's to put). */
json_object *proto_ok(void);
/* {"v":1,"ok":false,"error":{"code":CODE,"message":MSG}} */
json_object *proto_error(const char *code, const char *msg);
/* o as one line with its newline, malloc'd; puts o. NULL when out of memory. */
char *proto_line(json_object *o, size_t *len);
/* The socket path a client uses: opt, else $AGENTCAGE_SOCKET, else the default. */
const char *proto_socket_path(const char *opt);
#endif
