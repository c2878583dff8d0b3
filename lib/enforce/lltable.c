// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "enforce/lltable.h"

static int row(struct ll_table *t, int level, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int row(struct ll_table *t, int level, const char *what, const char *fmt, ...)
{
	va_list ap;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 32;
		struct ll_row *r = realloc(t->rows, cap * sizeof(*r));

		if (!r)
			return -1;
		t->rows = r;
		t->cap = cap;
	}
	t->rows[t->n].level = level;
	snprintf(t->rows[t->n].what, sizeof(t->rows[t->n].what), "%s", what);
	va_start(ap, fmt);
	vsnprintf(t->rows[t->n].how, sizeof(t->rows[t->n].how), fmt, ap);
	va_end(ap);
	if (level > t->worst)
		t->worst = level;
	t->n++;
	return 0;
}

const char *ll_level_name(int level)
{
	static const char *const names[] = { "holds", "differs", "weaker", "cannot" };

	return level >= LL_HOLDS && level <= LL_CANNOT ? names[level] : "?";
}

static void rule_path(const struct rule *r, char *out, size_t outlen)
{
	size_t n = r->len > 1 ? r->len - 1 : 1;

	snprintf(out, outlen, "%.*s", (int)n, r->key);
}

static int rank(uint32_t cls)
{
	return cls == AC_WRITE ? 2 : cls == AC_READ ? 1 : 0;
}

/* a rule strictly beneath rules[i] that lets less through: see
 * lib/enforce/landlock.c, which grants what lies beside it instead */
static int narrower_beneath(const struct ruleset *rs, size_t i)
{
	const struct rule *p = &rs->files[i];

	for (size_t j = 0; j < rs->nfiles; j++) {
		const struct rule *r = &rs->files[j];

		if (r->len > p->len && !memcmp(r->key, p->key, p->len) &&
		    rank(r->cls & AC_CLASS_MASK) < rank(p->cls & AC_CLASS_MASK))
			return 1;
	}
	return 0;
}

static int under(const char *path, const char *top)
{
	size_t n = strlen(top);

	return !strcmp(path, "/") || (!strncmp(path, top, n) && (!path[n] || path[n] == '/'));
}

static int file_rows(const struct ruleset *rs, const struct ll_opts *o, struct ll_table *t)
{
	char path[AC_KEY_PATH + 2];
	struct stat st;
	int ret = 0;

	for (size_t i = 0; !ret && i < rs->nfiles; i++) {
		uint32_t cls = rs->files[i].cls & AC_CLASS_MASK;

		if (cls != AC_READ && cls != AC_WRITE)
			continue;
		rule_path(&rs->files[i], path, sizeof(path));
		if ((!o->fresh || strcmp(path, o->fresh)) && lstat(path, &st))
			ret = row(t, LL_DIFFERS, path, "does not exist now: Landlock grants only "
				  "what exists when the cage starts, so the agent can neither create "
				  "it nor use it if it appears later");
		else if (narrower_beneath(rs, i))
			ret = row(t, LL_DIFFERS, path, "has a narrower entry beneath it: granted "
				  "through what lies beside that entry at start, so no name can be "
				  "created, removed or renamed directly in %s or in the directories "
				  "on the way down, what the host adds there later is not granted, "
				  "and a file the host renames into the narrower entry's place keeps "
				  "the grant it had", path);
		if (!ret && cls == AC_WRITE && (under(path, "/proc") || under(path, "/sys")))
			ret = row(t, LL_WEAKER, path, "a write grant on a kernel filesystem: BPF LSM "
				  "refuses writes to procfs, sysfs, cgroupfs, securityfs and bpffs "
				  "whatever the policy; Landlock lets the grant through");
	}
	if (!ret && rank(rules_file_class(rs, "/proc/1/cmdline") & AC_CLASS_MASK))
		ret = row(t, LL_WEAKER, "/proc/PID of tasks outside the cage", "the policy reads "
			  "/proc: the files of other processes that need no ptrace access "
			  "(cmdline, stat, status) are readable; BPF LSM refuses them all");
	return ret;
}

