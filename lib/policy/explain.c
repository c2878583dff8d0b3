// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agentcage/cage.h"
#include "event/event.h"
#include "policy/explain.h"
#include "policy/pattern.h"
#include "policy/rules.h"

static const char *const op_names[] = { "read", "write", "exec" };

int explain_op_parse(const char *s)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, op_names[i]))
			return i;
	return -1;
}

const char *explain_op_name(int op)
{
	return op >= 0 && op < 3 ? op_names[op] : "?";
}

struct cands {
	struct explain_entry *e;
	size_t n, cap;
};

/* Does form's key cover the path's key (pkey, pklen bytes)? Its length, or 0. */
static size_t covers(const char *form, const char *pkey, size_t pklen)
{
	char key[AC_KEY_PATH];
	size_t n = rules_key(form, strlen(form), key);

	return n <= pklen && !memcmp(key, pkey, n) ? n : 0;
}

/* Does pattern form match the path? The weight of its deepest match, or 0.
 * (A pattern that is an entry once compiled, "/a/ **", covers as one.) */
static size_t pattern_covers(char *form, const char *path, const char *pkey, size_t pklen)
{
	struct ac_pattern p;
	uint32_t w = 0;
	char err[256];
	int r = pattern_compile(form, 1, 0, &p, err, sizeof(err));

	if (r == 1)
		return covers(form, pkey, pklen);
	if (r || pattern_match(&p, path, strlen(path), &w) != AC_M_MATCH)
		return 0;
	return w;
}

/* The entries of one list covering the path, each by its longest covering
 * form (as written, or symlink-free as rules_compile adds it; a pattern by
 * its deepest match). 0, or -1. */
static int scan(const struct plist *l, const char *name, uint32_t cls, const struct rule_vars *v,
		const char *path_in, const char *pkey, size_t pklen, struct cands *c)
{
	char path[PATH_MAX], real[PATH_MAX], err[128];

	for (size_t i = 0; i < l->n; i++) {
		size_t a, b = 0;

		if (rules_expand_entry(l->items[i], v, path, sizeof(path), err, sizeof(err)))
			continue;   /* (the policy compiled: never) */
		if (pattern_is(l->items[i])) {
			a = pattern_covers(path, path_in, pkey, pklen);
		} else {
			a = covers(path, pkey, pklen);
			if (realpath(path, real) && strcmp(real, path))
				b = covers(real, pkey, pklen);
		}
		if (!a && !b)
			continue;
		if (c->n == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 16;
			struct explain_entry *e = realloc(c->e, cap * sizeof(*e));

			if (!e)
				return -1;
			c->e = e;
			c->cap = cap;
		}
		struct explain_entry *e = &c->e[c->n++];

		*e = (struct explain_entry){ .list = name, .entry = l->items[i], .cls = cls,
					     .len = b > a ? b : a };
		snprintf(e->path, sizeof(e->path), "%s", b > a ? real : path);
	}
	return 0;
}

/* the more specific first; on a tie deny, then write, then read */
static int stronger(const void *pa, const void *pb)
{
	const struct explain_entry *a = pa, *b = pb;

	if (a->len != b->len)
		return a->len > b->len ? -1 : 1;
	return a->cls > b->cls ? -1 : a->cls < b->cls;
}

static int files_of(const struct compiled_policy *c, const struct rule_vars *v, const char *path,
		    const char *pkey, size_t pklen, struct explanation *x)
{
	const struct policy *p = &c->pol;
	struct cands k = { 0 };
	uint32_t twin = rules_file_class(&c->rs, path);

	if (scan(&p->read, "files.read", AC_READ, v, path, pkey, pklen, &k) ||
	    scan(&p->write, "files.write", AC_WRITE, v, path, pkey, pklen, &k) ||
	    scan(&p->deny, "files.deny", AC_DENY, v, path, pkey, pklen, &k)) {
		free(k.e);
		return -1;
	}
	if (k.n)
		qsort(k.e, k.n, sizeof(*k.e), stronger);
	if (k.n && k.e[0].cls == twin) {
		x->file = k.e[0];
	} else {   /* a rule of the compiler's own */
		x->implicit = twin != AC_NONE;
		x->file.cls = twin;
	}
	for (size_t i = x->file.list ? 1 : 0; i < k.n; i++) {
		if (x->nbeaten < EXPLAIN_BEATEN_MAX)
			x->beaten[x->nbeaten++] = k.e[i];
		else
			x->more++;
	}
	free(k.e);
	return 0;
}

