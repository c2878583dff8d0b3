// SPDX-License-Identifier: GPL-2.0-only
/* The limits of runs in the daemon's cages (runs.c applies them to each
 * run's cgroup): memory.events oom_kill and pids.events max, watched with
 * inotify (the kernel signals a change of those files as IN_MODIFY), and
 * cpu.stat nr_throttled, polled every 5 s (it has no notification). Each
 * change is an op=limit event of the run's cage (path memory, pids or cpu,
 * arg the count since the last one), made as a standalone run makes it and
 * handed to the daemon's sinks like the kernel's events. */
#define _GNU_SOURCE
#include <limits.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>
#include "daemon.h"
#include "harden/limits.h"

#define CPU_POLL_MS 5000

static uint64_t now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

void runlimits_event(struct daemon *d, const struct drun *r, const char *what,
		     unsigned long long count)
{
	struct ac_event ev;

	ac_limits_make_event(&ev, r->cage_cgid, r->uid, what, count);
	daemon_on_event(d, &ev, sizeof(ev));
}

int runlimits_open(struct daemon *d)
{
	d->limfd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	return d->limfd < 0 ? -1 : 0;
}

void runlimits_watch(struct daemon *d, struct drun *r)
{
	static const char *const files[] = { "memory.events", "pids.events" };
	struct ac_limit_events delta;
	char path[PATH_MAX + 32];

	r->limits = 1;
	ac_limits_read_events(r->cg.path, &r->lev, &delta, NULL);   /* the baseline */
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", r->cg.path, files[i]);
		r->wd[i] = d->limfd >= 0 ? inotify_add_watch(d->limfd, path, IN_MODIFY) : -1;
	}
}

void runlimits_check(struct daemon *d, struct drun *r)
{
	struct ac_limit_events delta;

	if (!r->limits)
		return;
	ac_limits_read_events(r->cg.path, &r->lev, &delta, NULL);
	if (delta.oom_kill)
		runlimits_event(d, r, "memory", delta.oom_kill);
	if (delta.pids_max)
		runlimits_event(d, r, "pids", delta.pids_max);
	if (delta.throttled)
		runlimits_event(d, r, "cpu", delta.throttled);
}

void runlimits_ready(struct daemon *d)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	while ((n = read(d->limfd, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			for (size_t i = 0; i < DAEMON_MAX_RUNS; i++) {
				struct drun *r = d->runs[i];

				if (r && r->limits && (r->wd[0] == ev->wd || r->wd[1] == ev->wd))
					runlimits_check(d, r);
			}
			p += sizeof(*ev) + ev->len;
		}
}

void runlimits_poll(struct daemon *d)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);

	if (now < d->limits_next)
		return;
	d->limits_next = now + (uint64_t)CPU_POLL_MS * 1000000;
	for (size_t i = 0; i < DAEMON_MAX_RUNS; i++)
		if (d->runs[i])
			runlimits_check(d, d->runs[i]);
}

void runlimits_forget(struct daemon *d, struct drun *r)
{
	for (int i = 0; r->limits && i < 2; i++)
		if (r->wd[i] >= 0)
			inotify_rm_watch(d->limfd, r->wd[i]);
	r->limits = 0;
}
