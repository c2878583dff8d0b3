// SPDX-License-Identifier: GPL-2.0
/* Verdicts and events: the decision for a caged access, and its event in
 * the ring buffer (a full ring buffer is counted, never waited for, and
 * never changes the decision). */
#ifndef AGENTCAGE_VERDICT_BPF_H
#define AGENTCAGE_VERDICT_BPF_H
#include "maps.bpf.h"

static __always_inline void stat_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v)
		__sync_fetch_and_add(v, 1);
}

/* One more event of the cage cgid this second, counted in its entry of map
 * (keyed by cgroup id, struct ac_budget values): true while the second's
 * count is under limit; over it, the event is counted (the entry's dropped
 * and stats[stat]) and not to be sent. The decision never depends on it.
 * (The second's reset may race between CPUs: a few events more or less in
 * that second, never a lost count.) */
static __always_inline bool window_take(void *map, __u64 cgid, __u32 limit, __u32 stat)
{
	__u64 now = bpf_ktime_get_boot_ns() / 1000000000ULL;
	struct ac_budget *b = bpf_map_lookup_elem(map, &cgid);
	struct ac_budget fresh = { .second = now, .count = 1 };

	if (!b) {
		bpf_map_update_elem(map, &cgid, &fresh, BPF_NOEXIST);
		return true;
	}
	if (b->second != now) {
		b->second = now;
		b->count = 0;
	}
	if (b->count >= limit) {
		__sync_fetch_and_add(&b->dropped, 1);
		stat_inc(stat);
		return false;
	}
	__sync_fetch_and_add(&b->count, 1);
	return true;
}

/* the cage's event budget: cage_events_per_sec events of any kind */
static __always_inline bool budget_take(__u64 cgid)
{
	return window_take(&budgets, cgid, cage_events_per_sec, AC_STAT_BUDGET);
}

/* A ring buffer slot for an event with its header filled in, or NULL: an
 * event over its cage's budget is counted, and so is a full ring buffer,
 * never waited for. */
static __always_inline struct ac_event *event_reserve(__u64 cgid, __u32 op, __u32 action)
{
	struct ac_event *e;

	if (!budget_take(cgid))
		return NULL;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		stat_inc(AC_STAT_LOST);
		return NULL;
	}
	e->ts_ns = bpf_ktime_get_boot_ns();
	e->cgroup = cgid;
	e->op = op;
	e->action = action;
	e->flags = 0;
	e->path_len = 0;
	return e;
}

/* Send an event about the current task; the path is s->buf[start..start+len)
 * (len < 0: unresolved), net the peer of a network event or NULL. */
static __always_inline void emit_net(struct scratch *s, __u64 cgid, __u32 op, __u32 action,
				     __u32 start, int len, const struct ac_event_net *net)
{
	struct ac_event *e = event_reserve(cgid, op, action);

	if (!e)
		return;
	e->pid = bpf_get_current_pid_tgid() >> 32;
	e->uid = (__u32)bpf_get_current_uid_gid();
	if (net) {
		/* copied by a helper: when *net is a constant, clang 14 turns a
		 * plain copy into stores that make others to *e vanish */
		bpf_probe_read_kernel(&e->net, sizeof(e->net), net);
		e->flags = AC_EV_NET;
	} else {
		__builtin_memset(&e->net, 0, sizeof(e->net));
	}
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	if (len < 0) {
		e->flags |= AC_EV_UNRESOLVED;
	} else if (s && len > 0) {
		/* a walk's path may fill the whole buffer: AC_PATH_MAX bytes (no
		 * NUL; the kernel's PATH_MAX counts one, but a name built from
		 * components, a relative open deep down, has none). 1 to
		 * AC_PATH_MAX bytes, in a form the verifier can bound. */
		__u32 n = len - 1;

		barrier_var(n);
		n = (n & (AC_PATH_MAX - 1)) + 1;
		e->path_len = n;
		barrier_var(start);
		bpf_probe_read_kernel(e->path, n, &s->buf[start & (AC_PATH_MAX - 1)]);
	}
	bpf_ringbuf_submit(e, 0);
}

/* Does a rule class grant `need` (AC_READ or AC_WRITE)? */
static __always_inline bool grants(__u32 cls, __u32 need)
{
	return cls != AC_DENY && cls >= need;
}

/* The verdict for a caged access: 0 allow, -EPERM deny (audit: report only),
 * with its event (net: the peer of a network access, or NULL). */
static __always_inline int verdict_net(struct ac_cage *c, struct scratch *s, __u64 cgid,
				       __u32 op, __u32 start, int len,
				       const struct ac_event_net *net)
{
	emit_net(s, cgid, op, c->audit ? AC_AUDITED : AC_DENIED, start, len, net);
	return c->audit ? 0 : -EPERM;
}

static __always_inline int verdict(struct ac_cage *c, struct scratch *s, __u64 cgid,
				   __u32 op, __u32 start, int len)
{
	return verdict_net(c, s, cgid, op, start, len, NULL);
}

#endif
