// SPDX-License-Identifier: GPL-2.0-only
/* --enforcer auto|bpf-lsm|landlock, and the Landlock table as run and
 * check print it. */
#ifndef AGENTCAGE_CLI_ENFORCER_H
#define AGENTCAGE_CLI_ENFORCER_H
#include "enforce/lltable.h"

enum enforcer { ENF_AUTO, ENF_BPF_LSM, ENF_LANDLOCK };

/* 0, or -1 (reported) for a word that is none of the three. */
int enforcer_parse(const char *s, int *out);
const char *enforcer_name(int enf);
/* Does the policy's user keep root's capabilities (a policy naming root)? */
int enforcer_privileged(const char *user);
/* The rows at min_level and above on stderr (run) or stdout (check):
 * plain lines, or with --json one object a row
 * {"enforcer":"landlock","level":...,"what":...,"how":...}. */
void enforcer_table_print(FILE *f, const struct ll_table *t, int min_level);
/* Every row as one JSON array (check --json). */
void enforcer_table_json(FILE *f, const struct ll_table *t);
#endif
