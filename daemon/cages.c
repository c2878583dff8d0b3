// SPDX-License-Identifier: GPL-2.0-only
/* The policy directory: every *.yaml is a named cage. A scan installs new
 * files, swaps changed ones with the cage transaction (an invalid file
 * keeps the cage's policy in force), and removes the cages of removed
 * files once they are empty. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../cli/diag.h"
#include "daemon.h"
#include "kernel/pin.h"
#include "policy/compile.h"

#define POLICY_FILE_MAX (4 << 20)

/* FNV-1a, whose values adopted cages keep in their pins, continued from h
 * over b[0..n); four bytes a round */
static uint64_t hash_more(uint64_t h, const char *b, size_t n)
{
	const unsigned char *u = (const unsigned char *)b;
	size_t i = 0;

	for (; i + 4 <= n; i += 4) {
		h = (h ^ u[i]) * 1099511628211ull;
		h = (h ^ u[i + 1]) * 1099511628211ull;
		h = (h ^ u[i + 2]) * 1099511628211ull;
		h = (h ^ u[i + 3]) * 1099511628211ull;
	}
	for (; i < n; i++)
		h = (h ^ u[i]) * 1099511628211ull;
	return h;
}

uint64_t daemon_hash(const char *b, size_t n)
{
	return hash_more(1469598103934665603ull, b, n);
}

/* the hash of path's first POLICY_FILE_MAX bytes, read a piece at a time
 * (no buffer of the whole file: its new pages had cost more than the hash);
 * -1 with errno when it cannot be read */
static int file_hash(const char *path, uint64_t *h)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char buf[64 << 10];
	ssize_t n = 0;
	size_t got = 0;

	if (fd < 0)
		return -1;
	*h = 1469598103934665603ull;
	while (got < POLICY_FILE_MAX &&
	       (n = read(fd, buf, sizeof(buf) < POLICY_FILE_MAX - got ? sizeof(buf) :
			 POLICY_FILE_MAX - got)) > 0) {
		*h = hash_more(*h, buf, (size_t)n);
		got += (size_t)n;
	}
	close(fd);
	return n < 0 ? -1 : 0;
}

int daemon_capacity(struct daemon *d, struct ac_error *e)
{
	struct loader_sizes got;

	loader_sizes_of(&d->ld, &got);
	d->max_cages = got.cages ? got.cages : 1;
	if (d->max_cages > DAEMON_CAGES_MAX)
		d->max_cages = DAEMON_CAGES_MAX;
	if (!(d->cages = calloc(d->max_cages, sizeof(*d->cages))))
		return ac_error_set(e, AC_E_NOMEM, "out of memory for %zu cages", d->max_cages);
	diag_info("capacity: %zu cages, %u file and %u exec rules, %u network entries, %u unix "
		  "peers, a ring buffer of %u KiB", d->max_cages, got.file_rules, got.file_rules,
		  got.net_rules, got.unix_rules, got.ring_bytes >> 10);
	if (d->adopted && ((d->sizes.cages && d->sizes.cages != got.cages) ||
			   (d->sizes.file_rules && d->sizes.file_rules != got.file_rules) ||
			   (d->sizes.net_rules && d->sizes.net_rules != got.net_rules) ||
			   (d->sizes.ring_bytes && d->sizes.ring_bytes != got.ring_bytes)))
		diag_warn("the adopted set keeps the capacities it was loaded with; new ones "
			  "take effect once it is removed (every cage empty, rm -r %s)", d->pins);
	return 0;
}

struct dcage *daemon_find(struct daemon *d, const char *name)
{
	for (size_t i = 0; i < d->ncages; i++)
		if (!strcmp(d->cages[i]->name, name))
			return d->cages[i];
	return NULL;
}

struct dcage *daemon_find_cgid(struct daemon *d, uint64_t cgid)
{
	for (size_t i = 0; i < d->ncages; i++)
		if (d->cages[i]->cage.cg.id == cgid)
			return d->cages[i];
	return NULL;
}

/* a run's ephemeral cage names a file the daemon never reads */
static struct dcage *find_file(struct daemon *d, const char *file)
{
	for (size_t i = 0; i < d->ncages; i++)
		if (!d->cages[i]->ephemeral && !strcmp(d->cages[i]->file, file))
			return d->cages[i];
	return NULL;
}

