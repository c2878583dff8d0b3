// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <errno.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "harden/seccomp.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x80
#endif

static const char *const refused[] = {
	"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
	"bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",
	"open_tree", "move_mount", "fsopen", "fsmount", "fsconfig", "fspick", "mount_setattr",
	"iopl", "ioperm",
};

static int add(scmp_filter_ctx ctx, const char *name, uint32_t action, unsigned n,
	       const struct scmp_arg_cmp *cmp, struct ac_error *e)
{
	int nr = seccomp_syscall_resolve_name(name), ret;

	if (nr < 0)
		return 0; /* not a system call of this architecture */
	ret = seccomp_rule_add_array(ctx, action, nr, n, cmp);
	if (ret)
		return ac_error_set(e, AC_E_SYSTEM, "seccomp rule for %s: %s", name, strerror(-ret));
	return 0;
}

/* clone (flags in arg 0 on x86_64 and arm64) and unshare: one rule per
 * namespace flag the policy does not allow */
static int ns_rules(scmp_filter_ctx ctx, unsigned isolate, struct ac_error *e)
{
	static const struct { unsigned long flag; unsigned iso; } ns[] = {
		{ CLONE_NEWNS, POLICY_ISO_MOUNT }, { CLONE_NEWUTS, POLICY_ISO_UTS },
		{ CLONE_NEWPID, POLICY_ISO_PID }, { CLONE_NEWNET, POLICY_ISO_NET },
		{ CLONE_NEWIPC, 0 }, { CLONE_NEWUSER, 0 }, { CLONE_NEWCGROUP, 0 },
		{ CLONE_NEWTIME, 0 },
	};

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		struct scmp_arg_cmp c = SCMP_A0(SCMP_CMP_MASKED_EQ, ns[i].flag, ns[i].flag);

		if (ns[i].iso & isolate)
			continue;
		/* for clone, 0x80 is part of the exit signal, not CLONE_NEWTIME */
		if (ns[i].flag != CLONE_NEWTIME && add(ctx, "clone", SCMP_ACT_ERRNO(EPERM), 1, &c, e))
			return -1;
		if (add(ctx, "unshare", SCMP_ACT_ERRNO(EPERM), 1, &c, e))
			return -1;
	}
	return add(ctx, "clone3", SCMP_ACT_ERRNO(ENOSYS), 0, NULL, e);
}

/* personality: EPERM unless arg 0 is PER_LINUX (0) or the query 0xffffffff.
 * libseccomp compares one argument once per rule, so the complement is a
 * union: above 32 bits, or some bit i set with bit i+1 (mod 32) clear -- a
 * 32-bit value that is neither all zeros nor all ones has such a pair. */
static int personality_rules(scmp_filter_ctx ctx, struct ac_error *e)
{
	struct scmp_arg_cmp c = SCMP_A0(SCMP_CMP_GT, 0xffffffffUL);

	if (add(ctx, "personality", SCMP_ACT_ERRNO(EPERM), 1, &c, e))
		return -1;
	for (unsigned i = 0; i < 32; i++) {
		unsigned long bit = 1UL << i, next = 1UL << ((i + 1) % 32);

		c = (struct scmp_arg_cmp)SCMP_A0(SCMP_CMP_MASKED_EQ, bit | next, bit);
		if (add(ctx, "personality", SCMP_ACT_ERRNO(EPERM), 1, &c, e))
			return -1;
	}
	return 0;
}

static int builtin(scmp_filter_ctx ctx, unsigned isolate, struct ac_error *e)
{
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (add(ctx, refused[i], SCMP_ACT_ERRNO(EPERM), 0, NULL, e))
			return -1;
	if (ns_rules(ctx, isolate, e))
		return -1;
	return personality_rules(ctx, e);
}

/* The Landlock enforcer has no BPF LSM socket or ioctl programs behind the
 * filter: it refuses socket families other than unix, inet, inet6 and
 * routing netlink (EAFNOSUPPORT), MPTCP (Landlock's TCP rules do not see it),
 * io_uring (its requests, IORING_OP_SOCKET among them, pass this filter by)
 * and the terminal ioctls that type into a terminal. Arguments the kernel
 * reads as 32 bits are compared masked, or refused when high bits are set. */
static int landlock_rules(scmp_filter_ctx ctx, struct ac_error *e)
{
	static const char *const uring[] = { "io_uring_setup", "io_uring_enter",
					     "io_uring_register" };
	static const unsigned long tty[] = { 0x5412 /* TIOCSTI */, 0x541c /* TIOCLINUX */ };
	uint32_t noaf = SCMP_ACT_ERRNO(EAFNOSUPPORT), perm = SCMP_ACT_ERRNO(EPERM);
	struct scmp_arg_cmp c[2];

	for (size_t i = 0; i < sizeof(uring) / sizeof(uring[0]); i++)
		if (add(ctx, uring[i], perm, 0, NULL, e))
			return -1;
	for (unsigned long af = 0; af < 17; af++) {
		if (af == AF_UNIX || af == AF_INET || af == AF_INET6 || af == AF_NETLINK)
			continue;
		c[0] = (struct scmp_arg_cmp)SCMP_A0(SCMP_CMP_EQ, af);
		if (add(ctx, "socket", noaf, 1, c, e))
			return -1;
	}
	c[0] = (struct scmp_arg_cmp)SCMP_A0(SCMP_CMP_GE, 17);
	if (add(ctx, "socket", noaf, 1, c, e))
		return -1;
	c[0] = (struct scmp_arg_cmp)SCMP_A0(SCMP_CMP_NE, AF_UNIX);
	if (add(ctx, "socketpair", noaf, 1, c, e))
		return -1;
	c[0] = (struct scmp_arg_cmp)SCMP_A0(SCMP_CMP_EQ, AF_NETLINK);
	c[1] = (struct scmp_arg_cmp)SCMP_A2(SCMP_CMP_NE, 0 /* NETLINK_ROUTE */);
	if (add(ctx, "socket", noaf, 2, c, e))
		return -1;
	for (unsigned long af = AF_INET; af <= AF_INET6; af += AF_INET6 - AF_INET) {
		c[0] = (struct scmp_arg_cmp)SCMP_A0(SCMP_CMP_EQ, af);
		c[1] = (struct scmp_arg_cmp)SCMP_A2(SCMP_CMP_MASKED_EQ, 0xffffffffUL,
						    262 /* IPPROTO_MPTCP */);
		if (add(ctx, "socket", perm, 2, c, e))
			return -1;
	}
	for (size_t i = 0; i < sizeof(tty) / sizeof(tty[0]); i++) {
		c[0] = (struct scmp_arg_cmp)SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, tty[i]);
		if (add(ctx, "ioctl", perm, 1, c, e))
			return -1;
	}
	return 0;
}

