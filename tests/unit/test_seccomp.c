// SPDX-License-Identifier: GPL-2.0-only
/* harden/seccomp: the filter loaded in forked children on the host kernel;
 * every refused call is also made without the filter (the control), where
 * it must not fail with the filter's errno. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harden/seccomp.h"
#include "child.h"

/* int $0x80 getpid (i386 number 20), in a process of its own: 0 when it
 * returned the pid, its errno when it failed, NO_I386 when the kernel has
 * no i386 entry (no IA32 emulation: the instruction faults, SIGSEGV) */
#define NO_I386 (-2)
static int getpid_int80(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		long ret;

		signal(SIGSEGV, SIG_DFL);   /* not a sanitizer's: the fault is the answer */
		__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory");
		_exit(ret < 0 ? (int)-ret : ret == getpid() ? 0 : 100);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV ? NO_I386 :
	       WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* each call's errno (0 on success); -1 = the call is not checked */
enum { C_BPF, C_PERF, C_UFFD, C_KEYCTL, C_FINIT, C_FSOPEN, C_OPENTREE, C_IOPL, C_NEWUSER,
       C_NEWUTS, C_CLONE_NET, C_CLONE, C_CLONE3, C_PERS_Q, C_PERS_0, C_PERS_NORAND, C_INT80,
       C_X32, C_GETPPID, C_GETPID, C_ADDKEY, C_REQKEY, C_MOVEMOUNT, C_FSMOUNT, C_FSCONFIG,
       C_FSPICK, C_IOPERM, C_DELMOD, C_KEXEC, C__N };

static int err_of(long r)
{
	return r < 0 ? errno : 0;
}

static int clone_flags(unsigned long flags)
{
	long pid = syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid < 0 ? errno : 0;
}

static void calls(int *r)
{
	/* first: the unshare(CLONE_NEWUSER) below leaves the control without
	 * CAP_SYS_ADMIN over its mount namespace, which fsmount and fspick check */
	r[C_ADDKEY] = err_of(syscall(SYS_add_key, "user", "ac-unit", "x", 1,
				     -2 /* @p: it goes with the child */));
	r[C_REQKEY] = err_of(syscall(SYS_request_key, "user", "ac-unit-none", NULL, 0));
	r[C_MOVEMOUNT] = err_of(syscall(SYS_move_mount, -1, "", -1, "", 0));
	r[C_FSMOUNT] = err_of(syscall(SYS_fsmount, -1, 0, 0));
	r[C_FSCONFIG] = err_of(syscall(SYS_fsconfig, -1, 0, NULL, NULL, 0));
	r[C_FSPICK] = err_of(syscall(SYS_fspick, -1, "", 0));
	r[C_IOPERM] = err_of(syscall(SYS_ioperm, 0x80, 1, 0));
	r[C_DELMOD] = err_of(syscall(SYS_delete_module, "ac_unit_no_such_module", 0));
	r[C_KEXEC] = err_of(syscall(SYS_kexec_load, 0, 0, NULL, 0));
	r[C_BPF] = err_of(syscall(SYS_bpf, 0, NULL, 0));
	r[C_PERF] = err_of(syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0));
	r[C_UFFD] = err_of(syscall(SYS_userfaultfd, ~0));
	r[C_KEYCTL] = err_of(syscall(SYS_keyctl, 0 /* GET_KEYRING_ID */, -3, 0));
	r[C_FINIT] = err_of(syscall(SYS_finit_module, -1, "", 0));
	r[C_FSOPEN] = err_of(syscall(SYS_fsopen, "no-such-fs", 0));
	r[C_OPENTREE] = err_of(syscall(SYS_open_tree, -1, "", 0));
	r[C_IOPL] = err_of(syscall(SYS_iopl, 0));
	r[C_NEWUSER] = err_of(unshare(CLONE_NEWUSER));
	r[C_NEWUTS] = err_of(unshare(CLONE_NEWUTS));
	r[C_CLONE_NET] = clone_flags(CLONE_NEWNET);
	r[C_CLONE] = clone_flags(0);
	r[C_CLONE3] = err_of(syscall(SYS_clone3, NULL, 0));
	r[C_PERS_Q] = err_of(personality(0xffffffff));
	r[C_PERS_0] = err_of(personality(PER_LINUX));
	r[C_PERS_NORAND] = err_of(personality(PER_LINUX | ADDR_NO_RANDOMIZE));
	r[C_INT80] = getpid_int80();
	r[C_X32] = err_of(syscall(0x40000000 | 39 /* x32 getpid */));
	r[C_GETPPID] = err_of(getppid());
	r[C_GETPID] = getpid() > 0 ? 0 : -1;
}

/* run calls() in a child, with the filter of p or without one; results
 * come back through a pipe */
struct run { const struct policy *p; int fd; };

