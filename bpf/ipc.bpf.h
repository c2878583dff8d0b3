// SPDX-License-Identifier: GPL-2.0
/* The kernel baseline, shared objects: a caged task reaches no SysV IPC
 * object (shared memory, message queue, semaphore set), no key or keyring
 * and no POSIX message queue of a process outside its cage, whatever the
 * policy says; root and CAP_IPC_OWNER change nothing.
 *  - Each SysV IPC object and each key made by a caged task is recorded with
 *    its cage when it is allocated (the *_alloc_security and key_alloc
 *    hooks run in the creator), and forgotten when it is freed. An object
 *    without a record was made outside: a caged task may use only the
 *    objects of its own cage. A full record map refuses the creation (fail
 *    closed) and counts AC_STAT_MAP_FULL, like the other full maps.
 *  - POSIX message queues live on the IPC namespace's internal mqueue
 *    mount, which no path of the cage's mount namespace reaches: file_open
 *    already refuses every mq_open in a cage as unresolved; mq_unlink, which
 *    opens nothing, is refused here.
 * Uncaged tasks pay the cage lookup and nothing else; their allocations
 * are not recorded, and a free costs one map delete.
 * Included by cage.bpf.c after isolate.bpf.h (isolate_verdict). */
#ifndef AGENTCAGE_IPC_BPF_H
#define AGENTCAGE_IPC_BPF_H
#include "cage_common.bpf.h"

#define IPC_OBJECTS_MAX 131072   /* above one namespace's msgmni + shmmni + semmni */
#define KEYS_MAX 65536
#define KEY_ALLOC_UID_KEYRING_ 0x0010
#define MQUEUE_MAGIC_ 0x19800202
#define PF_IO_WORKER_ 0x00000010     /* as in cage.bpf.c */

/* struct kern_ipc_perm * -> the cage that made it */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IPC_OBJECTS_MAX);
	__type(key, __u64);
	__type(value, __u64);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} ipc_cage SEC(".maps");

/* struct key * -> the cage that made it. A key is recorded in key_alloc,
 * before it has a serial, and forgotten in key_free. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KEYS_MAX);
	__type(key, __u64);
	__type(value, __u64);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} key_cage SEC(".maps");

/* ---- SysV IPC ---- */

/* A new object made by a caged task: recorded with its cage. Its id is not
 * assigned yet (ipc_addid comes later); the event carries its key. */
static __always_inline int ipc_alloc(struct kern_ipc_perm *perm)
{
	struct ac_cage *c;
	__u64 cgid, key = (__u64)perm;

	if (!(c = current_cage(&cgid)))
		return 0;
	if (!bpf_map_update_elem(&ipc_cage, &key, &cgid, BPF_ANY))
		return 0;
	stat_inc(AC_STAT_MAP_FULL);
	if (isolate_verdict(c, cgid, AC_OP_IPC, BPF_CORE_READ(perm, key), true))
		return -ENOSPC;
	return 0;
}

/* Called whether or not the allocation succeeded (security_*_alloc frees on
 * failure), in the last user's context or an RCU callback. */
static __always_inline void ipc_free(struct kern_ipc_perm *perm)
{
	__u64 key = (__u64)perm;

	bpf_map_delete_elem(&ipc_cage, &key);
}

/* Any use of an existing object by a caged task: allowed when its cage made
 * it. perm is NULL for IPC_INFO, SHM_INFO, MSG_INFO and SEM_INFO, which
 * read the namespace's limits and totals, no object. */
static __always_inline int ipc_check(struct kern_ipc_perm *perm)
{
	struct ac_cage *c;
	__u64 cgid, key = (__u64)perm, *owner;

	if (!(c = current_cage(&cgid)) || !perm)
		return 0;
	owner = bpf_map_lookup_elem(&ipc_cage, &key);
	if (owner && *owner == cgid)
		return 0;
	return isolate_verdict(c, cgid, AC_OP_IPC, BPF_CORE_READ(perm, id), true);
}

