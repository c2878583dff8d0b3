/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* File patterns (files.read/write/deny, exec.allow/libraries): the compiled
 * form the programs read, and the matcher both sides run, written once here
 * so that the kernel and `check` decide alike (the programs step it in a
 * bpf_loop, userspace in a plain loop).
 *
 * A pattern is a path whose components may hold `*` (any run of bytes
 * within one component), `?` (one byte), `[...]` (one byte of a class, `!`
 * or `^` first negates, `a-z` ranges), or be `**` (any number of whole
 * components, none included). Like an entry, it covers what it matches and
 * everything beneath. A path is matched at the deepest prefix the pattern
 * matches: that prefix's length is the pattern's weight against other
 * entries and patterns (the longer wins; on a tie deny, write, read).
 *
 * Compiled form: the components in reverse order, each component's bytes
 * reversed too, so that the matcher reads the path from its last byte to
 * its first (the walk builds paths right to left, and the deepest match is
 * the first the greedy matcher finds that way). A file or exec pattern
 * starts with "**" "/": the part below the matched prefix. Tokens: a byte
 * >= 0x20 stands for itself ('/' separates components); AC_PT_STAR,
 * AC_PT_ANY; AC_PT_CLASS then a 32-byte bitmap of the bytes it takes ('/'
 * never); AC_PT_DSTAR, always followed by '/'. Pattern bytes below 0x20 are
 * refused by the policy parser, so no literal is taken for a token. */
#ifndef AGENTCAGE_PATTERN_H
#define AGENTCAGE_PATTERN_H
#include "agentcage/cage.h"

#define AC_PAT_MAX 64         /* patterns of one kind in a policy */
#define AC_PAT_Q 256          /* bytes of a compiled pattern, at most */
#define AC_PAT_CLASS_BYTES 32

enum ac_pat_tag { AC_PT_STAR = 1, AC_PT_ANY = 2, AC_PT_CLASS = 3, AC_PT_DSTAR = 4 };

/* The kinds of compiled patterns in the patterns map. AC_PK_LIVE: the
 * proper prefixes of the file patterns (e1/../ei of e1/../em, i < m, none
 * all "**"), matched whole: a directory rename that changes which of them
 * match would carry names into or out of a pattern (rename_moves_rules). */
enum ac_pat_kind { AC_PK_FILE = 0, AC_PK_EXEC = 1, AC_PK_LIVE = 2 };
#define AC_PAT_IDX(kind, i) ((__u32)(kind) << 16 | (__u32)(i))

/* the policy id second, as in every rule map's key (the loader's purge) */
struct ac_pat_key {
	__u32 idx;            /* AC_PAT_IDX */
	__u32 policy;
};

struct ac_pattern {
	__u16 len;            /* bytes of q */
	__u8 cls;             /* enum ac_class, enum ac_exec_class; live: 0 */
	__u8 pad;
	__u8 q[AC_PAT_Q];
};

enum ac_match_res { AC_M_RUN = 0, AC_M_MATCH = 1, AC_M_FAIL = 2 };

/* The matcher's state: a greedy match with one backtrack point for the
 * last `*` (within its component) and one for the last `**`. */
struct ac_match {
	__u32 qi, xi;         /* next pattern byte, next path byte (from the end) */
	__u32 sq, sx;         /* the last `*`: pattern byte after it + 1 (0: none), path byte */
	__u32 dq, dx;         /* the last `**`: pattern byte after its '/' (0: none), path byte */
	__u32 lead;           /* path bytes the leading `**` takes (the part below the match) */
	__u32 skip;           /* 1: the last `**` takes one more component */
	__u32 qlen, xlen;
	__u32 res;            /* enum ac_match_res */
	__u32 pad;
};

/* Steps a match may take: beyond them it is inconclusive, and counts as a
 * match for a deny and a refused rename, as none for a grant. */
AC_INLINE __u32 ac_match_budget(__u32 xlen, __u32 qlen)
{
	return 8 * (xlen + qlen) + 64;
}

AC_INLINE void ac_match_init(struct ac_match *m, __u32 qlen, __u32 xlen)
{
	m->qi = m->xi = m->sq = m->sx = m->dq = m->dx = m->lead = m->skip = 0;
	m->qlen = qlen;
	m->xlen = xlen;
	m->res = AC_M_RUN;
}

