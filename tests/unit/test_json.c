// SPDX-License-Identifier: GPL-2.0-only
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "event/event.h"
#include "event/json.h"

static char *render(const char *s, ssize_t len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	json_write_string(f, s, len);
	fclose(f);
	return buf;
}

#define EXPECT(in, len, out) do { char *r = render(in, len); \
	cr_assert_str_eq(r, out); free(r); } while (0)

Test(json, escapes)
{
	EXPECT("plain", -1, "\"plain\"");
	EXPECT("a\"b\\c", -1, "\"a\\\"b\\\\c\"");
	EXPECT("l1\nl2\tx\r", -1, "\"l1\\nl2\\tx\\r\"");
	EXPECT("\x01\x1f\x7f", -1, "\"\\u0001\\u001f\\u007f\"");
}

Test(json, utf8_valid_and_invalid)
{
	EXPECT("caf\xc3\xa9", -1, "\"caf\xc3\xa9\"");
	EXPECT("\xf0\x9f\x98\x80", -1, "\"\xf0\x9f\x98\x80\"");
	EXPECT("bad\xff", -1, "\"bad\\ufffd\"");
	EXPECT("\xc3", -1, "\"\\ufffd\"");           /* truncated sequence */
	EXPECT("\xc0\xaf", -1, "\"\\ufffd\\ufffd\"");  /* overlong */
	EXPECT("\xed\xa0\x80", -1, "\"\\ufffd\\ufffd\\ufffd\""); /* surrogate */
}

Test(json, embedded_nul_with_length)
{
	EXPECT("a\0b", 3, "\"a\\u0000b\"");
}

Test(json, event_line)
{
	struct ac_event e = { .pid = 42, .uid = 1000, .op = AC_OP_OPEN_READ, .action = AC_DENIED };
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	strcpy(e.comm, "cat");
	strcpy(e.path, "/etc/sh\"adow");
	e.path_len = strlen(e.path);
	event_write_json(f, &e, "c1", 1764633600123456789ull, NULL);
	fclose(f);
	cr_assert_str_eq(buf, "{\"time\":\"2025-12-02T00:00:00.123456Z\",\"cage\":\"c1\",\"pid\":42,"
			 "\"uid\":1000,\"comm\":\"cat\",\"op\":\"open_read\",\"path\":\"/etc/sh\\\"adow\","
			 "\"action\":\"denied\"}\n");
	free(buf);
	/* the deciding rule, escaped as any string, in both forms */
	f = open_memstream(&buf, &n);
	event_write_json(f, &e, "c1", 1764633600123456789ull, "files.deny: /etc/sh\"adow");
	event_write_plain(f, &e, "c1", 1764633600123456789ull, "files.deny: /etc/sh\"adow");
	fclose(f);
	cr_assert(strstr(buf, "\"action\":\"denied\",\"rule\":\"files.deny: /etc/sh\\\"adow\"}\n"), "%s", buf);
	cr_assert(strstr(buf, " path=\"/etc/sh\\\"adow\" rule=\"files.deny: /etc/sh\\\"adow\"\n"), "%s", buf);
	free(buf);
}

/* a run's own records: the fields every consumer may rely on, and none of
 * an event's (a consumer tells them apart by "record") */
Test(json, start_and_reload_records)
{
	struct event_record r = { .record = "start", .cage = "c\"1", .enforcer = "landlock",
				  .mode = "enforce", .policy = "/p.yaml", .pid = 42,
				  .landlock_abi = 7, .file_events = 0 };
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	event_write_record(f, &r, 1764633600123456789ull);
	r = (struct event_record){ .record = "reload", .cage = "c", .enforcer = "bpf-lsm",
				   .mode = "audit", .file_events = 1, .needs_restart = 1 };
	event_write_record(f, &r, 1764633600123456789ull);
	fclose(f);
	cr_assert_str_eq(buf, "{\"time\":\"2025-12-02T00:00:00.123456Z\",\"cage\":\"c\\\"1\","
			 "\"record\":\"start\",\"enforcer\":\"landlock\",\"mode\":\"enforce\","
			 "\"policy\":\"/p.yaml\",\"pid\":42,\"landlock_abi\":7,\"file_events\":false}\n"
			 "{\"time\":\"2025-12-02T00:00:00.123456Z\",\"cage\":\"c\",\"record\":\"reload\","
			 "\"enforcer\":\"bpf-lsm\",\"mode\":\"audit\",\"policy\":null,"
			 "\"file_events\":true,\"needs_restart\":true}\n");
	free(buf);
}

