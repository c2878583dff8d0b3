// SPDX-License-Identifier: GPL-2.0
/* The directory cache: a directory's inode remembers the class that every
 * name in it gets (when no rule lies below the directory, see AC_DEEPER),
 * so that the next create, unlink or open there needs no path walk.
 *
 * An entry holds while nothing can have changed the directory's path:
 * - the kernel's own seqlocks for that, rename_lock (every d_move and
 *   d_exchange) and mount_lock (every change of the mount tree), have the
 *   values read before the walk that filled the entry, and were even then
 *   and after it (the test the kernel's d_path makes);
 * - the entry lives in inode storage, freed with the inode: a new inode at
 *   the same address starts empty; it also names the dentry and mount;
 * - only filesystems whose directories move by rename alone: not network
 *   or FUSE filesystems, whose server can move a directory the dcache had
 *   forgotten, nor kernfs, proc or overlayfs;
 * - the generation is the cage's current one (ac_cage.gen: every switch of
 *   policy makes a new one, while a policy id may come back);
 * - the task is in the mount namespace of the task whose walk filled it
 *   (that walk ended at its root; a task of another namespace reaching the
 *   same mount, through /proc/PID/root say, would get an unresolved walk).
 * Without the two kernel symbols (kallsyms) nothing is cached. */
#ifndef AGENTCAGE_DIRCACHE_BPF_H
#define AGENTCAGE_DIRCACHE_BPF_H
#include "cage_common.bpf.h"

#define TMPFS_MAGIC_ 0x01021994
#define EXT4_SUPER_MAGIC_ 0xEF53
#define XFS_SUPER_MAGIC_ 0x58465342
#define BTRFS_SUPER_MAGIC_ 0x9123683E

struct ac_dir_entry {
	struct bpf_spin_lock lock;
	__u32 gen;
	__u32 cls;
	__u32 rseq, mseq;
	__u64 dentry, mnt;
	__u64 ns;        /* the filling task's struct mnt_namespace * */
};

struct {
	__uint(type, BPF_MAP_TYPE_INODE_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ac_dir_entry);
} dir_cache SEC(".maps");

extern const void rename_lock __ksym __weak;
extern const void mount_lock __ksym __weak;

/* Both sequence counts; false when a change is under way or they are unknown */
static __always_inline bool read_seqs(__u32 *rs, __u32 *ms)
{
	if (!&rename_lock || !&mount_lock)
		return false;
	*rs = BPF_CORE_READ((seqlock_t *)&rename_lock, seqcount.seqcount.sequence);
	*ms = BPF_CORE_READ((seqlock_t *)&mount_lock, seqcount.seqcount.sequence);
	return !((*rs | *ms) & 1);
}

/* A full memory barrier: BPF's fetching atomics are fully ordered. It keeps
 * the walk's reads between the two reads of the sequence counts. */
static __always_inline void fence(struct scratch *s)
{
	__u64 v = __sync_fetch_and_add(&s->fence, 1);

	barrier_var(v);
}

static __always_inline bool dir_cacheable(struct dentry *dir)
{
	unsigned long magic = dir->d_sb->s_magic;

	return magic == TMPFS_MAGIC_ || magic == EXT4_SUPER_MAGIC_ ||
	       magic == XFS_SUPER_MAGIC_ || magic == BTRFS_SUPER_MAGIC_;
}

static __always_inline __u64 task_mnt_ns(void)
{
	struct task_struct *t = bpf_get_current_task_btf();

	return (__u64)t->nsproxy->mnt_ns;
}

/* The sequence counts read before a lookup; ok: the walk after a miss may
 * fill the cache */
struct dir_seqs {
	__u32 rs, ms;
	bool ok;
};

/* Does the cache of dentry's directory grant `need` in generation gen? A
 * miss, or a class that does not grant it, leaves the decision (and its
 * event, with the path) to the walk; q keeps the counts for dir_fill. */
static __always_inline bool dir_cached(__u32 gen, struct dentry *dentry, struct vfsmount *mnt,
				       __u32 need, struct dir_seqs *q)
{
	struct ac_dir_entry *e;
	struct dentry *dir;
	__u64 ns;
	__u32 cls;
	bool hit;

	/* generation 0: written by a daemon of a build that knew none (the
	 * pad of its struct ac_cage), which may reuse it: nothing is cached */
	q->ok = gen && read_seqs(&q->rs, &q->ms);
	if (!q->ok || dentry == mnt->mnt_root)
		return false;
	dir = dentry->d_parent;
	e = bpf_inode_storage_get(&dir_cache, dir->d_inode, 0, 0);
	if (!e)
		return false;
	ns = task_mnt_ns();
	bpf_spin_lock(&e->lock);
	hit = e->gen == gen && e->rseq == q->rs && e->mseq == q->ms &&
	      e->dentry == (__u64)dir && e->mnt == (__u64)mnt && e->ns == ns;
	cls = e->cls;
	bpf_spin_unlock(&e->lock);
	if (!hit || !grants(cls, need))
		return false;
	stat_inc(AC_STAT_DIR_HIT);
	return true;
}

/* After the walk: remember cls for dentry's directory when the walk's first
 * step went through that directory (so dentry is no mount root) and nothing
 * moved since q was read. */
static __always_inline void dir_fill(__u32 gen, struct scratch *s, struct dentry *dentry,
				     struct vfsmount *mnt, const struct walk_first *first,
				     const struct dir_seqs *q, __u32 cls)
{
	struct dentry *dir = dentry->d_parent;
	struct ac_dir_entry *e;
	__u32 rs2, ms2;
	__u64 ns;

	if (first->parent != (__u64)dir || !dir_cacheable(dir))
		return;
	fence(s);
	if (!read_seqs(&rs2, &ms2) || rs2 != q->rs || ms2 != q->ms)
		return;
	e = bpf_inode_storage_get(&dir_cache, dir->d_inode, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!e)
		return;
	ns = task_mnt_ns();
	bpf_spin_lock(&e->lock);
	e->gen = gen;
	e->cls = cls;
	e->rseq = q->rs;
	e->mseq = q->ms;
	e->dentry = (__u64)dir;
	e->mnt = (__u64)mnt;
	e->ns = ns;
	bpf_spin_unlock(&e->lock);
}
#endif
