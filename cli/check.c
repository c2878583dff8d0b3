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
#include "enforce/landlock.h"
#include "enforce/llaudit.h"
#include "enforcer.h"
#include "explain.h"
#include "event/json.h"
#include "policy/compile.h"
#include "policy/explain.h"
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

/* check --enforcer landlock: the table, or NULL */
static const struct ll_table *landlock_table;

static void summary_plain(const char *file, const struct compiled_policy *c,
			  const struct lint *w)
{
	for (size_t i = 0; i < w->n && i < PLAIN_WARNINGS; i++)
		fprintf(stderr, "%s: warning: %s\n", file, w->msgs[i]);
	if (w->n > PLAIN_WARNINGS)
		fprintf(stderr, "%s: warning: ... and %zu more (agentcage check --json lists them all)\n",
			file, w->n - PLAIN_WARNINGS);
	printf("%s: valid: cage '%s', mode %s, %zu file rules, %zu exec rules, %zu patterns\n",
	       file, c->pol.name, c->pol.mode == MODE_AUDIT ? "audit" : "enforce", c->rs.nfiles,
	       c->rs.nexec, c->rs.fpat.n + c->rs.xpat.n);
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
	if (landlock_table) {
		printf("  under the Landlock enforcer (Landlock ABI %d here; %s):\n",
		       ac_landlock_abi(NULL), landlock_table->worst == LL_CANNOT ? "run refuses it" :
		       landlock_table->worst == LL_WEAKER ? "run needs --accept-weaker" :
		       "run takes it as it is");
		ll_table_print(stdout, landlock_table, LL_HOLDS);
	}
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
	printf(",\"mode\":\"%s\",\"file_rules\":%zu,\"exec_rules\":%zu,\"file_patterns\":%zu,"
	       "\"exec_patterns\":%zu", c->pol.mode == MODE_AUDIT ? "audit" : "enforce",
	       c->rs.nfiles, c->rs.nexec, c->rs.fpat.n, c->rs.xpat.n);
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		printf(",\"%s\":", lists[i].key);
		json_write_strings(stdout, lists[i].l->items, lists[i].l->n);
	}
	fputs(",\"network\":", stdout);
	net_policy_print_json(stdout, &c->pol, &c->hosts, &c->ns);
	fputs(",\"warnings\":", stdout);
	json_write_strings(stdout, w->msgs, w->n);
	if (landlock_table) {
		printf(",\"landlock\":{\"abi\":%d,\"run\":\"%s\",\"rows\":", ac_landlock_abi(NULL),
		       landlock_table->worst == LL_CANNOT ? "refused" :
		       landlock_table->worst == LL_WEAKER ? "accept-weaker" : "runs");
		enforcer_table_json(stdout, landlock_table);
		fputs("}", stdout);
	}
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

/* The Landlock table of file, compiled as a run in the current directory
 * would compile it (so that what exists is this host's). 0, or -1. */
static int landlock_of(const char *file, int no_pty, struct ll_table *t)
{
	static const char fresh[] = "/tmp/agentcage-CAGE_TMP";
	char cwd[PATH_MAX];
	const struct rule_vars vars = { .cwd = getcwd(cwd, sizeof(cwd)), .cage_tmp = fresh };
	struct policy_source src = { .path = file, .mode = MODE_UNSET, .vars = &vars,
				     .resolve_links = 1 };
	struct compiled_policy c;
	struct ll_opts o = { .abi = ac_landlock_abi(NULL), .no_pty = no_pty, .fresh = fresh };
	struct ac_error e, ee;
	struct ac_llaudit la;
	int ret;

	if (!vars.cwd || policy_compile(&src, &c, &e))
		return -1;
	o.privileged = enforcer_privileged(c.pol.user);
	/* would a run by this caller, here, get the kernel's Landlock records? */
	o.events = !ac_llaudit_open(&la, NULL, NULL, &ee);
	o.no_events = o.events ? NULL : ee.msg;
	ac_llaudit_close(&la);
	ret = ll_table_build(&c, &o, t);
	compiled_policy_free(&c);
	return ret;
}

/* Check one file; 0 when it is valid. */
static int check_one(const char *file, int enforcer)
{
	struct ll_table t = { 0 };
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
	if (enforcer == ENF_LANDLOCK) {
		if (landlock_of(file, 0, &t)) {
			problem(file, AC_E_SYSTEM, "cannot compile the policy for the Landlock table");
			compiled_policy_free(&c);
			return 1;
		}
		landlock_table = &t;
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
	ll_table_free(&t);
	landlock_table = NULL;
	return 0;
}

int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' }, { "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "enforcer", required_argument, NULL, 'E' },
		{ "explain", no_argument, NULL, 'x' }, { "op", required_argument, NULL, 'o' },
		{ 0 } };
	int c, bad = 0, enforcer = ENF_AUTO, explain = 0, op = -1;   /* op -1: every op */

	while ((c = getopt_long(argc, argv, "hjv", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			printf("usage: agentcage [--json] check [--enforcer landlock] FILE...\n"
			       "       agentcage [--json] check --explain FILE PATH [--op read|write|exec]\n"
			       "Validate policy files: errors name file, line and column (exit 1);\n"
			       "a valid file prints what it grants, its hostnames resolved, and\n"
			       "warnings (standard error; exit 0) about what would break at run\n"
			       "time or give up write-xor-execute.\n"
			       "With --enforcer landlock, also what the Landlock enforcer holds\n"
			       "of it, row by row: holds, differs (never letting the agent do\n"
			       "more), weaker (run needs --accept-weaker), cannot (run refuses).\n"
			       "With --json, one JSON object per file on standard output.\n"
			       "--explain: which entry of FILE decides each op on PATH (as the\n"
			       "kernel names it: symlinks resolved), what it beats, and what the\n"
			       "kernel refuses there whatever the policy; exit 0 when every op\n"
			       "asked about is allowed, 2 when one is refused.\n");
			return 0;
		case 'j': diag_json = true; break;
		case 'v': diag_verbose++; break;
		case 'E':
			if (enforcer_parse(optarg, &enforcer))
				return EXIT_AGENTCAGE;
			break;
		case 'x': explain = 1; break;
		case 'o':
			if ((op = explain_op_parse(optarg)) < 0) {
				diag_error_code(AC_E_USAGE, "--op takes read, write or exec, not '%s'",
						optarg);
				return EXIT_AGENTCAGE;
			}
			break;
		default:
			diag_error_code(AC_E_USAGE, "bad option; see 'agentcage check --help'");
			return EXIT_AGENTCAGE;
		}
	}
	if (op >= 0 && !explain) {
		diag_error_code(AC_E_USAGE, "--op goes with --explain: agentcage check --explain "
				"FILE PATH --op %s", explain_op_name(op));
		return EXIT_AGENTCAGE;
	}
	if (explain && (argc - optind != 2 || enforcer != ENF_AUTO)) {
		diag_error_code(AC_E_USAGE, "check --explain takes one policy file and one path%s: "
				"agentcage check --explain FILE PATH [--op read|write|exec]",
				enforcer != ENF_AUTO ? " (and no --enforcer)" : "");
		return EXIT_AGENTCAGE;
	}
	if (explain)
		return check_explain(argv[optind], argv[optind + 1], op);
	if (optind >= argc) {
		diag_error_code(AC_E_USAGE, "check needs at least one policy file: agentcage check FILE...");
		return EXIT_AGENTCAGE;
	}
	for (int i = optind; i < argc; i++)
		bad |= check_one(argv[i], enforcer);
	return bad;
}
