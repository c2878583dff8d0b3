// SPDX-License-Identifier: GPL-2.0-only
/* Landlock audit records into events: the records are as Linux 6.18 wrote
 * them for a caged "cat /etc/hostname" refused by the cage's domain. */
#include <criterion/criterion.h>
#include <string.h>
#include "enforce/llaudit.h"

struct got {
	int n;
	struct ac_event ev;
	uint64_t rt;
};

static void on_ev(void *ctx, const struct ac_event *ev, uint64_t rt)
{
	struct got *g = ctx;

	g->n++;
	g->ev = *ev;
	g->rt = rt;
}

static void rec(struct ac_llaudit *a, int type, const char *s)
{
	ac_llaudit_record(a, type, s, strlen(s) + 1);   /* the kernel's NUL too */
}

#define ACCESS "audit(1765000000.123:77): domain=151c40e65 blockers=fs.read_file " \
	       "path=\"/etc/hostname\" dev=\"vda\" ino=733"
#define ALLOC  "audit(1765000000.123:77): domain=151c40e65 status=allocated " \
	       "mode=enforcing pid=4242 uid=0 exe=\"/work/build/agentcage\" comm=\"agentcage\""
#define SYSC   "audit(1765000000.123:77): arch=c000003e syscall=257 success=no exit=-13 " \
	       "a0=ffffff9c a1=7ffd a2=0 a3=0 items=1 ppid=4242 pid=28400 auid=4294967295 " \
	       "uid=65534 gid=65534 euid=65534 comm=\"cat\" exe=\"/usr/bin/cat\" key=(null)"

static void denial(struct ac_llaudit *a)
{
	rec(a, 1423, ACCESS);
	rec(a, 1424, ALLOC);
	rec(a, 1300, SYSC);
	rec(a, 1327, "audit(1765000000.123:77): proctitle=636174");
	rec(a, 1320, "audit(1765000000.123:77): ");
}

Test(llaudit, a_denial_of_the_cages_domain)
{
	struct got g = { 0 };
	struct ac_llaudit a;

	ac_llaudit_init(&a, on_ev, &g);
	ac_llaudit_creator(&a, 4242);
	denial(&a);
	cr_assert_eq(g.n, 1);
	cr_assert_eq(g.ev.op, AC_OP_OPEN_READ);
	cr_assert_str_eq(g.ev.path, "/etc/hostname");
	cr_assert_eq(g.ev.path_len, strlen("/etc/hostname"));
	cr_assert_eq(g.ev.pid, 28400);
	cr_assert_eq(g.ev.uid, 65534);
	cr_assert_str_eq(g.ev.comm, "cat");
	cr_assert_eq(g.ev.action, AC_DENIED);
	cr_assert(g.ev.flags & AC_EV_LANDLOCK);
	cr_assert_eq(g.rt, 1765000000123000000ull);
}

Test(llaudit, another_creators_domain_is_not_shown)
{
	struct got g = { 0 };
	struct ac_llaudit a;

	ac_llaudit_init(&a, on_ev, &g);
	ac_llaudit_creator(&a, 999);
	denial(&a);
	cr_assert_eq(g.n, 0);
	/* the same domain's later denials stay out too; ours comes through */
	ac_llaudit_creator(&a, 4242);
	rec(&a, 1424, "audit(1765000001.000:80): domain=2a status=allocated mode=enforcing "
		 "pid=4242 uid=0 exe=\"/x\" comm=\"x\"");
	rec(&a, 1423, "audit(1765000001.000:81): domain=151c40e65 blockers=fs.read_file "
		 "path=\"/etc/shadow\" dev=\"vda\" ino=1");
	rec(&a, 1320, "audit(1765000001.000:81): ");
	cr_assert_eq(g.n, 0);
	rec(&a, 1423, "audit(1765000001.000:82): domain=2a blockers=fs.make_reg,fs.write_file "
		 "path=\"/etc\" dev=\"vda\" ino=2");
	rec(&a, 1320, "audit(1765000001.000:82): ");
	cr_assert_eq(g.n, 1);
	cr_assert_eq(g.ev.op, AC_OP_CREATE);
	cr_assert_str_eq(g.ev.path, "/etc");
	cr_assert_eq(g.ev.pid, 0);   /* no SYSCALL record came */
}

