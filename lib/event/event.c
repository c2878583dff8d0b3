// SPDX-License-Identifier: GPL-2.0-only
#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include "event/event.h"
#include "event/json.h"

static const char *const op_names[AC_OP__MAX] = {
	[AC_OP_OPEN_READ] = "open_read", [AC_OP_OPEN_WRITE] = "open_write",
	[AC_OP_CREATE] = "create", [AC_OP_MKNOD] = "mknod", [AC_OP_MKDIR] = "mkdir",
	[AC_OP_RMDIR] = "rmdir", [AC_OP_UNLINK] = "unlink", [AC_OP_RENAME] = "rename",
	[AC_OP_LINK] = "link", [AC_OP_SYMLINK] = "symlink", [AC_OP_TRUNCATE] = "truncate",
	[AC_OP_CHMOD] = "chmod", [AC_OP_CHOWN] = "chown", [AC_OP_SETXATTR] = "setxattr",
	[AC_OP_EXEC] = "exec", [AC_OP_MMAP_EXEC] = "mmap_exec", [AC_OP_MOUNT] = "mount",
	[AC_OP_BPF] = "bpf", [AC_OP_PTRACE] = "ptrace", [AC_OP_SIGNAL] = "signal",
	[AC_OP_CGROUP] = "cgroup_write", [AC_OP_CONNECT] = "connect", [AC_OP_BIND] = "bind",
	[AC_OP_SEND] = "send", [AC_OP_RECV] = "recv", [AC_OP_SOCKET] = "socket",
	[AC_OP_UNIX_CONNECT] = "unix_connect", [AC_OP_UTIMES] = "utimes",
	[AC_OP_URING] = "io_uring", [AC_OP_CLONE] = "clone", [AC_OP_CAPABILITY] = "capability",
	[AC_OP_IOCTL] = "ioctl", [AC_OP_MODULE] = "module", [AC_OP_IPC] = "ipc",
	[AC_OP_KEY] = "keyring", [AC_OP_READLINK] = "readlink", [AC_OP_PERF] = "perf_event",
	[AC_OP_DEVICE] = "device", [AC_OP_LIMIT] = "limit", [AC_OP_SCHED] = "sched",
	[AC_OP_WATCH] = "watch", [AC_OP_LOCK] = "lock",
};

static const char *const cap_names[] = {
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
	"CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
	"CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW",
	"CAP_IPC_LOCK", "CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT",
	"CAP_SYS_PTRACE", "CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
	"CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE",
	"CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE",
	"CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ",
	"CAP_PERFMON", "CAP_BPF", "CAP_CHECKPOINT_RESTORE",
};

const char *event_cap_name(uint32_t cap, char *buf, size_t len)
{
	if (cap < sizeof(cap_names) / sizeof(cap_names[0]))
		return cap_names[cap];
	snprintf(buf, len, "%u", cap);
	return buf;
}

/* The event's argument (AC_EV_ARG) as a key and a value in buf, or NULL;
 * *quote says whether the value is a JSON string. */
static const char *event_arg(const struct ac_event *e, char *buf, size_t len, int *quote)
{
	if (!(e->flags & AC_EV_ARG))
		return NULL;
	*quote = 1;
	switch (e->op) {
	case AC_OP_CAPABILITY: {
		const char *name = event_cap_name(e->arg, buf, len);

		if (name != buf)
			snprintf(buf, len, "%s", name);
		return "capability";
	}
	case AC_OP_IOCTL:
		snprintf(buf, len, "0x%x", e->arg);
		return "ioctl";
	case AC_OP_DEVICE:
		snprintf(buf, len, "%u:%u", e->arg >> 20, e->arg & 0xfffff);
		return "device";
	case AC_OP_LIMIT:
		*quote = 0;
		snprintf(buf, len, "%u", e->arg);
		return "count";
	case AC_OP_PTRACE:
	case AC_OP_SCHED:
		*quote = 0;
		snprintf(buf, len, "%u", e->arg);
		return "target";
	}
	*quote = 0;
	snprintf(buf, len, "%u", e->arg);
	return "arg";
}

