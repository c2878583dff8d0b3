// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include "cage.skel.h"
#include "net.skel.h"
#include "policy/netrules.h"
#include "kernel/loader.h"

/* number of arguments of LSM hook `name` in the running kernel, or -1 */
static int hook_nargs(const struct btf *btf, const char *name)
{
	const struct btf_type *t;
	int id;

	if (!btf)
		return -1;
	id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
	if (id > 0 && (t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type)))
		return btf_vlen(t);
	return -1;
}

/* The network object's LSM programs, and its sock_addr ones (for the
 * cage's cgroup, where no LSM program checks the same calls), each with
 * its own autoload switch. */
static void net_autoload(struct net_bpf *n, bool lsm, bool sock_addr)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, n->obj)
		if (bpf_program__type(p) == BPF_PROG_TYPE_LSM)
			bpf_program__set_autoload(p, lsm);
		else if (bpf_program__type(p) == BPF_PROG_TYPE_CGROUP_SOCK_ADDR)
			bpf_program__set_autoload(p, sock_addr);
}

static void load_error(int ret, char *err, size_t errlen)
{
	if (ret == -EPERM || errno == EPERM)
		snprintf(err, errlen, "the kernel refused to load BPF LSM programs (EPERM): "
			 "BPF LSM is listed but program loading is not permitted here "
			 "(kernel lockdown or a policy forbids it); run on a kernel that "
			 "allows BPF LSM (lsm=...,bpf, lockdown not 'confidentiality')");
	else
		snprintf(err, errlen, "the kernel refused the BPF programs (%s); "
			 "run with -v to see the verifier log", strerror(-ret));
}

/* Which of the file object's programs this kernel gets: hooks whose
 * argument count differs between kernels have one variant each. */
void loader_autoload(struct loader *l)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int n;

	n = hook_nargs(btf, "bpf_lsm_bpf");
	bpf_program__set_autoload(l->skel->progs.ac_bpf4, n == 4);
	bpf_program__set_autoload(l->skel->progs.ac_bpf3, n != 4);
	n = hook_nargs(btf, "bpf_lsm_inode_setattr");
	bpf_program__set_autoload(l->skel->progs.ac_inode_setattr2, n == 2);
	bpf_program__set_autoload(l->skel->progs.ac_inode_setattr3, n != 2);
	n = hook_nargs(btf, "bpf_lsm_uring_sqpoll");   /* no io_uring: nothing to refuse */
	bpf_program__set_autoload(l->skel->progs.ac_uring_sqpoll, n >= 0);
	bpf_program__set_autoload(l->skel->progs.ac_uring_override_creds, n >= 0);
	n = hook_nargs(btf, "bpf_lsm_file_ioctl_compat");   /* 6.8 on */
	bpf_program__set_autoload(l->skel->progs.ac_file_ioctl_compat, n >= 0);
	n = hook_nargs(btf, "bpf_lsm_key_free");   /* gone after 6.9 */
	bpf_program__set_autoload(l->skel->progs.ac_key_free, n >= 0);
	n = hook_nargs(btf, "bpf_lsm_path_rename");
	bpf_program__set_autoload(l->skel->progs.ac_path_rename4, n == 4);
	bpf_program__set_autoload(l->skel->progs.ac_path_rename5, n != 4);
	btf__free(btf);
}

static uint32_t events_per_sec = AC_CAGE_EVENTS_PER_SEC;

void loader_set_budget(uint32_t per_sec)
{
	events_per_sec = per_sec;
}

uint32_t loader_budget(void)
{
	return events_per_sec;
}

static struct loader_sizes sizes;   /* 0: the programs' own */

void loader_set_sizes(const struct loader_sizes *s)
{
	sizes = *s;
}

/* n entries for m, when n is set */
static void size_map(struct bpf_map *m, uint32_t n)
{
	if (n)
		bpf_map__set_max_entries(m, n);
}

/* the maps each object has, shared when both are loaded (the net
 * object's copies then follow the cage object's by reuse_fd) */
