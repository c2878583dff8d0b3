/* Policy files: YAML parsed and validated into struct policy. */
#ifndef AGENTCAGE_POLICY_H
#define AGENTCAGE_POLICY_H
#include <stddef.h>

enum policy_mode { MODE_UNSET = -1, MODE_ENFORCE = 0, MODE_AUDIT = 1 };

struct plist {
	char **items;
	size_t n;
};

struct policy {
	char name[128];
	int mode;
	struct plist read, write, deny, exec;
	/* network: entries as written (checked by netspec_parse); without a
	 * network section all three are empty and nothing is reachable */
	struct plist net_allow, net_deny, net_unix;
};

/* Parse text (len bytes) named `file` into p. On error returns -1 and writes
 * "FILE:LINE:COL: message" into err. */
int policy_parse(const char *file, const char *text, size_t len, struct policy *p,
		 char *err, size_t errlen);
/* Read and parse a file; the cage name defaults to the file's base name. */
int policy_load(const char *path, struct policy *p, char *err, size_t errlen);
void policy_free(struct policy *p);
#endif
