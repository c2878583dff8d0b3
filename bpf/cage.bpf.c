// SPDX-License-Identifier: GPL-2.0
/* agentcage: file, exec and containment policy per cage, enforced by BPF LSM. */
#include "cage_common.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define FMODE_READ_ 0x1
#define FMODE_WRITE_ 0x2
#define PROT_EXEC_ 0x4
#define PTRACE_MODE_ATTACH_ 0x02
#define CGROUP2_MAGIC 0x63677270
#define CGROUP_DEPTH_MAX 64

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
	__type(value, __u32);           /* 1: exec allowed */
	__uint(map_flags, BPF_F_NO_PREALLOC);
} exec_rules SEC(".maps");

/* Check one path against a rule trie: the longest entry must grant at least
 * `need` (AC_READ or AC_WRITE) and not be a deny. Exec entries hold 1, so
 * they pass with need AC_READ. */
static __always_inline int check_rules(void *rules, struct dentry *dentry, struct vfsmount *mnt,
				       __u32 need, __u32 op)
{
	struct ac_cage *c;
	struct scratch *s;
	__u32 start = 0, *cls;
	__u64 cgid;
	int len;

	c = current_cage(&cgid);
	if (!c)
		return 0;
	s = get_scratch();
	if (!s)
		return verdict(c, s, cgid, op, 0, -1);
	len = resolve(s, dentry, mnt, &start);
	if (len < 0)
		return verdict(c, s, cgid, op, 0, -1);
	make_key(s, c->policy, start, len);
	cls = bpf_map_lookup_elem(rules, &s->key);
	if (cls && *cls != AC_DENY && *cls >= need)
		return 0;
	return verdict(c, s, cgid, op, start, len);
}

static __always_inline int check_path(struct dentry *dentry, struct vfsmount *mnt,
				      __u32 need, __u32 op)
{
	return check_rules(&file_rules, dentry, mnt, need, op);
}

static __always_inline int check_exec(struct file *file, __u32 op)
{
	return check_rules(&exec_rules, BPF_CORE_READ(file, f_path.dentry),
			   BPF_CORE_READ(file, f_path.mnt), AC_READ, op);
}

/* Is the cgroup directory (a dentry on cgroup2) the cage's cgroup or below it? */
static __always_inline bool cgroup_dir_in_cage(struct dentry *d, __u64 cgid)
{
	for (int i = 0; i < CGROUP_DEPTH_MAX; i++) {
		struct dentry *p;

		if (BPF_CORE_READ(d, d_inode, i_ino) == cgid)
			return true;
		p = BPF_CORE_READ(d, d_parent);
		if (p == d)
			return false;
		d = p;
	}
	return false;
}

SEC("lsm/file_open")
int BPF_PROG(ac_file_open, struct file *file, int ret)
{
	__u32 mode, need, op;
	struct ac_cage *c;
	__u64 cgid;
	int r;

	if (ret)
		return ret;
	mode = BPF_CORE_READ(file, f_mode);
	need = (mode & FMODE_WRITE_) ? AC_WRITE : AC_READ;
	op = (mode & FMODE_WRITE_) ? AC_OP_OPEN_WRITE : AC_OP_OPEN_READ;
	r = check_path(BPF_CORE_READ(file, f_path.dentry), BPF_CORE_READ(file, f_path.mnt), need, op);
	if (r || !(mode & FMODE_WRITE_))
		return r;
	/* Writing cgroup files outside the cage (cgroup.procs of a parent)
	 * would move a task out of its cage: refused whatever the policy. */
	if (BPF_CORE_READ(file, f_path.dentry, d_sb, s_magic) != CGROUP2_MAGIC)
		return 0;
	c = current_cage(&cgid);
	if (!c)
		return 0;
	if (cgroup_dir_in_cage(BPF_CORE_READ(file, f_path.dentry, d_parent), cgid))
		return 0;
	return verdict(c, get_scratch(), cgid, AC_OP_CGROUP, 0, -1);
}

SEC("lsm/path_mknod")
int BPF_PROG(ac_path_mknod, const struct path *dir, struct dentry *dentry, umode_t mode,
	     unsigned int dev, int ret)
{
	if (ret)
		return ret;
	/* open(O_CREAT) and mknod(S_IFREG) create regular files */
	return check_path(dentry, BPF_CORE_READ(dir, mnt), AC_WRITE,
			  ((mode & 0170000) == 0100000 || !(mode & 0170000)) ? AC_OP_CREATE : AC_OP_MKNOD);
}

