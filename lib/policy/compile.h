// SPDX-License-Identifier: GPL-2.0-only
/* A policy made ready for the kernel in one step: parsed, its file, exec
 * and unix rules compiled, its hostnames resolved and its network rules
 * compiled. `run`, its reloads, `check` and the test tools all use it. */
#ifndef AGENTCAGE_COMPILE_H
#define AGENTCAGE_COMPILE_H
#include <stddef.h>
#include "policy/netpolicy.h"
#include "policy/policy.h"
#include "policy/rules.h"
#include "util/error.h"

struct compiled_policy {
	struct policy pol;
	struct ruleset rs;
	struct net_hosts hosts;    /* pol's hostnames, with the addresses learned */
	struct netset ns;          /* pol's network rules, compiled with hosts */
};

/* Where the policy comes from and how to compile it. */
struct policy_source {
	const char *path;          /* a policy file, or NULL: */
	const char *text;          /*   this text (len bytes), or NULL: the embedded default */
	size_t len;
	const char *name;          /* the text's name in messages ("inline") */
	int mode;                  /* MODE_UNSET, or the mode that overrides the policy's */
	const struct rule_vars *vars;
	int resolve_links;         /* see rules_compile */
};

/* Build out from src. A hostname that does not resolve is no error (its
 * `error` says why, for the caller to report); anything else is, and then
 * nothing stays allocated: e gets AC_E_POLICY_IO (the file cannot be read)
 * or AC_E_POLICY_INVALID with one line: "FILE:LINE:COL: ..." for a parse
 * error, "FILE: ..." for one found compiling. */
int policy_compile(const struct policy_source *src, struct compiled_policy *out,
		   struct ac_error *e);
void compiled_policy_free(struct compiled_policy *cp);
#endif
