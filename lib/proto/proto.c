// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "policy/policy.h"
#include "proto/proto.h"

static const struct { const char *name; enum proto_method m; } methods[] = {
	{ "ls", PM_LS }, { "status", PM_STATUS }, { "reload", PM_RELOAD }, { "run", PM_RUN },
	{ "events", PM_EVENTS }, { "join", PM_JOIN }, { "expire", PM_EXPIRE },
};

static const char *const iso_names[] = { "pid", "uts", "mount", "network" };

static int bad(struct ac_error *e, const char *why)
{
	return ac_error_set(e, AC_E_PROTOCOL, "bad request: %s", why);
}

/* a string member of at most max - 1 bytes, no NUL, into out; absolute:
 * it must start with '/'. 0 when absent. */
static int string_member(json_object *o, const char *key, char *out, size_t max, int absolute,
			 struct ac_error *e)
{
	json_object *m;
	const char *s;
	size_t n;

	if (!json_object_object_get_ex(o, key, &m))
		return 0;
	s = json_object_get_string(m);
	n = json_object_is_type(m, json_type_string) ? (size_t)json_object_get_string_len(m) : 0;
	if (!json_object_is_type(m, json_type_string) || !n || n >= max || strlen(s) != n ||
	    (absolute && s[0] != '/'))
		return ac_error_set(e, AC_E_PROTOCOL, "bad request: \"%s\" must be %s of 1 to %zu "
				    "bytes", key, absolute ? "an absolute path" : "a string", max - 1);
	memcpy(out, s, n + 1);
	return 0;
}