static void size_shared(struct bpf_map *cages, struct bpf_map *budgets, struct bpf_map *events)
{
	size_map(cages, sizes.cages);
	size_map(budgets, sizes.cages);
	size_map(events, sizes.ring_bytes);
}

/* The map of file owners with owners_per_cage set (the daemon): that many
 * records for each cage the cages map holds, up to LOADER_OWNERS_MAX in
 * all, and each cage limited to its equal share of them, so that no cage
 * can fill the map for the others. Unset (a standalone run, one cage): the
 * program's own size, all of it for the cage. */
static void size_owners(struct cage_bpf *skel)
{
	uint32_t cages = bpf_map__max_entries(skel->maps.cages);
	uint64_t n = (uint64_t)cages * sizes.owners_per_cage;

	if (!sizes.owners_per_cage || !cages)
		return;
	if (n > LOADER_OWNERS_MAX)
		n = LOADER_OWNERS_MAX;
	bpf_map__set_max_entries(skel->maps.fown_cage, (uint32_t)n);
	skel->rodata->cage_fown_max = n / cages ? (uint32_t)(n / cages) : 1;
}

/* before a load: the capacities asked for */
static void apply_sizes(struct cage_bpf *skel, struct net_bpf *net)
{
	if (skel) {
		size_map(skel->maps.file_rules, sizes.file_rules);
		size_map(skel->maps.exec_rules, sizes.file_rules);
		size_shared(skel->maps.cages, skel->maps.budgets, skel->maps.events);
		size_owners(skel);
	}
	if (net) {
		size_map(net->maps.net_rules, sizes.net_rules);
		size_map(net->maps.unix_rules, sizes.unix_rules);
		size_map(net->maps.pkt_events, sizes.cages);
		size_shared(net->maps.cages, net->maps.budgets, net->maps.events);
	}
}

void loader_sizes_default(struct loader_sizes *s)
{
	struct net_bpf *net = net_bpf__open();
	struct cage_bpf *skel = cage_bpf__open();

	memset(s, 0, sizeof(*s));
	if (skel) {
		s->file_rules = bpf_map__max_entries(skel->maps.file_rules);
		s->cages = bpf_map__max_entries(skel->maps.cages);
		s->ring_bytes = bpf_map__max_entries(skel->maps.events);
	}
	if (net) {
		s->net_rules = bpf_map__max_entries(net->maps.net_rules);
		s->unix_rules = bpf_map__max_entries(net->maps.unix_rules);
	}
	cage_bpf__destroy(skel);
	net_bpf__destroy(net);
}

void loader_sizes_of(struct loader *l, struct loader_sizes *s)
{
	struct bpf_map_info info;
	__u32 len;
	uint32_t owners = 0;
	struct { int fd; uint32_t *out; } m[] = {
		{ l->skel ? bpf_map__fd(l->skel->maps.file_rules) : -1, &s->file_rules },
		{ bpf_map__fd(l->net->maps.net_rules), &s->net_rules },
		{ bpf_map__fd(l->net->maps.unix_rules), &s->unix_rules },
		{ bpf_map__fd(l->net->maps.cages), &s->cages },
		{ bpf_map__fd(l->net->maps.events), &s->ring_bytes },
		{ l->skel ? bpf_map__fd(l->skel->maps.fown_cage) : -1, &owners },
	};

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (m[i].fd >= 0 && !bpf_obj_get_info_by_fd(m[i].fd, &info, &len))
			*m[i].out = info.max_entries;
	}
	/* size_owners' share, for a set loaded with owners_per_cage */
	s->owners_per_cage = s->cages ? owners / s->cages : 0;
}

/* An update of a map-in-map waits for an RCU grace period before it
 * returns (maybe_wait_bpf_programs, kernel/bpf/syscall.c, since 4.19: "so
 * that userspace knows that all programs that could be running use the new
 * map value"); the kernel's selftests make synchronize_rcu() so. The LSM
 * and packet programs run under rcu_read_lock (none is sleepable). */
