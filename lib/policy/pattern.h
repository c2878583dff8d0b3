// SPDX-License-Identifier: GPL-2.0-only
/* File patterns in userspace: the syntax check, the compiler to the form
 * the programs read (include/agentcage/pattern.h), and the same matcher. */
#ifndef AGENTCAGE_POLICY_PATTERN_H
#define AGENTCAGE_POLICY_PATTERN_H
#include <stddef.h>
#include <stdint.h>
#include "agentcage/pattern.h"

/* Is s a pattern (does it hold `*`, `?` or `[`)? */
int pattern_is(const char *s);
/* Is pattern s (as written, ${VAR}s unexpanded) well formed? 0, or -1 with why. */
int pattern_check(const char *s, char *why, size_t whylen);

/* Compile the expanded, normalised pattern s: with lead, the form of a
 * file or exec pattern (which covers what is beneath its match), without,
 * the form matched whole (a live prefix). 1: s is no pattern once its
 * trailing `**` components are gone (the literal is left in s: an entry);
 * 0: compiled; -1 with err. */
int pattern_compile(char *s, int lead, uint32_t cls, struct ac_pattern *out,
		    char *err, size_t errlen);

/* The live prefixes of the expanded pattern s (see AC_PK_LIVE), compiled,
 * into out[*n..max): those already there are not added twice. 0, or -1
 * with err when they do not fit. */
int pattern_prefixes(const char *s, struct ac_pattern *out, size_t *n, size_t max,
		     char *err, size_t errlen);

/* Match compiled p against path[0..len): enum ac_match_res (AC_M_RUN:
 * inconclusive, over the step budget); *weight gets the weight of the
 * deepest prefix it matched (ac_match_weight), when it matched. */
uint32_t pattern_match(const struct ac_pattern *p, const char *path, size_t len, uint32_t *weight);

/* The fixed front of expanded pattern s: the bytes before its first
 * component with a wildcard (0 when that is the first). */
size_t pattern_front(const char *s);
#endif
