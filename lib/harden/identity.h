// SPDX-License-Identifier: GPL-2.0-only
/* The agent's identity: the policy's `user`, resolved before fork, and the
 * drop to it in the child before exec. */
#ifndef AGENTCAGE_HARDEN_IDENTITY_H
#define AGENTCAGE_HARDEN_IDENTITY_H
#include <limits.h>
#include <sys/types.h>
#include "harden/harden.h"

#define AC_NOBODY_ID 65534

struct ac_identity {
	uid_t uid;
	gid_t gid;
	char name[64];       /* passwd name, "" when the uid has none */
	char home[PATH_MAX]; /* passwd home, "" when none */
	int last_cap;        /* /proc/sys/kernel/cap_last_cap */
	int keep_groups;     /* a caller other than root cannot drop its supplementary
	                      * groups (no CAP_SETGID): they stay, the rest is dropped */
};

/* Resolve `user` (a name, "UID[:GID]", or "" for the default: the caller
 * when caller_uid is not 0, else nobody = passwd "nobody" or 65534:65534).
 * A name takes its passwd gid; a bare UID its passwd gid, else GID = UID.
 * A caller other than root can only run as itself (AC_E_PERMISSION). */
int ac_identity_resolve(const char *user, uid_t caller_uid, gid_t caller_gid,
			struct ac_identity *id, struct ac_error *e);

/* In the child (async-signal-safe): while still privileged, lock the
 * securebits (no root-as-capabilities, no ambient raise) and empty the
 * bounding set and ambient set; then setgroups(0), setresgid, setresuid,
 * zero the permitted/effective/inheritable sets, PR_SET_NO_NEW_PRIVS and
 * RLIMIT_CORE 0; then re-read everything and fail if anything is left.
 * Without CAP_SETPCAP (a caller that is not root) the bounding set cannot
 * be lowered by anyone; no_new_privs keeps exec from using it. */
int ac_identity_drop(const struct ac_identity *id, struct ac_child_fail *f);
/* In the child, for an agent the policy names root (`user: root` or a UID
 * of 0): root keeps its capabilities (the kernel baseline bounds them);
 * supplementary groups go, no_new_privs and RLIMIT_CORE 0 are set. */
int ac_identity_keep_root(struct ac_child_fail *f);
/* The checks of ac_identity_drop alone (0 = nothing left). */
int ac_identity_verify(const struct ac_identity *id, int check_bounding, struct ac_child_fail *f);
#endif
