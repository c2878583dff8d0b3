// SPDX-License-Identifier: GPL-2.0-only
/* For the no-gap reload test of tests/vm/e2e-daemon-run.sh: open DENIED and
 * ALLOWED in a tight loop until STOP exists; DENIED must never open and
 * ALLOWED must always open. Prints "started" once, then at the end
 *   rounds N forbidden F failed A
 * (F: opens of DENIED that succeeded, A: opens of ALLOWED that failed);
 * exit 0 when both are 0. A pause of 5 ms every 16 rounds keeps the
 * denials' events (one per try) to a few thousand a second.
 *   openloop DENIED ALLOWED STOP */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long rounds = 0, forbidden = 0, failed = 0;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: openloop DENIED ALLOWED STOP\n");
		return 2;
	}
	printf("started\n");
	fflush(stdout);
	/* a stat, not an open: the policy need not read STOP */
	while (access(argv[3], F_OK)) {
		nanosleep(&(struct timespec){ 0, 5 * 1000 * 1000 }, NULL);
		for (int i = 0; i < 16; i++, rounds++) {
			if ((fd = open(argv[1], O_RDONLY)) >= 0) {
				forbidden++;
				close(fd);
			}
			if ((fd = open(argv[2], O_RDONLY)) < 0)
				failed++;
			else
				close(fd);
		}
	}
	printf("rounds %lu forbidden %lu failed %lu\n", rounds, forbidden, failed);
	return forbidden || failed;
}