void loader_sync_open(struct loader *l)
{
	LIBBPF_OPTS(bpf_map_create_opts, o);

	l->sync_ok = 0;
	l->sync_fd[1] = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ac_sync_in", 4, 4, 1, NULL);
	if (l->sync_fd[1] < 0)
		return;
	o.inner_map_fd = l->sync_fd[1];
	l->sync_fd[0] = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "ac_sync", 4, 4, 1, &o);
	if (l->sync_fd[0] < 0)
		close(l->sync_fd[1]);
	else
		l->sync_ok = 1;
}

static void sync_close(struct loader *l)
{
	if (l->sync_ok) {
		close(l->sync_fd[0]);
		close(l->sync_fd[1]);
	}
	l->sync_ok = 0;
}

int loader_open(struct loader *l, uint64_t parent_cgid, uint32_t parent_level, int flags,
		event_fn on_event, void *ctx, char *err, size_t errlen)
{
	int ret;

	memset(l, 0, sizeof(*l));
	loader_sync_open(l);
	l->reuse_ids = 1;
	if (!(flags & LOADER_NO_LSM)) {
		l->skel = cage_bpf__open();
		if (!l->skel) {
			snprintf(err, errlen, "cannot open the BPF programs: %s", strerror(errno));
			return -1;
		}
		l->skel->rodata->cage_parent_cgid = parent_cgid;
		l->skel->rodata->cage_parent_level = parent_level;
		l->skel->rodata->scratch_task_only = !!(flags & LOADER_TASK_SCRATCH);
		l->skel->rodata->cage_events_per_sec = events_per_sec;
		loader_autoload(l);
		apply_sizes(l->skel, NULL);
		ret = cage_bpf__load(l->skel);
		if (ret) {
			load_error(ret, err, errlen);
			goto fail;
		}
	}
	l->net = net_bpf__open();
	if (!l->net) {
		snprintf(err, errlen, "cannot open the BPF network programs: %s", strerror(errno));
		goto fail;
	}
	l->net->rodata->cage_parent_cgid = parent_cgid;
	l->net->rodata->cage_parent_level = parent_level;
	l->net->rodata->scratch_task_only = !!(flags & LOADER_TASK_SCRATCH);
	l->net->rodata->cage_events_per_sec = events_per_sec;
	net_autoload(l->net, !(flags & LOADER_NO_LSM),
		     (flags & (LOADER_NO_LSM | LOADER_SOCK_ADDR)) == (LOADER_NO_LSM | LOADER_SOCK_ADDR));
	apply_sizes(NULL, l->net);
	if (l->skel) {
		/* one set of cages, events, stats and scratch maps for both objects */
		if (bpf_map__reuse_fd(l->net->maps.cages, bpf_map__fd(l->skel->maps.cages)) ||
		    bpf_map__reuse_fd(l->net->maps.events, bpf_map__fd(l->skel->maps.events)) ||
		    bpf_map__reuse_fd(l->net->maps.stats, bpf_map__fd(l->skel->maps.stats)) ||
		    bpf_map__reuse_fd(l->net->maps.budgets, bpf_map__fd(l->skel->maps.budgets)) ||
		    bpf_map__reuse_fd(l->net->maps.scratch_store,
				      bpf_map__fd(l->skel->maps.scratch_store)) ||
		    bpf_map__reuse_fd(l->net->maps.scratch_pc,
				      bpf_map__fd(l->skel->maps.scratch_pc))) {
			snprintf(err, errlen, "cannot share maps between BPF objects: %s",
				 strerror(errno));
			goto fail;
		}
	}
	ret = net_bpf__load(l->net);
	if (ret) {
		load_error(ret, err, errlen);
		goto fail;
	}
	if (l->skel && (ret = cage_bpf__attach(l->skel))) {
		snprintf(err, errlen, "cannot attach the BPF LSM programs: %s", strerror(-ret));
		goto fail;
	}
	/* the LSM programs of the network object; the packet programs are
	 * attached to the cage's cgroup by loader_attach_cgroup */
	if (l->skel && (ret = net_bpf__attach(l->net))) {
		snprintf(err, errlen, "cannot attach the BPF LSM socket programs: %s", strerror(-ret));
		goto fail;
	}
	l->on_event = on_event;
	l->ctx = ctx;
	l->rb = ring_buffer__new(bpf_map__fd(l->net->maps.events), loader_sample, l, NULL);
	if (!l->rb) {
		snprintf(err, errlen, "cannot open the event ring buffer: %s", strerror(errno));
		goto fail;
	}
	return 0;
fail:
	loader_close(l);
	return -1;
}

