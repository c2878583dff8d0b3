// SPDX-License-Identifier: GPL-2.0-only
/* Rules: a policy compiled into trie entries, and the same matching in C. */
#ifndef AGENTCAGE_RULES_H
#define AGENTCAGE_RULES_H
#include <stddef.h>
#include <stdint.h>
#include "agentcage/cage.h"
#include "agentcage/pattern.h"
#include "policy/policy.h"

/* A rule is 24 bytes, its key elsewhere: in the ruleset's key store, a
 * trie marker's key the front of a rule's (a 10,000-rule policy had taken
 * 2.8 MB an array with the key inside, each new page of which the kernel
 * zeroes on every reload). */
struct rule {
	const char *key;             /* path with a final '/', as in the trie: len bytes, not
	                              * NUL-terminated (a marker's is the front of a rule's) */
	uint32_t len;                /* bytes of key */
	uint32_t cls;                /* enum ac_class, or enum ac_exec_class */
	uint32_t hash;               /* rules_compile's hash of key[0..len); rules_delta finds
	                              * keys by it: a rule made elsewhere is never found */
};

struct rule_keys;                    /* rules.c: the chunks keys are stored in */

/* compiled patterns (include/agentcage/pattern.h), at most AC_PAT_MAX */
struct patlist {
	struct ac_pattern *p;
	size_t n;
};

struct ruleset {
	struct rule *files, *exec;
	size_t nfiles, nexec;
	struct rule *trie;           /* the file trie: files and markers, cls a trie value */
	size_t ntrie;
	struct rule *unix_peers;     /* network.unix: socket paths and @abstract names */
	size_t nunix;
	struct rule_keys *keys;      /* every key of the arrays above */
	/* patterns: files (cls enum ac_class), exec (enum ac_exec_class), and
	 * the live prefixes of the file patterns (AC_PK_LIVE) */
	struct patlist fpat, xpat, live;
};

struct rule_vars {
	const char *cwd;       /* ${CWD} */
	const char *cage_tmp;  /* ${CAGE_TMP} */
	const char *own_tty;   /* the agent's own pty (/dev/pts/N), granted read and
	                        * write implicitly; NULL: none */
};

/* Compile p; with resolve_links, an entry whose path exists also covers its
 * symlink-free form (realpath), since the kernel reports resolved paths. */
int rules_compile(const struct policy *p, const struct rule_vars *vars, int resolve_links,
		  struct ruleset *rs, char *err, size_t errlen);
void rules_free(struct ruleset *rs);

/* What turns one array of rules into another (two tries, or two exec
 * lists, of rules_compile's): put, the rules of the new array whose key
 * the old one lacks or holds with another class; del, the rules of the old
 * array whose key the new one lacks. A policy written into the maps as old
 * becomes new with del deleted and put written, in either order. */
struct rule_delta {
	struct rule *put, *del;
	size_t nput, ndel;
};
/* Each array's keys are unique, and each rule's hash is set (as
 * rules_compile makes them). 0, or -1 (no memory) with d empty;
 * rules_delta_free frees d. d's rules point at the two arrays' keys. */
int rules_delta(const struct rule *old, size_t nold, const struct rule *new, size_t nnew,
		struct rule_delta *d);
void rules_delta_free(struct rule_delta *d);

/* A policy path with its ${VAR}s expanded and normalised (no repeated or
 * trailing '/'), as the compiler stores it; -1 with err on a bad path. */
int rules_expand(const char *in, const struct rule_vars *v, char *out, size_t outlen,
		 char *err, size_t errlen);

/* rules_expand for a files or exec entry, which may be a pattern that
 * starts with "**" (then at any depth: "/" is put in front) */
int rules_expand_entry(const char *in, const struct rule_vars *v, char *out, size_t outlen,
		       char *err, size_t errlen);

/* The trie key bytes of an absolute path: path + '/', truncated to AC_KEY_PATH. */
size_t rules_key(const char *path, size_t len, char *out);

/* Longest-match lookups, as the kernel does them (patterns included). */
uint32_t rules_file_class(const struct ruleset *rs, const char *path);
/* The file class of path with the weight of what decides it (the key
 * length of the entry, or of the prefix a pattern matched; 0: nothing),
 * and with *pat the deciding pattern's index in rs->fpat (-1: an entry). */
uint32_t rules_file_decide(const struct ruleset *rs, const char *path, uint32_t *weight,
			   int *pat);
/* Would renaming directory `from` to `to` change which file patterns
 * match beneath it (the kernel refuses it then: rename_moves_rules)? */
int rules_rename_moves_patterns(const struct ruleset *rs, const char *from, const char *to);
/* The trie value the kernel finds for path (0: none), as the programs do it. */
uint32_t rules_trie_value(const struct ruleset *rs, const char *path);
/* Do all names in directory dir get one class, by the trie (the programs'
 * directory cache test)? Then *cls is that class. */
int rules_dir_uniform(const struct ruleset *rs, const char *dir, uint32_t *cls);
/* The exec trie value for path (enum ac_exec_class, 0: none); may it be
 * executed (a program), may it be mapped as code (a program or library)? */
uint32_t rules_exec_class(const struct ruleset *rs, const char *path);
int rules_exec_allowed(const struct ruleset *rs, const char *path);
int rules_map_allowed(const struct ruleset *rs, const char *path);
/* May a caged task reach the unix socket at path, or "@name" (abstract)? */
int rules_unix_allowed(const struct ruleset *rs, const char *name, size_t len);
#endif
