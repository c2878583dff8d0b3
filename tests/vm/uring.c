// SPDX-License-Identifier: GPL-2.0-only
/* io_uring probe for the end-to-end tests, with raw system calls only.
 *   uring sqpoll            set up an SQPOLL ring
 *   uring open PATH         open PATH for reading through a plain ring
 *   uring personality PATH  the same, under a registered personality
 * Prints "ok" and exits 0 when the kernel allowed it, else prints the error
 * and exits 1 (2 on a usage or setup error unrelated to the question). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int setup(unsigned flags, struct io_uring_params *p)
{
	memset(p, 0, sizeof(*p));
	p->flags = flags;
	return (int)syscall(SYS_io_uring_setup, 4, p);
}

/* one OPENAT of path through ring fd, personality 0 for none: the CQE's res */
static int open_once(int fd, struct io_uring_params *p, const char *path, int personality)
{
	size_t sq_len = p->sq_off.array + p->sq_entries * sizeof(unsigned);
	size_t cq_len = p->cq_off.cqes + p->cq_entries * sizeof(struct io_uring_cqe);
	char *sq, *cq;
	struct io_uring_sqe *sqes;
	unsigned tail, head;

	if (p->features & IORING_FEAT_SINGLE_MMAP && cq_len > sq_len)
		sq_len = cq_len;
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
	cq = p->features & IORING_FEAT_SINGLE_MMAP ? sq :
		mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p->sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) {
		perror("uring: mmap");
		exit(2);
	}
	memset(&sqes[0], 0, sizeof(sqes[0]));
	sqes[0].opcode = IORING_OP_OPENAT;
	sqes[0].fd = AT_FDCWD;
	sqes[0].addr = (unsigned long)path;
	sqes[0].open_flags = O_RDONLY;
	sqes[0].personality = (unsigned short)personality;
	tail = *(unsigned *)(sq + p->sq_off.tail);
	((unsigned *)(sq + p->sq_off.array))[tail & *(unsigned *)(sq + p->sq_off.ring_mask)] = 0;
	__atomic_store_n((unsigned *)(sq + p->sq_off.tail), tail + 1, __ATOMIC_RELEASE);
	if (syscall(SYS_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0) {
		perror("uring: io_uring_enter");
		exit(2);
	}
	head = __atomic_load_n((unsigned *)(cq + p->cq_off.head), __ATOMIC_ACQUIRE);
	if (head == __atomic_load_n((unsigned *)(cq + p->cq_off.tail), __ATOMIC_ACQUIRE)) {
		fprintf(stderr, "uring: no completion\n");
		exit(2);
	}
	return ((struct io_uring_cqe *)(cq + p->cq_off.cqes))[head & *(unsigned *)(cq + p->cq_off.ring_mask)].res;
}

int main(int argc, char **argv)
{
	struct io_uring_params p;
	int fd, res, pers = 0;

	if (argc == 2 && !strcmp(argv[1], "sqpoll")) {
		fd = setup(IORING_SETUP_SQPOLL, &p);
		if (fd < 0) {
			printf("sqpoll: %s\n", strerror(errno));
			return 1;
		}
		printf("ok\n");
		return 0;
	}
	if (argc != 3 || (strcmp(argv[1], "open") && strcmp(argv[1], "personality"))) {
		fprintf(stderr, "usage: uring sqpoll | uring open PATH | uring personality PATH\n");
		return 2;
	}
	fd = setup(0, &p);
	if (fd < 0) {
		perror("uring: io_uring_setup");
		return 2;
	}
	if (!strcmp(argv[1], "personality")) {
		pers = (int)syscall(SYS_io_uring_register, fd, IORING_REGISTER_PERSONALITY, NULL, 0);
		if (pers <= 0) {
			perror("uring: register personality");
			return 2;
		}
	}
	res = open_once(fd, &p, argv[2], pers);
	if (res < 0) {
		printf("%s: %s\n", argv[1], strerror(-res));
		return 1;
	}
	printf("ok\n");
	return 0;
}