/* run without a cage: the policy text, its name, mode and variables */
static int run_members(json_object *o, struct proto_req *r, struct ac_error *e)
{
	json_object *m, *vars = NULL;
	char mode[16] = "";

	if (json_object_object_get_ex(o, "policy", &m)) {
		if (!json_object_is_type(m, json_type_string) || !json_object_get_string_len(m) ||
		    strlen(json_object_get_string(m)) != (size_t)json_object_get_string_len(m))
			return bad(e, "\"policy\" must be the policy's text, without NUL bytes");
		r->policy_len = (size_t)json_object_get_string_len(m);
		if (!(r->policy = strdup(json_object_get_string(m))))
			return ac_error_set(e, AC_E_NOMEM, "out of memory");
	}
	if (string_member(o, "file", r->file, sizeof(r->file), 0, e) ||
	    string_member(o, "mode", mode, sizeof(mode), 0, e))
		return -1;
	/* it goes into the log and the replies as it is */
	for (const char *p = r->file; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return bad(e, "\"file\" must not hold control characters");
	if (mode[0] && strcmp(mode, "enforce") && strcmp(mode, "audit"))
		return bad(e, "\"mode\" must be \"enforce\" or \"audit\"");
	if (mode[0])
		r->mode = !strcmp(mode, "audit") ? MODE_AUDIT : MODE_ENFORCE;
	if (json_object_object_get_ex(o, "vars", &vars) && !json_object_is_type(vars, json_type_object))
		return bad(e, "\"vars\" must be an object");
	if (vars && (string_member(vars, "cwd", r->cwd, sizeof(r->cwd), 1, e) ||
		     string_member(vars, "cage_tmp", r->cage_tmp, sizeof(r->cage_tmp), 1, e) ||
		     string_member(vars, "tty", r->tty, sizeof(r->tty), 1, e)))
		return -1;
	if ((r->file[0] || mode[0] || vars) && !r->policy)
		return bad(e, "\"file\", \"mode\" and \"vars\" go with \"policy\"");
	return 0;
}

/* the members every request may carry, checked for their types */
static int members(json_object *o, struct proto_req *r, struct ac_error *e)
{
	json_object *m;

	if (json_object_object_get_ex(o, "cage", &m)) {
		const char *s;

		if (!json_object_is_type(m, json_type_string))
			return bad(e, "\"cage\" must be a string");
		s = json_object_get_string(m);
		if (!s[0] || strlen(s) >= sizeof(r->cage) || strlen(s) != (size_t)json_object_get_string_len(m))
			return bad(e, "\"cage\" must be a name of 1 to 127 bytes");
		memcpy(r->cage, s, strlen(s) + 1);
	}
	if (json_object_object_get_ex(o, "pid", &m)) {
		if (!json_object_is_type(m, json_type_int) || json_object_get_int64(m) <= 0 ||
		    json_object_get_int64(m) > 0x3fffffff)
			return bad(e, "\"pid\" must be a positive process id");
		r->pid = (long)json_object_get_int64(m);
	}
	if (json_object_object_get_ex(o, "follow", &m)) {
		if (!json_object_is_type(m, json_type_boolean))
			return bad(e, "\"follow\" must be true or false");
		r->follow = json_object_get_boolean(m);
	}
	if (json_object_object_get_ex(o, "run", &m)) {
		if (!json_object_is_type(m, json_type_string) ||
		    !json_object_get_string_len(m) || json_object_get_string_len(m) >= PROTO_RUN_MAX ||
		    strlen(json_object_get_string(m)) != (size_t)json_object_get_string_len(m))
			return bad(e, "\"run\" must be a run id of 1 to 63 bytes");
		memcpy(r->run, json_object_get_string(m), json_object_get_string_len(m) + 1);
	}
	if (json_object_object_get_ex(o, "token", &m)) {
		const char *t = json_object_get_string(m);

		if (!json_object_is_type(m, json_type_string) ||
		    json_object_get_string_len(m) != PROTO_TOKEN_LEN ||
		    strspn(t, "0123456789abcdef") != PROTO_TOKEN_LEN)
			return bad(e, "\"token\" must be the 32 hex digits of a run reply");
		memcpy(r->token, t, PROTO_TOKEN_LEN + 1);
	}
	if (json_object_object_get_ex(o, "seconds", &m)) {
		if (!json_object_is_type(m, json_type_int) || json_object_get_int64(m) <= 0 ||
		    json_object_get_int64(m) > UINT_MAX)
			return bad(e, "\"seconds\" must be a positive number of seconds");
		r->seconds = (unsigned)json_object_get_int64(m);
	}
	if (run_members(o, r, e))
		return -1;
	if (r->policy && r->method != PM_RUN && r->method != PM_RELOAD)
		return bad(e, "\"policy\" goes with \"run\" or \"reload\"");
	if (r->method == PM_RUN && !r->cage[0] == !r->policy)
		return bad(e, "\"run\" needs a \"cage\" or a \"policy\", not both");
	if (r->method == PM_JOIN && (!r->run[0] || !r->token[0]))
		return bad(e, "\"join\" needs \"run\" and \"token\"");
	if ((r->method == PM_EXPIRE) != !!r->seconds)
		return bad(e, "\"seconds\" goes with \"expire\", which needs it");
	return 0;
}

/* only white space in the n bytes at p (never a byte past them) */
static int blank(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
			return 0;
	return 1;
}

int proto_parse_request(const char *line, size_t len, struct proto_req *r, struct ac_error *e)
{
	json_tokener *tok;
	json_object *o, *m;
	const char *name;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	r->mode = MODE_UNSET;
	if (len > PROTO_LINE_MAX)
		return bad(e, "longer than 65536 bytes");
	if (memchr(line, 0, len))
		return bad(e, "a NUL byte in the line");
	if (!(tok = json_tokener_new()))
		return ac_error_set(e, AC_E_NOMEM, "out of memory");
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);   /* JSON, not json-c's extensions */
	o = json_tokener_parse_ex(tok, line, (int)len);
	/* the whole line is one object: nothing after it but white space */
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    !blank(line + json_tokener_get_parse_end(tok), len - json_tokener_get_parse_end(tok))) {
		bad(e, "not one JSON object");
		goto out;
	}
	if (!json_object_is_type(o, json_type_object)) {
		bad(e, "not a JSON object");
		goto out;
	}
	if (!json_object_object_get_ex(o, "v", &m)) {
		bad(e, "no \"v\" (the protocol version, 1)");
		goto out;
	}
	if (!json_object_is_type(m, json_type_int) || json_object_get_int64(m) != PROTO_VERSION) {
		ac_error_set(e, AC_E_PROTOCOL, "bad request: protocol version %s is not supported "
			     "(this daemon speaks \"v\":1)", json_object_to_json_string(m));
		goto out;
	}
	if (!json_object_object_get_ex(o, "method", &m) || !json_object_is_type(m, json_type_string)) {
		bad(e, "no \"method\" string");
		goto out;
	}
	name = json_object_get_string(m);
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (!strcmp(name, methods[i].name))
			r->method = methods[i].m;
	if (!r->method) {
		ac_error_set(e, AC_E_PROTOCOL, "bad request: unknown method (known: ls, status, "
			     "reload, run, join, expire, events)");
		goto out;
	}
	ret = members(o, r, e);
