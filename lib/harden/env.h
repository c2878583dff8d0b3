// SPDX-License-Identifier: GPL-2.0-only
/* The agent's environment: a fixed minimal set, plus the policy's env: names.
 *   PATH    /usr/local/bin:/usr/bin:/bin (AC_ENV_PATH): the caller's PATH may
 *           name directories the caller controls; env: [PATH] keeps it
 *   HOME    the agent user's passwd home when it is a directory, else
 *           ${CAGE_TMP} (nobody's home is /nonexistent); env: [HOME] keeps
 *           the caller's
 *   LANG, TERM  the caller's, when set
 *   TMPDIR  ${CAGE_TMP}, always
 *   each other env: name the caller has set, with the caller's value */
#ifndef AGENTCAGE_HARDEN_ENV_H
#define AGENTCAGE_HARDEN_ENV_H
#include "harden/identity.h"
#include "policy/policy.h"
#include "util/error.h"

#define AC_ENV_PATH "/usr/local/bin:/usr/bin:/bin"

struct ac_env {
	char **envp; /* NULL-terminated "NAME=value" strings, for execve */
	size_t n;
};

/* Before fork. caller is the caller's environment (environ). */
int ac_env_build(const struct policy *p, const struct ac_identity *id, const char *cage_tmp,
		 char *const *caller, struct ac_env *out, struct ac_error *e);
void ac_env_free(struct ac_env *env);
#endif
