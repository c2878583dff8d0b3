// SPDX-License-Identifier: GPL-2.0-only
/* Network rules: parse policy entries, compile them into trie nodes, and
 * match like the kernel does. */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "policy/netrules.h"

#define ENTRY_MAX 512

static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

static int is_mapped(const uint8_t a[16])
{
	return !memcmp(a, v4mapped, 12);
}

void net_addr_normalize(uint8_t addr[16])
{
	ac_addr_normalize(addr);
}

void net_format_prefix(const uint8_t addr[16], uint8_t plen, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (!len)
		return;
	if (is_mapped(addr) && plen >= 96) {
		inet_ntop(AF_INET, addr + 12, a, sizeof(a));
		if (plen >= 128)
			snprintf(buf, len, "%s", a);
		else
			snprintf(buf, len, "%s/%u", a, plen - 96u);
		return;
	}
	inet_ntop(AF_INET6, addr, a, sizeof(a));
	if (plen >= 128)
		snprintf(buf, len, "%s", a);
	else
		snprintf(buf, len, "%s/%u", a, (unsigned)plen);
}

static void mask_addr(uint8_t a[16], unsigned plen)
{
	unsigned i;

	for (i = 0; i < 16; i++) {
		if (plen >= 8 * (i + 1))
			continue;
		if (plen <= 8 * i)
			a[i] = 0;
		else
			a[i] &= (uint8_t)(0xff00u >> (plen - 8 * i));
	}
}

/* a and b equal on their first plen bits */
static int prefix_eq(const uint8_t a[16], const uint8_t b[16], unsigned plen)
{
	unsigned full = plen / 8, rest = plen % 8;

	if (memcmp(a, b, full))
		return 0;
	if (rest) {
		uint8_t m = (uint8_t)(0xff00u >> rest);

		if ((a[full] & m) != (b[full] & m))
			return 0;
	}
	return 1;
}

/* ---- parsing ---- */

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* decimal number of at most 5 digits, or -1 when s is not one; *big when it
 * is all digits but too long */
static long parse_num(const char *s, int *big)
{
	long v = 0;
	size_t n = 0;

	*big = 0;
	if (!all_digits(s))
		return -1;
	for (; *s; s++, n++) {
		if (n >= 6) {
			*big = 1;
			return -1;
		}
		v = v * 10 + (*s - '0');
	}
	return v;
}

static int parse_port_one(const char *s, uint16_t *out, char *err, size_t errlen)
{
	int big;
	long v = parse_num(s, &big);

	if (v < 0 && !big) {
		snprintf(err, errlen, "port '%s' is not a number", s);
		return -1;
	}
	if (big || v > 65535) {
		snprintf(err, errlen, "port %s out of range (0-65535)", s);
		return -1;
	}
	*out = (uint16_t)v;
	return 0;
}

/* "N" or "N-M" */
static int parse_ports(char *s, struct netspec *o, char *err, size_t errlen)
{
	char *dash = strchr(s, '-');

	if (!*s) {
		snprintf(err, errlen, "missing port after ':'");
		return -1;
	}
	if (dash) {
		*dash = 0;
		if (parse_port_one(s, &o->lo, err, errlen) ||
		    parse_port_one(dash + 1, &o->hi, err, errlen))
			return -1;
		if (o->lo > o->hi) {
			snprintf(err, errlen, "port range %u-%u is reversed", o->lo, o->hi);
			return -1;
		}
	} else {
		if (parse_port_one(s, &o->lo, err, errlen))
			return -1;
		o->hi = o->lo;
	}
	o->has_port = 1;
	return 0;
}

