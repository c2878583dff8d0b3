// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cage/cage.h"
#include "policy/dnsrefresh.h"
#include "diag.h"
#include "event/event.h"
#include "util/fsutil.h"
#include "kernel/loader.h"
#include "kernel/lsm.h"
#include "kernel/pin.h"
#include "harden/limits.h"
#include "launch.h"
#include "pty.h"
#include "policy/compile.h"
#include "policy/explain.h"
#include "proto/proto.h"
#include "enforce/landlock.h"
#include "enforce/llaudit.h"
#include "enforcer.h"
#include "runcage.h"
#include "verbs.h"

#define LOST_CHECK_MS 5000
#define EXIT_TIMEOUT 124   /* the time limit ran out, as timeout(1) */
#define RUN_STANDALONE -1  /* via_daemon: no daemon takes this run */

/* what the command line asks for */
struct run_opts {
	const char *policy_file;   /* NULL: the embedded default */
	int mode_override;
	int json;
	FILE *events;              /* --events FILE */
	unsigned dns_max;          /* --dns-refresh */
	int no_limits;             /* --no-limits */
	const char *user;          /* --user: instead of the policy's */
	unsigned timeout;          /* --timeout, seconds; 0: none */
	int no_pty;                /* --no-pty */
	const char *cage;          /* --cage NAME: the daemon's cage */
	const char *socket;        /* --socket PATH: the daemon's */
	int standalone_only;       /* an option --cage cannot take was given */
	int standalone;            /* --standalone, --dns-refresh or --no-limits: never
	                            * through a daemon */
	int enforcer;              /* --enforcer: enum enforcer */
	int accept_weaker;         /* --accept-weaker */
};

struct run {
	struct run_opts opt;
	struct rule_vars vars;
	char cwd[PATH_MAX], tmpdir[PATH_MAX];
	char pins[PATH_MAX];       /* <bpffs>/agentcage/run-PID: this run's pins */
	struct loader ld;
	struct cage cage;          /* with its compiled policy, cage.policy */
	struct dns_refresh dns;    /* re-resolves cage.policy.hosts */
	struct launch launch;      /* the agent's identity, environment, filter */
	int enforcer;              /* the one in force: ENF_BPF_LSM or ENF_LANDLOCK */
	struct ac_landlock ll;     /* ENF_LANDLOCK: the agent's domain and mounts */
	struct ac_llaudit lla;     /* ENF_LANDLOCK: its denials, from kernel audit */
	struct ruleset ll_rs;      /* ENF_LANDLOCK: the file and exec rules of the domain */
	int ll_abi;                /* ENF_LANDLOCK: the kernel's Landlock ABI */
	int needs_restart;         /* ENF_LANDLOCK: the file and exec rules in force are
	                            * not the policy's (changed by a reload) */
	uint64_t overruns_reported, ll_second, ll_count, ll_over, ll_over_reported;
	struct pty pty;            /* the agent's own terminal, when stdin is one */
	int limits;                /* the cgroup limits were applied */
	struct ac_limit_events lev;/* the cage's limit counters last seen */
	unsigned time_limit;       /* seconds (limits.time or --timeout); 0: none */
	int64_t clock_off;         /* realtime - boottime, ns */
	uint64_t lost_reported, suppressed_reported, full_reported, over_reported;
};

static void run_usage(FILE *f)
{
	fputs("usage: agentcage run [--policy FILE] [--mode enforce|audit] [--json] [--events FILE]\n"
	      "                     [--dns-refresh SECONDS] [--timeout DURATION] [--no-limits]\n"
	      "                     [--user USER] [--no-pty] [-v]\n"
	      "                     [--enforcer auto|bpf-lsm|landlock] [--accept-weaker]\n"
	      "                     [--standalone | --socket PATH] -- CMD [ARG...]\n"
	      "       agentcage run --cage NAME [--socket PATH] [--timeout DURATION] [--no-pty]\n"
	      "                     [--json] [-v] -- CMD [ARG...]\n"
	      "Run CMD in its own cgroup; the kernel denies every file, exec and network\n"
	      "access the policy does not grant and each violation is printed as it happens.\n"
	      "  --policy FILE   YAML policy (default: the embedded policies/default.yaml)\n"
	      "  --mode MODE     enforce (deny) or audit (report only); overrides the file\n"
	      "  --json          events and errors as JSON lines on stderr\n"
	      "  --events FILE   also append events as JSON lines to FILE\n"
	      "  --dns-refresh S re-resolve policy hostnames at least every S seconds\n"
	      "                  (default 300; sooner when their DNS TTL runs out)\n"
	      "  --timeout D     kill everything in the cage after D (90, 10s, 5m, 1h) and\n"
	      "                  exit 124; with limits.time the shorter one applies\n"
	      "  --no-limits     run even where the policy's memory, cpu and pids limits\n"
	      "                  cannot be applied (they are not, then)\n"
	      "  --user USER     run CMD as USER (name or UID[:GID]) instead of the policy's\n"
	      "                  user; naming root keeps root's capabilities\n"
	      "  --no-pty        give CMD the caller's terminal as it is, instead of a\n"
	      "                  pseudo-terminal of its own relayed by agentcage\n"
	      "  --cage NAME     run CMD in the daemon's cage NAME (its policy, its limits);\n"
	      "                  needs no root, only the daemon's socket\n"
	      "  --socket PATH   the daemon's socket (default $AGENTCAGE_SOCKET, else\n"
	      "                  " PROTO_DEFAULT_SOCKET "); without --cage, a daemon\n"
	      "                  that answers there runs the policy in a cage of its own\n"
	      "                  for this run (else the run is standalone)\n"
	      "  --standalone    load the programs for this run alone, even where a daemon\n"
	      "                  answers (so do --dns-refresh and --no-limits)\n"
	      "  --enforcer E    auto (default: BPF LSM where the kernel loads it, else\n"
	      "                  Landlock, said on stderr), bpf-lsm or landlock\n"
	      "  --accept-weaker under Landlock, run a policy even where it holds weaker\n"
	      "                  than under BPF LSM (agentcage check --enforcer landlock\n"
	      "                  FILE lists how); without it such a run exits 125\n"
	      "  -v              show libbpf's log lines (-vv: debug)\n"
	      "SIGHUP re-reads the policy file (with --cage: forwarded); SIGINT, SIGTERM and\n"
	      "SIGQUIT are forwarded to CMD.\n"
	      "Exit status: CMD's own, 128+N if killed by signal N, 124 if the time limit ran\n"
	      "out, 125 if agentcage failed, 126 if CMD could not be executed, 127 if it was\n"
	      "not found.\n", f);
}

