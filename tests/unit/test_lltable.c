// SPDX-License-Identifier: GPL-2.0-only
/* The Landlock table: which rows a policy gets, and their levels. */
#include <criterion/criterion.h>
#include <string.h>
#include "enforce/lltable.h"

static const struct rule_vars vars = { .cwd = "/usr", .cage_tmp = "/tmp/ac-fresh-X" };

static struct ll_table table(const char *text, struct ll_opts o)
{
	struct policy_source src = { .text = text, .len = strlen(text), .name = "inline",
				     .mode = MODE_UNSET, .vars = &vars };
	struct compiled_policy cp;
	struct ll_table t;

	cr_assert_eq(policy_compile(&src, &cp, NULL), 0);
	cr_assert_eq(ll_table_build(&cp, &o, &t), 0);
	compiled_policy_free(&cp);
	return t;
}

/* the level of the first row whose what starts with what; -1: none */
static int level_of(const struct ll_table *t, const char *what)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strncmp(t->rows[i].what, what, strlen(what)))
			return t->rows[i].level;
	return -1;
}

Test(lltable, audit_and_root_cannot_be_held)
{
	struct ll_table t = table("mode: audit\nfiles:\n  read: [/usr]\n", (struct ll_opts){ .abi = 7 });

	cr_assert_eq(level_of(&t, "mode: audit"), LL_CANNOT);
	cr_assert_eq(t.worst, LL_CANNOT);
	ll_table_free(&t);
	t = table("files:\n  read: [/usr]\n", (struct ll_opts){ .abi = 7, .privileged = 1 });
	cr_assert_eq(level_of(&t, "user: root"), LL_CANNOT);
	ll_table_free(&t);
	t = table("files:\n  read: [/usr]\n", (struct ll_opts){ .abi = 7 });
	cr_assert_eq(level_of(&t, "mode: audit"), -1);
	cr_assert_eq(level_of(&t, "user: root"), -1);
	cr_assert_eq(t.worst, LL_WEAKER);   /* the baseline's unix path sockets */
	ll_table_free(&t);
}

Test(lltable, narrower_entries_and_missing_paths)
{
	struct ll_table t = table("files:\n  read: [/usr, /nonexistent-ac, \"${CAGE_TMP}\"]\n"
				  "  deny: [/usr/bin]\n", (struct ll_opts){ .abi = 7,
				  .fresh = "/tmp/ac-fresh-X" });

	cr_assert_eq(level_of(&t, "/usr"), LL_DIFFERS);
	for (size_t i = 0; i < t.n; i++)
		if (!strcmp(t.rows[i].what, "/usr"))
			cr_assert(strstr(t.rows[i].how, "narrower entry"), "%s", t.rows[i].how);
	cr_assert_eq(level_of(&t, "/nonexistent-ac"), LL_DIFFERS);
	cr_assert_eq(level_of(&t, "/tmp/ac-fresh-X"), -1, "the run's own tmp is made for it");
	cr_assert_eq(level_of(&t, "/usr/bin"), -1, "a deny needs no row");
	ll_table_free(&t);
	/* a wider entry beneath (write inside read) needs no split */
	t = table("files:\n  read: [/usr]\n  write: [/usr/bin]\n", (struct ll_opts){ .abi = 7 });
	cr_assert_eq(level_of(&t, "/usr"), -1);
	ll_table_free(&t);
}

Test(lltable, kernel_filesystems_proc_and_abi)
{
	struct ll_table t = table("files:\n  read: [/proc]\n  write: [/sys/kernel]\n",
				  (struct ll_opts){ .abi = 5 });

	cr_assert_eq(level_of(&t, "/sys/kernel"), LL_WEAKER);
	cr_assert_eq(level_of(&t, "/proc/PID"), LL_WEAKER);
	cr_assert_eq(level_of(&t, "signals to tasks outside"), LL_WEAKER, "no signal scope below ABI 6");
	ll_table_free(&t);
	t = table("files:\n  read: [/usr]\n", (struct ll_opts){ .abi = 6 });
	cr_assert_eq(level_of(&t, "signals to tasks outside"), LL_HOLDS);
	cr_assert_eq(level_of(&t, "/proc/PID"), -1);
	ll_table_free(&t);
}

Test(lltable, unix_names_and_no_pty)
{
	struct ll_table t = table("network:\n  unix: [\"@tools\"]\n",
				  (struct ll_opts){ .abi = 6, .no_pty = 1 });

	cr_assert_eq(level_of(&t, "network.unix @tools"), LL_DIFFERS);
	cr_assert_eq(level_of(&t, "terminal signals"), LL_WEAKER);
	ll_table_free(&t);
	t = table("network:\n  unix: [\"@tools\"]\n", (struct ll_opts){ .abi = 5 });
	cr_assert_eq(level_of(&t, "network.unix @tools"), LL_WEAKER);
	cr_assert_eq(level_of(&t, "terminal signals"), LL_HOLDS);
	ll_table_free(&t);
}

Test(lltable, network_rows)
{
	struct ll_table t = table("network:\n  allow: [\"10.0.0.0/8:443/tcp\"]\n",
				  (struct ll_opts){ .abi = 7 });

	cr_assert_eq(level_of(&t, "network.allow, network.deny"), LL_DIFFERS);
	for (size_t i = 0; i < t.n; i++)
		if (!strcmp(t.rows[i].what, "network.allow, network.deny"))
			cr_assert(strstr(t.rows[i].how, "EPERM"), "%s", t.rows[i].how);
	cr_assert_eq(level_of(&t, "IP sockets handed in"), LL_WEAKER);
	ll_table_free(&t);
	/* no network rules: no network row, the handed-in sockets' row stays */
	t = table("files:\n  read: [/usr]\n", (struct ll_opts){ .abi = 7 });
	cr_assert_eq(level_of(&t, "network.allow, network.deny"), -1);
	cr_assert_eq(level_of(&t, "IP sockets handed in"), LL_WEAKER);
	ll_table_free(&t);
}
