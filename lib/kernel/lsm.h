// SPDX-License-Identifier: GPL-2.0-only
/* Is BPF LSM usable on this kernel? Checked once, answer cached. */
#ifndef AGENTCAGE_LSM_H
#define AGENTCAGE_LSM_H
#include <stddef.h>

/* 0 when "bpf" is in the active LSM list; else -1 with the cause and fix. */
int lsm_bpf_active(char *err, size_t errlen);
#endif
