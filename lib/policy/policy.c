// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include "policy/policy.h"
#include "agentcage/cage.h"
#include "policy/netrules.h"
#include "policy/pattern.h"
#include "policy/yamllite.h"

struct ctx {
	const char *file;
	yaml_document_t *doc;
	char *err;
	size_t errlen;
	struct policy *pol;
};

static int fail(struct ctx *c, yaml_node_t *n, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "%s:%zu:%zu: %s", c->file,
		 n ? n->start_mark.line + 1 : 1, n ? n->start_mark.column + 1 : 1, msg);
	return -1;
}

static const char *scalar(yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int plist_add(struct plist *l, const char *s)
{
	if (l->n >= l->cap) {
		size_t cap = l->n < 8 ? 8 : l->n * 2;
		char **items = realloc(l->items, cap * sizeof(*items));

		if (!items)
			return -1;
		l->items = items;
		l->cap = cap;
	}
	if (!(l->items[l->n] = strdup(s)))
		return -1;
	l->n++;
	return 0;
}

/* A policy path: absolute (or starting with a ${VAR} the loader expands),
 * no "." or ".." components, at most AC_RULE_MAX bytes. */
static int check_path(struct ctx *c, yaml_node_t *n, const char *s)
{
	const char *p;

	if (!*s)
		return fail(c, n, "empty path");
	if (s[0] != '/' && strncmp(s, "${", 2))
		return fail(c, n, "path '%s' is relative; policy paths must be absolute", s);
	if (strlen(s) > AC_RULE_MAX)
		return fail(c, n, "path is %zu bytes long; policy paths are limited to %d",
			    strlen(s), AC_RULE_MAX);
	/* from each '.' (fewer than the '/'s): a component "." or ".." */
	for (p = s; (p = strchr(p, '.')); p++) {
		const char *e = p + (p[1] == '.');

		if (p > s && p[-1] == '/' && (e[1] == '/' || !e[1]))
			return fail(c, n, "path '%s' has a '.' or '..' component", s);
	}
	return 0;
}

/* checks one list entry s (node v) of list `what`; 0 if it is valid */
typedef int (*item_fn)(struct ctx *c, yaml_node_t *v, const char *what, const char *s);

static int path_item(struct ctx *c, yaml_node_t *v, const char *what, const char *s)
{
	(void)what;
	return check_path(c, v, s);
}

/* files.* and exec.* entries: paths or patterns (policy/pattern.h) */
static int pat_item(struct ctx *c, yaml_node_t *v, const char *what, const char *s)
{
	char why[256], abs[AC_RULE_MAX + 2];

	if (!strncmp(s, "**", 2) && strlen(s) <= AC_RULE_MAX) {   /* a pattern from "**": at any depth */
		snprintf(abs, sizeof(abs), "/%s", s);
		if (check_path(c, v, abs))
			return -1;
	} else if (check_path(c, v, s)) {
		return -1;
	}
	if (pattern_is(s) && pattern_check(s, why, sizeof(why)))
		return fail(c, v, "%s: %s", what, why);
	return 0;
}

/* network.allow / network.deny: address entries, see netrules.h */
static int net_item(struct ctx *c, yaml_node_t *v, const char *what, const char *s)
{
	struct netspec ns;
	char why[256];

	if (netspec_parse(s, &ns, why, sizeof(why)))
		return fail(c, v, "%s: '%s': %s", what, s, why);
	return 0;
}

/* network.unix: socket paths (as file policy paths) or @abstract names */
static int unix_item(struct ctx *c, yaml_node_t *v, const char *what, const char *s)
{
	if (s[0] != '@' && pattern_is(s))
		return fail(c, v, "%s: '%s': patterns are for files and exec entries; a socket "
			    "is named in full", what, s);
	if (s[0] != '@')
		return path_item(c, v, what, s);
	if (!s[1] || strlen(s + 1) > AC_UNIX_NAME_MAX)
		return fail(c, v, "abstract socket name '%s' must have 1 to %d bytes after the '@'", s,
			    AC_UNIX_NAME_MAX);
	return 0;
}

/* A list of strings, each checked by fn, into out. */
static int parse_list(struct ctx *c, yaml_node_t *n, const char *what, const char *kind,
		      item_fn fn, struct plist *out)
{
	yaml_node_item_t *it;

	if (n->type != YAML_SEQUENCE_NODE)
		return fail(c, n, "'%s' must be a list of %s", what, kind);
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *v = yaml_document_get_node(c->doc, *it);
		const char *s = scalar(v);

		if (!s)
			return fail(c, v, "'%s' entries must be strings", what);
		if (fn(c, v, what, s))
			return -1;
		if (plist_add(out, s))
			return fail(c, v, "out of memory");
	}
	return 0;
}

