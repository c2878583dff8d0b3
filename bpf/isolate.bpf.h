// SPDX-License-Identifier: GPL-2.0
/* The kernel baseline, isolation part: routes out of a cage that no file,
 * exec or network rule sees, closed whatever the policy says. Each refusal
 * has its event (in audit mode: reported and allowed).
 *  - cgroupfs is read-only to a caged task (no write, create, mkdir, rmdir,
 *    rename, attribute change on any cgroup file), and clone3 cannot start
 *    a child in another cgroup (CLONE_INTO_CGROUP) nor give it a parent
 *    outside the cage (CLONE_PARENT);
 *  - no access of any ptrace mode to a task outside the cage (/proc/PID/
 *    environ, maps, fd, cwd, root, mem, process_vm_readv, pidfd_getfd,
 *    kcmp), nor any file of its /proc/<pid> directory (cmdline, stat,
 *    status, ...), no perf_event_open at all;
 *  - no signal from the cage to a task outside it, also through a file's
 *    owner (F_SETOWN, O_ASYNC, SIGURG);
 *  - no change of the scheduling, I/O priority, CPU affinity, resource
 *    limits or memory placement of a task outside the cage;
 *  - no typing into a terminal (TIOCSTI, TIOCLINUX), no change of a
 *    virtual console's keyboard or display (KD*, VT* ioctls), no signal
 *    the kernel sends for a terminal ioctl (a resize's SIGWINCH, a pty
 *    master's TIOCSIG) to a foreground process group outside the cage.
 * Included by cage.bpf.c; every program finds the cage first, or tests a
 * cheap argument before that, so an uncaged task pays at most one lookup. */
#ifndef AGENTCAGE_ISOLATE_BPF_H
#define AGENTCAGE_ISOLATE_BPF_H
#include "cage_common.bpf.h"

#define CGROUP_SUPER_MAGIC_ 0x27e0eb   /* cgroup v1 */
#define CGROUP2_SUPER_MAGIC_ 0x63677270
#define CGROUP_DEPTH_MAX 64
#define CLONE_PARENT_ 0x00008000ULL
#define CLONE_INTO_CGROUP_ 0x200000000ULL
#define PTRACE_MODE_NOAUDIT_ 0x04
#define TIOCSTI_ 0x5412
#define TIOCLINUX_ 0x541C
#define TIOCSWINSZ_ 0x5414
#define TIOCSIG_ 0x40045436   /* _IOW('T', 0x36, int) */
#define F_SETOWN_ 8
#define F_SETOWN_EX_ 15
#define FIOSETOWN_ 0x8901
#define SIOCSPGRP_ 0x8902
#define F_SETLEASE_ 1024
#define F_SETFL_ 4
#define O_ASYNC_ 020000         /* FASYNC: x86, arm64, the generic value */
#define FIOASYNC_ 0x5452
#define F_WRLCK_ 1
#define F_UNLCK_ 2
#define FMODE_WRITE__ 0x2

/* A refusal without a path, with AC_EV_ARG when has_arg, reported as the
 * act of the task pid, uid, comm: the current task (isolate_verdict), or
 * the one recorded when the act was set up (a file owner's setter). */
static __always_inline int isolate_verdict_by(struct ac_cage *c, __u64 cgid, __u32 op,
					      __u32 arg, bool has_arg, __u32 pid, __u32 uid,
					      const char *comm)
{
	struct ac_event *e = event_reserve(cgid, op, c->audit ? AC_AUDITED : AC_DENIED);

	if (e) {
		e->pid = pid;
		e->uid = uid;
		e->arg = arg;
		e->pad = 0;
		e->flags = has_arg ? AC_EV_ARG : 0;
		__builtin_memset(&e->net, 0, sizeof(e->net));
		__builtin_memcpy(e->comm, comm, sizeof(e->comm));
		bpf_ringbuf_submit(e, 0);
	}
	return c->audit ? 0 : -EPERM;
}

static __always_inline int isolate_verdict(struct ac_cage *c, __u64 cgid, __u32 op,
					   __u32 arg, bool has_arg)
{
	char comm[sizeof(((struct ac_event *)0)->comm)];

	bpf_get_current_comm(comm, sizeof(comm));
	return isolate_verdict_by(c, cgid, op, arg, has_arg, bpf_get_current_pid_tgid() >> 32,
				  (__u32)bpf_get_current_uid_gid(), comm);
}

