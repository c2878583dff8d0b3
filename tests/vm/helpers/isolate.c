// SPDX-License-Identifier: GPL-2.0-only
/* Attacks on a cage's isolation for tests/vm/e2e-baseline-isolate.sh, each a
 * real system call; exit 0 when the call succeeded, 1 when it failed (its
 * errno on stderr), 2 on a usage error.
 *   isolate clone3-cgroup DIR   clone3(CLONE_INTO_CGROUP) into cgroup DIR,
 *                               opened O_PATH; the child prints its cgroup
 *   isolate clone-parent        clone(CLONE_PARENT)
 *   isolate vmread PID ADDR     process_vm_readv of 8 bytes at ADDR (hex)
 *   isolate getfd PID FD        pidfd_getfd(pidfd_open(PID), FD)
 *   isolate kcmp PID            kcmp(self, PID, KCMP_VM)
 *   isolate perf PID            perf_event_open(task clock, PID, any CPU) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define KCMP_VM_ 1

static int result(long r, const char *what)
{
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", what, strerror(errno));
		return 1;
	}
	return 0;
}

static int clone3_cgroup(const char *dir)
{
	struct clone_args a;
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	long pid;

	if (fd < 0)
		return result(-1, dir);
	memset(&a, 0, sizeof(a));
	a.flags = CLONE_INTO_CGROUP;
	a.exit_signal = SIGCHLD;
	a.cgroup = (uint64_t)fd;
	pid = syscall(SYS_clone3, &a, sizeof(a));
	if (pid == 0) {
		execl("/bin/cat", "cat", "/proc/self/cgroup", (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return result(pid, "clone3");
}

static int clone_parent(void)
{
	long pid = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0);

	if (pid == 0)
		_exit(0);
	return result(pid, "clone(CLONE_PARENT)");
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "clone3-cgroup") && argc == 3)
		return clone3_cgroup(argv[2]);
	if (!strcmp(cmd, "clone-parent"))
		return clone_parent();
	if (!strcmp(cmd, "vmread") && argc == 4) {
		char buf[8];
		struct iovec l = { buf, sizeof(buf) };
		struct iovec r = { (void *)strtoull(argv[3], NULL, 16), sizeof(buf) };

		return result(process_vm_readv(atoi(argv[2]), &l, 1, &r, 1, 0), "process_vm_readv");
	}
	if (!strcmp(cmd, "getfd") && argc == 4) {
		long pfd = syscall(SYS_pidfd_open, atoi(argv[2]), 0);

		if (pfd < 0)
			return result(pfd, "pidfd_open");
		return result(syscall(SYS_pidfd_getfd, (int)pfd, atoi(argv[3]), 0), "pidfd_getfd");
	}
	if (!strcmp(cmd, "kcmp") && argc == 3) {
		long r = syscall(SYS_kcmp, getpid(), atoi(argv[2]), KCMP_VM_, 0, 0);

		if (r >= 0)
			printf("%ld\n", r);
		return result(r, "kcmp");
	}
	if (!strcmp(cmd, "perf") && argc == 3) {
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_TASK_CLOCK;
		return result(syscall(SYS_perf_event_open, &a, atoi(argv[2]), -1, -1, 0),
			      "perf_event_open");
	}
	fprintf(stderr, "usage: isolate clone3-cgroup DIR | clone-parent | vmread PID ADDR | "
		"getfd PID FD | kcmp PID | perf PID\n");
	return 2;
}