static int unix_rows(const struct policy *p, const struct ll_opts *o, struct ll_table *t)
{
	char name[AC_KEY_PATH + 16];

	for (size_t i = 0; i < p->net_unix.n; i++) {
		if (p->net_unix.items[i][0] != '@')
			continue;   /* paths: the baseline's row */
		snprintf(name, sizeof(name), "network.unix %s", p->net_unix.items[i]);
		if (row(t, o->abi >= 6 ? LL_DIFFERS : LL_WEAKER, name, "%s", o->abi >= 6 ?
			"an abstract socket outside the cage stays unreachable, listed or not "
			"(Landlock's abstract-socket scope, ABI 6)" : "Landlock before ABI 6 cannot "
			"scope abstract sockets: every abstract name is reachable"))
			return -1;
	}
	return 0;
}

/* Landlock grants by inode, at start: it cannot match a name */
static int pattern_rows(const struct ruleset *rs, struct ll_table *t)
{
	size_t deny = 0;

	for (size_t i = 0; i < rs->fpat.n; i++)
		deny += rs->fpat.p[i].cls == AC_DENY;
	if (deny && row(t, LL_WEAKER, "files.deny patterns", "Landlock cannot match names: "
			"what a deny pattern covers stays as the entries around it grant it, "
			"files created later included; run where BPF LSM loads, or deny the paths"))
		return -1;
	if ((rs->fpat.n > deny || rs->xpat.n) &&
	    row(t, LL_DIFFERS, "read, write and exec patterns", "not granted: Landlock cannot "
		"match names; list the paths, or run where BPF LSM loads"))
		return -1;
	return 0;
}

static int policy_rows(const struct compiled_policy *cp, const struct ll_opts *o,
		       struct ll_table *t)
{
	if (pattern_rows(&cp->rs, t))
		return -1;
	if (cp->pol.mode == MODE_AUDIT &&
	    row(t, LL_CANNOT, "mode: audit", "Landlock only denies: it cannot let an access "
		"through and report it; run audit mode where BPF LSM loads"))
		return -1;
	if (o->privileged &&
	    row(t, LL_CANNOT, "user: root", "a root agent keeps every capability (modules, raw "
		"I/O, its own namespaces' mounts), which only BPF LSM's capability programs "
		"hold; name another user"))
		return -1;
	if (file_rows(&cp->rs, o, t) || unix_rows(&cp->pol, o, t))
		return -1;
	if (cp->ns.n && row(t, LL_DIFFERS, "network.allow, network.deny", "held by cgroup "
			    "BPF programs on the cage's cgroup: connect, bind and UDP sendmsg to a "
			    "peer the policy does not allow fail with EPERM (an event), and every "
			    "packet to or from one is dropped"))
		return -1;
	return 0;
}

