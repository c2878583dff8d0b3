// SPDX-License-Identifier: GPL-2.0-only
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "policy/policy.h"
#include "policy/rules.h"

static struct ruleset rs;
static struct policy pol;

static void compile(const char *text)
{
	char err[512];
	struct rule_vars v = { .cwd = "/home/agent/proj", .cage_tmp = "/tmp/agentcage-X" };

	cr_assert_eq(policy_parse("t.yaml", text, strlen(text), &pol, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(rules_compile(&pol, &v, 0, &rs, err, sizeof(err)), 0, "%s", err);
}

static void teardown(void);

static void compile_free_again(const char *text)
{
	rules_free(&rs);
	policy_free(&pol);
	compile(text);
}

static void teardown(void)
{
	rules_free(&rs);
	policy_free(&pol);
}

TestSuite(rules, .fini = teardown);

Test(rules, whole_components_only)
{
	compile("files:\n  read: [/work]\n");
	cr_assert_eq(rules_file_class(&rs, "/work"), AC_READ);
	cr_assert_eq(rules_file_class(&rs, "/work/a/b"), AC_READ);
	cr_assert_eq(rules_file_class(&rs, "/workshop"), AC_NONE);
	cr_assert_eq(rules_file_class(&rs, "/wor"), AC_NONE);
	cr_assert_eq(rules_file_class(&rs, "/"), AC_NONE);
}

Test(rules, longest_match_decides)
{
	compile("files:\n  read: [/usr, /etc/ssl/private/ok]\n  write: [/usr/local]\n"
		"  deny: [/etc/ssl/private]\n");
	cr_assert_eq(rules_file_class(&rs, "/usr/bin/ls"), AC_READ);
	cr_assert_eq(rules_file_class(&rs, "/usr/local/x"), AC_WRITE);
	cr_assert_eq(rules_file_class(&rs, "/etc/ssl/private/key"), AC_DENY);
	cr_assert_eq(rules_file_class(&rs, "/etc/ssl/private/ok/y"), AC_READ);
	cr_assert_eq(rules_file_class(&rs, "/etc/ssl/certs"), AC_NONE);
}

Test(rules, equal_length_deny_beats_write_beats_read)
{
	compile("files:\n  read: [/a, /b]\n  write: [/a, /b, /c]\n  deny: [/a]\n");
	cr_assert_eq(rules_file_class(&rs, "/a/x"), AC_DENY);
	cr_assert_eq(rules_file_class(&rs, "/b/x"), AC_WRITE);
	cr_assert_eq(rules_file_class(&rs, "/c"), AC_WRITE);
	cr_assert_eq(rs.nfiles, 3);
}

Test(rules, root_covers_everything)
{
	compile("files:\n  read: [/]\n  deny: [/etc/shadow]\n");
	cr_assert_eq(rules_file_class(&rs, "/"), AC_READ);
	cr_assert_eq(rules_file_class(&rs, "/etc/passwd"), AC_READ);
	cr_assert_eq(rules_file_class(&rs, "/etc/shadow"), AC_DENY);
	cr_assert_eq(rules_file_class(&rs, "/etc/shadow-"), AC_READ);
}

Test(rules, variables_and_normalisation)
{
	compile("files:\n  write: ['${CWD}', '${CAGE_TMP}/', '/x//y/']\n");
	cr_assert_eq(rules_file_class(&rs, "/home/agent/proj/src/a.c"), AC_WRITE);
	cr_assert_eq(rules_file_class(&rs, "/home/agent/projects"), AC_NONE);
	cr_assert_eq(rules_file_class(&rs, "/tmp/agentcage-X/f"), AC_WRITE);
	cr_assert_eq(rules_file_class(&rs, "/x/y/z"), AC_WRITE);
}

Test(rules, unknown_variable)
{
	struct policy p;
	struct ruleset r;
	char err[512];
	const char *t = "files:\n  read: ['${HOME}/x']\n";

	cr_assert_eq(policy_parse("t.yaml", t, strlen(t), &p, err, sizeof(err)), 0);
	cr_assert_eq(rules_compile(&p, NULL, 0, &r, err, sizeof(err)), -1);
	cr_assert(strstr(err, "unknown variable"), "%s", err);
	policy_free(&p);
}

Test(rules, exec_allow)
{
	compile("exec:\n  allow: [/usr/bin/python3, /usr/local/bin]\n");
	cr_assert(rules_exec_allowed(&rs, "/usr/bin/python3"));
	cr_assert(!rules_exec_allowed(&rs, "/usr/bin/python3.11"));
	cr_assert(rules_exec_allowed(&rs, "/usr/local/bin/tool"));
	cr_assert(!rules_exec_allowed(&rs, "/usr/bin/sh"));
}

/* exec.allow names programs, exec.libraries what may only be mapped as
 * code; without the key the system library directories are libraries */
Test(rules, libraries_default_map_only)
{
	compile("exec:\n  allow: [/usr/bin/cat]\n");
	cr_assert_eq(rules_exec_class(&rs, "/usr/bin/cat"), AC_EXEC_PROG);
	cr_assert_eq(rules_exec_class(&rs, "/usr/lib/x86_64-linux-gnu/libc.so.6"), AC_EXEC_LIB);
	cr_assert_eq(rules_exec_class(&rs, "/lib64/ld-linux-x86-64.so.2"), AC_EXEC_LIB);
	cr_assert_eq(rules_exec_class(&rs, "/lib/x"), AC_EXEC_LIB);
	cr_assert(!rules_exec_allowed(&rs, "/lib64/ld-linux-x86-64.so.2"));
	cr_assert(rules_map_allowed(&rs, "/lib64/ld-linux-x86-64.so.2"));
	/* a denied program is neither: the loader cannot map it */
	cr_assert_eq(rules_exec_class(&rs, "/usr/bin/id"), 0);
	cr_assert(!rules_map_allowed(&rs, "/usr/bin/id"));
	cr_assert(!rules_map_allowed(&rs, "/usr/libexec/x"));   /* whole components */
	cr_assert(!rules_map_allowed(&rs, "/home/agent/proj/x.so"));
}

Test(rules, libraries_explicit_replace_the_default)
{
	compile("exec:\n  allow: [/usr/bin/python3]\n  libraries: [/usr/lib/x86_64-linux-gnu, '${CWD}/venv']\n");
	cr_assert(rules_map_allowed(&rs, "/usr/lib/x86_64-linux-gnu/libc.so.6"));
	cr_assert(rules_map_allowed(&rs, "/home/agent/proj/venv/lib/m.so"));
	cr_assert(!rules_exec_allowed(&rs, "/home/agent/proj/venv/bin/python"));
	cr_assert(!rules_map_allowed(&rs, "/usr/lib/python3/x.so"));
	cr_assert(!rules_map_allowed(&rs, "/lib64/ld-linux-x86-64.so.2"));
	compile_free_again("exec:\n  allow: [/usr/bin/python3]\n  libraries: []\n");
	cr_assert_eq(rs.nexec, 1);
	cr_assert(!rules_map_allowed(&rs, "/usr/lib/x86_64-linux-gnu/libc.so.6"));
}

/* the union of both lists: a program directory covers mapping its files
 * (allow [/usr/lib] keeps its programs runnable whatever libraries says),
 * and a program inside a library directory is a program */
Test(rules, programs_and_libraries_union)
{
	compile("exec:\n  allow: [/usr/bin, /usr/lib, /usr/lib64/tool]\n  libraries: [/usr/lib/x, /usr/lib64, /usr/bin/y]\n");
	cr_assert_eq(rules_exec_class(&rs, "/usr/lib/x/a.so"), AC_EXEC_PROG);
	cr_assert_eq(rules_exec_class(&rs, "/usr/bin/y/z"), AC_EXEC_PROG);
	cr_assert_eq(rules_exec_class(&rs, "/usr/lib"), AC_EXEC_PROG);
	cr_assert_eq(rules_exec_class(&rs, "/usr/lib64/libz.so"), AC_EXEC_LIB);
	cr_assert_eq(rules_exec_class(&rs, "/usr/lib64/tool"), AC_EXEC_PROG);
	cr_assert(rules_map_allowed(&rs, "/usr/bin/cat"));
	/* equal length: program wins */
	compile_free_again("exec:\n  allow: [/opt/a]\n  libraries: [/opt/a]\n");
	cr_assert_eq(rs.nexec, 1);
	cr_assert_eq(rules_exec_class(&rs, "/opt/a/b"), AC_EXEC_PROG);
}

/* no file rules: an empty trie (build_trie once copied from a NULL list),
 * every path without a class, and the exec rules still there */
Test(rules, no_file_rules)
{
	compile("name: empty\nexec:\n  allow: [/usr/bin/env]\n");
	cr_assert_eq(rs.nfiles, 0);
	cr_assert_eq(rs.ntrie, 0);
	cr_assert_eq(rules_file_class(&rs, "/usr"), AC_NONE);
	cr_assert_eq(rules_trie_value(&rs, "/"), 0);
	cr_assert(rules_exec_allowed(&rs, "/usr/bin/env"));
}

/* The directories above a unix rule are marked as having a rule below (a
 * rename of one would move the rule's names), and a unix path rule's names
 * carry AC_UNIX (a directory or socket renamed under it would become
 * connectable); the file classes stay those of the file rules. */
Test(rules, unix_rules_mark_the_file_trie)
{
	uint32_t cls;

	compile("files:\n  write: [/w]\n"
		"network:\n  unix: [/w/pub/in, '@abstract']\n");
	cr_assert_not(rules_dir_uniform(&rs, "/w/pub", &cls));    /* the unix rule below */
	cr_assert_eq(cls, AC_WRITE);
	cr_assert(rules_dir_uniform(&rs, "/w/evil", &cls));
	cr_assert_eq(rules_file_class(&rs, "/w/pub/in/x"), AC_WRITE);
	cr_assert(rules_trie_value(&rs, "/w/pub/in") & AC_UNIX);
	cr_assert(rules_trie_value(&rs, "/w/pub/in/deep/s.sock") & AC_UNIX);
	cr_assert_eq(rules_file_class(&rs, "/w/pub/in/s.sock"), AC_WRITE);
	cr_assert_not(rules_trie_value(&rs, "/w/pub/s.sock") & AC_UNIX);
	cr_assert_not(rules_trie_value(&rs, "/w/priv/s.sock") & AC_UNIX);
	cr_assert_not(rules_trie_value(&rs, "/w") & AC_UNIX);
}

Test(rules, long_paths_match_on_their_prefix)
{
	char path[4096];
	size_t n;

	compile("files:\n  read: [/deep]\n");
	strcpy(path, "/deep");
	for (n = strlen(path); n < 4000; n += 4)
		strcat(path, "/abc");
	cr_assert_eq(rules_file_class(&rs, path), AC_READ);
	path[1] = 'D';
	cr_assert_eq(rules_file_class(&rs, path), AC_NONE);
}

Test(rules, key_encoding)
{
	char k[AC_KEY_PATH];

	cr_assert_eq(rules_key("/", 1, k), 1);
	cr_assert_eq(memcmp(k, "/", 1), 0);
	cr_assert_eq(rules_key("/etc", 4, k), 5);
	cr_assert_eq(memcmp(k, "/etc/", 5), 0);
}

/* The trie with its markers gives every path the class of the rules alone,
 * and a directory it calls uniform gives each name in it that class. */
Test(rules, trie_markers_keep_classes_and_mark_uniform_directories)
{
	static const char *paths[] = { "/", "/usr", "/usr/bin", "/usr/bin/ls", "/usr/local",
		"/usr/local/bin", "/usr/local/bin/x", "/etc", "/etc/ssl", "/etc/ssl/private",
		"/etc/ssl/private/key", "/etc/ssl/private/ok", "/etc/ssl/private/ok/a", "/work",
		"/workshop", "/home/agent/proj", "/home/agent/proj/src/a.c", "/home", "/tmp" };
	static const char *names[] = { "a", "ok", "local", "private", "bin", "proj", "src" };
	size_t npaths = sizeof(paths) / sizeof(paths[0]), nnames = sizeof(names) / sizeof(names[0]);
	uint32_t cls;

	compile("files:\n  read: [/usr, /etc/ssl/private/ok, /]\n  write: [/usr/local, \"${CWD}\"]\n"
		"  deny: [/etc/ssl/private, /work]\n");
	for (size_t i = 0; i < npaths; i++) {
		cr_expect_eq(rules_trie_value(&rs, paths[i]) & AC_CLASS_MASK,
			     rules_file_class(&rs, paths[i]), "%s", paths[i]);
		if (!rules_dir_uniform(&rs, paths[i], &cls))
			continue;
		cr_expect_eq(cls, rules_file_class(&rs, paths[i]), "%s", paths[i]);
		for (size_t j = 0; j < nnames; j++) {
			char child[256];

			snprintf(child, sizeof(child), "%s/%s", strcmp(paths[i], "/") ? paths[i] : "",
				 names[j]);
			cr_expect_eq(rules_file_class(&rs, child), cls, "%s", child);
		}
	}
	/* directories with a rule below them are not uniform */
	cr_assert_not(rules_dir_uniform(&rs, "/", &cls));
	cr_assert_not(rules_dir_uniform(&rs, "/usr", &cls));
	cr_assert_not(rules_dir_uniform(&rs, "/etc/ssl", &cls));
	cr_assert_not(rules_dir_uniform(&rs, "/etc/ssl/private", &cls));
	cr_assert_not(rules_dir_uniform(&rs, "/home/agent", &cls));
	/* and the others are */
	cr_assert(rules_dir_uniform(&rs, "/usr/local", &cls));
	cr_assert_eq(cls, AC_WRITE);
	cr_assert(rules_dir_uniform(&rs, "/usr/bin", &cls));
	cr_assert_eq(cls, AC_READ);
	cr_assert(rules_dir_uniform(&rs, "/etc/ssl/private/ok", &cls));
	cr_assert_eq(cls, AC_READ);
	cr_assert(rules_dir_uniform(&rs, "/tmp", &cls));
	cr_assert_eq(cls, AC_READ);
	cr_assert(rules_dir_uniform(&rs, "/home/agent/proj/src", &cls));
	cr_assert_eq(cls, AC_WRITE);
}

/* the agent's own pty is granted, and nothing beside it */
Test(rules, own_tty_granted_alone)
{
	char err[512];
	const char *text = "files:\n  read: [/usr]\n  deny: [/dev]\n";
	struct rule_vars v = { .cwd = "/w", .cage_tmp = "/t", .own_tty = "/dev/pts/3" };

	cr_assert_eq(policy_parse("t.yaml", text, strlen(text), &pol, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(rules_compile(&pol, &v, 0, &rs, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(rules_file_class(&rs, "/dev/pts/3"), AC_WRITE);
	cr_assert_eq(rules_trie_value(&rs, "/dev/pts/3") & AC_CLASS_MASK, AC_WRITE);
	cr_assert_eq(rules_file_class(&rs, "/dev/pts/30"), AC_DENY);
	cr_assert_eq(rules_file_class(&rs, "/dev/pts/4"), AC_DENY);
	cr_assert_eq(rules_file_class(&rs, "/dev/pts"), AC_DENY);
	cr_assert_eq(rules_file_class(&rs, "/dev/tty"), AC_DENY);
}

/* the symlink-free forms the compiler adds (resolve_links), through its
 * memo of a directory, are exactly those of realpath(3) itself */
Test(rules, resolve_links_as_realpath)
{
	static const char *const rel[] = {
		"link/dir/file", "link/dir/flink", "link/dir/dangling", "link/dir/missing",
		"link/dir/sub", "link/dir/sub/deeper", "nodir/a",
		"nodir/b", "real/afile/x", "real/afile", "link", "real/dir/file", "loop/a",
		"link/dir/file", "dlink/x", "link/dir/dlink2/file", "nodir/x/y", "nodir/x/z",
		"nodirect/uniq", "real/dir/dangling/x/y", "real/dir/dangling/x/z", "deep/a/b/c/d",
		"deep/a/b/e", "link/dir/sub",
	};
	enum { N = sizeof(rel) / sizeof(rel[0]) };
	char t[] = "/tmp/ac-resolve-XXXXXX", p[PATH_MAX], err[512], *text;
	char forms[2 * N][PATH_MAX];
	size_t nforms = 0, len = 0;
	struct rule_vars v = { 0 };
	FILE *f;

	cr_assert(mkdtemp(t));
	snprintf(p, sizeof(p), "mkdir -p %s/real/dir/sub && touch %s/real/dir/file %s/real/afile %s/real/uniq && "
		 "ln -s real %s/link && ln -s file %s/real/dir/flink && ln -s nowhere "
		 "%s/real/dir/dangling && ln -s loop %s/loop && ln -s real/dir %s/dlink && "
		 "ln -s ../dir %s/real/dir/dlink2 && ln -s real %s/nodirect", t, t, t, t, t, t, t, t, t, t, t);
	cr_assert_eq(system(p), 0);
	f = open_memstream(&text, &len);
	fprintf(f, "files:\n  read: [");
	for (size_t i = 0; i < N; i++)
		fprintf(f, "%s'%s/%s'", i ? ", " : "", t, rel[i]);
	fprintf(f, "]\n");
	fclose(f);
	cr_assert_eq(policy_parse("t.yaml", text, strlen(text), &pol, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(rules_compile(&pol, &v, 1, &rs, err, sizeof(err)), 0, "%s", err);
	/* what realpath says: every path, and its resolved form where it has one */
	for (size_t i = 0; i < N; i++) {
		char norm[PATH_MAX], real[PATH_MAX];
		const char *add[2] = { norm, NULL };

		snprintf(p, sizeof(p), "%s/%s", t, rel[i]);
		cr_assert_eq(rules_expand(p, &v, norm, sizeof(norm), err, sizeof(err)), 0, "%s", err);
		if (realpath(norm, real) && strcmp(real, norm))
			add[1] = real;
		for (int k = 0; k < 2 && add[k]; k++) {
			size_t j = 0;

			while (j < nforms && strcmp(forms[j], add[k]))
				j++;
			if (j == nforms)
				snprintf(forms[nforms++], PATH_MAX, "%s", add[k]);
		}
	}
	for (size_t j = 0; j < nforms; j++) {
		char key[AC_KEY_PATH + 1];
		size_t kl = rules_key(forms[j], strlen(forms[j]), key);
		int found = 0;

		for (size_t r = 0; r < rs.nfiles && !found; r++)
			found = rs.files[r].len == kl && !memcmp(rs.files[r].key, key, kl);
		cr_assert(found, "%s has no rule", forms[j]);
	}
	cr_assert_eq(rs.nfiles, nforms, "%zu rules for %zu forms", rs.nfiles, nforms);
	free(text);
	snprintf(p, sizeof(p), "rm -rf %s", t);
	cr_assert_eq(system(p), 0);
}

/* a map of trie entries, as the kernel holds them: key -> value */
struct sim {
	struct rule r[256];
	size_t n;
};

static struct rule *sim_find(struct sim *m, const struct rule *k)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->r[i].len == k->len && !memcmp(m->r[i].key, k->key, k->len))
			return &m->r[i];
	return NULL;
}

static void sim_put(struct sim *m, const struct rule *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct rule *f = sim_find(m, &r[i]);

		if (!f) {
			cr_assert_lt(m->n, 256);
			f = &m->r[m->n++];
		}
		*f = r[i];
	}
}

static void sim_del(struct sim *m, const struct rule *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct rule *f = sim_find(m, &r[i]);

		cr_assert_not_null(f, "a deletion of a key the map lacks: %.*s", (int)r[i].len,
				   r[i].key);
		*f = m->r[--m->n];
	}
}

/* the map is exactly l: every key of l with its value, nothing else */
static void sim_is(struct sim *m, const struct rule *l, size_t n)
{
	cr_assert_eq(m->n, n);
	for (size_t i = 0; i < n; i++) {
		struct rule *f = sim_find(m, &l[i]);

		cr_assert_not_null(f, "%.*s is missing", (int)l[i].len, l[i].key);
		cr_assert_eq(f->cls, l[i].cls, "%.*s", (int)l[i].len, l[i].key);
	}
}

/* Policy a's trie turned into b's by rules_delta: the result is b's trie
 * exactly, and only what differs is written. */
Test(rules, delta_turns_one_trie_into_another)
{
	static const char *a = "files:\n  read: [/usr, /etc]\n  write: [/srv/a, /srv/b, /srv/c/d]\n"
			       "  deny: [/etc/shadow]\nexec:\n  allow: [/usr/bin/env, /bin/sh]\n";
	static const char *b = "files:\n  read: [/usr, /etc, /srv/b]\n  write: [/srv/a, /srv/c/d, /srv/e]\n"
			       "exec:\n  allow: [/usr/bin/env, /usr/bin/python3]\n";
	struct ruleset ra;
	struct rule_delta d, x;
	static struct sim m, mx;

	compile(a);
	ra = rs;
	memset(&rs, 0, sizeof(rs));
	compile_free_again(b);
	m.n = mx.n = 0;
	sim_put(&m, ra.trie, ra.ntrie);
	sim_put(&mx, ra.exec, ra.nexec);
	cr_assert_eq(rules_delta(ra.trie, ra.ntrie, rs.trie, rs.ntrie, &d), 0);
	cr_assert_eq(rules_delta(ra.exec, ra.nexec, rs.exec, rs.nexec, &x), 0);
	sim_del(&m, d.del, d.ndel);
	sim_put(&m, d.put, d.nput);
	sim_del(&mx, x.del, x.ndel);
	sim_put(&mx, x.put, x.nput);
	sim_is(&m, rs.trie, rs.ntrie);
	sim_is(&mx, rs.exec, rs.nexec);
	/* /srv/b changed class, /srv/e came, /etc/shadow went, and markers
	 * with them: a few entries, not the whole trie again */
	cr_assert_gt(d.nput, 0);
	cr_assert_gt(d.ndel, 0);
	cr_assert_lt(d.nput + d.ndel, rs.ntrie);
	cr_assert_eq(x.nput, 1);   /* python3 */
	cr_assert_eq(x.ndel, 1);   /* /bin/sh */
	rules_delta_free(&d);
	rules_delta_free(&x);
	/* nothing differs: nothing to write */
	cr_assert_eq(rules_delta(rs.trie, rs.ntrie, rs.trie, rs.ntrie, &d), 0);
	cr_assert_eq(d.nput + d.ndel, 0);
	rules_delta_free(&d);
	/* from nothing: everything is put */
	cr_assert_eq(rules_delta(NULL, 0, rs.trie, rs.ntrie, &d), 0);
	cr_assert_eq(d.nput, rs.ntrie);
	cr_assert_eq(d.ndel, 0);
	rules_delta_free(&d);
	rules_free(&ra);
}
