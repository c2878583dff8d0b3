// SPDX-License-Identifier: GPL-2.0-only
/* Reach files through mounts outside the task's mount namespace tree.
 *   detached read DIR REL          open_tree(DIR, OPEN_TREE_CLONE), openat(fd, REL), print it
 *   detached append DIR REL TEXT   ... open REL for append and write TEXT
 *   detached exec DIR REL [ARG...] ... execveat(fd, REL)
 *   detached touch DIR REL         ... fchdir(fd), then utimensat(REL) to 2001-01-01
 *   detached fchdir DIR REL        ... fchdir(fd), then open(REL) and print it
 *   detached fsmount REL           a new tmpfs by fsopen/fsmount, create REL in it
 *   detached fd N read|append|exec REL [TEXT|ARG...]   the same on an inherited fd N
 *   detached hold DIR CMD...       open_tree(DIR, OPEN_TREE_CLONE) as fd 3 (inherited), exec CMD
 *   detached hold-stdin DIR CMD... the same as fd 0 (agentcage run closes every other)
 * Exit status: 0 done, 1 the access was refused (errno on stderr), 3 the
 * detached mount could not be made, 2 usage. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_fsopen
#define SYS_fsopen 430
#endif
#ifndef SYS_fsconfig
#define SYS_fsconfig 431
#endif
#ifndef SYS_fsmount
#define SYS_fsmount 432
#endif

extern char **environ;

static int fail(const char *what, int st)
{
	fprintf(stderr, "detached: %s: %s\n", what, strerror(errno));
	return st;
}

static int clone_tree(const char *dir, unsigned flags)
{
	return syscall(SYS_open_tree, AT_FDCWD, dir, OPEN_TREE_CLONE | flags);
}

static int cat_fd(int fd)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(1, buf, n) != n)
			return 1;
	return n < 0 ? fail("read", 1) : 0;
}

/* the access itself, on the detached tree fd */
static int access_at(int fd, const char *what, char **rest, int nrest)
{
	const char *rel = nrest > 0 ? rest[0] : "";
	int f;

	if (!strcmp(what, "read")) {
		if ((f = openat(fd, rel, O_RDONLY)) < 0)
			return fail("openat", 1);
		return cat_fd(f);
	}
	if (!strcmp(what, "append") && nrest >= 2) {
		if ((f = openat(fd, rel, O_WRONLY | O_APPEND)) < 0)
			return fail("openat", 1);
		return write(f, rest[1], strlen(rest[1])) < 0 ? fail("write", 1) : 0;
	}
	if (!strcmp(what, "exec")) {
		syscall(SYS_execveat, fd, rel, &rest[0], environ, 0);
		return fail("execveat", 1);
	}
	if (!strcmp(what, "fchdir") || !strcmp(what, "touch")) {
		struct timespec ts[2] = { { 978307200, 0 }, { 978307200, 0 } };

		if (fchdir(fd))
			return fail("fchdir", 3);
		if (!strcmp(what, "touch"))
			return utimensat(AT_FDCWD, rel, ts, 0) ? fail("utimensat", 1) : 0;
		if ((f = open(rel, O_RDONLY)) < 0)
			return fail("open", 1);
		return cat_fd(f);
	}
	fprintf(stderr, "detached: unknown access %s\n", what);
	return 2;
}

static int new_tmpfs(void)
{
	int fs = syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);

	if (fs < 0)
		return -1;
	if (syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		return -1;
	return syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, 0);
}

int main(int argc, char **argv)
{
	int fd, f;

	if (argc >= 3 && !strcmp(argv[1], "fsmount")) {
		if ((fd = new_tmpfs()) < 0)
			return fail("fsmount", 3);
		if ((f = openat(fd, argv[2], O_CREAT | O_WRONLY, 0644)) < 0)
			return fail("openat", 1);
		return write(f, "x\n", 2) < 0 ? fail("write", 1) : 0;
	}
	if (argc >= 4 && (!strcmp(argv[1], "hold") || !strcmp(argv[1], "hold-stdin"))) {
		int to = strcmp(argv[1], "hold") ? 0 : 3;

		if ((fd = clone_tree(argv[2], 0)) < 0)
			return fail("open_tree", 3);
		if (fd != to && (dup2(fd, to) < 0 || close(fd)))
			return fail("dup2", 3);
		execvp(argv[3], &argv[3]);
		return fail("exec", 3);
	}
	if (argc >= 5 && !strcmp(argv[1], "fd"))
		return access_at(atoi(argv[2]), argv[3], &argv[4], argc - 4);
	if (argc >= 4) {
		if ((fd = clone_tree(argv[2], OPEN_TREE_CLOEXEC)) < 0)
			return fail("open_tree", 3);
		return access_at(fd, argv[1], &argv[3], argc - 3);
	}
	fprintf(stderr, "usage: detached read|append|exec|touch|fchdir DIR REL ... | fsmount REL | "
		"fd N ACCESS REL ... | hold[-stdin] DIR CMD...\n");
	return 2;
}
