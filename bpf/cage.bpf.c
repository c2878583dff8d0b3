// SPDX-License-Identifier: GPL-2.0
/* agentcage: file, exec and containment policy per cage, enforced by BPF LSM. */
#include "cage_common.bpf.h"
#include "dircache.bpf.h"
#include "isolate.bpf.h"
#include "ipc.bpf.h"
#include "pattern.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define FMODE_READ_ 0x1
#define FMODE_WRITE_ 0x2
#define FMODE_CREATED_ 0x100000   /* the same bit from 4.19 to today */
#define O_TMPFILE_ 020000000      /* __O_TMPFILE */
#define PROT_EXEC_ 0x4

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 65536);
	__type(key, struct ac_key);
	__type(value, __u32);           /* enum ac_class */
	__uint(map_flags, BPF_F_NO_PREALLOC);
} file_rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 65536);
	__type(key, struct ac_key);
	__type(value, __u32);           /* enum ac_exec_class */
	__uint(map_flags, BPF_F_NO_PREALLOC);
} exec_rules SEC(".maps");

/* What path_mknod let a task create, for its file_open (created_here) */
struct created_mark {
	__u64 dentry;
	__u32 gen;       /* the cage's ac_cage.gen then */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct created_mark);
} created SEC(".maps");

static __always_inline void remember_created(__u64 dentry, __u32 gen)
{
	struct created_mark *m;

	m = bpf_task_storage_get(&created, bpf_get_current_task_btf(), 0,
				 dentry ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	if (m) {
		m->dentry = dentry;
		m->gen = gen;
	}
}

#define CHECK_REMEMBER 1u  /* on success, remember the dentry as created */
#define CHECK_DIR 2u       /* the class may come from, and go to, the directory cache */

/* The class of the resolved path s->buf[start..start+len) by the rules of
 * kind (AC_PK_FILE: rules is file_rules, AC_PK_EXEC: exec_rules): the
 * trie's longest match, then the patterns, when there are any */
static __always_inline __u32 path_class(struct scratch *s, void *rules, __u32 kind,
					__u32 policy, __u32 start, int len)
{
	__u32 *v, val = 0;

	make_key(s, policy, start, len);
	v = bpf_map_lookup_elem(rules, &s->key);
	if (v)
		val = *v;
	if (kind == AC_PK_FILE && !(val & AC_PATS))
		return val & AC_CLASS_MASK;
	/* exec: the first pattern's lookup says whether there are any */
	pat_run(s, policy, kind, start, len, kind == AC_PK_FILE ? val >> AC_VAL_RULE_SHIFT : 0,
		val & AC_CLASS_MASK);
	return s->pr.cls;
}

/* The decision on the resolved path s->buf[start..start+len) */
static __always_inline int decide(struct ac_cage *c, struct scratch *s, __u64 cgid, void *rules,
				  __u32 kind, __u32 policy, __u32 need, __u32 op, __u32 start,
				  int len)
{
	if (grants(path_class(s, rules, kind, policy, start, len), need))
		return 0;
	return verdict(c, s, cgid, op, start, len);
}

/* The decision on s->buf[start..start+len) by its directory's lookup, when
 * no rule lies below that directory (the directory is the path up to
 * first->pos); then the class is remembered in the directory cache. */
static __always_inline int decide_dir(struct ac_cage *c, struct scratch *s, __u64 cgid,
				      __u32 policy, __u32 gen, struct dentry *dentry,
				      struct vfsmount *mnt, __u32 need, __u32 op, __u32 start, int len,
				      const struct walk_first *first, const struct dir_seqs *q)
{
	__u32 dlen, klen, val = 0, *v;

	if (!first->parent || first->pos < start || first->pos >= AC_PATH_MAX)
		return decide(c, s, cgid, &file_rules, AC_PK_FILE, policy, need, op, start, len);
	dlen = first->pos - start;
	if (dlen)
		make_key(s, policy, start, dlen);
	else
		make_key(s, policy, first->pos, 1);     /* the root: "/" */
	klen = dlen ? dlen + 1 : 1;
	v = bpf_map_lookup_elem(&file_rules, &s->key);
	if (v)
		val = *v;
	/* a rule below the directory, or patterns: the name decides */
	if (((val & AC_DEEPER) && ((val >> AC_VAL_LEN_SHIFT) & AC_VAL_LEN_MASK) == klen) ||
	    (val & AC_PATS))
		return decide(c, s, cgid, &file_rules, AC_PK_FILE, policy, need, op, start, len);
	if (!grants(val & AC_CLASS_MASK, need))
		return verdict(c, s, cgid, op, start, len);
	dir_fill(gen, s, dentry, mnt, first, q, val & AC_CLASS_MASK);
	return 0;
}

/* Check one path of a caged task against a rule trie: the longest entry must
 * grant at least `need` (AC_READ or AC_WRITE; in the exec trie AC_EXEC_LIB
 * or AC_EXEC_PROG) and not be a deny. Every hook finds the cage
 * first (current_cage) and reads nothing else for an uncaged task. */
static __always_inline int check_rules(struct ac_cage *c, __u64 cgid, void *rules, __u32 kind,
				       struct dentry *dentry, struct vfsmount *mnt,
				       __u32 need, __u32 op, __u32 flags)
{
	struct walk_first first = {};
	struct dir_seqs q = {};
	__u32 start = 0, policy = c->policy, gen = c->gen;
	struct scratch_cpu *pc;
	struct scratch *s;
	int len, r;

	if (flags & CHECK_DIR) {
		if (dir_cached(gen, dentry, mnt, need, &q)) {
			r = 0;
			goto out;
		}
	}
	s = scratch_get(&pc);
	if (!s)
		return verdict(c, s, cgid, op, 0, -1);
	if (q.ok)
		fence(s);   /* the walk's reads come after the counts' */
	len = resolve_first(s, dentry, mnt, &start, &first);
	if (len < 0)
		r = verdict(c, s, cgid, op, 0, -1);
	else if (q.ok)
		r = decide_dir(c, s, cgid, policy, gen, dentry, mnt, need, op, start, len, &first,
			       &q);
	else
		r = decide(c, s, cgid, rules, kind, policy, need, op, start, len);
	scratch_put(pc);
out:
	if (flags & CHECK_REMEMBER)
		remember_created(r || !gen ? 0 : (__u64)dentry, gen);   /* see dir_cached */
	return r;
}

static __always_inline int check_path(struct ac_cage *c, __u64 cgid, struct dentry *dentry,
				      struct vfsmount *mnt, __u32 need, __u32 op)
{
	return check_rules(c, cgid, &file_rules, AC_PK_FILE, dentry, mnt, need, op, CHECK_DIR);
}

/* Executing needs a program; mapping as code a program or a library, so a
 * library (the loader, libc) is never run as a program. */
static __always_inline int check_exec(struct ac_cage *c, __u64 cgid, struct file *file, __u32 op)
{
	return check_rules(c, cgid, &exec_rules, AC_PK_EXEC, file->f_path.dentry, file->f_path.mnt,
			   op == AC_OP_EXEC ? AC_EXEC_PROG : AC_EXEC_LIB, op, 0);
}

/* bpf/surface.bpf.h: what no policy grants */
static __always_inline bool kernel_fs(struct dentry *d, unsigned long magic);
static __always_inline int surface_write(struct ac_cage *c, __u64 cgid, struct dentry *d,
					 struct vfsmount *mnt, __u32 op);
static __always_inline int surface_mknod(struct ac_cage *c, __u64 cgid, const struct path *dir,
					 struct dentry *dentry, umode_t mode, unsigned int dev);

/* The hooks that check one name for writing: an entry in a directory
 * (mkdir, rmdir, unlink, symlink), or a whole path (truncate, chmod, chown).
 * Kernel filesystems (cgroupfs, sysfs, /proc/sys, bpffs, ...) are refused
 * first, whatever the policy grants (surface_write). */
static __always_inline int check_entry(const struct path *dir, struct dentry *dentry, __u32 op)
{
	struct ac_cage *c;
	__u64 cgid;
	int r;

	if (!(c = current_cage(&cgid)))
		return 0;
	if ((r = surface_write(c, cgid, dentry, dir->mnt, op)))
		return r;
	return check_path(c, cgid, dentry, dir->mnt, AC_WRITE, op);
}

static __always_inline int check_whole(const struct path *path, __u32 op)
{
	struct ac_cage *c;
	__u64 cgid;
	int r;

	if (!(c = current_cage(&cgid)))
		return 0;
	if ((r = surface_write(c, cgid, path->dentry, path->mnt, op)))
		return r;
	return check_path(c, cgid, path->dentry, path->mnt, AC_WRITE, op);
}

/* Was this file created by this very open, its path checked for writing by
 * path_mknod a moment ago in the same task under the same policy? Then
 * file_open has nothing left to decide: write covers read, and walking the
 * same path again would only double the cost of every create. FMODE_CREATED
 * alone is not enough (O_TMPFILE sets no path_mknod); the dentry recorded by
 * path_mknod ties the two hooks together. */
static __always_inline bool created_here(struct ac_cage *c, struct file *file, __u32 mode)
{
	struct created_mark *m;

	if (!(mode & FMODE_CREATED_) || (file->f_flags & O_TMPFILE_))
		return false;
	m = bpf_task_storage_get(&created, bpf_get_current_task_btf(), 0, 0);
	if (!m || m->dentry != (__u64)file->f_path.dentry || m->gen != c->gen)
		return false;
	m->dentry = 0;
	return true;
}

/* A stacked filesystem (overlayfs) working on its hidden layers on the
 * task's behalf, after the task's own access through the overlay was
 * checked: a copy-up opens the lower file and the new upper one, a readdir
 * of a merged directory opens each layer's directory. The kernel then runs
 * with overridden credentials (cred != real_cred), which userspace cannot
 * do, on the layers' private mounts (clone_private_mount: mnt_ns is
 * MNT_NS_INTERNAL), which no path of any namespace reaches. */
#define PF_IO_WORKER_ 0x00000010
#define MNT_NS_INTERNAL_ ((struct mnt_namespace *)-EINVAL)

static __always_inline bool stacked_fs_internal(struct task_struct *t)
{
	/* io_uring's own threads override credentials too (the submitter's,
	 * when they changed after the thread was made): never an exception.
	 * Personalities and SQPOLL, the other ways io_uring could make
	 * cred != real_cred, are refused in a cage (ac_uring_*). */
	if (t->flags & PF_IO_WORKER_)
		return false;
	return t->cred != t->real_cred;
}

static __always_inline bool stacked_fs_layer_open(struct file *file)
{
	struct task_struct *t = bpf_get_current_task_btf();

	if (!stacked_fs_internal(t))
		return false;
	return BPF_CORE_READ(real_mount(file->f_path.mnt), mnt_ns) == MNT_NS_INTERNAL_;
}

SEC("lsm/file_open")
int BPF_PROG(ac_file_open, struct file *file, int ret)
{
	struct ac_cage *c;
	__u32 mode;
	__u64 cgid;
	int r;

	if (ret)
		return ret;
	if (!(c = current_cage(&cgid)))
		return 0;
	/* A stacked filesystem's own open of the file beneath (overlayfs on
	 * 6.1: open_with_fake_path) carries the overlay file's path, which
	 * this hook checked a moment ago for the task's own open, and the real
	 * inode; an open from userspace always has f_inode == d_inode. */
	if (file->f_inode != file->f_path.dentry->d_inode || stacked_fs_layer_open(file))
		return 0;
	/* /proc/<pid> of a task outside the cage, whatever the policy (isolate.bpf.h) */
	if ((r = isolate_proc_open(c, cgid, file)))
		return r;
	mode = file->f_mode;
	if (!created_here(c, file, mode)) {
		r = check_path(c, cgid, file->f_path.dentry, file->f_path.mnt,
			       (mode & FMODE_WRITE_) ? AC_WRITE : AC_READ,
			       (mode & FMODE_WRITE_) ? AC_OP_OPEN_WRITE : AC_OP_OPEN_READ);
		if (r)
			return r;
	}
	/* kernel filesystems (cgroupfs, sysfs, /proc/sys, bpffs, ...) are
	 * read-only in a cage, whatever the policy (surface.bpf.h) */
	if (!(mode & FMODE_WRITE_))
		return 0;
	return surface_write(c, cgid, file->f_path.dentry, file->f_path.mnt, AC_OP_OPEN_WRITE);
}

SEC("lsm/path_mknod")
int BPF_PROG(ac_path_mknod, const struct path *dir, struct dentry *dentry, umode_t mode,
	     unsigned int dev, int ret)
{
	bool reg = (mode & 0170000) == 0100000 || !(mode & 0170000);
	struct ac_cage *c;
	__u64 cgid;
	int r;

	if (ret)
		return ret;
	if (!(c = current_cage(&cgid)))
		return 0;
	if ((r = surface_write(c, cgid, dentry, dir->mnt, reg ? AC_OP_CREATE : AC_OP_MKNOD)))
		return r;
	if ((r = surface_mknod(c, cgid, dir, dentry, mode, dev)))
		return r;
	/* open(O_CREAT) and mknod(S_IFREG) create regular files; the dentry
	 * is remembered for file_open (created_here) */
	return check_rules(c, cgid, &file_rules, AC_PK_FILE, dentry, dir->mnt, AC_WRITE,
			   reg ? AC_OP_CREATE : AC_OP_MKNOD, CHECK_DIR | (reg ? CHECK_REMEMBER : 0));
}

SEC("lsm/path_mkdir")
int BPF_PROG(ac_path_mkdir, const struct path *dir, struct dentry *dentry, umode_t mode, int ret)
{
	if (ret)
		return ret;
	return check_entry(dir, dentry, AC_OP_MKDIR);
}

SEC("lsm/path_rmdir")
int BPF_PROG(ac_path_rmdir, const struct path *dir, struct dentry *dentry, int ret)
{
	if (ret)
		return ret;
	return check_entry(dir, dentry, AC_OP_RMDIR);
}

SEC("lsm/path_unlink")
int BPF_PROG(ac_path_unlink, const struct path *dir, struct dentry *dentry, int ret)
{
	if (ret)
		return ret;
	return check_entry(dir, dentry, AC_OP_UNLINK);
}

SEC("lsm/path_symlink")
int BPF_PROG(ac_path_symlink, const struct path *dir, struct dentry *dentry,
	     const char *old_name, int ret)
{
	if (ret)
		return ret;
	return check_entry(dir, dentry, AC_OP_SYMLINK);
}

SEC("lsm/path_link")
int BPF_PROG(ac_path_link, struct dentry *old_dentry, const struct path *new_dir,
	     struct dentry *new_dentry, int ret)
{
	struct ac_cage *c;
	__u64 cgid;
	int r;

	if (ret)
		return ret;
	if (!(c = current_cage(&cgid)))
		return 0;
	/* a hard link is a new name for the old inode: both must be writable,
	 * or a link would turn a read-only (or denied) file into a writable one.
	 * Hard links never cross mounts, so both share new_dir's mount. */
	if ((r = surface_write(c, cgid, new_dentry, new_dir->mnt, AC_OP_LINK)))
		return r;
	r = check_path(c, cgid, old_dentry, new_dir->mnt, AC_WRITE, AC_OP_LINK);
	if (r)
		return r;
	return check_path(c, cgid, new_dentry, new_dir->mnt, AC_WRITE, AC_OP_LINK);
}

/* The file trie's value for a name (its longest entry), with `here` set
 * when that entry is the name's own; the name is left in s at *start, its
 * length returned (negative: unresolved) */
static __always_inline int name_value(struct ac_cage *c, struct scratch *s, struct dentry *dentry,
				      struct vfsmount *mnt, __u32 *val, bool *here, __u32 *start)
{
	struct walk_first first = {};
	__u32 *v;
	int len;

	*start = 0;
	len = resolve_first(s, dentry, mnt, start, &first);
	if (len >= 0) {
		make_key(s, c->policy, *start, len);
		v = bpf_map_lookup_elem(&file_rules, &s->key);
		*val = v ? *v : 0;
		*here = ((*val >> AC_VAL_LEN_SHIFT) & AC_VAL_LEN_MASK) == ac_key_len(len);
	}
	return len;
}

#define S_IFMT__ 0170000
#define S_IFDIR__ 0040000
#define S_IFSOCK__ 0140000

/* A rename moves every name beneath a directory: the rules below either
 * end (file or unix rules: AC_DEEPER on its own entry) would judge other
 * files than the ones they were written for, a denied file read under its
 * directory's new name, a read-only one written, an agent's own program
 * run where a read-only exec.allow directory was; so would the file
 * patterns when the two ends match other live prefixes of them (the
 * `secrets` directory of a pattern for the keys in it, renamed). And a directory or
 * socket moved under a unix path rule
 * becomes connectable (AC_UNIX): a socket bound outside the cage reached
 * under a listed name. Both are refused (op rename); moving out of a unix
 * rule, and everything outside such rules, stays. */
static __always_inline int rename_moves_rules(struct ac_cage *c, __u64 cgid,
					      struct dentry *old, struct vfsmount *omnt,
					      struct dentry *new, struct vfsmount *nmnt)
{
	umode_t mode = BPF_CORE_READ(old, d_inode, i_mode) & S_IFMT__;
	__u32 ov = 0, nv = 0, start = 0, inc;
	bool oh = false, nh = false;
	struct scratch_cpu *pc;
	struct scratch *s;
	int nlen, olen, r = 0;
	__u64 nmask = 0;

	if (mode != S_IFDIR__ && mode != S_IFSOCK__)
		return 0;
	s = scratch_get(&pc);
	if (!s)
		return verdict(c, s, cgid, AC_OP_RENAME, 0, -1);
	nlen = name_value(c, s, new, nmnt, &nv, &nh, &start);
	/* file patterns: the live prefixes each end matches (bpf/pattern.bpf.h) */
	pat_run(s, c->policy, AC_PK_LIVE, start, mode == S_IFDIR__ && (nv & AC_PATS) ? nlen : 0,
		0, 0);
	nmask = s->pr.mask;
	inc = s->pr.inconclusive;
	olen = name_value(c, s, old, omnt, &ov, &oh, &start);   /* the event's path */
	pat_run(s, c->policy, AC_PK_LIVE, start, mode == S_IFDIR__ && (ov & AC_PATS) ? olen : 0,
		0, 0);
	inc |= s->pr.inconclusive;
	if (nlen < 0 || olen < 0 ||
	    (mode == S_IFDIR__ && (((ov & AC_DEEPER) && oh) || ((nv & AC_DEEPER) && nh))) ||
	    ((nv & AC_UNIX) && !(ov & AC_UNIX)) || inc || nmask != s->pr.mask)
		r = verdict(c, s, cgid, AC_OP_RENAME, start, olen);
	scratch_put(pc);
	return r;
}

static __always_inline int check_rename(const struct path *old_dir, struct dentry *old_dentry,
					const struct path *new_dir, struct dentry *new_dentry)
{
	struct ac_cage *c;
	__u64 cgid;
	int r;

	if (!(c = current_cage(&cgid)))
		return 0;
	if ((r = surface_write(c, cgid, old_dentry, old_dir->mnt, AC_OP_RENAME)) ||
	    (r = surface_write(c, cgid, new_dentry, new_dir->mnt, AC_OP_RENAME)))
		return r;
	r = check_path(c, cgid, old_dentry, old_dir->mnt, AC_WRITE, AC_OP_RENAME);
	if (r)
		return r;
	r = check_path(c, cgid, new_dentry, new_dir->mnt, AC_WRITE, AC_OP_RENAME);
	if (r)
		return r;
	return rename_moves_rules(c, cgid, old_dentry, old_dir->mnt, new_dentry, new_dir->mnt);
}

/* path_rename has a flags argument on 6.1 and later; the four-argument
 * variant is for kernels without it. The loader picks one. */
SEC("lsm/path_rename")
int BPF_PROG(ac_path_rename5, const struct path *old_dir, struct dentry *old_dentry,
	     const struct path *new_dir, struct dentry *new_dentry, unsigned int flags, int ret)
{
	if (ret)
		return ret;
	return check_rename(old_dir, old_dentry, new_dir, new_dentry);
}

SEC("lsm/path_rename")
int BPF_PROG(ac_path_rename4, const struct path *old_dir, struct dentry *old_dentry,
	     const struct path *new_dir, struct dentry *new_dentry, int ret)
{
	if (ret)
		return ret;
	return check_rename(old_dir, old_dentry, new_dir, new_dentry);
}

SEC("lsm/path_truncate")
int BPF_PROG(ac_path_truncate, const struct path *path, int ret)
{
	if (ret)
		return ret;
	return check_whole(path, AC_OP_TRUNCATE);
}

SEC("lsm/path_chmod")
int BPF_PROG(ac_path_chmod, const struct path *path, umode_t mode, int ret)
{
	if (ret)
		return ret;
	return check_whole(path, AC_OP_CHMOD);
}

SEC("lsm/path_chown")
int BPF_PROG(ac_path_chown, const struct path *path, __u64 uid, __u64 gid, int ret)
{
	if (ret)
		return ret;
	return check_whole(path, AC_OP_CHOWN);
}

/* xattr and time changes reach hooks with a dentry but no mount. Its name is
 * the first of these from which the walk reaches the dentry: the task's
 * working directory's mount, its root's, then the other mounts of the
 * dentry's filesystem in the task's mount namespace (so a file in a tmpfs
 * /tmp is found from a working directory on ext4). A dentry none of them
 * reaches is unresolved and refused.
 * One exception: a stacked filesystem (overlayfs) working on its hidden
 * layers on the task's behalf, after the task's own access through the
 * overlay was checked. The kernel then runs with overridden credentials
 * (cred != real_cred), which userspace cannot do. */
#define MNT_CAND 8          /* mounts tried, at most */
#define MNT_SCAN_MAX 4096   /* mounts of one filesystem looked at, at most */

/* the two shapes of a superblock's mount list: compat.bpf.h */
struct mnt_scan {
	__u64 cand[MNT_CAND];  /* struct vfsmount * */
	__u64 pos, head;
	__u64 ns;               /* the task's struct mnt_namespace * */
	__u32 n;
};

static __always_inline void add_cand(struct mnt_scan *m, __u64 vfsmnt)
{
	if (m->n < MNT_CAND) {
		m->cand[m->n & (MNT_CAND - 1)] = vfsmnt;
		m->n++;
	}
}

static long mnt_scan_step(__u32 i, void *data)
{
	struct mnt_scan *m = data;
	struct mount *mnt;

	if (bpf_core_field_exists(struct mount, mnt_next_for_sb)) {
		if (!m->pos)
			return 1;
		mnt = (struct mount *)m->pos;
		m->pos = (__u64)BPF_CORE_READ(mnt, mnt_next_for_sb);
	} else {
		struct list_head *pos = (struct list_head *)m->pos;  /* outside the CO-RE macro */
		__u64 next = (__u64)BPF_CORE_READ(pos, next);

		if (!next || next == m->head)
			return 1;
		m->pos = next;
		mnt = (struct mount *)(next - bpf_core_field_offset(struct mount___list, mnt_instance));
	}
	if ((__u64)BPF_CORE_READ(mnt, mnt_ns) == m->ns)
		add_cand(m, (__u64)mnt + bpf_core_field_offset(struct mount, mnt));
	return m->n >= MNT_CAND;
}

/* Where the mounts of sb start (the list shape is fixed at load time), and
 * t's mount namespace, for mnt_scan_step. */
static __always_inline void scan_start(struct super_block *sb, struct task_struct *t,
				       struct mnt_scan *m)
{
	m->ns = (__u64)t->nsproxy->mnt_ns;
	if (bpf_core_field_exists(struct mount, mnt_next_for_sb)) {
		m->pos = (__u64)BPF_CORE_READ(sb, s_mounts);
	} else {
		m->head = (__u64)sb + bpf_core_field_offset(struct super_block___list, s_mounts);
		m->pos = m->head;
	}
}

/* The first of m's candidates from index `from` whose walk reaches dentry:
 * the path length, or -1. */
static __always_inline int first_reaching(struct scratch *s, struct dentry *dentry,
					  struct mnt_scan *m, __u32 from, __u32 *start)
{
	int len = -1;

	for (__u32 k = 0; k < MNT_CAND && len < 0; k++) {
		if (k >= m->n)
			break;
		if (k >= from)
			len = resolve(s, dentry, (struct vfsmount *)m->cand[k], start);
	}
	return len;
}

/* refuse: the verdict whatever the policy says (a kernel filesystem), on
 * the path found the same way */
static __always_inline int check_nomnt_in(struct ac_cage *c, __u64 cgid, struct scratch *s,
					  struct task_struct *t, struct dentry *dentry, __u32 need,
					  __u32 op, bool refuse)
{
	struct mnt_scan m = {};
	struct vfsmount *pwd, *root;
	struct super_block *sb;
	__u32 start = 0, from;
	int len;

	sb = dentry->d_sb;
	pwd = t->fs->pwd.mnt;
	root = t->fs->root.mnt;
	if (pwd->mnt_sb == sb)
		add_cand(&m, (__u64)pwd);
	if (root->mnt_sb == sb)
		add_cand(&m, (__u64)root);
	scan_start(sb, t, &m);
	len = first_reaching(s, dentry, &m, 0, &start);
	if (len < 0) {
		/* neither reaches it: the other mounts, only now */
		from = m.n;
		bpf_loop(MNT_SCAN_MAX, mnt_scan_step, &m, 0);
		len = first_reaching(s, dentry, &m, from, &start);
	}
	if (len < 0)
		return verdict(c, s, cgid, op, 0, -1);
	if (refuse)
		return verdict(c, s, cgid, op, start, len);
	return decide(c, s, cgid, &file_rules, AC_PK_FILE, c->policy, need, op, start, len);
}

static __always_inline int check_nomnt_need(struct dentry *dentry, __u32 need, __u32 op)
{
	struct scratch_cpu *pc;
	struct task_struct *t;
	struct scratch *s;
	unsigned long magic;
	struct ac_cage *c;
	bool refuse;
	__u64 cgid;
	int r;

	if (!(c = current_cage(&cgid)))
		return 0;
	t = bpf_get_current_task_btf();
	if (stacked_fs_internal(t))
		return 0;
	/* cgroupfs (isolate.bpf.h) and, for a change, the other kernel
	 * filesystems (surface.bpf.h) are refused whatever the policy */
	magic = BPF_CORE_READ(dentry, d_sb, s_magic);
	if ((r = cgroupfs_refuse(c, cgid, magic)))
		return r;
	refuse = need == AC_WRITE && kernel_fs(dentry, magic);
	s = scratch_get(&pc);
	if (!s)
		return verdict(c, s, cgid, op, 0, -1);
	r = check_nomnt_in(c, cgid, s, t, dentry, need, op, refuse);
	scratch_put(pc);
	return r;
}

static __always_inline int check_nomnt(struct dentry *dentry, __u32 op)
{
	return check_nomnt_need(dentry, AC_WRITE, op);
}

SEC("lsm/inode_setxattr")
int BPF_PROG(ac_inode_setxattr, void *idmap, struct dentry *dentry, const char *name,
	     const void *value, size_t size, int flags, int ret)
{
	if (ret)
		return ret;
	return check_nomnt(dentry, AC_OP_SETXATTR);
}

SEC("lsm/inode_removexattr")
int BPF_PROG(ac_inode_removexattr, void *idmap, struct dentry *dentry, const char *name, int ret)
{
	if (ret)
		return ret;
	return check_nomnt(dentry, AC_OP_SETXATTR);
}

#define ATTR_MODE_ (1 << 0)
#define ATTR_UID_ (1 << 1)
#define ATTR_GID_ (1 << 2)
#define ATTR_SIZE_ (1 << 3)
#define ATTR_ATIME_ (1 << 4)
#define ATTR_MTIME_ (1 << 5)

/* Time changes (utimes, utimensat, touch on an existing file) reach only
 * inode_setattr; mode, owner and size changes were checked by path_chmod,
 * path_chown and path_truncate already, so they are not checked twice. */
static __always_inline int check_setattr(struct dentry *dentry, struct iattr *attr)
{
	unsigned int valid = attr->ia_valid;

	if (!(valid & (ATTR_ATIME_ | ATTR_MTIME_)) ||
	    (valid & (ATTR_MODE_ | ATTR_UID_ | ATTR_GID_ | ATTR_SIZE_)))
		return 0;
	return check_nomnt(dentry, AC_OP_UTIMES);
}

/* inode_setattr gained an idmap argument in 6.3; the loader picks one. */
SEC("lsm/inode_setattr")
int BPF_PROG(ac_inode_setattr2, struct dentry *dentry, struct iattr *attr, int ret)
{
	if (ret)
		return ret;
	return check_setattr(dentry, attr);
}

SEC("lsm/inode_setattr")
int BPF_PROG(ac_inode_setattr3, void *idmap, struct dentry *dentry, struct iattr *attr, int ret)
{
	if (ret)
		return ret;
	return check_setattr(dentry, attr);
}

SEC("lsm/bprm_check_security")
int BPF_PROG(ac_bprm_check, struct linux_binprm *bprm, int ret)
{
	struct ac_cage *c;
	__u64 cgid;

	if (ret)
		return ret;
	if (!(c = current_cage(&cgid)))
		return 0;
	return check_exec(c, cgid, bprm->file, AC_OP_EXEC);
}

SEC("lsm/mmap_file")
int BPF_PROG(ac_mmap_file, struct file *file, unsigned long reqprot, unsigned long prot,
	     unsigned long flags, int ret)
{
	struct ac_cage *c;
	__u64 cgid;

	if (ret)
		return ret;
	if (!file || !(prot & PROT_EXEC_) || !(c = current_cage(&cgid)))
		return 0;
	return check_exec(c, cgid, file, AC_OP_MMAP_EXEC);
}

SEC("lsm/file_mprotect")
int BPF_PROG(ac_file_mprotect, struct vm_area_struct *vma, unsigned long reqprot,
	     unsigned long prot, int ret)
{
	struct ac_cage *c;
	struct file *file;
	__u64 cgid;

	if (ret)
		return ret;
	if (!(prot & PROT_EXEC_) || !(c = current_cage(&cgid)))
		return 0;
	file = vma->vm_file;
	if (!file)
		return 0;
	return check_exec(c, cgid, file, AC_OP_MMAP_EXEC);
}

/* Containment: a cage may not change the mount tree nor use bpf()
 * (refuse_in_cage: isolate.bpf.h). */
SEC("lsm/sb_mount")
int BPF_PROG(ac_sb_mount, const char *dev_name, const struct path *path, const char *type,
	     unsigned long flags, void *data, int ret)
{
	if (ret)
		return ret;
	return refuse_in_cage(AC_OP_MOUNT);
}

SEC("lsm/sb_umount")
int BPF_PROG(ac_sb_umount, struct vfsmount *mnt, int flags, int ret)
{
	if (ret)
		return ret;
	return refuse_in_cage(AC_OP_MOUNT);
}

SEC("lsm/move_mount")
int BPF_PROG(ac_move_mount, const struct path *from, const struct path *to, int ret)
{
	if (ret)
		return ret;
	return refuse_in_cage(AC_OP_MOUNT);
}

SEC("lsm/sb_pivotroot")
int BPF_PROG(ac_sb_pivotroot, const struct path *old_path, const struct path *new_path, int ret)
{
	if (ret)
		return ret;
	return refuse_in_cage(AC_OP_MOUNT);
}

/* io_uring requests that run under other credentials (a registered
 * personality) and SQPOLL rings (whose kernel thread may run requests
 * under the submitter's credentials) are refused in a cage: a caged task's
 * file checks never meet credentials it did not have itself. Plain
 * io_uring works and is checked by the same hooks as the system calls.
 * The loader leaves these out on kernels without io_uring. */
SEC("lsm/uring_override_creds")
int BPF_PROG(ac_uring_override_creds, const struct cred *new, int ret)
{
	if (ret)
		return ret;
	return refuse_in_cage(AC_OP_URING);
}

SEC("lsm/uring_sqpoll")
int BPF_PROG(ac_uring_sqpoll, int ret)
{
	if (ret)
		return ret;
	return refuse_in_cage(AC_OP_URING);
}

/* The bpf hook gained a `bool kernel` argument after 6.1; the loader
 * autoloads the variant that matches the running kernel. */
SEC("lsm/bpf")
int BPF_PROG(ac_bpf3, int cmd, union bpf_attr *attr, unsigned int size, int ret)
{
	if (ret)
		return ret;
	return refuse_in_cage(AC_OP_BPF);
}

SEC("lsm/bpf")
int BPF_PROG(ac_bpf4, int cmd, union bpf_attr *attr, unsigned int size, bool kernel, int ret)
{
	if (ret)
		return ret;
	return refuse_in_cage(AC_OP_BPF);
}

#include "surface.bpf.h"

/* ioctl: one program per hook; terminal injection (isolate.bpf.h), then
 * what reaches the host's configuration (surface.bpf.h) */
static __always_inline int check_ioctl(struct file *file, unsigned int cmd)
{
	struct ac_cage *c;
	__u64 cgid;
	int r;

	if (!(c = current_cage(&cgid)))
		return 0;
	if ((r = isolate_ioctl(c, cgid, file, cmd)))
		return r;
	return surface_ioctl(c, cgid, file, cmd);
}

SEC("lsm/file_ioctl")
int BPF_PROG(ac_file_ioctl, struct file *file, unsigned int cmd, unsigned long arg, int ret)
{
	return ret ? ret : check_ioctl(file, cmd);
}

/* 32-bit ioctls have a hook of their own from 6.8 on (before, they reached
 * file_ioctl); the loader loads this one where the hook exists. */
SEC("lsm/file_ioctl_compat")
int BPF_PROG(ac_file_ioctl_compat, struct file *file, unsigned int cmd, unsigned long arg,
	     int ret)
{
	return ret ? ret : check_ioctl(file, cmd);
}
