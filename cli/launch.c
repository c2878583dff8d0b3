// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "harden/fds.h"
#include "harden/limits.h"
#include "harden/ns.h"
#include "diag.h"
#include "launch.h"

extern char **environ;

static const char *env_value(char *const *env, const char *name)
{
	size_t len = strlen(name);

	for (; env && *env; env++)
		if (!strncmp(*env, name, len) && (*env)[len] == '=')
			return *env + len + 1;
	return NULL;
}

/* execvp's search, done before fork with the agent's PATH (the child must
 * not allocate); an empty PATH element is the current directory */
static int candidates(struct launch *l, char **cmd, struct ac_error *e)
{
	const char *path = env_value(l->env.envp, "PATH");
	size_t n = 1, i = 0;

	if (!path || strchr(cmd[0], '/'))
		path = "";
	for (const char *p = path; *p; p++)
		n += *p == ':';
	if (!(l->cands = calloc(n + 2, sizeof(char *))))
		return ac_error_set(e, AC_E_NOMEM, "out of memory");
	if (strchr(cmd[0], '/') || !*cmd[0]) {
		l->cands[i++] = strdup(cmd[0]);
	} else {
		for (const char *p = path;; p++) {
			const char *end = strchrnul(p, ':');
			int len = (int)(end - p);

			if (asprintf(&l->cands[i], "%.*s%s%s", len, p, len ? "/" : "", cmd[0]) < 0)
				l->cands[i] = NULL;
			if (!l->cands[i++] || !*end)
				break;
			p = end;
		}
	}
	for (size_t j = 0; j < i; j++)
		if (!l->cands[j])
			return ac_error_set(e, AC_E_NOMEM, "out of memory");
	l->cmd = cmd;
	return 0;
}

int launch_prepare(struct launch *l, const struct policy *p, const char *cage_tmp, char **cmd,
		   struct ac_error *e)
{
	memset(l, 0, sizeof(*l));
	l->procs_fd = -1;
	l->parent = getpid();
	l->isolate = p->isolate;
	l->unprivileged = geteuid() != 0;
	if (l->unprivileged && p->isolate)
		return ac_error_set(e, AC_E_PERMISSION, "the policy's isolate needs a root caller "
				    "(new namespaces need CAP_SYS_ADMIN); run agentcage as root, or "
				    "drop isolate from the policy");
	if (ac_identity_resolve(p->user, getuid(), getgid(), &l->id, e))
		return -1;
	/* only a policy that names root gets a privileged agent */
	l->privileged = p->user[0] && l->id.uid == 0;
	if (ac_env_build(p, &l->id, cage_tmp, environ, &l->env, e))
		return -1;
	if ((l->privileged ? ac_seccomp_build_deny(p, &l->sc, e) : ac_seccomp_build(p, &l->sc, e)))
		return -1;
	return candidates(l, cmd, e);
}

int launch_landlock(struct launch *l, const struct ac_landlock *ll, const struct policy *p,
		    struct ac_error *e)
{
	struct ac_seccomp sc;

	if (l->privileged || l->unprivileged)
		return ac_error_set(e, AC_E_ENFORCER_WEAKER, "the Landlock enforcer needs a root "
				    "caller and an agent that is not root");
	if (ac_seccomp_build_landlock(p, &sc, e))
		return -1;
	ac_seccomp_free(&l->sc);
	l->sc = sc;
	l->ll = ll;
	return 0;
}

