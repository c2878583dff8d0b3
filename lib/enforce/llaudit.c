// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include "enforce/landlock.h"
#include "enforce/llaudit.h"

#ifndef AUDIT_LANDLOCK_ACCESS
#define AUDIT_LANDLOCK_ACCESS 1423
#endif
#ifndef AUDIT_LANDLOCK_DOMAIN
#define AUDIT_LANDLOCK_DOMAIN 1424
#endif
#ifndef AUDIT_NLGRP_READLOG
#define AUDIT_NLGRP_READLOG 1
#endif

/* Landlock's blocker names (security/landlock/audit.c) and our ops */
static const struct {
	const char *name;
	uint32_t op;
} blockers[] = {
	{ "fs.execute", AC_OP_EXEC }, { "fs.write_file", AC_OP_OPEN_WRITE },
	{ "fs.read_file", AC_OP_OPEN_READ }, { "fs.read_dir", AC_OP_OPEN_READ },
	{ "fs.remove_dir", AC_OP_RMDIR }, { "fs.remove_file", AC_OP_UNLINK },
	{ "fs.make_char", AC_OP_MKNOD }, { "fs.make_dir", AC_OP_MKDIR },
	{ "fs.make_reg", AC_OP_CREATE }, { "fs.make_sock", AC_OP_MKNOD },
	{ "fs.make_fifo", AC_OP_MKNOD }, { "fs.make_block", AC_OP_MKNOD },
	{ "fs.make_sym", AC_OP_SYMLINK }, { "fs.refer", AC_OP_RENAME },
	{ "fs.truncate", AC_OP_TRUNCATE }, { "fs.ioctl_dev", AC_OP_IOCTL },
	{ "fs.change_topology", AC_OP_MOUNT }, { "net.bind_tcp", AC_OP_BIND },
	{ "net.connect_tcp", AC_OP_CONNECT }, { "scope.signal", AC_OP_SIGNAL },
	{ "scope.abstract_unix_socket", AC_OP_UNIX_CONNECT }, { "ptrace", AC_OP_PTRACE },
};

void ac_llaudit_init(struct ac_llaudit *a, ac_llaudit_cb cb, void *ctx)
{
	memset(a, 0, sizeof(*a));
	a->fd = -1;
	a->cb = cb;
	a->ctx = ctx;
}

void ac_llaudit_creator(struct ac_llaudit *a, pid_t pid)
{
	for (size_t i = 0; i < AC_LLAUDIT_CREATORS; i++)
		if (!a->creator[i] || a->creator[i] == pid) {
			a->creator[i] = pid;
			return;
		}
}

