// SPDX-License-Identifier: GPL-2.0-only
/* Routes from a cage to what lies outside it, and back, for
 * tests/vm/e2e-baseline-reach.sh; each a real system call. Exit 0 when the
 * call succeeded, 1 when it failed (its errno on stderr), 2 on a usage error.
 *   reach bind NAME          bind a stream socket to the abstract name NAME
 *   reach connect NAME       connect to abstract NAME, print what it sends
 *   reach send NAME          send a datagram to abstract NAME
 *   reach serve NAME NAMES DONE
 *                            listen on abstract NAME, on an autobound stream
 *                            socket and an autobound datagram socket; write
 *                            the two drawn names to NAMES; answer "hi" to
 *                            every connection until the file DONE exists
 *                            (60 s at most), then print what each received
 *   reach setns PID1 PID2 MARK
 *                            setns into the namespaces of PID1 (its own uts
 *                            and mount namespaces; MARK exists only in the
 *                            latter) and PID2 (its own user and uts
 *                            namespaces), by pidfd and by /proc/PID/ns,
 *                            also after unshare(CLONE_NEWUSER): one line
 *                            each, "ROUTE ok|ERRNO host=NAME [mark=yes|no]",
 *                            each route in a child of its own */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int fail(const char *what)
{
	fprintf(stderr, "%s: %s\n", what, strerror(errno));
	return 1;
}

/* An abstract address for NAME; its length in *len. */
static struct sockaddr_un abstract(const char *name, socklen_t *len)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	size_t n = strnlen(name, sizeof(a.sun_path) - 1);

	memcpy(a.sun_path + 1, name, n);
	*len = offsetof(struct sockaddr_un, sun_path) + 1 + n;
	return a;
}

static int do_bind(const char *name)
{
	socklen_t len;
	struct sockaddr_un a = abstract(name, &len);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	if (s < 0 || bind(s, (struct sockaddr *)&a, len))
		return fail("bind");
	return 0;
}

static int do_connect(const char *name)
{
	socklen_t len;
	struct sockaddr_un a = abstract(name, &len);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	char buf[8] = "";

	if (s < 0 || connect(s, (struct sockaddr *)&a, len))
		return fail("connect");
	if (read(s, buf, sizeof(buf) - 1) < 0)
		return fail("read");
	printf("%s\n", buf);
	return 0;
}

static int do_send(const char *name)
{
	socklen_t len;
	struct sockaddr_un a = abstract(name, &len);
	int s = socket(AF_UNIX, SOCK_DGRAM, 0);

	if (s < 0 || sendto(s, "x", 1, 0, (struct sockaddr *)&a, len) != 1)
		return fail("sendto");
	return 0;
}

/* The abstract name socket s was given (after its NUL) into out. */
static int bound_name(int s, char *out, size_t outlen)
{
	struct sockaddr_un a;
	socklen_t len = sizeof(a);
	size_t off = offsetof(struct sockaddr_un, sun_path) + 1;

	if (getsockname(s, (struct sockaddr *)&a, &len) || len <= off || a.sun_path[0])
		return -1;
	snprintf(out, outlen, "%.*s", (int)(len - off), a.sun_path + 1);
	return 0;
}

static int autobound(int type)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, type, 0);

	if (s < 0 || bind(s, (struct sockaddr *)&a, offsetof(struct sockaddr_un, sun_path)))
		return -1;
	if (type == SOCK_STREAM && listen(s, 8))
		return -1;
	return s;
}

