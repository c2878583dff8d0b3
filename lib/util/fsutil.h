// SPDX-License-Identifier: GPL-2.0-only
/* File-system helpers shared by the verbs. */
#ifndef AGENTCAGE_FSUTIL_H
#define AGENTCAGE_FSUTIL_H

/* Remove dir and everything below it, deepest first, never following
 * symlinks. Entries that cannot be removed (cgroup control files) are
 * skipped. Returns 0 when dir is gone, -1 otherwise. */
int rm_tree(const char *dir);
/* Is the process pid, whose number names a leftover (cgroup, tmp dir), gone? */
int owner_gone(long pid);
/* Remove the private tmp directories (/tmp/agentcage-PID-XXXXXX, root's)
 * of agentcage processes that are gone. */
void tmp_sweep(void);
#endif
