// SPDX-License-Identifier: GPL-2.0-only
/* The warnings of `agentcage check` (lib/policy/lint.c), on this host's
 * own programs and on files made here. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "policy/lint.h"

static struct policy pol;
static struct ruleset rs;
static struct lint w;
static char dir[] = "/tmp/ac-lint-XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[64];

	lint_free(&w);
	rules_free(&rs);
	policy_free(&pol);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(lint, .init = setup, .fini = teardown);

/* a policy from text with %s = the test's directory, compiled as `run` does */
static void policy(const char *fmt)
{
	char text[2048], err[256];
	struct rule_vars v = { .cwd = dir, .cage_tmp = "/CAGE_TMP" };

	lint_free(&w);
	rules_free(&rs);
	policy_free(&pol);
	snprintf(text, sizeof(text), fmt, dir, dir, dir);
	cr_assert_eq(policy_parse("t.yaml", text, strlen(text), &pol, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(rules_compile(&pol, &v, 1, &rs, err, sizeof(err)), 0, "%s", err);
}

static int has(const char *what)
{
	for (size_t i = 0; i < w.n; i++)
		if (strstr(w.msgs[i], what))
			return 1;
	return 0;
}

static void file(const char *name, const char *text, mode_t mode)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	cr_assert_not_null(f = fopen(p, "w"));
	fputs(text, f);
	fclose(f);
	chmod(p, mode);
}

Test(lint, elf_and_script_interpreters)
{
	char b[256], p[256];

	cr_assert_eq(lint_elf_interp("/usr/bin/cat", b, sizeof(b)), 1);
	cr_assert_str_eq(b, "/lib64/ld-linux-x86-64.so.2");
	if (!access("/bin/busybox", R_OK))   /* busybox-static: no interpreter */
		cr_assert_eq(lint_elf_interp("/bin/busybox", b, sizeof(b)), 0);
	file("s", "#!  /bin/sh -e\necho\n", 0755);
	snprintf(p, sizeof(p), "%s/s", dir);
	cr_assert_eq(lint_elf_interp(p, b, sizeof(b)), 0);
	cr_assert_eq(lint_script_interp(p, b, sizeof(b)), 1);
	cr_assert_str_eq(b, "/bin/sh");
	cr_assert_eq(lint_script_interp("/usr/bin/cat", b, sizeof(b)), 0);
	cr_assert_eq(lint_script_interp("/nonexistent", b, sizeof(b)), 0);
}

/* cat's loader must be a library and readable */
Test(lint, program_interpreter_coverage)
{
	policy("files:\n  read: [/usr, /lib64]\nexec:\n  allow: [/usr/bin/cat]\n");
	cr_assert_eq(lint_program(&rs, "/usr/bin/cat", "/usr/bin/cat", &w), 0);
	cr_assert_eq(w.n, 0, "%s", w.n ? w.msgs[0] : "");
	policy("files:\n  read: [/usr]\nexec:\n  allow: [/usr/bin/cat]\n  libraries: []\n");
	cr_assert_eq(lint_program(&rs, "/usr/bin/cat", "/usr/bin/cat", &w), 0);
	cr_assert_eq(w.n, 1);
	cr_assert(has("/lib64/ld-linux-x86-64.so.2"));
	cr_assert(has("exec.libraries does not cover"));
	policy("files:\n  read: [/usr/bin]\nexec:\n  allow: [/usr/bin/cat]\n");
	cr_assert_eq(lint_program(&rs, "/usr/bin/cat", "/usr/bin/cat", &w), 0);
	cr_assert_eq(w.n, 1);
	cr_assert(has("files.read does not cover"));
}

/* a script's #! interpreter must be an allowed program itself */
Test(lint, script_interpreter_must_be_a_program)
{
	char p[256];

	file("run.sh", "#!/bin/sh\n", 0755);
	snprintf(p, sizeof(p), "%s/run.sh", dir);
	policy("files:\n  read: [/]\nexec:\n  allow: ['%s/run.sh']\n");
	cr_assert_eq(lint_program(&rs, p, p, &w), 0);
	cr_assert(has("names the interpreter /bin/sh"), "%zu", w.n);
	cr_assert(has("exec.allow does not cover"));
	/* the interpreter as a library is not enough */
	policy("files:\n  read: [/]\nexec:\n  allow: ['%s/run.sh']\n  libraries: [/usr/bin, /bin]\n");
	cr_assert_eq(lint_program(&rs, p, p, &w), 0);
	cr_assert(has("exec.allow does not cover"));
	policy("files:\n  read: [/]\nexec:\n  allow: ['%s/run.sh', /usr/bin, /bin]\n");
	cr_assert_eq(lint_program(&rs, p, p, &w), 0);
	cr_assert_eq(w.n, 0, "%s", w.n ? w.msgs[0] : "");
}

/* the whole lint on a directory entry: its files are looked at */
Test(lint, directory_entries)
{
	file("a.sh", "#!/usr/bin/perl-none\n", 0755);
	file("b.sh", "#!/bin/sh\n", 0755);
	file("c.txt", "#!/bin/sh\n", 0644);     /* not executable: not a program */
	policy("files:\n  read: [/]\nexec:\n  allow: ['%s']\n");
	cr_assert_eq(policy_lint(&pol, dir, &w), 0);
	cr_assert(has("/usr/bin/perl-none, which does not exist"));
	cr_assert(has("b.sh names the interpreter /bin/sh"));
	cr_assert(!has("c.txt"));
	cr_assert_eq(w.n, 2);
}

Test(lint, write_xor_execute)
{
	policy("files:\n  read: [/usr]\n  write: ['%s']\nexec:\n  allow: [/usr/bin, '%s/bin']\n");
	cr_assert_eq(lint_wx(&pol, &rs, NULL, &w), 0);
	cr_assert_eq(w.n, 1);
	cr_assert(has("exec.allow '"));
	cr_assert(has("gives up write-xor-execute"));
	policy("files:\n  write: ['%s']\nexec:\n  libraries: ['%s/venv']\n");
	cr_assert_eq(lint_wx(&pol, &rs, NULL, &w), 0);
	cr_assert_eq(w.n, 1);
	cr_assert(has("exec.libraries '"));
	/* a write grant inside the default libraries, and one equal to an exec entry */
	policy("files:\n  write: [/usr/lib/x, '%s']\nexec:\n  allow: ['%s']\n");
	cr_assert_eq(lint_wx(&pol, &rs, NULL, &w), 0);
	cr_assert(has("files.write '/usr/lib/x' lies inside"));
	cr_assert_eq(w.n, 2, "%zu", w.n);
	/* the usual policy: nothing */
	policy("files:\n  read: [/usr]\n  write: ['%s', /tmp]\nexec:\n  allow: [/usr/bin]\n");
	cr_assert_eq(lint_wx(&pol, &rs, NULL, &w), 0);
	cr_assert_eq(w.n, 0, "%s", w.n ? w.msgs[0] : "");
}

Test(lint, write_permissions)
{
	char p[256], at[256];
	struct stat st;

	chmod(dir, 0755);    /* root's, like the usual ${CWD} */
	cr_assert_eq(lint_can_write(dir, 0, 0, at, sizeof(at), &st), 1);
	cr_assert_eq(lint_can_write(dir, 12345, 12345, at, sizeof(at), &st), 0);
	snprintf(p, sizeof(p), "%s/new/deeper", dir);     /* made later: its ancestor decides */
	cr_assert_eq(lint_can_write(p, 12345, 12345, at, sizeof(at), &st), 0);
	cr_assert_str_eq(at, dir);
	cr_assert_eq(chown(dir, 0, 12345), 0);
	chmod(dir, 0775);
	cr_assert_eq(lint_can_write(p, 12345, 12345, at, sizeof(at), &st), 1);
	cr_assert_eq(lint_can_write(p, 12345, 777, at, sizeof(at), &st), 0);
	chmod(dir, 0757);
	cr_assert_eq(lint_can_write(p, 12345, 777, at, sizeof(at), &st), 1);
	cr_assert_eq(lint_can_write("/dev/null", 12345, 777, at, sizeof(at), &st), 1);
	chmod(dir, 0755);
	policy("user: '12345:12345'\nfiles:\n  write: ['${CWD}', '${CAGE_TMP}', /dev/null]\n");
	cr_assert_eq(policy_lint(&pol, dir, &w), 0);
	cr_assert_eq(w.n, 1, "%zu", w.n);
	cr_assert(has("files.write '${CWD}': user '12345:12345' (uid 12345) cannot write"));
	cr_assert(has("mode 0755"));
	policy("user: '0'\nfiles:\n  write: ['${CWD}']\n");   /* root: no warning */
	cr_assert_eq(policy_lint(&pol, dir, &w), 0);
	cr_assert_eq(w.n, 0);
	/* no user: the default for the caller, nobody for root (the shipped
	 * default policy's case: ${CWD} is root's 0755) */
	policy("files:\n  write: ['${CWD}']\n");
	cr_assert_eq(policy_lint(&pol, dir, &w), 0);
	if (geteuid() == 0) {
		cr_assert_eq(w.n, 1, "%zu", w.n);
		cr_assert(has("files.write '${CWD}': the default user 'nobody' (uid 65534) cannot "
			      "write"));
	} else {
		cr_assert_eq(w.n, 0);   /* the caller itself: its own 0755 dir */
	}
}
