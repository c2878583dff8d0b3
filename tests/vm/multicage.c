// SPDX-License-Identifier: GPL-2.0-only
/* agentcage-multicage (VM tests): one load of agentcage's programs serving
 * many cages at once, each with a policy of its own in the shared maps.
 *
 *   multicage [--task-scratch] N DIR
 *
 * --task-scratch loads the programs so that every check uses its task's own
 * scratch space, the path a check takes when its CPU's is in use.
 *
 * Makes N cages (cgroups mc<i>-PID), cage i with policy "read DIR/<i>" (and
 * what cat needs to run); odd cages are in audit mode. With every cage in
 * place, it starts in each cage at once `cat DIR/<i>/f` (its own file) and
 * then `cat DIR/<i+1 mod N>/f` (its neighbour's), and checks:
 * - every own read succeeds and gives no event;
 * - every neighbour read is refused in an enforcing cage and allowed in an
 *   audit cage, with exactly one event each, carrying that cage's cgroup,
 *   the neighbour's path, op open_read and the cage's action;
 * - a process outside every cage reads all N files meanwhile.
 * Prints one line per failed check and a closing "N passed, N failed" line;
 * exits 0 when all passed. DIR/<i>/f must exist. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cage/cage.h"
#include "kernel/loader.h"
#include "policy/compile.h"

#define CAGES_MAX 512

struct mc {
	struct cage c;
	int audit;
	unsigned events, bad_events;
};

static struct mc cages[CAGES_MAX];
static int ncages;
static const char *dir;
static struct loader ld;
static int passed, failed;
static int devnull;

/* One check: `what` of cage i (i < 0: of the run) is got, and must be want */
static void expect(int i, const char *what, long long got, long long want)
{
	if (got == want) {
		passed++;
		return;
	}
	failed++;
	if (i >= 0)
		printf("FAIL - cage %d: %s: %lld, want %lld\n", i, what, got, want);
	else
		printf("FAIL - %s: %lld, want %lld\n", what, got, want);
}

static int on_event(void *ctx, void *data, size_t len)
{
	const struct ac_event *e = data;
	char want[4200];

	(void)ctx;
	if (len < sizeof(*e) - sizeof(e->path))
		return 0;
	for (int i = 0; i < ncages; i++) {
		if (cages[i].c.cg.id != e->cgroup)
			continue;
		snprintf(want, sizeof(want), "%s/%d/f", dir, (i + 1) % ncages);
		cages[i].events++;
		if (e->op != AC_OP_OPEN_READ || e->path_len != strlen(want) ||
		    memcmp(e->path, want, e->path_len) ||
		    e->action != (cages[i].audit ? AC_AUDITED : AC_DENIED))
			cages[i].bad_events++;
		return 0;
	}
	failed++;
	printf("FAIL - an event of cgroup %llu, which is no cage of this run\n",
	       (unsigned long long)e->cgroup);
	return 0;
}

static void die(const char *what, const char *err)
{
	printf("FAIL - %s: %s\n", what, err);
	exit(1);
}

/* Cage i: its cgroup with the packet programs, and its own policy. */
static void setup(int i)
{
	struct rule_vars vars = { .cwd = dir, .cage_tmp = dir };
	struct compiled_policy cp;
	struct ac_error e;
	char text[1024], name[32];

	snprintf(name, sizeof(name), "mc%d", i);
	snprintf(text, sizeof(text),
		 "name: %s\nmode: %s\nfiles:\n  read: [/usr, /lib, /lib64, /etc/ld.so.cache, %s/%d]\n"
		 "exec:\n  allow: [/usr/bin, /usr/lib, /bin]\n",
		 name, cages[i].audit ? "audit" : "enforce", dir, i);
	struct policy_source src = { .text = text, .len = strlen(text), .name = name,
				     .mode = MODE_UNSET, .vars = &vars, .resolve_links = 1 };

	if (policy_compile(&src, &cp, &e))
		die("policy", e.msg);
	if (cage_create(&cages[i].c, &ld, name, &e))
		die("cage", e.msg);
	if (cage_install(&cages[i].c, &cp, &e))
		die("install", e.msg);
}

/* Start `cat path` in cage i (or, i < 0, uncaged); its pid */
static pid_t start_cat(int i, const char *path)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		die("pipe", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork", strerror(errno));
	if (pid == 0) {
		close(p[1]);
		/* /dev/null was opened outside the cage, which grants none */
		if (dup2(devnull, 1) < 0 || dup2(devnull, 2) < 0 || read(p[0], &c, 1) != 1)
			_exit(125);
		execl("/bin/cat", "cat", path, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	if (i >= 0 && cgroup_move(&cages[i].c.cg, pid))
		die("cgroup_move", strerror(errno));
	if (write(p[1], "g", 1) != 1)
		die("start", strerror(errno));
	close(p[1]);
	return pid;
}

static int status_of(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	loader_poll(&ld);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	static pid_t pids[CAGES_MAX], free_pids[CAGES_MAX];
	char path[4096];
	struct ac_error e;
	int flags = 0;

	if (argc > 1 && !strcmp(argv[1], "--task-scratch")) {
		flags = LOADER_TASK_SCRATCH;
		argc--;
		argv++;
	}
	if (argc != 3 || (ncages = atoi(argv[1])) < 2 || ncages > CAGES_MAX) {
		fprintf(stderr, "usage: multicage [--task-scratch] N DIR (2 <= N <= %d)\n", CAGES_MAX);
		return 2;
	}
	dir = argv[2];
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (devnull < 0)
		die("/dev/null", strerror(errno));
	signal(SIGPIPE, SIG_IGN);   /* a child that died early is a failed check, not our end */
	/* one load for all the cages */
	if (cage_loader_open(&ld, flags, on_event, NULL, &e))
		die("load", e.msg);
	for (int i = 0; i < ncages; i++) {
		cages[i].audit = i % 2;
		setup(i);
	}

	/* every cage reads its own file, all at once; an uncaged reader too */
	for (int i = 0; i < ncages; i++) {
		snprintf(path, sizeof(path), "%s/%d/f", dir, i);
		pids[i] = start_cat(i, path);
		free_pids[i] = start_cat(-1, path);
	}
	for (int i = 0; i < ncages; i++) {
		expect(i, "exit status of reading its own file", status_of(pids[i]), 0);
		expect(i, "exit status of an uncaged reader of its file", status_of(free_pids[i]), 0);
	}
	loader_poll(&ld);
	for (int i = 0; i < ncages; i++)
		expect(i, "events of reading its own file", cages[i].events, 0);

	/* every cage reads its neighbour's file, all at once */
	for (int i = 0; i < ncages; i++) {
		snprintf(path, sizeof(path), "%s/%d/f", dir, (i + 1) % ncages);
		pids[i] = start_cat(i, path);
	}
	for (int i = 0; i < ncages; i++)
		expect(i, cages[i].audit ? "exit status of reading its neighbour's file (audit mode)" :
		       "exit status of reading its neighbour's file (denied)",
		       status_of(pids[i]), cages[i].audit ? 0 : 1);
	loader_poll(&ld);
	for (int i = 0; i < ncages; i++) {
		expect(i, "events of reading its neighbour's file", cages[i].events, 1);
		expect(i, "events with the wrong op, path or action", cages[i].bad_events, 0);
	}
	expect(-1, "events lost", (long long)loader_stat(&ld, AC_STAT_LOST), 0);

	for (int i = 0; i < ncages; i++)
		cage_teardown(&cages[i].c);
	loader_close(&ld);
	printf("multicage: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
