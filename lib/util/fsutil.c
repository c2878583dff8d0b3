// SPDX-License-Identifier: GPL-2.0-only
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/fsutil.h"

static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

int rm_tree(const char *dir)
{
	struct stat st;

	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return lstat(dir, &st) == 0 || errno != ENOENT ? -1 : 0;
}

int owner_gone(long pid)
{
	return pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

void tmp_sweep(void)
{
	glob_t g;

	if (glob("/tmp/agentcage-*-*", GLOB_NOSORT, NULL, &g))
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *p = g.gl_pathv[i] + strlen("/tmp/agentcage-");
		struct stat st;
		char *end;
		long pid = strtol(p, &end, 10);

		if (end == p || *end != '-' || !owner_gone(pid))
			continue;
		if (lstat(g.gl_pathv[i], &st) || !S_ISDIR(st.st_mode) || st.st_uid != 0)
			continue;
		rm_tree(g.gl_pathv[i]);
	}
	globfree(&g);
}
