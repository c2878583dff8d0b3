// SPDX-License-Identifier: GPL-2.0-only
/* File patterns: the matcher the kernel and userspace share, held to a
 * brute-force reading of the pattern language (recursion over components
 * and bytes) on generated patterns and paths; the parser's refusals; the
 * compiled policy's precedence between entries and patterns. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "policy/compile.h"
#include "policy/pattern.h"
#include "policy/rules.h"

/* --- the reference: fnmatch-like recursion, no cleverness --------------- */

static int class_has(const char *p, size_t *adv, unsigned char c)
{
	size_t i = 1;
	int neg = 0, hit = 0;

	if (p[i] == '!' || p[i] == '^') {
		neg = 1;
		i++;
	}
	for (int first = 1; p[i] && (first || p[i] != ']'); first = 0) {
		unsigned char lo = (unsigned char)p[i], hi = lo;

		if (p[i + 1] == '-' && p[i + 2] && p[i + 2] != ']') {
			hi = (unsigned char)p[i + 2];
			i += 2;
		}
		if (c >= lo && c <= hi)
			hit = 1;
		i++;
	}
	*adv = i + 1;
	return c != '/' && (neg ? !hit : hit);
}

/* glob component p[0..pn) against name n[0..nn) */
static int comp_ref(const char *p, size_t pn, const char *n, size_t nn)
{
	size_t adv;

	if (!pn)
		return !nn;
	if (p[0] == '*')
		for (size_t k = 0; k <= nn; k++)
			if (comp_ref(p + 1, pn - 1, n + k, nn - k))
				return 1;
	if (p[0] == '*')
		return 0;
	if (!nn)
		return 0;
	if (p[0] == '?')
		return comp_ref(p + 1, pn - 1, n + 1, nn - 1);
	if (p[0] == '[')
		return class_has(p, &adv, (unsigned char)n[0]) &&
		       comp_ref(p + adv, pn - adv, n + 1, nn - 1);
	return p[0] == n[0] && comp_ref(p + 1, pn - 1, n + 1, nn - 1);
}

struct comps {
	const char *s[64];
	size_t n[64];
	size_t m;
};

static void comps_of(const char *path, struct comps *c)
{
	c->m = 0;
	for (const char *p = path; *p;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		const char *e = strchr(p, '/');

		if (!e)
			e = p + strlen(p);
		c->s[c->m] = p;
		c->n[c->m++] = (size_t)(e - p);
		p = e;
	}
}

/* pattern components [pi, pm) against path components [xi, k) exactly */
static int seq_ref(const struct comps *p, size_t pi, const struct comps *x, size_t xi, size_t k)
{
	if (pi == p->m)
		return xi == k;
	if (p->n[pi] == 2 && !strncmp(p->s[pi], "**", 2)) {
		for (size_t j = xi; j <= k; j++)
			if (seq_ref(p, pi + 1, x, j, k))
				return 1;
		return 0;
	}
	return xi < k && comp_ref(p->s[pi], p->n[pi], x->s[xi], x->n[xi]) &&
	       seq_ref(p, pi + 1, x, xi + 1, k);
}

/* the weight of the deepest prefix of path that pat matches, 0: none */
static uint32_t deepest_ref(const char *pat, const char *path)
{
	struct comps p, x;

	comps_of(pat, &p);
	comps_of(path, &x);
	for (size_t k = x.m; k >= 1; k--)
		if (seq_ref(&p, 0, &x, 0, k)) {
			size_t len = (size_t)(x.s[k - 1] + x.n[k - 1] - path);

			return ac_weight((uint32_t)len);
		}
	return 0;
}

/* --- generated cases ------------------------------------------------------ */

static const char *const pieces[] = { "a", "b", ".", "*", "?", "[ab]", "[!a]", "[a-b]", "ab",
				      ".e" };

static void gen_pattern(char *out, size_t cap, unsigned *seed)
{
	size_t m = 1 + rand_r(seed) % 4, o = 0;

	for (size_t i = 0; i < m; i++) {
		out[o++] = '/';
		if (rand_r(seed) % 4 == 0) {
			o += (size_t)snprintf(out + o, cap - o, "**");
			continue;
		}
		for (size_t k = 1 + rand_r(seed) % 3; k > 0; k--)
			o += (size_t)snprintf(out + o, cap - o, "%s",
					      pieces[rand_r(seed) % (sizeof(pieces) / sizeof(*pieces))]);
	}
	out[o] = 0;
}