SEC("lsm/path_mkdir")
int BPF_PROG(ac_path_mkdir, const struct path *dir, struct dentry *dentry, umode_t mode, int ret)
{
	if (ret)
		return ret;
	return check_path(dentry, BPF_CORE_READ(dir, mnt), AC_WRITE, AC_OP_MKDIR);
}

SEC("lsm/path_rmdir")
int BPF_PROG(ac_path_rmdir, const struct path *dir, struct dentry *dentry, int ret)
{
	if (ret)
		return ret;
	return check_path(dentry, BPF_CORE_READ(dir, mnt), AC_WRITE, AC_OP_RMDIR);
}

SEC("lsm/path_unlink")
int BPF_PROG(ac_path_unlink, const struct path *dir, struct dentry *dentry, int ret)
{
	if (ret)
		return ret;
	return check_path(dentry, BPF_CORE_READ(dir, mnt), AC_WRITE, AC_OP_UNLINK);
}

SEC("lsm/path_symlink")
int BPF_PROG(ac_path_symlink, const struct path *dir, struct dentry *dentry,
	     const char *old_name, int ret)
{
	if (ret)
		return ret;
	return check_path(dentry, BPF_CORE_READ(dir, mnt), AC_WRITE, AC_OP_SYMLINK);
}

SEC("lsm/path_link")
int BPF_PROG(ac_path_link, struct dentry *old_dentry, const struct path *new_dir,
	     struct dentry *new_dentry, int ret)
{
	struct vfsmount *mnt;
	int r;

	if (ret)
		return ret;
	/* a hard link is a new name for the old inode: both must be writable,
	 * or a link would turn a read-only (or denied) file into a writable one.
	 * Hard links never cross mounts, so both share new_dir's mount. */
	mnt = BPF_CORE_READ(new_dir, mnt);
	r = check_path(old_dentry, mnt, AC_WRITE, AC_OP_LINK);
	if (r)
		return r;
	return check_path(new_dentry, mnt, AC_WRITE, AC_OP_LINK);
}

static __always_inline int check_rename(const struct path *old_dir, struct dentry *old_dentry,
					const struct path *new_dir, struct dentry *new_dentry)
{
	int r = check_path(old_dentry, BPF_CORE_READ(old_dir, mnt), AC_WRITE, AC_OP_RENAME);

	if (r)
		return r;
	return check_path(new_dentry, BPF_CORE_READ(new_dir, mnt), AC_WRITE, AC_OP_RENAME);
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
	return check_path(BPF_CORE_READ(path, dentry), BPF_CORE_READ(path, mnt), AC_WRITE,
			  AC_OP_TRUNCATE);
}

SEC("lsm/path_chmod")
int BPF_PROG(ac_path_chmod, const struct path *path, umode_t mode, int ret)
{
	if (ret)
		return ret;
	return check_path(BPF_CORE_READ(path, dentry), BPF_CORE_READ(path, mnt), AC_WRITE,
			  AC_OP_CHMOD);
}

SEC("lsm/path_chown")
int BPF_PROG(ac_path_chown, const struct path *path, __u64 uid, __u64 gid, int ret)
{
	if (ret)
		return ret;
	return check_path(BPF_CORE_READ(path, dentry), BPF_CORE_READ(path, mnt), AC_WRITE,
			  AC_OP_CHOWN);
}

/* xattr hooks carry a dentry but no mount: the mount is found from the
 * task's root or working directory; a dentry reachable from neither is
 * unresolved and refused. One exception: a stacked filesystem (overlayfs)
 * working on its hidden layers on the task's behalf, after the task's own
 * access through the overlay was checked. The kernel then runs with
 * overridden credentials (cred != real_cred), which userspace cannot do. */
static __always_inline bool stacked_fs_internal(struct task_struct *t)
{
	return BPF_CORE_READ(t, cred) != BPF_CORE_READ(t, real_cred);
}

