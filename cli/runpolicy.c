// SPDX-License-Identifier: GPL-2.0-only
/* agentcage run --policy FILE through the daemon: the request that carries
 * the policy's text. The client reads the file itself, with its own
 * rights; the daemon compiles the text and never opens the client's path,
 * which only names the text in its messages. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "diag.h"
#include "policy/policy.h"
#include "policy/rules.h"
#include "proto/proto.h"
#include "runcage.h"

/* lib/policy/default_policy.S: policies/default.yaml */
extern const char default_policy_yaml[], default_policy_yaml_end[];

/* path's bytes (at most PROTO_LINE_MAX, more is too big), malloc'd */
static char *read_text(const char *path, size_t *n, int *too_big)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf = malloc(PROTO_LINE_MAX + 1);
	ssize_t got = 0, r = 0;

	*n = 0;
	if (fd < 0 || !buf) {
		diag_error_code(AC_E_POLICY_IO, "%s: cannot read: %s", path, strerror(errno));
		goto fail;
	}
	while (got <= PROTO_LINE_MAX && (r = read(fd, buf + got, PROTO_LINE_MAX + 1 - got)) > 0)
		got += r;
	if (r < 0) {
		diag_error_code(AC_E_POLICY_IO, "%s: cannot read: %s", path, strerror(errno));
		goto fail;
	}
	if (got > PROTO_LINE_MAX) {
		*too_big = 1;
		goto fail;
	}
	close(fd);
	buf[got] = 0;
	*n = (size_t)got;
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

static void add_var(json_object *vars, const char *key, const char *val)
{
	if (val && val[0] == '/')
		json_object_object_add(vars, key, json_object_new_string(val));
}

char *run_policy_request(const struct run_cage_opts *o, const char *method,
			 const struct rule_vars *v, size_t *n, int *too_big)
{
	json_object *rq = json_object_new_object(), *vars = json_object_new_object();
	size_t len = (size_t)(default_policy_yaml_end - default_policy_yaml);
	char *text = NULL, *line;

	*too_big = 0;
	if (o->policy_file && !(text = read_text(o->policy_file, &len, too_big))) {
		json_object_put(rq);
		json_object_put(vars);
		return NULL;
	}
	if (memchr(text ? text : default_policy_yaml, 0, len)) {
		diag_error_code(AC_E_POLICY_INVALID, "%s: a NUL byte in the file", o->policy_file);
		free(text);
		json_object_put(rq);
		json_object_put(vars);
		return NULL;
	}
	json_object_object_add(rq, "v", json_object_new_int(PROTO_VERSION));
	json_object_object_add(rq, "method", json_object_new_string(method));
	json_object_object_add(rq, "policy", json_object_new_string_len(text ? text :
							default_policy_yaml, (int)len));
	json_object_object_add(rq, "file", json_object_new_string(o->policy_file ?
							o->policy_file : "default.yaml"));
	if (o->mode != MODE_UNSET)
		json_object_object_add(rq, "mode", json_object_new_string(o->mode == MODE_AUDIT ?
							"audit" : "enforce"));
	add_var(vars, "cwd", v->cwd);
	add_var(vars, "cage_tmp", v->cage_tmp);
	add_var(vars, "tty", v->own_tty);
	json_object_object_add(rq, "vars", vars);
	free(text);
	if (!(line = proto_line(rq, n))) {
		diag_error_code(AC_E_NOMEM, "out of memory");
		return NULL;
	}
	if (*n > PROTO_LINE_MAX) {   /* with its newline, one byte is to spare */
		*too_big = 1;
		free(line);
		return NULL;
	}
	return line;
}
