// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "policy/compile.h"

/* lib/policy/default_policy.S: policies/default.yaml */
extern const char default_policy_yaml[], default_policy_yaml_end[];

static int parse(const struct policy_source *src, struct policy *pol, struct ac_error *e)
{
	const char *text = src->text;
	size_t len = src->len;

	if (src->path) {
		if (!policy_load(src->path, pol, e->msg, sizeof(e->msg)))
			return 0;
		/* policy_load says which; the code follows it */
		e->code = access(src->path, R_OK) ? AC_E_POLICY_IO : AC_E_POLICY_INVALID;
		return -1;
	}
	if (!text) {
		text = default_policy_yaml;
		len = default_policy_yaml_end - default_policy_yaml;
	}
	if (policy_parse(src->text ? src->name : "default.yaml", text, len, pol, e->msg,
			 sizeof(e->msg))) {
		e->code = AC_E_POLICY_INVALID;
		return -1;
	}
	if (!src->text && !pol->name[0])
		snprintf(pol->name, sizeof(pol->name), "default");
	else if (src->text)
		policy_default_name(pol, src->name);   /* as policy_load does */
	return 0;
}

int policy_compile(const struct policy_source *src, struct compiled_policy *out,
		   struct ac_error *e)
{
	const char *what = src->path ? src->path : src->text ? src->name : "default.yaml";
	struct ac_error tmp;
	char why[sizeof(tmp.msg)];

	if (!e)
		e = &tmp;
	memset(out, 0, sizeof(*out));
	if (parse(src, &out->pol, e)) {
		memset(out, 0, sizeof(*out));
		return -1;
	}
	if (src->mode != MODE_UNSET)
		out->pol.mode = src->mode;
	if (rules_compile(&out->pol, src->vars, src->resolve_links, &out->rs, e->msg,
			  sizeof(e->msg))) {
		policy_free(&out->pol);
		goto invalid;
	}
	if (net_policy_load(&out->pol, &out->hosts, &out->ns, e->msg, sizeof(e->msg))) {
		rules_free(&out->rs);
		policy_free(&out->pol);
		goto invalid;
	}
	return 0;
invalid:
	memset(out, 0, sizeof(*out));
	memcpy(why, e->msg, sizeof(why));
	return ac_error_set(e, AC_E_POLICY_INVALID, "%s: %s", what, why);
}

void compiled_policy_free(struct compiled_policy *cp)
{
	net_free(&cp->ns);
	net_hosts_free(&cp->hosts);
	rules_free(&cp->rs);
	policy_free(&cp->pol);
}
