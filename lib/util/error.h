// SPDX-License-Identifier: GPL-2.0-only
/* Errors of the library: a stable code that programs (and, later, the
 * daemon's clients) can test, and the one-line message for people, which
 * names the cause and the fix. Library functions fill one in and return
 * -1; they never print. */
#ifndef AGENTCAGE_ERROR_H
#define AGENTCAGE_ERROR_H
#include <stddef.h>

/* the codes: "area.condition", never renamed once released */
#define AC_E_POLICY_INVALID "policy.invalid"       /* a policy file or text is not valid */
#define AC_E_POLICY_IO "policy.unreadable"          /* a policy file cannot be read */
#define AC_E_KERNEL_NO_BPF_LSM "kernel.no_bpf_lsm"  /* BPF LSM is not active */
#define AC_E_KERNEL_REFUSED "kernel.load_refused"   /* the kernel refused to load the programs */
#define AC_E_KERNEL_NO_LANDLOCK "kernel.no_landlock" /* Landlock is missing or too old */
#define AC_E_ENFORCER_WEAKER "enforcer.weaker"     /* the enforcer cannot hold the policy as written */
#define AC_E_KERNEL_MAP "kernel.map_update"         /* writing a policy into the maps failed */
#define AC_E_KERNEL_ATTACH "kernel.attach_failed"   /* attaching a program failed */
#define AC_E_CGROUP_UNAVAILABLE "cgroup.unavailable" /* no cgroup v2 to place the cage in */
#define AC_E_CGROUP "cgroup.failed"                 /* creating or using the cage's cgroup failed */
#define AC_E_LIMITS_UNAVAILABLE "limits.unavailable" /* a policy limit cannot be applied here */
#define AC_E_PERMISSION "permission.denied"         /* the caller lacks a privilege */
#define AC_E_USAGE "usage.invalid"                  /* bad arguments */
#define AC_E_SYSTEM "system.failed"                 /* a system call failed (fork, pipe, ...) */
#define AC_E_NOMEM "system.out_of_memory"
#define AC_E_PROTOCOL "protocol.invalid"           /* a control-socket request is not valid */
#define AC_E_NOT_FOUND "cage.not_found"            /* no cage of that name */
#define AC_E_DAEMON_UNREACHABLE "daemon.unreachable" /* no daemon answers on the socket */
#define AC_E_STATUS "status.missing"                /* a cage's kernel state is not what it should be */

struct ac_error {
	const char *code;   /* one of AC_E_*, NULL while no error is set */
	char msg[1024];     /* one line: the cause, then the fix */
};

/* Set e (when not NULL) to code and the formatted message; returns -1. */
int ac_error_set(struct ac_error *e, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Prefix e's message with "what: " (context for an error from below). */
void ac_error_prefix(struct ac_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
