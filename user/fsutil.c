#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fsutil.h"

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
