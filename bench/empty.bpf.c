// SPDX-License-Identifier: GPL-2.0
/* Benchmark floor: empty BPF LSM programs on every hook agentcage uses
 * (bpf/cage.bpf.c, bpf/surface.bpf.h and bpf/net.bpf.c), one each. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#define EMPTY(hook) SEC("lsm/" #hook) int BPF_PROG(empty_##hook) { return 0; }
EMPTY(file_open)
EMPTY(path_mknod)
EMPTY(path_mkdir)
EMPTY(path_rmdir)
EMPTY(path_unlink)
EMPTY(path_symlink)
EMPTY(path_link)
EMPTY(path_rename)
EMPTY(path_truncate)
EMPTY(path_chmod)
EMPTY(path_chown)
EMPTY(inode_setxattr)
EMPTY(inode_removexattr)
EMPTY(bprm_check_security)
EMPTY(mmap_file)
EMPTY(file_mprotect)
EMPTY(task_kill)
EMPTY(inode_setattr)
EMPTY(sb_mount)
EMPTY(sb_umount)
EMPTY(move_mount)
EMPTY(sb_pivotroot)
EMPTY(bpf)
EMPTY(ptrace_access_check)
EMPTY(uring_override_creds)
EMPTY(uring_sqpoll)
EMPTY(socket_create)
EMPTY(socket_connect)
EMPTY(socket_bind)
EMPTY(socket_sendmsg)
EMPTY(netlink_send)
EMPTY(unix_stream_connect)
EMPTY(unix_may_send)
EMPTY(capable)
EMPTY(kernel_module_request)
EMPTY(kernel_load_data)
EMPTY(kernel_read_file)
EMPTY(file_ioctl)
EMPTY(inode_readlink)
