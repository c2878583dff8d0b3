// SPDX-License-Identifier: GPL-2.0-only
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include "policy/policy.h"

static int parse(const char *text, struct policy *p, char *err)
{
	return policy_parse("t.yaml", text, strlen(text), p, err, 512);
}

Test(policy, full_example)
{
	struct policy p;
	char err[512] = "";

	cr_assert_eq(parse("name: python-runner\nmode: audit\nfiles:\n  read: [/usr, /lib]\n"
			   "  write: [/tmp/agent-work]\n  deny: [/etc/shadow]\n"
			   "exec:\n  allow: [/usr/bin/python3]\n", &p, err), 0, "%s", err);
	cr_assert_str_eq(p.name, "python-runner");
	cr_assert_eq(p.mode, MODE_AUDIT);
	cr_assert_eq(p.read.n, 2);
	cr_assert_str_eq(p.read.items[1], "/lib");
	cr_assert_eq(p.write.n, 1);
	cr_assert_str_eq(p.deny.items[0], "/etc/shadow");
	cr_assert_str_eq(p.exec.items[0], "/usr/bin/python3");
	policy_free(&p);
}

Test(policy, unknown_key_names_line_and_column)
{
	struct policy p;
	char err[512];

	cr_assert_eq(parse("name: x\nfiles:\n  reed: [/usr]\n", &p, err), -1);
	cr_assert_str_eq(err, "t.yaml:3:3: unknown key 'files.reed' (expected read, write, deny)");
}

Test(policy, duplicate_key)
{
	struct policy p;
	char err[512];

	cr_assert_eq(parse("mode: audit\nmode: enforce\n", &p, err), -1);
	cr_assert(strstr(err, "t.yaml:2:1: duplicate key 'mode'"), "%s", err);
}

Test(policy, relative_path)
{
	struct policy p;
	char err[512];

	cr_assert_eq(parse("files:\n  read: [usr/lib]\n", &p, err), -1);
	cr_assert(strstr(err, "t.yaml:2:10:") && strstr(err, "relative"), "%s", err);
}

Test(policy, dotdot_component)
{
	struct policy p;
	char err[512];

	cr_assert_eq(parse("files:\n  read: [/usr/../etc]\n", &p, err), -1);
	cr_assert(strstr(err, "'..'"), "%s", err);
	cr_assert_eq(parse("files:\n  read: [/usr/..x]\n", &p, err), 0, "%s", err);
	policy_free(&p);
}

Test(policy, wrong_types)
{
	struct policy p;
	char err[512];

	cr_assert_eq(parse("files:\n  read: /usr\n", &p, err), -1);
	cr_assert(strstr(err, "must be a list"), "%s", err);
	cr_assert_eq(parse("files: [/usr]\n", &p, err), -1);
	cr_assert(strstr(err, "must be a mapping"), "%s", err);
	cr_assert_eq(parse("mode: strict\n", &p, err), -1);
	cr_assert(strstr(err, "'enforce' or 'audit'"), "%s", err);
	cr_assert_eq(parse("files:\n  read: [[/usr]]\n", &p, err), -1);
	cr_assert(strstr(err, "must be strings"), "%s", err);
}

Test(policy, invalid_yaml)
{
	struct policy p;
	char err[512];

	cr_assert_eq(parse("files:\n  read: [/usr\n", &p, err), -1);
	cr_assert(strstr(err, "invalid YAML"), "%s", err);
}

Test(policy, too_long_path)
{
	struct policy p;
	char err[512], text[600];

	snprintf(text, sizeof(text), "files:\n  read: [/%0300d]\n", 0);
	cr_assert_eq(parse(text, &p, err), -1);
	cr_assert(strstr(err, "limited to 247"), "%s", err);
}

Test(policy, network_section)
{
	struct policy p;
	char err[512];

	cr_assert_eq(parse("network:\n  allow: [127.0.0.1:8080, api.example.com:443]\n"
			   "  deny: [10.0.0.5]\n  unix: [/run/x.sock, '@tools', '${CAGE_TMP}']\n",
			   &p, err), 0, "%s", err);
	cr_assert_eq(p.net_allow.n, 2);
	cr_assert_str_eq(p.net_allow.items[1], "api.example.com:443");
	cr_assert_eq(p.net_deny.n, 1);
	cr_assert_eq(p.net_unix.n, 3);
	cr_assert_str_eq(p.net_unix.items[1], "@tools");
	policy_free(&p);
}

Test(policy, network_errors_name_line_and_column)
{
	struct policy p;
	char err[512];

	cr_assert_eq(parse("network:\n  allow:\n    - 10.0.0.1\n    - 10.0.0.5/8\n", &p, err), -1);
	cr_assert(strstr(err, "t.yaml:4:7: network.allow: '10.0.0.5/8'"), "%s", err);
	cr_assert(strstr(err, "10.0.0.0/8"), "%s", err);
	cr_assert_eq(parse("network:\n  allow: [1.2.3.4:99999]\n", &p, err), -1);
	cr_assert_eq(parse("network:\n  connect: []\n", &p, err), -1);
	cr_assert(strstr(err, "unknown key 'network.connect'"), "%s", err);
	cr_assert_eq(parse("network:\n  unix: [relative.sock]\n", &p, err), -1);
	cr_assert(strstr(err, "relative"), "%s", err);
	cr_assert_eq(parse("network:\n  unix: ['@']\n", &p, err), -1);
	cr_assert_eq(parse("network: [10.0.0.1]\n", &p, err), -1);
}
