// SPDX-License-Identifier: GPL-2.0-only
/* launch-probe: system calls the launch's seccomp filter refuses, one
 * "name result" line each (result: the call's value, or -errno):
 *   int80        getpid through the 32-bit entry point (int $0x80)
 *   keyctl       KEYCTL_GET_KEYRING_ID of the session keyring
 *   unshare-user unshare(CLONE_NEWUSER), in a forked child
 *   getpriority  getpriority(PRIO_PROCESS, 0) (raw: -errno, not 20 - nice)
 *   shm KEY      shmget(KEY, 0, 0) for each KEY (hex) given as argument */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/keyctl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long res(long r)
{
	return r < 0 ? -errno : r;
}

static long int80_getpid(void)
{
	long r = 20; /* __NR_getpid on i386 */

	__asm__ volatile("int $0x80" : "+a"(r) : : "memory");
	return r;
}

int main(int argc, char **argv)
{
	pid_t c;
	int st = 0;

	printf("int80 %ld\n", int80_getpid());
	printf("keyctl %ld\n", res(syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID,
					   KEY_SPEC_SESSION_KEYRING, 0)));
	fflush(stdout);
	if ((c = fork()) == 0)
		_exit(unshare(CLONE_NEWUSER) ? errno : 0);
	waitpid(c, &st, 0);
	printf("unshare-user %d\n", WIFEXITED(st) ? -WEXITSTATUS(st) : -1000);
	printf("getpriority %ld\n", res(syscall(SYS_getpriority, PRIO_PROCESS, 0)));
	for (int i = 1; i < argc; i++)
		printf("shm %s %ld\n", argv[i],
		       res(shmget((key_t)strtol(argv[i], NULL, 16), 0, 0)));
	return 0;
}