static void note(struct scan *s, const char *file, const char *cage, const char *what,
		 const char *code, const char *msg)
{
	struct scan_result *r;

	if (!strcmp(what, "failed") || !strcmp(what, "kept"))
		diag_error_code(code, "%s%s%s", msg, cage[0] ? "; cage " : "",
				cage[0] ? cage : "");
	else if (strcmp(what, "unchanged"))
		diag_info("cage %s %s from %s", cage, what, file);
	if (!s)
		return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 8;
		void *p = realloc(s->r, cap * sizeof(*s->r));

		if (!p)
			return;
		s->r = p;
		s->cap = cap;
	}
	r = &s->r[s->n++];
	memset(r, 0, sizeof(*r));
	snprintf(r->file, sizeof(r->file), "%s", file);
	snprintf(r->cage, sizeof(r->cage), "%s", cage);
	r->what = what;
	r->code = code;
	snprintf(r->msg, sizeof(r->msg), "%s", msg ? msg : "");
	if (code)
		s->failed = 1;
}

void scan_free(struct scan *s)
{
	free(s->r);
	memset(s, 0, sizeof(*s));
}

/* agentcage run's cages are NAME-PID and swept by their pid, and so are
 * the daemon's ephemeral cages: a cage of the directory may not look like one */
int daemon_run_name(const char *name)
{
	const char *dash = strrchr(name, '-');

	return dash && dash[1] && strspn(dash + 1, "0123456789") == strlen(dash + 1);
}

/* A failure on file: a cage it had keeps its policy, and says why. */
static void refuse(struct scan *s, struct dcage *old, const char *file, const struct ac_error *e)
{
	if (old) {
		old->seen = 1;
		snprintf(old->error, sizeof(old->error), "%s", e->msg);
		note(s, file, old->name, "kept", e->code, e->msg);
		return;
	}
	note(s, file, "", "failed", e->code, e->msg);
}

/* Every cage keeps the rules of its previous policy in the maps as its
 * spare (lib/cage/cage.h); when the rule maps are full they give way. */
static int drop_spares(struct daemon *d)
{
	int n = 0;

	for (size_t i = 0; i < d->ncages; i++)
		if (d->cages[i]->cage.spare_id) {
			cage_drop_spare(&d->cages[i]->cage);
			n++;
		}
	return n;
}

/* cage_swap (install 0) or cage_install, once more without the spares
 * when the maps had no room */
int daemon_switch(struct daemon *d, struct cage *c, struct compiled_policy *cp, int install,
		  struct ac_error *e)
{
	int (*f)(struct cage *, struct compiled_policy *, struct ac_error *) =
		install ? cage_install : cage_swap;
	int ret = f(c, cp, e);

	/* the rule maps full (loader_put_rules names the option) */
	if (ret && e->code && !strcmp(e->code, AC_E_KERNEL_MAP) && strstr(e->msg, "--max-rules") &&
	    drop_spares(d)) {
		*e = (struct ac_error){ 0 };
		ret = f(c, cp, e);
	}
	state_save_ids(d);
	return ret;
}

int daemon_add_cage(struct daemon *d, struct compiled_policy *cp, const char *name,
		    const char *file, uint64_t h, struct ac_error *e)
{
	struct dcage *c;

	if (d->ncages == d->max_cages)
		return ac_error_set(e, AC_E_USAGE, "%s: more than %zu cages (the daemon's capacity: "
				    "start it with a larger --max-cages)", file, d->max_cages);
	if (!(c = calloc(1, sizeof(*c))))
		return ac_error_set(e, AC_E_NOMEM, "out of memory");
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(c->file, sizeof(c->file), "%s", file);
	snprintf(c->pins, sizeof(c->pins), "%s/cage-%s", d->pins, c->name);
	if (cage_create_named(&c->cage, &d->ld, c->name, e)) {
		if (errno == EEXIST)
			ac_error_prefix(e, "%s (left by an earlier daemon whose pins are gone, "
					"or made by hand: empty and remove it)", file);
		free(c);
		return -1;
	}
	if (daemon_switch(d, &c->cage, cp, 1, e))
		goto fail;
	if (mkdir(c->pins, 0700) && errno != EEXIST) {
		ac_error_set(e, AC_E_KERNEL_ATTACH, "cannot create %s: %s", c->pins, strerror(errno));
		goto fail;
	}
	if (pin_cage_links(&c->cage.links, c->pins, e))
		goto fail;
	c->hash = h;
	c->generation = 1;
	c->seen = 1;
	d->cages[d->ncages++] = c;
	cage_dns_start(d, c);
	return 0;
fail:
	pin_remove(c->pins);
	cage_teardown(&c->cage);
	free(c);
	return -1;
}

