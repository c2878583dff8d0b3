// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "enforce/landlock.h"
#include "enforce/landlock_uapi.h"
#include "policy/lint.h"

int ac_landlock_abi(int *err)
{
	static int abi = -1, abi_err;

	if (abi < 0) {
		long v = syscall(SYS_landlock_create_ruleset, NULL, 0,
				 LANDLOCK_CREATE_RULESET_VERSION);

		abi_err = v < 0 ? errno : 0;
		abi = v < 0 ? 0 : (int)v;
	}
	if (err)
		*err = abi_err;
	return abi;
}

/* every right this ABI knows, on directories (dir) or on files */
static uint64_t ll_known(int abi, int dir)
{
	uint64_t a = AC_LL_FS_EXECUTE | AC_LL_FS_WRITE_FILE | AC_LL_FS_READ_FILE;

	if (abi >= 3)
		a |= AC_LL_FS_TRUNCATE;
	if (abi >= 5)
		a |= AC_LL_FS_IOCTL_DEV;
	if (dir) {
		a |= AC_LL_FS_READ_DIR | AC_LL_FS_REMOVE_DIR | AC_LL_FS_REMOVE_FILE |
		     AC_LL_FS_MAKE_CHAR | AC_LL_FS_MAKE_DIR | AC_LL_FS_MAKE_REG | AC_LL_FS_MAKE_SOCK |
		     AC_LL_FS_MAKE_FIFO | AC_LL_FS_MAKE_BLOCK | AC_LL_FS_MAKE_SYM;
		if (abi >= 2)
			a |= AC_LL_FS_REFER;
	}
	return a;
}

/* The rights of a file class: read covers reading (and the device ioctls
 * the BPF LSM enforcer leaves alone too); write everything but making
 * device nodes, which a cage never may. */
static uint64_t ll_rights(uint32_t cls, int abi, int dir)
{
	uint64_t a = 0;

	if (cls == AC_READ || cls == AC_WRITE)
		a = AC_LL_FS_READ_FILE | AC_LL_FS_READ_DIR | AC_LL_FS_IOCTL_DEV;
	if (cls == AC_WRITE)
		a |= AC_LL_FS_WRITE_FILE | AC_LL_FS_TRUNCATE | AC_LL_FS_REMOVE_DIR |
		     AC_LL_FS_REMOVE_FILE | AC_LL_FS_MAKE_DIR | AC_LL_FS_MAKE_REG |
		     AC_LL_FS_MAKE_SOCK | AC_LL_FS_MAKE_FIFO | AC_LL_FS_MAKE_SYM | AC_LL_FS_REFER;
	return a & ll_known(abi, dir);
}

/* deny < read < write: what a class lets through, in order */
static int rank(uint32_t cls)
{
	return cls == AC_WRITE ? 2 : cls == AC_READ ? 1 : 0;
}

/* a rule's path from its trie key (path + '/', "/" for the root) */
static void rule_path(const struct rule *r, char *out)
{
	size_t n = r->len > 1 ? r->len - 1 : 1;

	memcpy(out, r->key, n);
	out[n] = 0;
}

/* Does a rule strictly beneath path let less through than cls? */
static int narrower_beneath(const struct ruleset *rs, const char *path, uint32_t cls)
{
	size_t n = strlen(path), k = n > 1 ? n + 1 : 1;  /* the key's length */

	for (size_t i = 0; i < rs->nfiles; i++) {
		const struct rule *r = &rs->files[i];

		if (r->len > k && !memcmp(r->key, path, n) && r->key[k - 1] == '/' &&
		    rank(r->cls & AC_CLASS_MASK) < rank(cls))
			return 1;
	}
	return 0;
}

static int is_rule(const struct ruleset *rs, const char *path)
{
	size_t n = strlen(path);

	for (size_t i = 0; i < rs->nfiles; i++)
		if (rs->files[i].len == n + 1 && !memcmp(rs->files[i].key, path, n))
			return 1;
	return 0;
}

#define INTERP_MAX 16         /* distinct ELF interpreters (a host has one or two) */
#define INTERP_SCAN 65536     /* files of the exec.allow directories looked at */

struct build {
	const struct ruleset *rs;
	struct ac_landlock *ll;
	struct ac_error *e;
	char interp[INTERP_MAX][PATH_MAX];   /* resolved; granted EXECUTE */
	size_t ninterp, scanned;
};

