// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "agentcage/cage.h"
#include "harden/limits.h"
#include "util/error.h"

int ac_limits_cpu_max(unsigned cpu_milli, char *buf, size_t len)
{
	unsigned long long quota = (unsigned long long)cpu_milli * AC_CPU_PERIOD / 1000;

	return snprintf(buf, len, "%llu %d", quota, AC_CPU_PERIOD) >= (int)len ? -1 : 0;
}

static int read_text(const char *dir, const char *file, char *buf, size_t len)
{
	char path[4200];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

static int write_text(const char *dir, const char *file, const char *text, struct ac_error *e)
{
	char path[4200];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return ac_error_set(e, AC_E_CGROUP, "cannot open %s: %s", path, strerror(errno));
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	if (!ok)
		ac_error_set(e, AC_E_CGROUP, "writing '%s' to %s: %s", text, path, strerror(errno));
	close(fd);
	return ok ? 0 : -1;
}

/* is word in the space-separated list? */
static int has_word(const char *list, const char *word)
{
	size_t wl = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += wl)
		if ((p == list || p[-1] == ' ') && (!p[wl] || p[wl] == ' ' || p[wl] == '\n'))
			return 1;
	return 0;
}

static int offered(const char *dir, const char *ctrl)
{
	char avail[512] = "";

	return !read_text(dir, "cgroup.controllers", avail, sizeof(avail)) && has_word(avail, ctrl);
}

/* the cgroup above dir (for agentcage's parent: the cgroup2 mount's root) */
static void above(const char *dir, char *buf, size_t len)
{
	char *slash;

	snprintf(buf, len, "%s", dir);
	if ((slash = strrchr(buf, '/')) && slash != buf)
		*slash = 0;
}

/* Can dir enable ctrl for its children: offered to it, or, walking up,
 * to an ancestor that then passes it down each level (a host without
 * systemd leaves the root's cgroup.subtree_control empty; a daemon's run
 * is three levels below agentcage's parent)? With write, do so. */
static int enable_in(const char *dir, const char *ctrl, const char *key, int write, int depth,
		     struct ac_error *e)
{
	char up[4200], plus[32], probe[4300];

	snprintf(plus, sizeof(plus), "+%s", ctrl);
	if (!offered(dir, ctrl)) {
		above(dir, up, sizeof(up));
		snprintf(probe, sizeof(probe), "%s/cgroup.controllers", up);
		/* dir is the hierarchy's root: the controller is not on v2 here */
		if (depth >= 16 || !strcmp(up, dir) || access(probe, F_OK))
			return ac_error_set(e, AC_E_LIMITS_UNAVAILABLE, "limits.%s needs the cgroup "
					    "v2 '%s' controller, which %s/cgroup.controllers does not "
					    "offer (a hybrid host keeps it on cgroup v1); boot with "
					    "systemd.unified_cgroup_hierarchy=1, or run with --no-limits",
					    key, ctrl, dir);
		if (enable_in(up, ctrl, key, write, depth + 1, e))
			return -1;
	}
	return write ? write_text(dir, "cgroup.subtree_control", plus, e) : 0;
}

static int enable(const char *parent, const char *ctrl, const char *key, int write,
		  struct ac_error *e)
{
	return enable_in(parent, ctrl, key, write, 0, e);
}

int ac_limits_check(const char *parent, const struct policy_limits *l, struct ac_error *e)
{
	if ((l->memory && enable(parent, "memory", "memory", 0, e)) ||
	    (l->cpu_milli && enable(parent, "cpu", "cpu", 0, e)) ||
	    (l->pids && enable(parent, "pids", "pids", 0, e)))
		return -1;
	return 0;
}

int ac_limits_apply(const char *parent, const char *cage, const struct policy_limits *l,
		    struct ac_error *e)
{
	char buf[64];

	/* a missing controller stops before anything is written in the cage */
	if (ac_limits_check(parent, l, e) ||
	    (l->memory && enable(parent, "memory", "memory", 1, e)) ||
	    (l->cpu_milli && enable(parent, "cpu", "cpu", 1, e)) ||
	    (l->pids && enable(parent, "pids", "pids", 1, e)))
		return -1;
	if (l->memory) {
		snprintf(buf, sizeof(buf), "%llu", l->memory);
		if (write_text(cage, "memory.max", buf, e) ||
		    write_text(cage, "memory.swap.max", "0", e))
			return -1;
	}
	if (l->cpu_milli && (ac_limits_cpu_max(l->cpu_milli, buf, sizeof(buf)) ||
			     write_text(cage, "cpu.max", buf, e)))
		return -1;
	snprintf(buf, sizeof(buf), "%u", l->pids);
	if (l->pids && write_text(cage, "pids.max", buf, e))
		return -1;
	return 0;
}

int ac_limits_event(const char *text, const char *key, unsigned long long *out)
{
	size_t kl = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return sscanf(p + kl + 1, "%llu", out) == 1 ? 0 : -1;
	return -1;
}

int ac_limits_read_events(const char *cage, struct ac_limit_events *last,
			  struct ac_limit_events *delta, struct ac_error *e)
{
	struct ac_limit_events now = { 0, 0, 0 };
	char text[1024];

	(void)e;
	if (!read_text(cage, "memory.events", text, sizeof(text)))
		ac_limits_event(text, "oom_kill", &now.oom_kill);
	if (!read_text(cage, "pids.events", text, sizeof(text)))
		ac_limits_event(text, "max", &now.pids_max);
	if (!read_text(cage, "cpu.stat", text, sizeof(text)))
		ac_limits_event(text, "nr_throttled", &now.throttled);
	delta->oom_kill = now.oom_kill - last->oom_kill;
	delta->pids_max = now.pids_max - last->pids_max;
	delta->throttled = now.throttled - last->throttled;
	*last = now;
	return 0;
}

int ac_limits_join(int procs_fd, struct ac_child_fail *f)
{
	if (write(procs_fd, "0", 1) != 1)
		return ac_child_fail_set(f, "joining the cage's cgroup", errno);
	return 0;
}

void ac_limits_make_event(struct ac_event *ev, uint64_t cgid, uint32_t uid, const char *what,
		     unsigned long long count)
{
	struct timespec ts;

	memset(ev, 0, sizeof(*ev));
	clock_gettime(CLOCK_BOOTTIME, &ts);
	ev->ts_ns = (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
	ev->cgroup = cgid;
	ev->uid = uid;
	ev->op = AC_OP_LIMIT;
	ev->action = AC_DENIED;
	ev->flags = AC_EV_ARG;
	ev->arg = count > 0xffffffffULL ? 0xffffffffU : (uint32_t)count;
	ev->path_len = (uint32_t)strnlen(what, sizeof(ev->path) - 1);
	memcpy(ev->path, what, ev->path_len);
	ev->path[ev->path_len] = 0;
}
