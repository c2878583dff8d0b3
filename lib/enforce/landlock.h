// SPDX-License-Identifier: GPL-2.0-only
/* The Landlock enforcer's file and exec part: for a kernel that will not
 * load BPF LSM programs. A compiled policy becomes, before fork:
 *   - a Landlock ruleset (read, write and execute rights on the paths that
 *     exist at start; deny-inside-allow by granting what lies beside the
 *     narrower entry, one level at a time down to it);
 *   - a list of bind mounts for the agent's own mount namespace: every mount
 *     read-only and noexec, then each write grant bound read-write and each
 *     exec.allow and exec.libraries entry bound executable, so that chmod,
 *     chown, xattr and time changes outside the write grants fail (EROFS:
 *     Landlock does not check them) and code can be mapped only from the
 *     exec lists (Landlock's EXECUTE covers execve, not mmap).
 * In the child, ac_landlock_mounts runs right after the new mount namespace
 * is made (it needs CAP_SYS_ADMIN) and ac_landlock_restrict before the
 * descriptors are closed; both are async-signal-safe. */
#ifndef AGENTCAGE_ENFORCE_LANDLOCK_H
#define AGENTCAGE_ENFORCE_LANDLOCK_H
#include <limits.h>
#include <stdint.h>
#include "harden/harden.h"
#include "policy/rules.h"
#include "util/error.h"

#define AC_LANDLOCK_ABI_MIN 3   /* below it a read-only file can still be truncated */
#define AC_LANDLOCK_MAX_RULES 65536
#define AC_LANDLOCK_MAX_MOUNTS 4096

struct ac_ll_mount {
	char *path;
	uint64_t set, clr;          /* MOUNT_ATTR_* for mount_setattr */
};

struct ac_landlock {
	int abi;
	int fd;                     /* the ruleset; -1 */
	uint32_t restrict_flags;    /* landlock_restrict_self's */
	size_t nrules;
	struct ac_ll_mount *mounts;
	size_t nmounts;
	char cwd[PATH_MAX];         /* entered again once bound: the old one is the
	                             * read-only mount beneath */
};

/* The kernel's Landlock ABI version (cached): >= 1, or 0 when Landlock is
 * not there or not active (errno of the probe in *err when err). */
int ac_landlock_abi(int *err);
/* Before fork (as root): the ruleset and the mount list for rs. -1 with e
 * (AC_E_SYSTEM, or AC_E_KERNEL_NO_LANDLOCK below AC_LANDLOCK_ABI_MIN). */
int ac_landlock_prepare(const struct ruleset *rs, struct ac_landlock *ll, struct ac_error *e);
/* In the child, in its new private mount namespace (CAP_SYS_ADMIN). */
int ac_landlock_mounts(const struct ac_landlock *ll, struct ac_child_fail *f);
/* In the child: enter the domain (no_new_privs or CAP_SYS_ADMIN). */
int ac_landlock_restrict(const struct ac_landlock *ll, struct ac_child_fail *f);
void ac_landlock_free(struct ac_landlock *ll);
#endif