const char *event_family_name(unsigned family, char *buf, size_t len)
{
	switch (family) {
	case AF_UNIX: return "unix";
	case AF_INET: return "inet";
	case AF_INET6: return "inet6";
	case AF_NETLINK: return "netlink";
	case AF_PACKET: return "packet";
	case AF_VSOCK: return "vsock";
	case AF_BLUETOOTH: return "bluetooth";
	case AF_ALG: return "alg";
	case AF_XDP: return "xdp";
	}
	snprintf(buf, len, "%u", family);
	return buf;
}

static const char *proto_name(unsigned proto, char *buf, size_t len)
{
	switch (proto) {
	case 6: return "tcp";
	case 17: return "udp";
	case 1: return "icmp";
	case 58: return "icmpv6";
	case 262: return "mptcp";
	case 136: return "udplite";
	}
	snprintf(buf, len, "%u", proto);
	return buf;
}

void event_addr_str(const struct ac_event_net *n, char *buf, size_t len)
{
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (!memcmp(n->addr, mapped, 12))
		inet_ntop(AF_INET, n->addr + 12, buf, len);
	else
		inet_ntop(AF_INET6, n->addr, buf, len);
}

static int is_ip(const struct ac_event *e)
{
	return (e->flags & AC_EV_NET) && (e->net.family == AF_INET || e->net.family == AF_INET6);
}

const char *event_op_name(uint32_t op)
{
	return op < AC_OP__MAX && op_names[op] ? op_names[op] : "unknown";
}

