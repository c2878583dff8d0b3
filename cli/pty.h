// SPDX-License-Identifier: GPL-2.0-only
/* The agent's own terminal: when agentcage's standard input is a terminal,
 * the agent gets a pseudo-terminal of its own, and agentcage relays between
 * it and the caller's terminal (bytes both ways, window size changes), so
 * that nothing the agent does with its terminal (modes, TIOCSTI, job
 * control, hangups) reaches the caller's. The caller's terminal is raw
 * while the agent runs: ^C, ^Z and ^\ are bytes for the agent's line
 * discipline, which signals the agent's foreground process group.
 *
 * Order in run: pty_open (before the policy compiles: its name is an
 * implicit grant) -> pty_give (the agent's uid) -> fork: the child calls
 * pty_child after setsid, a forked helper pty_forget -> pty_relay in the
 * parent -> pty_resize on SIGWINCH -> pty_end after the cage is gone. */
#ifndef AGENTCAGE_CLI_PTY_H
#define AGENTCAGE_CLI_PTY_H
#include <pthread.h>
#include <sys/types.h>
#include <termios.h>
#include "harden/harden.h"
#include "util/error.h"

struct pty {
	int master, slave;      /* -1: no pty for this run */
	unsigned streams;       /* bit N: standard stream N was a terminal */
	char name[64];          /* the slave, /dev/pts/N */
	int term_out;           /* the caller's terminal, for writing (a dup) */
	struct termios saved;   /* the caller's modes, restored at the end */
	int raw;                /* the caller's terminal is raw now */
	int err_r, err_saved;   /* agentcage's stderr through the relay, old fd 2 */
	int stop[2];            /* wakes the relay thread to drain and end */
	pthread_t thread;
	int running;
};

/* Sets p up; a pty only when fd 0 is a terminal and !disabled. 0, or -1
 * (reported). Registers the atexit restore. */
int pty_open(struct pty *p, int disabled);
/* The slave's path, or NULL without a pty. */
const char *pty_name(const struct pty *p);
/* The slave belongs to the agent's uid (it may reopen it by name). */
int pty_give(const struct pty *p, uid_t uid, struct ac_error *e);
/* In the agent's process, a session leader: the slave becomes its
 * controlling terminal and the standard streams that were terminals.
 * Async-signal-safe. */
int pty_child(const struct pty *p, struct ac_child_fail *f);
/* In another forked process of agentcage's (the guard): let go of the pty. */
void pty_forget(struct pty *p);
/* After fork: the caller's terminal raw, the relay thread started. 0 or -1
 * (reported; the run goes on without a relay only if nothing was changed). */
int pty_relay(struct pty *p);
/* SIGWINCH: the caller's window size to the agent's terminal. */
void pty_resize(struct pty *p);
/* The agent and its cage gone: the rest of its output relayed, the
 * caller's terminal and agentcage's stderr restored, everything closed. */
void pty_end(struct pty *p);
#endif
