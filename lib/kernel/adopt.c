// SPDX-License-Identifier: GPL-2.0-only
/* Adopting a pinned set of programs and maps (the daemon's restart): the
 * skeletons are opened but never loaded, every map is the pinned one
 * (bpf_map__reuse_fd), and the packet and device programs for new cages
 * are the pinned ones too. Nothing is detached or attached again, so the
 * cages stay enforced throughout. A pinned set this build does not match
 * (another map layout, a program it would attach that is not attached) is
 * refused whole: the old set stays as it is. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cage.skel.h"
#include "net.skel.h"
#include "agentcage/cage.h"
#include "agentcage/net.h"
#include "kernel/loader.h"

#define FIX "stop the agents in its cages and remove it (rm -r %s) to start afresh, " \
	"or run the agentcage build that made it"

static const char *cg_prog_name[LOADER_CG_PROGS] = { "ac_egress", "ac_ingress", "ac_device" };

/* maps whose capacity is set when the set is loaded (loader_set_sizes):
 * the pinned set's is kept */
static int sized(const struct bpf_map *m)
{
	static const char *const names[] = { "file_rules", "exec_rules", "net_rules", "unix_rules",
					     "cages", "budgets", "pkt_events", "events",
					     "fown_cage" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(bpf_map__name(m), names[i]))
			return 1;
	return 0;
}

