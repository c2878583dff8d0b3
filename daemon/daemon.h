// SPDX-License-Identifier: GPL-2.0-only
/* agentcage daemon: one load of the programs for the host, one named cage
 * per policy file of a directory, a control socket (lib/proto). */
#ifndef AGENTCAGE_DAEMON_H
#define AGENTCAGE_DAEMON_H
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>
#include "cage/cage.h"
#include "harden/limits.h"
#include "policy/dnsrefresh.h"
#include "kernel/loader.h"
#include "util/error.h"

#define DAEMON_POLICY_DIR "/etc/agentcage/policies"
#define DAEMON_CAGES_MAX (1 << 20)   /* --max-cages at most */
#define DAEMON_MAX_CLIENTS 2048   /* a run --policy holds two: its run and its events */
#define CLIENT_IN_MAX (4096 + 65536) /* one request line at most PROTO_LINE_MAX */
#define CLIENTS_PER_UID 256        /* connections of one user other than root */
#define DAEMON_MAX_RUNS 1024

/* one agentcage run --cage (runs.c): a child cgroup of its cage, owned by
 * the connection that asked for it */
struct drun {
	char id[64];               /* run-N */
	char cage[128];
	char token[33];            /* what a join must show */
	uid_t uid;                 /* who asked: only its processes may join */
	struct cage_cgroup cg;     /* <cage>/run-N */
	unsigned joined;
	struct dcage *eph;         /* run --policy: its own cage, which goes with it */
	uint64_t cage_cgid;        /* its cage's cgroup id: its limit events' */
	int limits;                /* limits applied: watched (runlimits.c) */
	int wd[2];                 /* the inotify watches of memory.events, pids.events */
	struct ac_limit_events lev;/* the counters last seen */
	uint64_t ending_since;     /* its owner gone: killed since (monotonic ms), or 0 */
};

struct dcage {
	char name[128];
	char file[PATH_MAX];       /* the policy file it came from */
	uint64_t hash;             /* of that file's bytes, as last compiled */
	struct cage cage;          /* its cgroup, links and policy in force */
	char pins[PATH_MAX];       /* <daemon pins>/cage-NAME: its cgroup links */
	uint64_t generation;       /* 1 at install, +1 at every swap */
	char error[1024];          /* why its file's last read was refused, or "" */
	uint64_t decisions[AC_OP__MAX][2]; /* events by op, denied/audited (metrics) */
	int seen;                  /* scan mark */
	int unbound;               /* adopted, its file not yet found by a scan */
	int ephemeral;             /* a run's own (run --policy, NAME-PID): no file of the
	                            * policy directory; it goes when its run ends */
	/* an ephemeral cage's ${CWD}, ${CAGE_TMP} and pty, as its run's policy
	 * was compiled with ("": none; a named cage has none) */
	char cwd[PATH_MAX], cage_tmp[PATH_MAX], tty[PATH_MAX];
	struct dns_refresh dns;    /* its hostnames re-resolved (dns.c), when dns_on */
	int dns_on;
};

struct client {
	int fd;
	char *in;                  /* what came and is not yet a line (grown as needed) */
	size_t inlen, incap;
	char *out;                 /* replies not yet written */
	size_t outlen;
	int closing;               /* close once out is written */
	int sub;                   /* an events subscriber (events.c) */
	char sub_cage[128];        /* its cage filter, or "" */
	uint64_t dropped;          /* events it missed since its last "dropped" line */
	struct drun *run;          /* the run it owns, ended when it goes */
	uid_t uid;                 /* its peer's (SO_PEERCRED at accept) */
};

#define EVENTS_BACKLOG 256         /* the last events, for a new subscriber */
#define METRICS_CONNS 8            /* scrapers at once */

/* one connection to --metrics (metrics.c) */
struct mconn {
	int fd;
	char in[4096];             /* the request, up to its header's end */
	size_t inlen;
	char *out;                 /* the reply, once the header has come */
	size_t outlen, off;
};

/* the results of a file in a scan, counted for the metrics */
enum { RELOAD_INSTALLED, RELOAD_RELOADED, RELOAD_UNCHANGED, RELOAD_REMOVED, RELOAD_KEPT,
       RELOAD_FAILED, RELOAD__N };
extern const char *const reload_names[RELOAD__N];

