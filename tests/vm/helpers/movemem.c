// SPDX-License-Identifier: GPL-2.0-only
/* Another process's memory placement for tests/vm/e2e-baseline-kernfs.sh,
 * each a real system call; exit 0 when the call succeeded, 1 when it failed
 * (its errno on stderr), 2 on a usage error.
 *   movemem migrate PID   migrate_pages(PID) from node 0 to node 0
 *   movemem move PID      move_pages(PID) of no page (the permission checks
 *                         only: the kernel looks at the target first) */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long nodes = 1;   /* node 0 */
	long r;
	int pid;

	if (argc != 3) {
		fprintf(stderr, "usage: movemem migrate|move PID\n");
		return 2;
	}
	pid = atoi(argv[2]);
	if (!strcmp(argv[1], "migrate"))
		r = syscall(SYS_migrate_pages, pid, 8 * sizeof(nodes), &nodes, &nodes);
	else if (!strcmp(argv[1], "move"))
		r = syscall(SYS_move_pages, pid, 0UL, NULL, NULL, NULL, 0);
	else
		return 2;
	if (r < 0) {
		fprintf(stderr, "%s %d: %s\n", argv[1], pid, strerror(errno));
		return 1;
	}
	return 0;
}