/* The sock_addr programs, where they were loaded; 0 or -1 (errno). */
static int attach_addr(struct loader *l, int fd, struct cage_links *cl)
{
	struct bpf_program *p[LOADER_ADDR_PROGS] = {
		l->net->progs.ac_connect4, l->net->progs.ac_connect6, l->net->progs.ac_sendmsg4,
		l->net->progs.ac_sendmsg6, l->net->progs.ac_bind4, l->net->progs.ac_bind6 };

	if (!bpf_program__autoload(p[0]))
		return 0;
	for (int i = 0; i < LOADER_ADDR_PROGS; i++)
		if (!(cl->addr[i] = bpf_program__attach_cgroup(p[i], fd)))
			return -1;
	return 0;
}

int loader_attach_cgroup(struct loader *l, const char *path, struct cage_links *cl,
			 char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret;

	if (fd < 0) {
		snprintf(err, errlen, "cannot open cgroup %s: %s", path, strerror(errno));
		return -1;
	}
	cl->ingress = cl->dev = NULL;
	memset(cl->addr, 0, sizeof(cl->addr));
	if (l->adopted) {
		ret = loader_adopted_attach(l, fd, cl);
		close(fd);
		if (ret)
			snprintf(err, errlen, "cannot attach the packet and device programs to "
				 "cgroup %s: %s", path, strerror(errno));
		return ret;
	}
	cl->egress = bpf_program__attach_cgroup(l->net->progs.ac_egress, fd);
	if (cl->egress)
		cl->ingress = bpf_program__attach_cgroup(l->net->progs.ac_ingress, fd);
	/* the device program: skeleton attach skips cgroup/dev programs */
	if (cl->ingress && l->skel)
		cl->dev = bpf_program__attach_cgroup(l->skel->progs.ac_device, fd);
	ret = cl->ingress && (l->skel || !attach_addr(l, fd, cl));
	close(fd);
	if (!ret || (l->skel && !cl->dev)) {
		snprintf(err, errlen, "cannot attach the packet and device programs to cgroup %s: %s", path,
			 strerror(errno));
		loader_detach_cgroup(cl);
		return -1;
	}
	return 0;
}

int loader_guard_socket(struct loader *l, int fd)
{
	struct stat st;
	uint64_t ino;
	uint8_t one = 1;

	if (!l->net || fstat(fd, &st))
		return -1;
	ino = st.st_ino;
	return bpf_map_update_elem(bpf_map__fd(l->net->maps.guarded_socks), &ino, &one, BPF_ANY);
}

int loader_new_policy_id(struct loader *l, uint32_t *id)
{
	if (l->last_policy_id == UINT32_MAX)
		return -1;
	*id = ++l->last_policy_id;
	return 0;
}

static void fill_key(struct ac_key *k, uint32_t policy, const struct rule *r)
{
	memset(k, 0, sizeof(*k));
	k->policy = policy;
	k->prefixlen = 32 + r->len * 8;
	memcpy(k->path, r->key, r->len);
}

/* Rules go into the kernel in batches (BPF_MAP_UPDATE_BATCH and
 * BPF_MAP_DELETE_BATCH, 5.6 on): one system call, and one pass of the
 * bpf() hooks, per BATCH rules instead of per rule; a kernel that has no
 * batch operations for the map (or memory short for the batch) gets them
 * one at a time, as before. The order of the rules is the same. */
#define BATCH 256

