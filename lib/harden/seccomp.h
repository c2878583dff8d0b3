// SPDX-License-Identifier: GPL-2.0-only
/* The built-in seccomp filter, in the spirit of Docker's default profile:
 * default allow; EPERM for kexec, module loading, bpf, perf_event_open,
 * userfaultfd, the key syscalls, the new mount API, iopl/ioperm, clone and
 * unshare with namespace flags the policy's isolate does not name (user and
 * cgroup namespaces never), personality other than PER_LINUX and the query
 * 0xffffffff, every syscall of syscalls.deny; ENOSYS for clone3 (its flags
 * are in memory, out of seccomp's reach; libc then falls back to clone);
 * EPERM for any other architecture's entry points (int $0x80, x32). It is
 * defence in depth: the BPF LSM programs stay the authority. */
#ifndef AGENTCAGE_HARDEN_SECCOMP_H
#define AGENTCAGE_HARDEN_SECCOMP_H
#include <linux/filter.h>
#include <seccomp.h>
#include "harden/harden.h"
#include "policy/policy.h"

struct ac_seccomp {
	struct sock_filter *insns; /* the exported classic BPF program */
	unsigned short len;
};

/* The libseccomp filter for p (for inspection: seccomp_export_pfc). */
int ac_seccomp_ctx(const struct policy *p, scmp_filter_ctx *out, struct ac_error *e);
/* Before fork: the filter for p, exported to a BPF program. */
int ac_seccomp_build(const struct policy *p, struct ac_seccomp *out, struct ac_error *e);
/* The built-in filter plus what the Landlock enforcer has no BPF LSM
 * program for: socket families but unix, inet, inet6 and routing netlink
 * (EAFNOSUPPORT), MPTCP, io_uring, TIOCSTI and TIOCLINUX (EPERM). */
int ac_seccomp_build_landlock(const struct policy *p, struct ac_seccomp *out, struct ac_error *e);
/* The same with syscalls.deny alone, no built-in rules, every architecture
 * allowed: for an agent the policy names root (the kernel baseline alone). */
int ac_seccomp_build_deny(const struct policy *p, struct ac_seccomp *out, struct ac_error *e);
/* In the child (async-signal-safe), after PR_SET_NO_NEW_PRIVS. */
int ac_seccomp_load(const struct ac_seccomp *f, struct ac_child_fail *fail);
void ac_seccomp_free(struct ac_seccomp *f);
#endif
