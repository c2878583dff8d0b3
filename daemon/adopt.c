// SPDX-License-Identifier: GPL-2.0-only
/* Restart without a gap. A daemon that finds <bpffs>/agentcage/daemon
 * adopts it: the pinned maps and programs (loader_adopt), the cages (the
 * cgroups <cgroup2>/agentcage/NAME whose ids are in the pinned cages map,
 * with their links and policy ids), and what the daemon itself keeps in
 * the kernel across restarts, in a map of its own pinned there
 * (map-daemon_state): the last policy id given out, and per cage its
 * generation and the hash of the file its policy came from. Nothing is
 * detached: an adopted cage keeps its policy until the scan that follows
 * finds its file changed and swaps it with the cage transaction. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "../cli/diag.h"
#include "agentcage/cage.h"
#include "daemon.h"

struct dstate {
	uint64_t a, b;   /* key 0: a = last policy id, b = flags; key cgid: a = generation,
	                  * b = file hash */
};
/* The programs tag their caches with ac_cage.gen (struct loader's
 * reuse_ids); a set pinned by an older build has not this flag. */
#define STATE_REUSE_IDS 1u

int state_open(struct daemon *d, int fresh, struct ac_error *e)
{
	char p[PATH_MAX];
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	snprintf(p, sizeof(p), "%s/map-daemon_state", d->pins);
	if (fresh) {
		d->state_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "ac_daemon", 8, sizeof(struct dstate),
					     (uint32_t)d->max_cages + 1, NULL);
		if (d->state_fd < 0 || bpf_obj_pin(d->state_fd, p))
			return ac_error_set(e, AC_E_KERNEL_MAP, "cannot make %s: %s", p,
					    strerror(errno));
		return 0;
	}
	d->state_fd = bpf_obj_get(p);
	if (d->state_fd < 0 || bpf_obj_get_info_by_fd(d->state_fd, &info, &len) ||
	    info.key_size != 8 || info.value_size != sizeof(struct dstate) ||
	    info.max_entries < 2)
		return ac_error_set(e, AC_E_KERNEL_MAP, "the pinned set is from an incompatible "
				    "build: %s is missing or differs; stop the agents in its cages "
				    "and remove %s (rm -r %s) to start afresh", p, d->pins, d->pins);
	if (info.max_entries - 1 < d->max_cages)   /* every cage has its state entry */
		d->max_cages = info.max_entries - 1;
	return 0;
}

/* after every switch: the highest id given out, so that a restarted
 * daemon never gives one out again (a generation tags the kernel's caches
 * of decisions, which outlive the cages that filled them) */
void state_save_ids(struct daemon *d)
{
	struct dstate s = { .a = d->ld.last_policy_id,
			    .b = d->ld.reuse_ids ? STATE_REUSE_IDS : 0 };
	uint64_t key = 0;

	if (d->state_fd >= 0)
		bpf_map_update_elem(d->state_fd, &key, &s, BPF_ANY);
}

/* after every scan: what a restarted daemon needs to carry on */
void state_save(struct daemon *d)
{
	struct dstate s;
	uint64_t key = 0, next;

	state_save_ids(d);
	for (size_t i = 0; i < d->ncages; i++) {
		struct dcage *c = d->cages[i];

		s.a = c->generation;
		s.b = c->hash;
		bpf_map_update_elem(d->state_fd, &c->cage.cg.id, &s, BPF_ANY);
	}
	/* removed cages */
	for (int more = !bpf_map_get_next_key(d->state_fd, NULL, &next); more;) {
		key = next;
		more = !bpf_map_get_next_key(d->state_fd, &key, &next);
		if (key && !daemon_find_cgid(d, key))
			bpf_map_delete_elem(d->state_fd, &key);
	}
}

/* the highest policy id ever in force: never given out again */
static void restore_ids(struct daemon *d)
{
	int fd = loader_net_map_fd(&d->ld, "cages");
	uint64_t key = 0, cgid, *prev = NULL;
	struct dstate s = { 0 };
	struct ac_cage ac;

	if (bpf_map_lookup_elem(d->state_fd, &key, &s) == 0) {
		d->ld.last_policy_id = (uint32_t)s.a;
		d->ld.reuse_ids = (int)(s.b & STATE_REUSE_IDS);
	}
	while (bpf_map_get_next_key(fd, prev, &cgid) == 0) {
		key = cgid;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &cgid, &ac))
			continue;
		if (ac.policy > d->ld.last_policy_id)
			d->ld.last_policy_id = ac.policy;
		if (ac.net_policy > d->ld.last_policy_id)
			d->ld.last_policy_id = ac.net_policy;
		if (ac.gen > d->ld.last_policy_id)
			d->ld.last_policy_id = ac.gen;
	}
}

/* link NAME of an adopted cage: its pin, or (pin gone, link detached) a new one */
static struct bpf_link *adopt_link(struct daemon *d, struct dcage *c, const char *name,
				   enum loader_cg_prog which)
{
	char p[PATH_MAX + 16];
	struct bpf_link *l;
	int fd;

