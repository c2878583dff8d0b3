// SPDX-License-Identifier: GPL-2.0-only
/* agentcage daemon: the host-wide service. One load of the programs for
 * every cage, pinned under <bpffs>/agentcage/daemon/; one named cage per
 * policy file; an epoll loop over the ring buffer, the control socket,
 * inotify on the policy directory and signals. SIGHUP and directory
 * changes re-read the directory. SIGTERM and SIGINT end the daemon and
 * leave every cage enforced: the pins hold the programs, links and maps,
 * so enforcement never depends on the daemon staying alive. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>
#include "../cli/diag.h"
#include "../cli/enforcer.h"
#include "../cli/verbs.h"
#include "daemon.h"
#include "event/event.h"
#include "policy/explain.h"
#include "kernel/lsm.h"
#include "kernel/pin.h"
#include "proto/proto.h"

static void daemon_usage(FILE *f)
{
	fputs("usage: agentcage daemon [--policy-dir DIR] [--socket PATH] [--events FILE]\n"
	      "                        [--events-max MIB] [--cage-events N] [--metrics ADDR:PORT]\n"
	      "                        [--max-cages N] [--max-rules N] [--max-net-rules N]\n"
	      "                        [--ring-buffer MIB] [--dns-refresh SECONDS] [--json]\n"
	      "                        [--enforcer auto|bpf-lsm]\n"
	      "Confine every agent of the host: one set of BPF programs, one named cage per\n"
	      "DIR/*.yaml (cgroup <cgroup2>/agentcage/NAME), a control socket for ls, status\n"
	      "and reload. Changes in DIR and SIGHUP re-read it; SIGTERM ends the daemon and\n"
	      "leaves every cage enforced (its pins stay under <bpffs>/agentcage/daemon);\n"
	      "a daemon started again adopts them, and their cages, without a gap.\n"
	      "  --policy-dir DIR  policy files (default " DAEMON_POLICY_DIR ")\n"
	      "  --socket PATH     control socket (default " PROTO_DEFAULT_SOCKET ")\n"
	      "  --events FILE     append events as JSON lines to FILE (and to stdout: plain,\n"
	      "                    or JSON with --json)\n"
	      "  --events-max MIB  rotate FILE to FILE.1 past MIB MiB (default 64)\n"
	      "  --cage-events N   events a cage may send a second (default 10000); the rest\n"
	      "                    are counted per cage (ls --json: events_over_budget)\n"
	      "  --metrics A:P     serve Prometheus metrics on http://A:P/metrics (decisions by\n"
	      "                    cage, op and action; events lost; reloads; rules per cage)\n"
	      "  --max-cages N     cages at once, runs of run --policy included (default 4096)\n"
	      "  --max-rules N     file rules, and exec rules, of all cages (default 65536 each)\n"
	      "  --max-net-rules N network trie entries of all cages (default 16384)\n"
	      "  --ring-buffer MIB the event ring buffer, a power of two (default 4); what\n"
	      "                    waits there while no daemon runs\n"
	      "  --dns-refresh S   re-resolve the cages' hostnames at least every S seconds\n"
	      "                    (default 300; sooner when their DNS TTL runs out)\n"
	      "  --enforcer E      auto (the default) or bpf-lsm: the daemon enforces with BPF\n"
	      "                    LSM only, and exits where it cannot load; Landlock domains\n"
	      "                    belong to the processes that make them (agentcage run)\n"
	      "The capacities are the kernel maps' sizes, set when the programs are loaded;\n"
	      "a daemon that adopts a pinned set keeps that set's.\n", f);
}

static int64_t ns_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* the policy entry that decided e in cage c (explain_event_rule), or NULL */
static const char *event_rule(const struct dcage *c, const struct ac_event *e)
{
	static struct explain_memo memo;
	struct rule_vars v = { c->cwd[0] ? c->cwd : NULL, c->cage_tmp[0] ? c->cage_tmp : NULL,
			       c->tty[0] ? c->tty : NULL };

	return explain_event_rule_memo(&memo, e, c->cage.gen, &c->cage.policy, &v);
}

