// SPDX-License-Identifier: GPL-2.0-only
/* agentcage run --cage NAME -- CMD: CMD in a named cage of the daemon, and
 * agentcage run --policy FILE -- CMD through a daemon: CMD in an ephemeral
 * cage of FILE's policy (runpolicy.c) that lives as long as the run.
 *
 * The daemon holds the programs and the cage's policy; this process only
 * launches. It asks the daemon for a run (a child cgroup of the cage, with
 * the policy's limits, daemon/runs.c) and keeps that connection open for
 * as long as CMD runs: when it closes (CMD is done, a time limit ran out,
 * or this process died, even by SIGKILL) the daemon kills what the run
 * left and removes its cgroup. CMD's process makes the same launch as a
 * standalone run (cli/launch.c: namespaces, user, capabilities, seccomp,
 * descriptors, environment), with the cage's policy's settings, except that
 * it joins the cage by asking the daemon, over a connection of its own, to
 * move it: the caller needs no privilege beyond the daemon's socket. As
 * for a standalone run, CMD gets a pseudo-terminal of its own when stdin
 * is a terminal (cli/pty.c; --no-pty: the caller's); events go to the
 * daemon's sinks (agentcage events --cage NAME).
 *
 * With --policy, as a standalone run does: a private ${CAGE_TMP}, its pty
 * granted by name (the run's own policy), the cage's events are
 * printed on stderr (and --events FILE) as they come, from a subscription
 * made before CMD starts and read to its end (the daemon ends it after the
 * cage's last event, when the run is over), and SIGHUP re-reads FILE and
 * swaps the cage's policy (the daemon's cage transaction). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "client.h"
#include "diag.h"
#include "launch.h"
#include "policy/rules.h"
#include "proto/proto.h"
#include "pty.h"
#include "runcage.h"
#include "util/fsutil.h"

#define EXIT_TIMEOUT 124
#define END_WAIT_MS 10000   /* for the cage's last events, once CMD is done */

struct rc {
	const struct run_cage_opts *o;
	int run_fd, ev_fd, sfd;
	char cage[128];
	char cwd[PATH_MAX], tmpdir[PATH_MAX];
	struct rule_vars vars;
	struct pty pty;
	struct launch l;
	struct policy pol;
	char *join;
	char ev[1 << 16];          /* the event stream's partial line */
	size_t evlen;
	int ev_end;                /* its end line came */
	unsigned long long over;   /* events over the cage's budget (from the end line) */
};

static const char *member(json_object *o, const char *key)
{
	json_object *m;

	return json_object_object_get_ex(o, key, &m) && json_object_is_type(m, json_type_string) ?
	       json_object_get_string(m) : NULL;
}

/* a reply that says no, reported; 0 when it says yes */
static int refused(json_object *r, const char *what)
{
	json_object *ok, *err;

	if (json_object_object_get_ex(r, "ok", &ok) && json_object_get_boolean(ok))
		return 0;
	json_object_object_get_ex(r, "error", &err);
	diag_error_code(member(err, "code") ? member(err, "code") : AC_E_PROTOCOL, "%s: %s", what,
			member(err, "message") ? member(err, "message") : "(no message)");
	return -1;
}

/* a request line on fd and its reply line */
static json_object *exchange_line(int fd, const char *socket, char *line)
{
	json_object *rq = json_tokener_parse(line);

	free(line);
	return rq ? client_exchange(fd, socket, rq) : NULL;
}