/* Containment: the refusal of something a cage may never do. */
static __always_inline int refuse_in_cage(__u32 op)
{
	struct ac_cage *c;
	__u64 cgid;

	c = current_cage(&cgid);
	if (!c)
		return 0;
	return isolate_verdict(c, cgid, op, 0, false);
}

/* ---- cgroupfs is read-only ---- */

/* Any change on a cgroup filesystem (v2 or v1) by a caged task: writing
 * cgroup.procs, cgroup.threads, cgroup.subtree_control, cgroup.kill or a
 * limit, of its own cgroup or another, and creating, removing or renaming
 * cgroups. A task of the cage could otherwise leave it, pull an outside
 * process in, or change the limits agentcage set. Called by the write hooks
 * of cage.bpf.c (through surface_write, which also closes the other kernel
 * filesystems) with the magic of the filesystem they change; 0 or the
 * verdict. */
static __always_inline bool cgroupfs(unsigned long magic)
{
	return magic == CGROUP2_SUPER_MAGIC_ || magic == CGROUP_SUPER_MAGIC_;
}

static __always_inline int cgroupfs_refuse(struct ac_cage *c, __u64 cgid, unsigned long magic)
{
	if (!cgroupfs(magic))
		return 0;
	return isolate_verdict(c, cgid, AC_OP_CGROUP, 0, false);
}

/* clone3(CLONE_INTO_CGROUP) puts the child into the cgroup of a descriptor,
 * which may be an O_PATH one that no open check sees: refused in a cage.
 * CLONE_PARENT makes the child a child of the caller's parent: refused where
 * that parent is outside the cage (the cage's first task, whose parent is
 * agentcage). The flags are tested before the cage is looked up: a plain
 * fork costs no lookup. */
static __always_inline bool task_in_cage(struct task_struct *t, __u64 cgid);

SEC("lsm/task_alloc")
int BPF_PROG(ac_task_alloc, struct task_struct *task, unsigned long clone_flags, int ret)
{
	struct task_struct *cur;
	struct ac_cage *c;
	__u64 cgid, flags = clone_flags;

	if (ret)
		return ret;
	if (!(flags & (CLONE_INTO_CGROUP_ | CLONE_PARENT_)))
		return 0;
	if (!(c = current_cage(&cgid)))
		return 0;
	if (flags & CLONE_INTO_CGROUP_)
		return isolate_verdict(c, cgid, AC_OP_CLONE, 0, false);
	cur = bpf_get_current_task_btf();
	if (task_in_cage(BPF_CORE_READ(cur, real_parent), cgid))
		return 0;
	return isolate_verdict(c, cgid, AC_OP_CLONE, 0, false);
}

/* ---- other tasks: ptrace, perf, signals, scheduling and limits ---- */

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

/* The refusal of an action of a caged task on a task outside its cage; the
 * event's arg is the target's pid when with_target. */
static __always_inline int refuse_outside(struct task_struct *target, __u32 op, bool with_target)
{
	struct ac_cage *c;
	__u64 cgid;

	c = current_cage(&cgid);
	if (!c || task_in_cage(target, cgid))
		return 0;
	return isolate_verdict(c, cgid, op, with_target ? BPF_CORE_READ(target, pid) : 0,
			       with_target);
}

/* migrate_pages and move_pages of another task ask for ptrace read access
 * before task_movememory: the system call the task is in tells them apart
 * from a read of the task's memory, so that their refusal is reported as
 * what the task tried, a change of the target's memory placement (op
 * sched, as task_movememory's own). x86_64 numbers, and those of the 32-bit
 * (ia32) and x32 ABIs, which a root agent may call too; none of the numbers
 * is, in another ABI, a system call that asks for ptrace access. Elsewhere
 * the refusal stays ptrace. */
static __always_inline bool in_movememory_syscall(void)
{
#if defined(__TARGET_ARCH_x86)
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	long nr = BPF_CORE_READ(regs, orig_ax) & ~0x40000000L;   /* __X32_SYSCALL_BIT */

	return nr == 256 || nr == 279 ||        /* x86_64 migrate_pages, move_pages */
	       nr == 294 || nr == 317 ||        /* ia32 */
	       nr == 533;                       /* x32 move_pages (migrate_pages: 256) */
#else
	return false;
#endif
}