int daemon_on_event(void *ctx, void *data, size_t len)
{
	struct daemon *d = ctx;
	const struct ac_event *e = data;
	struct dcage *c;
	const char *name, *rule;
	uint64_t t;

	if (len < sizeof(*e) - sizeof(e->path))
		return 0;
	c = daemon_find_cgid(d, e->cgroup);
	name = c ? c->name : "?";
	t = e->ts_ns + d->clock_off;
	metrics_count(d, e, c);
	rule = c ? event_rule(c, e) : NULL;
	if (diag_json)
		event_write_json(stdout, e, name, t, rule);
	else
		event_write_plain(stdout, e, name, t, rule);
	if (d->events) {
		event_write_json(d->events, e, name, t, rule);
		events_rotate(d);
	}
	events_publish(d, e, name, t, rule);
	return 0;
}

static void add_fd(struct daemon *d, int fd, void *tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = tag };

	epoll_ctl(d->ep, EPOLL_CTL_ADD, fd, &ev);
}

/* ---- requests ---------------------------------------------------------- */

/* the processes in a cgroup itself (not below it) */
static int count_procs(const char *cg)
{
	char procs[PATH_MAX + 300];
	FILE *f;
	int n = 0;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
	if ((f = fopen(procs, "re"))) {
		for (int ch; (ch = fgetc(f)) != EOF;)
			n += ch == '\n';
		fclose(f);
	}
	return n;
}

/* n[0]: processes, n[1]: runs */
static void count_run(const char *path, const char *name, void *ctx)
{
	int *n = ctx;

	(void)name;
	n[0] += count_procs(path);
	n[1]++;
}

static json_object *cage_json(struct daemon *d, const struct dcage *c)
{
	const struct compiled_policy *p = &c->cage.policy;
	json_object *o = json_object_new_object();
	int n[2] = { count_procs(c->cage.cg.path), 0 };

	run_dirs(c->cage.cg.path, count_run, n);   /* and in its runs' cgroups */
	json_object_object_add(o, "name", json_object_new_string(c->name));
	json_object_object_add(o, "file", json_object_new_string(c->file));
	json_object_object_add(o, "mode", json_object_new_string(c->cage.audit ? "audit" : "enforce"));
	json_object_object_add(o, "enforcer", json_object_new_string("bpf-lsm"));
	json_object_object_add(o, "generation", json_object_new_int64((int64_t)c->generation));
	json_object_object_add(o, "policy_id", json_object_new_int64(c->cage.policy_id));
	json_object_object_add(o, "net_policy_id", json_object_new_int64(c->cage.net_id));
	json_object_object_add(o, "policy_gen", json_object_new_int64(c->cage.gen));
	json_object_object_add(o, "cgroup", json_object_new_string(c->cage.cg.path));
	json_object_object_add(o, "cgroup_id", json_object_new_int64((int64_t)c->cage.cg.id));
	json_object_object_add(o, "processes", json_object_new_int(n[0]));
	json_object_object_add(o, "runs", json_object_new_int(n[1]));
	json_object_object_add(o, "file_rules", json_object_new_int64((int64_t)p->rs.nfiles));
	json_object_object_add(o, "exec_rules", json_object_new_int64((int64_t)p->rs.nexec));
	json_object_object_add(o, "net_entries", json_object_new_int64((int64_t)p->ns.n));
	json_object_object_add(o, "unix_peers", json_object_new_int64((int64_t)p->rs.nunix));
	json_object_object_add(o, "pins", json_object_new_string(c->pins));
	json_object_object_add(o, "events_over_budget",
			       json_object_new_int64((int64_t)loader_over_budget(&d->ld, c->cage.cg.id)));
	json_object_object_add(o, "ephemeral", json_object_new_boolean(c->ephemeral));
	if (c->error[0])
		json_object_object_add(o, "error", json_object_new_string(c->error));
	return o;
}

/* the kernel maps' sizes, as loaded or adopted */
static json_object *capacity_json(struct daemon *d)
{
	json_object *o = json_object_new_object();
	struct loader_sizes z;

	loader_sizes_of(&d->ld, &z);
	json_object_object_add(o, "cages", json_object_new_int64((int64_t)d->max_cages));
	json_object_object_add(o, "file_rules", json_object_new_int64(z.file_rules));
	json_object_object_add(o, "exec_rules", json_object_new_int64(z.file_rules));
	json_object_object_add(o, "net_rules", json_object_new_int64(z.net_rules));
	json_object_object_add(o, "unix_peers", json_object_new_int64(z.unix_rules));
	json_object_object_add(o, "ring_buffer_bytes", json_object_new_int64(z.ring_bytes));
	json_object_object_add(o, "file_owners_per_cage", json_object_new_int64(z.owners_per_cage));
	return o;
}

