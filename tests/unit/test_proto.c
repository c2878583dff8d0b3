// SPDX-License-Identifier: GPL-2.0-only
/* The control protocol's request parser and replies (lib/proto). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "policy/policy.h"
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

/* ---- run and join ------------------------------------------------------ */

#define TOKEN "0123456789abcdef0123456789abcdef"

Test(proto, run_request)
{
	struct proto_req r;
	struct ac_error e;

	cr_assert_eq(parse("{\"v\":1,\"method\":\"run\",\"cage\":\"web-agent\"}", &r, &e), 0, "%s",
		     e.msg);
	cr_assert_eq(r.method, PM_RUN);
	cr_assert_str_eq(r.cage, "web-agent");
	cr_assert_str_eq(r.run, "");
	cr_assert_str_eq(r.token, "");
	REFUSED("{\"v\":1,\"method\":\"run\"}", "\"run\" needs a \"cage\" or a \"policy\"");
	REFUSED("{\"v\":1,\"method\":\"run\",\"cage\":\"\"}", "1 to 127 bytes");
	REFUSED("{\"v\":1,\"method\":\"run\",\"cage\":null}", "\"cage\" must be a string");
}

Test(proto, run_policy_request)
{
	struct proto_req r;
	struct ac_error e;

	cr_assert_eq(parse("{\"v\":1,\"method\":\"run\",\"policy\":\"name: a\\nmode: audit\\n\","
			   "\"file\":\"a.yaml\",\"mode\":\"enforce\",\"vars\":{\"cwd\":\"/home/u\","
			   "\"cage_tmp\":\"/tmp/agentcage-1-x\",\"tty\":\"/dev/pts/3\"}}", &r, &e), 0,
		     "%s", e.msg);
	cr_assert_eq(r.method, PM_RUN);
	cr_assert_str_eq(r.cage, "");
	cr_assert_str_eq(r.policy, "name: a\nmode: audit\n");
	cr_assert_eq(r.policy_len, 20);
	cr_assert_str_eq(r.file, "a.yaml");
	cr_assert_eq(r.mode, MODE_ENFORCE);
	cr_assert_str_eq(r.cwd, "/home/u");
	cr_assert_str_eq(r.cage_tmp, "/tmp/agentcage-1-x");
	cr_assert_str_eq(r.tty, "/dev/pts/3");
	proto_req_free(&r);
	cr_assert_null(r.policy);
	/* the members a run by cage name has no use for are absent */
	cr_assert_eq(parse("{\"v\":1,\"method\":\"run\",\"policy\":\"x\"}", &r, &e), 0, "%s", e.msg);
	cr_assert_eq(r.mode, MODE_UNSET);
	cr_assert_str_eq(r.file, "");
	proto_req_free(&r);
	REFUSED("{\"v\":1,\"method\":\"run\",\"cage\":\"a\",\"policy\":\"x\"}", "not both");
	REFUSED("{\"v\":1,\"method\":\"run\",\"policy\":\"\"}", "the policy's text");
	REFUSED("{\"v\":1,\"method\":\"run\",\"policy\":\"a\\u0000b\"}", "without NUL");
	REFUSED("{\"v\":1,\"method\":\"run\",\"policy\":7}", "the policy's text");
	REFUSED("{\"v\":1,\"method\":\"ls\",\"policy\":\"x\"}", "goes with \"run\" or");
	cr_assert_eq(parse("{\"v\":1,\"method\":\"reload\",\"policy\":\"x\"}", &r, &e), 0, "%s", e.msg);
	cr_assert_str_eq(r.policy, "x");
	proto_req_free(&r);
	REFUSED("{\"v\":1,\"method\":\"run\",\"cage\":\"a\",\"mode\":\"audit\"}", "go with");
	REFUSED("{\"v\":1,\"method\":\"run\",\"policy\":\"x\",\"mode\":\"off\"}", "\"enforce\" or");
	REFUSED("{\"v\":1,\"method\":\"run\",\"policy\":\"x\",\"vars\":[]}", "an object");
	REFUSED("{\"v\":1,\"method\":\"run\",\"policy\":\"x\",\"file\":\"a\\nb\"}", "control characters");
	REFUSED("{\"v\":1,\"method\":\"run\",\"policy\":\"x\",\"vars\":{\"cwd\":\"rel\"}}",
		"an absolute path");
	REFUSED("{\"v\":1,\"method\":\"run\",\"policy\":\"x\",\"vars\":{\"tty\":3}}",
		"an absolute path");
}