int launch_cage(struct launch *l, const char *cage_tmp, const char *cgroup, struct ac_error *e)
{
	char path[PATH_MAX + 16];

	if (chown(cage_tmp, l->id.uid, l->id.gid))
		return ac_error_set(e, AC_E_SYSTEM, "cannot give %s to %u:%u: %s", cage_tmp,
				    (unsigned)l->id.uid, (unsigned)l->id.gid, strerror(errno));
	if (l->pty && pty_give(l->pty, l->id.uid, e))
		return -1;
	snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
	if ((l->procs_fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return ac_error_set(e, AC_E_CGROUP, "cannot open %s: %s", path, strerror(errno));
	return 0;
}

/* run --cage (async-signal-safe): ask the daemon to move this process into
 * the run's cgroup, over a connection of its own (the daemon moves the
 * peer, SO_PEERCRED, and nothing else); wait for its yes. */
static int join_daemon(const struct launch *l, struct ac_child_fail *f)
{
	static const char yes[] = "{\"v\":1,\"ok\":true";
	char buf[4096];
	size_t got = 0;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ssize_t n;

	if (fd < 0 || connect(fd, (const struct sockaddr *)&l->join_sa, sizeof(l->join_sa)) ||
	    write(fd, l->join_line, l->join_len) != (ssize_t)l->join_len)
		return ac_child_fail_set(f, "join the run's cgroup (daemon)", errno);
	while (got < sizeof(buf) - 1 && (n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0) {
		got += (size_t)n;
		if (memchr(buf, '\n', got))
			break;
	}
	close(fd);
	if (got < sizeof(yes) - 1 || memcmp(buf, yes, sizeof(yes) - 1))
		return ac_child_fail_set(f, "join the run's cgroup (the daemon refused)", EPERM);
	return 0;
}

static void fail_exit(int err_fd, const struct ac_child_fail *f, int status)
{
	if (write(err_fd, f, sizeof(*f)) < 0)
		_exit(EXIT_AGENTCAGE);
	_exit(status);
}

/* execvp's rules over the prepared candidates: go on past ENOENT, ENOTDIR
 * and EACCES (reported if nothing else is found), stop at anything else */
static void exec_cmd(const struct launch *l, int err_fd)
{
	struct ac_child_fail f;
	int err = ENOENT, denied = 0;

	for (char **c = l->cands; *c; c++) {
		execve(*c, l->cmd, l->env.envp);
		err = errno;
		if (err == EACCES || err == EPERM)
			denied = err;
		else if (err != ENOENT && err != ENOTDIR)
			break;
	}
	if ((err == ENOENT || err == ENOTDIR) && denied)
		err = denied;
	ac_child_fail_set(&f, "exec", err);
	fail_exit(err_fd, &f, err == ENOENT || err == ENOTDIR ? 127 : 126);
}

void launch_child(const struct launch *l, int err_fd, const sigset_t *old)
{
	struct ac_child_fail f = { "", 0 };
	unsigned iso = l->isolate | (l->ll ? POLICY_ISO_MOUNT : 0);
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != l->parent)
		_exit(EXIT_AGENTCAGE);     /* agentcage died: never run unconfined */
	sigprocmask(SIG_SETMASK, old, NULL);
	/* a session and process group of its own, away from agentcage's (its
	 * controlling terminal is its own pty, or none), and the OOM killer's
	 * ordinary view of it (agentcage's is -1000) */
	if (setsid() < 0)
		fail_exit(err_fd, (ac_child_fail_set(&f, "setsid", errno), &f), EXIT_AGENTCAGE);
	if (l->pty && pty_child(l->pty, &f))
		fail_exit(err_fd, &f, EXIT_AGENTCAGE);
	/* (a caller other than root has its own score already, and cannot
	 * lower it) */
	fd = l->unprivileged ? -2 : open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd == -1 || (fd >= 0 && write(fd, "0", 1) != 1))
		fail_exit(err_fd, (ac_child_fail_set(&f, "oom_score_adj", errno), &f),
			  EXIT_AGENTCAGE);
	if (fd >= 0)
		close(fd);
	/* harden.h's order: namespaces while CAP_SYS_ADMIN still works, then
	 * the cage, the keyring from inside it, and the drop. A caller other
	 * than root cannot make namespaces: no IPC namespace of its own then
	 * (the kernel baseline keeps the host's IPC objects and keys out of
	 * the cage's reach all the same), and no isolate (refused above). */
	/* Under Landlock the agent always has a mount namespace of its own
	 * (its read-only, noexec view of the policy), and enters its domain
	 * before the descriptors (the ruleset's among them) are closed. */
	if ((!l->unprivileged && ac_ns_enter(iso, &f)) ||
	    (l->ll && ac_landlock_mounts(l->ll, &f)) || ac_ns_pid_fork(iso, l->ll ? err_fd : -1, &f) ||
	    (l->procs_fd >= 0 ? ac_limits_join(l->procs_fd, &f) : join_daemon(l, &f)) ||
	    ac_ns_keyring(&f) || (l->ll && ac_landlock_restrict(l->ll, &f)) ||
	    ac_fds_close(err_fd, &f) ||
	    (l->privileged ? ac_identity_keep_root(&f) : ac_identity_drop(&l->id, &f)) ||
	    ac_seccomp_load(&l->sc, &f))
		fail_exit(err_fd, &f, EXIT_AGENTCAGE);
	exec_cmd(l, err_fd);
	_exit(EXIT_AGENTCAGE);
}

void launch_free(struct launch *l)
{
	ac_env_free(&l->env);
	ac_seccomp_free(&l->sc);
	for (size_t i = 0; l->cands && l->cands[i]; i++)
		free(l->cands[i]);
	free(l->cands);
	l->cands = NULL;
	if (l->procs_fd >= 0)
		close(l->procs_fd);
	l->procs_fd = -1;
}