/* the pinned map name, of this build's layout; a negative errno or 1 */
static int map_match(struct bpf_map *m, const char *dir, char *err, size_t errlen)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/map-%s", dir, bpf_map__name(m));
	if ((fd = bpf_obj_get(p)) < 0) {
		snprintf(err, errlen, "%s: map %s is not pinned (%s)", dir, bpf_map__name(m),
			 strerror(errno));
		return -1;
	}
	if (bpf_obj_get_info_by_fd(fd, &info, &len) || info.type != bpf_map__type(m) ||
	    info.key_size != bpf_map__key_size(m) || info.value_size != bpf_map__value_size(m) ||
	    (info.max_entries != bpf_map__max_entries(m) && !sized(m)) ||
	    info.map_flags != bpf_map__map_flags(m)) {
		snprintf(err, errlen, "%s: map %s (type %u, key %u, value %u, entries %u) differs "
			 "from this build's (type %u, key %u, value %u, entries %u)", dir,
			 bpf_map__name(m), info.type, info.key_size, info.value_size,
			 info.max_entries, bpf_map__type(m), bpf_map__key_size(m),
			 bpf_map__value_size(m), bpf_map__max_entries(m));
		close(fd);
		return -1;
	}
	if (bpf_map__reuse_fd(m, fd)) {
		snprintf(err, errlen, "%s: cannot use map %s: %s", dir, bpf_map__name(m),
			 strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* every map of obj (not .rodata/.bss), and a pinned link for every LSM
 * program this build would attach: a hook it has that the pinned set
 * lacks would otherwise go unenforced */
static int object_match(struct bpf_object *obj, const char *dir, char *err, size_t errlen)
{
	struct bpf_program *prog;
	struct bpf_map *m;
	char p[PATH_MAX];

	bpf_object__for_each_map(m, obj)
		if (!strchr(bpf_map__name(m), '.') && map_match(m, dir, err, errlen))
			return -1;
	bpf_object__for_each_program(prog, obj) {
		if (bpf_program__type(prog) != BPF_PROG_TYPE_LSM || !bpf_program__autoload(prog))
			continue;
		snprintf(p, sizeof(p), "%s/link-%s", dir, bpf_program__name(prog));
		if (access(p, F_OK)) {
			snprintf(err, errlen, "%s: program %s of this build is not attached there",
				 dir, bpf_program__name(prog));
			return -1;
		}
	}
	return 0;
}

static int progs_open(struct loader *l, const char *dir, char *err, size_t errlen)
{
	char p[PATH_MAX];

	for (int i = 0; i < LOADER_CG_PROGS; i++)
		l->cg_prog[i] = -1;
	l->adopted = 1;
	for (int i = 0; i < LOADER_CG_PROGS; i++) {
		snprintf(p, sizeof(p), "%s/prog-%s", dir, cg_prog_name[i]);
		if ((l->cg_prog[i] = bpf_obj_get(p)) < 0) {
			snprintf(err, errlen, "%s: program %s is not pinned (%s)", dir,
				 cg_prog_name[i], strerror(errno));
			return -1;
		}
	}
	return 0;
}

int loader_adopt(struct loader *l, const char *dir, event_fn on_event, void *ctx,
		 char *err, size_t errlen)
{
	char why[768];

	memset(l, 0, sizeof(*l));
	loader_sync_open(l);
	snprintf(l->pins, sizeof(l->pins), "%s", dir);
	if (!(l->skel = cage_bpf__open()) || !(l->net = net_bpf__open())) {
		snprintf(err, errlen, "cannot open the BPF programs: %s", strerror(errno));
		goto fail;
	}
	loader_autoload(l);
	if (object_match(l->skel->obj, dir, why, sizeof(why)) ||
	    object_match(l->net->obj, dir, why, sizeof(why)) || progs_open(l, dir, why, sizeof(why))) {
		snprintf(err, errlen, "the pinned set is from an incompatible build: %s; " FIX, why,
			 dir);
		goto fail;
	}
	l->on_event = on_event;
	l->ctx = ctx;
	l->rb = ring_buffer__new(bpf_map__fd(l->net->maps.events), loader_sample, l, NULL);
	if (!l->rb) {
		snprintf(err, errlen, "cannot open the pinned event ring buffer: %s", strerror(errno));
		goto fail;
	}
	return 0;
fail:
	loader_close(l);
	return -1;
}

int loader_pin_progs(struct loader *l, const char *dir, char *err, size_t errlen)
{
	struct bpf_program *progs[LOADER_CG_PROGS] = {
		l->net->progs.ac_egress, l->net->progs.ac_ingress, l->skel->progs.ac_device };
	char p[PATH_MAX];

	for (int i = 0; i < LOADER_CG_PROGS; i++) {
		snprintf(p, sizeof(p), "%s/prog-%s", dir, cg_prog_name[i]);
		if (bpf_obj_pin(bpf_program__fd(progs[i]), p)) {
			snprintf(err, errlen, "cannot pin %s: %s", p, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static const enum bpf_attach_type cg_attach[LOADER_CG_PROGS] = {
	BPF_CGROUP_INET_EGRESS, BPF_CGROUP_INET_INGRESS, BPF_CGROUP_DEVICE };

/* A link of program which on cgroup cgfd as a struct bpf_link: libbpf
 * makes one only from a pin, so it is pinned for a moment, opened and
 * unpinned. */
struct bpf_link *loader_adopted_link(struct loader *l, int cgfd, enum loader_cg_prog which)
{
	struct bpf_link *link = NULL;
	char p[PATH_MAX];
	int fd = bpf_link_create(l->cg_prog[which], cgfd, cg_attach[which], NULL);

	if (fd < 0)
		return NULL;
	snprintf(p, sizeof(p), "%s/tmp-link-%d-%d", l->pins, (int)getpid(), (int)which);
	if (bpf_obj_pin(fd, p) == 0) {
		link = bpf_link__open(p);
		if (link)
			bpf_link__unpin(link);
		else
			unlink(p);
	}
	close(fd);
	return link;
}

int loader_adopted_attach(struct loader *l, int cgfd, struct cage_links *cl)
{
	cl->egress = loader_adopted_link(l, cgfd, LOADER_EGRESS);
	if (cl->egress)
		cl->ingress = loader_adopted_link(l, cgfd, LOADER_INGRESS);
	if (cl->ingress)
		cl->dev = loader_adopted_link(l, cgfd, LOADER_DEVICE);
	if (!cl->dev) {
		loader_detach_cgroup(cl);
		return -1;
	}
	return 0;
}

/* every key of fd (ksize bytes; the policy id its second u32) whose id
 * gone() says goes */
static void purge(int fd, size_t ksize, int (*gone)(uint32_t id, const void *ctx),
		  const void *ctx)
{
	char *keys = NULL, *k = calloc(2, ksize);
	size_t n = 0, cap = 0;
	void *prev = NULL;

	while (k && bpf_map_get_next_key(fd, prev, k + ksize) == 0) {
		memcpy(k, k + ksize, ksize);
		prev = k;
		if (!gone(((uint32_t *)k)[1], ctx))
			continue;
		if (n == cap) {
			char *p = realloc(keys, (cap = cap ? 2 * cap : 64) * ksize);

			if (!p)
				break;
			keys = p;
		}
		memcpy(keys + n++ * ksize, k, ksize);
	}
	for (size_t i = 0; i < n; i++)
		bpf_map_delete_elem(fd, keys + i * ksize);
	free(keys);
	free(k);
}

static void purge_all(struct loader *l, int (*gone)(uint32_t id, const void *ctx),
		      const void *ctx)
{
	if (l->skel) {
		purge(bpf_map__fd(l->skel->maps.file_rules), sizeof(struct ac_key), gone, ctx);
		purge(bpf_map__fd(l->skel->maps.exec_rules), sizeof(struct ac_key), gone, ctx);
		purge(bpf_map__fd(l->skel->maps.patterns), sizeof(struct ac_pat_key), gone, ctx);
	}
	purge(bpf_map__fd(l->net->maps.unix_rules), sizeof(struct ac_key), gone, ctx);
	purge(bpf_map__fd(l->net->maps.net_rules), sizeof(struct ac_net_key), gone, ctx);
}

static int is_id(uint32_t id, const void *ctx)
{
	return id == *(const uint32_t *)ctx;
}

void loader_purge_policy(struct loader *l, uint32_t policy)
{
	if (policy)
		purge_all(l, is_id, &policy);
}

struct idset {
	uint32_t *id;
	size_t n;
};

static int cmp_id(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int unreferenced(uint32_t id, const void *ctx)
{
	const struct idset *s = ctx;

	return !bsearch(&id, s->id, s->n, sizeof(*s->id), cmp_id);
}

int loader_purge_unreferenced(struct loader *l)
{
	int fd = bpf_map__fd(l->net->maps.cages);
	struct idset s = { 0 };
	uint64_t key, *prev = NULL;
	size_t cap = 0;
	struct ac_cage c;

	while (bpf_map_get_next_key(fd, prev, &key) == 0) {
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &c))
			continue;
		if (s.n + 2 > cap) {
			uint32_t *p = realloc(s.id, (cap = cap ? 2 * cap : 64) * sizeof(*p));

			if (!p) {
				free(s.id);
				return -1;     /* nothing purged: a leak, never a rule lost */
			}
			s.id = p;
		}
		s.id[s.n++] = c.policy;
		s.id[s.n++] = c.net_policy;
	}
	qsort(s.id, s.n, sizeof(*s.id), cmp_id);
	purge_all(l, unreferenced, &s);
	free(s.id);
	return 0;
}