static void warn_hosts(const struct compiled_policy *cp)
{
	for (size_t i = 0; i < cp->hosts.n; i++)
		if (cp->hosts.h[i].error[0])
			diag_warn("cage %s: cannot resolve %s: %s; its network rules allow nothing",
				  cp->pol.name, cp->hosts.h[i].name, cp->hosts.h[i].error);
}

/* An adopted cage meets its file. The same bytes as its policy in force
 * came from: cp is that policy again (its counts; the rules in the maps
 * stay unknown, compiled by another daemon). Other bytes: the cage
 * transaction swaps to cp, and the old policy's rules, which this daemon
 * never knew, go by their ids (cage.h: unknown_rules). */
static void bind_adopted(struct daemon *d, struct dcage *c, struct compiled_policy *cp,
			 const char *file, uint64_t h, struct scan *s)
{
	struct ac_error e = { 0 };

	snprintf(c->file, sizeof(c->file), "%s", file);
	c->unbound = 0;
	c->seen = 1;
	c->error[0] = 0;
	if (c->hash == h && (cp->pol.mode == MODE_AUDIT) == c->cage.audit) {
		compiled_policy_free(&c->cage.policy);
		c->cage.policy = *cp;
		memset(cp, 0, sizeof(*cp));
		cage_dns_start(d, c);
		return note(s, file, c->name, "adopted", NULL, NULL);
	}
	if (daemon_switch(d, &c->cage, cp, 0, &e)) {
		compiled_policy_free(cp);
		return refuse(s, c, file, &e);
	}
	c->hash = h;
	c->generation++;
	cage_dns_start(d, c);
	note(s, file, c->name, "reloaded", NULL, NULL);
}

static void apply_file(struct daemon *d, const char *file, struct scan *s)
{
	struct rule_vars vars = { 0 };   /* no ${CWD} nor ${CAGE_TMP} for a daemon's cage */
	struct policy_source src = { .path = file, .mode = MODE_UNSET, .vars = &vars,
				     .resolve_links = 1 };
	struct dcage *old = find_file(d, file), *other;
	struct compiled_policy cp;
	struct ac_error e = { 0 };
	uint64_t h;

	if (file_hash(file, &h)) {
		ac_error_set(&e, AC_E_POLICY_IO, "%s: cannot read: %s", file, strerror(errno));
		return refuse(s, old, file, &e);
	}
	if (old && old->hash == h) {
		old->seen = 1;
		old->error[0] = 0;
		return note(s, file, old->name, "unchanged", NULL, NULL);
	}
	if (policy_compile(&src, &cp, &e))
		return refuse(s, old, file, &e);
	warn_hosts(&cp);
	other = daemon_find(d, cp.pol.name);
	if (daemon_run_name(cp.pol.name))
		ac_error_set(&e, AC_E_POLICY_INVALID, "%s: cage name '%s' ends in -NUMBER, which "
			     "agentcage run's cages use; choose another", file, cp.pol.name);
	else if (old && strcmp(old->name, cp.pol.name))
		ac_error_set(&e, AC_E_POLICY_INVALID, "%s: the cage name changed from '%s' to "
			     "'%s'; a file's cage keeps its name while the daemon runs", file,
			     old->name, cp.pol.name);
	else if (other && other != old && !other->unbound)
		ac_error_set(&e, AC_E_POLICY_INVALID, "%s: cage '%s' is already defined by %s",
			     file, cp.pol.name, other->file);
	else if (other && other->unbound)
		return bind_adopted(d, other, &cp, file, h, s);
	else if (old && !daemon_switch(d, &old->cage, &cp, 0, &e)) {
		old->seen = 1;
		old->hash = h;
		old->generation++;
		old->error[0] = 0;
		cage_dns_start(d, old);
		return note(s, file, old->name, "reloaded", NULL, NULL);
	} else if (!old && !daemon_add_cage(d, &cp, cp.pol.name, file, h, &e))
		return note(s, file, cp.pol.name, "installed", NULL, NULL);
	compiled_policy_free(&cp);
	refuse(s, old, file, &e);
}