static int64_t ns_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void write_event(struct run *r, const struct ac_event *e, uint64_t t)
{
	static struct explain_memo memo;
	const char *rp = NULL, *name = r->cage.policy.pol.name;

	/* the deciding entry, by the twin of the policy in force (BPF LSM's:
	 * Landlock decides some rows otherwise, lltable.c) */
	if (r->enforcer != ENF_LANDLOCK)
		rp = explain_event_rule_memo(&memo, e, r->cage.gen, &r->cage.policy, &r->vars);
	if (r->opt.json)
		event_write_json(stderr, e, name, t, rp);
	else
		event_write_plain(stderr, e, name, t, rp);
	if (r->opt.events)
		event_write_json(r->opt.events, e, name, t, rp);
}

/* The run's start or reload record, in the JSON sinks only (the plain
 * stderr says it in words). */
static void write_record(struct run *r, const char *what, pid_t pid)
{
	struct event_record rec = {
		.record = what, .cage = r->cage.policy.pol.name, .pid = pid,
		.enforcer = enforcer_name(r->enforcer), .policy = r->opt.policy_file,
		.mode = r->cage.policy.pol.mode == MODE_AUDIT ? "audit" : "enforce",
		.landlock_abi = r->enforcer == ENF_LANDLOCK ? r->ll_abi : 0,
		.file_events = r->enforcer != ENF_LANDLOCK || r->lla.fd >= 0,
		.needs_restart = r->needs_restart,
	};
	uint64_t t = (uint64_t)ns_of(CLOCK_REALTIME);

	if (r->opt.json)
		event_write_record(stderr, &rec, t);
	if (r->opt.events)
		event_write_record(r->opt.events, &rec, t);
}

static int on_event(void *ctx, void *data, size_t len)
{
	struct run *r = ctx;
	const struct ac_event *e = data;

	if (len < sizeof(*e) - sizeof(e->path))
		return 0;
	write_event(r, e, e->ts_ns + r->clock_off);
	return 0;
}

/* a denial from the kernel's Landlock audit records, within the cage's
 * budget of events a second as the ring buffer's are */
static void on_ll_event(void *ctx, const struct ac_event *e, uint64_t realtime_ns)
{
	struct run *r = ctx;
	uint64_t second = realtime_ns / 1000000000;

	if (second != r->ll_second) {
		r->ll_second = second;
		r->ll_count = 0;
	}
	if (++r->ll_count > loader_budget()) {
		r->ll_over++;
		return;
	}
	write_event(r, e, realtime_ns);
}

static void report_overruns(struct run *r)
{
	if (r->lla.overruns > r->overruns_reported) {
		diag_warn("kernel audit records came faster than agentcage read them %llu times: "
			  "Landlock denials may be missing from the events (decisions were not "
			  "affected)", (unsigned long long)(r->lla.overruns - r->overruns_reported));
		r->overruns_reported = r->lla.overruns;
	}
	if (r->ll_over > r->ll_over_reported) {
		diag_warn("%llu Landlock denials of this cage not shown: over its budget of %u "
			  "events a second (decisions were not affected)",
			  (unsigned long long)(r->ll_over - r->ll_over_reported), loader_budget());
		r->ll_over_reported = r->ll_over;
	}
}

static void report_lost(struct run *r, int final)
{
	uint64_t lost = loader_stat(&r->ld, AC_STAT_LOST);
	uint64_t supp = loader_stat(&r->ld, AC_STAT_SUPPRESSED);
	uint64_t full = loader_stat(&r->ld, AC_STAT_MAP_FULL);
	uint64_t over = loader_over_budget(&r->ld, r->cage.cg.id);

	if (lost > r->lost_reported) {
		diag_warn("%llu events lost because the ring buffer was full (decisions were "
			  "not affected)", (unsigned long long)(lost - r->lost_reported));
		r->lost_reported = lost;
	}
	if (supp > r->suppressed_reported) {
		diag_warn("%llu dropped-packet events not shown (over the limit of %d a second; "
			  "the packets were dropped all the same)",
			  (unsigned long long)(supp - r->suppressed_reported), AC_PKT_EVENTS_PER_SEC);
		r->suppressed_reported = supp;
	}
	if (over > r->over_reported) {
		diag_warn("%llu events of this cage not sent: over its budget of %u a second "
			  "(decisions were not affected)", (unsigned long long)(over - r->over_reported),
			  loader_budget());
		r->over_reported = over;
	}
	if (final && over)
		diag_warn("%llu events over the cage's budget in total", (unsigned long long)over);
	if (final && lost)
		diag_warn("%llu events lost in total", (unsigned long long)lost);
	if (final && supp)
		diag_warn("%llu dropped-packet events not shown in total", (unsigned long long)supp);
	if (full > r->full_reported) {
		diag_warn("%llu file owners, IPC objects or keys refused in the cage: the map that "
			  "records them was full",
			  (unsigned long long)(full - r->full_reported));
		r->full_reported = full;
	}
	report_overruns(r);
	if (final && diag_verbose)
		diag_info("%llu file decisions taken from the directory cache",
			  (unsigned long long)loader_stat(&r->ld, AC_STAT_DIR_HIT));
}

/* Compile the policy named by r's options (file or embedded); a hostname
 * that does not resolve is reported, not fatal. */
