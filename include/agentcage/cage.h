/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The ABI between the BPF programs and userspace: fixed-width types only,
 * every struct's size asserted, and each formula both sides compute written
 * once, here. Included by clang -target bpf (after vmlinux.h) and by gcc. */
#ifndef AGENTCAGE_CAGE_H
#define AGENTCAGE_CAGE_H
#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* shared inline functions: always inlined, as the BPF side needs */
#define AC_INLINE static inline __attribute__((always_inline))

#define AC_PATH_MAX 4096      /* paths are resolved in full up to this length */
#define AC_KEY_PATH 248       /* bytes of a path that take part in a trie key */
#define AC_RULE_MAX (AC_KEY_PATH - 1) /* longest policy path, without the '/' */

/* access classes stored in the file trie; on equal length the larger wins */
enum ac_class { AC_NONE = 0, AC_READ = 1, AC_WRITE = 2, AC_DENY = 3 };

/* A file trie value: the class in the low byte; AC_DEEPER when some rule
 * lies below the entry; the entry's key length in bits 16..23; the key
 * length of the rule whose class the entry holds in bits 24..31 (the
 * patterns' weight to beat). Entries that are no rule (markers) sit at
 * each directory above a rule, with the class and length of the longest
 * rule covering them, so that a directory whose own lookup finds no
 * AC_DEEPER entry of its exact length gives every name in it the class of
 * that lookup. */
#define AC_CLASS_MASK 0xffu
#define AC_DEEPER 0x100u
#define AC_UNIX 0x200u        /* a unix path rule covers the entry (network.unix) */
/* the policy has file patterns (on every entry; the compiler adds one for
 * "/" then), decided after the longest match (agentcage/pattern.h) */
#define AC_PATS 0x400u
#define AC_VAL_LEN_SHIFT 16
#define AC_VAL_LEN_MASK 0xffu  /* (val >> AC_VAL_LEN_SHIFT) & this: the entry's own */
#define AC_VAL_RULE_SHIFT 24

/* exec trie values: a library (exec.libraries) may only be mapped as code,
 * a program (exec.allow) may also be executed. The compiler gives every
 * entry the largest class of the entries covering it, so the longest match
 * holds the union; a check passes when the value is at least what it needs
 * (the same test as grants(): neither value is AC_DENY). */
enum ac_exec_class { AC_EXEC_LIB = 1, AC_EXEC_PROG = 2 };

enum ac_op {
	AC_OP_OPEN_READ = 1, AC_OP_OPEN_WRITE, AC_OP_CREATE, AC_OP_MKNOD,
	AC_OP_MKDIR, AC_OP_RMDIR, AC_OP_UNLINK, AC_OP_RENAME, AC_OP_LINK,
	AC_OP_SYMLINK, AC_OP_TRUNCATE, AC_OP_CHMOD, AC_OP_CHOWN,
	AC_OP_SETXATTR, AC_OP_EXEC, AC_OP_MMAP_EXEC, AC_OP_MOUNT, AC_OP_BPF,
	AC_OP_PTRACE, AC_OP_SIGNAL, AC_OP_CGROUP,
	/* network */
	AC_OP_CONNECT, AC_OP_BIND, AC_OP_SEND, AC_OP_RECV, AC_OP_SOCKET, AC_OP_UNIX_CONNECT,
	AC_OP_UTIMES, AC_OP_URING,
	/* the kernel baseline: what no policy grants */
	AC_OP_CLONE,        /* clone3(CLONE_INTO_CGROUP) */
	AC_OP_CAPABILITY,   /* a capability that reaches the host; arg: its number */
	AC_OP_IOCTL,        /* a refused ioctl; arg: the command */
	AC_OP_MODULE,       /* kernel module loading or autoloading */
	AC_OP_IPC,          /* SysV IPC or POSIX message queues outside the cage */
	AC_OP_KEY,          /* a key or keyring outside the cage */
	AC_OP_READLINK,     /* readlink of a symlink the cage may not read */
	AC_OP_PERF,         /* perf_event_open */
	AC_OP_DEVICE,       /* a device node the cage may not use; arg: major << 20 | minor */
	AC_OP_LIMIT,        /* a limit was hit (from userspace); path: memory, pids or time;
			     * arg: how often since the last event (OOM kills, forks refused) */
	AC_OP_SCHED,        /* another task's priority, scheduling, affinity, limits or memory
			     * placement; arg: the target's pid */
	AC_OP_WATCH,        /* an inotify or fanotify watch on a path the cage may not read */
	AC_OP_LOCK,         /* a lease, or an exclusive lock, on a file the cage may not write */
	AC_OP__MAX
};

