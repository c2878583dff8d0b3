// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE   /* vasprintf */
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harden/identity.h"
#include "policy/lint.h"

static int warn(struct lint *l, const char *fmt, ...)
{
	char **m, *s;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -1;
	m = realloc(l->msgs, (l->n + 1) * sizeof(*m));
	if (!m) {
		free(s);
		return -1;
	}
	l->msgs = m;
	m[l->n++] = s;
	return 0;
}

void lint_free(struct lint *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->msgs[i]);
	free(l->msgs);
	l->msgs = NULL;
	l->n = 0;
}

/* The program headers of a 64- or 32-bit ELF file, read one at a time. */
int lint_elf_interp(const char *path, char *buf, size_t len)
{
	unsigned char id[EI_NIDENT];
	Elf64_Ehdr h;
	Elf32_Ehdr h32;
	int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0;
	uint64_t phoff;
	unsigned phnum, phsize, is64;

	if (fd < 0)
		return 0;
	if (pread(fd, id, sizeof(id), 0) != sizeof(id) || memcmp(id, ELFMAG, SELFMAG))
		goto out;
	is64 = id[EI_CLASS] == ELFCLASS64;
	if (is64 ? pread(fd, &h, sizeof(h), 0) != sizeof(h) : pread(fd, &h32, sizeof(h32), 0) != sizeof(h32))
		goto out;
	phoff = is64 ? h.e_phoff : h32.e_phoff;
	phnum = is64 ? h.e_phnum : h32.e_phnum;
	phsize = is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	for (unsigned i = 0; i < phnum && i < 256; i++) {
		Elf64_Phdr p;
		Elf32_Phdr p32;
		uint64_t off, sz;
		ssize_t n;

		if (pread(fd, is64 ? (void *)&p : (void *)&p32, phsize, phoff + i * phsize) != phsize)
			break;
		if ((is64 ? p.p_type : p32.p_type) != PT_INTERP)
			continue;
		off = is64 ? p.p_offset : p32.p_offset;
		sz = is64 ? p.p_filesz : p32.p_filesz;
		if (sz >= len)
			break;
		n = pread(fd, buf, sz, off);
		if (n <= 0)
			break;
		buf[n] = 0;
		found = buf[0] != 0;
		break;
	}
out:
	close(fd);
	return found;
}

int lint_script_interp(const char *path, char *buf, size_t len)
{
	char line[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	char *p, *e;

	if (fd < 0)
		return 0;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n < 3 || line[0] != '#' || line[1] != '!')
		return 0;
	line[n] = 0;
	for (p = line + 2; *p == ' ' || *p == '\t'; p++)
		;
	for (e = p; *e && *e != ' ' && *e != '\t' && *e != '\n'; e++)
		;
	if (e == p || (size_t)(e - p) >= len)
		return 0;
	memcpy(buf, p, e - p);
	buf[e - p] = 0;
	return 1;
}

/* May the kernel read path, by the file rules? */
static int readable(const struct ruleset *rs, const char *path)
{
	uint32_t c = rules_file_class(rs, path);

	return c == AC_READ || c == AC_WRITE;
}

int lint_program(const struct ruleset *rs, const char *entry, const char *path, struct lint *out)
{
	char in[PATH_MAX], real[PATH_MAX];
	int r = 0;

	if (lint_elf_interp(path, in, sizeof(in))) {
		if (!realpath(in, real))
			return warn(out, "exec.allow '%s': %s needs the interpreter %s, which does "
				    "not exist", entry, path, in);
		if (!rules_map_allowed(rs, real))
			r |= warn(out, "exec.allow '%s': %s needs the interpreter %s (%s), which "
				  "exec.libraries does not cover: it will not start", entry, path, in,
				  real);
		if (!readable(rs, real))
			r |= warn(out, "exec.allow '%s': %s needs the interpreter %s (%s), which "
				  "files.read does not cover: it will not start", entry, path, in, real);
		return r;
	}
	if (!lint_script_interp(path, in, sizeof(in)))
		return 0;
	if (!realpath(in, real))
		return warn(out, "exec.allow '%s': the script %s names the interpreter %s, which "
			    "does not exist", entry, path, in);
	if (!rules_exec_allowed(rs, real))
		r = warn(out, "exec.allow '%s': the script %s names the interpreter %s (%s), which "
			 "exec.allow does not cover: it will not start", entry, path, in, real);
	return r;
}

/* A directory entry: its files, the first few warnings in full. */
static int lint_dir(const struct ruleset *rs, const char *entry, const char *dir, struct lint *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t seen = 0, start = out->n, more = 0;
	int r = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) && seen++ < LINT_DIR_FILES && !r) {
		char path[PATH_MAX], real[PATH_MAX];
		struct stat st;
		struct lint one = { 0 };

		if (de->d_name[0] == '.' ||
		    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path) ||
		    !realpath(path, real) || stat(real, &st) || !S_ISREG(st.st_mode) ||
		    !(st.st_mode & 0111))
			continue;
		r = lint_program(rs, entry, real, &one);
		for (size_t i = 0; i < one.n && !r; i++) {
			if (out->n - start >= LINT_DIR_WARNINGS)
				more++;
			else if (warn(out, "%s", one.msgs[i]))
				r = -1;
		}
		lint_free(&one);
	}
	closedir(d);
	if (more && !r)
		r = warn(out, "exec.allow '%s': %zu more warnings like these in %s", entry, more, dir);
	return r;
}

