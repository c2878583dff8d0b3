// SPDX-License-Identifier: GPL-2.0-only
/* agentcage run --cage NAME: CMD in a named cage of the daemon. */
#ifndef AGENTCAGE_CLI_RUNCAGE_H
#define AGENTCAGE_CLI_RUNCAGE_H

struct run_cage_opts {
	const char *cage;     /* the daemon's cage */
	const char *socket;   /* the daemon's socket (proto_socket_path) */
	unsigned timeout;     /* --timeout, seconds; 0: none */
};

/* The run's exit status: CMD's, 128+N, 124 (time limit) or 125. */
int run_cage(const struct run_cage_opts *o, char **cmd);
#endif
