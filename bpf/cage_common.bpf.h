/* Shared by every agentcage BPF object: the cages, events, stats and
 * scratch maps (the loader makes each object use the same kernel maps), the
 * cage lookup, the path walk and event emission. */
#ifndef AGENTCAGE_CAGE_COMMON_BPF_H
#define AGENTCAGE_CAGE_COMMON_BPF_H
#include "vmlinux.h"
#include <linux/errno.h>   /* errno names, never hand-written numbers */
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "cage.h"

#ifndef barrier_var
#define barrier_var(var) asm volatile("" : "+r"(var))
#endif

/* load-time configuration, set by the loader before load */
const volatile __u64 cage_parent_cgid = 0;   /* agentcage's parent cgroup */
const volatile __u32 cage_parent_level = 0;  /* its level in the hierarchy */
/* tests only: every check uses its task's own scratch, the path taken when
 * the CPU's is in use (LOADER_TASK_SCRATCH) */
const volatile __u32 scratch_task_only = 0;

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

/* Scratch space for one check: the path, the trie key. Each CPU has one,
 * taken for the length of a check (scratch_get/scratch_put): the programs do
 * not migrate, but a task that preempts this one, or a softirq, may run a
 * program on the same CPU meanwhile; that program finds it taken and uses
 * its task's own scratch, allocated on first use. Allocating one for every
 * caged task had cost about 15,000 instructions per fork+exec. */
struct scratch {
	char buf[AC_PATH_MAX + 256];
	struct ac_key key;
	char pad[16];    /* reads of up to 255 bytes into key.path stay inside */
	__u64 fence;     /* target of the atomic that orders the directory cache's reads */
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

enum walk_status { WALK_OK = 0, WALK_UNRESOLVED = 1 };

struct walk_ctx {
	struct scratch *s;
	struct dentry *dentry;
	struct mount *mnt;
	struct dentry *root;        /* mnt's root dentry */
	struct mount *mparent;      /* mnt's parent mount */
	struct dentry *mountpoint;  /* where mnt is mounted in mparent */
	__u64 first_parent;  /* the parent read at the first component */
	__u32 pos;        /* start of the path built so far in s->buf */
	__u32 first_pos;  /* pos after the first component (0: none yet) */
	__u32 status;
	__u32 done;
};

static __always_inline struct mount *real_mount(struct vfsmount *v)
{
	return (struct mount *)((void *)v - bpf_core_field_offset(struct mount, mnt));
}

/* Enter mount m: its root, parent and mountpoint, neighbours in struct mount
 * on every kernel so far (one read then, three otherwise). */
static __always_inline void enter_mount(struct walk_ctx *w, struct mount *m)
{
	__u32 op = bpf_core_field_offset(struct mount, mnt_parent);
	struct {
		struct mount *parent;
		struct dentry *mountpoint;
		struct dentry *root;
	} h;

	w->mnt = m;
	if (bpf_core_field_offset(struct mount, mnt_mountpoint) == op + 8 &&
	    bpf_core_field_offset(struct mount, mnt) + bpf_core_field_offset(struct vfsmount, mnt_root) ==
	    op + 16) {
		bpf_probe_read_kernel(&h, sizeof(h), (void *)m + op);
		w->mparent = h.parent;
		w->mountpoint = h.mountpoint;
		w->root = h.root;
		return;
	}
	w->mparent = BPF_CORE_READ(m, mnt_parent);
	w->mountpoint = BPF_CORE_READ(m, mnt_mountpoint);
	w->root = BPF_CORE_READ(m, mnt.mnt_root);
}

/* d's parent and name. They are neighbours in struct dentry on every kernel
 * so far: one read then, two otherwise (the offsets are load-time constants,
 * so the verifier keeps one branch). */
static __always_inline struct dentry *parent_name(struct dentry *d, struct qstr *name)
{
	__u32 op = bpf_core_field_offset(struct dentry, d_parent);
	__u32 on = bpf_core_field_offset(struct dentry, d_name);
	struct {
		struct dentry *parent;
		struct qstr name;
	} h;

	if (on == op + sizeof(h.parent)) {
		bpf_probe_read_kernel(&h, sizeof(h), (void *)d + op);
		*name = h.name;
		return h.parent;
	}
	*name = BPF_CORE_READ(d, d_name);
	return BPF_CORE_READ(d, d_parent);
}

/* One step of the walk towards the root: one component, or one mount
 * crossing. A component costs two reads: parent and name, then the name's
 * bytes, written right to left into s->buf; a mount costs one. */
static long walk_step(__u32 i, void *data)
{
	struct walk_ctx *w = data;
	struct scratch *s = w->s;
	struct dentry *d = w->dentry, *parent;
	struct qstr name;
	__u32 len, pos;

	if (d == w->root) {
		if (w->mparent == w->mnt) {           /* the namespace's root */
			w->done = 1;
			return 1;
		}
		w->dentry = w->mountpoint;
		enter_mount(w, w->mparent);
		return 0;
	}
	parent = parent_name(d, &name);
	if (d == parent) {
		w->status = WALK_UNRESOLVED;          /* not reachable from the mount */
		w->done = 1;
		return 1;
	}
	len = name.len;
	pos = w->pos;
	if (len > 255 || pos < len + 1 || pos > AC_PATH_MAX) {
		w->status = WALK_UNRESOLVED;          /* longer than PATH_MAX */
		w->done = 1;
		return 1;
	}
	pos -= len;
	barrier_var(pos);
	barrier_var(len);
	bpf_probe_read_kernel(&s->buf[pos & (AC_PATH_MAX - 1)], len & 255, name.name);
	pos -= 1;
	barrier_var(pos);
	s->buf[pos & (AC_PATH_MAX - 1)] = '/';
	w->pos = pos;
	w->dentry = parent;
	if (!w->first_parent) {
		w->first_parent = (__u64)parent;
		w->first_pos = pos;
	}
	return 0;
}

/* The first component of a walk: its parent dentry and where "/name" starts */
struct walk_first {
	__u64 parent;
	__u32 pos;
};

/* Resolve (dentry, vfsmount) to an absolute path at s->buf[*start..AC_PATH_MAX).
 * Returns the path length, or -1 when it cannot be resolved completely.
 * first, when not NULL, gets the first component's parent and position. */
static __always_inline int resolve_first(struct scratch *s, struct dentry *dentry,
					 struct vfsmount *vmnt, __u32 *start,
					 struct walk_first *first)
{
	struct walk_ctx w = { .s = s, .dentry = dentry, .pos = AC_PATH_MAX };