Test(proto, join_request)
{
	struct proto_req r;
	struct ac_error e;

	cr_assert_eq(parse("{\"v\":1,\"method\":\"join\",\"run\":\"run-7\",\"token\":\"" TOKEN "\"}",
			   &r, &e), 0, "%s", e.msg);
	cr_assert_eq(r.method, PM_JOIN);
	cr_assert_str_eq(r.run, "run-7");
	cr_assert_str_eq(r.token, TOKEN);
	cr_assert_str_eq(r.cage, "");
	/* the members' order is free */
	cr_assert_eq(parse("{\"token\":\"" TOKEN "\",\"run\":\"run-1\",\"method\":\"join\",\"v\":1}",
			   &r, &e), 0, "%s", e.msg);
	cr_assert_str_eq(r.run, "run-1");
}

Test(proto, join_refused)
{
	char s[512];

	REFUSED("{\"v\":1,\"method\":\"join\",\"run\":\"run-1\"}", "\"join\" needs \"run\" and \"token\"");
	REFUSED("{\"v\":1,\"method\":\"join\",\"token\":\"" TOKEN "\"}",
		"\"join\" needs \"run\" and \"token\"");
	REFUSED("{\"v\":1,\"method\":\"join\"}", "\"join\" needs \"run\" and \"token\"");
	/* 31 and 33 digits */
	REFUSED("{\"v\":1,\"method\":\"join\",\"run\":\"run-1\","
		"\"token\":\"0123456789abcdef0123456789abcde\"}", "32 hex digits");
	REFUSED("{\"v\":1,\"method\":\"join\",\"run\":\"run-1\","
		"\"token\":\"0123456789abcdef0123456789abcdef0\"}", "32 hex digits");
	/* uppercase and not hex */
	REFUSED("{\"v\":1,\"method\":\"join\",\"run\":\"run-1\","
		"\"token\":\"0123456789ABCDEF0123456789abcdef\"}", "32 hex digits");
	REFUSED("{\"v\":1,\"method\":\"join\",\"run\":\"run-1\","
		"\"token\":\"0123456789abcdeg0123456789abcdef\"}", "32 hex digits");
	REFUSED("{\"v\":1,\"method\":\"join\",\"run\":\"run-1\","
		"\"token\":\"0123456789abcdef0123456789abcde\\u0000\"}", "32 hex digits");
	REFUSED("{\"v\":1,\"method\":\"join\",\"run\":\"run-1\",\"token\":12345}", "32 hex digits");
	REFUSED("{\"v\":1,\"method\":\"join\",\"run\":\"run-1\",\"token\":null}", "32 hex digits");
	/* the run id: a string of 1 to 63 bytes */
	REFUSED("{\"v\":1,\"method\":\"join\",\"run\":7,\"token\":\"" TOKEN "\"}", "1 to 63 bytes");
	REFUSED("{\"v\":1,\"method\":\"join\",\"run\":[\"run-1\"],\"token\":\"" TOKEN "\"}",
		"1 to 63 bytes");
	REFUSED("{\"v\":1,\"method\":\"join\",\"run\":\"\",\"token\":\"" TOKEN "\"}", "1 to 63 bytes");
	REFUSED("{\"v\":1,\"method\":\"join\",\"run\":\"run\\u0000-1\",\"token\":\"" TOKEN "\"}",
		"1 to 63 bytes");
	snprintf(s, sizeof(s), "{\"v\":1,\"method\":\"join\",\"run\":\"run-%060d\",\"token\":\"" TOKEN
		 "\"}", 0);
	REFUSED(s, "1 to 63 bytes");
}