static int compile_policy(struct run *r, struct compiled_policy *cp, struct ac_error *e)
{
	struct policy_source src = { .path = r->opt.policy_file, .mode = r->opt.mode_override,
				     .vars = &r->vars, .resolve_links = 1 };
	struct net_hosts *hs = &cp->hosts;

	if (policy_compile(&src, cp, e))
		return -1;
	for (size_t i = 0; i < hs->n; i++)
		if (hs->h[i].error[0])
			diag_warn("cannot resolve %s: %s; its network rules allow nothing until it "
				  "resolves (retried in the background)", hs->h[i].name, hs->h[i].error);
	return 0;
}

/* Answers from the background resolver: a new address means new network
 * rules, switched to in one transaction. */
static void refresh_hosts(struct run *r)
{
	struct ac_error e;

	if (!dns_refresh_take(&r->dns, &r->cage.policy.hosts))
		return;
	if (cage_swap_net(&r->cage, &e)) {
		diag_error("hostname refresh: keeping the old network rules: %s", e.msg);
		return;
	}
	diag_info("hostnames re-resolved: %zu network trie entries", r->cage.policy.ns.n);
}

/* Are two rule arrays the same rules? */
static int same_rules(const struct rule *a, size_t na, const struct rule *b, size_t nb)
{
	struct rule_delta d;
	int same;

	if (rules_delta(a, na, b, nb, &d))
		return 0;
	same = !d.nput && !d.ndel;
	rules_delta_free(&d);
	return same;
}

/* Under Landlock the agent's domain cannot change from outside it: a
 * reload changes the network part, and *restart says whether the file and
 * exec rules of cp differ from the domain's (they wait for a restart). A
 * mode change is refused: 0, or -1 with e. The weaker rows need no second
 * look: every Landlock run accepted them at start, and the one row of the
 * policy that cannot hold (audit mode) is this refusal. */
static int landlock_reload(struct run *r, const struct compiled_policy *cp, int *restart,
			   struct ac_error *e)
{
	const struct ruleset *d = &r->ll_rs;

	*restart = 0;
	if (r->enforcer != ENF_LANDLOCK)
		return 0;
	if (cp->pol.mode != r->cage.policy.pol.mode)
		return ac_error_set(e, AC_E_ENFORCER_WEAKER, "the mode changed, and a running "
				    "agent's Landlock domain cannot change: restart the run for it");
	*restart = !same_rules(d->files, d->nfiles, cp->rs.files, cp->rs.nfiles) ||
		   !same_rules(d->exec, d->nexec, cp->rs.exec, cp->rs.nexec);
	return 0;
}

/* SIGHUP: switch the cage to the re-read policy in one transaction. */
static void reload(struct run *r)
{
	const struct compiled_policy *p = &r->cage.policy;
	struct compiled_policy cp;
	struct ac_error e;
	int restart;

	if (!r->opt.policy_file) {
		diag_warn("SIGHUP: the embedded default policy has no file to re-read; keeping it");
		return;
	}
	if (compile_policy(r, &cp, &e) || landlock_reload(r, &cp, &restart, &e) ||
	    cage_swap(&r->cage, &cp, &e)) {
		diag_error("reload failed, keeping the old policy: %s", e.msg);
		compiled_policy_free(&cp);
		return;
	}
	dns_refresh_stop(&r->dns);
	if (dns_refresh_start(&r->dns, &r->cage.policy.hosts, r->opt.dns_max))
		diag_warn("cannot start the hostname refresh thread: %s", strerror(errno));
	diag_info("policy reloaded from %s (%s, %zu file rules, %zu exec rules, %zu network "
		  "entries, %zu unix peers)", r->opt.policy_file,
		  p->pol.mode == MODE_AUDIT ? "audit" : "enforce", p->rs.nfiles, p->rs.nexec,
		  p->ns.n, p->rs.nunix);
	if (restart)
		diag_warn("the file and exec rules changed, and a running agent's Landlock domain "
			  "cannot change: the agent keeps the ones it started with until the run "
			  "is restarted (the network rules are in force)");
	else if (r->needs_restart)
		diag_info("the file and exec rules are the agent's own again: no restart needed");
	r->needs_restart = restart;
	write_record(r, "reload", 0);
}

/* --timeout: seconds, or a number with s, m or h, above 0 (limits.time's form) */
static int parse_duration(const char *s, unsigned *out)
{
	unsigned long long n = 0, mult = 1;
	const char *p = s;

	for (; *p >= '0' && *p <= '9' && n <= 0xffffffffULL; p++)
		n = n * 10 + (unsigned)(*p - '0');
	if (p == s)
		return -1;
	if (*p && !p[1])
		mult = *p == 's' ? 1 : *p == 'm' ? 60 : *p == 'h' ? 3600 : 0;
	else if (*p)
		mult = 0;
	n *= mult;
	if (!n || n > 0xffffffffULL)
		return -1;
	*out = (unsigned)n;
	return 0;
}

