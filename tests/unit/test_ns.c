// SPDX-License-Identifier: GPL-2.0-only
/* harden/ns in forked children as root: each namespace and the session
 * keyring differ from the parent's after ac_ns_enter + ac_ns_keyring, lo is up in the new
 * network namespace, the pid child is PID 1. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <linux/keyctl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "harden/ns.h"
#include "policy/policy.h"
#include "child.h"

static ino_t ns_ino(const char *ns)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", ns);
	return stat(path, &st) ? 0 : st.st_ino;
}

static long session_keyring(void)
{
	return syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);
}

struct before { ino_t ipc, uts, net, mnt; long keyring; unsigned isolate; };

/* lo is up and a TCP connection to 127.0.0.1 works */
static int loopback_works(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0);

	if (bind(l, (void *)&a, sizeof(a)) || listen(l, 1) || getsockname(l, (void *)&a, &len))
		return 0;
	return connect(c, (void *)&a, sizeof(a)) == 0;
}

static int enter(void *arg)
{
	struct before *b = arg;
	struct ac_child_fail f;

	if (ac_ns_enter(b->isolate, &f) || ac_ns_keyring(&f)) {
		fprintf(stderr, "%s: %s\n", f.step, strerror(f.err));
		return 10;
	}
	if (ns_ino("ipc") == b->ipc || session_keyring() == b->keyring || session_keyring() < 0)
		return 11;
	if ((ns_ino("uts") != b->uts) != !!(b->isolate & POLICY_ISO_UTS))
		return 12;
	if ((ns_ino("mnt") != b->mnt) != !!(b->isolate & POLICY_ISO_MOUNT))
		return 13;
	if ((ns_ino("net") != b->net) != !!(b->isolate & POLICY_ISO_NET))
		return 14;
	if ((b->isolate & POLICY_ISO_NET) && !loopback_works())
		return 15;
	if (ac_ns_pid_fork(b->isolate, -1, &f))
		return 16;
	if ((b->isolate & POLICY_ISO_PID) && getpid() != 1)
		return 17;
	return 0;
}

static void check(unsigned isolate)
{
	struct before b = { ns_ino("ipc"), ns_ino("uts"), ns_ino("net"), ns_ino("mnt"),
			    session_keyring(), isolate };

	if (geteuid() != 0)
		cr_skip_test("needs root");
	cr_assert_neq(b.ipc, 0);
	cr_assert_eq(in_child(enter, &b), 0, "isolate %#x", isolate);
}

Test(ns, ipc_and_keyring_always)
{
	check(0);
}

Test(ns, every_isolate)
{
	check(POLICY_ISO_UTS | POLICY_ISO_MOUNT | POLICY_ISO_NET | POLICY_ISO_PID);
}

Test(ns, network_alone)
{
	check(POLICY_ISO_NET);
}

/* the middle process passes PID 1's exit status on */
static int pid_status(void *arg)
{
	struct ac_child_fail f;

	(void)arg;
	if (ac_ns_enter(POLICY_ISO_PID, &f) || ac_ns_pid_fork(POLICY_ISO_PID, -1, &f))
		return 10;
	_exit(getpid() == 1 ? 42 : 43);
}

Test(ns, pid_status_passed_on)
{
	if (geteuid() != 0)
		cr_skip_test("needs root");
	cr_assert_eq(in_child(pid_status, NULL), 42);
}