struct batch {
	struct ac_key k[BATCH];
	uint32_t v[BATCH];
};

static size_t fill_batch(struct batch *b, uint32_t policy, const struct rule *r, size_t n)
{
	size_t m = n < BATCH ? n : BATCH;

	for (size_t i = 0; i < m; i++) {
		fill_key(&b->k[i], policy, &r[i]);
		b->v[i] = r[i].cls;
	}
	return m;
}

/* Both fall back to one rule a system call from the first rule a batch
 * may not have done: a kernel without batches for the map (or short of
 * memory for one) may leave the count as it was, so it says nothing then;
 * a put (BPF_ANY) and a delete are the same when done twice. */
static int put(int fd, uint32_t policy, const struct rule *r, size_t n)
{
	struct batch *b = n > 1 ? malloc(sizeof(*b)) : NULL;
	struct ac_key k;
	size_t i = 0;

	while (b && i < n) {
		__u32 m = fill_batch(b, policy, r + i, n - i);

		if (bpf_map_update_batch(fd, b->k, b->v, &m, NULL))
			break;            /* one at a time from i: they say what failed */
		i += m;
	}
	free(b);
	for (; i < n; i++) {
		fill_key(&k, policy, &r[i]);
		if (bpf_map_update_elem(fd, &k, &r[i].cls, BPF_ANY))
			return -1;
	}
	return 0;
}

/* every rule of r that is in the map goes; one that is not is no error;
 * -1 when one could not be deleted for another reason */
static int del(int fd, uint32_t policy, const struct rule *r, size_t n)
{
	struct batch *b = n > 1 ? malloc(sizeof(*b)) : NULL;
	struct ac_key k;
	size_t i = 0;
	int ret = 0;

	while (b && i < n) {
		__u32 m = fill_batch(b, policy, r + i, n - i);
		int err = bpf_map_delete_batch(fd, b->k, &m, NULL);

		if (err && err != -ENOENT)
			break;            /* one at a time from i */
		/* ENOENT: the batch stopped at r[i + m], not in the map (the
		 * kernel's count is the deletions before it): skip it */
		i += m + (err ? 1 : 0);
	}
	free(b);
	for (; i < n; i++) {
		fill_key(&k, policy, &r[i]);
		if (bpf_map_delete_elem(fd, &k) && errno != ENOENT)
			ret = -1;
	}
	return ret;
}

/* The patterns of one kind under policy: l's at 0, 1, ..., and nothing
 * after them (the programs stop at the first index missing) */
static int put_kind(int fd, uint32_t policy, uint32_t kind, const struct patlist *l)
{
	struct ac_pat_key k = { .policy = policy };

	for (size_t i = 0; i < AC_PAT_MAX; i++) {
		k.idx = AC_PAT_IDX(kind, i);
		if (i < l->n) {
			if (bpf_map_update_elem(fd, &k, &l->p[i], BPF_ANY))
				return -1;
		} else if (bpf_map_delete_elem(fd, &k)) {
			if (errno == ENOENT)
				break;          /* none after a missing one */
			return -1;
		}
	}
	return 0;
}

static void del_patterns(int fd, uint32_t policy)
{
	struct ac_pat_key k = { .policy = policy };

	for (uint32_t kind = AC_PK_FILE; kind <= AC_PK_LIVE; kind++)
		for (size_t i = 0; i < AC_PAT_MAX; i++) {
			k.idx = AC_PAT_IDX(kind, i);
			if (bpf_map_delete_elem(fd, &k) && errno == ENOENT)
				break;
		}
}

int loader_put_patterns(struct loader *l, uint32_t policy, const struct ruleset *rs,
			char *err, size_t errlen)
{
	int fd;

	if (!l->skel)
		return 0;
	fd = bpf_map__fd(l->skel->maps.patterns);
	if (put_kind(fd, policy, AC_PK_FILE, &rs->fpat) ||
	    put_kind(fd, policy, AC_PK_EXEC, &rs->xpat) ||
	    put_kind(fd, policy, AC_PK_LIVE, &rs->live)) {
		snprintf(err, errlen, "cannot write the policy's patterns into the kernel: %s",
			 strerror(errno));
		return -1;
	}
	return 0;
}