/* "/PLEN" text (without the slash) to a number within max */
static int parse_plen(const char *s, unsigned max, const char *fam, unsigned *out,
		      char *err, size_t errlen)
{
	int big;
	long v = parse_num(s, &big);

	if (v < 0 && !big) {
		snprintf(err, errlen, "prefix length '%s' is not a number", s);
		return -1;
	}
	if (big || v > (long)max) {
		snprintf(err, errlen, "prefix length %s out of range (%s: 0-%u)", s, fam, max);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

/* Fill addr/plen from address text and optional prefix text (NULL: none).
 * v6: the text must be IPv6; otherwise IPv4. Returns 1 when text is not an
 * address of that family (no error set), -1 on error, 0 on success. */
static int set_addr(struct netspec *o, const char *atext, const char *ptext, int v6,
		    char *err, size_t errlen)
{
	uint8_t a[16], m[16];
	unsigned plen;
	char want[64];

	memset(a, 0, sizeof(a));
	if (v6) {
		if (inet_pton(AF_INET6, atext, a) != 1)
			return 1;
		plen = 128;
		if (ptext && parse_plen(ptext, 128, "IPv6", &plen, err, errlen))
			return -1;
	} else {
		if (inet_pton(AF_INET, atext, a + 12) != 1)
			return 1;
		memcpy(a, v4mapped, 12);
		plen = 32;
		if (ptext && parse_plen(ptext, 32, "IPv4", &plen, err, errlen))
			return -1;
		plen += 96;
	}
	memcpy(m, a, 16);
	mask_addr(m, plen);
	if (memcmp(m, a, 16)) {
		net_format_prefix(m, (uint8_t)plen, want, sizeof(want));
		snprintf(err, errlen, "%s/%s has host bits set; did you mean %s?", atext,
			 ptext ? ptext : "", want);
		return -1;
	}
	if (plen >= 96)
		net_addr_normalize(a);
	memcpy(o->addr, a, 16);
	o->plen = (uint8_t)plen;
	return 0;
}

static int digits_and_dots(const char *s)
{
	for (; *s; s++)
		if (!isdigit((unsigned char)*s) && *s != '.')
			return 0;
	return 1;
}

/* validate and store a hostname (lowercased, trailing dot stripped) */
static int set_host(struct netspec *o, const char *name, char *err, size_t errlen)
{
	size_t len = strlen(name), i, label = 0;

	if (len && name[len - 1] == '.')
		len--;
	if (len > 253) {
		snprintf(err, errlen, "hostname longer than 253 bytes is not a valid hostname");
		return -1;
	}
	if (!len)
		goto bad;
	for (i = 0; i <= len; i++) {
		char c = i < len ? name[i] : '.';

		if (c == '.') {
			if (!label || name[i - 1] == '-')
				goto bad;
			label = 0;
			continue;
		}
		if (!isalnum((unsigned char)c) && c != '-')
			goto bad;
		if (c == '-' && !label)
			goto bad;
		if (++label > 63) {
			snprintf(err, errlen, "hostname label longer than 63 bytes is not a valid hostname");
			return -1;
		}
	}
	for (i = 0; i < len; i++)
		o->host[i] = (char)tolower((unsigned char)name[i]);
	o->host[len] = 0;
	return 0;
bad:
	snprintf(err, errlen, "'%s' is not a valid address or hostname", name);
	return -1;
}

static int parse_bracketed(char *w, struct netspec *o, char *err, size_t errlen)
{
	char *close = strchr(w, ']'), *inner = w + 1, *slash, *tail;
	int r;

	if (!close) {
		snprintf(err, errlen, "missing ']' after IPv6 address");
		return -1;
	}
	*close = 0;
	tail = close + 1;
	if (strchr(inner, '[')) {
		snprintf(err, errlen, "unexpected '[' in IPv6 address");
		return -1;
	}
	slash = strchr(inner, '/');
	if (slash)
		*slash = 0;
	if (!*inner) {
		snprintf(err, errlen, "missing IPv6 address between '[' and ']'");
		return -1;
	}
	r = set_addr(o, inner, slash ? slash + 1 : NULL, 1, err, errlen);
	if (r > 0)
		snprintf(err, errlen, "'%s' is not a valid IPv6 address", inner);
	if (r)
		return -1;
	if (!*tail)
		return 0;
	if (*tail != ':') {
		snprintf(err, errlen, "unexpected '%s' after ']' (expected :PORT or /tcp, /udp)", tail);
		return -1;
	}
	return parse_ports(tail + 1, o, err, errlen);
}

/* ADDR6[/PLEN] without brackets: never a port */
static int parse_bare6(char *w, struct netspec *o, char *err, size_t errlen)
{
	char *slash = strchr(w, '/'), *colon;
	int r;

	if (strchr(w, ']') || strchr(w, '[')) {
		snprintf(err, errlen, "unexpected bracket in '%s'", w);
		return -1;
	}
	if (slash) {
		*slash = 0;
		if (strchr(slash + 1, ':'))
			goto needs_brackets;
	}
	r = set_addr(o, w, slash ? slash + 1 : NULL, 1, err, errlen);
	if (r <= 0)
		return r;
	/* not an address: ADDR6:PORT? */
	colon = strrchr(w, ':');
	if (colon && colon > w && colon[-1] != ':' && colon[1] && strspn(colon + 1, "0123456789-") == strlen(colon + 1)) {
		uint8_t tmp[16];

		*colon = 0;
		r = inet_pton(AF_INET6, w, tmp);
		*colon = ':';
		if (r == 1)
			goto needs_brackets;
	}
	snprintf(err, errlen, "'%s' is not a valid IPv6 address", w);
	return -1;
needs_brackets:
	snprintf(err, errlen, "IPv6 with a port needs brackets: [ADDR]:PORT");
	return -1;
}

/* IPv4 or hostname, with at most one ':' */
static int parse_v4_or_host(char *w, struct netspec *o, char *err, size_t errlen)
{
	char *colon = strchr(w, ':'), *slash;
	int r;

	if (strchr(w, '[') || strchr(w, ']')) {
		snprintf(err, errlen, "unexpected bracket in '%s'", w);
		return -1;
	}
	if (colon)
		*colon = 0;
	slash = strchr(w, '/');
	if (slash)
		*slash = 0;
	if (!*w) {
		snprintf(err, errlen, "missing address");
		return -1;
	}
	r = set_addr(o, w, slash ? slash + 1 : NULL, 0, err, errlen);
	if (r < 0)
		return -1;
	if (r > 0) {
		if (digits_and_dots(w)) {
			snprintf(err, errlen, "'%s' is not a valid IPv4 address", w);
			return -1;
		}
		if (set_host(o, w, err, errlen))
			return -1;
		if (slash) {
			snprintf(err, errlen, "hostname '%s' cannot have a prefix length", o->host);
			return -1;
		}
	}
	if (colon)
		return parse_ports(colon + 1, o, err, errlen);
	return 0;
}

int netspec_parse(const char *s, struct netspec *out, char *err, size_t errlen)
{
	char w[ENTRY_MAX];
	char *slash;
	size_t len, i, colons = 0;
	uint8_t protos = 0;
	int r;

	memset(out, 0, sizeof(*out));
	if (!s || !*s) {
		snprintf(err, errlen, "empty network entry");
		return -1;
	}
	len = strlen(s);
	if (len >= sizeof(w)) {
		snprintf(err, errlen, "network entry too long");
		return -1;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!isalnum(c) && !strchr(".-:/[]", c)) {
			if (isprint(c))
				snprintf(err, errlen, "unexpected '%c' in '%s'", c, s);
			else
				snprintf(err, errlen, "unexpected byte 0x%02x in network entry", c);
			return -1;
		}
	}
	memcpy(w, s, len + 1);

	/* a trailing /WORD is the protocol */
	slash = strrchr(w, '/');
	if (slash && isalpha((unsigned char)slash[1])) {
		char *p = slash + 1;

		if (strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") ==
		    strlen(p)) {
			if (!strcmp(p, "tcp"))
				protos = AC_P_TCP;
			else if (!strcmp(p, "udp"))
				protos = AC_P_UDP;
			else {
				snprintf(err, errlen, "protocol must be tcp or udp, not '%s'", p);
				return -1;
			}
			*slash = 0;
			if (!*w) {
				snprintf(err, errlen, "missing address before '/%s'", p);
				return -1;
			}
		}
	}

	out->lo = 0;
	out->hi = 65535;
	for (i = 0; w[i]; i++)
		colons += w[i] == ':';
	if (w[0] == '[')
		r = parse_bracketed(w, out, err, errlen);
	else if (colons >= 2)
		r = parse_bare6(w, out, err, errlen);
	else
		r = parse_v4_or_host(w, out, err, errlen);
	if (r) {
		memset(out, 0, sizeof(*out));
		return -1;
	}
	if (!protos)
		protos = out->has_port ? AC_P_TCP | AC_P_UDP : AC_P_ANY;
	out->protos = protos;
	return 0;
}

/* ---- compiling ---- */

struct pfx {
	uint8_t addr[16];
	uint8_t plen;
};

static int pfx_cmp(const void *a, const void *b)
{
	const struct pfx *x = a, *y = b;

	if (x->plen != y->plen)
		return x->plen < y->plen ? -1 : 1;
	return memcmp(x->addr, y->addr, 16);
}

struct rule_ix {
	struct ac_port_rule r;
	size_t ix;    /* input order */
};

static int rule_cmp(const void *a, const void *b)
{
	const struct rule_ix *x = a, *y = b;

	if (x->r.plen != y->r.plen)
		return x->r.plen > y->r.plen ? -1 : 1;
	if (x->r.verdict != y->r.verdict)
		return x->r.verdict == AC_NET_DENY ? -1 : y->r.verdict == AC_NET_DENY ? 1 : 0;
	return x->ix < y->ix ? -1 : x->ix > y->ix;
}

static int same_rule(const struct ac_port_rule *a, const struct ac_port_rule *b)
{
	return a->lo == b->lo && a->hi == b->hi && a->protos == b->protos &&
	       a->verdict == b->verdict && a->plen == b->plen;
}

int net_compile(const struct net_entry *e, size_t n, struct netset *out, char *err, size_t errlen)
{
	struct pfx *p = NULL;
	struct rule_ix *tmp = NULL;
	struct net_node *nodes = NULL;
	size_t i, j, np = 0;

	memset(out, 0, sizeof(*out));
	if (!n)
		return 0;
	for (i = 0; i < n; i++) {
		if (e[i].plen > 128) {
			snprintf(err, errlen, "network rule with prefix length %u (at most 128)", e[i].plen);
			return -1;
		}
		if (e[i].verdict != AC_NET_ALLOW && e[i].verdict != AC_NET_DENY) {
			snprintf(err, errlen, "network rule with verdict %u", e[i].verdict);
			return -1;
		}
	}
	p = calloc(n, sizeof(*p));
	tmp = calloc(n, sizeof(*tmp));
	if (!p || !tmp)
		goto oom;
	for (i = 0; i < n; i++) {
		memcpy(p[i].addr, e[i].addr, 16);
		mask_addr(p[i].addr, e[i].plen);
		p[i].plen = e[i].plen;
	}
	qsort(p, n, sizeof(*p), pfx_cmp);
	for (i = 0; i < n; i++)
		if (!np || pfx_cmp(&p[np - 1], &p[i]))
			p[np++] = p[i];
	nodes = calloc(np, sizeof(*nodes));
	if (!nodes)
		goto oom;

	for (i = 0; i < np; i++) {
		struct net_node *nd = &nodes[i];
		size_t k = 0;

		memcpy(nd->addr, p[i].addr, 16);
		nd->plen = p[i].plen;
		for (j = 0; j < n; j++) {
			struct ac_port_rule r;
			size_t d;

			if (e[j].plen > nd->plen || !prefix_eq(e[j].addr, nd->addr, e[j].plen))
				continue;
			memset(&r, 0, sizeof(r));
			r.lo = e[j].lo;
			r.hi = e[j].hi;
			r.protos = e[j].protos;
			r.verdict = e[j].verdict;
			r.plen = e[j].plen;
			for (d = 0; d < k; d++)
				if (same_rule(&tmp[d].r, &r))
					break;
			if (d < k)
				continue;
			tmp[k].r = r;
			tmp[k].ix = j;
			k++;
		}
		if (k > AC_NET_RULES) {
			char pf[64];

			net_format_prefix(nd->addr, nd->plen, pf, sizeof(pf));
			snprintf(err, errlen, "too many rules cover %s: %zu, at most %d (merge ports into ranges)",
				 pf, k, AC_NET_RULES);
			free(p);
			free(tmp);
			free(nodes);
			return -1;
		}
		qsort(tmp, k, sizeof(*tmp), rule_cmp);
		for (j = 0; j < k; j++)
			nd->val.r[j] = tmp[j].r;
		nd->val.n = (uint32_t)k;
	}
	free(p);
	free(tmp);
	out->nodes = nodes;
	out->n = np;
	return 0;
oom:
	free(p);
	free(tmp);
	snprintf(err, errlen, "out of memory compiling %zu network rules", n);
	return -1;
}

void net_free(struct netset *s)
{
	if (!s)
		return;
	free(s->nodes);
	s->nodes = NULL;
	s->n = 0;
}

int net_match(const struct netset *s, const uint8_t addr[16], uint8_t proto_bit, uint16_t port)
{
	const struct net_node *best = NULL;
	uint8_t a[16];
	size_t i;
	uint32_t j;

	memcpy(a, addr, 16);
	net_addr_normalize(a);
	for (i = 0; s && i < s->n; i++) {
		const struct net_node *nd = &s->nodes[i];

		if ((!best || nd->plen > best->plen) && prefix_eq(nd->addr, a, nd->plen))
			best = nd;
	}
	if (!best)
		return AC_NET_DENY;
	for (j = 0; j < best->val.n && j < AC_NET_RULES; j++) {
		const struct ac_port_rule *r = &best->val.r[j];

		if ((r->protos & proto_bit) && r->lo <= port && port <= r->hi)
			return r->verdict;
	}
	return AC_NET_DENY;
}
