// SPDX-License-Identifier: GPL-2.0-only
/* The control socket: unix stream, one JSON request per line, one reply
 * line each (docs/protocol.md). Every socket is non-blocking and every
 * client has a bounded buffer each way, so a slow, stuck or malicious
 * client never stalls the daemon: an oversized line gets an error reply
 * and the connection is closed; a client that does not read its replies
 * is dropped. */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "../cli/diag.h"
#include "daemon.h"
#include "proto/proto.h"

#define OUT_MAX (1 << 20)   /* replies a client may leave unread */

static int mkdir_parent(const char *path, struct ac_error *e)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	if (!(slash = strrchr(dir, '/')) || slash == dir)
		return 0;
	*slash = 0;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return ac_error_set(e, AC_E_SYSTEM, "cannot create %s: %s", dir, strerror(errno));
	return 0;
}

int server_open(struct daemon *d, struct ac_error *e)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct group *g = getgrnam("agentcage");
	struct epoll_event ev = { .events = EPOLLIN };
	mode_t old;

	if (strlen(d->sock_path) >= sizeof(sa.sun_path))
		return ac_error_set(e, AC_E_USAGE, "socket path %s is too long", d->sock_path);
	memcpy(sa.sun_path, d->sock_path, strlen(d->sock_path) + 1);
	if (mkdir_parent(d->sock_path, e))
		return -1;
	d->have_group = g != NULL;
	d->gid = g ? g->gr_gid : 0;
	d->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (d->lfd < 0)
		return ac_error_set(e, AC_E_SYSTEM, "socket: %s", strerror(errno));
	/* a socket file left by a daemon that died; a live daemon answers */
	if (connect(d->lfd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return ac_error_set(e, AC_E_USAGE, "a daemon already answers on %s", d->sock_path);
	close(d->lfd);
	d->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	/* the kernel refuses every caged connect to it, whatever a policy lists */
	if (d->lfd < 0 || loader_guard_socket(&d->ld, d->lfd))
		return ac_error_set(e, AC_E_SYSTEM, "cannot guard the control socket: %s",
				    strerror(errno));
	unlink(d->sock_path);
	old = umask(0177);   /* never reachable by others, not even for a moment */
	if (bind(d->lfd, (struct sockaddr *)&sa, sizeof(sa))) {
		umask(old);
		return ac_error_set(e, AC_E_SYSTEM, "cannot bind %s: %s", d->sock_path, strerror(errno));
	}
	umask(old);
	d->bound = 1;
	if (chown(d->sock_path, 0, d->gid) || chmod(d->sock_path, 0660) || listen(d->lfd, 64))
		return ac_error_set(e, AC_E_SYSTEM, "cannot set up %s: %s", d->sock_path,
				    strerror(errno));
	ev.data.ptr = &d->lfd;
	epoll_ctl(d->ep, EPOLL_CTL_ADD, d->lfd, &ev);
	return 0;
}

/* does /proc/PID/status list gid among the task's groups? */
static int in_group(pid_t pid, gid_t gid)
{
	char p[64], line[4096];
	FILE *f;
	int found = 0;

	snprintf(p, sizeof(p), "/proc/%d/status", (int)pid);
	if (!(f = fopen(p, "re")))
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		char *s = line, *end;

		if (strncmp(line, "Groups:", 7) && strncmp(line, "Gid:", 4))
			continue;
		s = strchr(line, ':') + 1;
		for (unsigned long v; (v = strtoul(s, &end, 10)), end != s; s = end)
			if (v == gid)
				found = 1;
	}
	fclose(f);
	return found;
}

/* is the task in a cage (under agentcage's cgroup)? A caged process may
 * never steer the daemon, whatever its policy lets it connect to. */
static int caged(pid_t pid)
{
	char p[64], line[4096];
	FILE *f;
	int in = 1;    /* unknown: refuse */

	snprintf(p, sizeof(p), "/proc/%d/cgroup", (int)pid);
	if (!(f = fopen(p, "re")))
		return 1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3))
			in = strncmp(line + 3, "/agentcage/", 11) == 0 ||
			     strcmp(line + 3, "/agentcage\n") == 0;
	fclose(f);
	return in;
}

/* Who may use the socket: root, or a member of the group agentcage, and
 * never a process in a cage. NULL, or why not. */
static const char *refused(struct daemon *d, int fd, pid_t *pid, uid_t *uid)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	int mine = 0;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len))
		return "cannot identify the client (SO_PEERCRED)";
	*pid = uc.pid;
	*uid = uc.uid;
	if (caged(uc.pid))
		return "a process in a cage may not use the control socket";
	/* one user other than root cannot take every connection */
	for (int i = 0; uc.uid && i < d->clients_hi; i++)
		mine += d->clients[i] && d->clients[i]->fd != fd && d->clients[i]->uid == uc.uid;
	if (mine >= CLIENTS_PER_UID)
		return "this user has 256 connections to the daemon already (runs hold two each)";
	if (uc.uid == 0)
		return NULL;
	if (d->have_group && (uc.gid == d->gid || in_group(uc.pid, d->gid)))
		return NULL;
	return d->have_group ? "only root and members of the group agentcage may use the daemon" :
	       "only root may use the daemon (create the group agentcage to allow others)";
}

static void client_free(struct daemon *d, struct client *c)
{
	for (int i = 0; i < d->clients_hi; i++)
		if (d->clients[i] == c)
			d->clients[i] = NULL;
	while (d->clients_hi > 0 && !d->clients[d->clients_hi - 1])
		d->clients_hi--;
	run_end(d, c);     /* its run, if it owns one, goes with it */
	close(c->fd);
	free(c->out);
	free(c->in);
	free(c);
}