Test(proto, join_run_id_length)
{
	struct proto_req r;
	struct ac_error e;
	char s[512];

	/* 63 bytes: the longest accepted; 64: refused */
	snprintf(s, sizeof(s), "{\"v\":1,\"method\":\"join\",\"run\":\"run-%059d\",\"token\":\"" TOKEN
		 "\"}", 0);
	cr_assert_eq(parse(s, &r, &e), 0, "%s", e.msg);
	cr_assert_eq(strlen(r.run), PROTO_RUN_MAX - 1);
	snprintf(s, sizeof(s), "{\"v\":1,\"method\":\"join\",\"run\":\"run-%060d\",\"token\":\"" TOKEN
		 "\"}", 0);
	cr_assert_eq(parse(s, &r, &e), -1);
	cr_assert_str_eq(e.code, AC_E_PROTOCOL);
	cr_assert_str_eq(e.msg, "bad request: \"run\" must be a run id of 1 to 63 bytes");
}

Test(proto, run_join_messages)
{
	struct proto_req r;
	struct ac_error e;

	cr_assert_eq(parse("{\"v\":1,\"method\":\"run\"}", &r, &e), -1);
	cr_assert_str_eq(e.code, AC_E_PROTOCOL);
	cr_assert_str_eq(e.msg, "bad request: \"run\" needs a \"cage\" or a \"policy\", not both");
	cr_assert_eq(parse("{\"v\":1,\"method\":\"join\",\"run\":\"run-1\"}", &r, &e), -1);
	cr_assert_str_eq(e.code, AC_E_PROTOCOL);
	cr_assert_str_eq(e.msg, "bad request: \"join\" needs \"run\" and \"token\"");
	cr_assert_eq(parse("{\"v\":1,\"method\":\"join\",\"run\":\"run-1\",\"token\":\"x\"}", &r, &e),
		     -1);
	cr_assert_str_eq(e.code, AC_E_PROTOCOL);
	cr_assert_str_eq(e.msg, "bad request: \"token\" must be the 32 hex digits of a run reply");
	cr_assert_eq(parse("{\"v\":1,\"method\":\"spawn\"}", &r, &e), -1);
	cr_assert(strstr(e.msg, "run, join"), "%s", e.msg);
}

Test(proto, error_replies)
{
	size_t n;
	char *nf = proto_line(proto_error(AC_E_NOT_FOUND, "no run of that id and token"), &n);
	char *pd = proto_line(proto_error(AC_E_PERMISSION, "only a process of the run's own user "
					  "may join it"), &n);
	char *sys = proto_line(proto_error(NULL, "x"), &n);

	cr_assert_str_eq(nf, "{\"v\":1,\"ok\":false,\"error\":{\"code\":\"cage.not_found\","
			 "\"message\":\"no run of that id and token\"}}\n");
	cr_assert_str_eq(pd, "{\"v\":1,\"ok\":false,\"error\":{\"code\":\"permission.denied\","
			 "\"message\":\"only a process of the run's own user may join it\"}}\n");
	cr_assert(strstr(sys, "\"code\":\"system.failed\""), "%s", sys);
	free(nf);
	free(pd);
	free(sys);
}

/* ---- the launch settings of a run reply -------------------------------- */

static void dup_list(struct plist *l, const char *const *items, size_t n)
{
	l->items = calloc(n + 1, sizeof(char *));
	cr_assert(l->items);
	for (size_t i = 0; i < n; i++)
		cr_assert((l->items[i] = strdup(items[i])));
	l->n = n;
}

static void launch_policy(struct policy *p)
{
	static const char *const env[] = { "HOME", "PATH", "LANG" };
	static const char *const sys[] = { "ptrace", "mount" };

	memset(p, 0, sizeof(*p));
	snprintf(p->user, sizeof(p->user), "%s", "1000:1000");
	p->isolate = POLICY_ISO_PID | POLICY_ISO_UTS | POLICY_ISO_MOUNT | POLICY_ISO_NET;
	dup_list(&p->env, env, 3);
	dup_list(&p->sys_deny, sys, 2);
	p->limits.memory = 1ULL << 40;         /* beyond 32 bits */
	p->limits.cpu_milli = 1500;
	p->limits.pids = 64;
	p->limits.time = 4294967295u;          /* the largest */
}