/* Every mode, read included: /proc/PID/environ, maps, fd, cwd, root, ns
 * (PTRACE_MODE_READ), mem, process_vm_readv/writev, pidfd_getfd, setns by
 * pidfd, ptrace itself (ATTACH), kcmp (READ, both tasks), migrate_pages and
 * move_pages (READ; op sched, see above); the event's arg is
 * the target's pid. A check the kernel makes for
 * itself with PTRACE_MODE_NOAUDIT (the wchan and stack fields of
 * /proc/PID/stat, which every `ps` reads) is refused without an event: it
 * only blanks those fields, and would otherwise report each process. */
SEC("lsm/ptrace_access_check")
int BPF_PROG(ac_ptrace_access_check, struct task_struct *child, unsigned int mode, int ret)
{
	struct ac_cage *c;
	__u64 cgid;

	if (ret)
		return ret;
	c = current_cage(&cgid);
	if (!c || task_in_cage(child, cgid))
		return 0;
	if (mode & PTRACE_MODE_NOAUDIT_)
		return c->audit ? 0 : -EPERM;
	return isolate_verdict(c, cgid, in_movememory_syscall() ? AC_OP_SCHED : AC_OP_PTRACE,
			       BPF_CORE_READ(child, pid), true);
}

/* /proc/<pid> of a task outside the cage, read included, whatever the
 * policy's read grants: cmdline, stat, status, io, the directory itself, its
 * task/<tid> entries, net/ (another namespace's sockets), the files the
 * kernel does not guard with a ptrace check. procfs keeps the struct pid of
 * a per-process entry in its inode (struct proc_inode, around the vfs
 * inode); the files of /proc/<pid>/net have none, so the entry under the
 * root that leads to them decides. /proc/self is the caller's own
 * directory: its own and its cage's processes stay readable. Called by
 * file_open for caged tasks; one read for a file on any other filesystem. */
#define PROC_MAGIC_ 0x9fa0
#define PROC_WALK_MAX 16

static __always_inline struct pid *proc_pid_of(struct inode *inode)
{
	struct proc_inode *pi;

	if (!inode || !bpf_core_type_exists(struct proc_inode))
		return NULL;
	pi = (void *)inode - bpf_core_field_offset(struct proc_inode, vfs_inode);
	return BPF_CORE_READ(pi, pid);
}

/* The task of a struct pid (pid_task(pid, PIDTYPE_PID)), or NULL once it is gone. */
static __always_inline struct task_struct *proc_pid_task(struct pid *pid)
{
	struct hlist_node *first = BPF_CORE_READ(pid, tasks[0].first);

	if (!first)
		return NULL;
	return (void *)first - bpf_core_field_offset(struct task_struct, pid_links);
}

static __always_inline int isolate_proc_open(struct ac_cage *c, __u64 cgid, struct file *file)
{
	struct dentry *d = BPF_CORE_READ(file, f_path.dentry);
	struct task_struct *t;
	struct pid *pid;
	__u32 nr = 0;

	if (BPF_CORE_READ(d, d_sb, s_magic) != PROC_MAGIC_)
		return 0;
	pid = proc_pid_of(BPF_CORE_READ(file, f_inode));
	for (int i = 0; !pid && i < PROC_WALK_MAX; i++) {
		struct dentry *p = BPF_CORE_READ(d, d_parent);

		if (p == d || BPF_CORE_READ(p, d_parent) == p)
			break;          /* d is the root, or a child of it */
		d = p;
	}
	if (!pid)
		pid = proc_pid_of(BPF_CORE_READ(d, d_inode));
	if (!pid || !(t = proc_pid_task(pid)) || task_in_cage(t, cgid))
		return 0;
	/* the number in the initial namespace, as events name pids */
	bpf_probe_read_kernel(&nr, sizeof(nr), (void *)pid + bpf_core_field_offset(struct pid, numbers) +
			      bpf_core_field_offset(struct upid, nr));
	return isolate_verdict(c, cgid, AC_OP_PTRACE, nr, true);
}

/* kill, tgkill, tkill, rt_sigqueueinfo, rt_tgsigqueueinfo and
 * pidfd_send_signal all reach check_kill_permission -> task_kill. Signal 0
 * (does the task exist?) delivers nothing. The event's arg is the signal,
 * as for a delivery through a file's owner (file_send_sigiotask). */
