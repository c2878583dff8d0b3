// SPDX-License-Identifier: GPL-2.0-only
/* harden/limits: cpu.max formatting, the events parser, and on this host
 * (controllers on cgroup v1) the clear refusal. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "agentcage/cage.h"
#include "harden/limits.h"

Test(limits, cpu_max)
{
	char buf[64];

	cr_assert_eq(ac_limits_cpu_max(500, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "50000 100000");
	ac_limits_cpu_max(10, buf, sizeof(buf));
	cr_assert_str_eq(buf, "1000 100000");
	ac_limits_cpu_max(2000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "200000 100000");
	ac_limits_cpu_max(1024000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "102400000 100000");
	cr_assert_eq(ac_limits_cpu_max(500, buf, 5), -1);
}

Test(limits, events_parser)
{
	const char *mem = "low 0\nhigh 0\nmax 17\noom 3\noom_kill 2\noom_group_kill 0\n";
	unsigned long long v = 99;

	cr_assert_eq(ac_limits_event(mem, "oom_kill", &v), 0);
	cr_assert_eq(v, 2);
	cr_assert_eq(ac_limits_event(mem, "max", &v), 0);
	cr_assert_eq(v, 17);
	cr_assert_eq(ac_limits_event(mem, "oom", &v), 0);
	cr_assert_eq(v, 3, "oom, not oom_kill or oom_group_kill");
	cr_assert_eq(ac_limits_event(mem, "kill", &v), -1);
	cr_assert_eq(ac_limits_event("", "max", &v), -1);
}

static void put(const char *dir, const char *file, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	cr_assert(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

Test(limits, events_since_last_read)
{
	char dir[] = "/tmp/ac-events-XXXXXX";
	struct ac_limit_events last = { 0, 0, 0 }, d;

	cr_assert(mkdtemp(dir));
	put(dir, "memory.events", "oom 1\noom_kill 1\n");
	put(dir, "pids.events", "max 4\n");
	put(dir, "cpu.stat", "usage_usec 900\nnr_periods 40\nnr_throttled 7\nthrottled_usec 5\n");
	ac_limits_read_events(dir, &last, &d, NULL);
	cr_assert_eq(d.oom_kill, 1);
	cr_assert_eq(d.pids_max, 4);
	cr_assert_eq(d.throttled, 7, "nr_throttled, not throttled_usec");
	put(dir, "pids.events", "max 6\n");
	ac_limits_read_events(dir, &last, &d, NULL);
	cr_assert_eq(d.oom_kill, 0);
	cr_assert_eq(d.pids_max, 2);
	cr_assert_eq(d.throttled, 0);
	cr_assert_eq(last.pids_max, 6);
	unlink(strcat(strcpy((char[64]){ 0 }, dir), "/memory.events"));
	unlink(strcat(strcpy((char[64]){ 0 }, dir), "/pids.events"));
	unlink(strcat(strcpy((char[64]){ 0 }, dir), "/cpu.stat"));
	rmdir(dir);
}

/* this host: a hybrid hierarchy, memory/cpu/pids live on cgroup v1 */
Test(limits, refused_where_the_controller_is_missing)
{
	const char *parent = "/sys/fs/cgroup/unified/agentcage";
	char cage[256], avail[512] = "";
	struct policy_limits l = { .memory = 100 << 20 };
	struct ac_error e = { 0 };
	FILE *f;

	snprintf(cage, sizeof(cage), "%s/ac-unit-%d", parent, getpid());
	/* agentcage's own parent, as a run makes it: a fresh machine has none yet */
	if (mkdir(parent, 0755) && errno != EEXIST)
		cr_skip_test("cannot make %s: %s", parent, strerror(errno));
	if (access(parent, W_OK) || mkdir(cage, 0755))
		cr_skip_test("no %s to create a cgroup in", parent);
	f = fopen("/sys/fs/cgroup/unified/agentcage/cgroup.controllers", "r");
	if (f) {
		fgets(avail, sizeof(avail), f);
		fclose(f);
	}
	int ret = ac_limits_apply(parent, cage, &l, &e);
	rmdir(cage);
	if (strstr(avail, "memory"))
		cr_skip_test("this host has the v2 memory controller");
	cr_assert_eq(ret, -1);
	cr_assert_str_eq(e.code, AC_E_LIMITS_UNAVAILABLE);
	cr_assert(strstr(e.msg, "limits.memory needs the cgroup v2 'memory' controller") &&
		  strstr(e.msg, "--no-limits"), "%s", e.msg);
}

Test(limits, made_event)
{
	struct ac_event ev;
	char long_what[AC_PATH_MAX + 10];

	memset(&ev, 0xaa, sizeof(ev));
	ac_limits_make_event(&ev, 4242, 65534, "memory", 3);
	cr_assert_eq(ev.op, AC_OP_LIMIT);
	cr_assert_eq(ev.action, AC_DENIED);
	cr_assert_eq(ev.cgroup, 4242);
	cr_assert_eq(ev.uid, 65534);
	cr_assert_eq(ev.pid, 0, "no task made it");
	cr_assert_eq(ev.flags, AC_EV_ARG);
	cr_assert_eq(ev.arg, 3);
	cr_assert_eq(ev.path_len, 6);
	cr_assert_str_eq(ev.path, "memory");
	cr_assert_neq(ev.ts_ns, 0);
	/* a count past 32 bits is capped, not wrapped */
	ac_limits_make_event(&ev, 1, 0, "cpu", 0x100000005ULL);
	cr_assert_eq(ev.arg, 0xffffffffU);
	/* a name longer than the path field is cut, NUL-terminated */
	memset(long_what, 'x', sizeof(long_what) - 1);
	long_what[sizeof(long_what) - 1] = 0;
	ac_limits_make_event(&ev, 1, 0, long_what, 1);
	cr_assert_eq(ev.path_len, AC_PATH_MAX - 1);
	cr_assert_eq(ev.path[AC_PATH_MAX - 1], 0);
}