static int populated(const char *cg)
{
	char p[PATH_MAX + 32], line[128];
	FILE *f;
	int pop = 1;    /* unknown: keep it */

	snprintf(p, sizeof(p), "%s/cgroup.events", cg);
	if (!(f = fopen(p, "re")))
		return 1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "populated ", 10))
			pop = atoi(line + 10);
	fclose(f);
	return pop;
}

void daemon_remove_cage(struct daemon *d, struct dcage *c)
{
	size_t i = 0;

	while (i < d->ncages && d->cages[i] != c)
		i++;
	cage_dns_stop(d, c);
	pin_remove(c->pins);
	cage_teardown(&c->cage);   /* an adopted cage's rules go by their ids */
	free(c);
	if (i < d->ncages)
		d->cages[i] = d->cages[--d->ncages];
}

/* c's file is gone: c goes when no process is left in it */
static void remove_cage(struct daemon *d, size_t i, struct scan *s)
{
	struct dcage *c = d->cages[i];
	struct ac_error e;

	if (populated(c->cage.cg.path)) {
		ac_error_set(&e, AC_E_USAGE, "%s was removed but processes are left in cage %s; "
			     "it keeps its last policy until it is empty", c->file, c->name);
		snprintf(c->error, sizeof(c->error), "%s", e.msg);
		return note(s, c->file, c->name, "kept", e.code, e.msg);
	}
	note(s, c->file, c->name, "removed", NULL, NULL);
	daemon_remove_cage(d, c);
}

int daemon_populated(const char *cg)
{
	return populated(cg);
}

static int yaml_name(const char *n)
{
	size_t l = strlen(n);

	return n[0] != '.' && l > 5 && !strcmp(n + l - 5, ".yaml");
}

const char *const reload_names[RELOAD__N] = { "installed", "reloaded", "unchanged", "removed",
					       "kept", "failed" };

/* each file's result, for the metrics and the event stream */
static void count(struct daemon *d, const struct scan *s)
{
	for (size_t i = 0; i < s->n; i++) {
		for (int k = 0; k < RELOAD__N; k++)
			if (!strcmp(s->r[i].what, reload_names[k]))
				d->reloads[k]++;
		if (s->r[i].code)   /* refused: the event stream says why too */
			events_publish_error(d, s->r[i].cage, s->r[i].file, s->r[i].code, s->r[i].msg);
	}
}

static int scan(struct daemon *d, const char *only, struct scan *out, struct ac_error *e);

int daemon_scan(struct daemon *d, const char *only, struct scan *out, struct ac_error *e)
{
	struct scan local = { 0 };
	int ret = scan(d, only, out ? out : &local, e);

	count(d, out ? out : &local);
	scan_free(&local);
	return ret;
}

static int scan(struct daemon *d, const char *only, struct scan *out, struct ac_error *e)
{
	char file[PATH_MAX];
	struct dcage *c = NULL;
	struct dirent *de;
	DIR *dir;

	if (only && !(c = daemon_find(d, only)))
		return ac_error_set(e, AC_E_NOT_FOUND, "no cage named '%s'", only);
	if (c && c->ephemeral)
		return ac_error_set(e, AC_E_USAGE, "cage '%s' is an agentcage run's own (run "
				    "--policy): it has no file here; send that run a SIGHUP", only);
	/* a run's ephemeral cage is not the directory's: never removed by a scan */
	for (size_t i = 0; i < d->ncages; i++)
		d->cages[i]->seen = (c && d->cages[i] != c) || d->cages[i]->ephemeral;
	if (c) {
		snprintf(file, sizeof(file), "%s", c->file);
		if (access(file, F_OK) == 0)
			apply_file(d, file, out);
	} else {
		if (!(dir = opendir(d->dir)))
			return ac_error_set(e, AC_E_POLICY_IO, "cannot read the policy directory %s: %s",
					    d->dir, strerror(errno));
		while ((de = readdir(dir))) {
			if (!yaml_name(de->d_name))
				continue;
			snprintf(file, sizeof(file), "%s/%s", d->dir, de->d_name);
			apply_file(d, file, out);
		}
		closedir(dir);
	}
	for (size_t i = d->ncages; i-- > 0;)
		if (!d->cages[i]->seen)
			remove_cage(d, i, out);
	state_save(d);
	return 0;
}