SEC("lsm/shm_alloc_security")
int BPF_PROG(ac_shm_alloc, struct kern_ipc_perm *perm, int ret)
{
	return ret ? ret : ipc_alloc(perm);
}

SEC("lsm/msg_queue_alloc_security")
int BPF_PROG(ac_msg_alloc, struct kern_ipc_perm *perm, int ret)
{
	return ret ? ret : ipc_alloc(perm);
}

SEC("lsm/sem_alloc_security")
int BPF_PROG(ac_sem_alloc, struct kern_ipc_perm *perm, int ret)
{
	return ret ? ret : ipc_alloc(perm);
}

SEC("lsm/shm_free_security")
int BPF_PROG(ac_shm_free, struct kern_ipc_perm *perm)
{
	ipc_free(perm);
	return 0;
}

SEC("lsm/msg_queue_free_security")
int BPF_PROG(ac_msg_free, struct kern_ipc_perm *perm)
{
	ipc_free(perm);
	return 0;
}

SEC("lsm/sem_free_security")
int BPF_PROG(ac_sem_free, struct kern_ipc_perm *perm)
{
	ipc_free(perm);
	return 0;
}

/* ipcperms: shmget, msgget and semget of an existing key, shmat, msgsnd,
 * msgrcv, semop, and the *ctl reads (IPC_STAT, GETVAL ...). The hooks below
 * also cover what skips ipcperms: IPC_SET, IPC_RMID, SHM_LOCK, *_STAT_ANY. */
SEC("lsm/ipc_permission")
int BPF_PROG(ac_ipc_permission, struct kern_ipc_perm *perm, short flag, int ret)
{
	return ret ? ret : ipc_check(perm);
}

SEC("lsm/shm_associate")
int BPF_PROG(ac_shm_associate, struct kern_ipc_perm *perm, int shmflg, int ret)
{
	return ret ? ret : ipc_check(perm);
}

SEC("lsm/shm_shmctl")
int BPF_PROG(ac_shm_shmctl, struct kern_ipc_perm *perm, int cmd, int ret)
{
	return ret ? ret : ipc_check(perm);
}

SEC("lsm/shm_shmat")
int BPF_PROG(ac_shm_shmat, struct kern_ipc_perm *perm, char *shmaddr, int shmflg, int ret)
{
	return ret ? ret : ipc_check(perm);
}

SEC("lsm/msg_queue_associate")
int BPF_PROG(ac_msg_associate, struct kern_ipc_perm *perm, int msqflg, int ret)
{
	return ret ? ret : ipc_check(perm);
}

SEC("lsm/msg_queue_msgctl")
int BPF_PROG(ac_msg_msgctl, struct kern_ipc_perm *perm, int cmd, int ret)
{
	return ret ? ret : ipc_check(perm);
}

SEC("lsm/msg_queue_msgsnd")
int BPF_PROG(ac_msg_msgsnd, struct kern_ipc_perm *perm, struct msg_msg *msg, int msqflg,
	     int ret)
{
	return ret ? ret : ipc_check(perm);
}

/* Also called in a sender handing its message straight to a waiting
 * receiver: then the sender is checked, on the queue it has just sent to. */
SEC("lsm/msg_queue_msgrcv")
int BPF_PROG(ac_msg_msgrcv, struct kern_ipc_perm *perm, struct msg_msg *msg,
	     struct task_struct *target, long type, int mode, int ret)
{
	return ret ? ret : ipc_check(perm);
}

SEC("lsm/sem_associate")
int BPF_PROG(ac_sem_associate, struct kern_ipc_perm *perm, int semflg, int ret)
{
	return ret ? ret : ipc_check(perm);
}

SEC("lsm/sem_semctl")
int BPF_PROG(ac_sem_semctl, struct kern_ipc_perm *perm, int cmd, int ret)
{
	return ret ? ret : ipc_check(perm);
}

SEC("lsm/sem_semop")
int BPF_PROG(ac_sem_semop, struct kern_ipc_perm *perm, struct sembuf *sops, unsigned int nsops,
	     int alter, int ret)
{
	return ret ? ret : ipc_check(perm);
}

