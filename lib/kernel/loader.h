// SPDX-License-Identifier: GPL-2.0-only
/* The BPF side: load and attach the programs, write policy into maps. */
#ifndef AGENTCAGE_LOADER_H
#define AGENTCAGE_LOADER_H
#include <stdint.h>
#include "policy/rules.h"

struct cage_bpf;
struct net_bpf;
struct ring_buffer;
struct bpf_link;
struct netset;

/* One set of programs and maps for any number of cages: each cage is an
 * entry of the cages map (loader_set_cage) and, for its packets, a pair of
 * links on its cgroup (loader_attach_cgroup). */

typedef int (*event_fn)(void *ctx, void *data, size_t len);

/* events handled by one loader_poll at most: a cage that makes events as
 * fast as the ring buffer takes them never keeps its reader from its other
 * work (signals, the control socket); the rest wait for the next poll */
#define LOADER_POLL_MAX 4096

struct loader {
	struct cage_bpf *skel;      /* file, exec, containment: BPF LSM */
	struct net_bpf *net;        /* network: cgroup_skb and BPF LSM */
	struct ring_buffer *rb;
	event_fn on_event;          /* the reader's, called by loader_sample */
	void *ctx;
	unsigned polled;            /* events in this loader_poll */
	uint32_t last_policy_id;    /* loader_new_policy_id */
	/* loader_adopt: the skeletons are opened, never loaded; their maps are
	 * the pinned ones, and the packet and device programs these fds */
	int adopted;
	int cg_prog[3];             /* enum loader_cg_prog */
	char pins[256];             /* the pinned set's directory */
	/* The programs tag their caches with ac_cage.gen, so a policy id may
	 * come back (lib/cage's spare): 1 for programs loaded by this build; an
	 * adopted set's says its daemon (programs of an older build keyed their
	 * caches by policy id) */
	int reuse_ids;
	int sync_ok, sync_fd[2];    /* loader_quiesce's maps (outer, inner), if sync_ok */
	int unquiesced;             /* a cages map entry replaced since the last quiesce */
};

enum loader_cg_prog { LOADER_EGRESS, LOADER_INGRESS, LOADER_DEVICE, LOADER_CG_PROGS };

/* the packet programs and the device program attached to one cage's cgroup */
#define LOADER_ADDR_PROGS 6

struct cage_links {
	struct bpf_link *egress, *ingress;
	struct bpf_link *dev;       /* NULL with LOADER_NO_LSM */
	/* connect, sendmsg and bind, v4 and v6: LOADER_SOCK_ADDR only */
	struct bpf_link *addr[LOADER_ADDR_PROGS];
};

/* the ring buffer's callback: on_event, at most LOADER_POLL_MAX times a poll */
int loader_sample(void *ctx, void *data, size_t len);

enum loader_flags {
	LOADER_NO_LSM = 1,   /* cgroup_skb programs only (host tests and benchmarks) */
	LOADER_TASK_SCRATCH = 2,   /* tests: never the per-CPU scratch, always the task's own */
	/* with LOADER_NO_LSM: the cgroup sock_addr programs too, which refuse a
	 * peer up front (EPERM) where no LSM program does (the Landlock enforcer) */
	LOADER_SOCK_ADDR = 4,
};


int loader_open(struct loader *l, uint64_t parent_cgid, uint32_t parent_level, int flags,
		event_fn on_event, void *ctx, char *err, size_t errlen);
/* Adopt the set pinned under dir by pin_loader and loader_pin_progs (an
 * earlier process's, its programs still attached): open its maps and
 * programs, load and attach nothing. Refused, with err naming what
 * differs and the fix, when the pinned set does not match this build. */
int loader_adopt(struct loader *l, const char *dir, event_fn on_event, void *ctx,
		 char *err, size_t errlen);
/* Pin the packet and device programs under dir (prog-NAME), for
 * loader_adopt. */
int loader_pin_progs(struct loader *l, const char *dir, char *err, size_t errlen);
/* internal: loader_quiesce's maps, at the start of loader_open and loader_adopt */
void loader_sync_open(struct loader *l);
/* internal: the autoload switches of l->skel for this kernel */
void loader_autoload(struct loader *l);
/* internal: loader_attach_cgroup for an adopted set */
int loader_adopted_attach(struct loader *l, int cgfd, struct cage_links *cl);
/* One of the adopted set's cgroup programs attached to cgroup cgfd. */
struct bpf_link *loader_adopted_link(struct loader *l, int cgfd, enum loader_cg_prog which);
/* Delete every rule of policy id from the rule maps (when its rules are
 * not known, as for an adopted cage's). */
void loader_purge_policy(struct loader *l, uint32_t policy);
/* Delete every rule whose policy id no entry of the cages map names: what
 * an earlier process left (its cages' spares, which only it knew). Call
 * before any new rules are written. 0, or -1 (no memory: nothing purged). */
