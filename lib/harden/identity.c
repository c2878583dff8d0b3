// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "harden/identity.h"

static int read_last_cap(struct ac_error *e)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	int n = -1;

	if (!f || fscanf(f, "%d", &n) != 1 || n < 0 || n > 63)
		n = -1;
	if (f)
		fclose(f);
	if (n < 0)
		ac_error_set(e, AC_E_SYSTEM, "cannot read /proc/sys/kernel/cap_last_cap; "
			     "mount /proc to start a cage");
	return n;
}

/* the passwd entry of a name (by_name) or of uid; 0 if found */
static int lookup(const char *name, uid_t uid, struct ac_identity *id, gid_t *gid)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (name)
		getpwnam_r(name, &pw, buf, sizeof(buf), &res);
	else
		getpwuid_r(uid, &pw, buf, sizeof(buf), &res);
	if (!res)
		return -1;
	id->uid = pw.pw_uid;
	*gid = pw.pw_gid;
	snprintf(id->name, sizeof(id->name), "%s", pw.pw_name);
	snprintf(id->home, sizeof(id->home), "%s", pw.pw_dir);
	return 0;
}

static int resolve_user(const char *user, struct ac_identity *id, struct ac_error *e)
{
	char *end;
	unsigned long n;
	gid_t gid;

	if (user[0] < '0' || user[0] > '9') {
		if (lookup(user, 0, id, &gid))
			return ac_error_set(e, AC_E_POLICY_INVALID, "user '%s' does not exist on this "
					    "host; create it (useradd --system %s) or give UID:GID",
					    user, user);
		id->gid = gid;
		return 0;
	}
	n = strtoul(user, &end, 10);
	id->uid = n;
	id->gid = n;
	if (lookup(NULL, id->uid, id, &gid) == 0)
		id->gid = gid;
	if (*end == ':')
		id->gid = strtoul(end + 1, NULL, 10);
	return 0;
}

int ac_identity_resolve(const char *user, uid_t caller_uid, gid_t caller_gid,
			struct ac_identity *id, struct ac_error *e)
{
	gid_t gid;

	memset(id, 0, sizeof(*id));
	if ((id->last_cap = read_last_cap(e)) < 0)
		return -1;
	if (user && *user) {
		if (resolve_user(user, id, e))
			return -1;
	} else if (caller_uid != 0) {
		id->uid = caller_uid;
		id->gid = caller_gid;
		lookup(NULL, caller_uid, id, &gid);
	} else if (lookup("nobody", 0, id, &gid) == 0) {
		id->gid = gid;
	} else {
		id->uid = AC_NOBODY_ID;
		id->gid = AC_NOBODY_ID;
	}
	if (caller_uid != 0 && (id->uid != caller_uid || id->gid != caller_gid))
		return ac_error_set(e, AC_E_PERMISSION, "user '%s' (%u:%u) differs from the caller "
				    "(%u:%u); only root can run an agent as another user", user,
				    (unsigned)id->uid, (unsigned)id->gid, (unsigned)caller_uid,
				    (unsigned)caller_gid);
	id->keep_groups = caller_uid != 0;
	return 0;
}

/* raw capget/capset: the child must not depend on libcap */
static int caps_get(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };

	return syscall(SYS_capget, &h, d);
}

static int caps_clear(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { { 0, 0, 0 }, { 0, 0, 0 } };

	return syscall(SYS_capset, &h, d);
}

#define LOCKED_BITS (SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_KEEP_CAPS_LOCKED | \
		     SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)

/* what only a holder of CAP_SETPCAP can do, before the uid changes */
static int drop_bounding(const struct ac_identity *id, struct ac_child_fail *f)
{
	if (prctl(PR_SET_SECUREBITS, LOCKED_BITS, 0, 0, 0))
		return ac_child_fail_set(f, "prctl(PR_SET_SECUREBITS)", errno);
	for (int i = 0; i <= id->last_cap; i++)
		if (prctl(PR_CAPBSET_DROP, i, 0, 0, 0))
			return ac_child_fail_set(f, "prctl(PR_CAPBSET_DROP)", errno);
	return 0;
}

