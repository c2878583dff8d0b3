#include <string.h>
#include <time.h>
#include "event.h"
#include "json.h"

static const char *const op_names[AC_OP__MAX] = {
	[AC_OP_OPEN_READ] = "open_read", [AC_OP_OPEN_WRITE] = "open_write",
	[AC_OP_CREATE] = "create", [AC_OP_MKNOD] = "mknod", [AC_OP_MKDIR] = "mkdir",
	[AC_OP_RMDIR] = "rmdir", [AC_OP_UNLINK] = "unlink", [AC_OP_RENAME] = "rename",
	[AC_OP_LINK] = "link", [AC_OP_SYMLINK] = "symlink", [AC_OP_TRUNCATE] = "truncate",
	[AC_OP_CHMOD] = "chmod", [AC_OP_CHOWN] = "chown", [AC_OP_SETXATTR] = "setxattr",
	[AC_OP_EXEC] = "exec", [AC_OP_MMAP_EXEC] = "mmap_exec", [AC_OP_MOUNT] = "mount",
	[AC_OP_BPF] = "bpf", [AC_OP_PTRACE] = "ptrace", [AC_OP_SIGNAL] = "signal",
	[AC_OP_CGROUP] = "cgroup_write",
};

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
	return e->path_len < sizeof(e->path) ? e->path_len : sizeof(e->path) - 1;
}

void event_write_json(FILE *f, const struct ac_event *e, const char *cage, uint64_t ns)
{
	char t[48];

	event_time(ns, t, sizeof(t));
	fprintf(f, "{\"time\":\"%s\",\"cage\":", t);
	json_write_string(f, cage, -1);
	fprintf(f, ",\"pid\":%u,\"uid\":%u,\"comm\":", e->pid, e->uid);
	json_write_string(f, e->comm, comm_len(e));
	fprintf(f, ",\"op\":\"%s\",\"path\":", event_op_name(e->op));
	if (e->flags & AC_EV_UNRESOLVED)
		fputs("null", f);
	else
		json_write_string(f, e->path, path_len(e));
	fprintf(f, ",\"action\":\"%s\"", e->action == AC_AUDITED ? "audited" : "denied");
	if (e->flags & AC_EV_UNRESOLVED)
		fputs(",\"unresolved\":true", f);
	fputs("}\n", f);
	fflush(f);
}

void event_write_plain(FILE *f, const struct ac_event *e, const char *cage, uint64_t ns)
{
	char t[48];

	event_time(ns, t, sizeof(t));
	fprintf(f, "agentcage: %s %s %s pid=%u uid=%u comm=", t, cage,
		e->action == AC_AUDITED ? "AUDIT" : "DENY", e->pid, e->uid);
	json_write_string(f, e->comm, comm_len(e));
	fprintf(f, " op=%s path=", event_op_name(e->op));
	if (e->flags & AC_EV_UNRESOLVED)
		fputs("(unresolved)", f);
	else if (!e->path_len)
		fputs("-", f);
	else
		json_write_string(f, e->path, path_len(e));
	fputc('\n', f);
	fflush(f);
}