static int parse_args(struct run *r, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' }, { "mode", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' }, { "events", required_argument, NULL, 'e' },
		{ "verbose", no_argument, NULL, 'v' }, { "help", no_argument, NULL, 'h' },
		{ "dns-refresh", required_argument, NULL, 'D' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "no-limits", no_argument, NULL, 'L' },
		{ "no-pty", no_argument, NULL, 'P' },
		{ "user", required_argument, NULL, 'u' }, { "cage", required_argument, NULL, 'C' },
		{ "socket", required_argument, NULL, 'S' },
		{ "standalone", no_argument, NULL, 'A' },
		{ "enforcer", required_argument, NULL, 'E' },
		{ "accept-weaker", no_argument, NULL, 'W' }, { 0 } };
	char *end;
	long v;
	int c;

	while ((c = getopt_long(argc, argv, "+p:m:je:vh", opts, NULL)) != -1) {
		r->opt.standalone_only |= strchr("pmeDLuEW", c) != NULL;
		switch (c) {
		case 'E':
			if (enforcer_parse(optarg, &r->opt.enforcer))
				return -1;
			/* a daemon's cages are BPF LSM's */
			r->opt.standalone |= r->opt.enforcer == ENF_LANDLOCK;
			break;
		case 'W': r->opt.accept_weaker = 1; break;
		case 'C': r->opt.cage = optarg; break;
		case 'S': r->opt.socket = optarg; break;
		case 'A': r->opt.standalone = 1; break;
		case 'p': r->opt.policy_file = optarg; break;
		case 'm':
			if (!strcmp(optarg, "enforce"))
				r->opt.mode_override = MODE_ENFORCE;
			else if (!strcmp(optarg, "audit"))
				r->opt.mode_override = MODE_AUDIT;
			else {
				diag_error("--mode takes 'enforce' or 'audit', not '%s'", optarg);
				return -1;
			}
			break;
		case 'j': r->opt.json = diag_json = 1; break;
		case 'e':
			if (!(r->opt.events = fopen(optarg, "ae"))) {
				diag_error("cannot open events file %s: %s", optarg, strerror(errno));
				return -1;
			}
			setvbuf(r->opt.events, NULL, _IOLBF, 0);
			break;
		case 'v': diag_verbose++; break;
		case 'D':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || v < 2 || v > 86400) {
				diag_error("--dns-refresh takes seconds from 2 to 86400, not '%s'", optarg);
				return -1;
			}
			r->opt.dns_max = (unsigned)v;
			r->opt.standalone = 1;   /* a daemon's cages have no refresh of their own */
			break;
		case 'T':
			if (parse_duration(optarg, &r->opt.timeout)) {
				diag_error("--timeout takes a duration such as 90 (seconds), 10s, 5m "
					   "or 1h, above 0, not '%s'", optarg);
				return -1;
			}
			break;
		case 'L': r->opt.no_limits = r->opt.standalone = 1; break;
		case 'P': r->opt.no_pty = 1; break;
		case 'u':
			if (!*optarg || strlen(optarg) >= POLICY_USER_MAX) {
				diag_error("--user takes a user name or UID[:GID], not '%s'", optarg);
				return -1;
			}
			r->opt.user = optarg;
			break;
		case 'h': run_usage(stdout); exit(0);
		default:
			diag_error("bad option; see 'agentcage run --help'");
			return -1;
		}
	}
	if (optind >= argc) {
		diag_error("no command given: agentcage run [OPTIONS] -- CMD [ARG...]");
		return -1;
	}
	if (r->opt.cage && r->opt.standalone_only) {
		diag_error_code(AC_E_USAGE, "--cage takes the policy, mode, user, limits and event "
				"sinks of the daemon's cage; drop --policy, --mode, --events, "
				"--dns-refresh, --no-limits and --user, or drop --cage");
		return -1;
	}
	if (r->opt.standalone && (r->opt.cage || r->opt.socket)) {
		diag_error_code(AC_E_USAGE, "--standalone, --dns-refresh and --no-limits make the run "
				"load its own programs; drop them, or drop --cage and --socket");
		return -1;
	}
	return optind;
}

/* The guard holds the programs last: its exit detaches them, one RCU
 * tasks grace period per hook (47 of them, about 9 s in the VM). It
 * writes nothing, so it lets go of the caller's standard streams: a pipe
 * or a $(...) reading agentcage's output ends when agentcage does, not
 * when the programs are gone. */
static void release_stdio(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	for (int i = 0; i < 3; i++)
		if (fd < 0 || dup2(fd, i) < 0)
			close(i);
	if (fd > 2)
		close(fd);
}

/* The guard: a process outside the cage, in a session of its own, that
 * cleans up when agentcage dies, even by SIGKILL: it kills whatever is left
 * in the cage, removes its cgroup and tmp dir, and only then the pins that
 * keep the programs attached. Enforcement does not depend on it: with both
 * gone, the pins hold the programs until a later run sweeps the cage.
 * Returns the write end of the pipe whose end-of-file wakes the guard, or -1. */