/* One rule: access on path (a symlink needs none: its target is decided
 * by the target's own path; a path that does not exist gets none). */
static int add_path(struct build *b, const char *path, uint32_t cls, uint64_t extra)
{
	struct ac_ll_path_beneath pb = { 0 };
	struct stat st;
	int fd = open(path, O_PATH | O_CLOEXEC | O_NOFOLLOW), ret;

	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR || errno == ELOOP ? 0 :
		       ac_error_set(b->e, AC_E_SYSTEM, "landlock: cannot open %s: %s", path,
				    strerror(errno));
	if (fstat(fd, &st) || S_ISLNK(st.st_mode)) {
		close(fd);
		return 0;
	}
	pb.allowed_access = (ll_rights(cls, b->ll->abi, S_ISDIR(st.st_mode)) | extra) &
			    ll_known(b->ll->abi, S_ISDIR(st.st_mode));
	pb.parent_fd = fd;
	if (!pb.allowed_access) {
		close(fd);
		return 0;
	}
	if (++b->ll->nrules > AC_LANDLOCK_MAX_RULES) {
		close(fd);
		return ac_error_set(b->e, AC_E_POLICY_INVALID, "landlock: the policy needs more "
				    "than %d Landlock rules (a narrower entry beneath a large "
				    "directory); use --enforcer bpf-lsm", AC_LANDLOCK_MAX_RULES);
	}
	ret = (int)syscall(SYS_landlock_add_rule, b->ll->fd, AC_LL_RULE_PATH_BENEATH, &pb, 0);
	close(fd);
	if (ret)
		return ac_error_set(b->e, AC_E_SYSTEM, "landlock_add_rule(%s): %s", path,
				    strerror(errno));
	return 0;
}

/* path has class cls by the policy. With a narrower rule beneath it, a
 * right on path would reach that rule's place too: grant what lies beside
 * it instead, one directory level at a time down to it. */
static int emit(struct build *b, const char *path, uint32_t cls)
{
	char child[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int ret = 0;

	if (!narrower_beneath(b->rs, path, cls))
		return add_path(b, path, cls, 0);
	if (!(d = opendir(path)))
		return errno == ENOENT || errno == ENOTDIR ? 0 :
		       ac_error_set(b->e, AC_E_SYSTEM, "landlock: cannot list %s: %s", path,
				    strerror(errno));
	while (!ret && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (snprintf(child, sizeof(child), "%s/%s", strcmp(path, "/") ? path : "",
			     de->d_name) >= (int)sizeof(child) || is_rule(b->rs, child))
			continue;   /* a rule of its own: it is placed as one */
		ret = emit(b, child, cls);
	}
	closedir(d);
	return ret;
}

/* The kernel opens a program's ELF interpreter (ld.so) for execute, which
 * Landlock checks as an execve: each interpreter of an exec.allow program
 * that the policy lets be mapped gets EXECUTE. Run directly, it can map
 * only what the noexec mounts let it. */
static void note_interp(struct build *b, const char *prog)
{
	char in[PATH_MAX], real[PATH_MAX];

	if (lint_elf_interp(prog, in, sizeof(in)) != 1 || !realpath(in, real) ||
	    !rules_map_allowed(b->rs, real))
		return;
	for (size_t i = 0; i < b->ninterp; i++)
		if (!strcmp(b->interp[i], real))
			return;
	if (b->ninterp < INTERP_MAX)
		snprintf(b->interp[b->ninterp++], PATH_MAX, "%s", real);
}

static void scan_interps(struct build *b, const char *path, int depth)
{
	char child[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (lstat(path, &st) || ++b->scanned > INTERP_SCAN)
		return;
	if (S_ISREG(st.st_mode) && (st.st_mode & 0111)) {
		note_interp(b, path);
		return;
	}
	if (!S_ISDIR(st.st_mode) || depth > 4 || !(d = opendir(path)))
		return;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    snprintf(child, sizeof(child), "%s/%s", path, de->d_name) < (int)sizeof(child))
			scan_interps(b, child, depth + 1);
	closedir(d);
}

static int build_rules(struct build *b)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < b->rs->nfiles; i++) {
		uint32_t cls = b->rs->files[i].cls & AC_CLASS_MASK;

		if (cls != AC_READ && cls != AC_WRITE)
			continue;
		rule_path(&b->rs->files[i], path);
		if (emit(b, path, cls))
			return -1;
	}
	/* programs: EXECUTE (execve also needs READ_FILE, from the file rules) */
	for (size_t i = 0; i < b->rs->nexec; i++) {
		if (b->rs->exec[i].cls != AC_EXEC_PROG)
			continue;
		rule_path(&b->rs->exec[i], path);
		if (add_path(b, path, AC_NONE, AC_LL_FS_EXECUTE))
			return -1;
		scan_interps(b, path, 0);
	}
	for (size_t i = 0; i < b->ninterp; i++)
		if (add_path(b, b->interp[i], AC_NONE, AC_LL_FS_EXECUTE))
			return -1;
	return 0;
}