int policy_explain(const struct compiled_policy *c, const struct rule_vars *v, const char *path,
		   int op, struct explanation *x)
{
	char pkey[AC_KEY_PATH + 1];
	size_t pklen = rules_key(path, strlen(path), pkey);
	struct cands k = { 0 };

	memset(x, 0, sizeof(*x));
	x->op = op;
	pkey[pklen] = 0;
	if (files_of(c, v, path, pkey, pklen, x))
		return -1;
	x->allowed = op == EXPLAIN_WRITE ? x->file.cls == AC_WRITE :
		     x->file.cls == AC_READ || x->file.cls == AC_WRITE;
	if (op != EXPLAIN_EXEC)
		return 0;
	/* executing opens the file for reading, then needs a program entry:
	 * the longest exec.allow entry covering it (a library entry below one
	 * is a program too, rules_compile's exec_union) */
	if (scan(&c->pol.exec, "exec.allow", AC_EXEC_PROG, v, path, pkey, pklen, &k)) {
		x->allowed = 0;
		return -1;
	}
	if (k.n) {
		qsort(k.e, k.n, sizeof(*k.e), stronger);
		x->exec = k.e[0];
	}
	free(k.e);
	x->allowed = x->allowed && rules_exec_allowed(&c->rs, path);
	return 0;
}

/* the explain op of an event's op, or -1 for one no file rule decides */
static int event_op(uint32_t op)
{
	switch (op) {
	case AC_OP_OPEN_READ:
		return EXPLAIN_READ;
	case AC_OP_OPEN_WRITE: case AC_OP_CREATE: case AC_OP_MKNOD: case AC_OP_MKDIR:
	case AC_OP_RMDIR: case AC_OP_UNLINK: case AC_OP_RENAME: case AC_OP_LINK:
	case AC_OP_SYMLINK: case AC_OP_TRUNCATE: case AC_OP_CHMOD: case AC_OP_CHOWN:
	case AC_OP_SETXATTR: case AC_OP_UTIMES:
		return EXPLAIN_WRITE;
	case AC_OP_EXEC:
		return EXPLAIN_EXEC;
	default:
		return -1;
	}
}

int explain_event_rule(const struct compiled_policy *c, const struct rule_vars *v, uint32_t op,
		       const char *path, char *buf, size_t len)
{
	int xop = event_op(op), found = 0;
	struct explanation *x;
	const struct explain_entry *d;

	if (xop < 0 || path[0] != '/' || !(x = malloc(sizeof(*x))))   /* 45 KB */
		return 0;
	if (!policy_explain(c, v, path, xop, x) && !x->allowed) {
		/* an exec the file rules let read is refused for want of an
		 * exec.allow entry; with one (x->exec grants), a deeper
		 * exec.libraries entry refused it, which explain does not name */
		d = xop == EXPLAIN_EXEC && (x->file.cls == AC_READ || x->file.cls == AC_WRITE) ?
		    &x->exec : &x->file;
		found = !(d == &x->exec && d->list);
		if (found && d->list)
			snprintf(buf, len, "%s: %s", d->list, d->entry);
		else if (found)
			snprintf(buf, len, "default-deny");
	}
	free(x);
	return found;
}

const char *explain_event_rule_memo(struct explain_memo *m, const struct ac_event *e, uint32_t gen,
				    const struct compiled_policy *c, const struct rule_vars *v)
{
	char path[sizeof(m->path)];

	if (!event_file_path(e, path, sizeof(path)))
		return NULL;
	if (!e->cgroup || m->cgid != e->cgroup || m->gen != gen || m->op != e->op ||
	    strcmp(m->path, path)) {
		m->found = explain_event_rule(c, v, e->op, path, m->rule, sizeof(m->rule));
		m->cgid = e->cgroup;
		m->gen = gen;
		m->op = e->op;
		memcpy(m->path, path, sizeof(path));
	}
	return m->found ? m->rule : NULL;
}