/* ---- POSIX message queues ---- */

/* mq_unlink removes a queue's name without opening it (vfs_unlink: no
 * path_unlink): refused in a cage, which can open no queue either. */
SEC("lsm/inode_unlink")
int BPF_PROG(ac_inode_unlink, struct inode *dir, struct dentry *dentry, int ret)
{
	struct ac_cage *c;
	__u64 cgid;

	if (ret)
		return ret;
	if (!(c = current_cage(&cgid)))
		return 0;
	if (BPF_CORE_READ(dir, i_sb, s_magic) != MQUEUE_MAGIC_)
		return 0;
	return isolate_verdict(c, cgid, AC_OP_IPC, 0, false);
}

/* ---- keys and keyrings ---- */

/* A key made by a caged task: recorded with its cage (it has no serial yet:
 * a refusal's event has none). The user and user-session keyrings of a uid
 * (KEY_ALLOC_UID_KEYRING), made on first use, are shared with every process
 * of that uid: never the cage's, even when a caged task made them. The BPF
 * LSM comes last in the kernel's list, so no later module fails a key
 * recorded here: every recorded key reaches key_free. */
SEC("lsm/key_alloc")
int BPF_PROG(ac_key_alloc, struct key *key, const struct cred *cred, unsigned long flags, int ret)
{
	struct ac_cage *c;
	__u64 cgid, k = (__u64)key;

	if (ret)
		return ret;
	if (!(c = current_cage(&cgid)))
		return 0;
	if (flags & KEY_ALLOC_UID_KEYRING_)
		return 0;
	if (!bpf_map_update_elem(&key_cage, &k, &cgid, BPF_ANY))
		return 0;
	stat_inc(AC_STAT_MAP_FULL);
	if (isolate_verdict(c, cgid, AC_OP_KEY, 0, false))
		return -ENOSPC;
	return 0;
}

/* The loader loads it where the hook exists (6.1 has it). A kernel without
 * it (the LSM blob of a key became the framework's) leaves the records of
 * freed keys behind: a key made later at the same address would pass as
 * the cage's, and the map fills up. */
SEC("lsm/key_free")
int BPF_PROG(ac_key_free, struct key *key)
{
	__u64 k = (__u64)key;

	bpf_map_delete_elem(&key_cage, &k);
	return 0;
}

/* Every use of a key or keyring by serial or special id (keyctl read,
 * describe, search, link, update, setperm, chown, invalidate, clear,
 * get_keyring_id; add_key's and request_key's keyring), each keyring and
 * key a search passes, /proc/keys: a caged task may use only its cage's
 * keys. A kernel service running with credentials of its own
 * (override_creds: the NFS id mapper, the DNS resolver) on its own
 * keyrings is not the task's doing and is left alone. */
SEC("lsm/key_permission")
int ac_key_permission(unsigned long long *ctx)
{
	struct task_struct *t;
	struct ac_cage *c;
	__u64 cgid, k, *owner;
	int ret = (int)ctx[3];

	/* key_permission(key_ref_t key_ref, const struct cred *cred,
	 * enum key_need_perm need_perm): key_ref_t points to a struct only
	 * declared, which the verifier does not let a program read as an
	 * argument (BPF_PROG); bpf_get_func_arg reads it as a number. */
	if (ret)
		return ret;
	if (!(c = current_cage(&cgid)))
		return 0;
	t = bpf_get_current_task_btf();
	if (t->cred != t->real_cred && !(t->flags & PF_IO_WORKER_))
		return 0;
	if (bpf_get_func_arg(ctx, 0, &k))
		return isolate_verdict(c, cgid, AC_OP_KEY, 0, false);
	k &= ~1ULL;   /* the low bit: "possessed" */
	owner = bpf_map_lookup_elem(&key_cage, &k);
	if (owner && *owner == cgid)
		return 0;
	return isolate_verdict(c, cgid, AC_OP_KEY, BPF_CORE_READ((struct key *)k, serial), true);
}

#endif
