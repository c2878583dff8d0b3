// SPDX-License-Identifier: GPL-2.0
/* The kernel baseline, host surface: what a caged task may never reach,
 * whatever its policy grants, even as root with every capability:
 * capabilities that act on the host, kernel modules, device nodes, kernel
 * tunables (any change on sysfs, /proc/sys, bpffs, ...), network
 * configuration and inode flags by ioctl, and readlink of symlinks it may
 * not read. Included at the end of cage.bpf.c (it uses check_path and
 * check_nomnt_need from there). */
#ifndef AGENTCAGE_SURFACE_BPF_H
#define AGENTCAGE_SURFACE_BPF_H

/* ---- events with an argument (capability, ioctl command, device) ---- */

/* A verdict whose event carries arg (AC_EV_ARG) and, when s is set, the
 * path s->buf[start..start+len). quiet: decide, send no event. */
static __always_inline int surface_verdict(struct ac_cage *c, __u64 cgid, __u32 op, __u32 arg,
					   struct scratch *s, __u32 start, int len, bool quiet)
{
	struct ac_event *e;

	if (quiet)
		return c->audit ? 0 : -EPERM;
	e = event_reserve(cgid, op, c->audit ? AC_AUDITED : AC_DENIED);
	if (e) {
		e->pid = bpf_get_current_pid_tgid() >> 32;
		e->uid = (__u32)bpf_get_current_uid_gid();
		__builtin_memset(&e->net, 0, sizeof(e->net));
		bpf_get_current_comm(e->comm, sizeof(e->comm));
		e->flags = AC_EV_ARG;
		e->arg = arg;
		if (s && len > 0) {
			/* 1 to AC_PATH_MAX bytes, as emit_net (verdict.bpf.h) copies
			 * them: a mask of len itself would make a path of exactly
			 * AC_PATH_MAX bytes a copy of none */
			__u32 n = len - 1;

			barrier_var(n);
			n = (n & (AC_PATH_MAX - 1)) + 1;
			e->path_len = n;
			barrier_var(start);
			bpf_probe_read_kernel(e->path, n, &s->buf[start & (AC_PATH_MAX - 1)]);
		}
		bpf_ringbuf_submit(e, 0);
	}
	return c->audit ? 0 : -EPERM;
}

/* ---- capabilities ---- */

/* The capabilities that act beyond the cage: on the host's kernel, devices,
 * time, other tasks, the network configuration, security policy. The rest
 * (chown, fowner, fsetid, kill, setuid/setgid, setpcap, net_bind_service,
 * net_raw, ipc_lock, dac_override, sys_nice, sys_resource, ...) only act on
 * what the cage's own checks already bound. */
#define CAPB(n) (1ull << (n))
#define SURFACE_CAPS (CAPB(2) /* DAC_READ_SEARCH: open_by_handle_at */ | \
	CAPB(9) /* LINUX_IMMUTABLE */ | CAPB(12) /* NET_ADMIN */ | \
	CAPB(13) /* NET_RAW: raw sockets read others' packets, forge sources */ | \
	CAPB(15) /* IPC_OWNER */ | \
	CAPB(16) /* SYS_MODULE */ | CAPB(17) /* SYS_RAWIO */ | CAPB(18) /* SYS_CHROOT */ | \
	CAPB(19) /* SYS_PTRACE */ | CAPB(20) /* SYS_PACCT: the host's process accounting */ | \
	CAPB(21) /* SYS_ADMIN */ | CAPB(22) /* SYS_BOOT */ | \
	CAPB(23) /* SYS_NICE: real-time scheduling, negative nice */ | \
	CAPB(25) /* SYS_TIME */ | CAPB(27) /* MKNOD */ | CAPB(30) /* AUDIT_CONTROL */ | \
	CAPB(32) /* MAC_OVERRIDE */ | CAPB(33) /* MAC_ADMIN */ | CAPB(34) /* SYSLOG */ | \
	CAPB(35) /* WAKE_ALARM */ | CAPB(38) /* PERFMON */ | CAPB(39) /* BPF */)