out:
	if (ret)
		proto_req_free(r);
	json_object_put(o);
	json_tokener_free(tok);
	return ret;
}

void proto_req_free(struct proto_req *r)
{
	free(r->policy);
	r->policy = NULL;
	r->policy_len = 0;
}

json_object *proto_ok(void)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "v", json_object_new_int(PROTO_VERSION));
	json_object_object_add(o, "ok", json_object_new_boolean(1));
	return o;
}

json_object *proto_error(const char *code, const char *msg)
{
	json_object *o = json_object_new_object(), *err = json_object_new_object();

	json_object_object_add(o, "v", json_object_new_int(PROTO_VERSION));
	json_object_object_add(o, "ok", json_object_new_boolean(0));
	json_object_object_add(err, "code", json_object_new_string(code ? code : AC_E_SYSTEM));
	json_object_object_add(err, "message", json_object_new_string(msg));
	json_object_object_add(o, "error", err);
	return o;
}

char *proto_line(json_object *o, size_t *len)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						       JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t n = strlen(s);
	char *out = malloc(n + 2);

	if (out) {
		memcpy(out, s, n);
		out[n] = '\n';
		out[n + 1] = 0;
		*len = n + 1;
	}
	json_object_put(o);
	return out;
}

static json_object *strings(const struct plist *l)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < l->n; i++)
		json_object_array_add(a, json_object_new_string(l->items[i]));
	return a;
}

json_object *proto_launch_json(const struct policy *p)
{
	json_object *o = json_object_new_object(), *iso = json_object_new_array();
	json_object *lim = json_object_new_object();

	json_object_object_add(o, "user", json_object_new_string(p->user));
	for (size_t i = 0; i < sizeof(iso_names) / sizeof(iso_names[0]); i++)
		if (p->isolate & (1u << i))
			json_object_array_add(iso, json_object_new_string(iso_names[i]));
	json_object_object_add(o, "isolate", iso);
	json_object_object_add(o, "env", strings(&p->env));
	json_object_object_add(o, "syscalls_deny", strings(&p->sys_deny));
	json_object_object_add(lim, "memory", json_object_new_int64((int64_t)p->limits.memory));
	json_object_object_add(lim, "cpu_milli", json_object_new_int64(p->limits.cpu_milli));
	json_object_object_add(lim, "pids", json_object_new_int64(p->limits.pids));
	json_object_object_add(lim, "time", json_object_new_int64(p->limits.time));
	json_object_object_add(o, "limits", lim);
	return o;
}

