// SPDX-License-Identifier: GPL-2.0-only
/* agentcage run --cage NAME: runs in the daemon's named cages.
 *
 * A run is a child cgroup of its cage, <cage>/run-N, so the cage's policy
 * (keyed by the cage's cgroup, an ancestor of the run's), packet and device
 * programs hold for it, and the policy's limits apply to that run alone.
 *  - "run" (cage): the daemon makes the run's cgroup, applies the limits and
 *    replies with the run's id, a random token and the launch settings of
 *    the cage's policy. The connection that asked owns the run: when it
 *    closes (the client exited, crashed, or gave up on a time limit),
 *    everything in the run is killed and its cgroup removed.
 *  - "join" (run, token), on a connection of its own: the daemon moves the
 *    connecting process itself (SO_PEERCRED) into the run's cgroup. A process
 *    is only ever moved into a cage by its own request, and only by a client
 *    of the run's uid: joining confines the joiner, it can reach nothing.
 *  - "run" (policy): agentcage run --policy FILE through the daemon. The
 *    client sends the policy's text (the daemon never opens the client's
 *    file); the daemon compiles it into an ephemeral cage NAME-PID (PID: the
 *    client's), then makes the run in it as above. The cage goes when the
 *    run ends, after its last events are delivered; "reload" with a policy
 *    text on the owning connection swaps it (the cage transaction).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "../cli/diag.h"
#include "daemon.h"
#include "harden/limits.h"
#include "policy/compile.h"
#include "proto/proto.h"

#define RUN_END_WAIT_MS 5000  /* for a run's tasks to die, then it is left to sweeps */

static unsigned long long run_seq;

static struct drun *find_run(struct daemon *d, const char *id)
{
	for (size_t i = 0; i < DAEMON_MAX_RUNS; i++)
		if (d->runs[i] && !strcmp(d->runs[i]->id, id))
			return d->runs[i];
	return NULL;
}

