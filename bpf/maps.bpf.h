// SPDX-License-Identifier: GPL-2.0
/* The state every agentcage BPF object shares (the loader makes each object
 * use the same kernel maps): load-time configuration, the cages, events,
 * stats and scratch maps, the cage lookup and the scratch space. */
#ifndef AGENTCAGE_MAPS_BPF_H
#define AGENTCAGE_MAPS_BPF_H
#include "compat.bpf.h"
#include "agentcage/cage.h"
#include "agentcage/pattern.h"

/* load-time configuration, set by the loader before load */
const volatile __u64 cage_parent_cgid = 0;   /* agentcage's parent cgroup */
const volatile __u32 cage_parent_level = 0;  /* its level in the hierarchy */
/* tests only: every check uses its task's own scratch, the path taken when
 * the CPU's is in use (LOADER_TASK_SCRATCH) */
const volatile __u32 scratch_task_only = 0;
/* events a cage may send a second (loader_set_budget; the daemon's
 * --cage-events): the rest are counted in its budgets entry */
const volatile __u32 cage_events_per_sec = AC_CAGE_EVENTS_PER_SEC;

#define WALK_MAX 2048     /* components of a PATH_MAX path, at most */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);             /* cgroup id of the cage */
	__type(value, struct ac_cage);
} cages SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, AC_STAT__MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* each cage's event budget; the entry goes with the cage (loader_del_cage) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);             /* cgroup id of the cage */
	__type(value, struct ac_budget);
} budgets SEC(".maps");

/* Scratch space for one check: the path, the trie key. Each CPU has one,
 * taken for the length of a check (scratch_get/scratch_put): the programs do
 * not migrate, but a task that preempts this one, or a softirq, may run a
 * program on the same CPU meanwhile; that program finds it taken and uses
 * its task's own scratch, allocated on first use. Allocating one for every
 * caged task had cost about 15,000 instructions per fork+exec. */
/* what the patterns decided (bpf/pattern.bpf.h): kept here, not on the
 * stack, since 6.1's verifier follows a bpf_loop callback for one call
 * only and would take what it writes on the stack for known */
struct pat_result {
	__u32 weight, cls;       /* files: the deciding weight and class; exec: the class */
	__u64 mask;              /* live prefixes: bit i, the i-th matched */
	__u32 inconclusive;      /* live prefixes: one was over its budget */
	__u32 pad;
};

struct scratch {
	char buf[AC_PATH_MAX + 256];
	struct ac_key key;
	char pad[16];    /* reads of up to 255 bytes into key.path stay inside */
	__u64 fence;     /* target of the atomic that orders the directory cache's reads */
	struct ac_match m;
	struct pat_result pr;
};

struct scratch_cpu {
	__u64 busy;      /* 1 while a check uses s (64 bits: the atomics' size here) */
	struct scratch s;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch_cpu);
} scratch_pc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct scratch);
} scratch_store SEC(".maps");

/* The cage of the current task, or NULL. This is the fast path for every
 * uncaged task: one helper call and a compare. */
static __always_inline struct ac_cage *current_cage(__u64 *cgid)
{
	if (bpf_get_current_ancestor_cgroup_id(cage_parent_level) != cage_parent_cgid)
		return NULL;
	*cgid = bpf_get_current_ancestor_cgroup_id(cage_parent_level + 1);
	return bpf_map_lookup_elem(&cages, cgid);
}

/* This CPU's scratch if it is free (*pc is set then: give it back with
 * scratch_put), else the task's own; NULL when neither can be had. */
static __always_inline struct scratch *scratch_get(struct scratch_cpu **pc)
{
	__u32 zero = 0;
	struct scratch_cpu *p = bpf_map_lookup_elem(&scratch_pc, &zero);

	*pc = NULL;
	if (!scratch_task_only && p && __sync_val_compare_and_swap(&p->busy, 0, 1) == 0) {
		*pc = p;
		return &p->s;
	}
	return bpf_task_storage_get(&scratch_store, bpf_get_current_task_btf(), 0,
				    BPF_LOCAL_STORAGE_GET_F_CREATE);
}

static __always_inline void scratch_put(struct scratch_cpu *pc)
{
	if (pc)
		__sync_lock_test_and_set(&pc->busy, 0);
}

#endif
