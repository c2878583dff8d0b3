// SPDX-License-Identifier: GPL-2.0-only
/* Events of the Landlock enforcer: the kernel's Landlock audit records
 * (AUDIT_LANDLOCK_ACCESS 1423, AUDIT_LANDLOCK_DOMAIN 1424, with the
 * SYSCALL record of the same serial for the task), read from the audit
 * netlink's read-only multicast group, so that it runs beside auditd and
 * changes nothing of the kernel's audit settings.
 *
 * The cage's domains are those whose "status=allocated" record names a
 * creator pid of this run (the agent's first process, or with isolate: [pid]
 * PID 1 of its namespace; a domain that process makes for itself inside the
 * cage's counts too); records of other domains (other runs, or a domain
 * another process in the cage makes) are not shown.
 * A denial's records are kept until the event's end (AUDIT_EOE), the next
 * serial, or ac_llaudit_flush. Nothing the agent does reaches the group:
 * it has no CAP_AUDIT_WRITE and is outside the initial pid namespace. */
#ifndef AGENTCAGE_ENFORCE_LLAUDIT_H
#define AGENTCAGE_ENFORCE_LLAUDIT_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "agentcage/cage.h"
#include "util/error.h"

#define AC_LLAUDIT_CREATORS 2
#define AC_LLAUDIT_DOMAINS 8

/* an event, and its wall-clock time (ns since the epoch) */
typedef void (*ac_llaudit_cb)(void *ctx, const struct ac_event *ev, uint64_t realtime_ns);

struct ac_llaudit {
	int fd;                     /* the multicast socket; -1: none */
	pid_t creator[AC_LLAUDIT_CREATORS];
	struct {                    /* the cage's domains, as records name them */
		uint64_t id, seen;  /* seen: its denials shown */
		int freed;          /* its "status=deallocated" record came */
	} dom[AC_LLAUDIT_DOMAINS];
	size_t ndomains;
	uint64_t unreported;        /* denials the kernel counted in freed domains
	                             * and no record showed (audit dropped them) */
	struct {                    /* the denial being put together */
		uint64_t serial, domain, realtime_ns;
		int have;
		struct ac_event ev;
	} p;
	uint64_t overruns;          /* the socket's buffer overran (ENOBUFS): records lost */
	ac_llaudit_cb cb;
	void *ctx;
};

/* Without a socket: for ac_llaudit_record alone (tests, fuzzing). */
void ac_llaudit_init(struct ac_llaudit *a, ac_llaudit_cb cb, void *ctx);
/* Join the group. -1 with e when no record can come: Landlock below ABI 7
 * (a stays usable, fd -1), no audit in this kernel, no CAP_AUDIT_READ (a stays usable, fd -1), or kernel audit off
 * (fd stays joined: records come once it is turned on). */
int ac_llaudit_open(struct ac_llaudit *a, ac_llaudit_cb cb, void *ctx, struct ac_error *e);
/* A pid that may create the cage's domain (before it runs). */
void ac_llaudit_creator(struct ac_llaudit *a, pid_t pid);
/* One record: its type and its text ("audit(SEC.MS:SERIAL): k=v ...").
 * Pure but for the callback. */
void ac_llaudit_record(struct ac_llaudit *a, int type, const char *msg, size_t len);
/* The records waiting on the socket (non-blocking; at most 256 datagrams:
 * call again while it is readable). */
void ac_llaudit_read(struct ac_llaudit *a);
/* The denial being put together, if it is the cage's. */
void ac_llaudit_flush(struct ac_llaudit *a);
/* The cage's domains the kernel has not freed yet (at the end: records may
 * still come until it has). */
size_t ac_llaudit_pending(const struct ac_llaudit *a);
void ac_llaudit_close(struct ac_llaudit *a);
#endif
