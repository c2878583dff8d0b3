// SPDX-License-Identifier: GPL-2.0
/* The path walk: (dentry, vfsmount) to an absolute path, component by
 * component towards the root of the task's mount namespace, and the trie
 * key made from it. A path is named in the task's own mount namespace only:
 * a walk that ends at any other mount root (a detached mount from
 * open_tree(OPEN_TREE_CLONE) or fsmount, a mount of another namespace
 * reached through /proc/PID/root or an fd, a lazily unmounted tree) is
 * unresolved. A chroot changes nothing: names start at the namespace's root. */
#ifndef AGENTCAGE_WALK_BPF_H
#define AGENTCAGE_WALK_BPF_H
#include "maps.bpf.h"

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
		if (w->mparent == w->mnt) {   /* a root: resolve_first checks which */
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

/* The root mount of the current task's mount namespace (read once per walk,
 * at its end; a task without namespaces, exiting, gets NULL: unresolved) */
static __always_inline struct mount *task_ns_root(void)
{
	struct task_struct *t = bpf_get_current_task_btf();

	return t->nsproxy->mnt_ns->root;
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
	if (!w.done || w.status != WALK_OK || w.mnt != task_ns_root())
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
	__u32 n = ac_key_len(len), idx = len;

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

#endif
