// SPDX-License-Identifier: GPL-2.0-only
/* The warnings of `agentcage check`: a valid policy that would break at run
 * time, or that gives up write-xor-execute. Each looks at this host's files
 * as the policy names them. */
#ifndef AGENTCAGE_LINT_H
#define AGENTCAGE_LINT_H
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "policy/policy.h"
#include "policy/rules.h"

struct lint {
	char **msgs;   /* one warning each, without the file name */
	size_t n;
};

/* The files of a directory in exec.allow that are looked at, and the
 * warnings printed for one directory (the rest are counted). */
#define LINT_DIR_FILES 4096
#define LINT_DIR_WARNINGS 3

/* All warnings for p, with ${CWD} = cwd; compiles p's rules itself (with
 * symlinks resolved, as `run` does). -1 only when out of memory. */
int policy_lint(const struct policy *p, const char *cwd, struct lint *out);
void lint_free(struct lint *l);

/* The parts, for the tests. path is a resolved path of this host. */
/* An ELF program's PT_INTERP into buf: 1 found, 0 none (static, or not ELF). */
int lint_elf_interp(const char *path, char *buf, size_t len);
/* A script's #! interpreter into buf: 1 found, 0 not a script. */
int lint_script_interp(const char *path, char *buf, size_t len);
/* The warnings about one program (its interpreter, its #! line). */
int lint_program(const struct ruleset *rs, const char *entry, const char *path, struct lint *out);
/* Exec or libraries entries inside write grants and write grants inside them. */
int lint_wx(const struct policy *p, const struct ruleset *rs, const struct rule_vars *v,
	    struct lint *out);
/* May uid:gid write path (or create it: its nearest existing ancestor), by
 * its mode bits alone? 1 yes, 0 no; *st gets what was looked at. */
int lint_can_write(const char *path, uid_t uid, gid_t gid, char *at, size_t atlen,
		   struct stat *st);
#endif