SEC("lsm/task_kill")
int BPF_PROG(ac_task_kill, struct task_struct *p, struct kernel_siginfo *info, int sig,
	     const struct cred *cred, int ret)
{
	struct ac_cage *c;
	__u64 cgid;

	if (ret)
		return ret;
	if (!sig)
		return 0;
	c = current_cage(&cgid);
	if (!c || task_in_cage(p, cgid))
		return 0;
	return isolate_verdict(c, cgid, AC_OP_SIGNAL, sig, true);
}

/* Another task's scheduling, limits and memory placement: a caged root
 * keeps CAP_SYS_NICE and CAP_SYS_RESOURCE, which would otherwise reach
 * every process of the machine (renice or chrt a host process to starve
 * it, prlimit agentcage's own process to RLIMIT_NOFILE 0 or RLIMIT_CPU 1).
 * Refused where the target is outside the cage; the caller itself, its
 * threads and its cage's other tasks keep working (nice, ionice, taskset,
 * chrt, setrlimit on itself). The event's arg is the target's pid.
 *  - task_setnice: setpriority (PRIO_PROCESS, PRIO_PGRP, PRIO_USER: each
 *    task of the group or user meets the check);
 *  - task_setioprio: ioprio_set;
 *  - task_setscheduler: sched_setscheduler, sched_setparam, sched_setattr,
 *    sched_setaffinity;
 *  - task_setrlimit: setrlimit, prlimit64 with a new limit (task_prlimit
 *    sees only credentials);
 *  - task_movememory: migrate_pages, move_pages of another process (whose
 *    ptrace check, which comes first, reports as sched too). */
SEC("lsm/task_setnice")
int BPF_PROG(ac_task_setnice, struct task_struct *p, int nice, int ret)
{
	if (ret)
		return ret;
	return refuse_outside(p, AC_OP_SCHED, true);
}

SEC("lsm/task_setioprio")
int BPF_PROG(ac_task_setioprio, struct task_struct *p, int ioprio, int ret)
{
	if (ret)
		return ret;
	return refuse_outside(p, AC_OP_SCHED, true);
}

SEC("lsm/task_setscheduler")
int BPF_PROG(ac_task_setscheduler, struct task_struct *p, int ret)
{
	if (ret)
		return ret;
	return refuse_outside(p, AC_OP_SCHED, true);
}

/* RLIMIT_NICE and RLIMIT_RTPRIO let a task raise its priority, real-time
 * scheduling included, without CAP_SYS_NICE (which the capable program
 * refuses): a real-time task of a cage would starve the host, whatever its
 * cpu.max. Raising either is refused for a cage's own tasks too; lowering
 * them stays. */
#define RLIMIT_NICE_ 13
#define RLIMIT_RTPRIO_ 14

static __always_inline bool raises_priority_limit(struct task_struct *p, unsigned int resource,
						  struct rlimit *new_rlim)
{
	struct signal_struct *sig = BPF_CORE_READ(p, signal);
	unsigned long cur, max;

	if (resource == RLIMIT_NICE_) {
		cur = BPF_CORE_READ(sig, rlim[RLIMIT_NICE_].rlim_cur);
		max = BPF_CORE_READ(sig, rlim[RLIMIT_NICE_].rlim_max);
	} else if (resource == RLIMIT_RTPRIO_) {
		cur = BPF_CORE_READ(sig, rlim[RLIMIT_RTPRIO_].rlim_cur);
		max = BPF_CORE_READ(sig, rlim[RLIMIT_RTPRIO_].rlim_max);
	} else {
		return false;
	}
	return new_rlim->rlim_cur > cur || new_rlim->rlim_max > max;
}

SEC("lsm/task_setrlimit")
int BPF_PROG(ac_task_setrlimit, struct task_struct *p, unsigned int resource,
	     struct rlimit *new_rlim, int ret)
{
	struct ac_cage *c;
	__u64 cgid;

	if (ret)
		return ret;
	if ((ret = refuse_outside(p, AC_OP_SCHED, true)))
		return ret;
	if (resource != RLIMIT_NICE_ && resource != RLIMIT_RTPRIO_)
		return 0;
	if (!(c = current_cage(&cgid)) || !raises_priority_limit(p, resource, new_rlim))
		return 0;
	return isolate_verdict(c, cgid, AC_OP_SCHED, BPF_CORE_READ(p, pid), true);
}

