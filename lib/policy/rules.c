// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "policy/pattern.h"
#include "policy/rules.h"

size_t rules_key(const char *path, size_t len, char *out)
{
	size_t n = ac_key_len(len);

	memcpy(out, path, len < n ? len : n);
	if (len > 1 && len < AC_KEY_PATH)
		out[len] = '/';
	return n;
}

/* does p[0..n) have "//"? (strstr's generic form, which the VM's CPU
 * gets, had been a twentieth of a 10,000-rule reload there) */
static int doubled(const char *p, size_t n)
{
	for (const char *q = p; (q = memchr(q, '/', n - (size_t)(q - p))); q++)
		if (q + 1 < p + n && q[1] == '/')
			return 1;
	return 0;
}

/* expand ${VAR}s and normalise: no repeated or trailing '/' */
int rules_expand(const char *in, const struct rule_vars *v, char *out, size_t outlen,
		 char *err, size_t errlen)
{
	char tmp[PATH_MAX * 2];
	size_t o = 0;
	const char *p = in;

	if (!strchr(in, '$')) {       /* no variable: the path as it is */
		o = strlen(in);
		if (o >= sizeof(tmp))
			goto toolong;
		memcpy(tmp, in, o);
		p = in + o;
	}
	while (*p) {
		const char *val = NULL;
		size_t skip = 0;

		/* three compares per character had been a quarter of a
		 * 10,000-rule compile: only a '$' can start a variable */
		if (*p != '$')
			;
		else if (!strncmp(p, "${CWD}", 6)) { val = v ? v->cwd : NULL; skip = 6; }
		else if (!strncmp(p, "${CAGE_TMP}", 11)) { val = v ? v->cage_tmp : NULL; skip = 11; }
		else if (!strncmp(p, "${", 2)) {
			snprintf(err, errlen, "unknown variable in '%s' (known: ${CWD}, ${CAGE_TMP})", in);
			return -1;
		}
		if (skip) {
			if (val && skip == 6 && !strcmp(val, "/")) {
				snprintf(err, errlen, "'%s' would grant the whole file system: the current "
					 "directory is '/'; run agentcage from a project directory", in);
				return -1;
			}
			if (!val) {
				snprintf(err, errlen, "variable in '%s' has no value here", in);
				return -1;
			}
			if (o + strlen(val) >= sizeof(tmp))
				goto toolong;
			memcpy(tmp + o, val, strlen(val));
			o += strlen(val);
			p += skip;
		} else {
			if (o + 1 >= sizeof(tmp))
				goto toolong;
			tmp[o++] = *p++;
		}
	}
	tmp[o] = 0;
	if (tmp[0] != '/') {
		snprintf(err, errlen, "path '%s' is not absolute", in);
		return -1;
	}
	if (!doubled(tmp, o) && o < outlen) {     /* nothing to squeeze */
		memcpy(out, tmp, o + 1);
	} else {
		o = 0;
		for (p = tmp; *p; p++) {
			if (*p == '/' && o > 0 && out[o - 1] == '/')
				continue;
			if (o + 1 >= outlen)
				goto toolong;
			out[o++] = *p;
		}
	}
	while (o > 1 && out[o - 1] == '/')
		o--;
	out[o] = 0;
	if (o > AC_RULE_MAX)
		goto toolong;
	return 0;
toolong:
	snprintf(err, errlen, "path '%s' is longer than %d bytes once expanded", in, AC_RULE_MAX);
	return -1;
}

int rules_expand_entry(const char *in, const struct rule_vars *v, char *out, size_t outlen,
		       char *err, size_t errlen)
{
	char abs[PATH_MAX];

	if (strncmp(in, "**", 2))
		return rules_expand(in, v, out, outlen, err, errlen);
	snprintf(abs, sizeof(abs), "/%s", in);    /* a pattern from "**": at any depth */
	return rules_expand(abs, v, out, outlen, err, errlen);
}

/* An index of a rule array by key, for the compiler: open addressing over
 * the rules' positions + 1 (0: empty), at most half full, so that adding n
 * rules and building their trie take O(n) lookups, not O(n^2) comparisons
 * (a 10,000-rule policy took seconds to reload). acap is the array's. */