/* The text after "audit(SEC.MS:SERIAL): "; NULL when it is not one. */
static const char *header(const char *m, const char *end, uint64_t *serial, uint64_t *rt)
{
	uint64_t v[3] = { 0, 0, 0 };
	static const char sep[] = ".:)";
	size_t k = 0;

	if (end - m < 6 || memcmp(m, "audit(", 6))
		return NULL;
	for (m += 6; k < 3; m++) {
		if (m >= end)
			return NULL;
		if (*m >= '0' && *m <= '9' && v[k] < UINT64_MAX / 10 - 1)
			v[k] = v[k] * 10 + (uint64_t)(*m - '0');
		else if (*m == sep[k])
			k++;
		else
			return NULL;
	}
	if (m >= end || *m != ':')
		return NULL;
	*rt = v[0] * 1000000000ull + v[1] % 1000 * 1000000ull;
	*serial = v[2];
	return m + 1;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 :
	       c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Field key's value into out (NUL-terminated, cut to cap); str: a string
 * from the task (a path, a name), which audit quotes when it is plain and
 * hex-encodes when not. Its length, or -1. */
static ssize_t field_of(const char *m, const char *end, const char *key, int str, char *out,
			size_t cap)
{
	size_t kl = strlen(key);

	while (m < end) {
		const char *v, *ve;
		int quoted;

		while (m < end && *m == ' ')
			m++;
		for (v = m; v < end && *v != '=' && *v != ' '; v++)
			;
		if (v >= end || *v != '=') {
			m = v;
			continue;
		}
		quoted = v + 1 < end && v[1] == '"';
		v += 1 + quoted;
		for (ve = v; ve < end && (quoted ? *ve != '"' : *ve != ' '); ve++)
			;
		if ((size_t)(v - 1 - quoted - m) == kl && !memcmp(m, key, kl)) {
			size_t n = 0, len = (size_t)(ve - v);
			int hex = str && !quoted && len % 2 == 0 && len;

			for (size_t i = 0; hex && i < len; i++)
				hex = hexval(v[i]) >= 0;
			for (size_t i = 0; i < len && n + 1 < cap; i += hex ? 2 : 1)
				out[n++] = hex ? (char)(hexval(v[i]) << 4 | hexval(v[i + 1])) : v[i];
			if (cap)
				out[n] = 0;
			return (ssize_t)n;
		}
		m = ve + quoted;
	}
	return -1;
}

static ssize_t field(const char *m, const char *end, const char *key, char *out, size_t cap)
{
	return field_of(m, end, key, 0, out, cap);
}

static ssize_t field_str(const char *m, const char *end, const char *key, char *out, size_t cap)
{
	return field_of(m, end, key, 1, out, cap);
}

static uint64_t field_u64(const char *m, const char *end, const char *key, int base)
{
	char b[24];

	return field(m, end, key, b, sizeof(b)) > 0 ? strtoull(b, NULL, base) : 0;
}

/* the cage's domain d's index, or -1 */
static int known(const struct ac_llaudit *a, uint64_t d)
{
	for (size_t i = 0; i < a->ndomains; i++)
		if (a->dom[i].id == d)
			return (int)i;
	return -1;
}

size_t ac_llaudit_pending(const struct ac_llaudit *a)
{
	size_t n = 0;

	for (size_t i = 0; i < a->ndomains; i++)
		n += !a->dom[i].freed;
	return n;
}

void ac_llaudit_flush(struct ac_llaudit *a)
{
	int i = a->p.have ? known(a, a->p.domain) : -1;

	a->p.have = 0;
	if (i < 0)
		return;
	a->dom[i].seen++;
	if (a->cb)
		a->cb(a->ctx, &a->p.ev, a->p.realtime_ns);
}

/* "status=allocated ... pid=N": a domain of the cage when N made it;
 * "status=deallocated denials=N": the kernel's count of its denials */
static void domain_record(struct ac_llaudit *a, const char *m, const char *end)
{
	uint64_t d = field_u64(m, end, "domain", 16), n;
	pid_t pid = (pid_t)field_u64(m, end, "pid", 10);
	int i = known(a, d);
	char st[16];

	if (!d || field(m, end, "status", st, sizeof(st)) < 0)
		return;
	if (!strcmp(st, "deallocated") && i >= 0 && !a->dom[i].freed) {
		a->dom[i].freed = 1;
		n = field_u64(m, end, "denials", 10);
		a->unreported += n > a->dom[i].seen ? n - a->dom[i].seen : 0;
		return;
	}
	if (strcmp(st, "allocated") || i >= 0 || a->ndomains >= AC_LLAUDIT_DOMAINS || pid <= 0)
		return;
	for (size_t k = 0; k < AC_LLAUDIT_CREATORS; k++)
		if (a->creator[k] == pid) {
			a->dom[a->ndomains++].id = d;
			return;
		}
}

static void access_record(struct ac_llaudit *a, const char *m, const char *end)
{
	struct ac_event *ev = &a->p.ev;
	char b[64], *comma;
	ssize_t n;

	memset(ev, 0, sizeof(*ev));
	ev->action = AC_DENIED;
	ev->flags = AC_EV_LANDLOCK;
	a->p.domain = field_u64(m, end, "domain", 16);
	a->p.have = 1;
	if (field(m, end, "blockers", b, sizeof(b)) > 0) {
		if ((comma = strchr(b, ',')))
			*comma = 0;
		for (size_t i = 0; i < sizeof(blockers) / sizeof(blockers[0]); i++)
			if (!strcmp(b, blockers[i].name))
				ev->op = blockers[i].op;
	}
	n = field_str(m, end, "path", ev->path, sizeof(ev->path));
	if (n < 0)
		n = field_str(m, end, "name", ev->path, sizeof(ev->path));
	if (n >= 0)
		ev->path_len = (uint32_t)n;
	if ((ev->op == AC_OP_SIGNAL || ev->op == AC_OP_PTRACE) &&
	    (ev->arg = (uint32_t)field_u64(m, end, "opid", 10)))
		ev->flags |= ev->op == AC_OP_PTRACE ? AC_EV_ARG : 0;
}

void ac_llaudit_record(struct ac_llaudit *a, int type, const char *msg, size_t len)
{
	const char *end = msg + len, *m;
	uint64_t serial, rt;

	while (end > msg && (end[-1] == 0 || end[-1] == '\n'))
		end--;
	if (!(m = header(msg, end, &serial, &rt)))
		return;
	if (a->p.have && serial != a->p.serial)
		ac_llaudit_flush(a);
	switch (type) {
	case AUDIT_LANDLOCK_DOMAIN:
		domain_record(a, m, end);
		break;
	case AUDIT_LANDLOCK_ACCESS:
		if (a->p.have)     /* a second denial of the same call */
			ac_llaudit_flush(a);
		access_record(a, m, end);
		a->p.serial = serial;
		a->p.realtime_ns = rt;
		break;
	case AUDIT_SYSCALL:
		if (!a->p.have)
			break;
		a->p.ev.pid = (uint32_t)field_u64(m, end, "pid", 10);
		a->p.ev.uid = (uint32_t)field_u64(m, end, "uid", 10);
		field_str(m, end, "comm", a->p.ev.comm, sizeof(a->p.ev.comm));
		break;
	case AUDIT_EOE:
		ac_llaudit_flush(a);
		break;
	}
}

/* Is kernel audit on? 1, 0, or -1 with e. */
static int audit_enabled(struct ac_error *e)
{
	struct {
		struct nlmsghdr h;
		struct audit_status s;
	} req = { .h = { .nlmsg_len = NLMSG_LENGTH(0), .nlmsg_type = AUDIT_GET,
			 .nlmsg_flags = NLM_F_REQUEST, .nlmsg_seq = 1 } }, rep;
	struct sockaddr_nl k = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 2 };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT), ret = -1;
	ssize_t n;

	if (fd < 0)
		return ac_error_set(e, AC_E_SYSTEM, "this kernel has no audit (%s)", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (sendto(fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&k, sizeof(k)) < 0) {
		ac_error_set(e, AC_E_SYSTEM, "cannot ask whether kernel audit is on: %s",
			     strerror(errno));
		goto out;
	}
	while ((n = recv(fd, &rep, sizeof(rep), 0)) >= (ssize_t)sizeof(rep.h)) {
		if (rep.h.nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *er = NLMSG_DATA(&rep.h);

			if (er->error) {
				ac_error_set(e, AC_E_SYSTEM, "cannot ask whether kernel audit is "
					     "on: %s", strerror(-er->error));
				goto out;
			}
			continue;
		}
		if (rep.h.nlmsg_type == AUDIT_GET && n >= (ssize_t)NLMSG_LENGTH(sizeof(__u32) * 2)) {
			ret = rep.s.enabled != 0;
			goto out;
		}
	}
	ac_error_set(e, AC_E_SYSTEM, "no answer from kernel audit: %s",
		     n < 0 ? strerror(errno) : "short reply");
out:
	close(fd);
	return ret;
}