static void gen_path(char *out, size_t cap, unsigned *seed)
{
	static const char alpha[] = "ab.e";
	size_t m = 1 + rand_r(seed) % 6, o = 0;

	for (size_t i = 0; i < m && o + 6 < cap; i++) {
		out[o++] = '/';
		for (size_t k = 1 + rand_r(seed) % 3; k > 0; k--)
			out[o++] = alpha[rand_r(seed) % 4];
	}
	out[o] = 0;
}

Test(pattern, matcher_agrees_with_reference_on_generated_cases)
{
	unsigned seed = 20261207;
	size_t matched = 0, total = 0;

	for (int i = 0; i < 3000; i++) {
		char pat[256], squeezed[256], err[256];
		struct ac_pattern p;

		gen_pattern(squeezed, sizeof(squeezed), &seed);
		/* compiling drops trailing "**" (they add nothing: an entry
		 * covers what is beneath) and makes runs of them one */
		int r = pattern_compile(squeezed, 1, AC_DENY, &p, err, sizeof(err));

		snprintf(pat, sizeof(pat), "%s", squeezed);
		cr_assert_geq(r, 0, "%s: %s", pat, err);
		if (r == 1)
			continue;       /* an entry after all ("/a/ **") */
		for (int j = 0; j < 40; j++) {
			char path[256];
			uint32_t w = 0, want;

			gen_path(path, sizeof(path), &seed);
			uint32_t res = pattern_match(&p, path, strlen(path), &w);

			want = deepest_ref(pat, path);
			cr_assert_neq(res, AC_M_RUN, "%s on %s: over the budget", pat, path);
			cr_assert_eq(res == AC_M_MATCH, want != 0, "%s on %s: matcher %u, reference %u",
				     pat, path, res, want);
			if (want)
				cr_assert_eq(w, want, "%s on %s: weight %u, reference %u", pat, path,
					     w, want);
			matched += want != 0;
			total++;
		}
	}
	/* the generator must exercise both outcomes */
	cr_assert_gt(matched, total / 20, "%zu of %zu matched", matched, total);
	cr_assert_lt(matched, total - total / 20, "%zu of %zu matched", matched, total);
}

/* the live prefixes match a directory exactly when the reference says
 * some proper prefix (not all "**") matches it whole */
Test(pattern, live_prefixes_agree_with_reference)
{
	unsigned seed = 7;

	for (int i = 0; i < 2000; i++) {
		char pat[256], err[256], path[256];
		struct ac_pattern p, live[AC_PAT_MAX];
		size_t n = 0;

		gen_pattern(pat, sizeof(pat), &seed);
		if (pattern_compile(pat, 1, AC_DENY, &p, err, sizeof(err)))
			continue;
		cr_assert_eq(pattern_prefixes(pat, live, &n, AC_PAT_MAX, err, sizeof(err)), 0, "%s", err);
		struct comps pc;

		comps_of(pat, &pc);
		for (int j = 0; j < 30; j++) {
			struct comps x;
			int want = 0, got = 0, all_dstar = 1;

			gen_path(path, sizeof(path), &seed);
			comps_of(path, &x);
			for (size_t k = 1; k < pc.m; k++) {
				struct comps pre = pc;

				all_dstar &= pc.n[k - 1] == 2 && !strncmp(pc.s[k - 1], "**", 2);
				pre.m = k;
				if (!all_dstar && seq_ref(&pre, 0, &x, 0, x.m))
					want = 1;
			}
			for (size_t k = 0; k < n; k++)
				got |= pattern_match(&live[k], path, strlen(path), NULL) == AC_M_MATCH;
			cr_assert_eq(got, want, "%s: live on %s: %d, reference %d", pat, path, got, want);
		}
	}
}

