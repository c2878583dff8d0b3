// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <errno.h>
#include <linux/keyctl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harden/fds.h"
#include "harden/ns.h"
#include "policy/policy.h"

unsigned long ac_ns_flags(unsigned isolate)
{
	unsigned long fl = CLONE_NEWIPC;

	if (isolate & POLICY_ISO_PID)
		fl |= CLONE_NEWPID;
	if (isolate & POLICY_ISO_UTS)
		fl |= CLONE_NEWUTS;
	if (isolate & POLICY_ISO_MOUNT)
		fl |= CLONE_NEWNS;
	if (isolate & POLICY_ISO_NET)
		fl |= CLONE_NEWNET;
	return fl;
}

static int lo_up(struct ac_child_fail *f)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 0;

	if (s < 0)
		return ac_child_fail_set(f, "socket (to bring lo up)", errno);
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, "lo", 3);
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		ret = ac_child_fail_set(f, "ioctl(SIOCGIFFLAGS lo)", errno);
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (!ret && ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		ret = ac_child_fail_set(f, "ioctl(SIOCSIFFLAGS lo)", errno);
	close(s);
	return ret;
}

int ac_ns_enter(unsigned isolate, struct ac_child_fail *f)
{
	if (unshare(ac_ns_flags(isolate)))
		return ac_child_fail_set(f, "unshare", errno);
	if ((isolate & POLICY_ISO_MOUNT) && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return ac_child_fail_set(f, "mount(/, MS_REC|MS_PRIVATE)", errno);
	if ((isolate & POLICY_ISO_NET) && lo_up(f))
		return -1;
	return 0;
}

int ac_ns_keyring(struct ac_child_fail *f)
{
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0)
		return ac_child_fail_set(f, "keyctl(KEYCTL_JOIN_SESSION_KEYRING)", errno);
	return 0;
}

/* the middle process: wait for PID 1, leave the way it left */
static void wait_and_exit(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			_exit(125);
	if (WIFEXITED(st))
		_exit(WEXITSTATUS(st));
	signal(WTERMSIG(st), SIG_DFL);
	kill(getpid(), WTERMSIG(st));
	_exit(128 + WTERMSIG(st));
}

int ac_ns_pid_fork(unsigned isolate, int report_fd, struct ac_child_fail *f)
{
	struct ac_child_fail me = { "pid", 0 };
	pid_t pid;

	if (!(isolate & POLICY_ISO_PID))
		return 0;
	if ((pid = fork()) < 0)
		return ac_child_fail_set(f, "fork (PID 1 of the pid namespace)", errno);
	if (pid > 0) {
		me.err = pid;
		if (report_fd >= 0 && write(report_fd, &me, sizeof(me)) != sizeof(me))
			kill(pid, SIGKILL);   /* then it exits with PID 1's status */
		/* it holds nothing open: a pipe's end-of-file must follow PID 1 */
		ac_fds_close(-1, NULL);
		wait_and_exit(pid);
	}
	/* a /proc of the new namespace; its mount must be made from inside it */
	if ((isolate & POLICY_ISO_MOUNT) &&
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		return ac_child_fail_set(f, "mount(/proc)", errno);
	return 0;
}