static int lint_exec(const struct policy *p, const struct ruleset *rs, const struct rule_vars *v,
		     struct lint *out)
{
	for (size_t i = 0; i < p->exec.n; i++) {
		char path[PATH_MAX], real[PATH_MAX], err[256];
		struct stat st;
		int r;

		if (rules_expand(p->exec.items[i], v, path, sizeof(path), err, sizeof(err)) ||
		    !realpath(path, real) || stat(real, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			r = lint_dir(rs, p->exec.items[i], real, out);
		else
			r = lint_program(rs, p->exec.items[i], real, out);
		if (r)
			return -1;
	}
	return 0;
}

/* Is the expanded path one of list's entries? */
static int listed(const struct plist *l, const struct rule_vars *v, const char *path)
{
	char e[PATH_MAX], err[256];

	for (size_t i = 0; i < l->n; i++)
		if (!rules_expand(l->items[i], v, e, sizeof(e), err, sizeof(err)) && !strcmp(e, path))
			return 1;
	return 0;
}

int lint_wx(const struct policy *p, const struct ruleset *rs, const struct rule_vars *v,
	    struct lint *out)
{
	static char *defaults[] = POLICY_DEFAULT_LIBRARIES;
	struct plist dl = { .items = defaults, .n = sizeof(defaults) / sizeof(defaults[0]) };
	const struct plist *libs = p->exec_libs_set ? &p->exec_libs : &dl;
	const struct { const char *key; const struct plist *l; } code[] = {
		{ "exec.allow", &p->exec }, { "exec.libraries", libs } };
	char path[PATH_MAX], err[256];

	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < code[k].l->n; i++)
			if (!rules_expand(code[k].l->items[i], v, path, sizeof(path), err, sizeof(err)) &&
			    rules_file_class(rs, path) == AC_WRITE &&
			    warn(out, "%s '%s' lies inside a write grant: the agent can write what it "
				 "may then run as code (gives up write-xor-execute)", code[k].key,
				 code[k].l->items[i]))
				return -1;
	for (size_t i = 0; i < p->write.n; i++)
		if (!rules_expand(p->write.items[i], v, path, sizeof(path), err, sizeof(err)) &&
		    rules_map_allowed(rs, path) && !listed(&p->exec, v, path) && !listed(libs, v, path) &&
		    warn(out, "files.write '%s' lies inside exec.allow or exec.libraries: the agent can "
			 "write what it may then run as code (gives up write-xor-execute)",
			 p->write.items[i]))
			return -1;
	return 0;
}

int lint_can_write(const char *path, uid_t uid, gid_t gid, char *at, size_t atlen,
		   struct stat *st)
{
	char p[PATH_MAX];
	mode_t need;

	snprintf(p, sizeof(p), "%s", path);
	while (stat(p, st)) {
		char *s = strrchr(p, '/');

		if (!s)
			return 1;
		if (s == p)
			s[1] = 0;
		else
			*s = 0;
	}
	snprintf(at, atlen, "%s", p);
	need = S_ISDIR(st->st_mode) ? 3 : 2;    /* a directory: write and search */
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		need = 2;
	if (st->st_uid == uid)
		return ((st->st_mode >> 6) & need) == need;
	if (st->st_gid == gid)
		return ((st->st_mode >> 3) & need) == need;
	return (st->st_mode & need) == need;
}

/* Write grants the agent's uid cannot write: the policy's user, or the
 * default for whoever runs check (nobody for root, else the caller). */
static int lint_user(const struct policy *p, const struct rule_vars *v, struct lint *out)
{
	struct ac_identity id;
	struct ac_error e;
	char who[POLICY_USER_MAX + 64];

	if (ac_identity_resolve(p->user, getuid(), getgid(), &id, &e) || !id.uid)
		return 0;
	if (p->user[0])
		snprintf(who, sizeof(who), "user '%s'", p->user);
	else
		snprintf(who, sizeof(who), "the default user '%s'", id.name[0] ? id.name : "nobody");
	for (size_t i = 0; i < p->write.n; i++) {
		char path[PATH_MAX], at[PATH_MAX], err[256];
		struct stat st;

		if (strstr(p->write.items[i], "${CAGE_TMP}") ||   /* made for the agent */
		    rules_expand(p->write.items[i], v, path, sizeof(path), err, sizeof(err)) ||
		    lint_can_write(path, id.uid, id.gid, at, sizeof(at), &st))
			continue;
		if (warn(out, "files.write '%s': %s (uid %u) cannot write %s by its permissions "
			 "(owner %u:%u, mode %04o)", p->write.items[i], who, (unsigned)id.uid, at,
			 (unsigned)st.st_uid, (unsigned)st.st_gid, (unsigned)(st.st_mode & 07777)))
			return -1;
	}
	return 0;
}

int policy_lint(const struct policy *p, const char *cwd, struct lint *out)
{
	const struct rule_vars v = { .cwd = cwd && strcmp(cwd, "/") ? cwd : "/CWD",
				     .cage_tmp = "/CAGE_TMP" };
	struct ruleset rs;
	char err[256];
	int r;

	memset(out, 0, sizeof(*out));
	if (rules_compile(p, &v, 1, &rs, err, sizeof(err)))
		return 0;     /* the caller's own compile reports it */
	r = lint_exec(p, &rs, &v, out) || lint_wx(p, &rs, &v, out) || lint_user(p, &v, out);
	rules_free(&rs);
	return r ? -1 : 0;
}