static int start_guard(struct run *r)
{
	static char cg[sizeof(r->cage.cg.path)];
	int p[2];
	pid_t g;
	char c;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	g = fork();
	if (g < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (g == 0) {
		close(p[1]);
		pty_forget(&r->pty);   /* the agent's terminal hangs up when it is done */
		setsid();
		release_stdio();
		if (r->opt.events)   /* a FIFO's reader too; never flushed here */
			close(fileno(r->opt.events));
		/* the terminal's signals are for agentcage and the command */
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		/* agentcage is gone: after a normal exit the cage already is too */
		snprintf(cg, sizeof(cg), "%s", r->cage.cg.path);
		cgroup_destroy(&r->cage.cg);
		rm_tree(r->tmpdir);
		/* a cage that could not be emptied stays enforced by its pins
		 * (until a later run sweeps it) */
		if (!cg[0] || access(cg, F_OK))
			pin_remove(r->pins);
		_exit(0);   /* now the programs go */
	}
	close(p[0]);
	return p[1];
}

/* A limit was hit: an event like the kernel's, made here (no task: pid null). */
static void limit_event(struct run *r, const char *what, unsigned long long count)
{
	struct ac_event ev;

	ac_limits_make_event(&ev, r->cage.cg.id, r->launch.id.uid, what, count);
	on_event(r, &ev, sizeof(ev));
}

/* memory.events oom_kill, pids.events max (on their notification) and
 * cpu.stat nr_throttled (polled): an event for each change */
static void check_limits(struct run *r)
{
	struct ac_limit_events d;

	if (!r->limits)
		return;
	ac_limits_read_events(r->cage.cg.path, &r->lev, &d, NULL);
	if (d.oom_kill)
		limit_event(r, "memory", d.oom_kill);
	if (d.pids_max)
		limit_event(r, "pids", d.pids_max);
	if (d.throttled)   /* polled (cpu.stat has no notification): at most one per 5 s */
		limit_event(r, "cpu", d.throttled);
}

/* the counters' files signal a change as an inotify IN_MODIFY */
static int watch_limits(struct run *r, int ep)
{
	static const char *const files[] = { "memory.events", "pids.events" };
	struct epoll_event ev = { .events = EPOLLIN };
	char path[PATH_MAX + 32];
	int fd;

	if (!r->limits || (fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0)
		return -1;
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", r->cage.cg.path, files[i]);
		inotify_add_watch(fd, path, IN_MODIFY);
	}
	ev.data.fd = fd;
	epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	return fd;
}

/* the time limit ran out: everything in the cage goes */
static void time_out(struct run *r, pid_t pid)
{
	diag_warn("the time limit of %u s ran out; killing everything in the cage", r->time_limit);
	limit_event(r, "time", r->time_limit);
	cgroup_kill_all(&r->cage.cg);
	kill(pid, SIGKILL);   /* with isolate: [pid], the reaper outside the cage */
}

static int wait_loop(struct run *r, pid_t pid, int sfd)
{
	int ep = epoll_create1(EPOLL_CLOEXEC), status = 0, ifd, timed_out = 0;
	struct epoll_event ev = { .events = EPOLLIN }, out[4];
	int64_t now = ns_of(CLOCK_MONOTONIC);
	int64_t next_lost = now + (int64_t)LOST_CHECK_MS * 1000000;
	int64_t deadline = r->time_limit ? now + (int64_t)r->time_limit * 1000000000 : INT64_MAX;

	ev.data.fd = sfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);
	ev.data.fd = loader_epoll_fd(&r->ld);
	epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	if (r->lla.fd >= 0) {
		ev.data.fd = r->lla.fd;
		epoll_ctl(ep, EPOLL_CTL_ADD, r->lla.fd, &ev);
	}
	ifd = watch_limits(r, ep);
	for (;;) {
		int dfd = dns_refresh_fd(&r->dns), n, wait_ms = LOST_CHECK_MS;

		if (dfd >= 0) {    /* re-added: a reload replaces the resolver */
			ev.data.fd = dfd;
			epoll_ctl(ep, EPOLL_CTL_ADD, dfd, &ev);
		}
		now = ns_of(CLOCK_MONOTONIC);
		if (!timed_out && deadline - now < (int64_t)wait_ms * 1000000)
			wait_ms = deadline > now ? (int)((deadline - now) / 1000000) + 1 : 0;
		n = epoll_wait(ep, out, 4, wait_ms);

		loader_poll(&r->ld);
		if (!timed_out && ns_of(CLOCK_MONOTONIC) >= deadline) {
			timed_out = 1;
			time_out(r, pid);
		}
		if (ns_of(CLOCK_MONOTONIC) >= next_lost) {
			report_lost(r, 0);
			check_limits(r);
			next_lost = ns_of(CLOCK_MONOTONIC) + (int64_t)LOST_CHECK_MS * 1000000;
		}
		for (int i = 0; i < n; i++) {
			struct signalfd_siginfo si;

			if (out[i].data.fd == dns_refresh_fd(&r->dns)) {
				refresh_hosts(r);
				continue;
			}
			if (out[i].data.fd == r->lla.fd && r->lla.fd >= 0) {
				ac_llaudit_read(&r->lla);
				continue;
			}
			if (out[i].data.fd == ifd && ifd >= 0) {
				char buf[4096];

				while (read(ifd, buf, sizeof(buf)) > 0)
					;
				check_limits(r);
				continue;
			}
			if (out[i].data.fd != sfd)
				continue;
			while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGHUP)
					reload(r);
				else if (si.ssi_signo == SIGWINCH)
					pty_resize(&r->pty);
				else if (si.ssi_signo != SIGCHLD)
					kill(-pid, si.ssi_signo);   /* its process group */
			}
			if (waitpid(pid, &status, WNOHANG) == pid) {
				loader_drain(&r->ld);
				check_limits(r);
				close(ep);
				if (ifd >= 0)
					close(ifd);
				if (timed_out)
					return EXIT_TIMEOUT;
				return WIFEXITED(status) ? WEXITSTATUS(status) :
				       WIFSIGNALED(status) ? 128 + WTERMSIG(status) : EXIT_AGENTCAGE;
			}
		}
	}
}

/* Is a cage of the dead run PID (<parent>/NAME-PID) still there? cage_create
 * swept what it could; one that could not be emptied keeps its pins. */
static int cage_left(long pid, void *parent)
{
	char suffix[32];
	struct dirent *de;
	DIR *d = opendir(parent);
	int left = 0;

	snprintf(suffix, sizeof(suffix), "-%ld", pid);
	while (d && !left && (de = readdir(d))) {
		size_t n = strlen(de->d_name), k = strlen(suffix);

		left = de->d_type == DT_DIR && n > k && !strcmp(de->d_name + n - k, suffix);
	}
	if (d)
		closedir(d);
	return left;
}

/* Pin this run's programs, maps and packet links, so that they stay with
 * no process of ours alive; first the pins of runs whose agentcage is gone
 * go (cage_create has already emptied and removed their cages). */
static int pin_run(struct run *r, struct ac_error *e)
{
	char root[PATH_MAX / 2];

	if (pin_root(root, sizeof(root), e))
		return -1;
	pin_sweep(root, cage_left, r->cage.cg.parent);
	snprintf(r->pins, sizeof(r->pins), "%s/run-%d", root, (int)getpid());
	if (pin_loader(&r->ld, r->pins, e) || pin_cage_links(&r->cage.links, r->pins, e))
		return -1;
	return 0;
}

/* The programs loaded and the cage made, with its first policy: 0, or -1
 * (reported, everything undone). */
/* What the launch needs, before any program loads: a bad user or a limit
 * this host cannot apply stops the run here. */
static int prepare_launch(struct run *r, const struct policy *p, char **cmd)
{
	const struct policy_limits *l = &p->limits;
	struct cage_cgroup cg = { 0 };
	struct ac_error e;
	char err[1024];

	if (launch_prepare(&r->launch, p, r->tmpdir, cmd, &e)) {
		diag_err(&e);
		return -1;
	}
	r->launch.pty = &r->pty;
	r->time_limit = l->time;
	if (r->opt.timeout && (!r->time_limit || r->opt.timeout < r->time_limit))
		r->time_limit = r->opt.timeout;
	if (!l->memory && !l->cpu_milli && !l->pids)
		return 0;
	if (r->opt.no_limits) {
		diag_warn("--no-limits: the policy's memory, cpu and pids limits are not applied");
		return 0;
	}
	if (cgroup_parent(&cg, err, sizeof(err))) {
		diag_error_code(AC_E_CGROUP_UNAVAILABLE, "%s", err);
		return -1;
	}
	if (ac_limits_check(cg.parent, l, &e)) {
		diag_err(&e);
		return -1;
	}
	r->limits = 1;
	return 0;
}