/* the run's connection: asked and answered; its reply, or NULL (reported) */
static json_object *ask_run(struct rc *c)
{
	const struct run_cage_opts *o = c->o;
	json_object *rq, *r;
	char *line;
	size_t n;
	int big;

	if ((c->run_fd = o->fd >= 0 ? o->fd : client_connect(o->socket)) < 0)
		return NULL;
	if (!o->cage) {
		if (!(line = run_policy_request(o, "run", &c->vars, &n, &big))) {
			if (big)
				diag_error_code(AC_E_POLICY_INVALID, "%s is over %d bytes, more than a "
						"request to the daemon takes; run it with --standalone",
						o->policy_file, PROTO_LINE_MAX);
			return NULL;
		}
		r = exchange_line(c->run_fd, o->socket, line);
	} else {
		rq = json_object_new_object();
		json_object_object_add(rq, "v", json_object_new_int(PROTO_VERSION));
		json_object_object_add(rq, "method", json_object_new_string("run"));
		json_object_object_add(rq, "cage", json_object_new_string(o->cage));
		r = client_exchange(c->run_fd, o->socket, rq);
	}
	if (!r)
		return NULL;
	if (refused(r, o->cage ? "the daemon refused the run" : "the daemon refused the policy")) {
		json_object_put(r);
		return NULL;
	}
	snprintf(c->cage, sizeof(c->cage), "%s", member(r, "cage") ? member(r, "cage") :
		 o->cage ? o->cage : "");
	return r;
}

/* the ephemeral cage's events, subscribed to before CMD starts */
static int subscribe(struct rc *c)
{
	json_object *rq = json_object_new_object(), *r;

	json_object_object_add(rq, "v", json_object_new_int(PROTO_VERSION));
	json_object_object_add(rq, "method", json_object_new_string("events"));
	json_object_object_add(rq, "cage", json_object_new_string(c->cage));
	json_object_object_add(rq, "follow", json_object_new_boolean(1));
	if ((c->ev_fd = client_connect(c->o->socket)) < 0)
		return -1;
	if (!(r = client_exchange(c->ev_fd, c->o->socket, rq)))
		return -1;
	if (refused(r, "the daemon refused the cage's events")) {
		json_object_put(r);
		return -1;
	}
	json_object_put(r);
	return 0;
}

/* one line of the event stream, to stderr (and --events FILE) */
static void event_line(struct rc *c, const char *line)
{
	json_object *o = json_tokener_parse(line), *m;

	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return;
	}
	if (json_object_object_get_ex(o, "end", &m)) {
		c->ev_end = 1;
		if (json_object_object_get_ex(o, "over_budget", &m))
			c->over = (unsigned long long)json_object_get_int64(m);
	} else if (json_object_object_get_ex(o, "dropped", &m)) {
		diag_warn("%lld events of this run not shown: they came faster than this "
			  "terminal took them", (long long)json_object_get_int64(m));
	} else {
		if (c->o->json)
			fprintf(stderr, "%s\n", line);
		else
			events_print_plain(stderr, "agentcage: ", o);
		if (c->o->events)
			fprintf(c->o->events, "%s\n", line);
	}
	json_object_put(o);
}

/* what the stream has sent (wait: block, up to the socket's timeout); 0,
 * or -1 when it closed (or, waiting, nothing came) */
static int read_events(struct rc *c, int wait)
{
	ssize_t got;
	char *nl;

	got = recv(c->ev_fd, c->ev + c->evlen, sizeof(c->ev) - 1 - c->evlen,
		   wait ? 0 : MSG_DONTWAIT);
	if (got == 0 || (got < 0 && (wait || (errno != EAGAIN && errno != EINTR))))
		return -1;
	if (got < 0)
		return 0;
	c->evlen += (size_t)got;
	c->ev[c->evlen] = 0;
	while ((nl = memchr(c->ev, '\n', c->evlen))) {
		*nl = 0;
		event_line(c, c->ev);
		c->evlen -= (size_t)(nl + 1 - c->ev);
		memmove(c->ev, nl + 1, c->evlen);
	}
	if (c->evlen == sizeof(c->ev) - 1)
		c->evlen = 0;   /* a line longer than any event: skipped */
	return 0;
}

