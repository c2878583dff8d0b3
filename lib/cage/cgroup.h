// SPDX-License-Identifier: GPL-2.0-only
/* cgroup v2 placement: agentcage's parent cgroup and one cgroup per cage. */
#ifndef AGENTCAGE_CGROUP_H
#define AGENTCAGE_CGROUP_H
#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

struct cage_cgroup {
	char parent[PATH_MAX / 2 + 16];/* <cgroup2 mount>/agentcage */
	char path[PATH_MAX];    /* parent/<name>-<pid> */
	uint64_t parent_id, id; /* cgroup ids (kernfs inode numbers) */
	uint32_t parent_level;  /* level of parent in the hierarchy */
};

/* Find cgroup2 in /proc/self/mountinfo and make agentcage's parent cgroup
 * there: fills cg's parent, parent_id and parent_level (what loader_open
 * needs before any cage exists). */
int cgroup_parent(struct cage_cgroup *cg, char *err, size_t errlen);
/* cgroup_parent, then create the cage's cgroup. */
int cgroup_create(struct cage_cgroup *cg, const char *name, char *err, size_t errlen);
/* cgroup_parent, then create parent/name exactly (the daemon's named
 * cages): an existing cgroup of that name is an error, never reused. */
int cgroup_create_exact(struct cage_cgroup *cg, const char *name, char *err, size_t errlen);
int cgroup_move(const struct cage_cgroup *cg, pid_t pid);
/* Kill everything left in the cage, without waiting: 1 while a task is
 * still in it (SIGKILL takes a moment to land), else 0. */
int cgroup_kill(const struct cage_cgroup *cg);
/* Kill everything left in the cage and wait until it is empty. */
void cgroup_kill_all(const struct cage_cgroup *cg);
/* Kill everything left in the cage, then remove its cgroup. */
void cgroup_destroy(struct cage_cgroup *cg);
#endif
