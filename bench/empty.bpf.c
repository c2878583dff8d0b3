// SPDX-License-Identifier: GPL-2.0
/* Benchmark floor: an empty BPF LSM program on every hook agentcage's
 * programs attach to, one each. The list is not written here: the Makefile
 * generates floor-hooks.h from the LSM sections of the built cage.bpf.o and
 * net.bpf.o, so that a hook added there is in the floor too. bench-floor
 * (floor.c) loads only the programs whose hook this kernel has, as the
 * loader does (file_ioctl_compat from 6.8 on, ...). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#define EMPTY(hook) SEC("lsm/" #hook) int BPF_PROG(empty_##hook) { return 0; }
#include "floor-hooks.h"
