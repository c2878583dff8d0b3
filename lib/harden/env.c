// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "harden/env.h"

static const char *lookup(char *const *env, const char *name)
{
	size_t len = strlen(name);

	for (; env && *env; env++)
		if (!strncmp(*env, name, len) && (*env)[len] == '=')
			return *env + len + 1;
	return NULL;
}

static int listed(const struct policy *p, const char *name)
{
	for (size_t i = 0; i < p->env.n; i++)
		if (!strcmp(p->env.items[i], name))
			return 1;
	return 0;
}

static int add(struct ac_env *env, const char *name, const char *value)
{
	size_t len = strlen(name) + strlen(value) + 2;
	char *s = malloc(len);

	if (!s)
		return -1;
	snprintf(s, len, "%s=%s", name, value);
	env->envp[env->n++] = s;
	env->envp[env->n] = NULL;
	return 0;
}

static const char *home_of(const struct policy *p, const struct ac_identity *id,
			   const char *cage_tmp, char *const *caller)
{
	const char *h = lookup(caller, "HOME");
	struct stat st;

	if (listed(p, "HOME") && h)
		return h;
	if (id->home[0] && stat(id->home, &st) == 0 && S_ISDIR(st.st_mode))
		return id->home;
	return cage_tmp;
}

int ac_env_build(const struct policy *p, const struct ac_identity *id, const char *cage_tmp,
		 char *const *caller, struct ac_env *out, struct ac_error *e)
{
	static const char *const fixed[] = { "PATH", "HOME", "LANG", "TERM" };
	const char *path = lookup(caller, "PATH"), *v;
	int ret = 0;

	out->n = 0;
	if (!(out->envp = calloc(p->env.n + 6, sizeof(char *))))
		return ac_error_set(e, AC_E_NOMEM, "out of memory building the environment");
	ret |= add(out, "PATH", listed(p, "PATH") && path ? path : AC_ENV_PATH);
	ret |= add(out, "HOME", home_of(p, id, cage_tmp, caller));
	for (size_t i = 2; i < 4; i++)
		if ((v = lookup(caller, fixed[i])))
			ret |= add(out, fixed[i], v);
	ret |= add(out, "TMPDIR", cage_tmp);
	for (size_t i = 0; i < p->env.n; i++) {
		const char *name = p->env.items[i];

		if (strcmp(name, "PATH") && strcmp(name, "HOME") && strcmp(name, "LANG") &&
		    strcmp(name, "TERM") && strcmp(name, "TMPDIR") && (v = lookup(caller, name)))
			ret |= add(out, name, v);
	}
	if (ret) {
		ac_env_free(out);
		return ac_error_set(e, AC_E_NOMEM, "out of memory building the environment");
	}
	return 0;
}

void ac_env_free(struct ac_env *env)
{
	for (size_t i = 0; env->envp && i < env->n; i++)
		free(env->envp[i]);
	free(env->envp);
	env->envp = NULL;
	env->n = 0;
}
