// SPDX-License-Identifier: GPL-2.0-only
/* harden/fds (in forked children) and harden/env. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harden/env.h"
#include "harden/fds.h"
#include "child.h"

/* descriptors open in this process, by /proc/self/fd, minus the DIR's own */
static int count_fds(int *max)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	*max = -1;
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.' && atoi(de->d_name) != dirfd(d)) {
			n++;
			if (atoi(de->d_name) > *max)
				*max = atoi(de->d_name);
		}
	if (d)
		closedir(d);
	return n;
}

static int close_all(void *arg)
{
	int keep = *(int *)arg, max;
	struct ac_child_fail f;

	/* a spread of descriptors, some high, some without CLOEXEC */
	if (open("/dev/null", O_RDONLY) < 0 || dup2(0, 100) < 0 || dup2(0, 4000) < 0 ||
	    (keep > 0 && dup2(0, keep) < 0))
		return 10;
	if (count_fds(&max) < 6)
		return 11;
	if (ac_fds_close(keep, &f))
		return 12;
	if (fcntl(0, F_GETFD) < 0 || fcntl(1, F_GETFD) < 0 || fcntl(2, F_GETFD) < 0)
		return 13;
	if (keep > 0 && fcntl(keep, F_GETFD) < 0)
		return 14;
	if (fcntl(100, F_GETFD) >= 0 || errno != EBADF || fcntl(4000, F_GETFD) >= 0)
		return 15;
	return count_fds(&max) == 3 + (keep > 0) && max == (keep > 0 ? keep : 2) ? 0 : 16;
}

Test(fds, close_all_but_stdio)
{
	int keep = -1;

	cr_assert_eq(in_child(close_all, &keep), 0);
}

Test(fds, close_all_but_stdio_and_one)
{
	int keep = 77;

	cr_assert_eq(in_child(close_all, &keep), 0);
}

static const char *get(const struct ac_env *e, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < e->n; i++)
		if (!strncmp(e->envp[i], name, len) && e->envp[i][len] == '=')
			return e->envp[i] + len + 1;
	return NULL;
}

static char *caller[] = { "PATH=/home/me/bin:/usr/bin", "HOME=/home/me", "LANG=C.UTF-8",
			  "SECRET=s3", "OPENAI_API_KEY=k", "LD_PRELOAD=/x.so", "TMPDIR=/tmp/me",
			  NULL };

Test(env, minimal_set)
{
	struct policy p = { 0 };
	struct ac_identity id = { .uid = 65534, .home = "/nonexistent" };
	struct ac_env env;
	struct ac_error e = { 0 };
	char *names[] = { "OPENAI_API_KEY", "UNSET_ONE" };

	p.env.items = names;
	p.env.n = 2;
	cr_assert_eq(ac_env_build(&p, &id, "/tmp/cage-1", caller, &env, &e), 0, "%s", e.msg);
	cr_assert_str_eq(get(&env, "PATH"), AC_ENV_PATH);
	cr_assert_str_eq(get(&env, "HOME"), "/tmp/cage-1"); /* /nonexistent is no directory */
	cr_assert_str_eq(get(&env, "LANG"), "C.UTF-8");
	cr_assert_null(get(&env, "TERM"));
	cr_assert_str_eq(get(&env, "TMPDIR"), "/tmp/cage-1");
	cr_assert_str_eq(get(&env, "OPENAI_API_KEY"), "k");
	cr_assert_null(get(&env, "SECRET"));
	cr_assert_null(get(&env, "LD_PRELOAD"));
	cr_assert_null(get(&env, "UNSET_ONE"));
	cr_assert_eq(env.n, 5);
	cr_assert_null(env.envp[env.n]);
	ac_env_free(&env);
}

Test(env, listed_path_and_home_are_the_callers)
{
	struct policy p = { 0 };
	struct ac_identity id = { .uid = 0, .home = "/root" };
	struct ac_env env;
	struct ac_error e = { 0 };
	char *names[] = { "PATH", "HOME", "LANG" };

	cr_assert_eq(ac_env_build(&p, &id, "/tmp/c", caller, &env, &e), 0, "%s", e.msg);
	cr_assert_str_eq(get(&env, "HOME"), "/root");
	ac_env_free(&env);
	p.env.items = names;
	p.env.n = 3;
	cr_assert_eq(ac_env_build(&p, &id, "/tmp/c", caller, &env, &e), 0, "%s", e.msg);
	cr_assert_str_eq(get(&env, "PATH"), "/home/me/bin:/usr/bin");
	cr_assert_str_eq(get(&env, "HOME"), "/home/me");
	cr_assert_str_eq(get(&env, "TMPDIR"), "/tmp/c");
	cr_assert_eq(env.n, 4, "LANG is not added twice");
	ac_env_free(&env);
}
