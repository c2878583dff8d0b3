// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cage/cage.h"
#include "policy/policy.h"

int cage_loader_open(struct loader *ld, int flags, event_fn on_event, void *ctx,
		     struct ac_error *e)
{
	struct cage_cgroup parent = { 0 };
	char err[sizeof(e->msg)];

	if (cgroup_parent(&parent, err, sizeof(err)))
		return ac_error_set(e, strstr(err, "no cgroup v2") ? AC_E_CGROUP_UNAVAILABLE :
				    AC_E_CGROUP, "%s", err);
	if (loader_open(ld, parent.parent_id, parent.parent_level, flags, on_event, ctx, err,
			sizeof(err)))
		return ac_error_set(e, AC_E_KERNEL_REFUSED, "%s", err);
	return 0;
}

static int create(struct cage *c, struct loader *ld, const char *name, int exact,
		  struct ac_error *e)
{
	char err[sizeof(e->msg)];

	memset(c, 0, sizeof(*c));
	c->ld = ld;
	if ((exact ? cgroup_create_exact : cgroup_create)(&c->cg, name, err, sizeof(err)))
		return ac_error_set(e, strstr(err, "no cgroup v2") ? AC_E_CGROUP_UNAVAILABLE :
				    AC_E_CGROUP, "%s", err);
	if (loader_attach_cgroup(ld, c->cg.path, &c->links, err, sizeof(err))) {
		cgroup_destroy(&c->cg);
		return ac_error_set(e, AC_E_KERNEL_ATTACH, "%s", err);
	}
	return 0;
}

int cage_create(struct cage *c, struct loader *ld, const char *name, struct ac_error *e)
{
	return create(c, ld, name, 0, e);
}

int cage_create_named(struct cage *c, struct loader *ld, const char *name, struct ac_error *e)
{
	return create(c, ld, name, 1, e);
}

static int new_id(struct cage *c, uint32_t *id, struct ac_error *e)
{
	if (loader_new_policy_id(c->ld, id))
		return ac_error_set(e, AC_E_KERNEL_MAP, "every policy id of this load is used up; "
				    "restart agentcage");
	return 0;
}

/* The spare goes: its rules, and those of rs (a switch that failed half
 * way through the spare) under its id. */
static void spare_drop(struct cage *c, const struct ruleset *rs)
{
	if (!c->spare_id)
		return;
	loader_del_rules(c->ld, c->spare_id, &c->spare);
	if (rs)
		loader_del_rules(c->ld, c->spare_id, rs);
	rules_free(&c->spare);
	c->spare_id = 0;
}

void cage_drop_spare(struct cage *c)
{
	spare_drop(c, NULL);
}

/* rs's file and exec rules under the spare's id, by the difference of the
 * two; -1 leaves the spare as it is, or part way (spare_drop(c, rs)) */
static int put_delta(struct cage *c, const struct ruleset *rs)
{
	struct rule_delta f, x;
	char err[128];
	int ret = -1;

	if (rules_delta(c->spare.trie, c->spare.ntrie, rs->trie, rs->ntrie, &f))
		return -1;
	if (!rules_delta(c->spare.exec, c->spare.nexec, rs->exec, rs->nexec, &x)) {
		ret = loader_put_delta(c->ld, c->spare_id, &f, &x, err, sizeof(err));
		if (!ret)
			ret = loader_put_patterns(c->ld, c->spare_id, rs, err, sizeof(err));
		rules_delta_free(&x);
	}
	rules_delta_free(&f);
	return ret;
}

/* cp's file and exec rules under *id: the spare's id, when there is one,
 * changed by the difference (a reload that changes a few rules of 10,000
 * writes a few), else a fresh id's, all of them. Nothing on failure. */
static int put_files(struct cage *c, const struct compiled_policy *cp, uint32_t *id,
		     struct ac_error *e)
{
	char err[sizeof(e->msg)];

	if (c->spare_id) {
		if (!put_delta(c, &cp->rs)) {
			*id = c->spare_id;
			return 0;
		}
		spare_drop(c, &cp->rs);
	}
	if (new_id(c, id, e))
		return -1;
	if (loader_put_rules(c->ld, *id, &cp->rs, err, sizeof(err)))
		return ac_error_set(e, AC_E_KERNEL_MAP, "%s", err);
	return 0;
}

/* cp's network and unix rules under a fresh *id; nothing on failure */
static int put_net(struct cage *c, const struct compiled_policy *cp, uint32_t *id,
		   struct ac_error *e)
{
	char err[sizeof(e->msg)];

	if (new_id(c, id, e))
		return -1;
	if (loader_put_net(c->ld, *id, &cp->ns, cp->rs.unix_peers, cp->rs.nunix, err,
			   sizeof(err)))
		return ac_error_set(e, AC_E_KERNEL_MAP, "%s", err);
	return 0;
}

/* The rules of policy p (file rules under id, network and unix rules
 * under net_id) out of the maps; an adopted cage's by their ids, since the
 * maps may hold others of them than p's (cage.h: unknown_rules). */
static void forget(struct cage *c, uint32_t id, uint32_t net_id, const struct compiled_policy *p)
{
	if (c->unknown_rules) {
		loader_purge_policy(c->ld, id);
		loader_purge_policy(c->ld, net_id);
		return;
	}
	loader_del_rules(c->ld, id, &p->rs);
	loader_del_net(c->ld, net_id, &p->ns, p->rs.unix_peers, p->rs.nunix);
}

