// SPDX-License-Identifier: GPL-2.0-only
/* A cage: its cgroup, the packet programs on it, and the policy in force,
 * written into the shared maps under ids of the loader's. One struct
 * loader serves any number of cages. Every change of policy is one
 * transaction: the new rules under ids not in force, one update of the
 * cages map entry (with a new generation), then, once no program can still
 * be reading them, the old rules retired; when any step fails the cage
 * keeps its old policy and nothing of the new one stays in the maps.
 *
 * The file and exec rules not in force stay in the maps as the cage's
 * spare, under their id, when the loader allows ids to come back: the next
 * switch writes the difference between them and the new policy there and
 * points the cage at that id. A reload that changes one rule of 10,000
 * writes one rule, not 20,000 trie entries. The caches of decisions are
 * tagged with the generation, which never comes back. */
#ifndef AGENTCAGE_CAGE_CAGE_H
#define AGENTCAGE_CAGE_CAGE_H
#include <stdint.h>
#include "cage/cgroup.h"
#include "kernel/loader.h"
#include "policy/compile.h"
#include "util/error.h"

struct cage {
	struct loader *ld;
	struct cage_cgroup cg;
	struct cage_links links;         /* the packet programs on cg */
	struct compiled_policy policy;   /* in force (owned); its name is the cage's */
	uint32_t policy_id, net_id;      /* its ids in the maps; 0: not installed */
	uint32_t gen;                    /* its ac_cage.gen */
	int audit;
	uint32_t spare_id;               /* 0: no spare */
	struct ruleset spare;            /* the spare's rules (trie and exec) */
	/* the maps may hold other rules under policy_id and net_id than
	 * policy's (an adopted cage's, compiled again by another daemon):
	 * they go by their ids, never become a spare */
	int unknown_rules;
};

/* Make agentcage's parent cgroup and load the programs into ld for cages
 * under it (loader_open's flags). */
int cage_loader_open(struct loader *ld, int flags, event_fn on_event, void *ctx,
		     struct ac_error *e);
/* A new cage named name: its cgroup, with ld's packet programs attached.
 * It has no policy yet, and no task may enter it before cage_install. */
int cage_create(struct cage *c, struct loader *ld, const char *name, struct ac_error *e);
/* The same with the cgroup named name exactly (parent/name, not
 * parent/name-PID): the daemon's named cages. */
int cage_create_named(struct cage *c, struct loader *ld, const char *name, struct ac_error *e);
/* Its first policy. On success *cp is the cage's (and *cp is emptied);
 * on failure *cp stays the caller's. */
int cage_install(struct cage *c, struct compiled_policy *cp, struct ac_error *e);
/* Switch to a new policy (file, exec, unix and network rules, mode), all
 * or nothing, as cage_install hands cp over. The cage keeps its name. */
int cage_swap(struct cage *c, struct compiled_policy *cp, struct ac_error *e);
/* Switch to network rules compiled again from c->policy.hosts (after new
 * addresses were merged in); file rules and mode stay. All or nothing. */
int cage_swap_net(struct cage *c, struct ac_error *e);
/* Delete the cage's spare rules (room in the rule maps). */
void cage_drop_spare(struct cage *c);
/* Kill what is left in the cage, detach its programs, remove its cgroup,
 * then delete its cages map entry and its rules, and free its policy. */
void cage_teardown(struct cage *c);
#endif