static json_object *reply_cages(struct daemon *d, const char *only)
{
	json_object *r, *a = json_object_new_array();
	struct dcage *c = NULL;

	if (only && only[0] && !(c = daemon_find(d, only))) {
		json_object_put(a);
		return proto_error(AC_E_NOT_FOUND, "no cage of that name");
	}
	for (size_t i = 0; i < d->ncages; i++)
		if (!c || d->cages[i] == c)
			json_object_array_add(a, cage_json(d, d->cages[i]));
	r = proto_ok();
	json_object_object_add(r, "cages", a);
	json_object_object_add(r, "pins", json_object_new_string(d->pins));
	json_object_object_add(r, "policy_dir", json_object_new_string(d->dir));
	json_object_object_add(r, "pid", json_object_new_int((int)getpid()));
	json_object_object_add(r, "events_lost",
			       json_object_new_int64((int64_t)loader_stat(&d->ld, AC_STAT_LOST)));
	json_object_object_add(r, "capacity", capacity_json(d));
	return r;
}

static json_object *reply_reload(struct daemon *d, const char *only)
{
	struct scan s = { 0 };
	struct ac_error e = { 0 };
	json_object *r, *a;

	if (daemon_scan(d, only && only[0] ? only : NULL, &s, &e)) {
		scan_free(&s);
		return proto_error(e.code, e.msg);
	}
	a = json_object_new_array();
	for (size_t i = 0; i < s.n; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "file", json_object_new_string(s.r[i].file));
		if (s.r[i].cage[0])
			json_object_object_add(o, "cage", json_object_new_string(s.r[i].cage));
		json_object_object_add(o, "result", json_object_new_string(s.r[i].what));
		if (s.r[i].code) {
			json_object_object_add(o, "code", json_object_new_string(s.r[i].code));
			json_object_object_add(o, "message", json_object_new_string(s.r[i].msg));
		}
		json_object_array_add(a, o);
	}
	/* a refused file: not ok, the first refusal is the error */
	r = proto_ok();
	for (size_t i = 0; i < s.n; i++)
		if (s.r[i].code) {
			json_object_put(r);
			r = proto_error(s.r[i].code, s.r[i].msg);
			break;
		}
	json_object_object_add(r, "results", a);
	scan_free(&s);
	return r;
}

json_object *daemon_handle(struct daemon *d, const char *line, size_t len, int peer_pid)
{
	struct proto_req rq;
	struct ac_error e = { 0 };
	json_object *r;

	(void)peer_pid;
	if (proto_parse_request(line, len, &rq, &e))
		return proto_error(e.code, e.msg);
	switch (rq.method) {
	case PM_LS:
	case PM_STATUS:
		r = reply_cages(d, rq.cage);
		break;
	case PM_RELOAD:
		r = rq.policy ? run_reload(d, d->current, &rq) : reply_reload(d, rq.cage);
		break;
	case PM_EVENTS:
		r = events_subscribe(d, d->current, rq.cage, rq.follow);
		break;
	case PM_RUN:
		r = run_start(d, d->current, &rq);
		break;
	case PM_JOIN:
		r = run_join(d, d->current, rq.run, rq.token);
		break;
	case PM_EXPIRE:
		r = run_expire(d, d->current, &rq);
		break;
	default:
		r = proto_error(AC_E_PROTOCOL, "bad request: unknown method");
	}
	proto_req_free(&rq);
	return r;
}

/* ---- setup and the loop ------------------------------------------------- */

/* The numeric options: each a number in its range, or a one-line error
 * naming the option, the range and what was given. */
static const struct num_opt {
	int opt;
	const char *name, *what;
	long min, max;
} num_opts[] = {
	{ 'R', "--events-max", "MiB", 1, 1L << 30 },
	{ 'B', "--cage-events", "events a second", 1, 1000000 },
	{ 'D', "--dns-refresh", "seconds", 2, 86400 },
	{ 'C', "--max-cages", "cages", 16, DAEMON_CAGES_MAX },
	{ 'F', "--max-rules", "rules", 1024, 1 << 24 },
	{ 'N', "--max-net-rules", "trie entries", 256, 1 << 22 },
	{ 'Q', "--ring-buffer", "MiB, a power of two,", 1, 1024 },
};

