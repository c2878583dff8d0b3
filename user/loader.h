/* The BPF side: load and attach the programs, write policy into maps. */
#ifndef AGENTCAGE_LOADER_H
#define AGENTCAGE_LOADER_H
#include <stdint.h>
#include "rules.h"

struct cage_bpf;
struct ring_buffer;

struct loader {
	struct cage_bpf *skel;
	struct ring_buffer *rb;
};

typedef int (*event_fn)(void *ctx, void *data, size_t len);

int loader_open(struct loader *l, uint64_t parent_cgid, uint32_t parent_level,
		event_fn on_event, void *ctx, char *err, size_t errlen);
/* Write rs's rules under policy id; all or nothing. */
int loader_put_rules(struct loader *l, uint32_t policy, const struct ruleset *rs,
		     char *err, size_t errlen);
void loader_del_rules(struct loader *l, uint32_t policy, const struct ruleset *rs);
/* Point cage cgid at policy id (one atomic map update). */
int loader_set_cage(struct loader *l, uint64_t cgid, uint32_t policy, int audit);
int loader_epoll_fd(struct loader *l);
int loader_poll(struct loader *l);
uint64_t loader_lost(struct loader *l);
void loader_close(struct loader *l);
#endif
