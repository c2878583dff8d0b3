// SPDX-License-Identifier: GPL-2.0-only
/* The least-privilege launch: pieces the child runs between fork and exec.
 * Everything that needs memory or files is prepared before fork; what runs
 * after fork only makes system calls (async-signal-safe, no malloc), and
 * reports a failure as a struct ac_child_fail the child sends to the parent.
 *
 * The order in the child (see each header):
 *   1. ac_ns_enter          unshare IPC (+ isolate), private mounts, lo up
 *                           (needs CAP_SYS_ADMIN)
 *   2. ac_ns_pid_fork       with isolate: [pid] only: fork PID 1, the middle
 *                           process waits and passes its status on
 *   3. ac_limits_join       move itself into the cage cgroup (after this the
 *                           BPF capable hook refuses CAP_SYS_ADMIN)
 *   3b. ac_ns_keyring       a fresh session keyring, allocated in the cage
 *   4. ac_fds_close         every descriptor >= 3 but the report pipe
 *   5. ac_identity_drop     groups, gid, uid, all capabilities, no_new_privs,
 *                           RLIMIT_CORE 0, then verified
 *   6. ac_seccomp_load      the filter (needs no_new_privs or CAP_SYS_ADMIN)
 *   7. execve(path, argv, env.envp) with the path resolved before fork */
#ifndef AGENTCAGE_HARDEN_H
#define AGENTCAGE_HARDEN_H
#include "util/error.h"

struct ac_child_fail {
	char step[48]; /* what failed, e.g. "setresuid" */
	int err;       /* its errno, 0 if it was a check that found a leftover */
};

/* Fill f (async-signal-safe); returns -1. */
int ac_child_fail_set(struct ac_child_fail *f, const char *step, int err);
/* In the parent: turn a child's failure into e (code AC_E_SYSTEM); returns -1. */
int ac_child_fail_error(const struct ac_child_fail *f, struct ac_error *e);
#endif
