// SPDX-License-Identifier: GPL-2.0-only
#include <criterion/criterion.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "policy/compile.h"

static const struct rule_vars vars = { .cwd = "/home/agent/proj", .cage_tmp = "/tmp/ac-X" };

static struct policy_source text(const char *t)
{
	return (struct policy_source){ .text = t, .len = strlen(t), .name = "inline",
				       .mode = MODE_UNSET, .vars = &vars };
}

/* Heap bytes that 500 failing compiles of src leave allocated. The
 * smallest allocation leaked per call would add 16000 bytes; what the C
 * library and criterion allocate once (or in criterion's own thread) stays
 * far below 4096. */
static long heap_growth(const struct policy_source *src)
{
	struct compiled_policy cp;
	size_t before;

	if (!policy_compile(src, &cp, NULL))
		compiled_policy_free(&cp);
	before = mallinfo2().uordblks;
	for (int i = 0; i < 500; i++)
		if (!policy_compile(src, &cp, NULL))
			return -1;
	return (long)(mallinfo2().uordblks - before);
}

static int all_zero(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

Test(compile, text_to_rules_and_network)
{
	struct policy_source src = text("name: t\nfiles:\n  read: [/usr]\n  write: ['${CWD}']\n"
					"exec:\n  allow: [/usr/bin]\nnetwork:\n  allow: [10.0.0.0/8:443]\n"
					"  unix: ['${CAGE_TMP}/s']\n");
	struct compiled_policy cp;
	struct ac_error e = { 0 };

	cr_assert_eq(policy_compile(&src, &cp, &e), 0, "%s", e.msg);
	cr_assert_null(e.code);
	cr_assert_str_eq(cp.pol.name, "t");
	cr_assert_eq(cp.pol.mode, MODE_UNSET);
	cr_assert_eq(cp.rs.nfiles, 2);
	cr_assert_eq(rules_file_class(&cp.rs, "/home/agent/proj/a"), AC_WRITE);
	cr_assert_eq(cp.rs.nexec, 4);   /* /usr/bin and the default libraries */
	cr_assert(rules_exec_allowed(&cp.rs, "/usr/bin/cat"));
	cr_assert(!rules_exec_allowed(&cp.rs, "/usr/lib/x86_64-linux-gnu/libc.so.6"));
	cr_assert(rules_map_allowed(&cp.rs, "/usr/lib/x86_64-linux-gnu/libc.so.6"));
	cr_assert_eq(cp.rs.nunix, 1);
	cr_assert_gt(cp.ns.n, 0);
	cr_assert_eq(cp.hosts.n, 0);
	compiled_policy_free(&cp);
	cr_assert(all_zero(&cp.rs, sizeof(cp.rs)));
	cr_assert_null(cp.ns.nodes);
	compiled_policy_free(&cp);   /* twice is harmless */
}

Test(compile, mode_override)
{
	struct policy_source src = text("mode: enforce\nfiles:\n  read: [/usr]\n");
	struct compiled_policy cp;

	src.mode = MODE_AUDIT;
	cr_assert_eq(policy_compile(&src, &cp, NULL), 0);
	cr_assert_eq(cp.pol.mode, MODE_AUDIT);
	compiled_policy_free(&cp);
	src.mode = MODE_UNSET;
	cr_assert_eq(policy_compile(&src, &cp, NULL), 0);
	cr_assert_eq(cp.pol.mode, MODE_ENFORCE);
	compiled_policy_free(&cp);
}

Test(compile, embedded_default)
{
	struct policy_source src = { .mode = MODE_UNSET, .vars = &vars, .resolve_links = 0 };
	struct compiled_policy cp;
	struct ac_error e = { 0 };

	cr_assert_eq(policy_compile(&src, &cp, &e), 0, "%s", e.msg);
	cr_assert_str_eq(cp.pol.name, "default");
	cr_assert_eq(rules_file_class(&cp.rs, "/usr/bin/sh"), AC_READ);
	cr_assert_eq(rules_file_class(&cp.rs, "/home/agent/proj/x"), AC_WRITE);
	cr_assert(rules_exec_allowed(&cp.rs, "/usr/bin/sh"));
	compiled_policy_free(&cp);
}

Test(compile, parse_error_names_line_and_leaves_nothing)
{
	struct policy_source src = text("files:\n  read: [/usr]\n  bogus: [/x]\n");
	struct compiled_policy cp;
	struct ac_error e = { 0 };

	memset(&cp, 0x5a, sizeof(cp));
	cr_assert_eq(policy_compile(&src, &cp, &e), -1);
	cr_assert_str_eq(e.code, AC_E_POLICY_INVALID);
	cr_assert(!strncmp(e.msg, "inline:3:3: ", 12), "%s", e.msg);
	cr_assert(all_zero(&cp, sizeof(cp)));
	cr_assert_lt(heap_growth(&src), 4096);
}

/* the parse succeeded and the rules compiler refused: everything parsed is freed */
Test(compile, compile_error_names_source_and_leaves_nothing)
{
	struct policy_source src = text("files:\n  read: [/usr, /lib, '${HOME}/x']\n"
					"network:\n  allow: [10.0.0.1, 10.0.0.0/8:443]\n");
	struct compiled_policy cp;
	struct ac_error e = { 0 };

	memset(&cp, 0x5a, sizeof(cp));
	cr_assert_eq(policy_compile(&src, &cp, &e), -1);
	cr_assert_str_eq(e.code, AC_E_POLICY_INVALID);
	cr_assert_str_eq(e.msg, "inline: unknown variable in '${HOME}/x' (known: ${CWD}, ${CAGE_TMP})");
	cr_assert(all_zero(&cp, sizeof(cp)));
	cr_assert_lt(heap_growth(&src), 4096);
	/* without variables, ${CWD} has no value: refused after the read rules */
	src = text("files:\n  read: [/usr, /lib, /etc]\n  write: ['${CWD}']\n");
	src.vars = NULL;
	cr_assert_eq(policy_compile(&src, &cp, &e), -1);
	cr_assert(strstr(e.msg, "has no value"), "%s", e.msg);
	cr_assert_lt(heap_growth(&src), 4096);
}

Test(compile, missing_file_is_unreadable)
{
	struct policy_source src = { .path = "/nonexistent/p.yaml", .mode = MODE_UNSET,
				     .vars = &vars };
	struct compiled_policy cp;
	struct ac_error e = { 0 };

	cr_assert_eq(policy_compile(&src, &cp, &e), -1);
	cr_assert_str_eq(e.code, AC_E_POLICY_IO);
	cr_assert(strstr(e.msg, "/nonexistent/p.yaml"), "%s", e.msg);
}

Test(compile, file_named_after_its_base_name)
{
	char path[] = "/tmp/ac-compile-XXXXXX";
	int fd = mkstemp(path);
	struct policy_source src = { .path = path, .mode = MODE_UNSET, .vars = &vars };
	struct compiled_policy cp;
	struct ac_error e = { 0 };

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "files:\n  read: [/usr]\n  write: ['${X}']\n", 39), 39);
	close(fd);
	cr_assert_eq(policy_compile(&src, &cp, &e), -1);
	cr_assert_str_eq(e.code, AC_E_POLICY_INVALID);
	cr_assert(!strncmp(e.msg, path, strlen(path)) && strstr(e.msg, ": unknown variable in '${X}'"),
		  "%s", e.msg);
	fd = open(path, O_WRONLY | O_TRUNC);
	cr_assert_eq(write(fd, "files:\n  read: [/usr]\n", 22), 22);
	close(fd);
	cr_assert_eq(policy_compile(&src, &cp, &e), 0, "%s", e.msg);
	cr_assert_str_eq(cp.pol.name, path + 5);
	compiled_policy_free(&cp);
	unlink(path);
}

/* a policy sent as text (agentcage run --policy through a daemon) is named
 * after the file it came from, as one read from that file */
Test(compile, text_named_after_its_file)
{
	struct policy_source src = text("files:\n  read: [/usr]\n");
	struct compiled_policy cp;
	struct ac_error e = { 0 };

	src.name = "/home/u/agent.yaml";
	cr_assert_eq(policy_compile(&src, &cp, &e), 0, "%s", e.msg);
	cr_assert_str_eq(cp.pol.name, "agent");
	compiled_policy_free(&cp);
	src = text("name: mine\nfiles:\n  read: [/usr]\n");
	src.name = "/home/u/agent.yaml";
	cr_assert_eq(policy_compile(&src, &cp, &e), 0, "%s", e.msg);
	cr_assert_str_eq(cp.pol.name, "mine");
	compiled_policy_free(&cp);
}