struct keyidx {
	uint32_t *slot;
	size_t cap, acap;
};

/* Keys live in chunks that never move, so that a rule (and a trie marker,
 * the front of a rule's key) can point into them. */
struct rule_keys {
	struct rule_keys *next;
	size_t used, cap;
	char b[];
};

#define KEYS_CHUNK (64 << 10)   /* below malloc's mmap threshold: reused memory */

static const char *keys_put(struct rule_keys **keys, const char *k, size_t len)
{
	struct rule_keys *c = *keys;

	if (!c || c->cap - c->used < len) {
		size_t cap = len > KEYS_CHUNK ? len : KEYS_CHUNK;

		if (!(c = malloc(sizeof(*c) + cap)))
			return NULL;
		c->next = *keys;
		c->used = 0;
		c->cap = cap;
		*keys = c;
	}
	memcpy(c->b + c->used, k, len);
	c->used += len;
	return c->b + c->used - len;
}

static void keys_free(struct rule_keys **keys)
{
	while (*keys) {
		struct rule_keys *next = (*keys)->next;

		free(*keys);
		*keys = next;
	}
}

static uint32_t key_hash(const char *k, size_t len)
{
	uint64_t h = 1469598103934665603ULL ^ len, w;
	size_t i = 0;

	/* eight bytes a step (a byte a step had been a fifth of a 10,000-rule
	 * compile), each mixed in by a multiply and a shift */
	for (; i + 8 <= len; i += 8) {
		memcpy(&w, k + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, k + i, len - i);
	h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
	/* murmur3's finaliser: the slot (the low bits) sees every byte */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (uint32_t)h;
}

/* the rule of l whose key is key[0..len), of hash h */
static struct rule *idx_find(const struct keyidx *x, struct rule *l, const char *key, size_t len,
			     uint32_t h)
{
	if (!x->cap)
		return NULL;
	for (size_t s = h & (x->cap - 1);; s = (s + 1) & (x->cap - 1)) {
		uint32_t i = x->slot[s];

		if (!i)
			return NULL;
		if (l[i - 1].hash == h && l[i - 1].len == len && !memcmp(l[i - 1].key, key, len))
			return &l[i - 1];
	}
}

/* l[i] into the index, by the hash it carries (a rebuild hashes nothing) */
static void idx_place(struct keyidx *x, const struct rule *l, size_t i)
{
	size_t s = l[i].hash & (x->cap - 1);

	while (x->slot[s])
		s = (s + 1) & (x->cap - 1);
	x->slot[s] = (uint32_t)(i + 1);
}

/* room for want rules in an empty index */
static int idx_init(struct keyidx *x, size_t want)
{
	size_t cap = 64;

	while ((want + 1) * 2 > cap)
		cap *= 2;
	if (!(x->slot = calloc(cap, sizeof(*x->slot))))
		return -1;
	x->cap = cap;
	return 0;
}

/* an index of l[0..n), with room for want rules */
static int idx_build(struct keyidx *x, const struct rule *l, size_t n, size_t want)
{
	if (idx_init(x, want))
		return -1;
	for (size_t i = 0; i < n; i++)
		idx_place(x, l, i);
	return 0;
}

/* make room for the n+1st rule of l: the index (rebuilt from l[0..n)
 * when it would be over half full) */
static int idx_room(struct keyidx *x, const struct rule *l, size_t n)
{
	struct keyidx bigger = { .acap = x->acap };

	if (x->cap && (n + 1) * 2 <= x->cap)
		return 0;
	if (idx_build(&bigger, l, n, x->cap ? x->cap : n + 1))
		return -1;
	free(x->slot);
	*x = bigger;
	return 0;
}

static void idx_free(struct keyidx *x)
{
	free(x->slot);
	memset(x, 0, sizeof(*x));
}

/* r appended to list, whose *n rules x indexes (x->acap: the array's
 * room), the array and the index grown as needed: the new rule, or NULL */
static struct rule *idx_append(struct keyidx *x, struct rule **list, size_t *n, struct rule r)
{
	struct rule *l;

	if (*n == x->acap) {
		size_t acap = x->acap ? 2 * x->acap : 16;

		if (!(l = realloc(*list, acap * sizeof(*l))))
			return NULL;
		*list = l;
		x->acap = acap;
	}
	if (idx_room(x, *list, *n))
		return NULL;
	l = &(*list)[*n];
	*l = r;
	idx_place(x, *list, (*n)++);
	return l;
}

/* key[0..len) of class cls into list, the key copied into keys (unless
 * the key is there: then the larger class stays) */
static int add_rule(struct rule **list, size_t *n, struct keyidx *x, struct rule_keys **keys,
		    const char *key, size_t len, uint32_t cls)
{
	uint32_t h = key_hash(key, len);
	struct rule *l;

	if ((l = idx_find(x, *list, key, len, h))) {
		if (cls > l->cls)
			l->cls = cls;   /* deny beats write beats read */
		return 0;
	}
	if (!(key = keys_put(keys, key, len)))
		return -1;
	return idx_append(x, list, n, (struct rule){ .key = key, .len = (uint32_t)len, .cls = cls,
						     .hash = h }) ? 0 : -1;
}

static int add(struct rule **list, size_t *n, struct keyidx *x, struct rule_keys **keys,
	       const char *path, uint32_t cls)
{
	char key[AC_KEY_PATH];

	return add_rule(list, n, x, keys, key, rules_key(path, strlen(path), key), cls);
}

/* The directory of the last path resolved, and what it resolved to: the
 * paths of a policy come in runs under one directory, which is then
 * resolved once (realpath reads every component's link, about two system
 * calls a rule), not once a rule. */
struct realmemo {
	char dir[PATH_MAX], real[PATH_MAX];
	enum { MEMO_NONE, MEMO_REAL, MEMO_MISSING } state;
	char gone[PATH_MAX];   /* a path that does not exist, whose parent does: "" or */
	size_t gonelen;        /* nothing below it exists either */
};

/* dir does not exist: remember its highest ancestor that does not either */
static void memo_gone(struct realmemo *m, const char *dir)
{
	char up[PATH_MAX];
	struct stat st;
	char *slash;

	snprintf(up, sizeof(up), "%s", dir);
	snprintf(m->gone, sizeof(m->gone), "%s", dir);
	while ((slash = strrchr(up, '/')) && slash != up) {
		*slash = 0;
		if (!lstat(up, &st) || errno != ENOENT)
			break;
		snprintf(m->gone, sizeof(m->gone), "%s", up);
	}
	m->gonelen = strlen(m->gone);
}

/* realpath(path), the same answer, through the memo of path's directory:
 * a missing directory (ENOENT, ENOTDIR) has no entries, nor has anything
 * below its highest missing ancestor (ENOENT); in a resolved one
 * an entry that is not a symlink is the resolved directory and its name.
 * Anything else (a symlink, ".", "..", an error of another kind) is
 * realpath's own. NULL when path does not resolve. */
static char *resolve(struct realmemo *m, const char *path, char *out)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : "";
	size_t dl = slash ? (size_t)(slash - path) : 0;
	struct stat st;

	if (!dl || !*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return realpath(path, out);
	if (m->gonelen && !strncmp(path, m->gone, m->gonelen) && path[m->gonelen] == '/')
		return NULL;
	if (m->state == MEMO_NONE || strlen(m->dir) != dl || strncmp(m->dir, path, dl)) {
		memcpy(m->dir, path, dl);
		m->dir[dl] = 0;
		m->state = realpath(m->dir, m->real) ? MEMO_REAL :
			   errno == ENOENT || errno == ENOTDIR ? MEMO_MISSING : MEMO_NONE;
		if (m->state == MEMO_MISSING && errno == ENOENT)
			memo_gone(m, m->dir);
	}
	if (m->state == MEMO_MISSING)
		return NULL;
	if (m->state == MEMO_NONE)
		return realpath(path, out);
	if (lstat(path, &st))
		return errno == ENOENT || errno == ENOTDIR ? NULL : realpath(path, out);
	if (S_ISLNK(st.st_mode) ||
	    snprintf(out, PATH_MAX, "%s/%s", strcmp(m->real, "/") ? m->real : "", base) >= PATH_MAX)
		return realpath(path, out);
	return out;
}

static int pat_add(struct patlist *l, const struct ac_pattern *p, char *err, size_t errlen)
{
	struct ac_pattern *n;

	for (size_t i = 0; i < l->n; i++)
		if (l->p[i].len == p->len && !memcmp(l->p[i].q, p->q, p->len)) {
			if (p->cls > l->p[i].cls)
				l->p[i].cls = p->cls;   /* deny beats write beats read */
			return 0;
		}
	if (l->n == AC_PAT_MAX) {
		snprintf(err, errlen, "more than %d patterns in one kind of list (files or exec)",
			 AC_PAT_MAX);
		return -1;
	}
	if (!(n = realloc(l->p, (l->n + 1) * sizeof(*n)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	l->p = n;
	l->p[l->n++] = *p;
	return 0;
}

/* Where one list's patterns go: pats (and the live prefixes of file
 * patterns: live, or NULL for exec); pats NULL: the list takes none. */
struct patdest {
	struct patlist *pats, *live;
};

/* A ${VAR} whose value a pattern would read as wildcards */
static int var_wild(const char *in, const struct rule_vars *v, char *err, size_t errlen)
{
	if ((v && v->cwd && strstr(in, "${CWD}") && pattern_is(v->cwd)) ||
	    (v && v->cage_tmp && strstr(in, "${CAGE_TMP}") && pattern_is(v->cage_tmp))) {
		snprintf(err, errlen, "'%s': the directory a variable names holds '*', '?' or '[', "
			 "which a pattern would take for wildcards; run from another directory", in);
		return -1;
	}
	return 0;
}

/* Pattern path (expanded) of class cls: 1 when it is an entry after all
 * (path then holds it), 0 when compiled into d, -1 with err. */
static int add_pattern(char *path, uint32_t cls, const struct patdest *d, char *err,
		       size_t errlen)
{
	struct ac_pattern p;
	int r = pattern_compile(path, 1, cls, &p, err, errlen);

	if (r)
		return r;
	if (pat_add(d->pats, &p, err, errlen))
		return -1;
	if (!d->live)
		return 0;
	if (!d->live->p && !(d->live->p = calloc(AC_PAT_MAX, sizeof(*d->live->p)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return pattern_prefixes(path, d->live->p, &d->live->n, AC_PAT_MAX, err, errlen);
}

/* A pattern, and the same with its fixed front symlink-free (the kernel
 * reports resolved paths); 1: an entry after all (in path). */
static int add_patterns(char *path, uint32_t cls, const struct patdest *d, struct realmemo *m,
			int resolve_links, char *err, size_t errlen)
{
	char real[PATH_MAX], alt[PATH_MAX * 2];
	size_t front = pattern_front(path);

	if (resolve_links && front) {
		char f[PATH_MAX];

		memcpy(f, path, front);
		f[front] = 0;
		if (resolve(m, f, real) && strcmp(real, f)) {
			snprintf(alt, sizeof(alt), "%s%s", real, path + front);
			if (strlen(alt) >= PATH_MAX) {
				snprintf(err, errlen, "'%s' resolves to a path too long", path);
				return -1;
			}
			if (add_pattern(alt, cls, d, err, errlen) < 0)
				return -1;
		}
	}
	return add_pattern(path, cls, d, err, errlen);
}

static int add_list(const struct plist *pl, uint32_t cls, struct rule **list, size_t *n,
		    struct keyidx *x, struct rule_keys **keys, const struct rule_vars *v,
		    int resolve_links, const struct patdest *d, char *err, size_t errlen)
{
	char path[PATH_MAX], real[PATH_MAX];
	struct realmemo memo = { .state = MEMO_NONE };

	for (size_t i = 0; i < pl->n; i++) {
		if (rules_expand_entry(pl->items[i], v, path, sizeof(path), err, errlen))
			return -1;
		if (d && pattern_is(pl->items[i])) {
			int r;

			if (var_wild(pl->items[i], v, err, errlen) ||
			    (r = add_patterns(path, cls, d, &memo, resolve_links, err, errlen)) < 0)
				return -1;
			if (r == 0)
				continue;       /* else an entry: "/a/ **" is "/a" */
		}
		if (add(list, n, x, keys, path, cls))
			goto oom;
		if (resolve_links && resolve(&memo, path, real) && strcmp(real, path)) {
			if (strlen(real) > AC_RULE_MAX) {
				snprintf(err, errlen, "'%s' resolves to '%s', longer than %d bytes",
					 path, real, AC_RULE_MAX);
				return -1;
			}
			if (add(list, n, x, keys, real, cls))
				goto oom;
		}
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* Abstract unix names match exactly: '@', the length in two bytes, the name. */
static size_t abstract_key(const char *name, size_t n, char *out)
{
	ac_abstract_hdr((__u8 *)out, n);
	memcpy(out + AC_ABSTRACT_HDR, name, n);
	return n + AC_ABSTRACT_HDR;
}

static int add_unix(const struct plist *pl, struct ruleset *rs, struct keyidx *x,
		    const struct rule_vars *v, int resolve_links, char *err, size_t errlen)
{
	struct plist paths = { 0 };
	char *items[1];

	for (size_t i = 0; i < pl->n; i++) {
		const char *s = pl->items[i];
		char key[AC_KEY_PATH];

		if (s[0] != '@') {
			items[0] = (char *)s;
			paths.items = items;
			paths.n = 1;
			if (add_list(&paths, 1, &rs->unix_peers, &rs->nunix, x, &rs->keys, v,
				     resolve_links, NULL, err, errlen))
				return -1;
			continue;
		}
		if (strlen(s + 1) > AC_KEY_PATH - AC_ABSTRACT_HDR) {
			snprintf(err, errlen, "abstract socket name '%s' is too long", s);
			return -1;
		}
		if (add_rule(&rs->unix_peers, &rs->nunix, x, &rs->keys, key,
			     abstract_key(s + 1, strlen(s + 1), key), 1)) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	return 0;
}

/* the rules of a not found, or (same_key_other_value) found with another
 * value, in b (indexed by bx), appended to *out */
static int delta_side(const struct rule *a, size_t na, const struct rule *b,
		      const struct keyidx *bx, int other_value, struct rule **out, size_t *n)
{
	for (size_t i = 0; i < na; i++) {
		const struct rule *f = idx_find(bx, (struct rule *)b, a[i].key, a[i].len,
						a[i].hash);
		struct rule *grown;

		if (f && (!other_value || f->cls == a[i].cls))
			continue;
		if (!(*n & (*n + 1))) {         /* 0, 1, 3, 7 ...: double the room */
			if (!(grown = realloc(*out, (*n * 2 + 1) * sizeof(**out))))
				return -1;
			*out = grown;
		}
		(*out)[(*n)++] = a[i];
	}
	return 0;
}

int rules_delta(const struct rule *old, size_t nold, const struct rule *new, size_t nnew,
		struct rule_delta *d)
{
	struct keyidx ox = { 0 }, nx = { 0 };
	int ret = -1;

	memset(d, 0, sizeof(*d));
	if (!idx_build(&ox, old, nold, nold) && !idx_build(&nx, new, nnew, nnew) &&
	    !delta_side(new, nnew, old, &ox, 1, &d->put, &d->nput) &&
	    !delta_side(old, nold, new, &nx, 0, &d->del, &d->ndel))
		ret = 0;
	idx_free(&ox);
	idx_free(&nx);
	if (ret)
		rules_delta_free(d);
	return ret;
}

void rules_delta_free(struct rule_delta *d)
{
	free(d->put);
	free(d->del);
	memset(d, 0, sizeof(*d));
}

/* The trie being built: tx indexes rs->trie, whose array grows by
 * doubling (a marker's key is the front of a stored key, so only rule
 * records move). */
struct trie_build {
	struct ruleset *rs;
	struct keyidx tx;
};

/* The trie entry for key[0..len), made when there is none with the class
 * `above` (the class of the entry of the directory above: the longest
 * file rule covering it, which then covers this one too). key is a stored
 * one (a rule's), of which the entry keeps the front. NULL: no memory. */
static struct rule *trie_entry(struct trie_build *b, const char *key, size_t len, uint32_t above)
{
	struct ruleset *rs = b->rs;
	uint32_t h = key_hash(key, len);
	struct rule *t = idx_find(&b->tx, rs->trie, key, len, h);

	if (t)
		return t;
	return idx_append(&b->tx, &rs->trie, &rs->ntrie,
			  (struct rule){ .key = key, .len = (uint32_t)len,
					 .cls = above & (AC_CLASS_MASK | ~0u << AC_VAL_RULE_SHIFT),
					 .hash = h });
}

/* AC_DEEPER on the entry of each directory above r's key, from byte
 * `from`, whose directory above has an entry already (0: none needed);
 * with self, an entry for the key itself too. Each entry made takes the
 * class of the one above it (the file rules are entries already: the
 * class of an entry is that of the longest file rule covering it). */
static int mark_above(struct trie_build *b, const struct rule *r, size_t from, int self)
{
	uint32_t above = AC_NONE;
	struct rule *t;

	if (from) {     /* the entry of the directory that ends at from - 1 */
		if ((t = idx_find(&b->tx, b->rs->trie, r->key, from, key_hash(r->key, from))))
			above = t->cls;
		else
			from = 0;   /* (not so: then from the top) */
	}
	for (size_t j = from; j + 1 < r->len; j++) {
		if (r->key[j] != '/')
			continue;
		if (!(t = trie_entry(b, r->key, j + 1, above)))
			return -1;
		t->cls |= AC_DEEPER;
		above = t->cls;
	}
	return self && !trie_entry(b, r->key, r->len, above) ? -1 : 0;
}

/* The length of the longest directory key (ending in '/') that a and b
 * both start with, within their first lim bytes; compared eight at a time */
static size_t shared_dirs(const char *a, const char *b, size_t lim)
{
	size_t i = 0;
	uint64_t x, y;

	for (; i + 8 <= lim; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			break;
	}
	while (i < lim && a[i] == b[i])
		i++;
	while (i && a[i - 1] != '/')
		i--;
	return i;
}

/* The file trie: each rule, then a marker at each directory above a rule
 * that is no rule itself (see AC_DEEPER): renaming such a directory would
 * move the rule's names, and the rename check refuses it. Unix path rules
 * mark the directories above them too, and have an entry of their own: it
 * and every entry below it carry AC_UNIX, since a directory or socket
 * renamed under it would become connectable. (An exec rule needs no
 * marker: a name the agent may rename is one it may write, and an exec
 * rule there gives up write-xor-execute anyway.) */
static int build_trie(struct ruleset *rs)
{
	/* room for a marker a rule, as when each rule is in a directory
	 * of its own: no growing then */
	size_t cap = 2 * rs->nfiles + 16;
	struct trie_build b = { .rs = rs };
	int ret = -1;

	if (!(rs->trie = malloc(cap * sizeof(*rs->trie))))
		return -1;
	if (rs->nfiles)      /* files is NULL without file rules: no memcpy from NULL */
		memcpy(rs->trie, rs->files, rs->nfiles * sizeof(*rs->files));
	rs->ntrie = rs->nfiles;
	for (size_t i = 0; i < rs->ntrie; i++)    /* each rule's weight, for the patterns */
		rs->trie[i].cls |= rs->trie[i].len << AC_VAL_RULE_SHIFT;
	if (idx_build(&b.tx, rs->trie, rs->nfiles, cap))
		goto out;
	b.tx.acap = cap;
	for (size_t i = 0; i < rs->nfiles; i++) {
		const struct rule *f = &rs->files[i];
		size_t from = 0;

		/* the directories this rule shares with the one before (rules
		 * come in runs under one directory) have their entries already */
		if (i) {
			const struct rule *p = f - 1;

			from = shared_dirs(p->key, f->key, (p->len < f->len ? p->len : f->len) - 1);
		}
		if (mark_above(&b, f, from, 0))
			goto out;
	}
	for (size_t i = 0; i < rs->nunix; i++) {
		const struct rule *u = &rs->unix_peers[i];

		if (u->key[0] == '/' && mark_above(&b, u, 0, 1))   /* not an abstract name */
			goto out;
	}
	/* patterns: every lookup must find an entry that says so */
	if (rs->fpat.n && !trie_entry(&b, "/", 1, AC_NONE))
		goto out;
	for (size_t i = 0; i < rs->ntrie; i++) {
		struct rule *t = &rs->trie[i];

		for (size_t k = 0; k < rs->nunix; k++) {
			const struct rule *u = &rs->unix_peers[k];

			if (u->key[0] == '/' && u->len <= t->len && !memcmp(u->key, t->key, u->len)) {
				t->cls |= AC_UNIX;
				break;
			}
		}
		t->cls |= (uint32_t)t->len << AC_VAL_LEN_SHIFT;
		if (rs->fpat.n)
			t->cls |= AC_PATS;
	}
	ret = 0;
out:
	idx_free(&b.tx);
	return ret;
}

/* exec.libraries as written, or the default when the key is absent */
static void libraries(const struct policy *p, struct plist *out)
{
	static char *defaults[] = POLICY_DEFAULT_LIBRARIES;

	if (p->exec_libs_set) {
		*out = p->exec_libs;
		return;
	}
	out->items = defaults;
	out->n = sizeof(defaults) / sizeof(defaults[0]);
}

/* Each exec entry gets the largest class of the entries covering it: a
 * library below a program directory is a program too, so the kernel's
 * longest match finds the union of the two lists. */
static void exec_union(struct ruleset *rs)
{
	for (size_t i = 0; i < rs->nexec; i++)
		for (size_t j = 0; j < rs->nexec; j++) {
			const struct rule *o = &rs->exec[j];

			if (o->len < rs->exec[i].len && !memcmp(o->key, rs->exec[i].key, o->len) &&
			    o->cls > rs->exec[i].cls)
				rs->exec[i].cls = o->cls;
		}
}

int rules_compile(const struct policy *p, const struct rule_vars *v, int resolve_links,
		  struct ruleset *rs, char *err, size_t errlen)
{
	struct keyidx fx = { 0 }, ex = { 0 }, ux = { 0 };
	struct patdest fd = { &rs->fpat, &rs->live }, xd = { &rs->xpat, NULL };
	struct plist libs;
	int ret = -1;

	libraries(p, &libs);
	memset(rs, 0, sizeof(*rs));
	/* a rule for each path (its symlink-free form may add more): the
	 * usual policy's file rules are added with no index rebuilt */
	if (idx_init(&fx, p->read.n + p->write.n + p->deny.n + 1)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (add_list(&p->read, AC_READ, &rs->files, &rs->nfiles, &fx, &rs->keys, v,
		     resolve_links, &fd, err, errlen) ||
	    add_list(&p->write, AC_WRITE, &rs->files, &rs->nfiles, &fx, &rs->keys, v,
		     resolve_links, &fd, err, errlen) ||
	    add_list(&p->deny, AC_DENY, &rs->files, &rs->nfiles, &fx, &rs->keys, v,
		     resolve_links, &fd, err, errlen) ||
	    add_list(&p->exec, AC_EXEC_PROG, &rs->exec, &rs->nexec, &ex, &rs->keys, v,
		     resolve_links, &xd, err, errlen) ||
	    add_list(&libs, AC_EXEC_LIB, &rs->exec, &rs->nexec, &ex, &rs->keys, v,
		     resolve_links, &xd, err, errlen) ||
	    add_unix(&p->net_unix, rs, &ux, v, resolve_links, err, errlen))
		goto out;
	exec_union(rs);
	/* the terminal the agent already holds as its standard streams, so
	 * that /proc/self/fd/1 (/dev/stdout) and ttyname(3) may reopen it */
	if ((v && v->own_tty && add(&rs->files, &rs->nfiles, &fx, &rs->keys, v->own_tty, AC_WRITE)) ||
	    build_trie(rs)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	ret = 0;
out:
	if (ret)
		rules_free(rs);
	idx_free(&fx);
	idx_free(&ex);
	idx_free(&ux);
	return ret;
}

void rules_free(struct ruleset *rs)
{
	free(rs->files);
	free(rs->exec);
	free(rs->unix_peers);
	free(rs->trie);
	free(rs->fpat.p);
	free(rs->xpat.p);
	free(rs->live.p);
	keys_free(&rs->keys);
	memset(rs, 0, sizeof(*rs));
}

static const struct rule *longest(const struct rule *l, size_t n, const char *path)
{
	char key[AC_KEY_PATH];
	size_t klen = rules_key(path, strlen(path), key);
	const struct rule *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (l[i].len <= klen && !memcmp(l[i].key, key, l[i].len) &&
		    (!best || l[i].len > best->len))
			best = &l[i];
	return best;
}

uint32_t rules_file_decide(const struct ruleset *rs, const char *path, uint32_t *weight,
			   int *pat)
{
	const struct rule *r = longest(rs->files, rs->nfiles, path);
	size_t len = strlen(path);
	uint32_t cls = r ? r->cls : AC_NONE, w = r ? r->len : 0;

	*pat = -1;
	for (size_t i = 0; len > 1 && i < rs->fpat.n; i++) {
		const struct ac_pattern *p = &rs->fpat.p[i];
		uint32_t pw = 0, res = pattern_match(p, path, len, &pw);

		if (res == AC_M_RUN && p->cls == AC_DENY)
			pw = ac_weight((uint32_t)len);   /* inconclusive: a deny holds */
		else if (res != AC_M_MATCH)
			continue;
		if (pw > w || (pw == w && p->cls > cls)) {
			w = pw;
			cls = p->cls;
			*pat = (int)i;
		}
	}
	*weight = w;
	return cls;
}

uint32_t rules_file_class(const struct ruleset *rs, const char *path)
{
	uint32_t w;
	int pat;

	return rules_file_decide(rs, path, &w, &pat);
}

/* which live prefixes match dir whole (bit i: rs->live.p[i]); -1: one was
 * inconclusive */
static int live_mask(const struct ruleset *rs, const char *dir, uint64_t *m)
{
	*m = 0;
	for (size_t i = 0; i < rs->live.n; i++) {
		uint32_t r = pattern_match(&rs->live.p[i], dir, strlen(dir), NULL);

		if (r == AC_M_RUN)
			return -1;
		if (r == AC_M_MATCH)
			*m |= 1ull << i;
	}
	return 0;
}

int rules_rename_moves_patterns(const struct ruleset *rs, const char *from, const char *to)
{
	uint64_t a, b;

	return live_mask(rs, from, &a) || live_mask(rs, to, &b) || a != b;
}

uint32_t rules_trie_value(const struct ruleset *rs, const char *path)
{
	const struct rule *r = longest(rs->trie, rs->ntrie, path);

	return r ? r->cls : 0;
}

int rules_dir_uniform(const struct ruleset *rs, const char *dir, uint32_t *cls)
{
	size_t len = strlen(dir), n = len > 1 ? len + 1 : 1;   /* the key's length, untruncated */
	uint32_t v = rules_trie_value(rs, dir);

	*cls = v & AC_CLASS_MASK;
	if (v & AC_PATS)
		return 0;       /* patterns: never the same class for every name */
	return !((v & AC_DEEPER) && ((v >> AC_VAL_LEN_SHIFT) & AC_VAL_LEN_MASK) == n);
}

uint32_t rules_exec_class(const struct ruleset *rs, const char *path)
{
	const struct rule *r = longest(rs->exec, rs->nexec, path);
	uint32_t cls = r ? r->cls : 0;
	size_t len = strlen(path);

	/* a pattern adds its class (the union, as exec_union gives entries) */
	for (size_t i = 0; len > 1 && i < rs->xpat.n; i++)
		if (pattern_match(&rs->xpat.p[i], path, len, NULL) == AC_M_MATCH &&
		    rs->xpat.p[i].cls > cls)
			cls = rs->xpat.p[i].cls;
	return cls;
}

int rules_exec_allowed(const struct ruleset *rs, const char *path)
{
	return rules_exec_class(rs, path) >= AC_EXEC_PROG;
}

int rules_map_allowed(const struct ruleset *rs, const char *path)
{
	return rules_exec_class(rs, path) >= AC_EXEC_LIB;
}

int rules_unix_allowed(const struct ruleset *rs, const char *name, size_t len)
{
	char key[AC_KEY_PATH + 3];
	size_t klen;

	if (len && name[0] == '@') {
		if (len - 1 > AC_KEY_PATH - 3)
			return 0;
		klen = abstract_key(name + 1, len - 1, key);
		for (size_t i = 0; i < rs->nunix; i++)
			if (rs->unix_peers[i].len == klen && !memcmp(rs->unix_peers[i].key, key, klen))
				return 1;
		return 0;
	}
	return longest(rs->unix_peers, rs->nunix, name) != NULL;
}