#define NET_KIND "ADDR[/PREFIX][:PORT[-PORT]][/tcp|/udp] or HOSTNAME[:PORT] entries"

static int net_key(struct ctx *c, const char *key, yaml_node_t *k, yaml_node_t *v, void *arg)
{
	struct policy *p = arg;

	if (!strcmp(key, "allow"))
		return parse_list(c, v, "network.allow", NET_KIND, net_item, &p->net_allow);
	if (!strcmp(key, "deny"))
		return parse_list(c, v, "network.deny", NET_KIND, net_item, &p->net_deny);
	if (!strcmp(key, "unix"))
		return parse_list(c, v, "network.unix", "socket paths or @names", unix_item,
				  &p->net_unix);
	return fail(c, k, "unknown key 'network.%s' (expected allow, deny, unix)", key);
}

typedef int (*key_fn)(struct ctx *c, const char *key, yaml_node_t *k, yaml_node_t *v, void *arg);

/* Walk a mapping: keys must be strings, known to fn, and not repeated. */
static int each_key(struct ctx *c, yaml_node_t *n, const char *what, key_fn fn, void *arg)
{
	yaml_node_pair_t *pr, *q;

	if (n->type != YAML_MAPPING_NODE)
		return fail(c, n, "%s must be a mapping", what);
	for (pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(c->doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(c->doc, pr->value);
		const char *ks = scalar(k);

		if (!ks)
			return fail(c, k, "keys of %s must be strings", what);
		for (q = n->data.mapping.pairs.start; q < pr; q++) {
			const char *prev = scalar(yaml_document_get_node(c->doc, q->key));

			if (prev && !strcmp(prev, ks))
				return fail(c, k, "duplicate key '%s'", ks);
		}
		if (fn(c, ks, k, v, arg))
			return -1;
	}
	return 0;
}

static int files_key(struct ctx *c, const char *key, yaml_node_t *k, yaml_node_t *v, void *arg)
{
	struct policy *p = arg;

	if (!strcmp(key, "read"))
		return parse_list(c, v, "files.read", "paths or patterns", pat_item, &p->read);
	if (!strcmp(key, "write"))
		return parse_list(c, v, "files.write", "paths or patterns", pat_item, &p->write);
	if (!strcmp(key, "deny"))
		return parse_list(c, v, "files.deny", "paths or patterns", pat_item, &p->deny);
	return fail(c, k, "unknown key 'files.%s' (expected read, write, deny)", key);
}

static int exec_key(struct ctx *c, const char *key, yaml_node_t *k, yaml_node_t *v, void *arg)
{
	struct policy *p = arg;

	if (!strcmp(key, "allow"))
		return parse_list(c, v, "exec.allow", "paths or patterns", pat_item, &p->exec);
	if (!strcmp(key, "libraries")) {
		p->exec_libs_set = 1;
		return parse_list(c, v, "exec.libraries", "paths or patterns", pat_item, &p->exec_libs);
	}
	return fail(c, k, "unknown key 'exec.%s' (expected allow, libraries)", key);
}

/* Digits only, into *out; -1 when empty, not digits or above max. */
static int parse_uint(const char *s, size_t len, unsigned long long max, unsigned long long *out)
{
	unsigned long long v = 0;

	if (!len)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]) || v > (max - (s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

/* N with an optional unit of the last character; units[i] scales by mult[i] */
static int parse_scaled(const char *s, const char *units, const unsigned long long *mult,
			unsigned long long max, unsigned long long *out)
{
	size_t len = strlen(s);
	const char *u = len ? strchr(units, s[len - 1]) : NULL;
	unsigned long long m = 1, v;

	if (u && *u) {
		m = mult[u - units];
		len--;
	}
	if (parse_uint(s, len, max / m, &v))
		return -1;
	*out = v * m;
	return 0;
}

#define SIZE_KIND "a size such as 512K, 100M or 1G (at least 1M)"
#define TIME_KIND "a duration such as 90 (seconds), 10s, 5m or 1h, above 0"

static int limit_memory(struct ctx *c, yaml_node_t *v, struct policy_limits *l)
{
	static const unsigned long long mult[] = { 1ULL << 10, 1ULL << 20, 1ULL << 30, 1ULL << 40,
						   1ULL << 10, 1ULL << 20, 1ULL << 30, 1ULL << 40 };
	const char *s = scalar(v);

	if (!s || parse_scaled(s, "KMGTkmgt", mult, ~0ULL >> 1, &l->memory) ||
	    l->memory < (1ULL << 20))
		return fail(c, v, "'limits.memory' must be " SIZE_KIND);
	return 0;
}

/* cpu: a decimal with up to 3 places, from 0.01 (the kernel's 1ms quota per
 * 100ms period) to 1024 CPUs; stored in thousandths */
static int limit_cpu(struct ctx *c, yaml_node_t *v, struct policy_limits *l)
{
	const char *s = scalar(v), *dot = s ? strchr(s, '.') : NULL;
	unsigned long long whole = 0, frac = 0;
	size_t fl = dot ? strlen(dot + 1) : 0;

	if (!s || parse_uint(s, dot ? (size_t)(dot - s) : strlen(s), 1024, &whole) ||
	    (dot && (fl < 1 || fl > 3 || parse_uint(dot + 1, fl, 999, &frac))))
		goto bad;
	for (; fl < 3; fl++)
		frac *= 10;
	l->cpu_milli = whole * 1000 + frac;
	if (l->cpu_milli >= 10 && l->cpu_milli <= 1024000)
		return 0;
bad:
	return fail(c, v, "'limits.cpu' must be a number of CPUs from 0.01 to 1024, such as 0.5 or 2");
}

static int limit_key(struct ctx *c, const char *key, yaml_node_t *k, yaml_node_t *v, void *arg)
{
	static const unsigned long long tmult[] = { 1, 60, 3600 };
	struct policy_limits *l = arg;
	const char *s = scalar(v);
	unsigned long long n;

	if (!strcmp(key, "memory"))
		return limit_memory(c, v, l);
	if (!strcmp(key, "cpu"))
		return limit_cpu(c, v, l);
	if (!strcmp(key, "pids")) {
		if (!s || parse_uint(s, strlen(s), 4194304, &n) || !n)
			return fail(c, v, "'limits.pids' must be a number of processes from 1 to 4194304");
		l->pids = n;
		return 0;
	}
	if (!strcmp(key, "time")) {
		if (!s || parse_scaled(s, "smh", tmult, UINT_MAX, &n) || !n)
			return fail(c, v, "'limits.time' must be " TIME_KIND);
		l->time = n;
		return 0;
	}
	return fail(c, k, "unknown key 'limits.%s' (expected memory, cpu, pids, time)", key);
}

/* user: a login name, or UID[:GID] (numbers below 4294967295) */
static int user_value(struct ctx *c, yaml_node_t *v, struct policy *p)
{
	const char *s = scalar(v), *colon;
	unsigned long long id;
	size_t ul;

	if (!s || !*s || strlen(s) >= sizeof(p->user))
		return fail(c, v, "'user' must be a user name or UID[:GID]");
	if (isdigit((unsigned char)s[0])) {
		colon = strchr(s, ':');
		ul = colon ? (size_t)(colon - s) : strlen(s);
		if (parse_uint(s, ul, UINT_MAX - 1, &id) ||
		    (colon && parse_uint(colon + 1, strlen(colon + 1), UINT_MAX - 1, &id)))
			return fail(c, v, "'user' '%s': UID[:GID] must be numbers below 4294967295", s);
	} else if ((!isalpha((unsigned char)s[0]) && s[0] != '_') ||
		   s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")]) {
		return fail(c, v, "'user' '%s' is not a user name (letters, digits, '.', '_', '-', "
			    "not starting with a digit or '-') nor UID[:GID]", s);
	}
	snprintf(p->user, sizeof(p->user), "%s", s);
	return 0;
}

static int isolate_value(struct ctx *c, yaml_node_t *n, struct policy *p)
{
	static const char *const names[] = { "pid", "uts", "mount", "network" };
	yaml_node_item_t *it;
	size_t i;

	if (n->type != YAML_SEQUENCE_NODE)
		return fail(c, n, "'isolate' must be a list of namespaces (pid, uts, mount, network)");
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *v = yaml_document_get_node(c->doc, *it);
		const char *s = scalar(v);

		for (i = 0; s && i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(s, names[i]))
				break;
		if (!s || i == sizeof(names) / sizeof(names[0]))
			return fail(c, v, "'isolate' entry '%s' is not one of pid, uts, mount, network",
				    s ? s : "");
		if (p->isolate & (1u << i))
			return fail(c, v, "'isolate' lists '%s' twice", s);
		p->isolate |= 1u << i;
	}
	return 0;
}

/* syscalls.deny: names of this architecture's system calls; execve stays, the
 * cage could not start without it */
static int syscall_item(struct ctx *c, yaml_node_t *v, const char *what, const char *s)
{
	int nr = seccomp_syscall_resolve_name(s);

	if (nr == __NR_SCMP_ERROR)
		return fail(c, v, "%s: '%s' is not a system call", what, s);
	if (nr < 0)
		return fail(c, v, "%s: '%s' is not a system call of this architecture", what, s);
	if (!strcmp(s, "execve"))
		return fail(c, v, "%s: 'execve' cannot be denied: the cage starts its command with it "
			    "(use exec.allow to limit what runs)", what);
	return 0;
}

static int syscalls_key(struct ctx *c, const char *key, yaml_node_t *k, yaml_node_t *v, void *arg)
{
	struct policy *p = arg;

	if (!strcmp(key, "deny"))
		return parse_list(c, v, "syscalls.deny", "system call names", syscall_item,
				  &p->sys_deny);
	return fail(c, k, "unknown key 'syscalls.%s' (expected deny)", key);
}

/* env: variable names; TMPDIR is always the cage's private directory */
static int env_item(struct ctx *c, yaml_node_t *v, const char *what, const char *s)
{
	struct policy *p = c->pol;

	if ((!isalpha((unsigned char)s[0]) && s[0] != '_') ||
	    s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")])
		return fail(c, v, "%s: '%s' is not a variable name ([A-Za-z_][A-Za-z0-9_]*)", what, s);
	if (!strcmp(s, "TMPDIR"))
		return fail(c, v, "%s: TMPDIR cannot be passed through: it is always the cage's "
			    "private directory ${CAGE_TMP}", what);
	for (size_t i = 0; i < p->env.n; i++)
		if (!strcmp(p->env.items[i], s))
			return fail(c, v, "%s lists '%s' twice", what, s);
	return 0;
}

static int top_key(struct ctx *c, const char *key, yaml_node_t *k, yaml_node_t *v, void *arg)
{
	struct policy *p = arg;
	const char *s;

	if (!strcmp(key, "name")) {
		s = scalar(v);
		if (!s || !*s || strlen(s) >= sizeof(p->name))
			return fail(c, v, "'name' must be a string of 1 to %zu bytes",
				    sizeof(p->name) - 1);
		if (s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")])
			return fail(c, v, "'name' may only hold letters, digits, '.', '_' and '-'");
		snprintf(p->name, sizeof(p->name), "%s", s);
		return 0;
	}
	if (!strcmp(key, "mode")) {
		s = scalar(v);
		if (s && !strcmp(s, "enforce"))
			p->mode = MODE_ENFORCE;
		else if (s && !strcmp(s, "audit"))
			p->mode = MODE_AUDIT;
		else
			return fail(c, v, "'mode' must be 'enforce' or 'audit'");
		return 0;
	}
	if (!strcmp(key, "files"))
		return each_key(c, v, "'files'", files_key, p);
	if (!strcmp(key, "exec"))
		return each_key(c, v, "'exec'", exec_key, p);
	if (!strcmp(key, "network"))
		return each_key(c, v, "'network'", net_key, p);
	if (!strcmp(key, "user"))
		return user_value(c, v, p);
	if (!strcmp(key, "limits"))
		return each_key(c, v, "'limits'", limit_key, &p->limits);
	if (!strcmp(key, "isolate"))
		return isolate_value(c, v, p);
	if (!strcmp(key, "syscalls"))
		return each_key(c, v, "'syscalls'", syscalls_key, p);
	if (!strcmp(key, "env"))
		return parse_list(c, v, "env", "variable names", env_item, &p->env);
	return fail(c, k, "unknown key '%s' (expected name, mode, user, files, exec, network, "
		    "limits, isolate, syscalls, env)", key);
}

/* The document of text: yamllite's when the text is in its subset (the
 * policies written by hand and by tools are), else libyaml's. */
static int load_yaml(const char *file, const char *text, size_t len, yaml_document_t *doc,
		     int *lite, char *err, size_t errlen)
{
	yaml_parser_t parser;

	if ((*lite = yaml_lite_load(text, len, doc)) > 0)
		return 0;
	if (*lite < 0 || !yaml_parser_initialize(&parser)) {
		snprintf(err, errlen, "%s: out of memory", file);
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, doc)) {
		snprintf(err, errlen, "%s:%zu:%zu: invalid YAML: %s", file,
			 parser.problem_mark.line + 1, parser.problem_mark.column + 1,
			 parser.problem ? parser.problem : "parse error");
		yaml_parser_delete(&parser);
		return -1;
	}
	yaml_parser_delete(&parser);
	return 0;
}

int policy_parse(const char *file, const char *text, size_t len, struct policy *p,
		 char *err, size_t errlen)
{
	yaml_document_t doc;
	yaml_node_t *root;
	struct ctx c = { .file = file, .doc = &doc, .err = err, .errlen = errlen, .pol = p };
	int ret, lite;

	memset(p, 0, sizeof(*p));
	p->mode = MODE_UNSET;
	if (load_yaml(file, text, len, &doc, &lite, err, errlen))
		return -1;
	root = yaml_document_get_root_node(&doc);
	if (!root)
		ret = fail(&c, NULL, "empty policy");
	else
		ret = each_key(&c, root, "the policy", top_key, p);
	(lite > 0 ? yaml_lite_delete : yaml_document_delete)(&doc);
	if (ret)
		policy_free(p);
	return ret;
}

int policy_load(const char *path, struct policy *p, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	int ret;

	if (!f) {
		snprintf(err, errlen, "%s: cannot open policy file: %s", path, strerror(errno));
		return -1;
	}
	do {
		if (len + 4096 > cap) {
			char *t = realloc(text, cap = cap * 2 + 8192);

			if (!t) {
				free(text);
				fclose(f);
				snprintf(err, errlen, "%s: out of memory", path);
				return -1;
			}
			text = t;
		}
		n = fread(text + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	ret = policy_parse(path, text, len, p, err, errlen);
	free(text);
	if (!ret)
		policy_default_name(p, path);
	return ret;
}

void policy_default_name(struct policy *p, const char *file)
{
	const char *base = strrchr(file, '/');
	char *dot;

	if (p->name[0])
		return;
	snprintf(p->name, sizeof(p->name), "%s", base ? base + 1 : file);
	if ((dot = strrchr(p->name, '.')) && dot != p->name)
		*dot = 0;
}

static void plist_free(struct plist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i]);
	free(l->items);
	l->items = NULL;
	l->n = l->cap = 0;
}

void policy_free(struct policy *p)
{
	plist_free(&p->read);
	plist_free(&p->write);
	plist_free(&p->deny);
	plist_free(&p->exec);
	plist_free(&p->net_allow);
	plist_free(&p->net_deny);
	plist_free(&p->net_unix);
	plist_free(&p->sys_deny);
	plist_free(&p->env);
	plist_free(&p->exec_libs);
}