/* p's launch settings as a line, parsed back */
static json_object *as_parsed(const struct policy *p)
{
	size_t n;
	char *line = proto_line(proto_launch_json(p), &n);
	json_object *o;

	cr_assert(line);
	cr_assert_eq(strchr(line, '\n'), line + n - 1);
	o = json_tokener_parse(line);
	cr_assert(o, "%s", line);
	free(line);
	return o;
}

Test(proto, launch_round_trip)
{
	struct policy p, q;
	struct ac_error e = { 0 };
	json_object *o;

	launch_policy(&p);
	o = as_parsed(&p);
	memset(&q, 0, sizeof(q));
	cr_assert_eq(proto_launch_parse(o, &q, &e), 0, "%s", e.msg);
	cr_assert_str_eq(q.user, "1000:1000");
	cr_assert_eq(q.isolate, POLICY_ISO_PID | POLICY_ISO_UTS | POLICY_ISO_MOUNT | POLICY_ISO_NET);
	cr_assert_eq(q.env.n, 3);
	cr_assert_str_eq(q.env.items[0], "HOME");
	cr_assert_str_eq(q.env.items[1], "PATH");
	cr_assert_str_eq(q.env.items[2], "LANG");
	cr_assert_null(q.env.items[3]);
	cr_assert_eq(q.sys_deny.n, 2);
	cr_assert_str_eq(q.sys_deny.items[0], "ptrace");
	cr_assert_str_eq(q.sys_deny.items[1], "mount");
	cr_assert_eq(q.limits.memory, 1ULL << 40);
	cr_assert_eq(q.limits.cpu_milli, 1500);
	cr_assert_eq(q.limits.pids, 64);
	cr_assert_eq(q.limits.time, 4294967295u);
	json_object_put(o);
	policy_free(&q);
	policy_free(&p);
}

/* each isolate bit alone, and none: the names map to the right bits */
Test(proto, launch_isolate_bits)
{
	static const unsigned bits[] = { 0, POLICY_ISO_PID, POLICY_ISO_UTS, POLICY_ISO_MOUNT,
					 POLICY_ISO_NET, POLICY_ISO_PID | POLICY_ISO_NET };
	static const char *const names[] = { "[]", "[\"pid\"]", "[\"uts\"]", "[\"mount\"]",
					     "[\"network\"]", "[\"pid\",\"network\"]" };

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		struct policy p, q;
		struct ac_error e = { 0 };
		json_object *o, *iso;

		memset(&p, 0, sizeof(p));
		p.isolate = bits[i];
		o = as_parsed(&p);
		cr_assert(json_object_object_get_ex(o, "isolate", &iso));
		cr_assert_str_eq(json_object_to_json_string_ext(iso, JSON_C_TO_STRING_PLAIN), names[i]);
		memset(&q, 0, sizeof(q));
		q.isolate = ~0u;
		cr_assert_eq(proto_launch_parse(o, &q, &e), 0, "%s", e.msg);
		cr_assert_eq(q.isolate, bits[i], "%s: %#x", names[i], q.isolate);
		/* empty everything else: an empty user, empty lists, no limits */
		cr_assert_str_eq(q.user, "");
		cr_assert_eq(q.env.n, 0);
		cr_assert_eq(q.sys_deny.n, 0);
		cr_assert_eq(q.limits.memory + q.limits.cpu_milli + q.limits.pids + q.limits.time, 0);
		json_object_put(o);
		policy_free(&q);
	}
}

Test(proto, launch_json_shape)
{
	struct policy p;
	size_t n;
	char *line;

	launch_policy(&p);
	line = proto_line(proto_launch_json(&p), &n);
	cr_assert_str_eq(line, "{\"user\":\"1000:1000\",\"isolate\":[\"pid\",\"uts\",\"mount\","
			 "\"network\"],\"env\":[\"HOME\",\"PATH\",\"LANG\"],\"syscalls_deny\":"
			 "[\"ptrace\",\"mount\"],\"limits\":{\"memory\":1099511627776,"
			 "\"cpu_milli\":1500,\"pids\":64,\"time\":4294967295}}\n");
	free(line);
	policy_free(&p);
}

