// SPDX-License-Identifier: GPL-2.0-only
/* agentcage run through the daemon: --cage NAME (a named cage of the
 * daemon) or --policy FILE (an ephemeral cage of that policy, NAME-PID,
 * that lives as long as the run). */
#ifndef AGENTCAGE_CLI_RUNCAGE_H
#define AGENTCAGE_CLI_RUNCAGE_H
#include <stdio.h>

struct run_cage_opts {
	const char *cage;        /* the daemon's cage; NULL: an ephemeral one of: */
	const char *policy_file; /*   this file, or NULL: the embedded default */
	int mode;                /*   MODE_UNSET, or the mode that overrides the policy's */
	const char *socket;      /* the daemon's socket (proto_socket_path) */
	int fd;                  /* a connection to it already made, or -1 */
	unsigned timeout;        /* --timeout, seconds; 0: none */
	int json;                /* events as JSON lines on stderr (ephemeral) */
	FILE *events;            /* --events FILE, or NULL (ephemeral) */
	const char *user;        /* --user, or NULL (ephemeral) */
	int no_pty;              /* --no-pty (ephemeral) */
};

/* The run's exit status: CMD's, 128+N, 124 (time limit) or 125. */
int run_cage(const struct run_cage_opts *o, char **cmd);

/* run --policy FILE: the policy's request for the daemon ("run", or
 * "reload" on a SIGHUP), one line (malloc'd), or NULL with *too_big set
 * when it does not fit in a request line (else reported). */
struct rule_vars;
char *run_policy_request(const struct run_cage_opts *o, const char *method,
			 const struct rule_vars *v, size_t *n, int *too_big);
#endif