int loader_put_rules(struct loader *l, uint32_t policy, const struct ruleset *rs,
		     char *err, size_t errlen)
{
	int ffd, efd;

	if (!l->skel)
		return 0;     /* LOADER_NO_LSM: no file and exec programs */
	ffd = bpf_map__fd(l->skel->maps.file_rules);
	efd = bpf_map__fd(l->skel->maps.exec_rules);
	if (put(ffd, policy, rs->trie, rs->ntrie) || put(efd, policy, rs->exec, rs->nexec)) {
		snprintf(err, errlen, "cannot write policy rules into the kernel: %s%s", strerror(errno),
			 errno == ENOSPC || errno == E2BIG ? " (the rule maps are full: a daemon "
			 "takes --max-rules)" : "");
		loader_del_rules(l, policy, rs);
		return -1;
	}
	if (loader_put_patterns(l, policy, rs, err, errlen)) {
		loader_del_rules(l, policy, rs);
		return -1;
	}
	return 0;
}

void loader_del_rules(struct loader *l, uint32_t policy, const struct ruleset *rs)
{
	if (!l->skel)
		return;
	del(bpf_map__fd(l->skel->maps.file_rules), policy, rs->trie, rs->ntrie);
	del(bpf_map__fd(l->skel->maps.exec_rules), policy, rs->exec, rs->nexec);
	del_patterns(bpf_map__fd(l->skel->maps.patterns), policy);
}

int loader_put_delta(struct loader *l, uint32_t policy, const struct rule_delta *files,
		     const struct rule_delta *exec, char *err, size_t errlen)
{
	int ffd, efd;

	if (!l->skel)
		return 0;
	ffd = bpf_map__fd(l->skel->maps.file_rules);
	efd = bpf_map__fd(l->skel->maps.exec_rules);
	/* a rule that stayed would be in force after the switch: every
	 * deletion must succeed */
	if (del(ffd, policy, files->del, files->ndel) || del(efd, policy, exec->del, exec->ndel) ||
	    put(ffd, policy, files->put, files->nput) || put(efd, policy, exec->put, exec->nput)) {
		snprintf(err, errlen, "cannot write policy rules into the kernel: %s",
			 strerror(errno));
		return -1;
	}
	return 0;
}

int loader_quiesce(struct loader *l)
{
	int k = 0;

	if (!l->sync_ok || bpf_map_update_elem(l->sync_fd[0], &k, &l->sync_fd[1], BPF_ANY))
		return -1;
	l->unquiesced = 0;
	return 0;
}

int loader_set_cage(struct loader *l, uint64_t cgid, uint32_t policy, uint32_t net_policy,
		    uint32_t gen, int audit, int replace)
{
	struct ac_cage c = { .policy = policy, .audit = audit, .net_policy = net_policy,
			     .gen = gen };

	if (replace && l->unquiesced && loader_quiesce(l)) {
		errno = EAGAIN;
		return -1;
	}
	if (bpf_map_update_elem(bpf_map__fd(l->net->maps.cages), &cgid, &c, BPF_ANY))
		return -1;
	l->unquiesced |= replace;
	return 0;
}

int loader_del_cage(struct loader *l, uint64_t cgid)
{
	bpf_map_delete_elem(bpf_map__fd(l->net->maps.budgets), &cgid);
	return bpf_map_delete_elem(bpf_map__fd(l->net->maps.cages), &cgid);
}

uint64_t loader_over_budget(struct loader *l, uint64_t cgid)
{
	struct ac_budget b;

	if (bpf_map_lookup_elem(bpf_map__fd(l->net->maps.budgets), &cgid, &b))
		return 0;
	return b.dropped;
}

static void net_key(struct ac_net_key *k, uint32_t policy, const struct net_node *n)
{
	memset(k, 0, sizeof(*k));
	k->prefixlen = 32 + n->plen;
	k->policy = policy;
	memcpy(k->addr, n->addr, 16);
}