/* ---- the mount namespace: read-only and noexec but where the policy says ---- */

struct want {
	int ro, noexec;
};

static struct want want_of(const struct ruleset *rs, const char *path)
{
	return (struct want){ (rules_file_class(rs, path) & AC_CLASS_MASK) != AC_WRITE,
			      !rules_map_allowed(rs, path) };
}

static int by_length(const void *a, const void *b)
{
	size_t la = strlen(*(char *const *)a), lb = strlen(*(char *const *)b);

	return la < lb ? -1 : la > lb ? 1 : strcmp(*(char *const *)a, *(char *const *)b);
}

/* The flags path has where nothing is bound for it: those of the longest
 * bound path above it (mounts[0..n) are sorted by length), else "/"'s. */
static struct want inherited(const struct ac_landlock *ll, const char *path)
{
	struct want w = { 1, 1 };

	for (size_t i = 0; i < ll->nmounts; i++) {
		size_t n = strlen(ll->mounts[i].path);

		if (!strncmp(path, ll->mounts[i].path, n) && (path[n] == '/' || n == 1))
			w = (struct want){ !!(ll->mounts[i].set & AC_MOUNT_ATTR_RDONLY),
					   !!(ll->mounts[i].set & AC_MOUNT_ATTR_NOEXEC) };
	}
	return w;
}

/* every rule path that exists as a directory or regular file under its
 * own, symlink-free name (the compiler adds the resolved form of the
 * others), sorted by length: parents first */