int loader_purge_unreferenced(struct loader *l);
/* Attach the packet programs to a cage's cgroup (a cgroup agentcage made). */
int loader_attach_cgroup(struct loader *l, const char *cgroup_path, struct cage_links *cl,
			 char *err, size_t errlen);
/* Detach them again (only once the cage is empty): removing a cgroup with
 * programs attached is slow. */
void loader_detach_cgroup(struct cage_links *cl);
/* No caged task may connect to the unix socket fd, whatever its policy lists
 * (the daemon's control socket): call before it listens. 0 or -1. */
int loader_guard_socket(struct loader *l, int fd);
/* A number never given out before in this load (1, 2, ...), for a policy
 * id or a generation (ac_cage.gen, which the directory cache and the
 * created-file marks remember, and which never comes back). -1 when all
 * 2^32 - 1 have been used (never wraps). */
int loader_new_policy_id(struct loader *l, uint32_t *id);
/* Write rs's rules under policy id; all or nothing. */
int loader_put_rules(struct loader *l, uint32_t policy, const struct ruleset *rs,
		     char *err, size_t errlen);
void loader_del_rules(struct loader *l, uint32_t policy, const struct ruleset *rs);
/* Write rs's patterns under policy id, and remove any other there (the
 * spare's of a delta); -1 with err. */
int loader_put_patterns(struct loader *l, uint32_t policy, const struct ruleset *rs,
			char *err, size_t errlen);
/* Turn the file and exec rules under policy id into another set by their
 * differences (rules_delta: files, exec); -1 with err part way. */
int loader_put_delta(struct loader *l, uint32_t policy, const struct rule_delta *files,
		     const struct rule_delta *exec, char *err, size_t errlen);
/* Return once every program that may have begun before the call has
 * returned (an RCU grace period): then no program still uses what the
 * cages map held before. 0, or -1 when it cannot be waited for. */
int loader_quiesce(struct loader *l);
/* Write network rules (trie nodes) and unix peer rules under policy id; all or nothing. */
int loader_put_net(struct loader *l, uint32_t policy, const struct netset *ns,
		   const struct rule *unix_rules, size_t nunix, char *err, size_t errlen);
void loader_del_net(struct loader *l, uint32_t policy, const struct netset *ns,
		    const struct rule *unix_rules, size_t nunix);
/* Point cage cgid at its policy ids and generation (one atomic map update).
 * replace: cgid has an entry already. The cages map is a preallocated hash,
 * whose update of an existing key recycles the old element for the next
 * such update on that CPU at once, while a program may still read it: a
 * replacement waits first for the one before it to be quiesced
 * (loader_quiesce, else here; -1 when it cannot be). */
int loader_set_cage(struct loader *l, uint64_t cgid, uint32_t policy, uint32_t net_policy,
		    uint32_t gen, int audit, int replace);
/* Forget cage cgid (its rules stay until loader_del_rules/loader_del_net). */
int loader_del_cage(struct loader *l, uint64_t cgid);
/* fd of a map of the network object, for tests: "net_rules", "cages", ... */
int loader_net_map_fd(struct loader *l, const char *name);
int loader_prog_fd(struct loader *l, int egress);
int loader_epoll_fd(struct loader *l);
int loader_poll(struct loader *l);
/* loader_poll until nothing waits (at most 256 polls): at a run's end */
void loader_drain(struct loader *l);
/* sum over CPUs of one counter (enum ac_stat) */
uint64_t loader_stat(struct loader *l, uint32_t idx);
/* The event budget of every cage of the programs loaded from now on
 * (AC_CAGE_EVENTS_PER_SEC unless set), and what it is. */
void loader_set_budget(uint32_t per_sec);
uint32_t loader_budget(void);
/* The capacities of the maps of the programs loaded from now on (0: the
 * programs' own, which loader_sizes_default gives): rules of the file
 * and exec tries (each), network trie entries, unix peers, cages (the
 * cages, budgets and packet-event maps), and the ring buffer's bytes (a
 * power of two, at least a page). An adopted set keeps its own sizes. */
struct loader_sizes {
	uint32_t file_rules, net_rules, unix_rules, cages, ring_bytes;
	uint32_t owners_per_cage;  /* records of file owners a cage may hold (see
				    * bpf/isolate.bpf.h); 0: one cage, the whole map */
};
#define LOADER_OWNERS_PER_CAGE 64          /* the daemon's */
#define LOADER_OWNERS_MAX (1u << 22)       /* the map's entries at most */
void loader_set_sizes(const struct loader_sizes *s);
void loader_sizes_default(struct loader_sizes *s);
/* the sizes of l's maps as loaded or adopted */
void loader_sizes_of(struct loader *l, struct loader_sizes *s);
/* events of the cage cgid not sent because they were over its budget
 * (AC_CAGE_EVENTS_PER_SEC); 0 for a cage without an entry */
uint64_t loader_over_budget(struct loader *l, uint64_t cgid);
void loader_close(struct loader *l);
#endif
