// SPDX-License-Identifier: GPL-2.0-only
/* Policy files: YAML parsed and validated into struct policy. */
#ifndef AGENTCAGE_POLICY_H
#define AGENTCAGE_POLICY_H
#include <stddef.h>

enum policy_mode { MODE_UNSET = -1, MODE_ENFORCE = 0, MODE_AUDIT = 1 };

struct plist {
	char **items;
	size_t n;
	size_t cap;                /* items allocated, when known (0: n) */
};

/* isolate: namespaces beyond the IPC namespace every cage gets */
enum policy_isolate {
	POLICY_ISO_PID = 1 << 0,
	POLICY_ISO_UTS = 1 << 1,
	POLICY_ISO_MOUNT = 1 << 2,
	POLICY_ISO_NET = 1 << 3,
};

/* limits: 0 means "not asked for" in every field */
struct policy_limits {
	unsigned long long memory; /* bytes: memory.max (and memory.swap.max 0) */
	unsigned cpu_milli;        /* thousandths of a CPU: cpu.max */
	unsigned pids;             /* pids.max */
	unsigned time;             /* wall-clock seconds */
};

#define POLICY_USER_MAX 64

struct policy {
	char name[128];
	int mode;
	struct plist read, write, deny, exec;
	/* network: entries as written (checked by netspec_parse); without a
	 * network section all three are empty and nothing is reachable */
	struct plist net_allow, net_deny, net_unix;
	/* user: a name or "UID[:GID]" as written; "" = absent (the default rule:
	 * the caller when not root, else nobody), resolved by harden/identity */
	char user[POLICY_USER_MAX];
	struct policy_limits limits;
	unsigned isolate;          /* POLICY_ISO_* bits */
	struct plist sys_deny;     /* syscalls.deny: names valid on this architecture */
	struct plist env;          /* env: variable names passed through */
	/* exec.libraries: paths that may be mapped as code; exec_libs_set = 0
	 * when the key is absent (the compiler then applies the default,
	 * POLICY_DEFAULT_LIBRARIES); an explicit [] is set with no entries */
	struct plist exec_libs;
	int exec_libs_set;
};

#define POLICY_DEFAULT_LIBRARIES { "/usr/lib", "/lib", "/lib64" }

/* A policy without `name:` is named after its file: the base name without
 * its extension. */
void policy_default_name(struct policy *p, const char *file);
/* Parse text (len bytes) named `file` into p. On error returns -1 and writes
 * "FILE:LINE:COL: message" into err. */
int policy_parse(const char *file, const char *text, size_t len, struct policy *p,
		 char *err, size_t errlen);
/* Read and parse a file; the cage name defaults to the file's base name. */
int policy_load(const char *path, struct policy *p, char *err, size_t errlen);
void policy_free(struct policy *p);
#endif
