// SPDX-License-Identifier: GPL-2.0-only
/* What the Landlock enforcer holds of one policy, row by row, against the
 * BPF LSM enforcer: `check --enforcer landlock` prints it, and `run`
 * refuses an enforce-mode policy with a weaker or impossible row unless
 * the caller accepts it (--accept-weaker). */
#ifndef AGENTCAGE_ENFORCE_LLTABLE_H
#define AGENTCAGE_ENFORCE_LLTABLE_H
#include <stdio.h>
#include "policy/compile.h"

enum ll_level {
	LL_HOLDS,    /* as under BPF LSM */
	LL_DIFFERS,  /* held otherwise, never letting the agent do more */
	LL_WEAKER,   /* the agent can do something BPF LSM refuses */
	LL_CANNOT,   /* not to be had from Landlock at all: the run is refused */
};

struct ll_row {
	int level;
	char what[160];
	char how[400];
};

struct ll_table {
	struct ll_row *rows;
	size_t n, cap;
	int worst;           /* the highest level of a row */
};

struct ll_opts {
	int abi;             /* the kernel's Landlock ABI (0: none) */
	int privileged;      /* the agent keeps root's capabilities (policy user root) */
	int no_pty;          /* run --no-pty: the agent holds the caller's terminal */
	const char *fresh;   /* ${CAGE_TMP}: made for the run, so there when it starts */
	int events;          /* the kernel's Landlock audit records reach agentcage */
	const char *no_events; /* else why not (NULL: no reason known) */
};

/* 0, or -1 (no memory). */
int ll_table_build(const struct compiled_policy *cp, const struct ll_opts *o,
		   struct ll_table *t);
const char *ll_level_name(int level);
/* "  LEVEL    WHAT: HOW" lines, the worst first; only rows at min_level or above. */
void ll_table_print(FILE *f, const struct ll_table *t, int min_level);
void ll_table_free(struct ll_table *t);
#endif
