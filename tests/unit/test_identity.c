// SPDX-License-Identifier: GPL-2.0-only
/* harden/identity: resolving `user`, and the drop in forked children (the
 * drop tests need root, as agentcage does). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include "harden/identity.h"
#include "child.h"

Test(identity, default_rule)
{
	struct ac_identity id;
	struct ac_error e = { 0 };

	cr_assert_eq(ac_identity_resolve("", 0, 0, &id, &e), 0, "%s", e.msg);
	cr_assert_eq(id.uid, AC_NOBODY_ID);
	cr_assert_eq(id.gid, AC_NOBODY_ID);
	cr_assert(id.last_cap >= 36, "cap_last_cap %d", id.last_cap);
	cr_assert_eq(ac_identity_resolve(NULL, 1234, 99, &id, &e), 0, "%s", e.msg);
	cr_assert_eq(id.uid, 1234);
	cr_assert_eq(id.gid, 99);
}

Test(identity, names_and_numbers)
{
	struct ac_identity id;
	struct ac_error e = { 0 };

	cr_assert_eq(ac_identity_resolve("nobody", 0, 0, &id, &e), 0, "%s", e.msg);
	cr_assert_eq(id.uid, 65534);
	cr_assert_str_eq(id.name, "nobody");
	cr_assert_eq(ac_identity_resolve("0", 0, 0, &id, &e), 0, "%s", e.msg);
	cr_assert_eq(id.uid, 0);
	cr_assert_str_eq(id.home, "/root");
	/* no passwd entry: GID = UID; an explicit GID wins */
	cr_assert_eq(ac_identity_resolve("54321", 0, 0, &id, &e), 0, "%s", e.msg);
	cr_assert_eq(id.uid, 54321);
	cr_assert_eq(id.gid, 54321);
	cr_assert_str_eq(id.name, "");
	cr_assert_eq(ac_identity_resolve("54321:77", 0, 0, &id, &e), 0, "%s", e.msg);
	cr_assert_eq(id.gid, 77);
}

Test(identity, errors)
{
	struct ac_identity id;
	struct ac_error e = { 0 };

	cr_assert_eq(ac_identity_resolve("no-such-user-x", 0, 0, &id, &e), -1);
	cr_assert_str_eq(e.code, AC_E_POLICY_INVALID);
	cr_assert(strstr(e.msg, "user 'no-such-user-x' does not exist"), "%s", e.msg);
	cr_assert_eq(ac_identity_resolve("nobody", 1000, 1000, &id, &e), -1);
	cr_assert_str_eq(e.code, AC_E_PERMISSION);
	cr_assert(strstr(e.msg, "only root can run an agent as another user"), "%s", e.msg);
}

static int drop_and_check(void *arg)
{
	const struct ac_identity *id = arg;
	struct ac_child_fail f = { "", 0 };
	char v[256];

	if (ac_identity_drop(id, &f)) {
		fprintf(stderr, "drop: %s: %s\n", f.step, strerror(f.err));
		return 10;
	}
	static const char *const zero[] = { "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb" };
	for (size_t i = 0; i < 5; i++)
		if (status_field(zero[i], v, sizeof(v)) || strcmp(v, "0000000000000000"))
			return 20 + i;
	if (status_field("NoNewPrivs", v, sizeof(v)) || strcmp(v, "1"))
		return 30;
	if (status_field("Groups", v, sizeof(v)) || v[0])
		return 31;
	/* no way back: setuid(1) needs CAP_SETUID even for uid 0 */
	if (setuid(1) == 0 || errno != EPERM)
		return 32;
	return 0;
}

Test(identity, drop_to_nobody)
{
	struct ac_identity id;
	struct ac_error e = { 0 };

	if (geteuid() != 0)
		cr_skip_test("needs root");
	cr_assert_eq(ac_identity_resolve("", 0, 0, &id, &e), 0, "%s", e.msg);
	cr_assert_eq(in_child(drop_and_check, &id), 0);
}

/* root as the policy's user still loses every capability */
Test(identity, drop_root_keeps_uid_loses_caps)
{
	struct ac_identity id;
	struct ac_error e = { 0 };

	if (geteuid() != 0)
		cr_skip_test("needs root");
	cr_assert_eq(ac_identity_resolve("0:0", 0, 0, &id, &e), 0, "%s", e.msg);
	cr_assert_eq(in_child(drop_and_check, &id), 0);
}

/* a setuid-root copy of id(1): euid 0 after a plain setresuid, nothing
 * after the drop */
static char suid_path[] = "/tmp/ac-suid-XXXXXX";

static int run_suid(void *arg)
{
	const struct ac_identity *id = arg;
	struct ac_child_fail f;
	char prog[64];
	int fd = open("/tmp/ac-suid-out", O_WRONLY | O_CREAT | O_TRUNC, 0666);

	snprintf(prog, sizeof(prog), "%s/id", suid_path);
	if (fd < 0 || dup2(fd, 1) < 0)
		return 40;
	if (id) {
		if (ac_identity_drop(id, &f))
			return 41;
	} else if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534)) {
		return 42;
	}
	execl(prog, prog, "-u", (char *)NULL);
	return 43;
}

static long suid_euid(const struct ac_identity *id)
{
	char buf[32] = "";
	FILE *f;

	cr_assert_eq(in_child(run_suid, (void *)id), 0);
	f = fopen("/tmp/ac-suid-out", "r");
	cr_assert(f && fgets(buf, sizeof(buf), f));
	fclose(f);
	return strtol(buf, NULL, 10);
}

Test(identity, setuid_binary_gives_nothing)
{
	struct ac_identity id;
	struct ac_error e = { 0 };
	char cmd[128];

	if (geteuid() != 0)
		cr_skip_test("needs root");
	cr_assert(mkdtemp(suid_path));
	chmod(suid_path, 0755);
	snprintf(cmd, sizeof(cmd), "cp /usr/bin/id %s/id && chmod 4755 %s/id", suid_path, suid_path);
	cr_assert_eq(system(cmd), 0);
	cr_assert_eq(ac_identity_resolve("", 0, 0, &id, &e), 0, "%s", e.msg);
	long before = suid_euid(NULL), after = suid_euid(&id);
	snprintf(cmd, sizeof(cmd), "rm -rf %s /tmp/ac-suid-out", suid_path);
	system(cmd);
	cr_assert_eq(before, 0, "control: the setuid bit did not work here");
	cr_assert_eq(after, 65534);
}
