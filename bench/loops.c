// SPDX-License-Identifier: GPL-2.0-only
/* Benchmark loops: open/close, create/unlink, fork+exec, ioctl (FIONREAD on
 * a pipe: the file_ioctl hook) and setuid to one's own uid (the capable hook,
 * CAP_SETUID, asked on every call). Prints ns per op.
 *   loops [--exec PROG] [--landlock DIR] open|create|exec|ioctl|cap N DIR
 *   loops [--exec PROG] [--landlock DIR] all N_OPEN N_CREATE N_EXEC N_SYS DIR
 *     (one line: open create exec ioctl cap; the last two run N_SYS times)
 * --landlock confines the process with Landlock first (read+write beneath
 * DIR and /usr, exec of /usr): the yardstick of issue 2's benchmark.
 * The exec loop runs PROG (default /usr/bin/true) as "true": an argument,
 * not the environment, which agentcage run does not pass into a cage.
 * Two helpers of bench/daemon-bench.sh's reload latency (times in us of
 * CLOCK_REALTIME, the clock of bash's $EPOCHREALTIME):
 *   loops rename FROM TO   prints the time just before it renames FROM over TO
 *   loops probe US         for each path read on stdin, tries to open it every
 *                          US us until it opens, then prints the time of that
 *                          success and the number of failed tries (it says
 *                          "ready" first, once its program is loaded) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/ioctl.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *exec_prog = "/usr/bin/true";

static int landlock(const char *dir)
{
	struct landlock_ruleset_attr ra = { .handled_access_fs =
		LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
		LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_REG };
	const char *paths[] = { dir, "/usr", "/lib", "/lib64", "/etc", "/dev" };
	int rs = syscall(SYS_landlock_create_ruleset, &ra, sizeof(ra), 0);

	if (rs < 0)
		return -1;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct landlock_path_beneath_attr pb = { .allowed_access = ra.handled_access_fs };

		pb.parent_fd = open(paths[i], O_PATH | O_CLOEXEC);
		if (pb.parent_fd < 0)
			continue;
		if (syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0))
			return -1;
		close(pb.parent_fd);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || syscall(SYS_landlock_restrict_self, rs, 0))
		return -1;
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ns per operation of one loop, or -1 */
static double loop(const char *op, long n, const char *dir)
{
	char path[4096];
	int pipefd[2], avail;
	uid_t uid = getuid();
	double t0;

	snprintf(path, sizeof(path), "%s/bench-file", dir);
	close(open(path, O_CREAT | O_WRONLY, 0644));
	if (pipe(pipefd)) { perror("pipe"); return -1; }
	t0 = now();
	for (long i = 0; i < n; i++) {
		if (!strcmp(op, "open")) {
			int fd = open(path, O_RDONLY);

			if (fd < 0) { perror("open"); return -1; }
			close(fd);
		} else if (!strcmp(op, "create")) {
			char p[4200];
			int fd;

			snprintf(p, sizeof(p), "%s.%ld", path, i);
			if ((fd = open(p, O_CREAT | O_WRONLY | O_EXCL, 0644)) < 0) { perror("create"); return -1; }
			close(fd);
			if (unlink(p)) { perror("unlink"); return -1; }
		} else if (!strcmp(op, "exec")) {
			pid_t pid = fork();
			int st;

			if (pid == 0) {
				execl(exec_prog, "true", (char *)NULL);
				_exit(127);
			}
			waitpid(pid, &st, 0);
			if (!WIFEXITED(st) || WEXITSTATUS(st)) { fprintf(stderr, "exec failed\n"); return -1; }
		} else if (!strcmp(op, "ioctl")) {
			if (ioctl(pipefd[0], FIONREAD, &avail)) { perror("ioctl"); return -1; }
		} else if (!strcmp(op, "cap")) {
			if (setuid(uid)) { perror("setuid"); return -1; }
		} else {
			fprintf(stderr, "loops: unknown loop %s\n", op);
			return -1;
		}
	}
	t0 = (now() - t0) / n;
	close(pipefd[0]);
	close(pipefd[1]);
	return t0;
}

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* The probe runs in a cage: stdin and stdout are pipes opened outside it. */
static int probe(long us)
{
	struct timespec gap = { us / 1000000, us % 1000000 * 1000 };
	char path[4096];

	printf("ready\n");
	fflush(stdout);
	while (fgets(path, sizeof(path), stdin)) {
		long fails = 0;
		int fd;

		path[strcspn(path, "\n")] = 0;
		while ((fd = open(path, O_RDONLY)) < 0) {
			fails++;
			nanosleep(&gap, NULL);
		}
		printf("%lld %ld\n", now_us(), fails);
		fflush(stdout);
		close(fd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int a = 1;

	if (argc == 4 && !strcmp(argv[1], "rename")) {
		long long t = now_us();

		if (rename(argv[2], argv[3])) {
			perror("rename");
			return 1;
		}
		printf("%lld\n", t);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "probe"))
		return probe(atol(argv[2]));

	if (argc > a + 1 && !strcmp(argv[a], "--exec")) {
		exec_prog = argv[a + 1];
		a += 2;
	}
	if (argc > a + 1 && !strcmp(argv[a], "--landlock")) {
		if (landlock(argv[a + 1])) {
			perror("landlock");
			return 1;
		}
		a += 2;
	}
	if (argc - a == 6 && !strcmp(argv[a], "all")) {
		const char *ops[] = { "open", "create", "exec", "ioctl", "cap" };
		const char *dir = argv[a + 5];

		for (int i = 0; i < 5; i++) {
			double r = loop(ops[i], atol(argv[a + 1 + (i < 3 ? i : 3)]), dir);

			if (r < 0)
				return 1;
			printf(i < 4 ? "%.0f " : "%.0f\n", r);
		}
		return 0;
	}
	if (argc - a != 3) {
		fprintf(stderr, "usage: loops [--exec PROG] [--landlock DIR] open|create|exec|ioctl|cap N DIR\n"
				"       loops [--exec PROG] [--landlock DIR] all N_OPEN N_CREATE N_EXEC N_SYS DIR\n");
		return 2;
	}
	double r = loop(argv[a], atol(argv[a + 1]), argv[a + 2]);

	if (r < 0)
		return 1;
	printf("%.0f\n", r);
	return 0;
}
