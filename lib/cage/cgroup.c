// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cage/cgroup.h"
#include "util/fsutil.h"

static int find_cgroup2(char *mnt, size_t mlen, uint32_t *root_depth)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		char root[PATH_MAX], point[PATH_MAX], *sep;

		if (!(sep = strstr(line, " - ")) || strncmp(sep + 3, "cgroup2 ", 8))
			continue;
		if (sscanf(line, "%*d %*d %*s %4095s %4095s", root, point) != 2)
			continue;
		if (strlen(point) >= mlen)
			continue;
		memcpy(mnt, point, strlen(point) + 1);
		*root_depth = 0;
		for (char *p = root; *p; p++)
			if (*p == '/' && p[1])
				(*root_depth)++;
		found = 1;
	}
	fclose(f);
	return found ? 0 : -1;
}

static int write_file(const char *dir, const char *file, const char *val)
{
	char p[PATH_MAX + 32];
	int fd, ret = 0;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	if ((fd = open(p, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		ret = -1;
	close(fd);
	return ret;
}

/* Cages of agentcage processes that died before their guard could clean up
 * (SIGKILL while loading, say): their owner's pid is the name's suffix.
 * Whatever is left in them is killed and the cgroups removed. */
static void sweep(const char *parent)
{
	DIR *d = opendir(parent);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		struct cage_cgroup old = { 0 };
		char *dash = strrchr(de->d_name, '-'), *end;
		long pid;

		if (de->d_type != DT_DIR || !dash)
			continue;
		pid = strtol(dash + 1, &end, 10);
		if (*end || !owner_gone(pid))
			continue;    /* its agentcage (or a process with its pid) lives */
		snprintf(old.path, sizeof(old.path), "%s/%s", parent, de->d_name);
		cgroup_destroy(&old);
	}
	if (d)
		closedir(d);
}

int cgroup_parent(struct cage_cgroup *cg, char *err, size_t errlen)
{
	char mnt[PATH_MAX / 2];
	uint32_t depth;
	struct stat st;

	if (find_cgroup2(mnt, sizeof(mnt), &depth)) {
		snprintf(err, errlen, "no cgroup v2 filesystem is mounted; mount one with "
			 "'mount -t cgroup2 none /sys/fs/cgroup' (or boot with systemd.unified_cgroup_hierarchy=1)");
		return -1;
	}
	snprintf(cg->parent, sizeof(cg->parent), "%s/agentcage", mnt);
	if (mkdir(cg->parent, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create cgroup %s: %s", cg->parent, strerror(errno));
		return -1;
	}
	if (stat(cg->parent, &st)) {
		snprintf(err, errlen, "cannot stat %s: %s", cg->parent, strerror(errno));
		return -1;
	}
	cg->parent_id = st.st_ino;
	cg->parent_level = depth + 1;
	return 0;
}

static int make(struct cage_cgroup *cg, char *err, size_t errlen)
{
	struct stat st;

	if (mkdir(cg->path, 0755)) {
		snprintf(err, errlen, "cannot create cgroup %s: %s", cg->path, strerror(errno));
		return -1;
	}
	if (stat(cg->path, &st)) {
		snprintf(err, errlen, "cannot stat %s: %s", cg->path, strerror(errno));
		rmdir(cg->path);
		return -1;
	}
	cg->id = st.st_ino;
	return 0;
}

int cgroup_create(struct cage_cgroup *cg, const char *name, char *err, size_t errlen)
{
	if (cgroup_parent(cg, err, errlen))
		return -1;
	sweep(cg->parent);
	snprintf(cg->path, sizeof(cg->path), "%s/%s-%d", cg->parent, name, (int)getpid());
	return make(cg, err, errlen);
}

int cgroup_create_exact(struct cage_cgroup *cg, const char *name, char *err, size_t errlen)
{
	if (cgroup_parent(cg, err, errlen))
		return -1;
	snprintf(cg->path, sizeof(cg->path), "%s/%s", cg->parent, name);
	return make(cg, err, errlen);
}

int cgroup_move(const struct cage_cgroup *cg, pid_t pid)
{
	char v[32];

	snprintf(v, sizeof(v), "%d", (int)pid);
	return write_file(cg->path, "cgroup.procs", v);
}

static int populated(const char *dir)
{
	char p[PATH_MAX + 32], line[128];
	FILE *f;
	int pop = 0;

	snprintf(p, sizeof(p), "%s/cgroup.events", dir);
	if (!(f = fopen(p, "re")))
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "populated ", 10))
			pop = atoi(line + 10);
	fclose(f);
	return pop;
}

int cgroup_kill(const struct cage_cgroup *cg)
{
	if (!cg->path[0] || !populated(cg->path))
		return 0;
	write_file(cg->path, "cgroup.kill", "1");
	return populated(cg->path);
}

void cgroup_kill_all(const struct cage_cgroup *cg)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	if (!cg->path[0])
		return;
	for (int i = 0; i < 500 && populated(cg->path); i++) {
		write_file(cg->path, "cgroup.kill", "1");
		nanosleep(&ts, NULL);
	}
}

void cgroup_destroy(struct cage_cgroup *cg)
{
	if (!cg->path[0])
		return;
	cgroup_kill_all(cg);
	rm_tree(cg->path);   /* with any child cgroups the agent made */
	cg->path[0] = 0;
}
