// SPDX-License-Identifier: GPL-2.0-only
/* The policy's limits through cgroup v2 controllers, and the events that
 * tell when one was hit. */
#ifndef AGENTCAGE_HARDEN_LIMITS_H
#define AGENTCAGE_HARDEN_LIMITS_H
#include <stddef.h>
#include <stdint.h>
#include "harden/harden.h"
#include "policy/policy.h"

#define AC_CPU_PERIOD 100000 /* cpu.max period, microseconds */

/* cpu.max for cpu_milli thousandths of a CPU: "50000 100000" for 500. */
int ac_limits_cpu_max(unsigned cpu_milli, char *buf, size_t len);

/* Can the controllers l needs be had for parent (offered to parent, or to
 * the cgroup above it)? 0, or AC_E_LIMITS_UNAVAILABLE with the cause and
 * the fix. Writes nothing. */
int ac_limits_check(const char *parent, const struct policy_limits *l, struct ac_error *e);

/* Enable the controllers l needs in parent's cgroup.subtree_control (and,
 * where the cgroup above parent does not pass one on yet, there), then
 * write memory.max + memory.swap.max 0, cpu.max and pids.max in cage (a
 * child of parent). A controller missing from parent's cgroup.controllers
 * (a hybrid host keeps it on cgroup v1) is AC_E_LIMITS_UNAVAILABLE, with
 * the cause and the fix; nothing is written then. */
int ac_limits_apply(const char *parent, const char *cage, const struct policy_limits *l,
		    struct ac_error *e);

struct ac_limit_events {
	unsigned long long oom_kill; /* memory.events oom_kill */
	unsigned long long pids_max; /* pids.events max: forks refused */
	unsigned long long throttled;/* cpu.stat nr_throttled: periods the cage ran out of cpu.max */
};

/* The value of "key N" in a flat-keyed cgroup file's text; -1 if absent. */
int ac_limits_event(const char *text, const char *key, unsigned long long *out);
/* Read cage's memory.events, pids.events and cpu.stat (a missing file counts 0);
 * *delta = now - *last, then *last = now. */
int ac_limits_read_events(const char *cage, struct ac_limit_events *last,
			  struct ac_limit_events *delta, struct ac_error *e);

struct ac_event;
/* ev: a limit of cage cgid hit (op limit, denied, no task: pid 0), made in
 * userspace as the kernel's events are; what: memory, pids, cpu or time;
 * count: how many since the last one (capped at 2^32-1), in arg. */
void ac_limits_make_event(struct ac_event *ev, uint64_t cgid, uint32_t uid, const char *what,
		     unsigned long long count);

/* In the child (async-signal-safe): move itself into the cage through
 * procs_fd, the cage's cgroup.procs opened O_WRONLY before fork. */
int ac_limits_join(int procs_fd, struct ac_child_fail *f);
#endif
