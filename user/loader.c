#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "cage.skel.h"
#include "diag.h"
#include "loader.h"

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!diag_verbose || (level == LIBBPF_DEBUG && diag_verbose < 2))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* number of arguments of LSM hook `name` in the running kernel, or -1 */
static int hook_nargs(const char *name)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *t;
	int id, n = -1;

	if (!btf)
		return -1;
	id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
	if (id > 0 && (t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type)))
		n = btf_vlen(t);
	btf__free(btf);
	return n;
}

int loader_open(struct loader *l, uint64_t parent_cgid, uint32_t parent_level,
		event_fn on_event, void *ctx, char *err, size_t errlen)
{
	int ret, n;

	memset(l, 0, sizeof(*l));
	libbpf_set_print(print_libbpf);
	l->skel = cage_bpf__open();
	if (!l->skel) {
		snprintf(err, errlen, "cannot open the BPF programs: %s", strerror(errno));
		return -1;
	}
	l->skel->rodata->cage_parent_cgid = parent_cgid;
	l->skel->rodata->cage_parent_level = parent_level;
	/* hooks whose argument count differs between kernels: one variant each */
	n = hook_nargs("bpf_lsm_bpf");
	bpf_program__set_autoload(l->skel->progs.ac_bpf4, n == 4);
	bpf_program__set_autoload(l->skel->progs.ac_bpf3, n != 4);
	n = hook_nargs("bpf_lsm_path_rename");
	bpf_program__set_autoload(l->skel->progs.ac_path_rename4, n == 4);
	bpf_program__set_autoload(l->skel->progs.ac_path_rename5, n != 4);
	ret = cage_bpf__load(l->skel);
	if (ret) {
		if (ret == -EPERM || errno == EPERM)
			snprintf(err, errlen, "the kernel refused to load BPF LSM programs (EPERM): "
				 "BPF LSM is listed but program loading is not permitted here "
				 "(kernel lockdown or a policy forbids it); run on a kernel that "
				 "allows BPF LSM (lsm=...,bpf, lockdown not 'confidentiality')");
		else
			snprintf(err, errlen, "the kernel refused the BPF programs (%s); "
				 "run with -v to see the verifier log", strerror(-ret));
		goto fail;
	}
	ret = cage_bpf__attach(l->skel);
	if (ret) {
		snprintf(err, errlen, "cannot attach the BPF LSM programs: %s", strerror(-ret));
		goto fail;
	}
	l->rb = ring_buffer__new(bpf_map__fd(l->skel->maps.events), on_event, ctx, NULL);
	if (!l->rb) {
		snprintf(err, errlen, "cannot open the event ring buffer: %s", strerror(errno));
		goto fail;
	}
	return 0;
fail:
	loader_close(l);
	return -1;
}

static void fill_key(struct ac_key *k, uint32_t policy, const struct rule *r)
{
	memset(k, 0, sizeof(*k));
	k->policy = policy;
	k->prefixlen = 32 + r->len * 8;
	memcpy(k->path, r->key, r->len);
}

static int put(int fd, uint32_t policy, const struct rule *r, size_t n)
{
	struct ac_key k;

	for (size_t i = 0; i < n; i++) {
		fill_key(&k, policy, &r[i]);
		if (bpf_map_update_elem(fd, &k, &r[i].cls, BPF_ANY))
			return -1;
	}
	return 0;
}

static void del(int fd, uint32_t policy, const struct rule *r, size_t n)
{
	struct ac_key k;

	for (size_t i = 0; i < n; i++) {
		fill_key(&k, policy, &r[i]);
		bpf_map_delete_elem(fd, &k);
	}
}

int loader_put_rules(struct loader *l, uint32_t policy, const struct ruleset *rs,
		     char *err, size_t errlen)
{
	int ffd = bpf_map__fd(l->skel->maps.file_rules);
	int efd = bpf_map__fd(l->skel->maps.exec_rules);

	if (put(ffd, policy, rs->files, rs->nfiles) || put(efd, policy, rs->exec, rs->nexec)) {
		snprintf(err, errlen, "cannot write policy rules into the kernel: %s", strerror(errno));
		loader_del_rules(l, policy, rs);
		return -1;
	}
	return 0;
}

void loader_del_rules(struct loader *l, uint32_t policy, const struct ruleset *rs)
{
	del(bpf_map__fd(l->skel->maps.file_rules), policy, rs->files, rs->nfiles);
	del(bpf_map__fd(l->skel->maps.exec_rules), policy, rs->exec, rs->nexec);
}

int loader_set_cage(struct loader *l, uint64_t cgid, uint32_t policy, int audit)
{
	struct ac_cage c = { .policy = policy, .audit = audit };

	return bpf_map_update_elem(bpf_map__fd(l->skel->maps.cages), &cgid, &c, BPF_ANY);
}

int loader_epoll_fd(struct loader *l)
{
	return ring_buffer__epoll_fd(l->rb);
}

int loader_poll(struct loader *l)
{
	return ring_buffer__consume(l->rb);
}

uint64_t loader_lost(struct loader *l)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t vals[512] = { 0 }, sum = 0;
	uint32_t key = AC_STAT_LOST;

	if (ncpu <= 0 || ncpu > 512 ||
	    bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.stats), &key, vals))
		return 0;
	for (int i = 0; i < ncpu; i++)
		sum += vals[i];
	return sum;
}

void loader_close(struct loader *l)
{
	ring_buffer__free(l->rb);
	l->rb = NULL;
	cage_bpf__destroy(l->skel);
	l->skel = NULL;
}