	snprintf(p, sizeof(p), "%s/link-%s", c->pins, name);
	if ((l = bpf_link__open(p)))
		return l;
	diag_warn("cage %s: its %s link is not pinned (%s): attaching it again", c->name, name, p);
	if ((fd = open(c->cage.cg.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return NULL;
	l = loader_adopted_link(&d->ld, fd, which);
	close(fd);
	if (l && (mkdir(c->pins, 0700) == 0 || errno == EEXIST) && bpf_link__pin(l, p))
		diag_warn("cage %s: cannot pin %s: %s", c->name, p, strerror(errno));
	return l;
}

static void adopt_one(struct daemon *d, const struct cage_cgroup *parent, const char *name)
{
	int fd = loader_net_map_fd(&d->ld, "cages");
	struct dstate s = { .a = 1 };
	struct ac_cage ac;
	struct dcage *c;
	struct stat st;

	if (strlen(name) >= sizeof(c->name) || d->ncages == d->max_cages ||
	    !(c = calloc(1, sizeof(*c))))
		return;
	c->cage.cg = *parent;
	snprintf(c->cage.cg.path, sizeof(c->cage.cg.path), "%s/%s", parent->parent, name);
	if (stat(c->cage.cg.path, &st) || bpf_map_lookup_elem(fd, &st.st_ino, &ac)) {
		free(c);     /* not a cage of the pinned set: an agentcage run's, say */
		return;
	}
	snprintf(c->name, sizeof(c->name), "%.127s", name);
	snprintf(c->cage.policy.pol.name, sizeof(c->cage.policy.pol.name), "%.127s", name);
	snprintf(c->pins, sizeof(c->pins), "%s/cage-%s", d->pins, name);
	c->cage.ld = &d->ld;
	c->cage.cg.id = st.st_ino;
	c->cage.policy_id = ac.policy;
	c->cage.net_id = ac.net_policy;
	c->cage.gen = ac.gen;
	c->cage.audit = ac.audit;
	c->cage.unknown_rules = 1;   /* written by another daemon: they go by their ids */
	bpf_map_lookup_elem(d->state_fd, &c->cage.cg.id, &s);
	c->generation = s.a;
	c->hash = s.b;
	c->cage.links.egress = adopt_link(d, c, "egress", LOADER_EGRESS);
	c->cage.links.ingress = adopt_link(d, c, "ingress", LOADER_INGRESS);
	c->cage.links.dev = adopt_link(d, c, "device", LOADER_DEVICE);
	/* NAME-PID: a run's ephemeral cage, no file's; it goes once empty */
	c->ephemeral = daemon_run_name(name);
	c->unbound = !c->ephemeral;
	c->seen = 1;
	if (c->ephemeral)
		snprintf(c->file, sizeof(c->file), "(a run of an earlier daemon)");
	d->cages[d->ncages++] = c;
	diag_info("adopted cage %s: cgroup %s (id %llu), policy id %u, %s, generation %llu",
		  name, c->cage.cg.path, (unsigned long long)st.st_ino, ac.policy,
		  ac.audit ? "audit" : "enforce", (unsigned long long)c->generation);
}

/* the cages of the pinned set: cgroups under agentcage's whose id is in
 * its cages map (agentcage run's cages, NAME-PID, have their own maps) */
static int adopt_cages(struct daemon *d, struct ac_error *e)
{
	struct cage_cgroup parent = { 0 };
	char err[sizeof(e->msg)];
	struct dirent *de;
	DIR *dir;

	if (cgroup_parent(&parent, err, sizeof(err)))
		return ac_error_set(e, AC_E_CGROUP, "%s", err);
	if (!(dir = opendir(parent.parent)))
		return ac_error_set(e, AC_E_CGROUP, "cannot read %s: %s", parent.parent,
				    strerror(errno));
	while ((de = readdir(dir)))
		if (de->d_type == DT_DIR && de->d_name[0] != '.')
			adopt_one(d, &parent, de->d_name);
	closedir(dir);
	return 0;
}

/* does a daemon answer on the socket? (then its set is in use: hands off) */
static int answers(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, ret;

	if (strlen(path) >= sizeof(sa.sun_path))
		return 0;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return 0;
	ret = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return ret;
}

int daemon_adopt(struct daemon *d, event_fn on_event, struct ac_error *e)
{
	char err[sizeof(e->msg)];

	d->adopted = 1;    /* from here on, a failure leaves the pinned set as it is */
	if (answers(d->sock_path))
		return ac_error_set(e, AC_E_USAGE, "a daemon already answers on %s and uses %s",
				    d->sock_path, d->pins);
	if (loader_adopt(&d->ld, d->pins, on_event, d, err, sizeof(err)))
		return ac_error_set(e, AC_E_KERNEL_REFUSED, "%s", err);
	if (daemon_capacity(d, e) || state_open(d, 0, e))
		return -1;
	restore_ids(d);
	/* the spares of the cages of the daemon before (it alone knew their
	 * ids), and the rules of cages it removed when it died */
	if (loader_purge_unreferenced(&d->ld))
		diag_warn("cannot purge the rules no cage uses (no memory); they stay in the maps");
	if (adopt_cages(d, e))
		return -1;
	diag_info("adopted the pinned set %s: %zu cages, last policy id %u; events that waited "
		  "in its ring buffer follow", d->pins, d->ncages, d->ld.last_policy_id);
	return 0;
}