/* a list of strings into l (emptied first); -1 when it is not one */
static int parse_strings(json_object *a, struct plist *l)
{
	size_t n;

	l->items = NULL;
	l->n = l->cap = 0;
	if (!a || !json_object_is_type(a, json_type_array))
		return -1;
	n = json_object_array_length(a);
	if (n > 4096 || !(l->items = calloc(n + 1, sizeof(char *))))
		return -1;
	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(a, i);

		if (!json_object_is_type(s, json_type_string) ||
		    strlen(json_object_get_string(s)) != (size_t)json_object_get_string_len(s) ||
		    !(l->items[i] = strdup(json_object_get_string(s))))
			return -1;
		l->n++;
	}
	return 0;
}

static int parse_uint(json_object *o, const char *key, unsigned long long max,
		      unsigned long long *out)
{
	json_object *m;

	if (!json_object_object_get_ex(o, key, &m) || !json_object_is_type(m, json_type_int) ||
	    json_object_get_int64(m) < 0 || (unsigned long long)json_object_get_int64(m) > max)
		return -1;
	*out = (unsigned long long)json_object_get_int64(m);
	return 0;
}

int proto_launch_parse(json_object *o, struct policy *p, struct ac_error *e)
{
	json_object *m, *lim;
	unsigned long long v[4];

	if (!o || !json_object_is_type(o, json_type_object))
		return ac_error_set(e, AC_E_PROTOCOL, "the daemon's run reply has no launch settings");
	if (!json_object_object_get_ex(o, "user", &m) || !json_object_is_type(m, json_type_string) ||
	    (size_t)json_object_get_string_len(m) >= sizeof(p->user))
		return ac_error_set(e, AC_E_PROTOCOL, "the launch settings' \"user\" is not a user");
	snprintf(p->user, sizeof(p->user), "%s", json_object_get_string(m));
	p->isolate = 0;
	if (!json_object_object_get_ex(o, "isolate", &m) || !json_object_is_type(m, json_type_array))
		return ac_error_set(e, AC_E_PROTOCOL, "the launch settings' \"isolate\" is not a list");
	for (size_t i = 0; i < json_object_array_length(m); i++) {
		json_object *n = json_object_array_get_idx(m, i);
		const char *s = json_object_get_string(n);
		size_t k = 0;

		if (!n || !json_object_is_type(n, json_type_string))
			return ac_error_set(e, AC_E_PROTOCOL, "the launch settings' \"isolate\" holds "
					    "a non-string");

		while (k < sizeof(iso_names) / sizeof(iso_names[0]) && strcmp(s, iso_names[k]))
			k++;
		if (k == sizeof(iso_names) / sizeof(iso_names[0]))
			return ac_error_set(e, AC_E_PROTOCOL, "unknown namespace '%s' in the launch "
					    "settings", s);
		p->isolate |= 1u << k;
	}
	json_object_object_get_ex(o, "env", &m);
	if (parse_strings(m, &p->env))
		return ac_error_set(e, AC_E_PROTOCOL, "the launch settings' \"env\" is not a list "
				    "of names");
	json_object_object_get_ex(o, "syscalls_deny", &m);
	if (parse_strings(m, &p->sys_deny))
		return ac_error_set(e, AC_E_PROTOCOL, "the launch settings' \"syscalls_deny\" is "
				    "not a list of names");
	if (!json_object_object_get_ex(o, "limits", &lim) ||
	    parse_uint(lim, "memory", ~0ULL >> 1, &v[0]) || parse_uint(lim, "cpu_milli", ~0U, &v[1]) ||
	    parse_uint(lim, "pids", ~0U, &v[2]) || parse_uint(lim, "time", ~0U, &v[3]))
		return ac_error_set(e, AC_E_PROTOCOL, "the launch settings' \"limits\" are not "
				    "numbers");
	p->limits.memory = v[0];
	p->limits.cpu_milli = (unsigned)v[1];
	p->limits.pids = (unsigned)v[2];
	p->limits.time = (unsigned)v[3];
	return 0;
}

const char *proto_socket_path(const char *opt)
{
	const char *env = getenv("AGENTCAGE_SOCKET");

	if (opt && opt[0])
		return opt;
	return env && env[0] ? env : PROTO_DEFAULT_SOCKET;
}