int loader_put_net(struct loader *l, uint32_t policy, const struct netset *ns,
		   const struct rule *unix_rules, size_t nunix, char *err, size_t errlen)
{
	int nfd = bpf_map__fd(l->net->maps.net_rules);
	struct ac_net_key k;

	for (size_t i = 0; i < ns->n; i++) {
		net_key(&k, policy, &ns->nodes[i]);
		if (bpf_map_update_elem(nfd, &k, &ns->nodes[i].val, BPF_ANY))
			goto fail;
	}
	if (put(bpf_map__fd(l->net->maps.unix_rules), policy, unix_rules, nunix))
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "cannot write network rules into the kernel: %s%s", strerror(errno),
		 errno == ENOSPC || errno == E2BIG ? " (the network maps are full: a daemon "
		 "takes --max-net-rules)" : "");
	loader_del_net(l, policy, ns, unix_rules, nunix);
	return -1;
}

void loader_del_net(struct loader *l, uint32_t policy, const struct netset *ns,
		    const struct rule *unix_rules, size_t nunix)
{
	int nfd = bpf_map__fd(l->net->maps.net_rules);
	struct ac_net_key k;

	for (size_t i = 0; i < ns->n; i++) {
		net_key(&k, policy, &ns->nodes[i]);
		bpf_map_delete_elem(nfd, &k);
	}
	del(bpf_map__fd(l->net->maps.unix_rules), policy, unix_rules, nunix);
}

void loader_detach_cgroup(struct cage_links *cl)
{
	bpf_link__destroy(cl->dev);
	bpf_link__destroy(cl->ingress);
	bpf_link__destroy(cl->egress);
	for (int i = 0; i < LOADER_ADDR_PROGS; i++) {
		bpf_link__destroy(cl->addr[i]);
		cl->addr[i] = NULL;
	}
	cl->ingress = cl->egress = cl->dev = NULL;
}

int loader_net_map_fd(struct loader *l, const char *name)
{
	struct bpf_map *m = bpf_object__find_map_by_name(l->net->obj, name);

	return m ? bpf_map__fd(m) : -1;
}

int loader_prog_fd(struct loader *l, int egress)
{
	return bpf_program__fd(egress ? l->net->progs.ac_egress : l->net->progs.ac_ingress);
}

int loader_epoll_fd(struct loader *l)
{
	return ring_buffer__epoll_fd(l->rb);
}

int loader_sample(void *ctx, void *data, size_t len)
{
	struct loader *l = ctx;
	int ret = l->on_event(l->ctx, data, len);

	/* this one is handled (libbpf has moved past it); the next waits */
	return ret < 0 ? ret : ++l->polled >= LOADER_POLL_MAX ? -EAGAIN : 0;
}

int loader_poll(struct loader *l)
{
	int n;

	l->polled = 0;
	n = ring_buffer__consume(l->rb);
	return n == -EAGAIN ? LOADER_POLL_MAX : n;
}

void loader_drain(struct loader *l)
{
	for (int i = 0; i < 256 && loader_poll(l) == LOADER_POLL_MAX; i++)
		;
}

uint64_t loader_stat(struct loader *l, uint32_t key)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t vals[512] = { 0 }, sum = 0;

	if (ncpu <= 0 || ncpu > 512 ||
	    bpf_map_lookup_elem(bpf_map__fd(l->net->maps.stats), &key, vals))
		return 0;
	for (int i = 0; i < ncpu; i++)
		sum += vals[i];
	return sum;
}

void loader_close(struct loader *l)
{
	ring_buffer__free(l->rb);
	l->rb = NULL;
	net_bpf__destroy(l->net);
	l->net = NULL;
	cage_bpf__destroy(l->skel);
	l->skel = NULL;
	for (int i = 0; l->adopted && i < LOADER_CG_PROGS; i++)
		close(l->cg_prog[i]);
	l->adopted = 0;
	sync_close(l);
}
