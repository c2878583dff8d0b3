#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "diag.h"
#include "policy/netpolicy.h"
#include "policy/policy.h"
#include "policy/rules.h"
#include "verbs.h"

static void print_list(const char *what, const struct plist *l)
{
	printf("  %-6s", what);
	if (!l->n)
		printf(" (none)");
	for (size_t i = 0; i < l->n; i++)
		printf(" %s", l->items[i]);
	printf("\n");
}

int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = { { "help", no_argument, NULL, 'h' }, { 0 } };
	const struct rule_vars vars = { .cwd = "/CWD", .cage_tmp = "/CAGE_TMP" };
	int c, bad = 0;

	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (c == 'h') {
			printf("usage: agentcage check FILE...\n"
			       "Validate policy files: errors name file, line and column (exit 1);\n"
			       "a valid file prints what it grants, its hostnames resolved.\n");
			return 0;
		}
		return EXIT_AGENTCAGE;
	}
	if (optind >= argc) {
		diag_error("check needs at least one policy file: agentcage check FILE...");
		return EXIT_AGENTCAGE;
	}
	for (int i = optind; i < argc; i++) {
		struct policy p;
		struct ruleset rs;
		char err[1024];

		if (policy_load(argv[i], &p, err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			bad = 1;
			continue;
		}
		if (rules_compile(&p, &vars, 0, &rs, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", argv[i], err);
			policy_free(&p);
			bad = 1;
			continue;
		}
		struct net_hosts hs;
		struct netset ns;

		if (net_policy_load(&p, &hs, &ns, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", argv[i], err);
			rules_free(&rs);
			policy_free(&p);
			bad = 1;
			continue;
		}
		printf("%s: valid: cage '%s', mode %s, %zu file rules, %zu exec rules\n", argv[i],
		       p.name, p.mode == MODE_AUDIT ? "audit" : "enforce", rs.nfiles, rs.nexec);
		print_list("read", &p.read);
		print_list("write", &p.write);
		print_list("deny", &p.deny);
		print_list("exec", &p.exec);
		net_policy_print(stdout, &p, &hs, &ns);
		printf("  everything else is denied\n");
		net_free(&ns);
		net_hosts_free(&hs);
		rules_free(&rs);
		policy_free(&p);
	}
	return bad;
}
