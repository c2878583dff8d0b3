// SPDX-License-Identifier: GPL-2.0
/* CO-RE compatibility: what differs between the kernels agentcage loads on
 * (6.1 and newer), each shim naming the kernel change it follows. Included
 * before anything else by every agentcage BPF object. */
#ifndef AGENTCAGE_COMPAT_BPF_H
#define AGENTCAGE_COMPAT_BPF_H
#include "vmlinux.h"
#include <linux/errno.h>   /* errno names, never hand-written numbers */
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

/* barrier_var() came to bpf_helpers.h with libbpf 1.2 (Debian 12 has 1.1). */
#ifndef barrier_var
#define barrier_var(var) asm volatile("" : "+r"(var))
#endif

/* The mounts of a superblock: a list_head through mount.mnt_instance and
 * super_block.s_mounts up to the kernel that made them a NULL-terminated
 * list through mount.mnt_next_for_sb (tested with
 * bpf_core_field_exists(struct mount, mnt_next_for_sb)). These flavours
 * describe the old shape on kernels that no longer have it. */
struct mount___list {
	struct list_head mnt_instance;
} __attribute__((preserve_access_index));

struct super_block___list {
	struct list_head s_mounts;
} __attribute__((preserve_access_index));

/* LSM hooks whose arguments changed after 6.1 have one program per shape,
 * and the loader picks the one matching the running kernel's BTF
 * (lib/kernel/loader.c, hook_nargs): inode_setattr gained a leading
 * struct mnt_idmap * (6.3, the idmapped-mounts conversion of the inode
 * operations), bpf a trailing bool kernel (added for signed BPF programs),
 * and path_rename has carried the renameat2 flags since 5.19. */
#endif