/* The cage made: its limits, ${CAGE_TMP} to the agent, cgroup.procs open. */
static int ready_cage(struct run *r)
{
	struct ac_error e;

	if ((r->limits && ac_limits_apply(r->cage.cg.parent, r->cage.cg.path,
					  &r->cage.policy.pol.limits, &e)) ||
	    launch_cage(&r->launch, r->tmpdir, r->cage.cg.path, &e)) {
		diag_err(&e);
		return -1;
	}
	return 0;
}

/* BPF LSM: every program loaded; 0, or -1 with e. */
static int open_bpf_lsm(struct run *r, struct ac_error *e)
{
	char err[sizeof(e->msg)];

	if (lsm_bpf_active(err, sizeof(err)))
		return ac_error_set(e, AC_E_KERNEL_NO_BPF_LSM, "%s", err);
	return cage_loader_open(&r->ld, 0, on_event, r, e);
}

/* The kernel's Landlock audit records, joined: NULL, or why they cannot
 * come (in why). */
static const char *open_ll_events(struct run *r, char *why, size_t len)
{
	struct ac_error e;

	if (!ac_llaudit_open(&r->lla, on_ll_event, r, &e))
		return NULL;
	snprintf(why, len, "%s", e.msg);
	return why;
}

static void landlock_info(const struct run *r, int abi, const char *why_not, size_t weaker,
			  const char *no_events)
{
	diag_info("enforcer: landlock (ABI %d, %zu Landlock rules, %zu mounts)%s%s; file "
		  "denials %s%s%s", abi, r->ll.nrules, r->ll.nmounts,
		  why_not ? "; BPF LSM: " : "", why_not ? why_not : "",
		  no_events ? "not reported: " : "reported from kernel audit records",
		  no_events ? no_events : "", weaker ? "; weaker rows accepted with "
		  "--accept-weaker (agentcage check --enforcer landlock lists them)" : "");
}

/* Landlock (files, exec, the baseline it reaches) and the packet programs
 * alone (network): refused, with the table, where the policy would hold
 * weaker and the caller did not accept that. why_not: BPF LSM's failure
 * under --enforcer auto. 0, or -1 (reported). */
