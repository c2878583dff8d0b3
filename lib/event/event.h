// SPDX-License-Identifier: GPL-2.0-only
/* Violation events: names and output as text or JSON lines. */
#ifndef AGENTCAGE_EVENT_H
#define AGENTCAGE_EVENT_H
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>
#include "agentcage/cage.h"

const char *event_op_name(uint32_t op);
/* "CAP_SYS_ADMIN", ... or the number in buf */
const char *event_cap_name(uint32_t cap, char *buf, size_t len);
/* The peer's address as the user writes it: mapped IPv4 as a dotted quad. */
void event_addr_str(const struct ac_event_net *n, char *buf, size_t len);
/* "inet", "unix", ... or the number in buf */
const char *event_family_name(unsigned family, char *buf, size_t len);
/* RFC 3339 UTC time with microseconds of a realtime nanosecond count */
void event_time(uint64_t realtime_ns, char *buf, size_t len);
/* rule: the policy entry that decided (explain_event_rule), or NULL */
void event_write_json(FILE *f, const struct ac_event *e, const char *cage, uint64_t realtime_ns,
		      const char *rule);
void event_write_plain(FILE *f, const struct ac_event *e, const char *cage, uint64_t realtime_ns,
		       const char *rule);
/* A file or exec event's resolved path into buf (NUL-terminated): 1; 0
 * when it has none (a network event, an unresolved or empty path). */
int event_file_path(const struct ac_event *e, char *buf, size_t len);

/* A run's own record in its JSON event sinks, beside the events: a
 * consumer tells one from an event by "record" (docs/events.md). */
struct event_record {
	const char *record;   /* "start" (the agent forked) or "reload" (a new policy in force) */
	const char *cage, *enforcer, *mode;
	const char *policy;   /* the policy file, or NULL: the embedded default */
	int pid;              /* start: the agent's pid; else 0 */
	int landlock_abi;     /* under Landlock: the kernel's ABI; else 0 */
	int file_events;      /* file and exec denials are reported: 1 or 0 */
	int needs_restart;    /* reload: 1 where the file and exec part waits for a restart */
};
void event_write_record(FILE *f, const struct event_record *r, uint64_t realtime_ns);
#endif