#define LAUNCH_OK "\"user\":\"u\",\"isolate\":[\"pid\"],\"env\":[\"HOME\"],\"syscalls_deny\":[]"
#define LIMITS_OK "\"limits\":{\"memory\":1,\"cpu_milli\":2,\"pids\":3,\"time\":4}"

/* s refused by proto_launch_parse with frag in the message; p freed */
static void launch_refused(const char *s, const char *frag)
{
	json_object *o = json_tokener_parse(s);
	struct policy p;
	struct ac_error e = { 0 };

	cr_assert(o || !strcmp(s, "null"), "not JSON: %s", s);
	memset(&p, 0, sizeof(p));
	cr_assert_eq(proto_launch_parse(o, &p, &e), -1, "%s accepted", s);
	cr_assert_str_eq(e.code, AC_E_PROTOCOL);
	cr_assert(strstr(e.msg, frag), "%s: %s", s, e.msg);
	json_object_put(o);
	policy_free(&p);
}

Test(proto, launch_accepted_as_written)
{
	json_object *o = json_tokener_parse("{" LAUNCH_OK "," LIMITS_OK "}");
	struct policy p;
	struct ac_error e = { 0 };

	memset(&p, 0, sizeof(p));
	cr_assert_eq(proto_launch_parse(o, &p, &e), 0, "%s", e.msg);
	cr_assert_str_eq(p.user, "u");
	cr_assert_eq(p.isolate, POLICY_ISO_PID);
	cr_assert_eq(p.env.n, 1);
	cr_assert_eq(p.sys_deny.n, 0);
	cr_assert_eq(p.limits.time, 4);
	json_object_put(o);
	policy_free(&p);
}

