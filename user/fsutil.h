/* File-system helpers shared by the verbs. */
#ifndef AGENTCAGE_FSUTIL_H
#define AGENTCAGE_FSUTIL_H

/* Remove dir and everything below it, deepest first, never following
 * symlinks. Entries that cannot be removed (cgroup control files) are
 * skipped. Returns 0 when dir is gone, -1 otherwise. */
int rm_tree(const char *dir);
#endif