SEC("lsm/task_movememory")
int BPF_PROG(ac_task_movememory, struct task_struct *p, int ret)
{
	if (ret)
		return ret;
	return refuse_outside(p, AC_OP_SCHED, true);
}

/* perf_event_open is refused in a cage altogether: its system-wide
 * counters, tracepoints and kprobes observe the whole machine, and its
 * per-task events on another task are a ptrace read. The hook is called for
 * every open (PERF_SECURITY_OPEN) before the kernel looks at the target. */
SEC("lsm/perf_event_open")
int BPF_PROG(ac_perf_event_open, struct perf_event_attr *attr, int type, int ret)
{
	if (ret)
		return ret;
	return refuse_in_cage(AC_OP_PERF);
}

struct fown_setter {
	__u64 cgid;                     /* the setter's cage */
	__u32 pid, uid;
	char comm[sizeof(((struct ac_event *)0)->comm)];
};

/* Signals through a file's owner (F_SETOWN, F_SETOWN_EX, FIOSETOWN,
 * SIOCSPGRP, O_ASYNC on a terminal, leases, F_NOTIFY, with any signal
 * F_SETSIG names, SIGKILL included) are sent by whoever triggers the I/O,
 * often outside the cage (a peer writing to a socket, softirq). So the cage
 * that set the owner is recorded per file when it is set (file_set_fowner
 * runs in the setter), and delivery (file_send_sigiotask) to a task outside
 * that cage is refused; so is delivery triggered by a caged task to a task
 * outside its cage, whoever set the owner. An owner set outside any cage
 * clears the record; a file's record dies with it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);     /* a standalone run's; the daemon sizes it (size_owners) */
	__type(key, __u64);             /* struct file * */
	__type(value, struct fown_setter);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} fown_cage SEC(".maps");

/* The records one cage may hold at once (its budgets entry counts them):
 * the loader gives each of the daemon's cages an equal share of the map,
 * so that no cage can fill it for the others; a standalone run, one cage,
 * has the whole map. */
const volatile __u32 cage_fown_max = 65536;

/* Records in the map: while there are none, a file's release looks
 * nothing up. Exact: counted where an insert or a delete succeeds. */
__u64 fown_live = 0;

/* 6.1 to 6.11: the owner is part of struct file; then a pointer to it, with
 * a back pointer to the file (fown_struct.file) */
struct file___fown_inline {
	struct fown_struct f_owner;
} __attribute__((preserve_access_index));

static __always_inline __u64 fown_file(struct fown_struct *fown)
{
	if (bpf_core_field_exists(struct fown_struct, file))
		return (__u64)BPF_CORE_READ(fown, file);
	return (__u64)fown - bpf_core_field_offset(struct file___fown_inline, f_owner);
}

/* the count of cage cgid's records, its budgets entry made if need be */
static __always_inline struct ac_budget *fown_count(__u64 cgid)
{
	struct ac_budget fresh = {}, *b = bpf_map_lookup_elem(&budgets, &cgid);

	if (b)
		return b;
	bpf_map_update_elem(&budgets, &cgid, &fresh, BPF_NOEXIST);
	return bpf_map_lookup_elem(&budgets, &cgid);
}

/* one record of cgid's fewer (a cage gone has no entry). Only two changes
 * of one file's record at once (a caged F_SETOWN and an outside one) can
 * take a count below 0; fown_record reads it as signed, so that gives the
 * cage a record more, never none. */
static __always_inline void fown_uncount(__u64 cgid)
{
	struct ac_budget *b = bpf_map_lookup_elem(&budgets, &cgid);

	if (b && b->owners)
		__sync_fetch_and_add(&b->owners, (__u32)-1);
}

/* Record the caged setter of file's owner, within its cage's share;
 * 0 when recorded. A record another cage made passes to this one. */
static __always_inline int fown_record(struct file *file, __u64 cgid)
{
	struct fown_setter v = { .cgid = cgid }, *old;
	__u64 key = (__u64)file, was = 0;
	struct ac_budget *b;
	bool had, mine;

	v.pid = bpf_get_current_pid_tgid() >> 32;
	v.uid = (__u32)bpf_get_current_uid_gid();
	bpf_get_current_comm(v.comm, sizeof(v.comm));
	if ((old = bpf_map_lookup_elem(&fown_cage, &key)))
		was = old->cgid;
	had = old != NULL;
	mine = had && was == cgid;
	if (!mine) {
		if (!(b = fown_count(cgid)) || (__s32)b->owners >= (__s32)cage_fown_max)
			return -1;
		__sync_fetch_and_add(&b->owners, 1);
	}
	if (bpf_map_update_elem(&fown_cage, &key, &v, had ? BPF_EXIST : BPF_NOEXIST)) {
		if (!mine)
			fown_uncount(cgid);
		return -1;
	}
	if (!had)
		__sync_fetch_and_add(&fown_live, 1);
	else if (!mine)
		fown_uncount(was);
	return 0;
}