struct daemon {
	const char *dir, *sock_path, *metrics;
	FILE *events;
	const char *events_path;   /* --events FILE */
	long long events_max;      /* past this size FILE becomes FILE.1 */
	struct loader ld;
	char pins[PATH_MAX / 2];   /* <bpffs>/agentcage/daemon */
	struct dcage **cages;      /* max_cages of them: the kernel's cages map's size */
	size_t ncages, max_cages;
	struct loader_sizes sizes; /* --max-rules, --max-net-rules, --max-cages, --ring-buffer */
	unsigned dns_max;          /* --dns-refresh: hostnames re-resolved at least this often (s) */
	int64_t clock_off;
	int ep, lfd, ifd, sfd;
	int bound;                 /* the socket file is ours to remove */
	gid_t gid;                 /* the socket's group: agentcage's, or 0 */
	int have_group;
	struct client *clients[DAEMON_MAX_CLIENTS];
	int clients_hi;            /* every client is below this slot */
	uint64_t lost_reported, over_reported;
	int adopted;               /* the pinned set was an earlier daemon's */
	int state_fd;              /* the pinned map-daemon_state (adopt.c) */
	struct client *current;    /* the client whose request is being handled */
	struct drun *runs[DAEMON_MAX_RUNS];
	size_t nending;            /* runs killed, their cgroups not yet empty */
	int mfd;                   /* --metrics listener, or -1 */
	int limfd;                 /* inotify of the runs' limit counters (runlimits.c) */
	uint64_t limits_next;      /* when the runs' cpu.stat is read next (monotonic ns) */
	struct mconn *mconns[METRICS_CONNS];
	uint64_t decisions_unknown[AC_OP__MAX][2]; /* events of no known cage */
	uint64_t reloads[RELOAD__N];
	struct backlog {
		char *line;        /* {"v":1,...event...}\n */
		size_t len;
		char cage[128];
	} backlog[EVENTS_BACKLOG];
	size_t nbacklog;           /* events ever published; the last ones are kept */
};

/* The result of one file in a scan, for the log and the reload reply. */
struct scan_result {
	char file[PATH_MAX], cage[128];
	const char *what;          /* "installed", "reloaded", "unchanged", "removed", "kept", "failed" */
	const char *code;          /* with "failed" and "kept" */
	char msg[1024];
};

struct scan {
	struct scan_result *r;
	size_t n, cap;
	int failed;
};

/* Read the policy directory: new files become cages, changed ones are
 * swapped, removed ones go when empty. only: one cage's file alone (NULL:
 * all). Every outcome is logged and, with out, listed. */
int daemon_scan(struct daemon *d, const char *only, struct scan *out, struct ac_error *e);
void scan_free(struct scan *s);
struct dcage *daemon_find(struct daemon *d, const char *name);
/* A cage of cp (emptied on success), named name, its policy from file
 * (hash h of its bytes): made, installed and pinned, or -1 with e. */
int daemon_add_cage(struct daemon *d, struct compiled_policy *cp, const char *name,
		    const char *file, uint64_t h, struct ac_error *e);
/* cage_swap (install 0) or cage_install of cp into c, tried once more
 * without every cage's spare rules when the rule maps are full. */
int daemon_switch(struct daemon *d, struct cage *c, struct compiled_policy *cp, int install,
		  struct ac_error *e);
/* c torn down (what is left in it killed) and forgotten; c is freed. */
void daemon_remove_cage(struct daemon *d, struct dcage *c);
/* NAME-PID: the names of agentcage run's cages and of ephemeral cages */
int daemon_run_name(const char *name);
/* does cgroup cg, or one below it, hold a process? (unknown: 1) */
int daemon_populated(const char *cg);
uint64_t daemon_hash(const char *b, size_t n);
struct dcage *daemon_find_cgid(struct daemon *d, uint64_t cgid);

/* a cage's hostnames re-resolved in the background (dns.c): (re)started
 * with each policy it gets, stopped when it goes; the loop's tag of its
 * descriptor, and what to do when it is readable */
void cage_dns_start(struct daemon *d, struct dcage *c);
void cage_dns_stop(struct daemon *d, struct dcage *c);
struct dcage *cage_dns_of(struct daemon *d, void *tag);
void cage_dns_ready(struct daemon *d, struct dcage *c);

/* the capacity for cages, from the kernel's cages map (loaded or adopted):
 * d->cages allocated; -1 with e */
int daemon_capacity(struct daemon *d, struct ac_error *e);

/* restart without a gap (adopt.c): the daemon's own pinned state map
 * (made with fresh, else opened), saved after every scan; adopting the
 * pinned set d->pins and its cages */