static __always_inline int check_nomnt(struct dentry *dentry, __u32 op)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct super_block *sb = BPF_CORE_READ(dentry, d_sb);
	struct vfsmount *mnt;
	struct ac_cage *c;
	__u64 cgid;

	c = current_cage(&cgid);
	if (!c)
		return 0;
	mnt = BPF_CORE_READ(t, fs, pwd.mnt);
	if (BPF_CORE_READ(mnt, mnt_sb) != sb)
		mnt = BPF_CORE_READ(t, fs, root.mnt);
	if (BPF_CORE_READ(mnt, mnt_sb) == sb)
		return check_path(dentry, mnt, AC_WRITE, op);
	if (stacked_fs_internal(t))
		return 0;
	return verdict(c, get_scratch(), cgid, op, 0, -1);
}

static __always_inline int check_xattr(struct dentry *dentry)
{
	return check_nomnt(dentry, AC_OP_SETXATTR);
}

SEC("lsm/inode_setxattr")
int BPF_PROG(ac_inode_setxattr, void *idmap, struct dentry *dentry, const char *name,
	     const void *value, size_t size, int flags, int ret)
{
	if (ret)
		return ret;
	return check_xattr(dentry);
}

SEC("lsm/inode_removexattr")
int BPF_PROG(ac_inode_removexattr, void *idmap, struct dentry *dentry, const char *name, int ret)
{
	if (ret)
		return ret;
	return check_xattr(dentry);
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
	unsigned int valid = BPF_CORE_READ(attr, ia_valid);

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
	if (ret)
		return ret;
	return check_exec(BPF_CORE_READ(bprm, file), AC_OP_EXEC);
}

SEC("lsm/mmap_file")
int BPF_PROG(ac_mmap_file, struct file *file, unsigned long reqprot, unsigned long prot,
	     unsigned long flags, int ret)
{
	if (ret)
		return ret;
	if (!file || !(prot & PROT_EXEC_))
		return 0;
	return check_exec(file, AC_OP_MMAP_EXEC);
}

SEC("lsm/file_mprotect")
int BPF_PROG(ac_file_mprotect, struct vm_area_struct *vma, unsigned long reqprot,
	     unsigned long prot, int ret)
{
	struct file *file;

	if (ret)
		return ret;
	file = BPF_CORE_READ(vma, vm_file);
	if (!file || !(prot & PROT_EXEC_))
		return 0;
	return check_exec(file, AC_OP_MMAP_EXEC);
}

/* Containment: a cage may not change the mount tree, use bpf(), nor trace
 * or signal tasks outside it. */
static __always_inline int refuse_in_cage(__u32 op)
{
	struct ac_cage *c;
	__u64 cgid;

	c = current_cage(&cgid);
	if (!c)
		return 0;
	return verdict(c, get_scratch(), cgid, op, 0, -1);
}

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

/* Is task t inside the cage whose cgroup id is cgid? */
static __always_inline bool task_in_cage(struct task_struct *t, __u64 cgid)
{
	struct cgroup *cg = BPF_CORE_READ(t, cgroups, dfl_cgrp);

	for (int i = 0; i < CGROUP_DEPTH_MAX && cg; i++) {
		if (BPF_CORE_READ(cg, kn, id) == cgid)
			return true;
		cg = (struct cgroup *)BPF_CORE_READ(cg, self.parent);
	}
	return false;
}

static __always_inline int refuse_outside(struct task_struct *target, __u32 op)
{
	struct ac_cage *c;
	__u64 cgid;

	c = current_cage(&cgid);
	if (!c || task_in_cage(target, cgid))
		return 0;
	return verdict(c, get_scratch(), cgid, op, 0, -1);
}

SEC("lsm/ptrace_access_check")
int BPF_PROG(ac_ptrace_access_check, struct task_struct *child, unsigned int mode, int ret)
{
	if (ret)
		return ret;
	if (!(mode & PTRACE_MODE_ATTACH_))
		return 0;
	return refuse_outside(child, AC_OP_PTRACE);
}

SEC("lsm/task_kill")
int BPF_PROG(ac_task_kill, struct task_struct *p, struct kernel_siginfo *info, int sig,
	     const struct cred *cred, int ret)
{
	if (ret)
		return ret;
	if (!sig)
		return 0;
	return refuse_outside(p, AC_OP_SIGNAL);
}