static const struct {
	int level, level_old;   /* at ABI 6 and above; below */
	const char *what, *how, *how_old;
} baseline[] = {
	{ LL_HOLDS, LL_HOLDS, "files and exec", "Landlock rights on the policy's paths as they "
	  "are at start (read, write, truncate, create, remove, rename and link across "
	  "directories, execute); code is mapped only from exec.allow and exec.libraries, "
	  "every other mount of the cage's own mount namespace being noexec", NULL },
	{ LL_DIFFERS, LL_DIFFERS, "chmod, chown, xattr and time changes", "outside the write "
	  "grants refused by read-only mounts (EROFS, not EPERM; Landlock does not check "
	  "them); inside them allowed, as under BPF LSM", NULL },
	{ LL_HOLDS, LL_WEAKER, "signals to tasks outside the cage", "refused by Landlock's "
	  "signal scope, through a file's owner (F_SETOWN) too", "Landlock before ABI 6 has "
	  "no signal scope: the kernel's uid rules alone decide" },
	{ LL_WEAKER, LL_WEAKER, "unix path sockets", "Landlock does not check connect(): a "
	  "caged process may connect to any path socket its uid may write, whatever "
	  "network.unix lists", NULL },
	{ LL_WEAKER, LL_WEAKER, "abstract unix sockets bound in the cage", "processes outside "
	  "may connect to any abstract name the cage binds; BPF LSM allows that only for the "
	  "names network.unix lists", NULL },
	{ LL_WEAKER, LL_WEAKER, "IP sockets handed in from outside the cage", "the network "
	  "programs go by the socket's cgroup: a socket made outside the cage and passed in "
	  "over a unix socket reaches any peer; BPF LSM checks every connect, bind and "
	  "sendmsg of a caged task", NULL },
	{ LL_HOLDS, LL_HOLDS, "ptrace of tasks outside the cage", "Landlock allows ptrace "
	  "(and /proc/PID/environ, maps, mem, fd, process_vm_readv) only within the cage's "
	  "domain", NULL },
	{ LL_HOLDS, LL_HOLDS, "mount, umount, pivot_root, the new mount API", "refused by "
	  "Landlock, by the missing CAP_SYS_ADMIN and by the seccomp filter", NULL },
	{ LL_HOLDS, LL_HOLDS, "bpf, perf_event_open, modules, kexec, keys, userfaultfd",
	  "refused by the seccomp filter, as under both enforcers, and no capability", NULL },
	{ LL_HOLDS, LL_HOLDS, "capabilities", "every one dropped before exec; a policy naming "
	  "root is refused", NULL },
	{ LL_HOLDS, LL_HOLDS, "devices", "only the device paths the file rules grant can be "
	  "opened; no device node can be made", NULL },
	{ LL_HOLDS, LL_HOLDS, "socket families", "the seccomp filter allows unix, inet, inet6 "
	  "and routing netlink sockets only, and refuses MPTCP", NULL },
	{ LL_DIFFERS, LL_DIFFERS, "io_uring", "refused altogether (io_uring_setup: EPERM): its "
	  "requests would pass the seccomp filter by", NULL },
	{ LL_HOLDS, LL_HOLDS, "TIOCSTI, TIOCLINUX", "refused by the seccomp filter", NULL },
	{ LL_HOLDS, LL_HOLDS, "SysV IPC and POSIX message queues of the host", "out of reach "
	  "in the cage's own IPC namespace", NULL },
	{ LL_WEAKER, LL_WEAKER, "priority, affinity and limits of tasks outside the cage",
	  "setpriority, sched_setaffinity and prlimit follow the kernel's uid rules alone (a "
	  "task of the agent's uid outside the cage can be reniced); BPF LSM refuses every "
	  "task outside the cage", NULL },
	{ LL_WEAKER, LL_WEAKER, "exclusive locks and leases on read-only files", "flock(LOCK_EX) "
	  "and F_SETLEASE work on any file the agent may read, so processes outside can be "
	  "made to wait", NULL },
	{ LL_DIFFERS, LL_DIFFERS, "reload (SIGHUP)", "network rules change at once; a Landlock "
	  "domain cannot change, so changed file or exec rules wait for a restart of the run "
	  "(a warning, and \"needs_restart\":true in the reload record of the events); a "
	  "change of mode is refused and the old policy kept", NULL },
};

int ll_table_build(const struct compiled_policy *cp, const struct ll_opts *o,
		   struct ll_table *t)
{
	memset(t, 0, sizeof(*t));
	if (policy_rows(cp, o, t))
		goto fail;
	if (row(t, o->no_pty ? LL_WEAKER : LL_HOLDS, "terminal signals (TIOCSWINSZ, TIOCSIG)",
		"%s", o->no_pty ? "with --no-pty the agent holds the caller's terminal and can "
		"signal its foreground group through it" : "the agent has a pty of its own"))
		goto fail;
	if (o->events ? row(t, LL_DIFFERS, "file and exec events", "Landlock's refusals come "
			    "from the kernel's audit records (\"enforcer\":\"landlock\"); what the "
			    "cage's mounts refuse first has none: writes outside the write grants "
			    "(EROFS), programs outside exec.allow and code mapped from elsewhere "
			    "(noexec); nor have refusals by a Landlock domain another caged process "
			    "makes for itself") :
	    row(t, LL_WEAKER, "file and exec events", "refusals of files and exec are not "
		"reported (%s); dropped packets are", o->no_events ? o->no_events :
		"no Landlock audit records"))
		goto fail;
	for (size_t i = 0; i < sizeof(baseline) / sizeof(baseline[0]); i++) {
		int old = o->abi < 6;

		if (row(t, old ? baseline[i].level_old : baseline[i].level, baseline[i].what, "%s",
			old && baseline[i].how_old ? baseline[i].how_old : baseline[i].how))
			goto fail;
	}
	return 0;
fail:
	ll_table_free(t);
	return -1;
}

void ll_table_print(FILE *f, const struct ll_table *t, int min_level)
{
	for (int level = LL_CANNOT; level >= min_level; level--)
		for (size_t i = 0; i < t->n; i++)
			if (t->rows[i].level == level)
				fprintf(f, "  %-8s %s: %s\n", ll_level_name(level), t->rows[i].what,
					t->rows[i].how);
}

void ll_table_free(struct ll_table *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}