/* room for more of c's input, up to CLIENT_IN_MAX; 0 when there is none */
static size_t in_room(struct client *c)
{
	size_t cap = c->incap ? 2 * c->incap : 4096;
	char *p;

	if (c->inlen < c->incap)
		return c->incap - c->inlen;
	if (cap > CLIENT_IN_MAX)
		cap = CLIENT_IN_MAX;
	if (cap <= c->incap || !(p = realloc(c->in, cap)))
		return 0;
	c->in = p;
	c->incap = cap;
	return c->incap - c->inlen;
}

int server_queue_line(struct client *c, const char *line, size_t n, size_t max)
{
	char *p;

	if (c->outlen + n > max || !(p = realloc(c->out, c->outlen + n)))
		return -1;
	memcpy(p + c->outlen, line, n);
	c->out = p;
	c->outlen += n;
	return 0;
}

static void queue(struct client *c, json_object *reply)
{
	size_t n;
	char *line, *p;

	if (!reply)
		return;     /* the handler queued its reply itself (events) */
	line = proto_line(reply, &n);
	if (!line || c->outlen + n > OUT_MAX || !(p = realloc(c->out, c->outlen + n))) {
		free(line);
		c->closing = 2;    /* drop it: it does not read what it asked for */
		return;
	}
	memcpy(p + c->outlen, line, n);
	c->out = p;
	c->outlen += n;
	free(line);
}

/* write what can be written; 0, or -1 when the client is to go */
static int flush(struct daemon *d, struct client *c)
{
	struct epoll_event ev = { .data.ptr = c };

	while (c->outlen) {
		ssize_t n = send(c->fd, c->out, c->outlen, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0)
			return -1;
		memmove(c->out, c->out + n, c->outlen - n);
		c->outlen -= n;
	}
	if (!c->outlen && c->closing)
		return -1;
	ev.events = (c->closing ? 0 : EPOLLIN) | (c->outlen ? EPOLLOUT : 0);
	epoll_ctl(d->ep, EPOLL_CTL_MOD, c->fd, &ev);
	return 0;
}

void server_accept(struct daemon *d)
{
	for (;;) {
		int fd = accept4(d->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), slot = -1;
		struct epoll_event ev = { .events = EPOLLIN };
		const char *why;
		struct client *c;
		pid_t pid = 0;

		if (fd < 0)
			return;
		for (int i = 0; i < DAEMON_MAX_CLIENTS && slot < 0; i++)
			if (!d->clients[i])
				slot = i;
		if (slot >= d->clients_hi)
			d->clients_hi = slot + 1;
		if (slot < 0 || !(c = calloc(1, sizeof(*c)))) {
			close(fd);      /* full: the client sees the connection closed */
			continue;
		}
		c->fd = fd;
		c->uid = (uid_t)-1;
		d->clients[slot] = c;
		ev.data.ptr = c;
		epoll_ctl(d->ep, EPOLL_CTL_ADD, fd, &ev);
		if ((why = refused(d, fd, &pid, &c->uid))) {
			diag_warn("control socket: refused pid %d: %s", (int)pid, why);
			queue(c, proto_error(AC_E_PERMISSION, why));
			c->closing = 1;
			if (flush(d, c))
				client_free(d, c);
		}
	}
}

/* every complete line in c->in gets its reply */
static void lines(struct daemon *d, struct client *c)
{
	char *nl;

	while (!c->closing && (nl = memchr(c->in, '\n', c->inlen))) {
		size_t n = nl - c->in;
		struct ucred uc = { 0 };
		socklen_t len = sizeof(uc);

		getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &uc, &len);
		d->current = c;
		queue(c, daemon_handle(d, c->in, n, uc.pid));
		d->current = NULL;
		memmove(c->in, nl + 1, c->inlen - n - 1);
		c->inlen -= n + 1;
	}
	if (!c->closing && c->inlen > PROTO_LINE_MAX) {
		queue(c, proto_error(AC_E_PROTOCOL, "bad request: longer than 65536 bytes"));
		c->closing = 1;
	}
}

void server_client(struct daemon *d, struct client *c, uint32_t events)
{
	if ((events & EPOLLIN) && !c->closing) {
		for (;;) {
			size_t room = in_room(c);
			ssize_t n = room ? recv(c->fd, c->in + c->inlen, room, MSG_DONTWAIT) : -1;

			if (!room) {   /* out of memory: this client goes */
				c->closing = 2;
				break;
			}

			if (n < 0 && errno == EINTR)
				continue;
			if (n == 0 || (n < 0 && errno != EAGAIN)) {
				c->closing = 1;   /* its replies are still written */
				break;
			}
			if (n < 0)
				break;
			c->inlen += n;
			lines(d, c);
			if (c->closing || c->inlen == CLIENT_IN_MAX)
				break;
		}
	}
	if (c->closing == 2 || (events & EPOLLERR) || flush(d, c))
		client_free(d, c);
}

void server_flush_client(struct daemon *d, struct client *c)
{
	if (c->closing == 2 || flush(d, c))
		client_free(d, c);
}

void server_close(struct daemon *d)
{
	for (int i = 0; i < d->clients_hi; i++)
		if (d->clients[i]) {
			/* the daemon stops, the runs go on, enforced; a later
			 * daemon removes their cgroups once they are empty */
			d->clients[i]->run = NULL;
			client_free(d, d->clients[i]);
		}
	if (d->lfd >= 0)
		close(d->lfd);
	if (d->bound)
		unlink(d->sock_path);
}