/* file's record, if it has one, removed and uncounted */
static __always_inline void fown_drop(struct file *file)
{
	__u64 key = (__u64)file, was;
	struct fown_setter *old = bpf_map_lookup_elem(&fown_cage, &key);

	if (!old)
		return;
	was = old->cgid;
	if (bpf_map_delete_elem(&fown_cage, &key))
		return;
	__sync_fetch_and_add(&fown_live, (__u64)-1);
	fown_uncount(was);
}

/* file_set_fowner returns nothing (6.1): it cannot refuse. So a record is
 * made first, where the owner is named and the call can still be refused:
 * fcntl F_SETOWN and F_SETOWN_EX, ioctl FIOSETOWN and SIOCSPGRP; and O_ASYNC
 * turned on (fcntl F_SETFL, ioctl FIOASYNC), since a terminal's fasync makes
 * its foreground process group the owner (__tty_fasync), which may be
 * outside the cage (a terminal passed in, --no-pty). Only leases and
 * dnotify make the caller itself the owner. Where no record can be made
 * (the cage holds its share, cage_fown_max, or the map is full) the owner
 * is not set (ENOSPC, op signal): a missing record must never let a
 * delivery triggered outside the cage through. A record made for a call
 * that then fails (no such process) or clears the owner stays until the
 * file is released, like any other. 0 or the verdict. */
static __always_inline int fown_reserve(struct ac_cage *c, __u64 cgid, struct file *file)
{
	if (!fown_record(file, cgid))
		return 0;
	stat_inc(AC_STAT_MAP_FULL);
	return isolate_verdict(c, cgid, AC_OP_SIGNAL, 0, false) ? -ENOSPC : 0;
}

/* ---- leases and locks ---- */

/* A lease (F_SETLEASE) makes every other opener of the file wait for its
 * holder (lease-break-time, 45 s by default, and again after each open),
 * and an exclusive lock (flock LOCK_EX, which needs no write access) makes
 * every other locker wait: on a file shared with the outside, processes
 * outside stall at the cage's will. Both need write access to the file by
 * the policy; shared locks (a read-only SQLite database) and locks on the
 * cage's own files stay. */
static __always_inline int check_path(struct ac_cage *c, __u64 cgid, struct dentry *dentry,
				      struct vfsmount *mnt, __u32 need, __u32 op);

static __always_inline int lock_refuse(struct ac_cage *c, __u64 cgid, struct file *file)
{
	return check_path(c, cgid, file->f_path.dentry, file->f_path.mnt, AC_WRITE, AC_OP_LOCK);
}

SEC("lsm/file_fcntl")
int BPF_PROG(ac_file_fcntl, struct file *file, unsigned int cmd, unsigned long arg, int ret)
{
	struct ac_cage *c;
	__u64 cgid;

	if (ret)
		return ret;
	if (cmd != F_SETOWN_ && cmd != F_SETOWN_EX_ && cmd != F_SETLEASE_ &&
	    (cmd != F_SETFL_ || !(arg & O_ASYNC_)))
		return 0;
	if (!(c = current_cage(&cgid)))
		return 0;
	if (cmd == F_SETLEASE_)
		return arg == F_UNLCK_ ? 0 : lock_refuse(c, cgid, file);
	return fown_reserve(c, cgid, file);
}

/* flock and fcntl locks (and leases again, from vfs_setlease); an fcntl
 * write lock needs a descriptor open for writing, checked at its open */
SEC("lsm/file_lock")
int BPF_PROG(ac_file_lock, struct file *file, unsigned int cmd, int ret)
{
	struct ac_cage *c;
	__u64 cgid;

	if (ret)
		return ret;
	if (cmd != F_WRLCK_ || (file->f_mode & FMODE_WRITE__))
		return 0;
	if (!(c = current_cage(&cgid)))
		return 0;
	return lock_refuse(c, cgid, file);
}

