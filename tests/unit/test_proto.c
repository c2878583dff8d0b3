// SPDX-License-Identifier: GPL-2.0-only
/* The control protocol's request parser and replies (lib/proto). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "proto/proto.h"

static int parse(const char *s, struct proto_req *r, struct ac_error *e)
{
	memset(e, 0, sizeof(*e));
	return proto_parse_request(s, strlen(s), r, e);
}

#define REFUSED(s, frag) do { struct proto_req r; struct ac_error e; \
	cr_assert_eq(parse(s, &r, &e), -1, "%s accepted", s); \
	cr_assert_str_eq(e.code, AC_E_PROTOCOL); \
	cr_assert(strstr(e.msg, frag), "%s: %s", s, e.msg); } while (0)

Test(proto, methods)
{
	struct proto_req r;
	struct ac_error e;

	cr_assert_eq(parse("{\"v\":1,\"method\":\"ls\"}", &r, &e), 0, "%s", e.msg);
	cr_assert_eq(r.method, PM_LS);
	cr_assert_str_eq(r.cage, "");
	cr_assert_eq(parse(" {\"method\":\"status\",\"v\":1} \r", &r, &e), 0, "%s", e.msg);
	cr_assert_eq(r.method, PM_STATUS);
	cr_assert_eq(parse("{\"v\":1,\"method\":\"reload\",\"cage\":\"web-agent\"}", &r, &e), 0);
	cr_assert_eq(r.method, PM_RELOAD);
	cr_assert_str_eq(r.cage, "web-agent");
	cr_assert_eq(parse("{\"v\":1,\"method\":\"run\",\"cage\":\"a\",\"pid\":42}", &r, &e), 0);
	cr_assert_eq(r.pid, 42);
}

Test(proto, malformed)
{
	REFUSED("", "not one JSON object");
	REFUSED("{\"v\":1", "not one JSON object");
	REFUSED("{\"v\":1,\"method\":\"ls\"} {}", "not one JSON object");
	REFUSED("{\"v\":1,\"method\":\"ls\"}x", "not one JSON object");
	REFUSED("[1,2]", "not a JSON object");
	REFUSED("\"ls\"", "not a JSON object");
	REFUSED("{v:1}", "not one JSON object");
	REFUSED("{\"v\":1,}", "not one JSON object");
}

Test(proto, version)
{
	REFUSED("{\"method\":\"ls\"}", "no \"v\"");
	REFUSED("{\"v\":2,\"method\":\"ls\"}", "version 2 is not supported");
	REFUSED("{\"v\":\"1\",\"method\":\"ls\"}", "not supported");
	REFUSED("{\"v\":1.0,\"method\":\"ls\"}", "not supported");
}

Test(proto, methods_and_members)
{
	REFUSED("{\"v\":1}", "no \"method\"");
	REFUSED("{\"v\":1,\"method\":7}", "no \"method\"");
	REFUSED("{\"v\":1,\"method\":\"frobnicate\"}", "unknown method");
	REFUSED("{\"v\":1,\"method\":\"LS\"}", "unknown method");
	REFUSED("{\"v\":1,\"method\":\"ls\",\"cage\":7}", "\"cage\" must be a string");
	REFUSED("{\"v\":1,\"method\":\"ls\",\"cage\":\"\"}", "1 to 127 bytes");
	REFUSED("{\"v\":1,\"method\":\"ls\",\"cage\":\"a\\u0000b\"}", "1 to 127 bytes");
	REFUSED("{\"v\":1,\"method\":\"run\",\"pid\":-1}", "\"pid\"");
	REFUSED("{\"v\":1,\"method\":\"run\",\"pid\":\"1\"}", "\"pid\"");
}

Test(proto, long_name)
{
	char s[512];

	snprintf(s, sizeof(s), "{\"v\":1,\"method\":\"ls\",\"cage\":\"%0200d\"}", 0);
	REFUSED(s, "1 to 127 bytes");
}

Test(proto, oversized)
{
	size_t n = PROTO_LINE_MAX + 100;
	char *s = malloc(n + 1);
	struct proto_req r;
	struct ac_error e = { 0 };

	memset(s, ' ', n);
	memcpy(s, "{\"v\":1,\"method\":\"ls\"}", 22);
	s[n] = 0;
	cr_assert_eq(proto_parse_request(s, n, &r, &e), -1);
	cr_assert_str_eq(e.code, AC_E_PROTOCOL);
	cr_assert(strstr(e.msg, "longer than"), "%s", e.msg);
	free(s);
}

Test(proto, nul_byte)
{
	struct proto_req r;
	struct ac_error e = { 0 };

	cr_assert_eq(proto_parse_request("{\"v\":1,\"method\":\"ls\"}\0x", 24, &r, &e), -1);
	cr_assert(strstr(e.msg, "NUL"), "%s", e.msg);
}

Test(proto, replies)
{
	size_t n;
	char *ok = proto_line(proto_ok(), &n);
	char *err = proto_line(proto_error(AC_E_NOT_FOUND, "no cage \"x\"\n"), &n);

	cr_assert_str_eq(ok, "{\"v\":1,\"ok\":true}\n");
	cr_assert_eq(strlen(err), n);
	/* one line whatever the message holds */
	cr_assert_eq(strchr(err, '\n'), err + n - 1);
	cr_assert_str_eq(err, "{\"v\":1,\"ok\":false,\"error\":{\"code\":\"cage.not_found\","
			 "\"message\":\"no cage \\\"x\\\"\\n\"}}\n");
	free(ok);
	free(err);
}

Test(proto, socket_path)
{
	unsetenv("AGENTCAGE_SOCKET");
	cr_assert_str_eq(proto_socket_path(NULL), PROTO_DEFAULT_SOCKET);
	setenv("AGENTCAGE_SOCKET", "/tmp/x.sock", 1);
	cr_assert_str_eq(proto_socket_path(NULL), "/tmp/x.sock");
	cr_assert_str_eq(proto_socket_path("/o.sock"), "/o.sock");
	unsetenv("AGENTCAGE_SOCKET");
}

Test(proto, events)
{
	struct proto_req r;
	struct ac_error e;

	cr_assert_eq(parse("{\"v\":1,\"method\":\"events\"}", &r, &e), 0, "%s", e.msg);
	cr_assert_eq(r.method, PM_EVENTS);
	cr_assert_eq(r.follow, 0);
	cr_assert_eq(parse("{\"v\":1,\"method\":\"events\",\"follow\":true,\"cage\":\"a\"}", &r, &e), 0);
	cr_assert_eq(r.follow, 1);
	cr_assert_str_eq(r.cage, "a");
	cr_assert_eq(parse("{\"v\":1,\"method\":\"events\",\"follow\":false}", &r, &e), 0);
	cr_assert_eq(r.follow, 0);
	REFUSED("{\"v\":1,\"method\":\"events\",\"follow\":1}", "\"follow\" must be true or false");
	REFUSED("{\"v\":1,\"method\":\"events\",\"follow\":\"yes\"}", "\"follow\" must be true or false");
}