#define CAP_OPT_NOAUDIT_ 0x2

/* This hook runs on nearly every privileged system call of every task: the
 * constant mask comes first (cheaper than the cage lookup, and most checks
 * are of capabilities outside it), then the one lookup. Probes the kernel
 * makes without intent to use the capability (CAP_OPT_NOAUDIT: "may this
 * task see kernel addresses", overcommit heuristics, ...) are refused too,
 * but send no event: they are not something the agent asked for, some come
 * on every call, and the kernel's own audit leaves them out for the same
 * reason. */
SEC("lsm/capable")
int BPF_PROG(ac_capable, const struct cred *cred, struct user_namespace *ns, int cap,
	     unsigned int opts, int ret)
{
	struct task_struct *t;
	struct ac_cage *c;
	__u64 cgid;

	if (ret)
		return ret;
	if ((__u32)cap >= 64 || !(SURFACE_CAPS & (1ull << ((__u32)cap & 63))))
		return 0;
	if (!(c = current_cage(&cgid)))
		return 0;
	/* a stacked filesystem working under its mounter's credentials
	 * (overlayfs copy-up writing trusted.overlay.* xattrs), after the
	 * task's own access was checked: see stacked_fs_internal */
	t = bpf_get_current_task_btf();
	if (cred == t->cred && stacked_fs_internal(t))
		return 0;
	return surface_verdict(c, cgid, AC_OP_CAPABILITY, cap, NULL, 0, 0,
			       opts & CAP_OPT_NOAUDIT_);
}

/* ---- kernel modules ---- */

/* Autoloading (a socket family or protocol, a filesystem type, a line
 * discipline, a crypto algorithm, a netdev type: request_module in the
 * task's context) and explicit loading (init_module, finit_module, and
 * kexec, firmware and policy loads through the same hooks). */
SEC("lsm/kernel_module_request")
int BPF_PROG(ac_kernel_module_request, char *kmod_name, int ret)
{
	struct scratch_cpu *pc;
	struct scratch *s;
	struct ac_cage *c;
	__u64 cgid;
	long n;
	int r;

	if (ret)
		return ret;
	if (!(c = current_cage(&cgid)))
		return 0;
	s = scratch_get(&pc);
	if (!s)
		return verdict(c, s, cgid, AC_OP_MODULE, 0, -1);
	n = bpf_probe_read_kernel_str(s->buf, 256, kmod_name);
	r = verdict(c, s, cgid, AC_OP_MODULE, 0, n > 1 ? (int)n - 1 : 0);
	scratch_put(pc);
	return r;
}

SEC("lsm/kernel_load_data")
int BPF_PROG(ac_kernel_load_data, enum kernel_load_data_id id, bool contents, int ret)
{
	struct ac_cage *c;
	__u64 cgid;

	if (ret)
		return ret;
	if (!(c = current_cage(&cgid)))
		return 0;
	return surface_verdict(c, cgid, AC_OP_MODULE, id, NULL, 0, 0, false);
}

SEC("lsm/kernel_read_file")
int BPF_PROG(ac_kernel_read_file, struct file *file, enum kernel_read_file_id id, bool contents,
	     int ret)
{
	struct scratch_cpu *pc;
	struct scratch *s;
	struct ac_cage *c;
	__u32 start = 0;
	__u64 cgid;
	int r, len;

	if (ret)
		return ret;
	if (!(c = current_cage(&cgid)))
		return 0;
	s = scratch_get(&pc);
	if (!s)
		return surface_verdict(c, cgid, AC_OP_MODULE, id, NULL, 0, 0, false);
	len = file ? resolve(s, file->f_path.dentry, file->f_path.mnt, &start) : -1;
	r = surface_verdict(c, cgid, AC_OP_MODULE, id, s, start, len, false);
	scratch_put(pc);
	return r;
}

/* ---- device nodes ---- */

#define S_IFMT_ 0170000
#define S_IFCHR_ 0020000
#define S_IFBLK_ 0060000

