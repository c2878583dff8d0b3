// SPDX-License-Identifier: GPL-2.0
/* Shared by every agentcage BPF object: the maps, the path walk, verdicts
 * and events, each in a header of its own. */
#ifndef AGENTCAGE_CAGE_COMMON_BPF_H
#define AGENTCAGE_CAGE_COMMON_BPF_H
#include "compat.bpf.h"
#include "maps.bpf.h"
#include "walk.bpf.h"
#include "verdict.bpf.h"
#endif