Test(pattern, examples)
{
	static const struct { const char *pat, *path; uint32_t w; } cases[] = {
		{ "/**/.env", "/home/u/proj/.env", 18 },
		{ "/**/.env", "/home/u/proj/.env/x", 18 },
		{ "/**/.env", "/home/u/proj/.envrc", 0 },
		{ "/**/.env", "/home/u/proj/x.env", 0 },
		{ "/**/*.pem", "/a/b/key.pem", 13 },
		{ "/**/*.pem", "/a/b/key.pem.bak", 0 },
		{ "/**/.git/hooks", "/p/.git/hooks/pre-commit", 14 },
		{ "/**/.git/hooks", "/p/.git/hook", 0 },
		{ "/w/**/secrets", "/w/secrets/k", 11 },
		{ "/w/**/secrets", "/w/a/b/secrets", 15 },
		{ "/w/**/secrets", "/v/secrets", 0 },
		{ "/home/*/.ssh", "/home/u/.ssh/id", 13 },
		{ "/home/*/.ssh", "/home/u/v/.ssh", 0 },
		/* the deepest of several matches */
		{ "/**/n", "/p/n/a/n/b", 9 },
		{ "/d[0-9]", "/d7", 4 },
		{ "/d[!0-9]", "/d7", 0 },
		{ "/?", "/ab", 0 },
		{ "/*", "/", 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char pat[256], err[256];
		struct ac_pattern p;
		uint32_t w = 0;

		snprintf(pat, sizeof(pat), "%s", cases[i].pat);
		cr_assert_eq(pattern_compile(pat, 1, AC_DENY, &p, err, sizeof(err)), 0);
		uint32_t r = strlen(cases[i].path) > 1 ?
			     pattern_match(&p, cases[i].path, strlen(cases[i].path), &w) : AC_M_FAIL;

		cr_assert_eq(r == AC_M_MATCH ? w : 0, cases[i].w, "%s on %s: %u", cases[i].pat,
			     cases[i].path, r == AC_M_MATCH ? w : 0);
	}
}

Test(pattern, syntax_refusals)
{
	static const char *const bad[] = { "/a/b**", "/a/**b/c", "/***", "/a/[bc", "/a/\x01*" };
	static const char *const good[] = { "/**/.env", "/a/*/b", "/a/[]]", "/a/[!x]?", "/x/**" };
	char why[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		cr_assert_eq(pattern_check(bad[i], why, sizeof(why)), -1, "%s accepted", bad[i]);
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		cr_assert_eq(pattern_check(good[i], why, sizeof(why)), 0, "%s: %s", good[i], why);
}

Test(pattern, trailing_dstar_is_an_entry)
{
	char p[64] = "/x/**/**", err[128];
	struct ac_pattern q;

	cr_assert_eq(pattern_compile(p, 1, AC_READ, &q, err, sizeof(err)), 1);
	cr_assert_str_eq(p, "/x");
}

/* the budget: an adversarial name cannot make a deny pattern fail open */
Test(pattern, over_budget_is_inconclusive)
{
	char pat[64] = "/**/baaaaaaaaaaaaaaaaaaaa*", err[128], path[4096];
	struct ac_pattern q;
	size_t o = 0;

	cr_assert_eq(pattern_compile(pat, 1, AC_DENY, &q, err, sizeof(err)), 0);
	while (o + 260 < sizeof(path)) {
		path[o++] = '/';
		memset(path + o, 'a', 250);
		o += 250;
	}
	path[o] = 0;
	cr_assert_eq(pattern_match(&q, path, o, NULL), AC_M_RUN);
}

/* --- compiled policies: precedence between entries and patterns ---------- */

static const struct rule_vars vars = { .cwd = "/home/agent/proj", .cage_tmp = "/tmp/ac-X" };

static void compile(const char *t, struct compiled_policy *c)
{
	struct policy_source s = { .text = t, .len = strlen(t), .name = "inline",
				   .mode = MODE_UNSET, .vars = &vars };
	struct ac_error e;

	cr_assert_eq(policy_compile(&s, c, &e), 0, "%s", e.msg);
}

Test(pattern, precedence_table)
{
	struct compiled_policy c;
	static const struct { const char *path; uint32_t cls; } want[] = {
		{ "/home/agent/proj/src/main.c", AC_WRITE },
		{ "/home/agent/proj/.env", AC_DENY },              /* pattern longer than ${CWD} */
		{ "/home/agent/proj/src/.env", AC_DENY },
		{ "/home/agent/proj/.envrc", AC_WRITE },           /* near miss */
		{ "/home/agent/proj/config/.env", AC_DENY },       /* a tie: deny beats read */
		{ "/home/agent/proj/config/.env/x", AC_DENY },
		{ "/home/agent/proj/secrets/a.txt", AC_DENY },
		{ "/home/agent/proj/x/secrets/public/a", AC_READ }, /* a longer entry wins */
		{ "/home/agent/proj/x/secrets/b", AC_DENY },
		{ "/home/agent/proj/k.pem", AC_DENY },
		{ "/etc/ssl/certs/ca.pem", AC_DENY },              /* two patterns tie: deny */
		{ "/etc/ssl/certs/ca.crt", AC_READ },
		{ "/home/agent/.ssh/id", AC_DENY },
	};

	compile("files:\n"
		"  read: [/, '${CWD}/config/.env', '${CWD}/x/secrets/public', '/etc/ssl/**/*.pem']\n"
		"  write: ['${CWD}']\n"
		"  deny: ['**/.env', '${CWD}/**/secrets/', '**/*.pem', '/home/*/.ssh/']\n", &c);
	cr_assert_eq(c.rs.fpat.n, 5, "%zu", c.rs.fpat.n);
	for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++) {
		uint32_t cls = rules_file_class(&c.rs, want[i].path);

		cr_assert_eq(cls, want[i].cls, "%s: %u, want %u", want[i].path, cls, want[i].cls);
	}
	compiled_policy_free(&c);
}

Test(pattern, renames_that_move_names_out_of_patterns)
{
	struct compiled_policy c;

	compile("files:\n  write: ['${CWD}']\n"
		"  deny: ['**/.env', '${CWD}/**/secrets/*.key', '**/.git/hooks/']\n", &c);
	/* "**" absorbs any directory: .env files stay denied wherever they go */
	cr_assert_eq(rules_rename_moves_patterns(&c.rs, "/home/agent/proj/a", "/home/agent/proj/b"), 0);
	cr_assert_eq(rules_rename_moves_patterns(&c.rs, "/home/agent/proj/a", "/tmp/b"), 1);
	cr_assert_eq(rules_rename_moves_patterns(&c.rs, "/home/agent/proj/x/secrets",
						 "/home/agent/proj/x/open"), 1);
	cr_assert_eq(rules_rename_moves_patterns(&c.rs, "/home/agent/proj/x/open",
						 "/home/agent/proj/x/secrets"), 1);
	cr_assert_eq(rules_rename_moves_patterns(&c.rs, "/home/agent/proj/p/.git",
						 "/home/agent/proj/p/git"), 1);
	cr_assert_eq(rules_rename_moves_patterns(&c.rs, "/home/agent/proj/p/src",
						 "/home/agent/proj/p/lib"), 0);
	compiled_policy_free(&c);
}

Test(pattern, exec_patterns_add_their_class)
{
	struct compiled_policy c;

	compile("files:\n  read: [/]\nexec:\n  allow: [/usr/bin/, '${CWD}/**/node_modules/.bin/*']\n",
		&c);
	cr_assert(rules_exec_allowed(&c.rs, "/home/agent/proj/a/node_modules/.bin/tsc"));
	cr_assert(!rules_exec_allowed(&c.rs, "/home/agent/proj/a/node_modules/tsc"));
	cr_assert(!rules_exec_allowed(&c.rs, "/home/agent/proj/a/node_modules/.bin"));
	cr_assert(rules_exec_allowed(&c.rs, "/usr/bin/env"));
	compiled_policy_free(&c);
}

Test(pattern, policy_refusals_name_the_entry)
{
	struct policy_source s = { .name = "inline", .mode = MODE_UNSET, .vars = &vars };
	static const char *const bad[] = {
		"files:\n  deny: ['/a/b**']\n",
		"files:\n  deny: ['/a/[x']\n",
		"network:\n  unix: ['/run/*.sock']\n",
	};
	struct compiled_policy c;
	struct ac_error e;

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		s.text = bad[i];
		s.len = strlen(bad[i]);
		cr_assert_neq(policy_compile(&s, &c, &e), 0, "%s accepted", bad[i]);
		cr_assert(strstr(e.msg, "inline:"), "%s", e.msg);
	}
}
