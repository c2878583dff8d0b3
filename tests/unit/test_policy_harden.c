// SPDX-License-Identifier: GPL-2.0-only
/* The least-privilege keys: user, limits, isolate, syscalls, env, exec.libraries. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include "policy/policy.h"

static int parse(const char *text, struct policy *p, char *err)
{
	return policy_parse("t.yaml", text, strlen(text), p, err, 512);
}

/* text must fail with exactly `want` */
static void bad(const char *text, const char *want)
{
	struct policy p;
	char err[512] = "";

	cr_assert_eq(parse(text, &p, err), -1, "accepted: %s", text);
	cr_assert_str_eq(err, want);
}

Test(policy_harden, all_keys)
{
	struct policy p;
	char err[512] = "";

	cr_assert_eq(parse("user: agent\nlimits:\n  memory: 100M\n  cpu: 0.5\n  pids: 64\n"
			   "  time: 10m\nisolate: [pid, uts, mount, network]\n"
			   "syscalls:\n  deny: [ptrace, keyctl]\nenv: [HOME, LANG, OPENAI_API_KEY]\n"
			   "exec:\n  allow: [/usr/bin/python3]\n  libraries: [/usr/lib]\n",
			   &p, err), 0, "%s", err);
	cr_assert_str_eq(p.user, "agent");
	cr_assert_eq(p.limits.memory, 100ULL << 20);
	cr_assert_eq(p.limits.cpu_milli, 500);
	cr_assert_eq(p.limits.pids, 64);
	cr_assert_eq(p.limits.time, 600);
	cr_assert_eq(p.isolate, POLICY_ISO_PID | POLICY_ISO_UTS | POLICY_ISO_MOUNT | POLICY_ISO_NET);
	cr_assert_eq(p.sys_deny.n, 2);
	cr_assert_str_eq(p.sys_deny.items[1], "keyctl");
	cr_assert_eq(p.env.n, 3);
	cr_assert_str_eq(p.env.items[2], "OPENAI_API_KEY");
	cr_assert_eq(p.exec_libs_set, 1);
	cr_assert_eq(p.exec_libs.n, 1);
	cr_assert_str_eq(p.exec.items[0], "/usr/bin/python3");
	policy_free(&p);
}

Test(policy_harden, absent_keys_are_defaults)
{
	struct policy p;
	char err[512] = "";

	cr_assert_eq(parse("name: x\nexec:\n  allow: [/usr/bin]\n", &p, err), 0, "%s", err);
	cr_assert_str_eq(p.user, "");
	cr_assert_eq(p.limits.memory + p.limits.cpu_milli + p.limits.pids + p.limits.time, 0);
	cr_assert_eq(p.isolate, 0);
	cr_assert_eq(p.sys_deny.n + p.env.n + p.exec_libs.n, 0);
	cr_assert_eq(p.exec_libs_set, 0);
	policy_free(&p);
	/* an explicit empty list is not the default */
	cr_assert_eq(parse("exec:\n  libraries: []\n", &p, err), 0, "%s", err);
	cr_assert_eq(p.exec_libs_set, 1);
	cr_assert_eq(p.exec_libs.n, 0);
	policy_free(&p);
}

Test(policy_harden, user_forms)
{
	static const char *const ok[] = { "nobody", "_apt", "a.b-c", "1000", "1000:1000", "0:0" };
	struct policy p;
	char text[128], err[512];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(text, sizeof(text), "user: \"%s\"\n", ok[i]);
		cr_assert_eq(parse(text, &p, err), 0, "%s: %s", ok[i], err);
		cr_assert_str_eq(p.user, ok[i]);
		policy_free(&p);
	}
	bad("user: \"1000:\"\n", "t.yaml:1:7: 'user' '1000:': UID[:GID] must be numbers below "
	    "4294967295");
	bad("user: 4294967295\n", "t.yaml:1:7: 'user' '4294967295': UID[:GID] must be numbers "
	    "below 4294967295");
	bad("user: 12ab\n", "t.yaml:1:7: 'user' '12ab': UID[:GID] must be numbers below 4294967295");
	bad("user: \"a b\"\n", "t.yaml:1:7: 'user' 'a b' is not a user name (letters, digits, '.', "
	    "'_', '-', not starting with a digit or '-') nor UID[:GID]");
	bad("user: [x]\n", "t.yaml:1:7: 'user' must be a user name or UID[:GID]");
	bad("user: \"\"\n", "t.yaml:1:7: 'user' must be a user name or UID[:GID]");
}

Test(policy_harden, memory_sizes)
{
	static const struct { const char *s; unsigned long long v; } ok[] = {
		{ "512M", 512ULL << 20 }, { "1G", 1ULL << 30 }, { "2048K", 2ULL << 20 },
		{ "1048576", 1ULL << 20 }, { "1t", 1ULL << 40 }, { "3m", 3ULL << 20 },
	};
	struct policy p;
	char text[128], err[512];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(text, sizeof(text), "limits:\n  memory: %s\n", ok[i].s);
		cr_assert_eq(parse(text, &p, err), 0, "%s: %s", ok[i].s, err);
		cr_assert_eq(p.limits.memory, ok[i].v, "%s", ok[i].s);
		policy_free(&p);
	}
	static const char *const no[] = { "512K", "100", "1.5G", "M", "10MB", "-1M", "",
					  "99999999999999999999G", "16777216T" };
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		snprintf(text, sizeof(text), "limits:\n  memory: \"%s\"\n", no[i]);
		bad(text, "t.yaml:2:11: 'limits.memory' must be a size such as 512K, 100M or 1G "
		    "(at least 1M)");
	}
}

