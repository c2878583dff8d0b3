// SPDX-License-Identifier: GPL-2.0-only
/* agentcage check: validate policy files and say what each grants, as text
 * or (--json) one JSON object per file on standard output. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "event/json.h"
#include "policy/netpolicy.h"
#include "policy/policy.h"
#include "policy/rules.h"
#include "verbs.h"

/* a valid policy, compiled */
struct checked {
	struct policy p;
	struct ruleset rs;
	struct net_hosts hs;
	struct netset ns;
};

static void print_list(const char *what, const struct plist *l)
{
	printf("  %-6s", what);
	if (!l->n)
		printf(" (none)");
	for (size_t i = 0; i < l->n; i++)
		printf(" %s", l->items[i]);
	printf("\n");
}

static void summary_plain(const char *file, const struct checked *c)
{
	printf("%s: valid: cage '%s', mode %s, %zu file rules, %zu exec rules\n", file,
	       c->p.name, c->p.mode == MODE_AUDIT ? "audit" : "enforce", c->rs.nfiles, c->rs.nexec);
	print_list("read", &c->p.read);
	print_list("write", &c->p.write);
	print_list("deny", &c->p.deny);
	print_list("exec", &c->p.exec);
	net_policy_print(stdout, &c->p, &c->hs, &c->ns);
	printf("  everything else is denied\n");
}

static void summary_json(const char *file, const struct checked *c)
{
	const struct { const char *key; const struct plist *l; } lists[] = {
		{ "read", &c->p.read }, { "write", &c->p.write }, { "deny", &c->p.deny },
		{ "exec", &c->p.exec },
	};

	fputs("{\"file\":", stdout);
	json_write_string(stdout, file, -1);
	fputs(",\"valid\":true,\"cage\":", stdout);
	json_write_string(stdout, c->p.name, -1);
	printf(",\"mode\":\"%s\",\"file_rules\":%zu,\"exec_rules\":%zu",
	       c->p.mode == MODE_AUDIT ? "audit" : "enforce", c->rs.nfiles, c->rs.nexec);
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		printf(",\"%s\":", lists[i].key);
		json_write_strings(stdout, lists[i].l->items, lists[i].l->n);
	}
	fputs(",\"network\":", stdout);
	net_policy_print_json(stdout, &c->p, &c->hs, &c->ns);
	fputs("}\n", stdout);
}

/* A problem with file: plain, the message as the library wrote it
 * ("FILE:LINE:COL: why", or "FILE: why"); JSON, an object with file, line
 * and column split out (0 when the problem has no place in the file). */
static void problem(const char *file, const char *code, const char *msg)
{
	size_t flen = strlen(file);
	unsigned long line = 0, col = 0;
	const char *why = msg;
	char *end;

	if (!diag_json) {
		fprintf(stderr, "%s\n", msg);
		return;
	}
	if (!strncmp(msg, file, flen) && msg[flen] == ':') {
		why = msg + flen + 1;
		line = strtoul(why, &end, 10);
		if (end != why && *end == ':' && (col = strtoul(end + 1, &end, 10)) && *end == ':')
			why = end + 1;
		else
			line = col = 0;
		while (*why == ' ')
			why++;
	}
	fputs("{\"file\":", stdout);
	json_write_string(stdout, file, -1);
	printf(",\"valid\":false,\"level\":\"error\",\"code\":\"%s\",\"line\":%lu,\"column\":%lu,"
	       "\"message\":", code, line, col);
	json_write_string(stdout, why, -1);
	fputs("}\n", stdout);
}

/* Check one file; 0 when it is valid. */
static int check_one(const char *file)
{
	const struct rule_vars vars = { .cwd = "/CWD", .cage_tmp = "/CAGE_TMP" };
	struct checked c;
	char err[1024], msg[1200];

	if (policy_load(file, &c.p, err, sizeof(err))) {
		problem(file, strstr(err, "cannot open policy file") ? AC_E_POLICY_IO :
			AC_E_POLICY_INVALID, err);
		return 1;
	}
	if (rules_compile(&c.p, &vars, 0, &c.rs, err, sizeof(err))) {
		snprintf(msg, sizeof(msg), "%s: %s", file, err);
		problem(file, AC_E_POLICY_INVALID, msg);
		policy_free(&c.p);
		return 1;
	}
	if (net_policy_load(&c.p, &c.hs, &c.ns, err, sizeof(err))) {
		snprintf(msg, sizeof(msg), "%s: %s", file, err);
		problem(file, AC_E_POLICY_INVALID, msg);
		rules_free(&c.rs);
		policy_free(&c.p);
		return 1;
	}
	if (diag_json)
		summary_json(file, &c);
	else
		summary_plain(file, &c);
	net_free(&c.ns);
	net_hosts_free(&c.hs);
	rules_free(&c.rs);
	policy_free(&c.p);
	return 0;
}

int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' }, { "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' }, { 0 } };
	int c, bad = 0;

	while ((c = getopt_long(argc, argv, "+hjv", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			printf("usage: agentcage [--json] check FILE...\n"
			       "Validate policy files: errors name file, line and column (exit 1);\n"
			       "a valid file prints what it grants, its hostnames resolved.\n"
			       "With --json, one JSON object per file on standard output.\n");
			return 0;
		case 'j': diag_json = true; break;
		case 'v': diag_verbose++; break;
		default:
			diag_error_code(AC_E_USAGE, "bad option; see 'agentcage check --help'");
			return EXIT_AGENTCAGE;
		}
	}
	if (optind >= argc) {
		diag_error_code(AC_E_USAGE, "check needs at least one policy file: agentcage check FILE...");
		return EXIT_AGENTCAGE;
	}
	for (int i = optind; i < argc; i++)
		bad |= check_one(argv[i]);
	return bad;
}