static int new_token(char *out)
{
	unsigned char b[PROTO_TOKEN_LEN / 2];

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
		return -1;
	for (size_t i = 0; i < sizeof(b); i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	return 0;
}

/* <cage>/run-N, N unused (a cgroup left by an earlier daemon keeps its name) */
static int make_cgroup(const struct dcage *c, struct drun *r, struct ac_error *e)
{
	for (int tries = 0; tries < 1000; tries++) {
		snprintf(r->id, sizeof(r->id), "run-%llu", ++run_seq);
		if (snprintf(r->cg.path, sizeof(r->cg.path), "%s/%s", c->cage.cg.path, r->id) >=
		    (int)sizeof(r->cg.path)) {
			errno = ENAMETOOLONG;
			break;
		}
		if (!mkdir(r->cg.path, 0755))
			return 0;
		if (errno != EEXIST)
			break;
	}
	ac_error_set(e, AC_E_CGROUP, "cannot create the run's cgroup %s: %s", r->cg.path,
		     strerror(errno));
	r->cg.path[0] = 0;
	return -1;
}

/* rq's policy text compiled, as the client's own files name it */
static int compile_text(const struct proto_req *rq, struct compiled_policy *cp,
			struct ac_error *e)
{
	struct rule_vars vars = { rq->cwd[0] ? rq->cwd : NULL, rq->cage_tmp[0] ? rq->cage_tmp : NULL,
				  rq->tty[0] ? rq->tty : NULL };
	struct policy_source src = { .text = rq->policy, .len = rq->policy_len,
				     .name = rq->file[0] ? rq->file : "inline", .mode = rq->mode,
				     .vars = &vars, .resolve_links = 1 };

	return policy_compile(&src, cp, e);
}

/* run --policy: the ephemeral cage NAME-PID of rq's text, or NULL with e */
static struct dcage *ephemeral(struct daemon *d, const struct proto_req *rq, pid_t pid,
			       struct ac_error *e)
{
	struct compiled_policy cp;
	char name[sizeof(((struct dcage *)0)->name)];
	struct dcage *c;

	if (compile_text(rq, &cp, e))
		return NULL;
	if (snprintf(name, sizeof(name), "%s-%d", cp.pol.name, (int)pid) >= (int)sizeof(name)) {
		ac_error_set(e, AC_E_POLICY_INVALID, "%s: the cage name '%s' is too long",
			     rq->file[0] ? rq->file : "inline", cp.pol.name);
	} else if (daemon_find(d, name)) {
		ac_error_set(e, AC_E_USAGE, "cage %s exists already", name);
	} else if (!daemon_add_cage(d, &cp, name, rq->file[0] ? rq->file : "inline",
				    daemon_hash(rq->policy, rq->policy_len), e)) {
		c = daemon_find(d, name);
		c->ephemeral = 1;
		snprintf(c->cwd, sizeof(c->cwd), "%s", rq->cwd);
		snprintf(c->cage_tmp, sizeof(c->cage_tmp), "%s", rq->cage_tmp);
		snprintf(c->tty, sizeof(c->tty), "%s", rq->tty);
		diag_info("cage %s installed for a run of pid %d (%s)", name, (int)pid, c->file);
		return c;
	}
	compiled_policy_free(&cp);
	return NULL;
}

/* a free slot of d->runs, or DAEMON_MAX_RUNS */
static size_t free_slot(const struct daemon *d)
{
	for (size_t i = 0; i < DAEMON_MAX_RUNS; i++)
		if (!d->runs[i])
			return i;
	return DAEMON_MAX_RUNS;
}

/* What the run's caller is told, as a standalone run would tell it: the
 * policy's hostnames that do not resolve (their rules allow nothing). */
static void add_warnings(json_object *o, const struct compiled_policy *cp)
{
	const struct net_hosts *hs = &cp->hosts;
	json_object *w = NULL;
	char m[640];   /* name 256, error 192, the text */

	for (size_t i = 0; i < hs->n; i++) {
		if (!hs->h[i].error[0])
			continue;
		snprintf(m, sizeof(m), "cannot resolve %s: %s; its network rules allow nothing "
			 "until it resolves (the daemon retries in the background)",
			 hs->h[i].name, hs->h[i].error);
		if (!w)
			w = json_object_new_array();
		json_object_array_add(w, json_object_new_string(m));
	}
	if (w)
		json_object_object_add(o, "warnings", w);
}

json_object *run_start(struct daemon *d, struct client *cl, const struct proto_req *rq)
{
	struct dcage *c = rq->policy ? NULL : daemon_find(d, rq->cage);
	const struct policy *p;
	struct ucred uc;
	socklen_t len = sizeof(uc);
	struct ac_error e = { 0 };
	struct drun *r;
	json_object *o;
	size_t slot = free_slot(d);

	if (!c && !rq->policy)
		return proto_error(AC_E_NOT_FOUND, "no cage of that name (see 'agentcage ls')");
	if (cl->run)
		return proto_error(AC_E_USAGE, "this connection already owns a run");
	if (slot == DAEMON_MAX_RUNS)
		return proto_error(AC_E_SYSTEM, "too many runs at once (1024)");
	if (getsockopt(cl->fd, SOL_SOCKET, SO_PEERCRED, &uc, &len))
		return proto_error(AC_E_PERMISSION, "cannot identify the client (SO_PEERCRED)");
	if (rq->policy && !(c = ephemeral(d, rq, uc.pid, &e)))
		return proto_error(e.code, e.msg);
	if (!(r = calloc(1, sizeof(*r)))) {
		if (c->ephemeral)
			daemon_remove_cage(d, c);
		return proto_error(AC_E_NOMEM, "out of memory");
	}
	r->eph = c->ephemeral ? c : NULL;
	p = &c->cage.policy.pol;
	r->uid = uc.uid;
	snprintf(r->cage, sizeof(r->cage), "%s", c->name);
	if (new_token(r->token) || make_cgroup(c, r, &e) ||
	    ((p->limits.memory || p->limits.cpu_milli || p->limits.pids) &&
	     ac_limits_apply(c->cage.cg.path, r->cg.path, &p->limits, &e))) {
		if (!e.code)
			ac_error_set(&e, AC_E_SYSTEM, "cannot make a token: %s", strerror(errno));
		if (r->cg.path[0])
			rmdir(r->cg.path);
		if (r->eph)
			daemon_remove_cage(d, r->eph);
		free(r);
		return proto_error(e.code, e.msg);
	}
	d->runs[slot] = r;
	cl->run = r;
	r->cage_cgid = c->cage.cg.id;
	if (p->limits.memory || p->limits.cpu_milli || p->limits.pids)
		runlimits_watch(d, r);
	diag_info("cage %s: %s started for uid %u (pid %d), cgroup %s", c->name, r->id,
		  (unsigned)uc.uid, (int)uc.pid, r->cg.path);
	o = proto_ok();
	json_object_object_add(o, "cage", json_object_new_string(c->name));
	json_object_object_add(o, "run", json_object_new_string(r->id));
	json_object_object_add(o, "token", json_object_new_string(r->token));
	json_object_object_add(o, "cgroup", json_object_new_string(r->cg.path));
	json_object_object_add(o, "mode", json_object_new_string(c->cage.audit ? "audit" : "enforce"));
	json_object_object_add(o, "launch", proto_launch_json(p));
	add_warnings(o, &c->cage.policy);
	return o;
}

json_object *run_join(struct daemon *d, struct client *cl, const char *id, const char *token)
{
	struct drun *r = find_run(d, id);
	struct ucred uc;
	socklen_t len = sizeof(uc);

	/* the same answer for an unknown run and a wrong token */
	if (!r || strcmp(r->token, token))
		return proto_error(AC_E_NOT_FOUND, "no run of that id and token");
	if (getsockopt(cl->fd, SOL_SOCKET, SO_PEERCRED, &uc, &len))
		return proto_error(AC_E_PERMISSION, "cannot identify the client (SO_PEERCRED)");
	if (uc.uid != r->uid)
		return proto_error(AC_E_PERMISSION, "only a process of the run's own user may join it");
	if (cgroup_move(&r->cg, uc.pid))
		return proto_error(AC_E_CGROUP, "cannot move the process into the run's cgroup");
	r->joined++;
	diag_info("cage %s: %s: pid %d joined", r->cage, r->id, (int)uc.pid);
	return proto_ok();
}

/* r's end, its cgroup empty (or given up on): removed, and an ephemeral
 * cage's last events published, its subscribers told, then the cage gone.
 * A task that outlived the kill keeps the run's cgroup, and the cage,
 * enforced, until a sweep finds them empty. */
static void run_finish(struct daemon *d, struct drun *r)
{
	char cg[sizeof(r->cg.path)];
	int left;

	snprintf(cg, sizeof(cg), "%s", r->cg.path);
	runlimits_check(d, r);    /* a last OOM kill, say, that ended the command */
	runlimits_forget(d, r);
	for (size_t i = 0; i < DAEMON_MAX_RUNS; i++)
		if (d->runs[i] == r)
			d->runs[i] = NULL;
	d->nending--;
	if (!(left = cgroup_kill(&r->cg)))
		cgroup_destroy(&r->cg);
	if (left || access(cg, F_OK) == 0)
		diag_warn("cage %s: %s could not be emptied; it stays enforced until it is empty",
			  r->cage, cg);
	else
		diag_info("cage %s: %s ended", r->cage, r->id);
	if (r->eph) {
		loader_drain(&d->ld);
		events_end(d, r->eph->name, loader_over_budget(&d->ld, r->eph->cage.cg.id));
		if (access(cg, F_OK)) {
			diag_info("cage %s removed: its run ended", r->eph->name);
			daemon_remove_cage(d, r->eph);
		}
	}
	free(r);
}

/* The connection that owned r closed: everything in the run is killed.
 * The loop finishes it once its cgroup is empty (runs_ending), so a task
 * slow to die never holds the daemon up. */
void run_end(struct daemon *d, struct client *cl)
{
	struct drun *r = cl->run;
	struct timespec ts;

	if (!r)
		return;
	cl->run = NULL;
	r->token[0] = 0;          /* nobody joins it any more */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	r->ending_since = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	d->nending++;
	if (!cgroup_kill(&r->cg))
		run_finish(d, r);
}

void runs_ending(struct daemon *d)
{
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	for (size_t i = 0; i < DAEMON_MAX_RUNS && d->nending; i++) {
		struct drun *r = d->runs[i];

		if (r && r->ending_since && (!cgroup_kill(&r->cg) ||
					     now - r->ending_since > RUN_END_WAIT_MS))
			run_finish(d, r);
	}
}

json_object *run_expire(struct daemon *d, struct client *cl, const struct proto_req *rq)
{
	if (!cl || !cl->run)
		return proto_error(AC_E_USAGE, "\"expire\" goes on the connection that owns a run");
	runlimits_event(d, cl->run, "time", rq->seconds);
	return proto_ok();
}

json_object *run_reload(struct daemon *d, struct client *cl, const struct proto_req *rq)
{
	struct dcage *c = cl && cl->run ? cl->run->eph : NULL;
	struct compiled_policy cp;
	struct ac_error e = { 0 };
	json_object *o;

	if (!c)
		return proto_error(AC_E_USAGE, "a reload with a policy text goes on the connection "
				   "that owns a run --policy");
	if (compile_text(rq, &cp, &e))
		return proto_error(e.code, e.msg);
	/* NAME-PID: the name before the last '-' (a pid has none) */
	if ((size_t)(strrchr(c->name, '-') - c->name) != strlen(cp.pol.name) ||
	    strncmp(c->name, cp.pol.name, strlen(cp.pol.name))) {
		ac_error_set(&e, AC_E_POLICY_INVALID, "%s: the cage name changed to '%s'; a run's "
			     "cage keeps its name", rq->file[0] ? rq->file : "inline", cp.pol.name);
		compiled_policy_free(&cp);
		return proto_error(e.code, e.msg);
	}
	if (daemon_switch(d, &c->cage, &cp, 0, &e)) {
		compiled_policy_free(&cp);
		return proto_error(e.code, e.msg);
	}
	c->generation++;
	c->hash = daemon_hash(rq->policy, rq->policy_len);
	cage_dns_start(d, c);
	state_save(d);
	diag_info("cage %s reloaded (generation %llu)", c->name, (unsigned long long)c->generation);
	o = proto_ok();
	json_object_object_add(o, "cage", json_object_new_string(c->name));
	json_object_object_add(o, "generation", json_object_new_int64((int64_t)c->generation));
	json_object_object_add(o, "mode", json_object_new_string(c->cage.audit ? "audit" : "enforce"));
	return o;
}

/* Ephemeral cages no run owns (an earlier daemon's, adopted): each goes
 * once nothing is left in it; until then it stays enforced. */
static void sweep_ephemeral(struct daemon *d)
{
	for (size_t i = d->ncages; i-- > 0;) {
		struct dcage *c = d->cages[i];
		int owned = 0;

		for (size_t k = 0; k < DAEMON_MAX_RUNS && !owned; k++)
			owned = d->runs[k] && d->runs[k]->eph == c;
		if (!c->ephemeral || owned || daemon_populated(c->cage.cg.path))
			continue;
		diag_info("cage %s removed: the run it was made for is gone and it is empty",
			  c->name);
		daemon_remove_cage(d, c);
	}
}

void run_dirs(const char *cage_cg, void (*fn)(const char *path, const char *name, void *ctx),
	      void *ctx)
{
	DIR *dir = opendir(cage_cg);
	struct dirent *de;

	while (dir && (de = readdir(dir))) {
		char path[PATH_MAX + 256];

		if (strncmp(de->d_name, "run-", 4) || de->d_type != DT_DIR)
			continue;
		snprintf(path, sizeof(path), "%s/%s", cage_cg, de->d_name);
		fn(path, de->d_name, ctx);
	}
	if (dir)
		closedir(dir);
}

struct sweep_ctx {
	struct daemon *d;
	const char *cage;
};

/* a run cgroup no run of this daemon owns goes once empty */
static void sweep_dir(const char *path, const char *name, void *ctx)
{
	struct sweep_ctx *s = ctx;
	int owned = 0;

	for (size_t k = 0; k < DAEMON_MAX_RUNS && !owned; k++)
		owned = s->d->runs[k] && !strcmp(s->d->runs[k]->cg.path, path);
	if (!owned && !rmdir(path))
		diag_info("cage %s: removed %s, left empty by a run whose client is gone",
			  s->cage, name);
}

/* Runs whose client is gone (an earlier daemon's, or one that lost its
 * connection while the daemon was down): their cgroups go once empty.
 * Populated ones stay, enforced, until a later sweep. */
void runs_sweep(struct daemon *d)
{
	for (size_t i = 0; i < d->ncages; i++) {
		struct sweep_ctx s = { d, d->cages[i]->name };

		run_dirs(d->cages[i]->cage.cg.path, sweep_dir, &s);
	}
	sweep_ephemeral(d);
}
