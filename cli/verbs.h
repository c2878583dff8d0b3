// SPDX-License-Identifier: GPL-2.0-only
/* The agentcage verbs. */
#ifndef AGENTCAGE_VERBS_H
#define AGENTCAGE_VERBS_H
int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
#endif