/* mknod of a block or character device, whatever the policy grants: a node
 * the agent made would reach any device the cgroup device program let
 * through. Called by path_mknod before the policy check; dev is in the
 * system call's encoding there. */
static __always_inline int surface_mknod(struct ac_cage *c, __u64 cgid, const struct path *dir,
					 struct dentry *dentry, umode_t mode, unsigned int dev)
{
	struct scratch_cpu *pc;
	struct scratch *s;
	__u32 start = 0;
	int r, len;

	if ((mode & S_IFMT_) != S_IFCHR_ && (mode & S_IFMT_) != S_IFBLK_)
		return 0;
	/* the system call's own encoding (new_decode_dev): to major << 20 | minor */
	dev = ((dev & 0xfff00) >> 8) << 20 | (dev & 0xff) | ((dev >> 12) & 0xfff00);
	s = scratch_get(&pc);
	if (!s)
		return surface_verdict(c, cgid, AC_OP_DEVICE, dev, NULL, 0, 0, false);
	len = resolve(s, dentry, dir->mnt, &start);
	r = surface_verdict(c, cgid, AC_OP_DEVICE, dev, s, start, len, false);
	scratch_put(pc);
	return r;
}

#define DEVCG_DEV_BLOCK_ 1
#define DEVCG_DEV_CHAR_ 2

/* The pseudo devices a cage may use (Docker's default list): null, zero,
 * full, random, urandom, tty, ptmx and the pts terminals. */
static __always_inline bool dev_allowed(__u32 type, __u32 major, __u32 minor)
{
	if (type != DEVCG_DEV_CHAR_)
		return false;
	if (major == 1)
		return minor == 3 || minor == 5 || minor == 7 || minor == 8 || minor == 9;
	if (major == 5)
		return minor == 0 || minor == 2;
	return major == 136;
}

/* The cgroup device program, attached to each cage's cgroup (the loader's
 * loader_attach_cgroup): every open and mknod of a device node by a task in
 * the cage, whoever made the node and wherever it lies. On 6.1 this program
 * type has no pid, comm or ancestor cgroup helpers: the task's are read
 * from its task_struct. */
SEC("cgroup/dev")
int ac_device(struct bpf_cgroup_dev_ctx *ctx)
{
	__u32 type = ctx->access_type & 0xffff;
	struct task_struct *t;
	struct ac_event *e;
	struct ac_cage *c;
	struct cgroup *cg;
	__u64 cgid;

	if (dev_allowed(type, ctx->major, ctx->minor))
		return 1;
	t = (struct task_struct *)bpf_get_current_task();
	cg = BPF_CORE_READ(t, cgroups, dfl_cgrp);
	if (!cg || BPF_CORE_READ(cg, level) <= (int)cage_parent_level)
		return 0;
	cg = BPF_CORE_READ(cg, ancestors[(cage_parent_level + 1) & 63]);
	cgid = BPF_CORE_READ(cg, kn, id);
	c = bpf_map_lookup_elem(&cages, &cgid);
	if (!c)
		return 0;       /* attached only to cages: refused all the same */
	e = event_reserve(cgid, AC_OP_DEVICE, c->audit ? AC_AUDITED : AC_DENIED);
	if (e) {
		e->pid = BPF_CORE_READ(t, tgid);
		e->uid = (__u32)bpf_get_current_uid_gid();
		__builtin_memset(&e->net, 0, sizeof(e->net));
		bpf_probe_read_kernel(e->comm, sizeof(e->comm), &t->comm);
		e->flags = AC_EV_ARG;
		e->arg = ctx->major << 20 | (ctx->minor & 0xfffff);
		bpf_ringbuf_submit(e, 0);
	}
	return c->audit ? 1 : 0;
}

/* ---- kernel tunables ---- */

#define SYSFS_MAGIC_ 0x62656572
#define PROC_SUPER_MAGIC_ 0x9fa0
#define DEBUGFS_MAGIC_ 0x64626720
#define TRACEFS_MAGIC_ 0x74726163
#define SECURITYFS_MAGIC_ 0x73636673
#define CONFIGFS_MAGIC_ 0x62656570
#define BPF_FS_MAGIC_ 0xcafe4a11
#define PSTOREFS_MAGIC_ 0x6165676c
#define EFIVARFS_MAGIC_ 0xde5e81e4
#define PROC_DEPTH_MAX 16

