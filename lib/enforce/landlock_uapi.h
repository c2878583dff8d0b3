// SPDX-License-Identifier: GPL-2.0-only
/* Landlock's and mount_setattr's user API, as the kernel defines it
 * (include/uapi/linux/landlock.h, mount.h): Debian 12's headers stop at
 * Landlock ABI 2, and this build runs on newer kernels too. Our own names,
 * so that a newer <linux/landlock.h> never clashes. */
#ifndef AGENTCAGE_ENFORCE_LANDLOCK_UAPI_H
#define AGENTCAGE_ENFORCE_LANDLOCK_UAPI_H
#include <linux/types.h>
#include <sys/syscall.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

struct ac_ll_ruleset_attr {
	__u64 handled_access_fs;
	__u64 handled_access_net;  /* ABI 4 */
	__u64 scoped;              /* ABI 6 */
};

struct ac_ll_path_beneath {
	__u64 allowed_access;
	__s32 parent_fd;
} __attribute__((packed));

#define AC_LL_RULE_PATH_BENEATH 1

#define AC_LL_FS_EXECUTE (1ULL << 0)
#define AC_LL_FS_WRITE_FILE (1ULL << 1)
#define AC_LL_FS_READ_FILE (1ULL << 2)
#define AC_LL_FS_READ_DIR (1ULL << 3)
#define AC_LL_FS_REMOVE_DIR (1ULL << 4)
#define AC_LL_FS_REMOVE_FILE (1ULL << 5)
#define AC_LL_FS_MAKE_CHAR (1ULL << 6)
#define AC_LL_FS_MAKE_DIR (1ULL << 7)
#define AC_LL_FS_MAKE_REG (1ULL << 8)
#define AC_LL_FS_MAKE_SOCK (1ULL << 9)
#define AC_LL_FS_MAKE_FIFO (1ULL << 10)
#define AC_LL_FS_MAKE_BLOCK (1ULL << 11)
#define AC_LL_FS_MAKE_SYM (1ULL << 12)
#define AC_LL_FS_REFER (1ULL << 13)      /* ABI 2 */
#define AC_LL_FS_TRUNCATE (1ULL << 14)   /* ABI 3 */
#define AC_LL_FS_IOCTL_DEV (1ULL << 15)  /* ABI 5 */

#define AC_LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)   /* ABI 6 */
#define AC_LL_SCOPE_SIGNAL (1ULL << 1)

#define AC_LL_RESTRICT_SELF_LOG_NEW_EXEC_ON (1U << 1)  /* ABI 7 */

struct ac_mount_attr {
	__u64 attr_set, attr_clr, propagation, userns_fd;
};
#define AC_MOUNT_ATTR_RDONLY 0x00000001ULL
#define AC_MOUNT_ATTR_NOEXEC 0x00000008ULL
#define AC_AT_RECURSIVE 0x8000
#endif
