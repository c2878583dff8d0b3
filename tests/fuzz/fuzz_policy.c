// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer target: a policy file's whole path through `agentcage check`,
 * policy_parse, rules_compile and the network compile, hostnames given fake
 * addresses instead of being resolved. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "fuzz_hosts.h"
#include "policy/netpolicy.h"
#include "policy/policy.h"
#include "policy/pattern.h"
#include "policy/rules.h"

/* a path the policy wrote exactly as the rules store it: absolute, no
 * ${VAR}, no repeated or trailing '/', short enough not to be truncated */
static int plain(const char *s)
{
	size_t len = strlen(s);

	return s[0] == '/' && !strstr(s, "${") && !strstr(s, "//") &&
	       (len == 1 || s[len - 1] != '/') && len + 1 < AC_KEY_PATH;
}

/* The trie the kernel walks gives every path the class and the weight of
 * the longest file rule covering it (markers carry their directory's). */
static void same_class(const struct ruleset *rs, const char *path)
{
	uint32_t weight;
	int pat;
	uint32_t twin = rules_file_decide(rs, path, &weight, &pat);

	uint32_t v = rules_trie_value(rs, path);

	/* the programs take the trie's class, and the weight its value
	 * carries for the patterns, unless a pattern beats it */
	if (pat < 0 && ((v & AC_CLASS_MASK) != twin || v >> AC_VAL_RULE_SHIFT != weight))
		abort();
	uint32_t cls;
	rules_dir_uniform(rs, path, &cls);
}

static void check_list(const struct ruleset *rs, const struct plist *l, uint32_t cls)
{
	char path[AC_KEY_PATH + 8];

	for (size_t i = 0; i < l->n; i++) {
		if (!plain(l->items[i]) || pattern_is(l->items[i]))
			continue;       /* a pattern names no one path (fuzz_pattern checks those) */
		/* its own path: at least its class; a deny always wins */
		uint32_t got = rules_file_class(rs, l->items[i]);

		if (got < cls || (cls == AC_DENY && got != AC_DENY))
			abort();
		same_class(rs, l->items[i]);
		snprintf(path, sizeof(path), "%s/x", strcmp(l->items[i], "/") ? l->items[i] : "");
		same_class(rs, path);
	}
}

static void check_rules(const struct policy *p, const struct ruleset *rs)
{
	check_list(rs, &p->read, AC_READ);
	check_list(rs, &p->write, AC_WRITE);
	check_list(rs, &p->deny, AC_DENY);
	for (size_t i = 0; i < p->exec.n; i++)
		if (plain(p->exec.items[i]) && !pattern_is(p->exec.items[i]) &&
		    !rules_exec_allowed(rs, p->exec.items[i]))
			abort();
	for (size_t i = 0; i < p->net_unix.n; i++)
		if (plain(p->net_unix.items[i]) || p->net_unix.items[i][0] == '@')
			if (!rules_unix_allowed(rs, p->net_unix.items[i], strlen(p->net_unix.items[i])))
				abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct rule_vars vars = { .cwd = "/CWD", .cage_tmp = "/CAGE_TMP" };
	static FILE *devnull;
	struct policy p;
	struct ruleset rs;
	struct net_hosts hs = { 0 };
	struct netset ns;
	char err[1024];

	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	if (policy_parse("fuzz.yaml", (const char *)data, size, &p, err, sizeof(err)))
		return 0;
	if (rules_compile(&p, &vars, 0, &rs, err, sizeof(err))) {
		policy_free(&p);
		return 0;
	}
	check_rules(&p, &rs);
	if (net_hosts_collect(&hs, &p))
		abort();
	for (size_t i = 0; i < hs.n; i++)
		fuzz_fake_resolve(&hs.h[i]);
	if (!net_policy_compile(&p, &hs, &ns, err, sizeof(err))) {
		net_policy_print(devnull, &p, &hs, &ns);
		net_free(&ns);
	}
	net_hosts_free(&hs);
	rules_free(&rs);
	policy_free(&p);
	return 0;
}