Test(policy_harden, cpu_decimals)
{
	static const struct { const char *s; unsigned v; } ok[] = {
		{ "0.5", 500 }, { "2", 2000 }, { "0.01", 10 }, { "1.25", 1250 }, { "1024", 1024000 },
		{ "0.125", 125 },
	};
	struct policy p;
	char text[128], err[512];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(text, sizeof(text), "limits:\n  cpu: %s\n", ok[i].s);
		cr_assert_eq(parse(text, &p, err), 0, "%s: %s", ok[i].s, err);
		cr_assert_eq(p.limits.cpu_milli, ok[i].v, "%s", ok[i].s);
		policy_free(&p);
	}
	static const char *const no[] = { "0", "0.0", "0.009", "0.5000", "1024.5", "1025", ".5",
					  "1.", "-1", "half", "1e3" };
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		snprintf(text, sizeof(text), "limits:\n  cpu: \"%s\"\n", no[i]);
		bad(text, "t.yaml:2:8: 'limits.cpu' must be a number of CPUs from 0.01 to 1024, such "
		    "as 0.5 or 2");
	}
}

Test(policy_harden, pids_and_time)
{
	struct policy p;
	char err[512];

	cr_assert_eq(parse("limits:\n  pids: 4194304\n  time: 90\n", &p, err), 0, "%s", err);
	cr_assert_eq(p.limits.pids, 4194304);
	cr_assert_eq(p.limits.time, 90);
	policy_free(&p);
	cr_assert_eq(parse("limits:\n  time: 2h\n", &p, err), 0, "%s", err);
	cr_assert_eq(p.limits.time, 7200);
	policy_free(&p);
	cr_assert_eq(parse("limits:\n  time: 10s\n", &p, err), 0, "%s", err);
	cr_assert_eq(p.limits.time, 10);
	policy_free(&p);
	bad("limits:\n  pids: 0\n", "t.yaml:2:9: 'limits.pids' must be a number of processes from "
	    "1 to 4194304");
	bad("limits:\n  pids: 4194305\n", "t.yaml:2:9: 'limits.pids' must be a number of processes "
	    "from 1 to 4194304");
	bad("limits:\n  time: 0s\n", "t.yaml:2:9: 'limits.time' must be a duration such as 90 "
	    "(seconds), 10s, 5m or 1h, above 0");
	bad("limits:\n  time: 5d\n", "t.yaml:2:9: 'limits.time' must be a duration such as 90 "
	    "(seconds), 10s, 5m or 1h, above 0");
	bad("limits:\n  time: 1h30m\n", "t.yaml:2:9: 'limits.time' must be a duration such as 90 "
	    "(seconds), 10s, 5m or 1h, above 0");
	bad("limits:\n  time: 9999999999h\n", "t.yaml:2:9: 'limits.time' must be a duration such as "
	    "90 (seconds), 10s, 5m or 1h, above 0");
	bad("limits:\n  swap: 1G\n", "t.yaml:2:3: unknown key 'limits.swap' (expected memory, cpu, "
	    "pids, time)");
	bad("limits: 1G\n", "t.yaml:1:9: 'limits' must be a mapping");
}

Test(policy_harden, isolate_errors)
{
	bad("isolate: [pid, user]\n", "t.yaml:1:16: 'isolate' entry 'user' is not one of pid, uts, "
	    "mount, network");
	bad("isolate: [uts, uts]\n", "t.yaml:1:16: 'isolate' lists 'uts' twice");
	bad("isolate: network\n", "t.yaml:1:10: 'isolate' must be a list of namespaces (pid, uts, "
	    "mount, network)");
}

Test(policy_harden, syscall_names)
{
	bad("syscalls:\n  deny: [ptrace, no_such_call]\n", "t.yaml:2:18: syscalls.deny: "
	    "'no_such_call' is not a system call");
	/* socketcall exists on i386, not on x86_64 */
	bad("syscalls:\n  deny: [socketcall]\n", "t.yaml:2:10: syscalls.deny: 'socketcall' is not a "
	    "system call of this architecture");
	bad("syscalls:\n  deny: [execve]\n", "t.yaml:2:10: syscalls.deny: 'execve' cannot be "
	    "denied: the cage starts its command with it (use exec.allow to limit what runs)");
	bad("syscalls:\n  allow: [read]\n", "t.yaml:2:3: unknown key 'syscalls.allow' (expected "
	    "deny)");
	bad("syscalls:\n  deny: ptrace\n", "t.yaml:2:9: 'syscalls.deny' must be a list of system "
	    "call names");
}

Test(policy_harden, env_names)
{
	bad("env: [HOME, 1X]\n", "t.yaml:1:13: env: '1X' is not a variable name "
	    "([A-Za-z_][A-Za-z0-9_]*)");
	bad("env: [A-B]\n", "t.yaml:1:7: env: 'A-B' is not a variable name ([A-Za-z_][A-Za-z0-9_]*)");
	bad("env: [TMPDIR]\n", "t.yaml:1:7: env: TMPDIR cannot be passed through: it is always the "
	    "cage's private directory ${CAGE_TMP}");
	bad("env: [A, B, A]\n", "t.yaml:1:13: env lists 'A' twice");
	bad("env: [[A]]\n", "t.yaml:1:7: 'env' entries must be strings");
}

Test(policy_harden, exec_libraries_paths)
{
	bad("exec:\n  libraries: [usr/lib]\n", "t.yaml:2:15: path 'usr/lib' is relative; policy "
	    "paths must be absolute");
	bad("exec:\n  run: [/x]\n", "t.yaml:2:3: unknown key 'exec.run' (expected allow, "
	    "libraries)");
	bad("nme: x\n", "t.yaml:1:1: unknown key 'nme' (expected name, mode, user, files, exec, "
	    "network, limits, isolate, syscalls, env)");
}