SEC("lsm/file_set_fowner")
int BPF_PROG(ac_file_set_fowner, struct file *file)
{
	__u64 cgid;

	if (!current_cage(&cgid)) {
		fown_drop(file);
		return 0;
	}
	/* made by fown_reserve where the owner can be another process; here
	 * for the caller itself (a lease, dnotify), whose signals a missing
	 * record does not let out */
	if (fown_record(file, cgid))
		stat_inc(AC_STAT_MAP_FULL);
	return 0;
}

/* Every record goes with its file. Not only a file whose owner is set has
 * one: F_SETOWN to 0, or to a process that does not exist, leaves the
 * record fown_reserve made and no owner. While no record exists anywhere
 * (fown_live), a release costs one read; while some do, one lookup. */
SEC("lsm/file_free_security")
int BPF_PROG(ac_file_free_security, struct file *file)
{
	if (fown_live)
		fown_drop(file);
	return 0;
}

SEC("lsm/file_send_sigiotask")
int BPF_PROG(ac_file_send_sigiotask, struct task_struct *tsk, struct fown_struct *fown, int sig,
	     int ret)
{
	struct fown_setter *owner;
	__u64 key, cgid, now;
	struct ac_cage *c;

	if (ret)
		return ret;
	key = fown_file(fown);
	owner = bpf_map_lookup_elem(&fown_cage, &key);
	if (owner) {
		cgid = owner->cgid;
		if (task_in_cage(tsk, cgid))
			return 0;
		c = bpf_map_lookup_elem(&cages, &cgid);
		if (!c)
			return -EPERM;   /* the cage is gone; its files still say nothing outside */
		if (current_cage(&now) && now == cgid)
			return isolate_verdict(c, cgid, AC_OP_SIGNAL, sig, true);
		return isolate_verdict_by(c, cgid, AC_OP_SIGNAL, sig, true, owner->pid,
					  owner->uid, owner->comm);
	}
	c = current_cage(&cgid);
	if (!c || task_in_cage(tsk, cgid))
		return 0;
	return isolate_verdict(c, cgid, AC_OP_SIGNAL, sig, true);
}

/* ---- terminals ---- */

/* TIOCSTI types into a terminal's input, TIOCLINUX (its paste and console
 * subcommands) does the same on a virtual console: on a terminal shared
 * with the caller of agentcage, the next command the user's shell reads.
 * 0 or the verdict; the lead merges this into one file_ioctl program with
 * the other ioctl checks. */
/* A virtual console's keyboard and display are the machine's, not one
 * terminal's: its keymap and function-key strings (KDSKBENT, KDSKBSENT: a
 * key bound to a string types it, later, into whichever console the user
 * is on), keyboard mode, repeat rate, LEDs, fonts and colour maps, its
 * display mode, and console switching and locking (VT_*). A cage reaches a
 * console only through a descriptor it inherited (agentcage --no-pty on a
 * console; the device program refuses opening one), and a root agent has
 * the CAP_SYS_TTY_CONFIG these ask for: every KD and VT command changes
 * something but the reads below. */
static __always_inline bool vt_ioctl_changes(unsigned int cmd)
{
	if ((cmd >> 8) != 0x4b && (cmd >> 8) != 0x56)
		return false;       /* also: a command with a size or direction */
	switch (cmd) {
	case 0x4b31: case 0x4b33: case 0x4b3b: case 0x4b40:   /* KDGETLED, KDGKBTYPE, KDGETMODE, GIO_SCRNMAP */
	case 0x4b44: case 0x4b46: case 0x4b48: case 0x4b4a:   /* KDGKBMODE, KDGKBENT, KDGKBSENT, KDGKBDIACR */
	case 0x4b4c: case 0x4b60: case 0x4b62: case 0x4b64:   /* KDGETKEYCODE, GIO_FONT, KDGKBMETA, KDGKBLED */
	case 0x4b66: case 0x4b69: case 0x4b6b: case 0x4b70:   /* GIO_UNIMAP, GIO_UNISCRNMAP, GIO_FONTX, GIO_CMAP */
	case 0x4bfa:                                          /* KDGKBDIACRUC */
	case 0x5600: case 0x5601: case 0x5603: case 0x5607:   /* VT_OPENQRY, VT_GETMODE, VT_GETSTATE, VT_WAITACTIVE */
	case 0x560d: case 0x560e:                             /* VT_GETHIFONTMASK, VT_WAITEVENT */
		return false;
	}
	return true;
}