static int open_landlock(struct run *r, struct compiled_policy *cp, const char *why_not)
{
	struct ll_opts o = { .abi = ac_landlock_abi(NULL), .privileged = r->launch.privileged,
			     .no_pty = r->opt.no_pty, .fresh = r->tmpdir };
	char why_ev[sizeof(((struct ac_error *)0)->msg)];
	struct ll_table t;
	struct ac_error e;
	size_t weaker = 0;

	o.no_events = open_ll_events(r, why_ev, sizeof(why_ev));
	o.events = !o.no_events;
	if (ll_table_build(cp, &o, &t)) {
		diag_error_code(AC_E_NOMEM, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < t.n; i++)
		weaker += t.rows[i].level >= LL_WEAKER;
	if (o.abi >= AC_LANDLOCK_ABI_MIN &&
	    (t.worst == LL_CANNOT || (t.worst == LL_WEAKER && !r->opt.accept_weaker))) {
		diag_error_code(AC_E_ENFORCER_WEAKER, "policy '%s' %s under the Landlock "
				"enforcer%s%s%s: %zu rows below; %s", cp->pol.name,
				t.worst == LL_CANNOT ? "cannot be held" : "would hold weaker",
				why_not ? " (BPF LSM: " : "", why_not ? why_not : "", why_not ? ")" : "",
				weaker, t.worst == LL_CANNOT ? "change the policy, or use a kernel "
				"that loads BPF LSM programs" : "pass --accept-weaker to run it so, or "
				"use a kernel that loads BPF LSM programs");
		enforcer_table_print(stderr, &t, LL_WEAKER);
		ll_table_free(&t);
		return -1;
	}
	ll_table_free(&t);
	/* the domain's own rules, for a reload to compare with */
	if (rules_compile(&cp->pol, &r->vars, 1, &r->ll_rs, e.msg, sizeof(e.msg))) {
		diag_error("%s", e.msg);
		return -1;
	}
	if (ac_landlock_prepare(&cp->rs, &r->ll, &e) ||
	    launch_landlock(&r->launch, &r->ll, &cp->pol, &e) ||
	    cage_loader_open(&r->ld, LOADER_NO_LSM | LOADER_SOCK_ADDR, on_event, r, &e)) {
		if (why_not && e.code && !strcmp(e.code, AC_E_KERNEL_NO_LANDLOCK))
			ac_error_prefix(&e, "BPF LSM: %s; and", why_not);
		diag_err(&e);
		ac_landlock_free(&r->ll);
		rules_free(&r->ll_rs);
		return -1;
	}
	r->ll_abi = o.abi;
	landlock_info(r, o.abi, why_not, weaker, o.no_events);
	return 0;
}

/* The enforcer the options ask for, its programs loaded: 0, or -1
 * (reported). auto falls back to Landlock only where the kernel has no
 * BPF LSM or refuses its programs. */
static int open_enforcer(struct run *r, struct compiled_policy *cp)
{
	struct ac_error e = { 0 };

	r->enforcer = ENF_LANDLOCK;
	if (r->opt.enforcer == ENF_LANDLOCK)
		return open_landlock(r, cp, NULL);
	if (!open_bpf_lsm(r, &e)) {
		r->enforcer = ENF_BPF_LSM;
		return 0;
	}
	if (r->opt.enforcer == ENF_BPF_LSM ||
	    !e.code || (strcmp(e.code, AC_E_KERNEL_NO_BPF_LSM) &&
			strcmp(e.code, AC_E_KERNEL_REFUSED))) {
		diag_err(&e);
		return -1;
	}
	return open_landlock(r, cp, e.msg);
}

static int build_cage(struct run *r, char **cmd)
{
	struct compiled_policy cp;
	struct ac_error e;

	if (compile_policy(r, &cp, &e)) {
		diag_err(&e);
		return -1;
	}
	if (r->opt.user)
		snprintf(cp.pol.user, sizeof(cp.pol.user), "%s", r->opt.user);
	if (prepare_launch(r, &cp.pol, cmd) || open_enforcer(r, &cp))
		goto out_policy;
	r->clock_off = ns_of(CLOCK_REALTIME) - ns_of(CLOCK_BOOTTIME);
	if (cage_create(&r->cage, &r->ld, cp.pol.name, &e)) {
		diag_err(&e);
		goto out_loader;
	}
	if (cage_install(&r->cage, &cp, &e)) {
		diag_err(&e);
		cage_teardown(&r->cage);
		goto out_loader;
	}
	if (pin_run(r, &e) ? (diag_err(&e), 1) : ready_cage(r)) {
		pin_remove(r->pins);
		cage_teardown(&r->cage);
		loader_close(&r->ld);
		return -1;
	}
	return 0;
out_loader:
	loader_close(&r->ld);
out_policy:
	compiled_policy_free(&cp);
	return -1;
}

/* Everything goes: the cage (and what is left in it), then the programs. */
static void destroy_cage(struct run *r)
{
	char cg[sizeof(r->cage.cg.path)];

	/* our own descriptors hold the programs until loader_close */
	snprintf(cg, sizeof(cg), "%s", r->cage.cg.path);
	cage_teardown(&r->cage);
	/* a cage that could not be emptied keeps its pins: its programs stay
	 * attached after loader_close, until a later run sweeps it */
	if (cg[0] && access(cg, F_OK) == 0)
		diag_warn("%s could not be emptied; it stays enforced (pins in %s) until a later "
			  "agentcage run removes it", cg, r->pins);
	else if (r->pins[0])
		pin_remove(r->pins);
	loader_drain(&r->ld);
	loader_close(&r->ld);
}

/* The cage is gone: the Landlock records still on their way (kauditd
 * sends them after the call), until the kernel has freed the cage's
 * domains and nothing came for 100 ms, at most 2 s; then what the kernel
 * counted and no record showed. */
static void ll_events_drain(struct run *r)
{
	struct pollfd p = { .fd = r->lla.fd, .events = POLLIN };
	int64_t end = ns_of(CLOCK_MONOTONIC) + 2000000000;

	while (r->lla.fd >= 0 && ns_of(CLOCK_MONOTONIC) < end &&
	       (poll(&p, 1, 100) > 0 || ac_llaudit_pending(&r->lla)))
		ac_llaudit_read(&r->lla);
	ac_llaudit_close(&r->lla);
	report_overruns(r);
	if (ac_llaudit_pending(&r->lla))
		diag_warn("the kernel did not free the cage's Landlock domain within 2 s: its last "
			  "denials may be missing from the events");
	if (r->lla.unreported)
		diag_warn("%llu Landlock denials the kernel counted had no audit record (kernel "
			  "audit dropped them: see 'lost' in auditctl -s)",
			  (unsigned long long)r->lla.unreported);
}

/* Start cmd in the cage, and the guard; pid, or -1 (reported). On the way,
 * a signal that ends the run sets *ret to its status. */
static pid_t start_command(struct run *r, char **cmd, int *guard_fd, const sigset_t *old,
			   int *ret)
{
	int err_p[2] = { -1, -1 };
	struct ac_child_fail f;
	struct ac_error e;
	pid_t pid = -1;
	sigset_t pend;

	if ((*guard_fd = start_guard(r)) < 0) {
		diag_error("cannot start the guard process: %s", strerror(errno));
		return -1;
	}
	if (pipe2(err_p, O_CLOEXEC)) {
		diag_error("cannot set up signals and pipes: %s", strerror(errno));
		goto out;
	}
	/* interrupted while loading: the command never starts (the signal
	 * is delivered once everything is cleaned up) */
	sigpending(&pend);
	if (sigismember(&pend, SIGINT) || sigismember(&pend, SIGTERM) ||
	    sigismember(&pend, SIGQUIT)) {
		diag_info("interrupted before the command started; it was not run");
		*ret = 128 + (sigismember(&pend, SIGINT) ? SIGINT :
			      sigismember(&pend, SIGTERM) ? SIGTERM : SIGQUIT);
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		diag_error("fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		close(err_p[0]);
		launch_child(&r->launch, err_p[1], old);   /* joins the cage itself */
	}
	close(err_p[1]);
	err_p[1] = -1;
	/* end of file: it executed cmd (the pipe is close-on-exec); on the
	 * way, under Landlock with isolate: [pid], the pid of PID 1 */
	ac_llaudit_creator(&r->lla, pid);
	while (read(err_p[0], &f, sizeof(f)) == sizeof(f)) {
		if (!strcmp(f.step, "pid")) {
			ac_llaudit_creator(&r->lla, f.err);
			continue;
		}
		if (!strcmp(f.step, "exec"))
			diag_error("cannot execute %s: %s", cmd[0], strerror(f.err));
		else
			diag_err((ac_child_fail_error(&f, &e), &e));
		break;
	}
out:
	for (int i = 0; i < 2; i++)
		if (err_p[i] >= 0)
			close(err_p[i]);
	return pid;
}

/* agentcage and its guard are the last the OOM killer takes: a memory hog
 * in the cage must not end the process that cleans up after it. */
static void oom_protect(void)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, "-1000", 5) != 5)
		diag_warn("cannot protect agentcage from the OOM killer: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* Is a daemon there to take a run --policy? Its connection; else -1 when
 * none answers at a socket the caller did not name (then the run is
 * standalone), or -2 (reported). */
static int daemon_answers(const char *path, int named)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = -1;

	if (strlen(path) < sizeof(sa.sun_path)) {
		memcpy(sa.sun_path, path, strlen(path) + 1);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			return fd;
		if (fd >= 0)
			close(fd);
	}
	if (!named && (errno == ENOENT || errno == ECONNREFUSED || errno == ENOTDIR)) {
		if (diag_verbose)
			diag_info("no daemon answers at %s: this run loads its own programs", path);
		return -1;
	}
	diag_error_code(AC_E_DAEMON_UNREACHABLE, "cannot reach the daemon at %s: %s; %s", path,
			strerror(errno), named ? "start it with 'agentcage daemon', or drop --socket "
			"to run standalone" : "ask to join the group agentcage, or run standalone as "
			"root with --standalone");
	return -2;
}