int state_open(struct daemon *d, int fresh, struct ac_error *e);
void state_save(struct daemon *d);
/* the highest id given out (after every switch) */
void state_save_ids(struct daemon *d);
int daemon_adopt(struct daemon *d, event_fn on_event, struct ac_error *e);

/* the event stream (events.c): every event to the backlog and to the
 * subscribers whose filter it passes; a subscription request */
void events_publish(struct daemon *d, const struct ac_event *e, const char *cage, uint64_t t,
		    const char *rule);
/* --events FILE past its size: renamed to FILE.1 (the one before goes),
 * a new FILE opened; nothing is lost, a failure keeps the old file */
void events_rotate(struct daemon *d);
/* a policy file refused by a reload, as a stream line (not in --events,
 * which holds events alone):
 * {"v":1,"time":..,"cage":..,"level":"error","code":..,"file":..,"message":..} */
void events_publish_error(struct daemon *d, const char *cage, const char *file, const char *code,
			  const char *msg);
json_object *events_subscribe(struct daemon *d, struct client *c, const char *cage, int follow);
/* cage is going: its subscribers get what they are owed, then
 * {"v":1,"end":true,"over_budget":N}, and are closed */
void events_end(struct daemon *d, const char *cage, uint64_t over_budget);
void events_close(struct daemon *d);

/* runs in named cages (runs.c): the "run" and "join" replies; the end of
 * the run a client owns (everything in it killed, its cgroup removed) */
struct proto_req;
json_object *run_start(struct daemon *d, struct client *c, const struct proto_req *rq);
/* reload with a policy text, on the connection that owns a run --policy:
 * its cage swapped to the text, or the old policy kept */
json_object *run_reload(struct daemon *d, struct client *c, const struct proto_req *rq);
/* "expire" on the connection that owns a run: its time limit ran out (the
 * client kills it next); the op limit event of kind time */
json_object *run_expire(struct daemon *d, struct client *c, const struct proto_req *rq);
json_object *run_join(struct daemon *d, struct client *c, const char *id, const char *token);
void run_end(struct daemon *d, struct client *c);
/* the ended runs whose tasks are gone now (or that waited too long) finished */
void runs_ending(struct daemon *d);

/* the runs' limits (runlimits.c): an inotify descriptor (d->limfd) for
 * their counters, a run's watched once its limits are applied, checked on
 * a change, cpu.stat polled; each change an op=limit event of its cage */
int runlimits_open(struct daemon *d);
void runlimits_watch(struct daemon *d, struct drun *r);
void runlimits_check(struct daemon *d, struct drun *r);
void runlimits_ready(struct daemon *d);
void runlimits_poll(struct daemon *d);
void runlimits_forget(struct daemon *d, struct drun *r);
/* an op limit event of r's cage; what: memory, pids, cpu (count: how many
 * since the last event) or time (count: the limit's seconds) */
void runlimits_event(struct daemon *d, const struct drun *r, const char *what,
		     unsigned long long count);
/* an event (kernel's, or made here) to every sink: log, --events, stream, metrics */
int daemon_on_event(void *ctx, void *data, size_t len);
void runs_sweep(struct daemon *d);
/* fn for each run cgroup (<cage_cg>/run-*) of a cage, with its path and name */
void run_dirs(const char *cage_cg, void (*fn)(const char *path, const char *name, void *ctx),
	      void *ctx);

/* --metrics ADDR:PORT (metrics.c): the listener, its connections (tags
 * in the epoll loop), each event counted */
int metrics_open(struct daemon *d, const char *spec, struct ac_error *e);
void metrics_accept(struct daemon *d);
struct mconn *metrics_conn_of(struct daemon *d, void *tag);
void metrics_conn(struct daemon *d, struct mconn *c, uint32_t events);
void metrics_count(struct daemon *d, const struct ac_event *e, struct dcage *c);
void metrics_close(struct daemon *d);

/* the control socket */
int server_open(struct daemon *d, struct ac_error *e);
void server_accept(struct daemon *d);
void server_client(struct daemon *d, struct client *c, uint32_t events);
void server_close(struct daemon *d);
/* queue one line for c; 0, or -1 when c is over its bound (max) */
int server_queue_line(struct client *c, const char *line, size_t n, size_t max);
/* write what c can take now; c is freed when it is to go */
void server_flush_client(struct daemon *d, struct client *c);
/* the reply to one parsed request (lib/proto) */
json_object *daemon_handle(struct daemon *d, const char *line, size_t len, int peer_pid);
#endif
