// SPDX-License-Identifier: GPL-2.0-only
/* harden-probe: what a caged agent is left with, one "key value" line each:
 * the /proc/self/status identity lines (Uid Gid Groups Cap* NoNewPrivs
 * Seccomp), "fd N -> target" for every open descriptor, "env NAME=value",
 * "ns NAME inode", "keyring N" (the session keyring id) and "pid N". */
#define _GNU_SOURCE
#include <dirent.h>
#include <linux/keyctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

static void status(void)
{
	static const char *const keys[] = { "Uid:", "Gid:", "Groups:", "CapInh:", "CapPrm:",
					     "CapEff:", "CapBnd:", "CapAmb:", "NoNewPrivs:",
					     "Seccomp:" };
	char line[512];
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strncmp(line, keys[i], strlen(keys[i])))
				fputs(line, stdout);
	if (f)
		fclose(f);
}

static void fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	char path[300], target[512];

	while (d && (de = readdir(d))) {
		ssize_t n;

		if (de->d_name[0] == '.' || atoi(de->d_name) == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = 0;
		printf("fd %s -> %s\n", de->d_name, target);
	}
	if (d)
		closedir(d);
}

int main(void)
{
	static const char *const ns[] = { "ipc", "mnt", "net", "pid", "uts", "user", "cgroup" };
	struct stat st;
	char path[64];

	status();
	fds();
	for (char **e = environ; *e; e++)
		printf("env %s\n", *e);
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		snprintf(path, sizeof(path), "/proc/self/ns/%s", ns[i]);
		printf("ns %s %lu\n", ns[i], stat(path, &st) ? 0UL : (unsigned long)st.st_ino);
	}
	printf("keyring %ld\n", syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID,
					KEY_SPEC_SESSION_KEYRING, 0));
	printf("pid %d\n", getpid());
	return 0;
}
