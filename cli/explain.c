// SPDX-License-Identifier: GPL-2.0-only
/* agentcage check --explain POLICY PATH [--op read|write|exec]: which entry
 * of the policy decides, and what it beats (lib/policy/explain.c), with
 * what the kernel refuses whatever the policy says on this host's path. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include "agentcage/cage.h"
#include "diag.h"
#include "event/json.h"
#include "policy/explain.h"
#include "explain.h"

#define EXPLAIN_DENIED 2   /* exit status: some op asked about is refused */

/* path as the kernel names it: absolute, symlinks of what exists resolved
 * (the rest kept as written). 0, or -1. */
static int kernel_path(const char *in, char *out, size_t len)
{
	char abs[PATH_MAX], cwd[PATH_MAX], head[PATH_MAX], real[PATH_MAX];
	char *slash;

	if (in[0] != '/' && !getcwd(cwd, sizeof(cwd)))
		return -1;
	if ((size_t)snprintf(abs, sizeof(abs), "%s%s%s", in[0] == '/' ? "" : cwd,
			     in[0] == '/' ? "" : "/", in) >= sizeof(abs))
		return -1;
	memcpy(head, abs, sizeof(head));
	for (;;) {   /* the longest part that exists, resolved; the rest as written */
		if (realpath(head, real)) {
			const char *rest = abs + strlen(head);

			return (size_t)snprintf(out, len, "%s%s", strcmp(real, "/") || !*rest ?
						real : "", rest) >= len ? -1 : 0;
		}
		if (!(slash = strrchr(head, '/')) || slash == head)
			break;
		*slash = 0;
	}
	return (size_t)snprintf(out, len, "%s", abs) >= len ? -1 : 0;
}

/* What the kernel refuses on path whatever the policy (bpf/surface.bpf.h,
 * isolate.bpf.h), for op: NULL, or why. */
static const char *baseline(const char *path, int op)
{
	char dir[PATH_MAX];
	struct statfs sf;
	char *slash;

	if (op != EXPLAIN_WRITE)
		return NULL;
	snprintf(dir, sizeof(dir), "%s", path);
	while (statfs(dir, &sf) && (slash = strrchr(dir, '/')))
		slash == dir ? (void)(dir[1] = 0) : (void)(*slash = 0);
	switch ((unsigned long)sf.f_type) {
	case CGROUP_SUPER_MAGIC: case CGROUP2_SUPER_MAGIC:
		return "a cgroup filesystem: a cage cannot write to cgroup files (op cgroup_write)";
	case SYSFS_MAGIC: case DEBUGFS_MAGIC: case TRACEFS_MAGIC: case SECURITYFS_MAGIC:
	case 0x62656570 /* configfs */: case BPF_FS_MAGIC: case PSTOREFS_MAGIC:
	case EFIVARFS_MAGIC:
		return "a kernel filesystem: read-only in a cage whatever the policy grants";
	case PROC_SUPER_MAGIC:
		if (!strncmp(path, "/proc/", 6) && (path[6] < '0' || path[6] > '9'))
			return "the kernel's part of /proc (outside every /proc/PID): read-only in a "
			       "cage whatever the policy grants";
	}
	return NULL;
}

static void entry_plain(const struct explain_entry *e)
{
	printf("%s '%s'", e->list, e->entry);
	if (strcmp(e->entry, e->path))
		printf(" (%s)", e->path);
}

static void explain_plain(const char *in, const char *path, const struct explanation *x,
			  const char *base, int audit)
{
	const char *verdict = x->allowed && !base ? "allowed" : audit ? "audited (audit mode: "
			      "reported, allowed)" : "denied";

	printf("%s %s", explain_op_name(x->op), in);
	if (strcmp(in, path))
		printf(" (%s)", path);
	printf(": %s", verdict);
	if (base) {
		printf(": %s\n", base);
		return;
	}
	if (x->file.list) {
		printf("; opening it: %s ", x->file.cls == AC_DENY ? "refused by" : "granted by");
		entry_plain(&x->file);
		if (x->op == EXPLAIN_WRITE && x->file.cls == AC_READ)
			printf(", read only");
	} else {
		printf("; opening it: %s", x->implicit ? "granted by an implicit rule (the agent's "
		       "own terminal)" : "no files entry covers it (everything else is denied)");
	}
	if (x->op == EXPLAIN_EXEC) {
		printf("; running it: ");
		if (x->exec.list)
			entry_plain(&x->exec);
		else
			printf("no exec.allow entry covers it");
	}
	for (size_t i = 0; i < x->nbeaten; i++) {
		printf(i ? ", " : "; it beats (more specific, or deny > write > read on a tie) ");
		entry_plain(&x->beaten[i]);
	}
	if (x->more)
		printf(" and %zu more", x->more);
	printf("\n");
}