	enter_mount(&w, real_mount(vmnt));
	if (first) {
		/* The first step outside bpf_loop: 6.1's verifier follows a
		 * callback for one call only, and from that it would conclude
		 * that a resolved walk never records a first component (and
		 * remove the code that uses it). */
		walk_step(0, &w);
		first->parent = w.first_parent;
		first->pos = w.first_pos;
	}
	bpf_loop(WALK_MAX + 64, walk_step, &w, 0);
	if (!w.done || w.status != WALK_OK)
		return -1;
	if (w.pos == AC_PATH_MAX) {
		w.pos = AC_PATH_MAX - 1;
		s->buf[AC_PATH_MAX - 1] = '/';
	}
	*start = w.pos;
	return AC_PATH_MAX - w.pos;
}

static __always_inline int resolve(struct scratch *s, struct dentry *dentry,
				   struct vfsmount *vmnt, __u32 *start)
{
	return resolve_first(s, dentry, vmnt, start, NULL);
}

/* Fill s->key from the resolved path: the path and a final '/', so that an
 * entry matches whole components only. */
static __always_inline void make_key(struct scratch *s, __u32 policy, __u32 start, int len)
{
	__u32 n = len, idx = len;

	if (n > 1)
		n += 1;                     /* room for the trailing '/' */
	if (n > AC_KEY_PATH)
		n = AC_KEY_PATH;
	s->key.policy = policy;
	s->key.prefixlen = 32 + n * 8;
	barrier_var(start);
	barrier_var(n);
	bpf_probe_read_kernel(s->key.path, n & 255, &s->buf[start & (AC_PATH_MAX - 1)]);
	if (len > 1 && len < AC_KEY_PATH) {
		barrier_var(idx);
		s->key.path[idx & 255] = '/';
	}
}

static __always_inline void stat_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v)
		__sync_fetch_and_add(v, 1);
}

/* A ring buffer slot for an event with its header filled in, or NULL: a
 * full ring buffer is counted, never waited for. */
static __always_inline struct ac_event *event_reserve(__u64 cgid, __u32 op, __u32 action)
{
	struct ac_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

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
	} else if (s) {
		__u32 n = len;

		e->path_len = len;
		barrier_var(n);
		barrier_var(start);
		bpf_probe_read_kernel(e->path, n & (AC_PATH_MAX - 1),
				      &s->buf[start & (AC_PATH_MAX - 1)]);
		if (len == AC_PATH_MAX)
			e->path_len = AC_PATH_MAX - 1;
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