static int run_calls(void *arg)
{
	struct run *r = arg;
	struct ac_seccomp f;
	struct ac_child_fail fail;
	int res[C__N];

	if (r->p) {
		if (ac_seccomp_build(r->p, &f, NULL) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    ac_seccomp_load(&f, &fail))
			return 10;
	}
	calls(res);
	return write(r->fd, res, sizeof(res)) == sizeof(res) ? 0 : 11;
}

static void measure(const struct policy *p, int *res)
{
	int fds[2];
	struct run r = { p, 0 };

	cr_assert_eq(pipe(fds), 0);
	r.fd = fds[1];
	cr_assert_eq(in_child(run_calls, &r), 0);
	cr_assert_eq(read(fds[0], res, C__N * sizeof(int)), (ssize_t)(C__N * sizeof(int)));
	close(fds[0]);
	close(fds[1]);
}

Test(seccomp, refuses_builtin_list_allows_the_rest)
{
	struct policy p = { .isolate = POLICY_ISO_UTS };
	char *deny[] = { "getppid" };
	int ctl[C__N], got[C__N];

	if (geteuid() != 0)
		cr_skip_test("needs root (the controls)");
	p.sys_deny.items = deny;
	p.sys_deny.n = 1;
	measure(NULL, ctl);
	measure(&p, got);
	static const int eperm[] = { C_BPF, C_PERF, C_UFFD, C_KEYCTL, C_FINIT, C_FSOPEN, C_OPENTREE,
				     C_IOPL, C_NEWUSER, C_CLONE_NET, C_PERS_NORAND, C_GETPPID,
				     C_ADDKEY, C_REQKEY, C_MOVEMOUNT, C_FSMOUNT, C_FSCONFIG, C_FSPICK,
				     C_IOPERM, C_DELMOD };
	for (size_t i = 0; i < sizeof(eperm) / sizeof(eperm[0]); i++) {
		cr_expect_neq(ctl[eperm[i]], EPERM, "call %d: the control fails with EPERM", eperm[i]);
		cr_expect_eq(got[eperm[i]], EPERM, "call %d: %s", eperm[i], strerror(got[eperm[i]]));
	}
	/* kexec_load: refused by the filter (EPERM); the control cannot tell
	 * the filter's EPERM from the kernel's own (lockdown refuses kexec
	 * with EPERM on this host), so only the filtered result is checked */
	cr_expect_eq(got[C_KEXEC], EPERM, "kexec_load: %s", strerror(got[C_KEXEC]));
	/* i386 entry: where the kernel has one (the control gets the pid) the
	 * filter refuses it; a kernel without IA32 emulation (some hosts) has
	 * none to refuse, and the call faults either way. tests/vm/e2e-launch.sh
	 * proves the refusal on the VM's kernel, which has the entry. */
	if (ctl[C_INT80] == NO_I386) {
		cr_expect_eq(got[C_INT80], NO_I386, "no i386 entry, yet under the filter: %d",
			     got[C_INT80]);
	} else {
		cr_expect_eq(ctl[C_INT80], 0, "control: int $0x80 getpid works on this kernel");
		cr_expect_eq(got[C_INT80], EPERM, "int $0x80 under the filter: %d", got[C_INT80]);
	}
	cr_expect_eq(got[C_X32], EPERM, "x32: %s (control %s)", strerror(got[C_X32]),
		     strerror(ctl[C_X32]));
	cr_expect_neq(ctl[C_CLONE3], ENOSYS);
	cr_expect_eq(got[C_CLONE3], ENOSYS);
	/* what stays allowed: isolate's uts, plain clone, personality queries */
	static const int ok[] = { C_NEWUTS, C_CLONE, C_PERS_Q, C_PERS_0, C_GETPID };
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		cr_expect_eq(ctl[ok[i]], 0, "call %d control: %s", ok[i], strerror(ctl[ok[i]]));
		cr_expect_eq(got[ok[i]], 0, "call %d: %s", ok[i], strerror(got[ok[i]]));
	}
}

Test(seccomp, uts_refused_without_isolate)
{
	struct policy p = { 0 };
	int got[C__N];

	if (geteuid() != 0)
		cr_skip_test("needs root");
	measure(&p, got);
	cr_assert_eq(got[C_NEWUTS], EPERM);
	cr_assert_eq(got[C_GETPPID], 0);
}

/* syscalls.deny naming calls the built-in filter already handles */
Test(seccomp, deny_overlapping_builtin_builds)
{
	struct policy p = { .isolate = POLICY_ISO_NET };
	char *deny[] = { "clone", "clone3", "personality", "bpf", "unshare", "ptrace" };
	struct ac_seccomp f;
	struct ac_error e = { 0 };

	p.sys_deny.items = deny;
	p.sys_deny.n = 6;
	cr_assert_eq(ac_seccomp_build(&p, &f, &e), 0, "%s", e.msg);
	cr_assert(f.len > 10);
	ac_seccomp_free(&f);
}
