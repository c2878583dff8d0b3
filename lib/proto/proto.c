// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>
#include "proto/proto.h"

static const struct { const char *name; enum proto_method m; } methods[] = {
	{ "ls", PM_LS }, { "status", PM_STATUS }, { "reload", PM_RELOAD }, { "run", PM_RUN },
	{ "events", PM_EVENTS },
};

static int bad(struct ac_error *e, const char *why)
{
	return ac_error_set(e, AC_E_PROTOCOL, "bad request: %s", why);
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
	return 0;
}

int proto_parse_request(const char *line, size_t len, struct proto_req *r, struct ac_error *e)
{
	json_tokener *tok;
	json_object *o, *m;
	const char *name;
	int ret = -1;

	memset(r, 0, sizeof(*r));
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
	    strspn(line + json_tokener_get_parse_end(tok), " \t\r") !=
	    len - json_tokener_get_parse_end(tok)) {
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
			     "reload, run, events)");
		goto out;
	}
	ret = members(o, r, e);
out:
	json_object_put(o);
	json_tokener_free(tok);
	return ret;
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
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
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

const char *proto_socket_path(const char *opt)
{
	const char *env = getenv("AGENTCAGE_SOCKET");

	if (opt && opt[0])
		return opt;
	return env && env[0] ? env : PROTO_DEFAULT_SOCKET;
}