static int num_arg(struct daemon *d, int opt, const char *arg)
{
	const struct num_opt *o = num_opts;
	char *end;
	long v;

	while (o->opt != opt)
		o++;
	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || end == arg || v < o->min || v > o->max ||
	    (opt == 'Q' && (v & (v - 1)))) {
		diag_error_code(AC_E_USAGE, "%s takes %s from %ld to %ld, not '%s'", o->name,
				o->what, o->min, o->max, arg);
		return -1;
	}
	switch (opt) {
	case 'R': d->events_max = (long long)v << 20; break;
	case 'B': loader_set_budget((uint32_t)v); break;
	case 'D': d->dns_max = (unsigned)v; break;
	case 'C': d->sizes.cages = (uint32_t)v; break;
	case 'F': d->sizes.file_rules = (uint32_t)v; break;
	case 'N': d->sizes.net_rules = (uint32_t)v; break;
	case 'Q': d->sizes.ring_bytes = (uint32_t)v << 20; break;
	}
	return 0;
}

static int parse_args(struct daemon *d, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy-dir", required_argument, NULL, 'd' }, { "socket", required_argument, NULL, 's' },
		{ "events", required_argument, NULL, 'e' }, { "json", no_argument, NULL, 'j' },
		{ "metrics", required_argument, NULL, 'M' },
		{ "events-max", required_argument, NULL, 'R' },
		{ "cage-events", required_argument, NULL, 'B' },
		{ "max-cages", required_argument, NULL, 'C' },
		{ "max-rules", required_argument, NULL, 'F' },
		{ "max-net-rules", required_argument, NULL, 'N' },
		{ "ring-buffer", required_argument, NULL, 'Q' },
		{ "dns-refresh", required_argument, NULL, 'D' },
		{ "enforcer", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' }, { 0 } };
	int c, enf;

	d->dir = DAEMON_POLICY_DIR;
	d->dns_max = NET_REFRESH_MAX;
	d->events_max = 64LL << 20;
	d->sock_path = PROTO_DEFAULT_SOCKET;
	while ((c = getopt_long(argc, argv, "+d:s:e:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'd': d->dir = optarg; break;
		case 's': d->sock_path = optarg; break;
		case 'M': d->metrics = optarg; break;
		case 'j': diag_json = true; break;
		case 'R': case 'B': case 'D': case 'C': case 'F': case 'N': case 'Q':
			if (num_arg(d, c, optarg))
				return -1;
			break;
		case 'e':
			d->events_path = optarg;
			if (!(d->events = fopen(optarg, "ae"))) {
				diag_error_code(AC_E_USAGE, "cannot open events file %s: %s", optarg,
						strerror(errno));
				return -1;
			}
			setvbuf(d->events, NULL, _IOLBF, 0);
			break;
		case 'E':
			if (enforcer_parse(optarg, &enf))
				return -1;
			if (enf == ENF_LANDLOCK) {
				diag_error_code(AC_E_USAGE, "the daemon enforces with BPF LSM only: a "
						"Landlock domain belongs to the process that makes it, "
						"not to a cgroup; run each agent with 'agentcage run "
						"--enforcer landlock' instead");
				return -1;
			}
			break;
		case 'h': daemon_usage(stdout); exit(0);
		default:
			diag_error_code(AC_E_USAGE, "bad option; see 'agentcage daemon --help'");
			return -1;
		}
	}
	if (optind < argc) {
		diag_error_code(AC_E_USAGE, "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return 0;
}

/* where BPF LSM cannot be had: what still works on such a kernel */
#define NO_LSM_HINT "; without BPF LSM, start each agent with 'agentcage run', which falls " \
	"back to the Landlock enforcer"

/* the programs, once for the host, pinned under <bpffs>/agentcage/daemon */
static int load(struct daemon *d)
{
	char root[PATH_MAX / 4], err[1024];
	struct ac_error e = { 0 };

	if (lsm_bpf_active(err, sizeof(err))) {
		diag_error_code(AC_E_KERNEL_NO_BPF_LSM, "%s" NO_LSM_HINT, err);
		return -1;
	}
	if (pin_root(root, sizeof(root), &e)) {
		diag_err(&e);
		return -1;
	}
	snprintf(d->pins, sizeof(d->pins), "%s/daemon", root);
	d->clock_off = ns_of(CLOCK_REALTIME) - ns_of(CLOCK_BOOTTIME);
	if (access(d->pins, F_OK) == 0) {
		/* an earlier daemon's: its cages stay as they are, enforced */
		if (daemon_adopt(d, daemon_on_event, &e)) {
			diag_err(&e);
			return -1;
		}
		return 0;
	}
	d->sizes.owners_per_cage = LOADER_OWNERS_PER_CAGE;   /* no cage takes the others' */
	loader_set_sizes(&d->sizes);
	if (cage_loader_open(&d->ld, 0, daemon_on_event, d, &e)) {
		if (e.code && !strcmp(e.code, AC_E_KERNEL_REFUSED))
			snprintf(e.msg + strlen(e.msg), sizeof(e.msg) - strlen(e.msg), NO_LSM_HINT);
		diag_err(&e);
		d->pins[0] = 0;
		return -1;
	}
	if (daemon_capacity(d, &e))
		goto fail;
	if (pin_loader(&d->ld, d->pins, &e))
		goto fail;
	if (loader_pin_progs(&d->ld, d->pins, err, sizeof(err))) {
		ac_error_set(&e, AC_E_KERNEL_ATTACH, "%s", err);
		goto fail;
	}
	if (state_open(d, 1, &e))
		goto fail;
	return 0;
fail:
	diag_err(&e);
	return -1;
}

static int watch(struct daemon *d)
{
	sigset_t mask;

	d->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (d->ifd < 0 || inotify_add_watch(d->ifd, d->dir, IN_CLOSE_WRITE | IN_MOVED_TO |
					     IN_MOVED_FROM | IN_DELETE) < 0) {
		diag_error_code(AC_E_POLICY_IO, "cannot watch the policy directory %s: %s", d->dir,
				strerror(errno));
		return -1;
	}
	add_fd(d, d->ifd, &d->ifd);
	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	d->sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	add_fd(d, d->sfd, &d->sfd);
	add_fd(d, loader_epoll_fd(&d->ld), &d->ld);
	if (runlimits_open(d))
		diag_warn("cannot watch the runs' limit counters: %s; their limit events come "
			  "every 5 s", strerror(errno));
	else
		add_fd(d, d->limfd, &d->limfd);
	return 0;
}

/* inotify: re-read when a policy file (or a ..data symlink) changed */
static int dir_changed(struct daemon *d)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	int changed = 0;
	ssize_t n;

	while ((n = read(d->ifd, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;
			size_t l = ev->len ? strlen(ev->name) : 0;

			if ((l > 5 && !strcmp(ev->name + l - 5, ".yaml")) || !strcmp(ev->name, "..data") ||
			    (ev->mask & IN_Q_OVERFLOW))
				changed = 1;
			p += sizeof(*ev) + ev->len;
		}
	return changed;
}

/* the loop; returns the signal that ended it */
static int loop(struct daemon *d)
{
	struct epoll_event out[16];

	for (;;) {
		/* ended runs whose tasks are still dying: looked at every 10 ms */
		int wait_ms = d->nending ? 10 : 5000, n = epoll_wait(d->ep, out, 16, wait_ms);
		struct signalfd_siginfo si;
		struct ac_error e;
		struct dcage *dc;

		loader_poll(&d->ld);
		runlimits_poll(d);
		if (d->nending)
			runs_ending(d);
		if (n == 0 && wait_ms == 5000)
			runs_sweep(d);   /* idle: the cgroups of runs left empty */
		if (loader_stat(&d->ld, AC_STAT_LOST) > d->lost_reported) {
			d->lost_reported = loader_stat(&d->ld, AC_STAT_LOST);
			diag_warn("%llu events lost in total because the ring buffer was full "
				  "(decisions were not affected)", (unsigned long long)d->lost_reported);
		}
		if (n == 0 && loader_stat(&d->ld, AC_STAT_BUDGET) > d->over_reported) {
			d->over_reported = loader_stat(&d->ld, AC_STAT_BUDGET);
			diag_warn("%llu events in total not sent because their cage was over its budget "
				  "of %u a second (decisions were not affected; per cage: agentcage ls "
				  "--json, events_over_budget)", (unsigned long long)d->over_reported,
				  loader_budget());
		}
		for (int i = 0; i < n; i++) {
			void *tag = out[i].data.ptr;

			if (tag == &d->ld)
				continue;
			if (tag == &d->lfd) {
				server_accept(d);
			} else if (tag == &d->limfd) {
				runlimits_ready(d);
			} else if (tag == &d->mfd) {
				metrics_accept(d);
			} else if (metrics_conn_of(d, tag)) {
				metrics_conn(d, tag, out[i].events);
			} else if (tag == &d->ifd) {
				if (dir_changed(d) && daemon_scan(d, NULL, NULL, &e))
					diag_err(&e);
			} else if (tag == &d->sfd) {
				while (read(d->sfd, &si, sizeof(si)) == sizeof(si)) {
					if (si.ssi_signo != SIGHUP)
						return (int)si.ssi_signo;
					diag_info("SIGHUP: re-reading %s", d->dir);
					sd_notify(0, "RELOADING=1");
					if (daemon_scan(d, NULL, NULL, &e))
						diag_err(&e);
					sd_notifyf(0, "READY=1\nSTATUS=%zu cages enforced", d->ncages);
				}
			} else if ((dc = cage_dns_of(d, tag))) {
				cage_dns_ready(d, dc);
			} else {
				server_client(d, tag, out[i].events);
			}
		}
	}
}

/* Each cage holds descriptors of its own (links, cgroup): with the usual
 * soft limit of 1,024 a daemon stopped at 284 cages (make bench). The soft
 * limit goes up to the hard one, as systemd's LimitNOFILE sets it. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			diag_warn("cannot raise the open-file limit: %s", strerror(errno));
	}
}

int cmd_daemon(int argc, char **argv)
{
	static struct daemon d;
	struct ac_error e = { 0 };
	int sig;

	d.lfd = d.ifd = d.sfd = d.state_fd = d.mfd = d.limfd = -1;
	if (parse_args(&d, argc, argv))
		return EXIT_AGENTCAGE;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (geteuid() != 0) {
		diag_error_code(AC_E_PERMISSION, "agentcage daemon needs root (to load BPF LSM "
				"programs and create cgroups); run it as root");
		return EXIT_AGENTCAGE;
	}
	raise_nofile();
	if (access(d.dir, R_OK | X_OK)) {
		diag_error_code(AC_E_POLICY_IO, "cannot read the policy directory %s: %s", d.dir,
				strerror(errno));
		return EXIT_AGENTCAGE;
	}
	d.ep = epoll_create1(EPOLL_CLOEXEC);
	/* a bad --metrics fails before anything is loaded */
	if (d.metrics && metrics_open(&d, d.metrics, &e)) {
		diag_err(&e);
		goto fail;
	}
	if (load(&d))
		goto fail;
	if (watch(&d) || daemon_scan(&d, NULL, NULL, &e) || server_open(&d, &e)) {
		if (e.code)
			diag_err(&e);
		goto fail;
	}
	runs_sweep(&d);   /* runs of an earlier daemon that have ended */
	diag_info("daemon ready: %zu cages from %s, socket %s, pins %s%s", d.ncages, d.dir,
		  d.sock_path, d.pins, d.adopted ? " (adopted)" : "");
	/* systemd (Type=notify): started means every cage is enforced */
	sd_notifyf(0, "READY=1\nSTATUS=%zu cages enforced", d.ncages);
	sig = loop(&d);
	/* the cages stay enforced by their pins; only the socket goes */
	diag_info("%s: exiting; %zu cages stay enforced (pins in %s)", strsignal(sig), d.ncages,
		  d.pins);
	sd_notify(0, "STOPPING=1");
	loader_drain(&d.ld);
	server_close(&d);
	metrics_close(&d);
	events_close(&d);
	return 0;
fail:
	server_close(&d);
	metrics_close(&d);
	if (d.adopted)
		return EXIT_AGENTCAGE;   /* the adopted cages stay as they were, enforced */
	/* nothing is caged yet that needs us: undo it all */
	for (size_t i = 0; i < d.ncages; i++) {
		pin_remove(d.cages[i]->pins);
		cage_teardown(&d.cages[i]->cage);
	}
	if (d.pins[0])
		pin_remove(d.pins);
	if (d.ld.net)
		loader_close(&d.ld);
	return EXIT_AGENTCAGE;
}