/* Two terminal ioctls make the kernel signal a terminal's foreground
 * process group itself (kill_pgrp with priv 1: no task_kill, whoever the
 * caller): TIOCSWINSZ sends SIGWINCH (tty_do_resize; pty_resize signals
 * the groups of both ends of a pty pair, whichever end is resized), and
 * TIOCSIG on a pty master sends SIGINT, SIGQUIT or SIGTSTP to the group of
 * its slave (pty_signal: tty->link; on a slave, which has no pty ioctls,
 * it signals nothing). A caged task holding the caller's terminal
 * (agentcage --no-pty) would signal the caller's shell and its jobs.
 * Refused where a terminal so signalled has a foreground group of a
 * session that is not the cage's: the session's leader is outside the cage,
 * or gone, and the session is not the calling task's own. A session led
 * from inside the cage holds only caged tasks (what the leader forks stays
 * in the cage; nobody joins a session from outside), so a terminal the cage
 * opened and made a session's (tmux, screen, expect) resizes and signals
 * as before. The calling task's own session is the one agentcage started
 * for the cage (setsid before it joins it; a caged task cannot join
 * another), which may be led from outside by agentcage's own process (PID
 * 1's parent, with isolate: [pid], which ignores SIGWINCH): the agent's
 * own pty keeps `stty cols`. A terminal without a foreground group is
 * signalled nothing (a pty no process has as its controlling terminal).
 * Only a file whose ioctl is the terminals' (tty_ioctl: a terminal, ptmx,
 * /dev/tty, the console) is a terminal: a file of another kind with the
 * same command numbers is not concerned. The kernel's address of
 * tty_ioctl comes from kallsyms (libbpf resolves it at load); unknown
 * (addresses hidden), a file is taken for a terminal when its private
 * data is a tty_file_private pointing back at it. */
extern const void tty_ioctl __ksym __weak;

static __always_inline struct tty_struct *file_tty(struct file *file)
{
	struct tty_file_private *priv = file->private_data;

	if (&tty_ioctl) {
		if ((__u64)BPF_CORE_READ(file, f_op, unlocked_ioctl) != (__u64)&tty_ioctl)
			return NULL;
	} else if (!priv || BPF_CORE_READ(priv, file) != file) {
		return NULL;
	}
	return BPF_CORE_READ(priv, tty);
}

/* Does a signal to tty's foreground process group stay in the cage? */
static __always_inline bool tty_group_in_cage(struct tty_struct *tty, __u64 cgid,
					      struct pid *own_session)
{
	struct task_struct *leader;
	struct pid *sid;

	if (!tty || !BPF_CORE_READ(tty, ctrl.pgrp))
		return true;
	sid = BPF_CORE_READ(tty, ctrl.session);
	if (!sid)
		return false;
	if (sid == own_session)
		return true;
	leader = proc_pid_task(sid);
	return leader && task_in_cage(leader, cgid);
}

static __always_inline int tty_signal_refuse(struct ac_cage *c, __u64 cgid, struct file *file,
					     unsigned int cmd)
{
	struct tty_struct *tty = file_tty(file);
	struct task_struct *cur;
	struct pid *own;

	if (!tty)
		return 0;
	cur = bpf_get_current_task_btf();
	own = BPF_CORE_READ(cur, signal, pids[PIDTYPE_SID]);
	if ((cmd == TIOCSIG_ || tty_group_in_cage(tty, cgid, own)) &&
	    tty_group_in_cage(BPF_CORE_READ(tty, link), cgid, own))
		return 0;
	return isolate_verdict(c, cgid, AC_OP_IOCTL, cmd, true);
}

static __always_inline int isolate_ioctl(struct ac_cage *c, __u64 cgid, struct file *file,
					 unsigned int cmd)
{
	if (cmd == TIOCSWINSZ_ || cmd == TIOCSIG_)
		return tty_signal_refuse(c, cgid, file, cmd);
	if (cmd == FIOSETOWN_ || cmd == SIOCSPGRP_ || cmd == FIOASYNC_)
		return fown_reserve(c, cgid, file);
	if (cmd != TIOCSTI_ && cmd != TIOCLINUX_ && !vt_ioctl_changes(cmd))
		return 0;
	return isolate_verdict(c, cgid, AC_OP_IOCTL, cmd, true);
}

#endif
