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

/* cp's rules, all of them, under id; nothing of them on failure */
static int put_all(struct cage *c, uint32_t id, const struct compiled_policy *cp,
		   struct ac_error *e)
{
	char err[sizeof(e->msg)];

	if (loader_put_rules(c->ld, id, &cp->rs, err, sizeof(err)))
		return ac_error_set(e, AC_E_KERNEL_MAP, "%s", err);
	if (loader_put_net(c->ld, id, &cp->ns, cp->rs.unix_peers, cp->rs.nunix, err,
			   sizeof(err))) {
		loader_del_rules(c->ld, id, &cp->rs);
		return ac_error_set(e, AC_E_KERNEL_MAP, "%s", err);
	}
	return 0;
}

static void del_all(struct cage *c, uint32_t id, uint32_t net_id, const struct compiled_policy *cp)
{
	loader_del_rules(c->ld, id, &cp->rs);
	loader_del_net(c->ld, net_id, &cp->ns, cp->rs.unix_peers, cp->rs.nunix);
}

/* Write cp under a fresh id and point the cage at it; what failed is
 * named by `switching` ("install", "switch") in the map update's message. */
static int enter(struct cage *c, struct compiled_policy *cp, const char *switching,
		 struct ac_error *e)
{
	int audit = cp->pol.mode == MODE_AUDIT;
	uint32_t id;

	if (new_id(c, &id, e) || put_all(c, id, cp, e))
		return -1;
	if (loader_set_cage(c->ld, c->cg.id, id, id, audit)) {
		ac_error_set(e, AC_E_KERNEL_MAP, "cannot %s the cage: %s", switching, strerror(errno));
		del_all(c, id, id, cp);
		return -1;
	}
	c->policy = *cp;
	memset(cp, 0, sizeof(*cp));
	c->policy_id = c->net_id = id;
	c->audit = audit;
	return 0;
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
	del_all(c, old_id, old_net, &old);
	compiled_policy_free(&old);
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
	if (loader_set_cage(c->ld, c->cg.id, c->policy_id, id, c->audit)) {
		ac_error_set(e, AC_E_KERNEL_MAP, "cannot switch the cage: %s", strerror(errno));
		loader_del_net(c->ld, id, &ns, p->rs.unix_peers, p->rs.nunix);
		goto fail;
	}
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
	/* a task that outlived the kill keeps its cage's policy */
	if (c->policy_id && !(path[0] && access(path, F_OK) == 0)) {
		loader_del_cage(c->ld, c->cg.id);
		del_all(c, c->policy_id, c->net_id, &c->policy);
		c->policy_id = c->net_id = 0;
	}
	compiled_policy_free(&c->policy);
}
