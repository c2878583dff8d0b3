// SPDX-License-Identifier: GPL-2.0-only
/* Run a function in a forked child and return its exit status (or 128 +
 * the signal): the tests of lib/harden change the process irreversibly. */
#ifndef AGENTCAGE_TEST_CHILD_H
#define AGENTCAGE_TEST_CHILD_H
#include <sys/wait.h>
#include <unistd.h>

static inline int in_child(int (*fn)(void *), void *arg)
{
	int st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn(arg));
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* the value of "Key:" in /proc/self/status, into out */
static inline int status_field(const char *key, char *out, size_t len)
{
	char line[512];
	size_t kl = strlen(key);
	FILE *f = fopen("/proc/self/status", "r");
	int found = -1;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ':') {
			snprintf(out, len, "%s", line + kl + 1 + strspn(line + kl + 1, " \t"));
			out[strcspn(out, "\n")] = 0;
			found = 0;
		}
	if (f)
		fclose(f);
	return found;
}
#endif