static char **candidates(const struct ruleset *rs, size_t *n)
{
	size_t total = rs->nfiles + rs->nexec, k = 0;
	char **c = calloc(total + 1, sizeof(char *)), path[PATH_MAX], real[PATH_MAX];
	struct stat st;

	for (size_t i = 0; c && i < total; i++) {
		rule_path(i < rs->nfiles ? &rs->files[i] : &rs->exec[i - rs->nfiles], path);
		if (!realpath(path, real) || strcmp(real, path) || stat(path, &st) ||
		    !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
			continue;
		if (!(c[k++] = strdup(path))) {
			for (size_t j = 0; j + 1 < k; j++)
				free(c[j]);
			free(c);
			return NULL;
		}
	}
	if (!c)
		return NULL;
	qsort(c, k, sizeof(char *), by_length);
	*n = 0;
	for (size_t i = 0; i < k; i++) {   /* each path once (a file and an exec rule) */
		if (*n && !strcmp(c[i], c[*n - 1]))
			free(c[i]);
		else
			c[(*n)++] = c[i];
	}
	return c;
}

static int build_mounts(const struct ruleset *rs, struct ac_landlock *ll, struct ac_error *e)
{
	size_t n = 0;
	char **c = candidates(rs, &n);
	int ret = 0;

	if (!c)
		return ac_error_set(e, AC_E_NOMEM, "out of memory");
	ll->mounts = calloc(n ? n : 1, sizeof(*ll->mounts));
	for (size_t i = 0; i < n; i++) {
		struct want w = want_of(rs, c[i]), up = inherited(ll, c[i]);

		if (!ll->mounts || ret || (w.ro == up.ro && w.noexec == up.noexec)) {
			free(c[i]);
			continue;
		}
		if (ll->nmounts == AC_LANDLOCK_MAX_MOUNTS) {
			ret = ac_error_set(e, AC_E_POLICY_INVALID, "landlock: the policy needs more "
					   "than %d bind mounts; use --enforcer bpf-lsm",
					   AC_LANDLOCK_MAX_MOUNTS);
			free(c[i]);
			continue;
		}
		ll->mounts[ll->nmounts++] = (struct ac_ll_mount){
			.path = c[i],
			.set = (w.ro ? AC_MOUNT_ATTR_RDONLY : 0) | (w.noexec ? AC_MOUNT_ATTR_NOEXEC : 0),
			.clr = (w.ro ? 0 : AC_MOUNT_ATTR_RDONLY) | (w.noexec ? 0 : AC_MOUNT_ATTR_NOEXEC) };
	}
	free(c);
	if (!ll->mounts)
		return ac_error_set(e, AC_E_NOMEM, "out of memory");
	return ret;
}

int ac_landlock_prepare(const struct ruleset *rs, struct ac_landlock *ll, struct ac_error *e)
{
	struct ac_ll_ruleset_attr attr = { 0 };
	struct build *b;
	char why[128];
	int err;

	memset(ll, 0, sizeof(*ll));
	ll->fd = -1;
	ll->abi = ac_landlock_abi(&err);
	if (ll->abi < AC_LANDLOCK_ABI_MIN) {
		if (ll->abi)
			snprintf(why, sizeof(why), "this kernel's Landlock is ABI %d", ll->abi);
		else
			snprintf(why, sizeof(why), "Landlock is not available on this kernel (%s)",
				 strerror(err));
		return ac_error_set(e, AC_E_KERNEL_NO_LANDLOCK, "%s; agentcage's Landlock enforcer "
				    "needs ABI %d or newer (Linux 6.2, 'landlock' in the lsm= list: "
				    "below it a read-only file can still be truncated), or use a "
				    "kernel that loads BPF LSM programs", why, AC_LANDLOCK_ABI_MIN);
	}
	if (!getcwd(ll->cwd, sizeof(ll->cwd)))
		return ac_error_set(e, AC_E_SYSTEM, "cannot read the current directory: %s",
				    strerror(errno));
	b = calloc(1, sizeof(*b));
	attr.handled_access_fs = ll_known(ll->abi, 1);
	if (ll->abi >= 6)
		attr.scoped = AC_LL_SCOPE_ABSTRACT_UNIX_SOCKET | AC_LL_SCOPE_SIGNAL;
	if (ll->abi >= 7)
		ll->restrict_flags = AC_LL_RESTRICT_SELF_LOG_NEW_EXEC_ON;
	if (!b)
		return ac_error_set(e, AC_E_NOMEM, "out of memory");
	*b = (struct build){ .rs = rs, .ll = ll, .e = e };
	ll->fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ll->fd < 0) {
		free(b);
		return ac_error_set(e, AC_E_SYSTEM, "landlock_create_ruleset: %s", strerror(errno));
	}
	if (build_rules(b) || build_mounts(rs, ll, e)) {
		free(b);
		ac_landlock_free(ll);
		return -1;
	}
	free(b);
	return 0;
}

static int setattr(const char *path, uint64_t set, uint64_t clr)
{
	struct ac_mount_attr a = { .attr_set = set, .attr_clr = clr };

	return (int)syscall(SYS_mount_setattr, AT_FDCWD, path, AC_AT_RECURSIVE, &a, sizeof(a));
}

int ac_landlock_mounts(const struct ac_landlock *ll, struct ac_child_fail *f)
{
	if (setattr("/", AC_MOUNT_ATTR_RDONLY | AC_MOUNT_ATTR_NOEXEC, 0))
		return ac_child_fail_set(f, "mount_setattr(/, rdonly noexec)", errno);
	for (size_t i = 0; i < ll->nmounts; i++) {
		const struct ac_ll_mount *m = &ll->mounts[i];

		if (mount(m->path, m->path, NULL, MS_BIND | MS_REC, NULL))
			return ac_child_fail_set(f, "mount(MS_BIND) of a policy path", errno);
		if (setattr(m->path, m->set, m->clr))
			return ac_child_fail_set(f, "mount_setattr of a policy path", errno);
	}
	if (chdir(ll->cwd))
		return ac_child_fail_set(f, "chdir (to the working directory, bound again)", errno);
	return 0;
}

int ac_landlock_restrict(const struct ac_landlock *ll, struct ac_child_fail *f)
{
	if (syscall(SYS_landlock_restrict_self, ll->fd, ll->restrict_flags))
		return ac_child_fail_set(f, "landlock_restrict_self", errno);
	return 0;
}

void ac_landlock_free(struct ac_landlock *ll)
{
	if (ll->fd >= 0)
		close(ll->fd);
	ll->fd = -1;
	for (size_t i = 0; i < ll->nmounts; i++)
		free(ll->mounts[i].path);
	free(ll->mounts);
	ll->mounts = NULL;
	ll->nmounts = 0;
}
