// SPDX-License-Identifier: GPL-2.0-only
/* Inherited descriptors: the agent keeps 0-2 only. */
#ifndef AGENTCAGE_HARDEN_FDS_H
#define AGENTCAGE_HARDEN_FDS_H
#include "harden/harden.h"

/* In the child (async-signal-safe): close every descriptor >= 3 except
 * `keep` (-1 for none; e.g. a CLOEXEC pipe that reports exec failure).
 * close_range(2); on kernels before 5.9, a loop up to RLIMIT_NOFILE. */
int ac_fds_close(int keep, struct ac_child_fail *f);
#endif
