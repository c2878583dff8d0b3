// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer target: a pattern on the first line, paths on the others.
 * The pattern goes through pattern_check and, when it passes, through the
 * compiler (both forms) and the live prefixes; each path through the
 * matcher, whose outcome must be in range: a match's weight is that of a
 * prefix of the path ending at a component (the unit tests hold the
 * matcher to a brute-force reference). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "agentcage/cage.h"
#include "policy/pattern.h"

static void check_match(const struct ac_pattern *p, const char *path, size_t len)
{
	uint32_t w = 0, r = pattern_match(p, path, len, &w);

	if (r > AC_M_FAIL)
		abort();
	if (r != AC_M_MATCH)
		return;
	if (w < 2 || w > ac_weight((uint32_t)len))
		abort();
	/* the matched prefix ends at a component's end */
	if (w - 1 < len && path[w - 1] != '/')
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ac_pattern live[AC_PAT_MAX];
	char *in = malloc(size + 2), *nl, *pat, *rest, err[512];
	struct ac_pattern p, whole;
	size_t n = 0;

	if (!in)
		return 0;
	memcpy(in + 1, data, size);
	in[0] = '/';
	in[size + 1] = 0;
	nl = strchr(in, '\n');
	rest = nl ? nl + 1 : in + size + 1;
	if (nl)
		*nl = 0;
	pat = in[1] == '/' ? in + 1 : in;      /* a pattern from "**": under "/" */
	if (strlen(pat) >= AC_PATH_MAX || pattern_check(pat, err, sizeof(err)) ||
	    strstr(pat, "//")) {
		free(in);
		return 0;
	}
	char *copy = strdup(pat);

	if (copy && pattern_compile(pat, 1, AC_DENY, &p, err, sizeof(err)) == 0 &&
	    pattern_compile(copy, 0, 0, &whole, err, sizeof(err)) == 0) {
		pattern_prefixes(pat, live, &n, AC_PAT_MAX, err, sizeof(err));
		if (n > AC_PAT_MAX)
			abort();
		for (char *s = rest; *s;) {
			char *e = strchr(s, '\n');
			size_t len = e ? (size_t)(e - s) : strlen(s);

			/* paths as the kernel names them: absolute, no empty component */
			if (len && s[0] == '/' && !memchr(s, 0, len) && (len == 1 || s[len - 1] != '/') &&
			    !memmem(s, len, "//", 2)) {
				check_match(&p, s, len);
				pattern_match(&whole, s, len, NULL);
				for (size_t i = 0; i < n; i++)
					pattern_match(&live[i], s, len, NULL);
			}
			if (!e)
				break;
			s = e + 1;
		}
	}
	free(copy);
	free(in);
	return 0;
}