/* run --cage, and run --policy where a daemon answers: the run's status;
 * RUN_STANDALONE when this run is to load its own programs */
static int via_daemon(struct run *r, char **cmd)
{
	struct run_cage_opts o = { .cage = r->opt.cage, .policy_file = r->opt.policy_file,
				   .mode = r->opt.mode_override, .fd = -1,
				   .socket = proto_socket_path(r->opt.socket),
				   .timeout = r->opt.timeout, .json = r->opt.json,
				   .events = r->opt.events, .user = r->opt.user,
				   .no_pty = r->opt.no_pty };
	struct stat st;

	if (!r->opt.cage) {
		if (r->opt.standalone)
			return RUN_STANDALONE;
		/* a text over 48 KiB may not fit in a request once escaped */
		if (r->opt.policy_file && !stat(r->opt.policy_file, &st) &&
		    st.st_size > (PROTO_LINE_MAX * 3) / 4 && !r->opt.socket) {
			if (diag_verbose)
				diag_info("%s is too big to send to a daemon: this run loads its "
					  "own programs", r->opt.policy_file);
			return RUN_STANDALONE;
		}
		if ((o.fd = daemon_answers(o.socket, r->opt.socket != NULL)) == -1)
			return RUN_STANDALONE;
		if (o.fd == -2)
			return EXIT_AGENTCAGE;
		if (diag_verbose)
			diag_info("the daemon at %s runs this policy in a cage of its own", o.socket);
	}
	return run_cage(&o, cmd);
}

int cmd_run(int argc, char **argv)
{
	struct run r = { .opt = { .mode_override = MODE_UNSET, .dns_max = NET_REFRESH_MAX },
			 .launch = { .procs_fd = -1 }, .ll = { .fd = -1 },
			 .lla = { .fd = -1 } };
	int argi, sfd = -1, ret = EXIT_AGENTCAGE, guard_fd = -1;
	sigset_t mask, old;
	pid_t pid;

	argi = parse_args(&r, argc, argv);
	if (argi < 0)
		return EXIT_AGENTCAGE;
	r.opt.json |= diag_json;     /* --json before the verb */
	if ((ret = via_daemon(&r, argv + argi)) != RUN_STANDALONE)
		return ret;
	ret = EXIT_AGENTCAGE;
	/* Signals wait (blocked, read through a signalfd once the command runs)
	 * from here on: a SIGINT or SIGHUP that arrives while the programs load
	 * is forwarded or applied then, instead of killing agentcage halfway.
	 * An inherited SIG_IGN (a shell's background job) would discard them. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	sigaddset(&mask, SIGWINCH);
	sigprocmask(SIG_BLOCK, &mask, &old);
	if (geteuid() != 0) {
		diag_error_code(AC_E_PERMISSION, "agentcage run needs root (CAP_BPF and CAP_SYS_ADMIN to load BPF LSM "
			   "programs and create cgroups) when no daemon answers at %s; run it as "
			   "root or with sudo, or start 'agentcage daemon' (members of the group "
			   "agentcage may use it)", proto_socket_path(r.opt.socket));
		return EXIT_AGENTCAGE;
	}
	if (!getcwd(r.cwd, sizeof(r.cwd))) {
		diag_error("cannot read the current directory: %s", strerror(errno));
		return EXIT_AGENTCAGE;
	}
	tmp_sweep();
	snprintf(r.tmpdir, sizeof(r.tmpdir), "/tmp/agentcage-%d-XXXXXX", (int)getpid());
	if (!mkdtemp(r.tmpdir)) {
		diag_error("cannot create the cage's private temporary directory: %s", strerror(errno));
		return EXIT_AGENTCAGE;
	}
	r.vars.cwd = r.cwd;
	r.vars.cage_tmp = r.tmpdir;
	if (pty_open(&r.pty, r.opt.no_pty))
		goto out_tmp;
	r.vars.own_tty = pty_name(&r.pty);
	if (build_cage(&r, argv + argi))
		goto out_tmp;
	oom_protect();     /* before the guard and the command are forked */
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		diag_error("cannot set up signals and pipes: %s", strerror(errno));
		goto out_cage;
	}
	pid = start_command(&r, argv + argi, &guard_fd, &old, &ret);
	ac_landlock_free(&r.ll);   /* the agent has its domain, or failed */
	if (pid < 0)
		goto out_cage;
	write_record(&r, "start", pid);
	if (pty_relay(&r.pty)) {   /* no relay: the agent cannot go on */
		cgroup_kill_all(&r.cage.cg);
		kill(pid, SIGKILL);
	}
	if (dns_refresh_start(&r.dns, &r.cage.policy.hosts, r.opt.dns_max))
		diag_warn("cannot start the hostname refresh thread: %s", strerror(errno));
	ret = wait_loop(&r, pid, sfd);
	dns_refresh_stop(&r.dns);
	report_lost(&r, 1);
out_cage:
	if (sfd >= 0)
		close(sfd);
	destroy_cage(&r);
	ll_events_drain(&r);
out_tmp:
	if (rm_tree(r.tmpdir))
		diag_warn("cannot remove %s", r.tmpdir);
	if (guard_fd >= 0)
		close(guard_fd);     /* the guard exits, and with it the programs */
	pty_end(&r.pty);     /* the cage is gone: the last output, the modes back,
	                      * before a pending signal may end agentcage */
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (r.opt.events)
		fclose(r.opt.events);
	launch_free(&r.launch);
	ac_landlock_free(&r.ll);
	rules_free(&r.ll_rs);
	ac_llaudit_close(&r.lla);   /* (drained above once the agent ran) */
	return ret;
}