void event_time(uint64_t ns, char *buf, size_t len)
{
	time_t s = ns / 1000000000ull;
	struct tm tm;
	char tmp[32];

	gmtime_r(&s, &tm);
	strftime(tmp, sizeof(tmp), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%06uZ", tmp, (unsigned)(ns % 1000000000ull / 1000));
}

static size_t comm_len(const struct ac_event *e)
{
	return strnlen(e->comm, sizeof(e->comm));
}

static size_t path_len(const struct ac_event *e)
{
	return e->path_len < sizeof(e->path) ? e->path_len : sizeof(e->path);
}

int event_file_path(const struct ac_event *e, char *buf, size_t len)
{
	size_t n = path_len(e);

	if ((e->flags & (AC_EV_NET | AC_EV_UNRESOLVED)) || !n || n >= len || memchr(e->path, 0, n))
		return 0;
	memcpy(buf, e->path, n);
	buf[n] = 0;
	return 1;
}

void event_write_json(FILE *f, const struct ac_event *e, const char *cage, uint64_t ns,
		      const char *rule)
{
	char t[48];

	event_time(ns, t, sizeof(t));
	fprintf(f, "{\"time\":\"%s\",\"cage\":", t);
	json_write_string(f, cage, -1);
	if (e->pid)
		fprintf(f, ",\"pid\":%u,\"uid\":%u,\"comm\":", e->pid, e->uid);
	else   /* a packet: no task, the socket owner's uid */
		fprintf(f, ",\"pid\":null,\"uid\":%u,\"comm\":", e->uid);
	json_write_string(f, e->comm, comm_len(e));
	fprintf(f, ",\"op\":\"%s\"", event_op_name(e->op));
	char ab[INET6_ADDRSTRLEN + 16];
	const char *key;
	int quote;

	if (e->flags & AC_EV_NET) {
		char fb[16], pb[16];

		fprintf(f, ",\"family\":\"%s\"", event_family_name(e->net.family, fb, sizeof(fb)));
		if (is_ip(e)) {
			event_addr_str(&e->net, ab, sizeof(ab));
			fprintf(f, ",\"addr\":\"%s\",\"port\":%u,\"proto\":\"%s\"", ab, e->net.port,
				proto_name(e->net.proto, pb, sizeof(pb)));
		} else if (e->op == AC_OP_SOCKET) {
			fprintf(f, ",\"type\":%u,\"proto\":%u", e->net.type, e->net.proto);
		} else if (e->net.family == AF_NETLINK) {
			fprintf(f, ",\"nlmsg_type\":%u", e->net.proto);
		}
	}
	if ((key = event_arg(e, ab, sizeof(ab), &quote)))
		fprintf(f, quote ? ",\"%s\":\"%s\"" : ",\"%s\":%s", key, ab);
	if (!(e->flags & AC_EV_NET) || e->net.family == AF_UNIX) {
		fputs(",\"path\":", f);
		if (e->flags & AC_EV_UNRESOLVED)
			fputs("null", f);
		else
			json_write_string(f, e->path, path_len(e));
	}
	fprintf(f, ",\"action\":\"%s\"", e->action == AC_AUDITED ? "audited" : "denied");
	if (rule) {
		fputs(",\"rule\":", f);
		json_write_string(f, rule, -1);
	}
	if (e->flags & AC_EV_UNRESOLVED)
		fputs(",\"unresolved\":true", f);
	if (e->flags & AC_EV_LANDLOCK)
		fputs(",\"enforcer\":\"landlock\"", f);
	fputs("}\n", f);
	fflush(f);
}

void event_write_record(FILE *f, const struct event_record *r, uint64_t ns)
{
	char t[48];

	event_time(ns, t, sizeof(t));
	fprintf(f, "{\"time\":\"%s\",\"cage\":", t);
	json_write_string(f, r->cage, -1);
	fprintf(f, ",\"record\":\"%s\",\"enforcer\":\"%s\",\"mode\":\"%s\",\"policy\":",
		r->record, r->enforcer, r->mode);
	if (r->policy)
		json_write_string(f, r->policy, -1);
	else
		fputs("null", f);
	if (r->pid)
		fprintf(f, ",\"pid\":%d", r->pid);
	if (r->landlock_abi)
		fprintf(f, ",\"landlock_abi\":%d", r->landlock_abi);
	fprintf(f, ",\"file_events\":%s", r->file_events ? "true" : "false");
	if (!strcmp(r->record, "reload"))
		fprintf(f, ",\"needs_restart\":%s", r->needs_restart ? "true" : "false");
	fputs("}\n", f);
	fflush(f);
}

void event_write_plain(FILE *f, const struct ac_event *e, const char *cage, uint64_t ns,
		       const char *rule)
{
	char t[48];

	event_time(ns, t, sizeof(t));
	fprintf(f, "agentcage: %s %s %s ", t, cage, e->action == AC_AUDITED ? "AUDIT" : "DENY");
	if (e->pid)
		fprintf(f, "pid=%u uid=%u comm=", e->pid, e->uid);
	else   /* a packet: no task, the socket owner's uid */
		fprintf(f, "pid=- uid=%u comm=", e->uid);
	json_write_string(f, e->comm, comm_len(e));
	fprintf(f, " op=%s", event_op_name(e->op));
	if (is_ip(e)) {
		char pb[16], ab[INET6_ADDRSTRLEN];

		event_addr_str(&e->net, ab, sizeof(ab));
		fprintf(f, e->net.family == AF_INET6 && strchr(ab, ':') ? " peer=[%s]:%u/%s\n" :
			" peer=%s:%u/%s\n", ab, e->net.port, proto_name(e->net.proto, pb, sizeof(pb)));
		fflush(f);
		return;
	}
	if ((e->flags & AC_EV_NET) && e->net.family != AF_UNIX) {
		char fb[16];

		fprintf(f, " family=%s", event_family_name(e->net.family, fb, sizeof(fb)));
		if (e->op == AC_OP_SOCKET)
			fprintf(f, " type=%u proto=%u", e->net.type, e->net.proto);
		else
			fprintf(f, " nlmsg_type=%u", e->net.proto);
		fputc('\n', f);
		fflush(f);
		return;
	}
	{
		char ab[32];
		const char *key;
		int quote;

		if ((key = event_arg(e, ab, sizeof(ab), &quote)))
			fprintf(f, " %s=%s", key, ab);
	}
	fputs(" path=", f);
	if (e->flags & AC_EV_UNRESOLVED)
		fputs("(unresolved)", f);
	else if (!e->path_len)
		fputs("-", f);
	else
		json_write_string(f, e->path, path_len(e));
	if (rule) {
		fputs(" rule=", f);
		json_write_string(f, rule, -1);
	}
	/* the usual cause: a shared library or extension module outside the
	 * library directories (a program's own file needs exec.allow) */
	if (e->op == AC_OP_MMAP_EXEC && e->action == AC_DENIED)
		fputs(" (add its directory to exec.libraries)", f);
	fputc('\n', f);
	fflush(f);
}