int ac_identity_drop(const struct ac_identity *id, struct ac_child_fail *f)
{
	struct __user_cap_data_struct d[2];
	int setpcap;

	if (caps_get(d))
		return ac_child_fail_set(f, "capget", errno);
	setpcap = !!(d[0].effective & (1u << CAP_SETPCAP));
	if (setpcap && drop_bounding(id, f))
		return -1;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
		return ac_child_fail_set(f, "prctl(PR_CAP_AMBIENT_CLEAR_ALL)", errno);
	/* raw system calls: the child has one thread, glibc's setxid broadcast
	 * is not needed (and not async-signal-safe) */
	if (!id->keep_groups && syscall(SYS_setgroups, 0, NULL) &&
	    !(errno == EPERM && getgroups(0, NULL) == 0))
		return ac_child_fail_set(f, "setgroups", errno);
	if (syscall(SYS_setresgid, id->gid, id->gid, id->gid))
		return ac_child_fail_set(f, "setresgid", errno);
	if (syscall(SYS_setresuid, id->uid, id->uid, id->uid))
		return ac_child_fail_set(f, "setresuid", errno);
	if (caps_clear())
		return ac_child_fail_set(f, "capset", errno);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return ac_child_fail_set(f, "prctl(PR_SET_NO_NEW_PRIVS)", errno);
	if (setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 }))
		return ac_child_fail_set(f, "setrlimit(RLIMIT_CORE)", errno);
	return ac_identity_verify(id, setpcap, f);
}

static int verify_caps(const struct ac_identity *id, int check_bounding, struct ac_child_fail *f)
{
	struct __user_cap_data_struct d[2];

	if (caps_get(d))
		return ac_child_fail_set(f, "capget", errno);
	for (int i = 0; i < 2; i++)
		if (d[i].effective || d[i].permitted || d[i].inheritable)
			return ac_child_fail_set(f, "capabilities left after the drop", 0);
	for (int i = 0; i <= id->last_cap; i++) {
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, i, 0, 0) > 0)
			return ac_child_fail_set(f, "ambient capability left after the drop", 0);
		if (check_bounding && prctl(PR_CAPBSET_READ, i, 0, 0, 0) != 0)
			return ac_child_fail_set(f, "bounding capability left after the drop", 0);
	}
	return 0;
}

int ac_identity_verify(const struct ac_identity *id, int check_bounding, struct ac_child_fail *f)
{
	uid_t r, e, s;
	gid_t rg, eg, sg;
	struct rlimit rl;

	if (getresuid(&r, &e, &s) || r != id->uid || e != id->uid || s != id->uid)
		return ac_child_fail_set(f, "uid differs after the drop", 0);
	if (getresgid(&rg, &eg, &sg) || rg != id->gid || eg != id->gid || sg != id->gid)
		return ac_child_fail_set(f, "gid differs after the drop", 0);
	if (!id->keep_groups && getgroups(0, NULL) != 0)
		return ac_child_fail_set(f, "supplementary groups left after the drop", 0);
	if (verify_caps(id, check_bounding, f))
		return -1;
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return ac_child_fail_set(f, "no_new_privs is not set", 0);
	if (getrlimit(RLIMIT_CORE, &rl) || rl.rlim_cur || rl.rlim_max)
		return ac_child_fail_set(f, "RLIMIT_CORE is not 0", 0);
	return 0;
}

int ac_identity_keep_root(struct ac_child_fail *f)
{
	if (syscall(SYS_setgroups, 0, NULL))
		return ac_child_fail_set(f, "setgroups", errno);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return ac_child_fail_set(f, "prctl(PR_SET_NO_NEW_PRIVS)", errno);
	if (setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 }))
		return ac_child_fail_set(f, "setrlimit(RLIMIT_CORE)", errno);
	return 0;
}