/* Is d, on procfs, outside every /proc/<pid> directory (/proc/sys,
 * /proc/sysrq-trigger, /proc/irq, ...: the kernel's, not a process's)? */
static __always_inline bool proc_kernel_entry(struct dentry *d)
{
	struct dentry *top = d;

	for (int i = 0; i < PROC_DEPTH_MAX; i++) {
		struct dentry *p = BPF_CORE_READ(top, d_parent);

		if (BPF_CORE_READ(p, d_parent) == p)
			break;          /* top is a child of the root */
		top = p;
	}
	if (BPF_CORE_READ(top, d_parent) == top)
		return true;            /* the root itself, or too deep: refuse */
	unsigned char ch = 0;
	const unsigned char *name = BPF_CORE_READ(top, d_name.name);

	bpf_probe_read_kernel(&ch, 1, name);
	return ch < '0' || ch > '9';
}

/* Is d on a kernel filesystem whose content is the kernel's configuration:
 * sysfs, debugfs, tracefs, securityfs, configfs, bpffs (the pins holding
 * every cage's programs), pstore, efivarfs, and procfs outside the
 * per-process directories? magic: d's filesystem's. */
static __always_inline bool kernel_fs(struct dentry *d, unsigned long magic)
{
	switch (magic) {
	case PROC_SUPER_MAGIC_:
		return proc_kernel_entry(d);
	case SYSFS_MAGIC_: case DEBUGFS_MAGIC_: case TRACEFS_MAGIC_: case SECURITYFS_MAGIC_:
	case CONFIGFS_MAGIC_: case BPF_FS_MAGIC_: case PSTOREFS_MAGIC_: case EFIVARFS_MAGIC_:
		return true;
	}
	return false;
}

/* Any change of a caged task on a kernel filesystem, refused whatever the
 * policy grants: cgroupfs (isolate.bpf.h: op cgroup_write) and the
 * filesystems of kernel_fs (op: the hook's own, with the path of d under
 * mnt). Called by every write hook of cage.bpf.c with a mount (open for
 * write, create, mknod, mkdir, rmdir, unlink, symlink, link, rename,
 * truncate, chmod, chown) before the policy's check; the hooks without one
 * (xattrs, times) test kernel_fs themselves (check_nomnt_need). Reading
 * stays with the policy. 0 or the verdict. */
static __always_inline int surface_write(struct ac_cage *c, __u64 cgid, struct dentry *d,
					 struct vfsmount *mnt, __u32 op)
{
	unsigned long magic = BPF_CORE_READ(d, d_sb, s_magic);
	struct scratch_cpu *pc;
	struct scratch *s;
	__u32 start = 0;
	int r, len;

	if (cgroupfs(magic))
		return cgroupfs_refuse(c, cgid, magic);
	if (!kernel_fs(d, magic))
		return 0;
	s = scratch_get(&pc);
	if (!s)
		return verdict(c, s, cgid, op, 0, -1);
	len = resolve(s, d, mnt, &start);
	r = verdict(c, s, cgid, op, start, len);
	scratch_put(pc);
	return r;
}

/* ---- ioctls ---- */

#define FS_IOC_SETFLAGS_ 0x40086602u
#define FS_IOC32_SETFLAGS_ 0x40046602u
#define FS_IOC_SETVERSION_ 0x40087602u
#define FS_IOC32_SETVERSION_ 0x40047602u
#define FS_IOC_FSSETXATTR_ 0x401c5820u

/* The socket ioctls (type 0x89) a cage keeps: per-socket ones and reads of
 * the interface and neighbour tables; every other one configures the
 * network (routes, addresses, flags, MTU, ARP, multicast, bridges, bonds,
 * tunnels and device-private commands). */