/* every operation the programs can report has its own event name */
Test(json, every_op_has_a_distinct_name)
{
	for (uint32_t a = 1; a < AC_OP__MAX; a++) {
		cr_assert_str_neq(event_op_name(a), "unknown", "op %u has no name", a);
		for (uint32_t b = 1; b < a; b++)
			cr_assert_str_neq(event_op_name(a), event_op_name(b), "ops %u and %u share a name", a, b);
	}
	cr_assert_str_eq(event_op_name(AC_OP_URING), "io_uring");
	cr_assert_str_eq(event_op_name(AC_OP__MAX), "unknown");
}

static char *render_event(const struct ac_event *e, int json)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (json)
		event_write_json(f, e, "c", 0, NULL);
	else
		event_write_plain(f, e, "c", 0, NULL);
	fclose(f);
	return buf;
}

/* an event's argument: named by its op, in both forms */
Test(json, event_arguments)
{
	struct ac_event e = { .pid = 7, .op = AC_OP_CAPABILITY, .action = AC_DENIED,
			      .flags = AC_EV_ARG, .arg = 21 };
	char *j, *p;

	strcpy(e.comm, "sh");
	j = render_event(&e, 1);
	p = render_event(&e, 0);
	cr_assert(strstr(j, ",\"op\":\"capability\",\"capability\":\"CAP_SYS_ADMIN\",\"path\":\"\""), "%s", j);
	cr_assert(strstr(p, " op=capability capability=CAP_SYS_ADMIN path=-\n"), "%s", p);
	free(j);
	free(p);
	e.arg = 99;      /* a capability this build has no name for */
	j = render_event(&e, 1);
	cr_assert(strstr(j, "\"capability\":\"99\""), "%s", j);
	free(j);
	e.op = AC_OP_IOCTL;
	e.arg = 0x5412;  /* TIOCSTI */
	strcpy(e.path, "/dev/pts/0");
	e.path_len = strlen(e.path);
	j = render_event(&e, 1);
	cr_assert(strstr(j, "\"op\":\"ioctl\",\"ioctl\":\"0x5412\",\"path\":\"/dev/pts/0\""), "%s", j);
	free(j);
	e.op = AC_OP_DEVICE;
	e.arg = 8u << 20 | 1;
	p = render_event(&e, 0);
	cr_assert(strstr(p, " device=8:1 path=\"/dev/pts/0\"\n"), "%s", p);
	free(p);
	e.op = AC_OP_PTRACE;
	e.arg = 4242;    /* the target's pid: a number */
	e.path_len = 0;
	j = render_event(&e, 1);
	cr_assert(strstr(j, "\"op\":\"ptrace\",\"target\":4242,\"path\":\"\""), "%s", j);
	free(j);
	e.op = AC_OP_SCHED;
	e.arg = 4243;    /* the target's pid, as for ptrace */
	j = render_event(&e, 1);
	cr_assert(strstr(j, "\"op\":\"sched\",\"target\":4243,\"path\":\"\""), "%s", j);
	free(j);
	p = render_event(&e, 0);
	cr_assert(strstr(p, " op=sched target=4243 path=-\n"), "%s", p);
	free(p);
	e.path_len = strlen(e.path);
	e.flags = 0;     /* no argument: no key */
	j = render_event(&e, 1);
	cr_assert(!strstr(j, "\"device\":"), "%s", j);
	free(j);
	e.op = AC_OP_WATCH;   /* an inotify/fanotify watch: a file op with its path */
	j = render_event(&e, 1);
	cr_assert(strstr(j, "\"op\":\"watch\",\"path\":\"/dev/pts/0\""), "%s", j);
	free(j);
}

/* a refused mapping as code says where to grant it, in the plain line only */
Test(json, mmap_exec_hint)
{
	struct ac_event e = { .pid = 7, .op = AC_OP_MMAP_EXEC, .action = AC_DENIED };
	char *j, *p;

	strcpy(e.comm, "python3");
	strcpy(e.path, "/w/libx.so");
	e.path_len = strlen(e.path);
	p = render_event(&e, 0);
	j = render_event(&e, 1);
	cr_assert(strstr(p, " op=mmap_exec path=\"/w/libx.so\" (add its directory to exec.libraries)\n"),
		  "%s", p);
	cr_assert(!strstr(j, "libraries"), "%s", j);
	free(p);
	free(j);
	e.op = AC_OP_EXEC;
	p = render_event(&e, 0);
	cr_assert(!strstr(p, "libraries"), "%s", p);
	free(p);
}
