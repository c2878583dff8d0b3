// SPDX-License-Identifier: GPL-2.0
/* File patterns, decided on the resolved path after the trie's longest
 * match (include/agentcage/pattern.h has the form and the matcher, which
 * userspace runs too). The work is bounded twice over: at most AC_PAT_MAX
 * patterns of a kind, each at most ac_match_budget steps of the matcher;
 * a match over its budget is inconclusive, which holds as a match for a
 * deny and for a rename's live prefixes, as none for a grant. */
#ifndef AGENTCAGE_PATTERN_BPF_H
#define AGENTCAGE_PATTERN_BPF_H
#include "cage_common.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, struct ac_pat_key);
	__type(value, struct ac_pattern);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} patterns SEC(".maps");

struct pat_ctx {
	struct scratch *s;
	struct ac_pattern *p;    /* the pattern being matched */
	__u32 policy, kind, end, xlen;
};

static long pat_step(__u32 i, void *data)
{
	struct pat_ctx *x = data;
	struct ac_pattern *p = x->p;

	if (!p)
		return 1;
	return ac_match_step(&x->s->m, p->q, x->s->buf, x->end) != AC_M_RUN;
}

/* One pattern of the kind: matched, and its outcome folded into s->pr */
static long pat_one(__u32 i, void *data)
{
	struct pat_ctx *x = data;
	struct ac_pat_key k = { .policy = x->policy, .idx = AC_PAT_IDX(x->kind, i) };
	struct scratch *s = x->s;
	struct ac_pattern *p;
	__u32 res, w, cls;

	p = bpf_map_lookup_elem(&patterns, &k);
	if (!p)
		return 1;                    /* the kind's patterns are 0, 1, ...: the last */
	x->p = p;
	ac_match_init(&s->m, p->len, x->xlen);
	bpf_loop(ac_match_budget(x->xlen, p->len), pat_step, x, 0);
	x->p = NULL;
	res = s->m.res;
	cls = p->cls;
	if (x->kind == AC_PK_LIVE) {
		if (res == AC_M_RUN)
			s->pr.inconclusive = 1;
		else if (res == AC_M_MATCH)
			s->pr.mask |= 1ull << (i & 63);
		return 0;
	}
	if (x->kind == AC_PK_EXEC) {
		if (res == AC_M_MATCH && cls > s->pr.cls)
			s->pr.cls = cls;
		return 0;
	}
	if (res == AC_M_MATCH)
		w = ac_match_weight(&s->m);
	else if (res == AC_M_RUN && cls == AC_DENY)
		w = ac_weight(x->xlen);      /* inconclusive: a deny holds */
	else
		return 0;
	if (w > s->pr.weight || (w == s->pr.weight && cls > s->pr.cls)) {
		s->pr.weight = w;
		s->pr.cls = cls;
	}
	return 0;
}

/* The patterns of kind on the path s->buf[start..start+len), starting from
 * the trie's weight and class; the outcome in s->pr. The root is matched
 * by no pattern. */
static __always_inline void pat_run(struct scratch *s, __u32 policy, __u32 kind, __u32 start,
				    int len, __u32 weight, __u32 cls)
{
	struct pat_ctx x = { .s = s, .policy = policy, .kind = kind };

	s->pr.weight = weight;
	s->pr.cls = cls;
	s->pr.mask = 0;
	s->pr.inconclusive = 0;
	if (len <= 1 || len > AC_PATH_MAX || start + len > AC_PATH_MAX)
		return;
	x.end = start + len;
	x.xlen = len;
	bpf_loop(AC_PAT_MAX, pat_one, &x, 0);
}
#endif
