// SPDX-License-Identifier: GPL-2.0-only
/* The agentcage verbs. */
#ifndef AGENTCAGE_VERBS_H
#define AGENTCAGE_VERBS_H
int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_daemon(int argc, char **argv);   /* daemon/daemon.c */
int cmd_ls(int argc, char **argv);       /* cli/client.c: the daemon's clients */
int cmd_status(int argc, char **argv);
int cmd_reload(int argc, char **argv);
int cmd_events(int argc, char **argv);   /* cli/events.c */
#endif