/* syscalls.deny: EPERM always; names already refused as a whole stay so */
static int denied(scmp_filter_ctx ctx, const struct plist *deny, struct ac_error *e)
{
	for (size_t i = 0; i < deny->n; i++) {
		size_t j;

		for (j = 0; j < sizeof(refused) / sizeof(refused[0]); j++)
			if (!strcmp(deny->items[i], refused[j]))
				break;
		if (j < sizeof(refused) / sizeof(refused[0]) || !strcmp(deny->items[i], "clone3"))
			continue;
		if (add(ctx, deny->items[i], SCMP_ACT_ERRNO(EPERM), 0, NULL, e))
			return -1;
	}
	return 0;
}

static int ctx_for(const struct policy *p, int with_builtin, int landlock,
		   scmp_filter_ctx *out, struct ac_error *e)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	if (!ctx)
		return ac_error_set(e, AC_E_NOMEM, "seccomp_init failed");
	/* only the native architecture: int $0x80 and x32 calls are bad-arch */
	if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
			     with_builtin ? SCMP_ACT_ERRNO(EPERM) : SCMP_ACT_ALLOW) ||
	    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0)) {
		seccomp_release(ctx);
		return ac_error_set(e, AC_E_SYSTEM, "seccomp_attr_set failed");
	}
	if ((with_builtin && builtin(ctx, p->isolate, e)) || (landlock && landlock_rules(ctx, e)) ||
	    denied(ctx, &p->sys_deny, e)) {
		seccomp_release(ctx);
		return -1;
	}
	*out = ctx;
	return 0;
}

int ac_seccomp_ctx(const struct policy *p, scmp_filter_ctx *out, struct ac_error *e)
{
	return ctx_for(p, 1, 0, out, e);
}

/* libseccomp 2.5 exports only to a descriptor: a memfd, read back */
static int export(scmp_filter_ctx ctx, struct ac_seccomp *out, struct ac_error *e)
{
	int fd = memfd_create("ac-seccomp", MFD_CLOEXEC), ret;
	struct stat st;

	if (fd < 0)
		return ac_error_set(e, AC_E_SYSTEM, "memfd_create: %s", strerror(errno));
	ret = seccomp_export_bpf(ctx, fd);
	if (ret || fstat(fd, &st) || st.st_size <= 0 || st.st_size % sizeof(struct sock_filter) ||
	    st.st_size / sizeof(struct sock_filter) > BPF_MAXINSNS ||
	    !(out->insns = malloc(st.st_size)) || pread(fd, out->insns, st.st_size, 0) != st.st_size) {
		close(fd);
		free(out->insns);
		out->insns = NULL;
		return ac_error_set(e, AC_E_SYSTEM, "exporting the seccomp filter failed%s%s",
				    ret ? ": " : "", ret ? strerror(-ret) : "");
	}
	out->len = st.st_size / sizeof(struct sock_filter);
	close(fd);
	return 0;
}

static int build(const struct policy *p, int with_builtin, int landlock,
		 struct ac_seccomp *out, struct ac_error *e)
{
	scmp_filter_ctx ctx;
	int ret;

	memset(out, 0, sizeof(*out));
	if (ctx_for(p, with_builtin, landlock, &ctx, e))
		return -1;
	ret = export(ctx, out, e);
	seccomp_release(ctx);
	return ret;
}

int ac_seccomp_build(const struct policy *p, struct ac_seccomp *out, struct ac_error *e)
{
	return build(p, 1, 0, out, e);
}

int ac_seccomp_build_landlock(const struct policy *p, struct ac_seccomp *out, struct ac_error *e)
{
	return build(p, 1, 1, out, e);
}

int ac_seccomp_build_deny(const struct policy *p, struct ac_seccomp *out, struct ac_error *e)
{
	return build(p, 0, 0, out, e);
}

int ac_seccomp_load(const struct ac_seccomp *f, struct ac_child_fail *fail)
{
	struct sock_fprog prog = { .len = f->len, .filter = f->insns };

	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		return ac_child_fail_set(fail, "seccomp(SECCOMP_SET_MODE_FILTER)", errno);
	return 0;
}

void ac_seccomp_free(struct ac_seccomp *f)
{
	free(f->insns);
	f->insns = NULL;
	f->len = 0;
}