/* {"list":...,"entry":...,"path":...}, or null for no entry */
static void entry_object(const struct explain_entry *e)
{
	if (!e->list) {
		fputs("null", stdout);
		return;
	}
	printf("{\"list\":\"%s\",\"entry\":", e->list);
	json_write_string(stdout, e->entry, -1);
	fputs(",\"path\":", stdout);
	json_write_string(stdout, e->path, -1);
	fputs("}", stdout);
}

static void entry_json(const char *key, const struct explain_entry *e)
{
	printf(",\"%s\":", key);
	entry_object(e);
}

static void explain_json(const char *policy, const char *in, const char *path,
			 const struct explanation *x, const char *base, int audit)
{
	fputs("{\"policy\":", stdout);
	json_write_string(stdout, policy, -1);
	fputs(",\"asked\":", stdout);
	json_write_string(stdout, in, -1);
	fputs(",\"path\":", stdout);
	json_write_string(stdout, path, -1);
	printf(",\"op\":\"%s\",\"decision\":\"%s\",\"baseline\":", explain_op_name(x->op),
	       x->allowed && !base ? "allowed" : audit ? "audited" : "denied");
	if (base)
		json_write_string(stdout, base, -1);
	else
		fputs("null", stdout);
	entry_json("rule", &x->file);
	printf(",\"implicit\":%s", x->implicit ? "true" : "false");
	if (x->op == EXPLAIN_EXEC)
		entry_json("exec_rule", &x->exec);
	fputs(",\"beats\":[", stdout);
	for (size_t i = 0; i < x->nbeaten; i++) {
		fputs(i ? "," : "", stdout);
		entry_object(&x->beaten[i]);
	}
	printf("],\"beats_more\":%zu}\n", x->more);
}

int check_explain(const char *file, const char *in, int op)
{
	static const char fresh[] = "/tmp/agentcage-CAGE_TMP";
	char cwd[PATH_MAX], path[PATH_MAX];
	const struct rule_vars vars = { .cwd = getcwd(cwd, sizeof(cwd)), .cage_tmp = fresh };
	struct policy_source src = { .path = file, .mode = MODE_UNSET, .vars = &vars,
				     .resolve_links = 1 };
	struct compiled_policy c;
	struct explanation x;
	struct ac_error e;
	int denied = 0;

	if (!vars.cwd || kernel_path(in, path, sizeof(path))) {
		diag_error_code(AC_E_USAGE, "cannot make '%s' an absolute path: %s", in,
				strerror(errno ? errno : ENAMETOOLONG));
		return EXIT_AGENTCAGE;
	}
	if (policy_compile(&src, &c, &e)) {
		diag_err(&e);
		return 1;
	}
	for (int o = op < 0 ? EXPLAIN_READ : op; o <= (op < 0 ? EXPLAIN_EXEC : op); o++) {
		const char *base = baseline(path, o);

		if (policy_explain(&c, &vars, path, o, &x)) {
			diag_error_code(AC_E_NOMEM, "out of memory");
			compiled_policy_free(&c);
			return EXIT_AGENTCAGE;
		}
		denied |= !x.allowed || base;
		if (diag_json)
			explain_json(file, in, path, &x, base, c.pol.mode == MODE_AUDIT);
		else
			explain_plain(in, path, &x, base, c.pol.mode == MODE_AUDIT);
	}
	compiled_policy_free(&c);
	return denied ? EXPLAIN_DENIED : 0;
}
