// SPDX-License-Identifier: GPL-2.0-only
/* The daemon's control protocol (docs/protocol.md): one JSON object per
 * line, each with "v": PROTO_VERSION. Requests are parsed here, with
 * json-c, for the daemon and for the unit tests; replies are json-c
 * objects the daemon fills in and proto_line serialises. */
#ifndef AGENTCAGE_PROTO_H
#define AGENTCAGE_PROTO_H
#include <limits.h>
#include <stddef.h>
#include <json-c/json.h>
#include "util/error.h"

#define PROTO_VERSION 1
#define PROTO_LINE_MAX 65536     /* a request line longer than this is refused */
#define PROTO_NAME_MAX 128       /* a cage name, as struct policy holds it */
#define PROTO_DEFAULT_SOCKET "/run/agentcage/agentcage.sock"

enum proto_method { PM_LS = 1, PM_STATUS, PM_RELOAD, PM_RUN, PM_EVENTS, PM_JOIN, PM_EXPIRE };

#define PROTO_RUN_MAX 64         /* a run's id, "run-..." */
#define PROTO_TOKEN_LEN 32       /* a run's token: 16 random bytes in hex */

struct proto_req {
	enum proto_method method;
	char cage[PROTO_NAME_MAX];   /* "" when the request names no cage */
	long pid;                    /* unused: a process is placed by joining (PM_JOIN) */
	int follow;                  /* events: keep streaming (else the backlog alone) */
	char run[PROTO_RUN_MAX];     /* join: the run's id, from the run reply */
	char token[PROTO_TOKEN_LEN + 1]; /* join: the run's token, from the run reply */
	unsigned seconds;            /* expire: the time limit that ran out (> 0) */
	/* run without cage: an ephemeral cage of this policy text (malloc'd,
	 * NUL-terminated; proto_req_free), named in messages by file */
	char *policy;
	size_t policy_len;
	char file[PATH_MAX];         /* "" when not given */
	int mode;                    /* MODE_UNSET, or the mode that overrides the text's */
	/* the text's ${CWD}, ${CAGE_TMP} and own terminal: absolute paths, or "" */
	char cwd[PATH_MAX], cage_tmp[PATH_MAX], tty[PATH_MAX];
};

/* Parse one request line (len bytes, without its newline). -1 with e
 * (AC_E_PROTOCOL) when it is not JSON, not an object, has no "v" or another
 * version, names no known method, or has a member of the wrong type. */
int proto_parse_request(const char *line, size_t len, struct proto_req *r, struct ac_error *e);
/* What a parsed request holds (its policy text); r may be parsed again. */
void proto_req_free(struct proto_req *r);
/* {"v":1,"ok":true}: the start of a success reply (the caller's to put). */
json_object *proto_ok(void);
/* {"v":1,"ok":false,"error":{"code":CODE,"message":MSG}} */
json_object *proto_error(const char *code, const char *msg);
/* o as one line with its newline, malloc'd; puts o. NULL when out of memory. */
char *proto_line(json_object *o, size_t *len);
struct policy;
/* The launch settings of a policy, for a run reply: user, isolate, env,
 * syscalls_deny, limits (memory, cpu_milli, pids, time). */
json_object *proto_launch_json(const struct policy *p);
/* Back into p's launch fields (the rest of p is left as it is): 0, or -1
 * with e (AC_E_PROTOCOL) when a member is missing or of the wrong type. */
int proto_launch_parse(json_object *o, struct policy *p, struct ac_error *e);
/* The socket path a client uses: opt, else $AGENTCAGE_SOCKET, else the default. */
const char *proto_socket_path(const char *opt);
#endif
