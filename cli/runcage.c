// SPDX-License-Identifier: GPL-2.0-only
/* agentcage run --cage NAME -- CMD: CMD in a named cage of the daemon.
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
 * move it: the caller needs no privilege beyond the daemon's socket. CMD
 * keeps the caller's standard streams; events go to the daemon's sinks
 * (agentcage events --cage NAME). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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
#include "proto/proto.h"
#include "runcage.h"

#define EXIT_TIMEOUT 124

static const char *member(json_object *o, const char *key)
{
	json_object *m;

	return json_object_object_get_ex(o, key, &m) && json_object_is_type(m, json_type_string) ?
	       json_object_get_string(m) : NULL;
}

/* the run's connection: asked and answered; its reply, or NULL (reported) */
static json_object *ask_run(const struct run_cage_opts *o, int *fd)
{
	json_object *rq = json_object_new_object(), *r, *ok, *err;

	json_object_object_add(rq, "v", json_object_new_int(PROTO_VERSION));
	json_object_object_add(rq, "method", json_object_new_string("run"));
	json_object_object_add(rq, "cage", json_object_new_string(o->cage));
	if ((*fd = client_connect(o->socket)) < 0) {
		json_object_put(rq);
		return NULL;
	}
	if (!(r = client_exchange(*fd, o->socket, rq)))
		return NULL;
	if (json_object_object_get_ex(r, "ok", &ok) && json_object_get_boolean(ok))
		return r;
	json_object_object_get_ex(r, "error", &err);
	diag_error_code(member(err, "code") ? member(err, "code") : AC_E_PROTOCOL,
			"the daemon refused the run in cage %s: %s", o->cage,
			member(err, "message") ? member(err, "message") : "(no message)");
	json_object_put(r);
	return NULL;
}

/* the launch of the cage's policy, and the join request CMD's process sends */
static int prepare(const struct run_cage_opts *o, json_object *reply, struct launch *l,
		   struct policy *pol, char **cmd, char **join)
{
	json_object *launch, *rq = json_object_new_object();
	struct ac_error e = { 0 };
	const char *run = member(reply, "run"), *token = member(reply, "token");
	size_t n;

	json_object_object_get_ex(reply, "launch", &launch);
	if (!run || !token || proto_launch_parse(launch, pol, &e)) {
		json_object_put(rq);
		if (!e.code)
			ac_error_set(&e, AC_E_PROTOCOL, "the daemon's run reply has no run or token");
		return diag_err(&e), -1;
	}
	/* ${CAGE_TMP} means nothing in a daemon's cage: TMPDIR is /tmp */
	if (launch_prepare(l, pol, "/tmp", cmd, &e)) {
		json_object_put(rq);
		return diag_err(&e), -1;
	}
	json_object_object_add(rq, "v", json_object_new_int(PROTO_VERSION));
	json_object_object_add(rq, "method", json_object_new_string("join"));
	json_object_object_add(rq, "run", json_object_new_string(run));
	json_object_object_add(rq, "token", json_object_new_string(token));
	if (!(*join = proto_line(rq, &n)) || strlen(o->socket) >= sizeof(l->join_sa.sun_path)) {
		diag_error_code(AC_E_NOMEM, "cannot prepare the join request");
		return -1;
	}
	l->join_line = *join;
	l->join_len = n;
	l->join_sa.sun_family = AF_UNIX;
	memcpy(l->join_sa.sun_path, o->socket, strlen(o->socket) + 1);
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* CMD started; its status once it is done. Signals go to its process
 * group; at the time limit the run's connection is shut, so the daemon
 * kills everything in the run. */
static int wait_cmd(pid_t pid, int sfd, int run_fd, unsigned time_limit)
{
	int ep = epoll_create1(EPOLL_CLOEXEC), status, timed_out = 0;
	struct epoll_event ev = { .events = EPOLLIN }, out[2];
	int64_t deadline = time_limit ? now_ms() + (int64_t)time_limit * 1000 : INT64_MAX;

	ev.data.fd = sfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);
	ev.data.fd = run_fd;
	epoll_ctl(ep, EPOLL_CTL_ADD, run_fd, &ev);
	for (;;) {
		int64_t left = deadline - now_ms();
		int n = epoll_wait(ep, out, 2, timed_out || left > 60000 ? 60000 : left < 0 ? 0 :
				   (int)left);
		struct signalfd_siginfo si;
		char c;

		if (!timed_out && now_ms() >= deadline) {
			timed_out = 1;
			diag_warn("the time limit of %u s ran out; the daemon kills everything in "
				  "the run", time_limit);
			shutdown(run_fd, SHUT_WR);
			kill(-pid, SIGKILL);
		}
		for (int i = 0; i < n; i++) {
			if (out[i].data.fd == run_fd) {
				/* the daemon went away: the cage stays enforced (its
				 * pins), CMD goes on; nothing more to hear there */
				if (recv(run_fd, &c, 1, MSG_DONTWAIT) <= 0) {
					if (!timed_out)
						diag_warn("the daemon closed the run's connection; "
							  "the cage stays enforced, the command goes on");
					epoll_ctl(ep, EPOLL_CTL_DEL, run_fd, NULL);
				}
				continue;
			}
			while (read(sfd, &si, sizeof(si)) == sizeof(si))
				if (si.ssi_signo != SIGCHLD)
					kill(-pid, (int)si.ssi_signo);
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

int run_cage(const struct run_cage_opts *o, char **cmd)
{
	struct launch l = { .procs_fd = -1 };
	struct policy pol;
	json_object *reply;
	char *join = NULL;
	sigset_t mask, old;
	int run_fd = -1, sfd = -1, ret = EXIT_AGENTCAGE;
	unsigned time_limit;
	pid_t pid;

	memset(&pol, 0, sizeof(pol));
	sigemptyset(&mask);
	/* forwarded to CMD: an inherited SIG_IGN would discard them */
	for (int s = 0, sigs[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT }; s < 5; s++) {
		if (sigs[s] != SIGCHLD)
			signal(sigs[s], SIG_DFL);
		sigaddset(&mask, sigs[s]);
	}
	sigprocmask(SIG_BLOCK, &mask, &old);
	if (!(reply = ask_run(o, &run_fd)))
		goto out;
	if (prepare(o, reply, &l, &pol, cmd, &join))
		goto out;
	if (diag_verbose)
		diag_info("cage %s: %s, cgroup %s", o->cage, member(reply, "run"),
			  member(reply, "cgroup"));
	time_limit = pol.limits.time;
	if (o->timeout && (!time_limit || o->timeout < time_limit))
		time_limit = o->timeout;
	if ((sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
		diag_error("cannot set up signals: %s", strerror(errno));
		goto out;
	}
	l.parent = getpid();
	if ((pid = start(&l, cmd, &old)) < 0)
		goto out;
	ret = wait_cmd(pid, sfd, run_fd, time_limit);
out:
	/* the run's end: the daemon kills what CMD left and removes the cgroup */
	if (run_fd >= 0)
		close(run_fd);
	if (sfd >= 0)
		close(sfd);
	json_object_put(reply);
	free(join);
	launch_free(&l);
	policy_free(&pol);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}