enum ac_action { AC_DENIED = 1, AC_AUDITED = 2 };

/* event flags */
#define AC_EV_UNRESOLVED 1u  /* the path could not be resolved completely */
#define AC_EV_NET 2u         /* the net fields are set */
#define AC_EV_ABSTRACT 4u    /* path is an abstract unix socket name (no leading NUL) */
#define AC_EV_ARG 8u         /* arg is set (its meaning depends on op) */
#define AC_EV_LANDLOCK 16u   /* userspace only: from the kernel's Landlock audit records */

#define AC_UNIX_NAME_MAX 107     /* bytes of an abstract unix name after its leading NUL */
#define AC_PKT_EVENTS_PER_SEC 20 /* dropped-packet events per cage and second; the rest are counted */
#define AC_CAGE_EVENTS_PER_SEC 10000 /* the default budget: events of any kind per cage and
				      * second; the rest are counted in the cage's budgets
				      * entry: one noisy cage cannot fill the ring buffer
				      * that every cage shares */

/* The trie key length of a resolved path of len bytes: the path and a final
 * '/' (none after "/"), so that entries match whole components only; at
 * most AC_KEY_PATH bytes take part. */
AC_INLINE __u32 ac_key_len(__u32 len)
{
	__u32 n = len > 1 ? len + 1 : len;

	return n > AC_KEY_PATH ? AC_KEY_PATH : n;
}

/* An abstract unix name's key: '@', its length in two bytes, the name.
 * ac_abstract_hdr writes the three header bytes. */
#define AC_ABSTRACT_HDR 3
AC_INLINE void ac_abstract_hdr(__u8 *key, __u32 n)
{
	key[0] = '@';
	key[1] = (__u8)(n >> 8);
	key[2] = (__u8)(n & 0xff);
}

/* a trie key: prefix length in bits, then policy id, then path bytes */
struct ac_key {
	__u32 prefixlen;
	__u32 policy;
	__u8 path[AC_KEY_PATH];
};

/* value of the cages map, keyed by the cage's cgroup id */
struct ac_cage {
	__u32 policy;      /* policy id of the file and exec rules; switched atomically */
	__u32 audit;       /* 1: report, never deny */
	__u32 net_policy;  /* policy id of the network and unix rules */
	__u32 gen;         /* new with every switch, never given out again: what
	                    * the caches of a decision (the directory cache, a
	                    * task's created mark) are tagged with, since a
	                    * policy id comes back (lib/cage/cage.c's spare) */
};

/* the peer of a network event */
struct ac_event_net {
	__u8 addr[16];  /* IPv6, or IPv4 as ::ffff:a.b.c.d */
	__u16 port;     /* host byte order */
	__u16 family;   /* AF_* */
	__u16 proto;    /* IPPROTO_* (socket events: the protocol argument) */
	__u16 type;     /* socket events: SOCK_* */
};

struct ac_event {
	__u64 ts_ns;    /* CLOCK_BOOTTIME (bpf_ktime_get_boot_ns) */
	__u64 cgroup;
	__u32 pid;
	__u32 uid;
	__u32 op;
	__u32 action;
	__u32 flags;
	__u32 path_len;
	__u32 arg;      /* with AC_EV_ARG: what op says */
	__u32 pad;
	char comm[16];
	struct ac_event_net net;
	char path[AC_PATH_MAX];
};

/* indexes of the per-CPU stats array */
enum ac_stat {
	AC_STAT_LOST = 0,        /* ring buffer full */
	AC_STAT_SUPPRESSED,      /* packet events over the rate limit */
	AC_STAT_DIR_HIT,         /* file decisions taken from the directory cache */
	AC_STAT_MAP_FULL,        /* records not kept: their map was full (file owners, IPC objects, keys) */
	AC_STAT_BUDGET,          /* events over their cage's budget (a second's), all cages */
	AC_STAT__MAX
};

/* a cage's event budget (the budgets map, keyed by the cage's cgroup id):
 * the events of the current second, and those it dropped over the budget;
 * and the records of file owners it holds (bpf/isolate.bpf.h) */
struct ac_budget {
	__u64 second;
	__u32 count;
	__u32 owners;
	__u64 dropped;
};

_Static_assert(sizeof(struct ac_key) == 8 + AC_KEY_PATH, "struct ac_key");
_Static_assert(sizeof(struct ac_cage) == 16, "struct ac_cage");
_Static_assert(sizeof(struct ac_event_net) == 24, "struct ac_event_net");
_Static_assert(sizeof(struct ac_event) == 88 + AC_PATH_MAX, "struct ac_event");
_Static_assert(sizeof(struct ac_budget) == 24, "struct ac_budget");

#endif
