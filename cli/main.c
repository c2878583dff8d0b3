#include <stdio.h>
#include <stdarg.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "diag.h"
#include "verbs.h"

static void usage(FILE *f)
{
	fputs("usage: agentcage VERB [OPTIONS]\n"
	      "Confine a command in its own cgroup under a file and exec policy enforced by BPF LSM.\n\n"
	      "verbs:\n"
	      "  agentcage run [--policy FILE] [--mode enforce|audit] [--json] [--events FILE] [-v] -- CMD [ARG...]\n"
	      "        run CMD in a new cage; exit status is CMD's (125: agentcage failed)\n"
	      "  agentcage check FILE...   validate policy files and summarise what they grant\n"
	      "  help            this text; 'agentcage VERB --help' for one verb\n\n"
	      "See agentcage(1).\n", f);
}

/* libbpf's log lines: shown with -v, its debug lines with -vv */
static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!diag_verbose || (level == LIBBPF_DEBUG && diag_verbose < 2))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int main(int argc, char **argv)
{
	libbpf_set_print(print_libbpf);
	if (argc < 2) {
		usage(stderr);
		return EXIT_AGENTCAGE;
	}
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "check"))
		return cmd_check(argc - 1, argv + 1);
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	diag_error("unknown verb '%s'; try 'agentcage --help'", argv[1]);
	return EXIT_AGENTCAGE;
}