static __always_inline bool sockios_allowed(__u32 cmd)
{
	switch (cmd) {
	case 0x8901: case 0x8902: case 0x8903: case 0x8904:    /* socket owner */
	case 0x8905: case 0x8906: case 0x8907:                 /* ATMARK, GSTAMP(NS) */
	case 0x8910: case 0x8912: case 0x8913: case 0x8915:    /* SIOCGIF* */
	case 0x8917: case 0x8919: case 0x891b: case 0x891d:
	case 0x891f: case 0x8921: case 0x8925: case 0x8927:
	case 0x8929: case 0x8933: case 0x8935: case 0x8938:
	case 0x8940: case 0x8942: case 0x8947: case 0x8948:    /* GIFBR, GIFTXQLEN, GMII* */
	case 0x894b: case 0x894c:                              /* OUTQNSD, GSKNS */
	case 0x8954: case 0x8961: case 0x8970: case 0x89b1:    /* GARP, GRARP, GIFMAP, GHWTSTAMP */
		return true;
	}
	return false;
}

/* The ioctl decision for a caged task: network configuration is refused;
 * inode flags (immutable, append-only, ...: the kernel asks only for
 * ownership, so a read-only descriptor is enough) need write access to
 * the file under the policy. The event carries the command. */
static __always_inline int surface_ioctl(struct ac_cage *c, __u64 cgid, struct file *file,
					 unsigned int cmd)
{
	struct scratch_cpu *pc;
	struct scratch *s;
	__u32 start = 0;
	int r, len;

	if ((cmd & 0xff00) == 0x8900 && !(cmd >> 16))
		return sockios_allowed(cmd) ? 0 :
			surface_verdict(c, cgid, AC_OP_IOCTL, cmd, NULL, 0, 0, false);
	if ((cmd & 0xff00) == 0x8b00 && !(cmd >> 16) && !(cmd & 1))   /* wireless SIOCSIW* */
		return surface_verdict(c, cgid, AC_OP_IOCTL, cmd, NULL, 0, 0, false);
	if (cmd != FS_IOC_SETFLAGS_ && cmd != FS_IOC32_SETFLAGS_ && cmd != FS_IOC_FSSETXATTR_ &&
	    cmd != FS_IOC_SETVERSION_ && cmd != FS_IOC32_SETVERSION_)
		return 0;
	s = scratch_get(&pc);
	if (!s)
		return surface_verdict(c, cgid, AC_OP_IOCTL, cmd, NULL, 0, 0, false);
	len = resolve(s, file->f_path.dentry, file->f_path.mnt, &start);
	r = -1;
	if (len > 0 && grants(path_class(s, &file_rules, AC_PK_FILE, c->policy, start, len),
			      AC_WRITE))
		r = 0;
	if (r)
		r = surface_verdict(c, cgid, AC_OP_IOCTL, cmd, s, start, len, false);
	scratch_put(pc);
	return r;
}

/* ---- readlink ---- */

/* A symlink's target is its content: readlink needs read access to the
 * link, like open. (Following a link during lookup is not readlink: the
 * open of what it points to is checked on the resolved path.) */
SEC("lsm/inode_readlink")
int BPF_PROG(ac_inode_readlink, struct dentry *dentry, int ret)
{
	if (ret)
		return ret;
	return check_nomnt_need(dentry, AC_READ, AC_OP_READLINK);
}

/* ---- watches ---- */

/* An inotify or fanotify watch (inotify_add_watch, fanotify_mark) reports
 * the names created, opened, changed and removed under what it watches,
 * and when: on a directory the policy does not let the cage read (whose
 * listing it refuses), the names a listing would show. A watch needs read
 * access to its path. (dnotify needs an open descriptor: file_open.) */
SEC("lsm/path_notify")
int BPF_PROG(ac_path_notify, const struct path *path, __u64 mask, unsigned int obj_type, int ret)
{
	struct ac_cage *c;
	__u64 cgid;

	if (ret)
		return ret;
	if (!(c = current_cage(&cgid)))
		return 0;
	return check_path(c, cgid, path->dentry, path->mnt, AC_READ, AC_OP_WATCH);
}

#endif
