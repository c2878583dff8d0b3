// SPDX-License-Identifier: GPL-2.0-only
/* agentcage: global options, then one verb from the table. */
#include <stdio.h>
#include <stdarg.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "diag.h"
#include "verbs.h"

static int cmd_help(int argc, char **argv);

/* every verb: its name, its function, its usage line and what it does */
static const struct verb {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage, *what;
} verbs[] = {
	{ "run", cmd_run, "run [--policy FILE] [--mode enforce|audit] [--events FILE] "
	  "[--dns-refresh S] -- CMD [ARG...]",
	  "run CMD in a new cage; exit status is CMD's (125: agentcage failed)" },
	{ "check", cmd_check, "check FILE... | check --explain FILE PATH [--op read|write|exec]",
	  "validate policy files and summarise what they grant; or which entry decides on PATH" },
	{ "daemon", cmd_daemon, "daemon [--policy-dir DIR] [--socket PATH] [--events FILE]",
	  "the host-wide service: one named cage per DIR/*.yaml, a control socket" },
	{ "ls", cmd_ls, "ls [--socket PATH]", "the daemon's cages" },
	{ "status", cmd_status, "status [--socket PATH] [NAME]",
	  "prove each cage is enforced (pinned links, cages map); exit 1 if not" },
	{ "reload", cmd_reload, "reload [--socket PATH] [NAME]",
	  "make the daemon re-read its policy directory (or NAME's file) now" },
	{ "events", cmd_events, "events [--follow] [--cage NAME] [--socket PATH]",
	  "the daemon's event stream: what it holds, or (--follow) as it comes" },
	{ "help", cmd_help, "help", "this text; 'agentcage VERB --help' for one verb" },
	{ 0 }
};

static void usage(FILE *f)
{
	fputs("usage: agentcage [--json] [-v|-vv] VERB [OPTIONS]\n"
	      "Confine a command in its own cgroup under a file, exec and network policy\n"
	      "enforced in the kernel by BPF LSM and cgroup_skb programs.\n\nverbs:\n", f);
	for (const struct verb *v = verbs; v->name; v++)
		fprintf(f, "  agentcage %s\n        %s\n", v->usage, v->what);
	fputs("\nglobal options (before or after the verb; -v after run and check only):\n"
	      "  --json     errors, events and summaries as JSON lines\n"
	      "  -v, -vv    more detail (libbpf's log; -vv: its debug lines)\n"
	      "  --help     this text\n\n"
	      "See agentcage(1).\n", f);
}

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stdout);
	return 0;
}

/* libbpf's log lines: shown with -v, its debug lines with -vv */
static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!diag_verbose || (level == LIBBPF_DEBUG && diag_verbose < 2))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* The options that may stand before the verb; returns the verb's index in
 * argv, or -1 after an error (or 0 when --help was handled). */
static int global_options(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--json"))
			diag_json = true;
		else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose"))
			diag_verbose++;
		else if (!strcmp(argv[i], "-vv"))
			diag_verbose += 2;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else {
			diag_error_code(AC_E_USAGE, "unknown global option '%s'; see 'agentcage --help'",
					argv[i]);
			return -1;
		}
	}
	if (i == argc) {
		usage(stderr);
		return -1;
	}
	return i;
}

int main(int argc, char **argv)
{
	int i;

	/* an event line is one write: on a terminal the agent shares, its
	 * output must never land in the middle of one */
	setvbuf(stderr, NULL, _IOLBF, 0);
	libbpf_set_print(print_libbpf);
	i = global_options(argc, argv);
	if (i <= 0)
		return i ? EXIT_AGENTCAGE : 0;
	for (const struct verb *v = verbs; v->name; v++)
		if (!strcmp(argv[i], v->name))
			return v->fn(argc - i, argv + i);
	diag_error_code(AC_E_USAGE, "unknown verb '%s'; try 'agentcage --help'", argv[i]);
	return EXIT_AGENTCAGE;
}
