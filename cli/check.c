// SPDX-License-Identifier: GPL-2.0-only
/* agentcage check: validate policy files and say what each grants, as text
 * or (--json) one JSON object per file on standard output. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "diag.h"
#include "event/json.h"
#include "policy/compile.h"
#include "policy/lint.h"
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

/* warnings printed in plain text; a generated policy can have one for
 * each of thousands of rules, which --json lists whole */
#define PLAIN_WARNINGS 20

static void summary_plain(const char *file, const struct compiled_policy *c,
			  const struct lint *w)
{
	for (size_t i = 0; i < w->n && i < PLAIN_WARNINGS; i++)
		fprintf(stderr, "%s: warning: %s\n", file, w->msgs[i]);
	if (w->n > PLAIN_WARNINGS)
		fprintf(stderr, "%s: warning: ... and %zu more (agentcage check --json lists them all)\n",
			file, w->n - PLAIN_WARNINGS);
	printf("%s: valid: cage '%s', mode %s, %zu file rules, %zu exec rules\n", file,
	       c->pol.name, c->pol.mode == MODE_AUDIT ? "audit" : "enforce", c->rs.nfiles, c->rs.nexec);
	print_list("read", &c->pol.read);
	print_list("write", &c->pol.write);
	print_list("deny", &c->pol.deny);
	print_list("exec", &c->pol.exec);
	if (c->pol.exec_libs_set)
		print_list("libraries", &c->pol.exec_libs);
	else
		printf("  libraries (default) /usr/lib /lib /lib64\n");
	net_policy_print(stdout, &c->pol, &c->hosts, &c->ns);
	printf("  everything else is denied\n");
}

static void summary_json(const char *file, const struct compiled_policy *c,
			 const struct lint *w)
{
	static char *defaults[] = POLICY_DEFAULT_LIBRARIES;
	const struct plist dl = { .items = defaults, .n = sizeof(defaults) / sizeof(defaults[0]) };
	const struct { const char *key; const struct plist *l; } lists[] = {
		{ "read", &c->pol.read }, { "write", &c->pol.write }, { "deny", &c->pol.deny },
		{ "exec", &c->pol.exec }, { "libraries", c->pol.exec_libs_set ? &c->pol.exec_libs : &dl },
	};

	fputs("{\"file\":", stdout);
	json_write_string(stdout, file, -1);
	fputs(",\"valid\":true,\"cage\":", stdout);
	json_write_string(stdout, c->pol.name, -1);
	printf(",\"mode\":\"%s\",\"file_rules\":%zu,\"exec_rules\":%zu",
	       c->pol.mode == MODE_AUDIT ? "audit" : "enforce", c->rs.nfiles, c->rs.nexec);
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		printf(",\"%s\":", lists[i].key);
		json_write_strings(stdout, lists[i].l->items, lists[i].l->n);
	}
	fputs(",\"network\":", stdout);
	net_policy_print_json(stdout, &c->pol, &c->hosts, &c->ns);
	fputs(",\"warnings\":", stdout);
	json_write_strings(stdout, w->msgs, w->n);
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
	struct policy_source src = { .path = file, .mode = MODE_UNSET, .vars = &vars };
	struct compiled_policy c;
	struct ac_error e;
	struct lint w;
	char cwd[PATH_MAX];

	if (policy_compile(&src, &c, &e)) {
		problem(file, e.code, e.msg);
		return 1;
	}
	/* warnings look at this host's files, with ${CWD} the current directory */
	if (policy_lint(&c.pol, getcwd(cwd, sizeof(cwd)), &w))
		diag_warn("%s: out of memory looking for warnings", file);
	if (diag_json)
		summary_json(file, &c, &w);
	else
		summary_plain(file, &c, &w);
	lint_free(&w);
	compiled_policy_free(&c);
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
			       "a valid file prints what it grants, its hostnames resolved, and\n"
			       "warnings (standard error; exit 0) about what would break at run\n"
			       "time or give up write-xor-execute.\n"
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