static int do_serve(const char *name, const char *names, const char *done)
{
	socklen_t len;
	struct sockaddr_un a = abstract(name, &len);
	int got[3] = { 0, 0, 0 };
	char sn[64], dn[64];
	struct pollfd p[3];
	FILE *f;

	p[0].fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (p[0].fd < 0 || bind(p[0].fd, (struct sockaddr *)&a, len) || listen(p[0].fd, 8))
		return fail("listen");
	p[1].fd = autobound(SOCK_STREAM);
	p[2].fd = autobound(SOCK_DGRAM);
	if (p[1].fd < 0 || p[2].fd < 0 || bound_name(p[1].fd, sn, sizeof(sn)) ||
	    bound_name(p[2].fd, dn, sizeof(dn)))
		return fail("autobind");
	f = fopen(names, "w");
	if (!f)
		return fail(names);
	fprintf(f, "%s %s\n", sn, dn);
	fclose(f);
	for (int i = 0; i < 600 && access(done, F_OK); i++) {
		for (int k = 0; k < 3; k++)
			p[k].events = POLLIN;
		if (poll(p, 3, 100) <= 0)
			continue;
		for (int k = 0; k < 3; k++) {
			char b[8];
			int c;

			if (!(p[k].revents & POLLIN))
				continue;
			got[k]++;
			if (k == 2) {
				if (recv(p[k].fd, b, sizeof(b), 0) < 0)
					return fail("recv");
				continue;
			}
			c = accept(p[k].fd, NULL, NULL);
			if (c >= 0) {
				if (write(c, "hi", 2) != 2)
					return fail("write");
				close(c);
			}
		}
	}
	printf("named=%d autobound=%d dgram=%d\n", got[0], got[1], got[2]);
	return 0;
}

static const char *err_name(int e)
{
	switch (e) {
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case EINVAL: return "EINVAL";
	case ENOENT: return "ENOENT";
	}
	return strerror(e);
}

enum route { PIDFD_UTS, PIDFD_MNT, NSFILE_UTS, PIDFD_USER, UNSHARE_USER };

/* One setns route, in the calling (child) process; prints its line. */
static void route(enum route r, int pid1, int pid2, const char *mark)
{
	static const char *const names[] = { "pidfd-uts", "pidfd-mnt", "nsfile-uts", "pidfd-user",
					     "unshare-user" };
	int fd = -1, rc = -1, err = 0;
	struct utsname u;
	char path[64];

	switch (r) {
	case PIDFD_UTS: case PIDFD_MNT: case PIDFD_USER: case UNSHARE_USER:
		fd = (int)syscall(SYS_pidfd_open, r == PIDFD_USER ? pid2 : pid1, 0);
		break;
	case NSFILE_UTS:
		snprintf(path, sizeof(path), "/proc/%d/ns/uts", pid1);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		break;
	}
	if (fd < 0) {
		err = errno;
	} else if (r == UNSHARE_USER && unshare(CLONE_NEWUSER)) {
		err = errno;
	} else {
		int flags = r == PIDFD_MNT ? CLONE_NEWNS :
			    r == PIDFD_USER ? CLONE_NEWUSER | CLONE_NEWUTS :
			    r == NSFILE_UTS ? 0 : CLONE_NEWUTS;

		rc = setns(fd, flags);
		err = errno;
		/* after its own user namespace, try the other target too */
		if (rc && r == UNSHARE_USER) {
			int fd2 = (int)syscall(SYS_pidfd_open, pid2, 0);

			if (fd2 >= 0 && !(rc = setns(fd2, CLONE_NEWUSER | CLONE_NEWUTS)))
				err = 0;
		}
	}
	uname(&u);
	printf("%s %s host=%s", names[r], rc ? err_name(err) : "ok", u.nodename);
	if (r == PIDFD_MNT)
		printf(" mark=%s", access(mark, F_OK) ? "no" : "yes");
	printf("\n");
}

static int do_setns(int pid1, int pid2, const char *mark)
{
	for (int r = PIDFD_UTS; r <= UNSHARE_USER; r++) {
		pid_t c;

		fflush(stdout);
		c = fork();
		if (c < 0)
			return fail("fork");
		if (c == 0) {
			route(r, pid1, pid2, mark);
			fflush(stdout);
			_exit(0);
		}
		waitpid(c, NULL, 0);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "bind"))
		return do_bind(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "connect"))
		return do_connect(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "send"))
		return do_send(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "serve"))
		return do_serve(argv[2], argv[3], argv[4]);
	if (argc == 5 && !strcmp(argv[1], "setns"))
		return do_setns(atoi(argv[2]), atoi(argv[3]), argv[4]);
	fprintf(stderr, "usage: reach bind|connect|send NAME | serve NAME NAMES DONE | "
		"setns PID1 PID2 MARK\n");
	return 2;
}