int ac_llaudit_open(struct ac_llaudit *a, ac_llaudit_cb cb, void *ctx, struct ac_error *e)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
				  .nl_groups = 1u << (AUDIT_NLGRP_READLOG - 1) };
	int buf = 4 << 20, on;

	ac_llaudit_init(a, cb, ctx);
	if (ac_landlock_abi(NULL) < 7)
		return ac_error_set(e, AC_E_KERNEL_NO_LANDLOCK, "Landlock before ABI 7 writes no "
				    "audit records");
	if ((on = audit_enabled(e)) < 0)
		return -1;
	a->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_AUDIT);
	if (a->fd < 0)
		return ac_error_set(e, AC_E_SYSTEM, "this kernel has no audit (%s)", strerror(errno));
	/* as root, past rmem_max: a burst of denials must not overrun it */
	if (setsockopt(a->fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)))
		setsockopt(a->fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	if (bind(a->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		ac_error_set(e, errno == EPERM ? AC_E_PERMISSION : AC_E_SYSTEM,
			     "cannot read the kernel's audit records: %s%s", strerror(errno),
			     errno == EPERM ? " (it needs CAP_AUDIT_READ)" : "");
		ac_llaudit_close(a);
		return -1;
	}
	if (!on) {     /* stays joined: records come once audit is turned on */
		ac_error_set(e, AC_E_SYSTEM, "kernel audit is off; auditctl -e 1 turns it on");
		return -1;
	}
	return 0;
}

void ac_llaudit_read(struct ac_llaudit *a)
{
	char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
	ssize_t n;

	/* a bounded batch: a flood of records must not keep the caller from
	 * its other work (signals, the time limit) */
	for (int batch = 0; a->fd >= 0 && batch < 256; batch++) {
		n = recv(a->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0 && errno == ENOBUFS) {
			a->overruns++;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		int left = (int)n;   /* NLMSG_NEXT may take it below 0 */

		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left))
			ac_llaudit_record(a, h->nlmsg_type, NLMSG_DATA(h),
					  h->nlmsg_len - NLMSG_HDRLEN);
	}
}

void ac_llaudit_close(struct ac_llaudit *a)
{
	ac_llaudit_flush(a);
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
}
