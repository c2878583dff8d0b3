// SPDX-License-Identifier: GPL-2.0-only
#ifndef AGENTCAGE_CLI_EXPLAIN_H
#define AGENTCAGE_CLI_EXPLAIN_H
/* check --explain FILE PATH: one line (or JSON object) per op; op -1: read,
 * write and exec. 0 when each is allowed, 2 when one is refused, 1 for an
 * invalid policy, 125 for a path that cannot be made absolute. */
int check_explain(const char *file, const char *path, int op);
#endif
