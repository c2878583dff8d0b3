// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <string.h>
#include "policy/pattern.h"

int pattern_is(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* A class from s (at its '['): its bitmap in bits, the bytes it spans
 * returned (0: not closed). '/' is in no class. */
static size_t class_parse(const char *s, uint8_t bits[AC_PAT_CLASS_BYTES])
{
	size_t i = 1;
	int neg = 0;

	memset(bits, 0, AC_PAT_CLASS_BYTES);
	if (s[i] == '!' || s[i] == '^') {
		neg = 1;
		i++;
	}
	for (int first = 1; s[i] && (first || s[i] != ']'); first = 0) {
		unsigned lo = (unsigned char)s[i], hi = lo;

		if (s[i + 1] == '-' && s[i + 2] && s[i + 2] != ']') {
			hi = (unsigned char)s[i + 2];
			i += 2;
		}
		for (unsigned c = lo; c <= hi; c++)
			bits[c >> 3] |= (uint8_t)(1u << (c & 7));
		i++;
	}
	if (s[i] != ']')
		return 0;
	if (neg)
		for (int k = 0; k < AC_PAT_CLASS_BYTES; k++)
			bits[k] = (uint8_t)~bits[k];
	bits['/' >> 3] &= (uint8_t)~(1u << ('/' & 7));
	bits[0] &= (uint8_t)~1u;
	return i + 1;
}

int pattern_check(const char *s, char *why, size_t whylen)
{
	uint8_t bits[AC_PAT_CLASS_BYTES];

	for (const char *p = s; *p; p++) {
		int comp_start = p == s || p[-1] == '/';

		if ((unsigned char)*p < 0x20) {
			snprintf(why, whylen, "pattern '%s' has a control character", s);
			return -1;
		}
		if (p[0] == '*' && p[1] == '*' &&
		    (!comp_start || (p[2] && p[2] != '/'))) {
			snprintf(why, whylen, "pattern '%s': '**' must be a whole component "
				 "(as in /a/**/b); '*' matches within one", s);
			return -1;
		}
		if (*p == '[') {
			size_t n = class_parse(p, bits);

			if (!n) {
				snprintf(why, whylen, "pattern '%s' has a '[' with no closing ']'", s);
				return -1;
			}
			p += n - 1;
		}
		if (p[0] == '*' && p[1] == '*')
			p++;
	}
	return 0;
}

/* the tokens of one component, in order */
struct tok {
	uint8_t tag;          /* 0: literal */
	uint8_t lit;
	uint8_t bits[AC_PAT_CLASS_BYTES];
};

struct comp {
	struct tok t[256];
	size_t n;
	int dstar;
	int wild;             /* has a wildcard */
};

static int comp_parse(const char *s, size_t len, struct comp *c)
{
	c->n = 0;
	c->wild = 0;
	c->dstar = len == 2 && s[0] == '*' && s[1] == '*';
	if (c->dstar) {
		c->wild = 1;
		return 0;
	}
	for (size_t i = 0; i < len; i++) {
		struct tok *t;

		if (c->n == sizeof(c->t) / sizeof(c->t[0]))
			return -1;      /* longer than any name (NAME_MAX) */
		t = &c->t[c->n++];

		t->tag = 0;
		t->lit = (uint8_t)s[i];
		if (s[i] == '*') {
			t->tag = AC_PT_STAR;
		} else if (s[i] == '?') {
			t->tag = AC_PT_ANY;
		} else if (s[i] == '[') {
			size_t n = class_parse(s + i, t->bits);

			if (!n || i + n > len)
				return -1;
			t->tag = AC_PT_CLASS;
			i += n - 1;
		}
		c->wild |= t->tag != 0;
	}
	return 0;
}

static int emit(struct ac_pattern *p, uint8_t b)
{
	if (p->len >= AC_PAT_Q)
		return -1;
	p->q[p->len++] = b;
	return 0;
}

/* components [0, m) of s (a path "/e1/../em"), each [off, off + len) */
struct split {
	size_t off[AC_PATH_MAX / 2], len[AC_PATH_MAX / 2];
	size_t m;
};

static void split(const char *s, struct split *sp)
{
	sp->m = 0;
	for (const char *p = s; *p;) {
		const char *e;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		e = strchr(p, '/');
		if (!e)
			e = p + strlen(p);
		sp->off[sp->m] = (size_t)(p - s);
		sp->len[sp->m++] = (size_t)(e - p);
		p = e;
	}
}

/* compile components [0, m) of s, reversed, after the leading `**` if lead */
static int build(const char *s, const struct split *sp, size_t m, int lead,
		 struct ac_pattern *out)
{
	static struct comp c;

	out->len = 0;
	if (lead && (emit(out, AC_PT_DSTAR) || emit(out, '/')))
		return -1;
	for (size_t i = m; i-- > 0;) {
		if (comp_parse(s + sp->off[i], sp->len[i], &c))
			return -1;
		if (c.dstar) {
			if (emit(out, AC_PT_DSTAR))
				return -1;
		}
		for (size_t k = c.n; k-- > 0;) {
			const struct tok *t = &c.t[k];

			if (emit(out, t->tag ? t->tag : t->lit))
				return -1;
			if (t->tag == AC_PT_CLASS)
				for (int b = 0; b < AC_PAT_CLASS_BYTES; b++)
					if (emit(out, t->bits[b]))
						return -1;
		}
		if (emit(out, '/'))
			return -1;
	}
	return 0;
}

/* s without its trailing `**` components, and every run of `**`
 * components made one; the components left in sp */
static void squeeze(char *s, struct split *sp)
{
	char tmp[AC_PATH_MAX];
	size_t o = 0;
	int last_dstar = 0;

	split(s, sp);
	while (sp->m && sp->len[sp->m - 1] == 2 && !strncmp(s + sp->off[sp->m - 1], "**", 2))
		sp->m--;
	for (size_t i = 0; i < sp->m; i++) {
		int d = sp->len[i] == 2 && !strncmp(s + sp->off[i], "**", 2);

		if (d && last_dstar)
			continue;
		last_dstar = d;
		tmp[o++] = '/';
		memcpy(tmp + o, s + sp->off[i], sp->len[i]);
		o += sp->len[i];
	}
	if (!o)
		tmp[o++] = '/';
	tmp[o] = 0;
	memcpy(s, tmp, o + 1);
	split(s, sp);
}

size_t pattern_front(const char *s)
{
	static struct split sp;
	size_t front = 0;

	split(s, &sp);
	for (size_t i = 0; i < sp.m; i++) {
		int wild = 0;

		for (size_t k = 0; k < sp.len[i]; k++)
			wild |= strchr("*?[", s[sp.off[i] + k]) != NULL;
		if (wild)
			break;
		front = sp.off[i] + sp.len[i];
	}
	return front;
}

int pattern_compile(char *s, int lead, uint32_t cls, struct ac_pattern *out,
		    char *err, size_t errlen)
{
	static struct split sp;

	squeeze(s, &sp);
	if (!pattern_is(s))
		return 1;
	memset(out, 0, sizeof(*out));
	out->cls = (uint8_t)cls;
	if (build(s, &sp, sp.m, lead, out)) {
		snprintf(err, errlen, "pattern '%s' takes more than %d bytes compiled "
			 "(a class takes %d)", s, AC_PAT_Q, 1 + AC_PAT_CLASS_BYTES);
		return -1;
	}
	return 0;
}

int pattern_prefixes(const char *s, struct ac_pattern *out, size_t *n, size_t max,
		     char *err, size_t errlen)
{
	static struct split sp;
	static struct ac_pattern p;
	int all_dstar = 1;

	split(s, &sp);
	for (size_t i = 1; i < sp.m; i++) {
		size_t k;

		all_dstar &= sp.len[i - 1] == 2 && !strncmp(s + sp.off[i - 1], "**", 2);
		if (all_dstar)
			continue;
		memset(&p, 0, sizeof(p));
		if (build(s, &sp, i, 0, &p)) {
			snprintf(err, errlen, "pattern '%s' is too long", s);
			return -1;
		}
		for (k = 0; k < *n; k++)
			if (out[k].len == p.len && !memcmp(out[k].q, p.q, p.len))
				break;
		if (k < *n)
			continue;
		if (*n == max) {
			snprintf(err, errlen, "the file patterns have more than %zu distinct leading "
				 "parts (of '%s'): use fewer patterns", max, s);
			return -1;
		}
		out[(*n)++] = p;
	}
	return 0;
}

uint32_t pattern_match(const struct ac_pattern *p, const char *path, size_t len, uint32_t *weight)
{
	static char buf[AC_PATH_MAX];
	struct ac_match m;
	uint32_t budget;

	if (len <= 1 || len > AC_PATH_MAX || p->len > AC_PAT_Q)
		return AC_M_FAIL;       /* the root is matched by no pattern */
	memcpy(buf, path, len);
	ac_match_init(&m, p->len, (uint32_t)len);
	budget = ac_match_budget((uint32_t)len, p->len);
	for (uint32_t i = 0; i < budget && m.res == AC_M_RUN; i++)
		ac_match_step(&m, p->q, buf, (uint32_t)len);
	if (m.res == AC_M_MATCH && weight)
		*weight = ac_match_weight(&m);
	return m.res;
}
