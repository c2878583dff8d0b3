// SPDX-License-Identifier: GPL-2.0-only
/* lib/policy/yamllite against libyaml: each text of the subset gives
 * libyaml's document; each text outside it is declined (and libyaml, not
 * yamllite, then decides). */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "policy/yamllite.h"
#include "../yamlsame.h"

/* texts of the subset: yamllite takes each, as libyaml reads it */
static const char *const taken[] = {
	"name: x\n",
	"name: x",
	"  name: x\n  mode: audit\n",
	"# head\n\nname: x   # why\n\n# tail\n",
	"files:\n  read:\n    - /usr\n    - /lib   # c\n  write:\n  - ${CWD}\n  - '/a b'\n",
	"a:\n- x\n- y\nb: z\n",
	"- a\n- b\n",
	"a: [x, 'y', \"z\"]\nb: []\nc: [ x ,y ]  # c\n",
	"a: 'it''s'\nb: \"q#x\"\nc: ''\n",
	"a: x#y\nb: x :y\nc: -1\nd: -x-\ne: 1.2.3.4:53/udp\nf: ::1\n",
	"network:\n  allow:\n    - api.example.com:443/tcp\n    - 127.0.0.53:53   # dns\n",
	"a:\n  b:\n    c:\n      - d\n  e: f\n",
	"a: x y  z\n",
	"a: x,y [z] {w}\n",
	"a.b-c_d: 1\n",
	"a:   # c\n  - x\nb:  # c\n  c: d\n",
	"a: ~\nb: null\nc: yes\n",
	"a: /x # c\n# only a comment\n    # indented comment\nb: y\n",
};

/* texts outside it: yamllite declines each */
static const char *const declined[] = {
	"",
	"# only a comment\n",
	"name:\n",                                   /* an empty value */
	"name:\nmode: x\n",
	"a: |\n  text\n",                            /* block scalars */
	"a: >\n  text\n",
	"a: &x v\nb: *x\n",                          /* anchors and aliases */
	"a: !!str v\n",                              /* tags */
	"---\na: b\n",                               /* documents */
	"%YAML 1.1\n---\na: b\n",
	"a: b\n...\n",
	"a: {b: c}\n",                               /* flow mappings */
	"a: [b,\n  c]\n",                            /* multi-line flow */
	"a: [b, [c]]\n",
	"a: [b, ]\n",
	"a: [b:c]\n",
	"a: long\n  text\n",                         /* a multi-line plain scalar */
	"a: 'x\n  y'\n",
	"a: \"x\\ty\"\n",                            /* escapes */
	"a:\tb\n",                                   /* tabs */
	"a: b\r\n",                                  /* carriage returns */
	"a: \xc3\xa9\n",                             /* beyond ASCII */
	"\xef\xbb\xbf" "a: b\n",
	"? a\n: b\n",                                /* complex keys */
	"\"a\": b\n",                                /* quoted keys */
	"a b: c\n",
	"a: b: c\n",                                 /* errors libyaml reports */
	"a: b:\n",
	"a: b\n  c: d\n",
	"a:\n  - x\n  b: y\n",
	"a:\n    b: 1\n  c: 2\n",
	"a: b\n- c\n",
	"- a\nb: c\n",
	"a: - b\n",
	"- - a\n",
	"-\n  a\n",
	"a: 'x'y\n",
	"a: [x]y\n",
	"a: @x\n",
	"a: `x\n",
	"a: %x\n",
	"a:#x\n",
	"a: 'x'#c\n",
	"a: :\n",
	"a: - \n",
	"a: [:x]\n",
};

Test(yamllite, takes_the_subset_as_libyaml_reads_it)
{
	for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++) {
		yaml_document_t lite, ref;
		size_t len = strlen(taken[i]);

		cr_assert_eq(yaml_lite_load(taken[i], len, &lite), 1, "declined: %s", taken[i]);
		cr_assert(libyaml_load(taken[i], len, &ref), "libyaml refuses: %s", taken[i]);
		cr_expect(yaml_same(&lite, &ref), "not libyaml's document: %s", taken[i]);
		yaml_document_delete(&ref);
		yaml_lite_delete(&lite);
	}
}

Test(yamllite, declines_what_is_outside_it)
{
	for (size_t i = 0; i < sizeof(declined) / sizeof(declined[0]); i++) {
		yaml_document_t lite;

		cr_expect_eq(yaml_lite_load(declined[i], strlen(declined[i]), &lite), 0,
			     "taken: %s", declined[i]);
	}
}

/* Indentations and scalar lengths are ints: a text of 2 GiB or more is
 * declined before a byte of it is read (a wrapped indentation ended the
 * document early, a wrapped length cut a scalar). Here a page of valid
 * text is followed by one that cannot be read: a loader that reads on
 * crashes. */
Test(yamllite, declines_a_text_longer_than_an_int_counts)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	yaml_document_t lite;

	cr_assert(p != MAP_FAILED);
	memset(p, ' ', pg);
	memcpy(p, "a: b\n", 5);
	cr_assert(!mprotect(p + pg, pg, PROT_NONE));
	cr_expect_eq(yaml_lite_load(p, (size_t)INT_MAX + 1, &lite), 0);
	cr_expect_eq(yaml_lite_load(p, SIZE_MAX, &lite), 0);
	munmap(p, 2 * pg);
}

/* The document the comparison checks is not vacuous: a change in a value,
 * a line or a column is seen. */
Test(yamllite, the_comparison_sees_a_difference)
{
	static const char *const pairs[][2] = {
		{ "a: x\n", "a: y\n" },
		{ "a: x\n", "\na: x\n" },
		{ "a: x\n", "a:  x\n" },
		{ "a: [x, y]\n", "a: [x]\n" },
		{ "a:\n- x\n", "a:\n  - x\n" },
	};

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		yaml_document_t a, b;

		cr_assert_eq(yaml_lite_load(pairs[i][0], strlen(pairs[i][0]), &a), 1);
		cr_assert(libyaml_load(pairs[i][1], strlen(pairs[i][1]), &b));
		cr_expect(!yaml_same(&a, &b), "pair %zu compares equal", i);
		yaml_lite_delete(&a);
		yaml_document_delete(&b);
	}
}

/* Every policy shipped is in the subset, so a reload of one never pays for libyaml. */
Test(yamllite, takes_the_shipped_policies)
{
	static const char *const files[] = { "policies/default.yaml", "policies/web-agent.yaml",
					     "policies/python-runner.yaml",
					     "policies/image-agent.yaml" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char buf[65536];
		FILE *f = fopen(files[i], "r");
		size_t len;
		yaml_document_t lite, ref;

		cr_assert(f, "%s", files[i]);
		len = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		cr_assert_eq(yaml_lite_load(buf, len, &lite), 1, "declined: %s", files[i]);
		cr_assert(libyaml_load(buf, len, &ref));
		cr_expect(yaml_same(&lite, &ref), "%s", files[i]);
		yaml_document_delete(&ref);
		yaml_lite_delete(&lite);
	}
}
