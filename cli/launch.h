// SPDX-License-Identifier: GPL-2.0-only
/* The agent's launch: what lib/harden needs, prepared before fork, and the
 * child that runs its steps in harden.h's order, then execs. */
#ifndef AGENTCAGE_CLI_LAUNCH_H
#define AGENTCAGE_CLI_LAUNCH_H
#include <signal.h>
#include <sys/un.h>
#include "harden/env.h"
#include "harden/identity.h"
#include "harden/seccomp.h"
#include "enforce/landlock.h"
#include "policy/policy.h"
#include "pty.h"

struct launch {
	struct ac_identity id;
	int privileged;        /* the policy names root: it keeps its capabilities */
	int unprivileged;      /* the caller is not root (run --cage by a member of the
	                        * daemon's group): no namespaces, its OOM score kept */
	unsigned isolate;
	struct ac_env env;
	struct ac_seccomp sc;
	char **cands;          /* where cmd[0] may be, in PATH order (NULL-terminated) */
	char **cmd;
	int procs_fd;          /* the cage's cgroup.procs, O_WRONLY; or -1 and: */
	const char *join_line; /* run --cage: the daemon's join request, sent from */
	size_t join_len;       /* a connection of the child's own to join_sa */
	struct sockaddr_un join_sa;
	pid_t parent;
	const struct pty *pty; /* the agent's own terminal (set by run), or NULL */
	const struct ac_landlock *ll; /* the Landlock enforcer's domain, or NULL */
};

/* Before the programs load (a bad user fails without the kernel): the
 * identity, environment, seccomp filter and the candidates for cmd. */
int launch_prepare(struct launch *l, const struct policy *p, const char *cage_tmp, char **cmd,
		   struct ac_error *e);
/* Under the Landlock enforcer: the agent gets ll's mounts and domain, and
 * the seccomp filter for it (ac_seccomp_build_landlock). ll stays the
 * caller's, alive until the child has started. */
int launch_landlock(struct launch *l, const struct ac_landlock *ll, const struct policy *p,
		    struct ac_error *e);
/* Once the cage exists: ${CAGE_TMP} and the pty to the agent's uid,
 * cgroup.procs open. */
int launch_cage(struct launch *l, const char *cage_tmp, const char *cgroup, struct ac_error *e);
/* In the child: never returns. A failure goes to err_fd as a struct
 * ac_child_fail (step "exec" when cmd could not be executed; then 126 or
 * 127, else 125). */
void launch_child(const struct launch *l, int err_fd, const sigset_t *old)
	__attribute__((noreturn));
void launch_free(struct launch *l);
#endif
