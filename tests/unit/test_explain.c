// SPDX-License-Identifier: GPL-2.0-only
/* check --explain's decisions: against the kernel's userspace twin and a
 * brute-force reading of the policy's lists, on hand-picked and generated
 * policies. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "agentcage/cage.h"
#include "policy/compile.h"
#include "policy/explain.h"
#include "policy/rules.h"

static const struct rule_vars vars = { .cwd = "/home/agent/proj", .cage_tmp = "/tmp/ac-X" };

static void compile(const char *t, struct compiled_policy *c, int resolve_links)
{
	struct policy_source s = { .text = t, .len = strlen(t), .name = "inline",
				   .mode = MODE_UNSET, .vars = &vars,
				   .resolve_links = resolve_links };
	struct ac_error e;

	cr_assert_eq(policy_compile(&s, c, &e), 0, "%s", e.msg);
}

static struct explanation explain(const struct compiled_policy *c, const char *path, int op)
{
	struct explanation x;

	cr_assert_eq(policy_explain(c, &vars, path, op, &x), 0);
	return x;
}

Test(explain, deny_inside_read_names_both)
{
	struct compiled_policy c;
	struct explanation x;

	compile("files:\n  read: [/etc, \"${CWD}\"]\n  deny: [/etc/shadow]\n", &c, 0);
	x = explain(&c, "/etc/shadow", EXPLAIN_READ);
	cr_assert(!x.allowed);
	cr_assert_str_eq(x.file.list, "files.deny");
	cr_assert_str_eq(x.file.entry, "/etc/shadow");
	cr_assert_eq(x.nbeaten, 1);
	cr_assert_str_eq(x.beaten[0].list, "files.read");
	cr_assert_str_eq(x.beaten[0].entry, "/etc");
	x = explain(&c, "/etc/shadowx", EXPLAIN_READ);   /* a sibling, not below */
	cr_assert(x.allowed);
	cr_assert_str_eq(x.file.entry, "/etc");
	x = explain(&c, "/home/agent/proj/a.c", EXPLAIN_WRITE);
	cr_assert(!x.allowed);
	cr_assert_str_eq(x.file.entry, "${CWD}");
	cr_assert_str_eq(x.file.path, "/home/agent/proj");
	x = explain(&c, "/opt/x", EXPLAIN_READ);
	cr_assert(!x.allowed && !x.file.list && !x.implicit && !x.nbeaten);
	compiled_policy_free(&c);
}

/* the same path in several lists: deny beats write beats read */
Test(explain, tie_deny_write_read)
{
	struct compiled_policy c;
	struct explanation x;

	compile("files:\n  read: [/w, /d]\n  write: [/w, /d]\n  deny: [/d]\n", &c, 0);
	x = explain(&c, "/w/f", EXPLAIN_WRITE);
	cr_assert(x.allowed);
	cr_assert_str_eq(x.file.list, "files.write");
	cr_assert_str_eq(x.beaten[0].list, "files.read");
	x = explain(&c, "/d/f", EXPLAIN_READ);
	cr_assert(!x.allowed);
	cr_assert_str_eq(x.file.list, "files.deny");
	cr_assert_eq(x.nbeaten, 2);
	cr_assert_str_eq(x.beaten[0].list, "files.write");
	cr_assert_str_eq(x.beaten[1].list, "files.read");
	compiled_policy_free(&c);
}

/* exec needs an open for reading and an exec.allow entry; a library entry
 * alone lets code be mapped, never run */
Test(explain, exec_needs_read_and_program)
{
	struct compiled_policy c;
	struct explanation x;

	compile("files:\n  read: [/usr]\n  write: [/tmp]\n  deny: [/usr/bin/secret]\n"
		"exec:\n  allow: [/usr/bin, /tmp/tools]\n  libraries: [/usr/lib]\n", &c, 0);
	x = explain(&c, "/usr/bin/python3", EXPLAIN_EXEC);
	cr_assert(x.allowed);
	cr_assert_str_eq(x.file.entry, "/usr");
	cr_assert_str_eq(x.exec.entry, "/usr/bin");
	x = explain(&c, "/usr/lib/ld.so", EXPLAIN_EXEC);
	cr_assert(!x.allowed && !x.exec.list);
	x = explain(&c, "/usr/bin/secret", EXPLAIN_EXEC);
	cr_assert(!x.allowed);
	cr_assert_str_eq(x.exec.entry, "/usr/bin");   /* would run, cannot be opened */
	cr_assert_str_eq(x.file.list, "files.deny");
	x = explain(&c, "/opt/tools/x", EXPLAIN_EXEC);
	cr_assert(!x.allowed && !x.file.list && !x.exec.list);
	x = explain(&c, "/tmp/tools/x", EXPLAIN_EXEC);
	cr_assert(x.allowed);
	compiled_policy_free(&c);
}

