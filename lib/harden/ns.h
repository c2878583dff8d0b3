// SPDX-License-Identifier: GPL-2.0-only
/* Namespaces of the cage: a new IPC namespace and session keyring always,
 * the policy's isolate on top. The namespaces are made in the child while
 * it still holds CAP_SYS_ADMIN, i.e. BEFORE it joins the cage's cgroup (the
 * BPF capable hook refuses CAP_SYS_ADMIN inside a cage); the keyring AFTER
 * (it needs no capability, and the key hooks refuse a caged task any key
 * not allocated inside its cage). */
#ifndef AGENTCAGE_HARDEN_NS_H
#define AGENTCAGE_HARDEN_NS_H
#include "harden/harden.h"

/* The CLONE_NEW* flags for isolate (POLICY_ISO_* bits), CLONE_NEWIPC included. */
unsigned long ac_ns_flags(unsigned isolate);

/* In the child (async-signal-safe): unshare(ac_ns_flags(isolate)); with
 * mount, make every mount private (nothing propagates back to the host);
 * with network, bring lo up. With pid, the caller is not in the new pid namespace itself: call
 * ac_ns_pid_fork next. */
int ac_ns_enter(unsigned isolate, struct ac_child_fail *f);

/* In the child (async-signal-safe), once in the cage: join a fresh
 * anonymous session keyring. */
int ac_ns_keyring(struct ac_child_fail *f);

/* With POLICY_ISO_PID (else a no-op returning 0): fork; the new process is
 * PID 1 of the namespace and gets 0 back (with mount, a fresh /proc is
 * mounted for it). The middle process never returns: it closes every
 * descriptor >= 3, waits for PID 1 and exits with its status (re-raising
 * its signal), reaping for it. With report_fd >= 0 it first writes there
 * { step "pid", err: PID 1's pid as the caller's namespace sees it } (not a
 * failure: the pid of the process that goes on). */
int ac_ns_pid_fork(unsigned isolate, int report_fd, struct ac_child_fail *f);
#endif
