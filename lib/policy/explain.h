// SPDX-License-Identifier: GPL-2.0-only
/* Which entry of a policy decides an access to one path, and which it
 * beats: `agentcage check --explain`. The decision is the userspace twin's
 * (rules_file_class, rules_exec_allowed: the kernel's longest match); the
 * entries are found again in the policy's lists as written, so that the
 * answer names the line the operator wrote. */
#ifndef AGENTCAGE_POLICY_EXPLAIN_H
#define AGENTCAGE_POLICY_EXPLAIN_H
#include <limits.h>
#include <stdint.h>
#include "agentcage/cage.h"
#include "policy/compile.h"

enum explain_op { EXPLAIN_READ, EXPLAIN_WRITE, EXPLAIN_EXEC };

/* One entry of the policy that covers the path. */
struct explain_entry {
	const char *list;       /* "files.read", "files.write", "files.deny", "exec.allow",
	                         * "exec.libraries"; NULL: no entry */
	const char *entry;      /* as written (with ${VAR}s) */
	char path[PATH_MAX];    /* expanded; its symlink-free form where that covered the path */
	uint32_t cls;           /* enum ac_class, or enum ac_exec_class */
	size_t len;             /* bytes of its key: the longer, the more specific */
};

#define EXPLAIN_BEATEN_MAX 8

struct explanation {
	int op;
	int allowed;
	int implicit;           /* the twin's rule is none of the policy's lists (the own tty) */
	struct explain_entry file;   /* the files entry that decides the open */
	struct explain_entry exec;   /* EXPLAIN_EXEC: the exec.allow entry that lets it run */
	/* files entries covering the path that file beats, the most specific first */
	struct explain_entry beaten[EXPLAIN_BEATEN_MAX];
	size_t nbeaten, more;   /* more: beaten entries past EXPLAIN_BEATEN_MAX */
};

/* "read", "write", "exec": the op, or -1. */
int explain_op_parse(const char *s);
const char *explain_op_name(int op);
/* Explain op on path (absolute, resolved as the kernel sees it) under c,
 * compiled with vars v. 0, or -1 (no memory) with x->allowed 0. */
int policy_explain(const struct compiled_policy *c, const struct rule_vars *v, const char *path,
		   int op, struct explanation *x);
/* The entry that decides a file or exec event's refusal under c (compiled
 * with vars v): "LIST: ENTRY" as written ("files.deny: /etc/shadow"), or
 * "default-deny" when no entry grants it, into buf; 1. 0 when the event is
 * none of the policy's own decisions: another op (mmap, network, the
 * kernel baseline's), or one the twin allows (a refusal of the baseline,
 * such as executing a file the cage wrote). op: enum ac_op; path: the
 * event's, absolute. */
int explain_event_rule(const struct compiled_policy *c, const struct rule_vars *v, uint32_t op,
		       const char *path, char *buf, size_t len);
/* explain_event_rule's last answer, for a flood of one refusal: it costs
 * one explanation (realpath of each entry), not one an event. */
struct explain_memo {
	uint64_t cgid;          /* the cage's; 0: empty */
	uint32_t gen, op;       /* the cage's generation (ac_cage.gen): its policy */
	int found;
	char path[AC_PATH_MAX + 1];
	char rule[PATH_MAX + 32];
};
/* explain_event_rule for event e of its cage at generation gen (whose
 * policy is c, compiled with v), through m: the rule, or NULL (also for an
 * event with no file path, event_file_path). */
const char *explain_event_rule_memo(struct explain_memo *m, const struct ac_event *e, uint32_t gen,
				    const struct compiled_policy *c, const struct rule_vars *v);
#endif