/* CMD is done and the run's connection closed: the cage's last events */
static void last_events(struct rc *c)
{
	struct timeval tv = { .tv_sec = END_WAIT_MS / 1000 };

	if (c->ev_fd < 0)
		return;
	setsockopt(c->ev_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (!c->ev_end && !read_events(c, 1))
		;
	if (!c->ev_end)
		diag_warn("the daemon did not confirm the cage's last events; some may not be "
			  "shown (agentcage events --cage %s)", c->cage);
	if (c->over)
		diag_warn("%llu events over the cage's budget in total (decisions were not "
			  "affected)", c->over);
}

/* SIGHUP: the file read again and sent on the run's connection */
static void reload(struct rc *c)
{
	json_object *r;
	char *line;
	size_t n;
	int big;

	if (!c->o->policy_file) {
		diag_warn("SIGHUP: the embedded default policy has no file to re-read; keeping it");
		return;
	}
	if (!(line = run_policy_request(c->o, "reload", &c->vars, &n, &big))) {
		diag_error("reload failed, keeping the old policy: %s", big ? "the file is too big "
			   "for a request to the daemon" : "the file cannot be read");
		return;
	}
	if (!(r = exchange_line(c->run_fd, c->o->socket, line)))
		return;
	if (!refused(r, "reload failed, keeping the old policy"))
		diag_info("policy reloaded from %s (cage %s, %s, generation %s)", c->o->policy_file,
			  c->cage, member(r, "mode") ? member(r, "mode") : "?",
			  json_object_to_json_string(json_object_object_get(r, "generation")));
	json_object_put(r);
}

/* the run reply's warnings (a hostname that does not resolve), printed as
 * a standalone run prints its own */
static void print_warnings(json_object *reply)
{
	json_object *w;

	if (!json_object_object_get_ex(reply, "warnings", &w) || !json_object_is_type(w, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(w); i++)
		diag_warn("%s", json_object_get_string(json_object_array_get_idx(w, i)));
}

/* the launch of the cage's policy, and the join request CMD's process sends */
static int prepare(struct rc *c, json_object *reply, char **cmd)
{
	json_object *launch, *rq = json_object_new_object();
	struct launch *l = &c->l;
	struct ac_error e = { 0 };
	const char *run = member(reply, "run"), *token = member(reply, "token");
	const char *sock = c->o->socket;
	size_t n;

	print_warnings(reply);
	json_object_object_get_ex(reply, "launch", &launch);
	if (!run || !token || proto_launch_parse(launch, &c->pol, &e)) {
		json_object_put(rq);
		if (!e.code)
			ac_error_set(&e, AC_E_PROTOCOL, "the daemon's run reply has no run or token");
		return diag_err(&e), -1;
	}
	if (c->o->user)
		snprintf(c->pol.user, sizeof(c->pol.user), "%s", c->o->user);
	/* ${CAGE_TMP} means nothing in a named cage: TMPDIR is /tmp */
	if (launch_prepare(l, &c->pol, c->tmpdir[0] ? c->tmpdir : "/tmp", cmd, &e) ||
	    (c->tmpdir[0] && geteuid() == 0 && chown(c->tmpdir, l->id.uid, l->id.gid) &&
	     ac_error_set(&e, AC_E_SYSTEM, "cannot give %s to %u: %s", c->tmpdir,
			  (unsigned)l->id.uid, strerror(errno))) ||
	    (pty_name(&c->pty) && pty_give(&c->pty, l->id.uid, &e))) {
		json_object_put(rq);
		return diag_err(&e), -1;
	}
	l->pty = &c->pty;
	json_object_object_add(rq, "v", json_object_new_int(PROTO_VERSION));
	json_object_object_add(rq, "method", json_object_new_string("join"));
	json_object_object_add(rq, "run", json_object_new_string(run));
	json_object_object_add(rq, "token", json_object_new_string(token));
	if (!(c->join = proto_line(rq, &n)) || strlen(sock) >= sizeof(l->join_sa.sun_path)) {
		diag_error_code(AC_E_NOMEM, "cannot prepare the join request");
		return -1;
	}
	l->join_line = c->join;
	l->join_len = n;
	l->join_sa.sun_family = AF_UNIX;
	memcpy(l->join_sa.sun_path, sock, strlen(sock) + 1);
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void watch(int ep, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	if (fd >= 0)
		epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

/* the daemon's side of the run's connection spoke or closed */
static void run_conn(struct rc *c, int ep, int timed_out)
{
	char b;

	/* the daemon went away: the cage stays enforced (its pins), CMD
	 * goes on; nothing more to hear there */
	if (recv(c->run_fd, &b, 1, MSG_DONTWAIT | MSG_PEEK) <= 0) {
		if (!timed_out)
			diag_warn("the daemon closed the run's connection; the cage stays "
				  "enforced, the command goes on");
		epoll_ctl(ep, EPOLL_CTL_DEL, c->run_fd, NULL);
	}
}

static void signals(struct rc *c, pid_t pid)
{
	struct signalfd_siginfo si;

	while (read(c->sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP && !c->o->cage)
			reload(c);
		else if (si.ssi_signo == SIGWINCH)
			pty_resize(&c->pty);
		else if (si.ssi_signo != SIGCHLD)
			kill(-pid, (int)si.ssi_signo);
	}
}

/* the daemon's op limit event (kind time) of the run, in every sink */
static void expire(struct rc *c, unsigned seconds)
{
	json_object *rq = json_object_new_object(), *r;

	json_object_object_add(rq, "v", json_object_new_int(PROTO_VERSION));
	json_object_object_add(rq, "method", json_object_new_string("expire"));
	json_object_object_add(rq, "seconds", json_object_new_int64(seconds));
	if ((r = client_exchange(c->run_fd, c->o->socket, rq)))
		json_object_put(r);
}

/* CMD started; its status once it is done. Signals go to its process
 * group; at the time limit the run's connection is shut, so the daemon
 * kills everything in the run. */
static int wait_cmd(struct rc *c, pid_t pid, unsigned time_limit)
{
	int ep = epoll_create1(EPOLL_CLOEXEC), status, timed_out = 0;
	struct epoll_event out[3];
	int64_t deadline = time_limit ? now_ms() + (int64_t)time_limit * 1000 : INT64_MAX;

	watch(ep, c->sfd);
	watch(ep, c->run_fd);
	watch(ep, c->ev_fd);
	for (;;) {
		int64_t left = deadline - now_ms();
		int n = epoll_wait(ep, out, 3, timed_out || left > 60000 ? 60000 : left < 0 ? 0 :
				   (int)left);

		if (!timed_out && now_ms() >= deadline) {
			timed_out = 1;
			diag_warn("the time limit of %u s ran out; the daemon kills everything in "
				  "the run", time_limit);
			expire(c, time_limit);
			shutdown(c->run_fd, SHUT_WR);
			kill(-pid, SIGKILL);
		}
		for (int i = 0; i < n; i++) {
			if (out[i].data.fd == c->run_fd)
				run_conn(c, ep, timed_out);
			else if (out[i].data.fd == c->ev_fd && read_events(c, 0))
				epoll_ctl(ep, EPOLL_CTL_DEL, c->ev_fd, NULL);
			else if (out[i].data.fd == c->sfd)
				signals(c, pid);
		}
		if (waitpid(pid, &status, WNOHANG) == pid) {
			close(ep);
			if (timed_out)
				return EXIT_TIMEOUT;
			return WIFEXITED(status) ? WEXITSTATUS(status) :
			       WIFSIGNALED(status) ? 128 + WTERMSIG(status) : EXIT_AGENTCAGE;
		}
	}
}

/* fork CMD's process, which launches and joins; its pid, or -1 (reported) */
static pid_t start(const struct launch *l, char **cmd, const sigset_t *old)
{
	int p[2];
	struct ac_child_fail f;
	struct ac_error e;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC)) {
		diag_error("cannot make a pipe: %s", strerror(errno));
		return -1;
	}
	if ((pid = fork()) < 0) {
		diag_error("fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		launch_child(l, p[1], old);
	}
	close(p[1]);
	/* end of file: it executed cmd (the pipe is close-on-exec) */
	if (read(p[0], &f, sizeof(f)) == sizeof(f)) {
		if (!strcmp(f.step, "exec"))
			diag_error("cannot execute %s: %s", cmd[0], strerror(f.err));
		else
			diag_err((ac_child_fail_error(&f, &e), &e));
	}
	close(p[0]);
	return pid;
}

/* run --policy: ${CWD}, a private ${CAGE_TMP} and CMD's own terminal's name */
static int ephemeral_setup(struct rc *c)
{
	if (!getcwd(c->cwd, sizeof(c->cwd))) {
		diag_error("cannot read the current directory: %s", strerror(errno));
		return -1;
	}
	snprintf(c->tmpdir, sizeof(c->tmpdir), "/tmp/agentcage-%d-XXXXXX", (int)getpid());
	if (!mkdtemp(c->tmpdir)) {
		c->tmpdir[0] = 0;
		diag_error("cannot create the cage's private temporary directory: %s",
			   strerror(errno));
		return -1;
	}
	c->vars.cwd = c->cwd;
	c->vars.cage_tmp = c->tmpdir;
	c->vars.own_tty = pty_name(&c->pty);
	return 0;
}

/* the signals forwarded to CMD (an inherited SIG_IGN would discard them),
 * SIGHUP and SIGWINCH, blocked and read through c->sfd */
static int block_signals(struct rc *c, sigset_t *old)
{
	static const int sigs[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH };
	sigset_t mask;

	sigemptyset(&mask);
	for (size_t s = 0; s < sizeof(sigs) / sizeof(sigs[0]); s++) {
		if (sigs[s] != SIGCHLD && sigs[s] != SIGWINCH)
			signal(sigs[s], SIG_DFL);
		sigaddset(&mask, sigs[s]);
	}
	sigprocmask(SIG_BLOCK, &mask, old);
	if ((c->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		diag_error("cannot set up signals: %s", strerror(errno));
	return c->sfd < 0 ? -1 : 0;
}

int run_cage(const struct run_cage_opts *o, char **cmd)
{
	static struct rc c;   /* its stream buffer is large */
	json_object *reply = NULL;
	sigset_t old;
	int ret = EXIT_AGENTCAGE, started = 0;
	unsigned time_limit;
	pid_t pid;

	sigprocmask(SIG_BLOCK, NULL, &old);
	memset(&c, 0, sizeof(c));
	c.o = o;
	c.run_fd = c.ev_fd = -1;
	c.l.procs_fd = -1;
	/* a pty of its own, as for a standalone run: nothing it does with its
	 * terminal reaches the caller's (a named cage's policy, shared by its
	 * runs, does not grant its name: it is used through the descriptors) */
	if (pty_open(&c.pty, o->no_pty) || block_signals(&c, &old) ||
	    (!o->cage && ephemeral_setup(&c)))
		goto out;
	if (!(reply = ask_run(&c)) || (!o->cage && subscribe(&c)) || prepare(&c, reply, cmd))
		goto out;
	if (diag_verbose)
		diag_info("cage %s: %s, cgroup %s", c.cage, member(reply, "run"),
			  member(reply, "cgroup"));
	time_limit = c.pol.limits.time;
	if (o->timeout && (!time_limit || o->timeout < time_limit))
		time_limit = o->timeout;
	c.l.parent = getpid();
	if ((pid = start(&c.l, cmd, &old)) < 0)
		goto out;
	started = 1;
	if (pty_relay(&c.pty))   /* no relay: the command cannot go on */
		kill(-pid, SIGKILL);
	ret = wait_cmd(&c, pid, time_limit);
out:
	/* the run's end: the daemon kills what CMD left and removes the cgroup
	 * (and an ephemeral cage, after its last events) */
	if (c.run_fd >= 0)
		close(c.run_fd);
	if (started)
		last_events(&c);
	if (c.ev_fd >= 0)
		close(c.ev_fd);
	if (c.sfd >= 0)
		close(c.sfd);
	pty_end(&c.pty);
	if (c.tmpdir[0] && rm_tree(c.tmpdir))
		diag_warn("cannot remove %s", c.tmpdir);
	json_object_put(reply);
	free(c.join);
	launch_free(&c.l);
	policy_free(&c.pol);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}