/* path byte i from the end: the path is buf[end - xlen .. end) */
#define AC_X(buf, end, i) ((__u8)(buf)[((end) - 1 - (i)) & (AC_PATH_MAX - 1)])
#define AC_Q(q, i) ((q)[(i) & (AC_PAT_Q - 1)])

/* back to the last `*` (one byte more for it), else the last `**` */
AC_INLINE __u32 ac_match_back(struct ac_match *m, const char *buf, __u32 end)
{
	if (m->sq && m->sx < m->xlen && AC_X(buf, end, m->sx) != '/') {
		m->sx++;
		m->xi = m->sx;
		m->qi = m->sq - 1;
		return AC_M_RUN;
	}
	if (m->dq) {
		m->sq = 0;
		m->skip = 1;
		return AC_M_RUN;
	}
	m->res = AC_M_FAIL;
	return AC_M_FAIL;
}

/* One step; the result (AC_M_RUN: go on). */
AC_INLINE __u32 ac_match_step(struct ac_match *m, const __u8 *q, const char *buf, __u32 end)
{
	__u32 qi = m->qi, xi = m->xi, t;
	__u8 c;

	if (m->skip) {                       /* the `**` takes the path up to the next '/' */
		if (m->dx >= m->xlen) {
			m->res = AC_M_FAIL;
			return AC_M_FAIL;
		}
		c = AC_X(buf, end, m->dx);
		m->dx++;
		if (c == '/') {
			m->skip = 0;
			m->xi = m->dx;
			m->qi = m->dq;
			if (m->dq == 2)
				m->lead = m->dx;
		}
		return AC_M_RUN;
	}
	if (qi + 1 < m->qlen && AC_Q(q, qi) == AC_PT_DSTAR) {
		m->dq = qi + 2;
		m->dx = xi;
		m->sq = 0;
		m->qi = qi + 2;
		if (qi == 0)
			m->lead = xi;
		return AC_M_RUN;
	}
	if (xi >= m->xlen) {
		if (qi >= m->qlen) {
			m->res = AC_M_MATCH;
			return AC_M_MATCH;
		}
		return ac_match_back(m, buf, end);
	}
	if (qi >= m->qlen)
		return ac_match_back(m, buf, end);
	c = AC_X(buf, end, xi);
	t = AC_Q(q, qi);
	if (t == AC_PT_STAR) {
		m->sq = qi + 2;                  /* the byte after it, + 1 */
		m->sx = xi;
		m->qi = qi + 1;
		return AC_M_RUN;
	}
	if (t == AC_PT_ANY || t == AC_PT_CLASS) {
		__u32 w = t == AC_PT_ANY ? 1 : 1 + AC_PAT_CLASS_BYTES;

		if (c == '/' || qi + w > m->qlen ||
		    (t == AC_PT_CLASS && !((AC_Q(q, qi + 1 + (c >> 3)) >> (c & 7)) & 1)))
			return ac_match_back(m, buf, end);
		m->qi = qi + w;
		m->xi = xi + 1;
		return AC_M_RUN;
	}
	if (t == AC_PT_DSTAR || t != c)
		return ac_match_back(m, buf, end);
	if (c == '/')
		m->sq = 0;                       /* a `*` never reaches past its component */
	m->qi = qi + 1;
	m->xi = xi + 1;
	return AC_M_RUN;
}

/* The key length of a path of len bytes (ac_key_len, uncut: a pattern may
 * match a prefix longer than any entry's key) */
AC_INLINE __u32 ac_weight(__u32 len)
{
	return len > 1 ? len + 1 : len;
}

/* The weight of the prefix a file or exec pattern matched: the path less
 * what its leading `**` took. */
AC_INLINE __u32 ac_match_weight(const struct ac_match *m)
{
	return ac_weight(m->xlen - m->lead);
}

_Static_assert(sizeof(struct ac_pat_key) == 8, "struct ac_pat_key");
_Static_assert(sizeof(struct ac_pattern) == 4 + AC_PAT_Q, "struct ac_pattern");
_Static_assert(sizeof(struct ac_match) == 48, "struct ac_match");
#endif