/* The rules of a policy no longer in force (id, net_id, old), once no
 * program can still be reading them: its file rules become the spare
 * when ids may come back, the rest goes. old is freed. */
static void retire(struct cage *c, uint32_t id, uint32_t net_id, struct compiled_policy *old)
{
	int quiet = !loader_quiesce(c->ld);

	spare_drop(c, NULL);       /* none after enter(); never two */
	if (quiet && c->ld->reuse_ids && !c->unknown_rules) {
		loader_del_net(c->ld, net_id, &old->ns, old->rs.unix_peers, old->rs.nunix);
		c->spare_id = id;
		c->spare = old->rs;
		memset(&old->rs, 0, sizeof(old->rs));
	} else {
		forget(c, id, net_id, old);
	}
	c->unknown_rules = 0;      /* the rules in force are this process's now */
	compiled_policy_free(old);
}

/* Write cp's rules and point the cage at them with a new generation; what
 * failed is named by `switching` ("install", "switch") in the map update's
 * message. On failure the cage is as it was (its spare may be gone). */
static int enter(struct cage *c, struct compiled_policy *cp, const char *switching,
		 struct ac_error *e)
{
	int audit = cp->pol.mode == MODE_AUDIT;
	uint32_t id, net_id, gen;

	if (put_files(c, cp, &id, e))
		return -1;
	if (put_net(c, cp, &net_id, e))
		goto fail;
	if (new_id(c, &gen, e))
		goto fail_net;
	if (loader_set_cage(c->ld, c->cg.id, id, net_id, gen, audit, c->policy_id != 0)) {
		ac_error_set(e, AC_E_KERNEL_MAP, "cannot %s the cage: %s", switching, strerror(errno));
		goto fail_net;
	}
	c->policy = *cp;
	memset(cp, 0, sizeof(*cp));
	c->policy_id = id;
	c->net_id = net_id;
	c->gen = gen;
	c->audit = audit;
	if (id == c->spare_id) {   /* the spare is in force now: no spare until retire */
		rules_free(&c->spare);
		c->spare_id = 0;
	}
	return 0;
fail_net:
	loader_del_net(c->ld, net_id, &cp->ns, cp->rs.unix_peers, cp->rs.nunix);
fail:
	if (id == c->spare_id)
		spare_drop(c, &cp->rs);
	else
		loader_del_rules(c->ld, id, &cp->rs);
	return -1;
}

int cage_install(struct cage *c, struct compiled_policy *cp, struct ac_error *e)
{
	return enter(c, cp, "install", e);
}

int cage_swap(struct cage *c, struct compiled_policy *cp, struct ac_error *e)
{
	struct compiled_policy old = c->policy;
	uint32_t old_id = c->policy_id, old_net = c->net_id;
	char name[sizeof(cp->pol.name)];

	snprintf(name, sizeof(name), "%s", old.pol.name);
	if (enter(c, cp, "switch", e))
		return -1;
	snprintf(c->policy.pol.name, sizeof(c->policy.pol.name), "%s", name);
	retire(c, old_id, old_net, &old);
	return 0;
}

int cage_swap_net(struct cage *c, struct ac_error *e)
{
	struct compiled_policy *p = &c->policy;
	struct netset ns;
	char err[sizeof(e->msg)];
	uint32_t id;

	if (net_policy_compile(&p->pol, &p->hosts, &ns, err, sizeof(err)))
		return ac_error_set(e, AC_E_POLICY_INVALID, "%s", err);
	if (new_id(c, &id, e))
		goto fail;
	if (loader_put_net(c->ld, id, &ns, p->rs.unix_peers, p->rs.nunix, err, sizeof(err))) {
		ac_error_set(e, AC_E_KERNEL_MAP, "%s", err);
		goto fail;
	}
	if (loader_set_cage(c->ld, c->cg.id, c->policy_id, id, c->gen, c->audit, 1)) {
		ac_error_set(e, AC_E_KERNEL_MAP, "cannot switch the cage: %s", strerror(errno));
		loader_del_net(c->ld, id, &ns, p->rs.unix_peers, p->rs.nunix);
		goto fail;
	}
	loader_quiesce(c->ld);
	if (c->unknown_rules)      /* another daemon's: all of them, by their id */
		loader_purge_policy(c->ld, c->net_id);
	else
		loader_del_net(c->ld, c->net_id, &p->ns, p->rs.unix_peers, p->rs.nunix);
	net_free(&p->ns);
	p->ns = ns;
	c->net_id = id;
	return 0;
fail:
	net_free(&ns);
	return -1;
}

void cage_teardown(struct cage *c)
{
	char path[sizeof(c->cg.path)];

	snprintf(path, sizeof(path), "%s", c->cg.path);
	/* kill what is left in the cage before its programs go away */
	cgroup_kill_all(&c->cg);
	loader_detach_cgroup(&c->links);
	cgroup_destroy(&c->cg);
	spare_drop(c, NULL);    /* in force nowhere */
	/* a task that outlived the kill keeps its cage's policy */
	if (c->policy_id && !(path[0] && access(path, F_OK) == 0)) {
		loader_del_cage(c->ld, c->cg.id);
		forget(c, c->policy_id, c->net_id, &c->policy);
		c->policy_id = c->net_id = 0;
	}
	compiled_policy_free(&c->policy);
}