Test(proto, launch_refused)
{
	launch_refused("null", "no launch settings");
	launch_refused("[]", "no launch settings");
	launch_refused("\"x\"", "no launch settings");
	/* user */
	launch_refused("{\"isolate\":[],\"env\":[],\"syscalls_deny\":[]," LIMITS_OK "}",
		       "\"user\" is not a user");
	launch_refused("{\"user\":7,\"isolate\":[],\"env\":[],\"syscalls_deny\":[]," LIMITS_OK "}",
		       "\"user\" is not a user");
	launch_refused("{\"user\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\","
		       "\"isolate\":[],\"env\":[],\"syscalls_deny\":[]," LIMITS_OK "}",
		       "\"user\" is not a user");
	/* isolate */
	launch_refused("{\"user\":\"u\",\"isolate\":[\"ipc\"],\"env\":[],\"syscalls_deny\":[],"
		       LIMITS_OK "}", "unknown namespace 'ipc'");
	launch_refused("{\"user\":\"u\",\"isolate\":[\"PID\"],\"env\":[],\"syscalls_deny\":[],"
		       LIMITS_OK "}", "unknown namespace 'PID'");
	launch_refused("{\"user\":\"u\",\"isolate\":\"pid\",\"env\":[],\"syscalls_deny\":[],"
		       LIMITS_OK "}", "\"isolate\" is not a list");
	launch_refused("{\"user\":\"u\",\"env\":[],\"syscalls_deny\":[]," LIMITS_OK "}",
		       "\"isolate\" is not a list");
	/* env and syscalls_deny */
	launch_refused("{\"user\":\"u\",\"isolate\":[],\"env\":\"HOME\",\"syscalls_deny\":[],"
		       LIMITS_OK "}", "\"env\" is not a list");
	launch_refused("{\"user\":\"u\",\"isolate\":[],\"env\":{},\"syscalls_deny\":[]," LIMITS_OK "}",
		       "\"env\" is not a list");
	launch_refused("{\"user\":\"u\",\"isolate\":[],\"syscalls_deny\":[]," LIMITS_OK "}",
		       "\"env\" is not a list");
	launch_refused("{\"user\":\"u\",\"isolate\":[],\"env\":[\"HOME\",7],\"syscalls_deny\":[],"
		       LIMITS_OK "}", "\"env\" is not a list");
	launch_refused("{\"user\":\"u\",\"isolate\":[],\"env\":[\"A\\u0000B\"],\"syscalls_deny\":[],"
		       LIMITS_OK "}", "\"env\" is not a list");
	launch_refused("{\"user\":\"u\",\"isolate\":[],\"env\":[],\"syscalls_deny\":[\"ptrace\",null],"
		       LIMITS_OK "}", "\"syscalls_deny\" is not a list");
	launch_refused("{\"user\":\"u\",\"isolate\":[],\"env\":[]," LIMITS_OK "}",
		       "\"syscalls_deny\" is not a list");
	/* limits: each member a number from 0 up */
	launch_refused("{" LAUNCH_OK "}", "\"limits\" are not numbers");
	launch_refused("{" LAUNCH_OK ",\"limits\":[]}", "\"limits\" are not numbers");
	launch_refused("{" LAUNCH_OK ",\"limits\":{\"memory\":-1,\"cpu_milli\":2,\"pids\":3,"
		       "\"time\":4}}", "\"limits\" are not numbers");
	launch_refused("{" LAUNCH_OK ",\"limits\":{\"memory\":1,\"cpu_milli\":-2,\"pids\":3,"
		       "\"time\":4}}", "\"limits\" are not numbers");
	launch_refused("{" LAUNCH_OK ",\"limits\":{\"memory\":1,\"cpu_milli\":2,\"pids\":-3,"
		       "\"time\":4}}", "\"limits\" are not numbers");
	launch_refused("{" LAUNCH_OK ",\"limits\":{\"memory\":1,\"cpu_milli\":2,\"pids\":3,"
		       "\"time\":-4}}", "\"limits\" are not numbers");
	launch_refused("{" LAUNCH_OK ",\"limits\":{\"memory\":\"1\",\"cpu_milli\":2,\"pids\":3,"
		       "\"time\":4}}", "\"limits\" are not numbers");
	launch_refused("{" LAUNCH_OK ",\"limits\":{\"memory\":1,\"cpu_milli\":\"2\",\"pids\":3,"
		       "\"time\":4}}", "\"limits\" are not numbers");
	launch_refused("{" LAUNCH_OK ",\"limits\":{\"memory\":1,\"cpu_milli\":2,\"pids\":\"3\","
		       "\"time\":4}}", "\"limits\" are not numbers");
	launch_refused("{" LAUNCH_OK ",\"limits\":{\"memory\":1,\"cpu_milli\":2,\"pids\":3,"
		       "\"time\":\"4\"}}", "\"limits\" are not numbers");
	launch_refused("{" LAUNCH_OK ",\"limits\":{\"memory\":1.5,\"cpu_milli\":2,\"pids\":3,"
		       "\"time\":4}}", "\"limits\" are not numbers");
	/* beyond 32 bits where the field holds 32 */
	launch_refused("{" LAUNCH_OK ",\"limits\":{\"memory\":1,\"cpu_milli\":2,\"pids\":4294967296,"
		       "\"time\":4}}", "\"limits\" are not numbers");
	launch_refused("{" LAUNCH_OK ",\"limits\":{\"memory\":1,\"cpu_milli\":2,\"pids\":3}}",
		       "\"limits\" are not numbers");
}

Test(proto, expire_request)
{
	struct proto_req r;
	struct ac_error e;

	cr_assert_eq(parse("{\"v\":1,\"method\":\"expire\",\"seconds\":90}", &r, &e), 0, "%s",
		     e.msg);
	cr_assert_eq(r.method, PM_EXPIRE);
	cr_assert_eq(r.seconds, 90);
	REFUSED("{\"v\":1,\"method\":\"expire\"}", "needs it");
	REFUSED("{\"v\":1,\"method\":\"expire\",\"seconds\":0}", "positive");
	REFUSED("{\"v\":1,\"method\":\"expire\",\"seconds\":\"9\"}", "positive");
	REFUSED("{\"v\":1,\"method\":\"expire\",\"seconds\":4294967296}", "positive");
	REFUSED("{\"v\":1,\"method\":\"ls\",\"seconds\":5}", "goes with");
}