Test(llaudit, hex_paths_and_a_new_serial_end_a_denial)
{
	struct got g = { 0 };
	struct ac_llaudit a;

	ac_llaudit_init(&a, on_ev, &g);
	ac_llaudit_creator(&a, 7);
	rec(&a, 1424, "audit(5.5:1): domain=a status=allocated mode=enforcing pid=7 uid=0 "
		 "exe=\"/x\" comm=\"x\"");
	/* "/tmp/a b" has a space: audit writes it in hex */
	rec(&a, 1423, "audit(5.5:2): domain=a blockers=fs.write_file path=2F746D702F612062 "
		 "dev=\"vda\" ino=3");
	cr_assert_eq(g.n, 0);
	rec(&a, 1423, "audit(5.5:3): domain=a blockers=fs.execute path=\"/bin/sh\"");
	cr_assert_eq(g.n, 1);
	cr_assert_eq(g.ev.op, AC_OP_OPEN_WRITE);
	cr_assert_str_eq(g.ev.path, "/tmp/a b");
	ac_llaudit_flush(&a);
	cr_assert_eq(g.n, 2);
	cr_assert_eq(g.ev.op, AC_OP_EXEC);
	cr_assert_eq(g.rt, 5005000000ull);
}

Test(llaudit, broken_records_make_no_event)
{
	static const char *bad[] = {
		"", "audit(", "audit(1.2:3)", "audit(1.2:3):", "audit(x.2:3): domain=a",
		"audit(1.2:3): domain", "audit(1.2:3): domain=\"b", "audit(1.2:3): =",
		"audit(1.2:3): domain=b blockers=fs.read_file path=\"/p\"",
		"audit(99999999999999999999999.2:3): domain=a blockers=fs.read_file path=\"/p\"",
	};
	struct got g = { 0 };
	struct ac_llaudit a;

	ac_llaudit_init(&a, on_ev, &g);
	ac_llaudit_creator(&a, 7);
	rec(&a, 1424, "audit(5.5:1): domain=a status=allocated mode=enforcing pid=7 uid=0");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rec(&a, 1423, bad[i]);
		rec(&a, 1300, bad[i]);
		rec(&a, 1424, bad[i]);
		ac_llaudit_record(&a, 1423, bad[i], strlen(bad[i]));   /* no NUL */
		ac_llaudit_flush(&a);
	}
	cr_assert_eq(g.n, 0);
	/* a quote that never ends takes the rest of the record */
	rec(&a, 1423, "audit(6.0:9): domain=a blockers=fs.nothing_known path=\"/q r");
	ac_llaudit_flush(&a);
	cr_assert_eq(g.n, 1);
	cr_assert_eq(g.ev.op, 0);
	cr_assert_str_eq(g.ev.path, "/q r");
}

Test(llaudit, the_kernels_count_shows_denials_without_a_record)
{
	struct got g = { 0 };
	struct ac_llaudit a;

	ac_llaudit_init(&a, on_ev, &g);
	ac_llaudit_creator(&a, 4242);
	denial(&a);
	cr_assert_eq(ac_llaudit_pending(&a), 1);
	/* a foreign domain's end changes nothing */
	rec(&a, 1424, "audit(1765000009.000:90): domain=99 status=deallocated denials=5");
	cr_assert_eq(ac_llaudit_pending(&a), 1);
	rec(&a, 1424, "audit(1765000009.000:91): domain=151c40e65 status=deallocated denials=3");
	cr_assert_eq(ac_llaudit_pending(&a), 0);
	cr_assert_eq(a.unreported, 2);   /* 3 counted, 1 shown */
	rec(&a, 1424, "audit(1765000009.000:92): domain=151c40e65 status=deallocated denials=3");
	cr_assert_eq(a.unreported, 2);
}