/* an entry through a symlink decides for the path the kernel sees */
Test(explain, symlink_free_form)
{
	char dir[] = "/tmp/ac-explain-XXXXXX", real[PATH_MAX], link[PATH_MAX], pol[3 * PATH_MAX];
	char path[PATH_MAX + 16];
	struct compiled_policy c;
	struct explanation x;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(real, sizeof(real), "%s/real", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	cr_assert_eq(mkdir(real, 0700), 0);
	snprintf(path, sizeof(path), "%s/secret", real);
	cr_assert_eq(mkdir(path, 0700), 0);   /* a rule resolves what exists */
	cr_assert_eq(symlink(real, link), 0);
	snprintf(pol, sizeof(pol), "files:\n  read: [%s]\n  deny: [%s/secret]\n", dir, link);
	compile(pol, &c, 1);
	snprintf(path, sizeof(path), "%s/secret/k", real);
	x = explain(&c, path, EXPLAIN_READ);
	cr_assert(!x.allowed);
	cr_assert_str_eq(x.file.list, "files.deny");
	cr_assert(strstr(x.file.entry, "/link/secret"));
	cr_assert(strstr(x.file.path, "/real/secret"), "%s", x.file.path);
	cr_assert_eq(rules_file_class(&c.rs, path), AC_DENY);   /* as the twin */
	compiled_policy_free(&c);
	unlink(link);
	snprintf(path, sizeof(path), "%s/secret", real);
	rmdir(path);
	rmdir(real);
	rmdir(dir);
}

/* the brute-force reading of the lists: the longest covering entry, on a
 * tie the strongest class */
static uint32_t reference(char *const lists[3][8], const size_t n[3], const char *path)
{
	size_t best = 0, plen = strlen(path);
	uint32_t cls = AC_NONE;

	for (int l = 0; l < 3; l++)
		for (size_t i = 0; i < n[l]; i++) {
			size_t len = strlen(lists[l][i]);

			if (len > plen || memcmp(lists[l][i], path, len) ||
			    (path[len] && path[len] != '/'))
				continue;
			if (len > best || (len == best && (uint32_t)l + 1 > cls)) {
				best = len;
				cls = (uint32_t)l + 1;   /* AC_READ, AC_WRITE, AC_DENY */
			}
		}
	return cls;
}

/* generated policies over a small tree: explain, the twin and the
 * reference agree on every path of the tree and below */
Test(explain, generated_agree_with_twin_and_reference)
{
	static char *tree[] = { "/a", "/a/b", "/a/b/c", "/a/bc", "/a/c", "/b", "/b/a", "/ab" };
	static const char *names[] = { "read", "write", "deny" };
	unsigned seed = 21;

	for (int round = 0; round < 400; round++) {
		char *lists[3][8];
		size_t n[3] = { 0 };
		char text[1024], *p = text;
		struct compiled_policy c;

		p += sprintf(p, "files:\n");
		for (int l = 0; l < 3; l++) {
			p += sprintf(p, "  %s: [", names[l]);
			for (int k = rand_r(&seed) % 4; k > 0; k--) {
				lists[l][n[l]] = tree[rand_r(&seed) % 8];
				p += sprintf(p, "%s%s", n[l] ? ", " : "", lists[l][n[l]]);
				n[l]++;
			}
			p += sprintf(p, "]\n");
		}
		compile(text, &c, 0);
		for (int t = 0; t < 8; t++) {
			char path[64];

			for (int deeper = 0; deeper < 2; deeper++) {
				uint32_t ref, twin;
				struct explanation r, w;

				snprintf(path, sizeof(path), "%s%s", tree[t], deeper ? "/f" : "");
				ref = reference(lists, n, path);
				twin = rules_file_class(&c.rs, path);
				r = explain(&c, path, EXPLAIN_READ);
				w = explain(&c, path, EXPLAIN_WRITE);
				cr_assert_eq(twin, ref, "%s: twin %u, reference %u\n%s", path, twin, ref, text);
				cr_assert_eq(r.file.cls, ref, "%s\n%s", path, text);
				cr_assert_eq(r.allowed, ref == AC_READ || ref == AC_WRITE, "%s\n%s", path, text);
				cr_assert_eq(w.allowed, ref == AC_WRITE, "%s\n%s", path, text);
				cr_assert_eq(!!r.file.list, ref != AC_NONE, "%s\n%s", path, text);
				for (size_t b = 0; b < r.nbeaten; b++)
					cr_assert(r.beaten[b].len < r.file.len ||
						  (r.beaten[b].len == r.file.len &&
						   r.beaten[b].cls <= r.file.cls), "%s\n%s", path, text);
			}
		}
		compiled_policy_free(&c);
	}
}

/* an event's "rule": the entry that refused it, the default deny, or
 * nothing where the policy itself allows it or decides no such op */
static const char *rule_of(const struct compiled_policy *c, uint32_t op, const char *path)
{
	static char buf[PATH_MAX + 32];

	return explain_event_rule(c, &vars, op, path, buf, sizeof(buf)) ? buf : NULL;
}

Test(explain, event_rules)
{
	struct compiled_policy c;

	compile("files:\n  read: [/usr, /etc]\n  write: [\"${CWD}\"]\n"
		"  deny: [/etc/shadow, \"**/.env\"]\nexec:\n  allow: [/usr/bin]\n", &c, 0);
	cr_assert_str_eq(rule_of(&c, AC_OP_OPEN_READ, "/etc/shadow"), "files.deny: /etc/shadow");
	cr_assert_str_eq(rule_of(&c, AC_OP_OPEN_READ, "/home/agent/proj/x/.env"),
			 "files.deny: **/.env");
	cr_assert_str_eq(rule_of(&c, AC_OP_OPEN_READ, "/opt/x"), "default-deny");
	cr_assert_str_eq(rule_of(&c, AC_OP_CREATE, "/usr/new"), "files.read: /usr");
	cr_assert_str_eq(rule_of(&c, AC_OP_UNLINK, "/home/agent/proj/.env"), "files.deny: **/.env");
	cr_assert_str_eq(rule_of(&c, AC_OP_EXEC, "/usr/lib/x/tool"), "default-deny");
	cr_assert_str_eq(rule_of(&c, AC_OP_EXEC, "/opt/tool"), "default-deny");
	/* what the policy allows was refused by something else (the baseline) */
	cr_assert_null(rule_of(&c, AC_OP_OPEN_READ, "/usr/lib/x"));
	cr_assert_null(rule_of(&c, AC_OP_CREATE, "/home/agent/proj/a.c"));
	cr_assert_null(rule_of(&c, AC_OP_EXEC, "/usr/bin/ls"));
	/* ops no file rule decides, and a path that is none */
	cr_assert_null(rule_of(&c, AC_OP_MMAP_EXEC, "/opt/lib.so"));
	cr_assert_null(rule_of(&c, AC_OP_CONNECT, "/opt/x"));
	cr_assert_null(rule_of(&c, AC_OP_OPEN_READ, "x"));
	compiled_policy_free(&c);
}

/* an event of cage cgid, op on path, through the memo */
static const char *memo(struct explain_memo *m, uint64_t cgid, uint32_t gen,
			const struct compiled_policy *c, uint32_t op, const char *path)
{
	static struct ac_event e;

	memset(&e, 0, sizeof(e));
	e.cgroup = cgid;
	e.op = op;
	e.path_len = strlen(path);
	memcpy(e.path, path, e.path_len);
	return explain_event_rule_memo(m, &e, gen, c, &vars);
}

/* the memo answers a repeat from memory, and a new generation (a reload)
 * or another path afresh */
Test(explain, event_rule_memo)
{
	static struct explain_memo m;
	struct compiled_policy a, b;

	compile("files:\n  read: [/etc]\n  deny: [/etc/shadow]\n", &a, 0);
	compile("files:\n  read: [/etc]\n", &b, 0);
	cr_assert_str_eq(memo(&m, 7, 1, &a, AC_OP_OPEN_READ, "/etc/shadow"),
			 "files.deny: /etc/shadow");
	/* the same cage, generation and path: the answer of a, even given b */
	cr_assert_str_eq(memo(&m, 7, 1, &b, AC_OP_OPEN_READ, "/etc/shadow"),
			 "files.deny: /etc/shadow");
	cr_assert_null(memo(&m, 7, 2, &b, AC_OP_OPEN_READ, "/etc/shadow"));
	cr_assert_str_eq(memo(&m, 7, 2, &b, AC_OP_CREATE, "/etc/x"),
			 "files.read: /etc");
	cr_assert_str_eq(memo(&m, 8, 2, &a, AC_OP_CREATE, "/etc/x"),
			 "files.read: /etc");
	cr_assert_str_eq(memo(&m, 8, 2, &a, AC_OP_OPEN_READ, "/etc/shadow"),
			 "files.deny: /etc/shadow");
	compiled_policy_free(&a);
	compiled_policy_free(&b);
}
