// SPDX-License-Identifier: GPL-2.0-only
/* The daemon's clients: agentcage ls, status and reload. Each sends one
 * request over the control socket (--socket PATH, else $AGENTCAGE_SOCKET,
 * else /run/agentcage/agentcage.sock) and prints the reply as text, or as
 * the reply's JSON line with --json. `status` then proves what the daemon
 * says from the kernel's side: the pinned cages map and links. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <json-c/json.h>
#include "agentcage/cage.h"
#include "client.h"
#include "diag.h"
#include "kernel/lsm.h"
#include "proto/proto.h"
#include "verbs.h"

#define REPLY_TIMEOUT_S 60

struct client_opts {
	const char *socket, *cage;
};

static int client_args(const char *verb, int argc, char **argv, int takes_name,
		       struct client_opts *o)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' }, { "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' }, { 0 } };
	int c;

	memset(o, 0, sizeof(*o));
	while ((c = getopt_long(argc, argv, "s:jh", opts, NULL)) != -1) {
		switch (c) {
		case 's': o->socket = optarg; break;
		case 'j': diag_json = true; break;
		case 'h':
			printf("usage: agentcage %s [--socket PATH] [--json]%s\n", verb,
			       takes_name ? " [NAME]" : "");
			exit(0);
		default:
			diag_error_code(AC_E_USAGE, "bad option; see 'agentcage %s --help'", verb);
			return -1;
		}
	}
	if (optind < argc && takes_name)
		o->cage = argv[optind++];
	if (optind < argc) {
		diag_error_code(AC_E_USAGE, "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	o->socket = proto_socket_path(o->socket);
	return 0;
}

static int unreachable(const char *path, const char *why)
{
	diag_error_code(AC_E_DAEMON_UNREACHABLE, "cannot reach the daemon at %s: %s; start it with "
			"'agentcage daemon', or name its socket with --socket PATH or "
			"AGENTCAGE_SOCKET", path, why);
	return -1;
}

int client_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return unreachable(path, "the path is too long");
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		unreachable(path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

json_object *client_exchange(int fd, const char *path, json_object *rq)
{
	struct timeval tv = { .tv_sec = REPLY_TIMEOUT_S }, none = { 0 };
	char buf[1 << 16], *line = NULL, *p;
	json_object *reply = NULL;
	size_t len = 0, n;
	ssize_t got = 0;

	p = proto_line(rq, &n);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	/* a daemon that refuses the peer replies and closes at once, maybe before
	 * the request is sent: its reply is still there to read */
	if (!p || (send(fd, p, n, MSG_NOSIGNAL) != (ssize_t)n && errno != EPIPE &&
		   errno != ECONNRESET)) {
		unreachable(path, p ? strerror(errno) : "out of memory");
		goto out;
	}
	/* up to the newline only: what follows the reply line stays in the socket */
	while ((got = recv(fd, buf, sizeof(buf), MSG_PEEK)) > 0) {
		char *nl = memchr(buf, '\n', (size_t)got), *q;
		size_t take = nl ? (size_t)(nl - buf) + 1 : (size_t)got;

		if (!(q = realloc(line, len + take + 1)) || recv(fd, q + len, take, 0) != (ssize_t)take) {
			line = q ? q : line;
			break;
		}
		line = q;
		len += take;
		line[len] = 0;
		if (nl)
			break;
	}
	if (!line || !len || line[len - 1] != '\n') {
		unreachable(path, got < 0 ? strerror(errno) : "the daemon closed the connection "
			    "without a reply");
		goto out;
	}
	if (!(reply = json_tokener_parse(line)) || !json_object_is_type(reply, json_type_object)) {
		json_object_put(reply);
		reply = NULL;
		diag_error_code(AC_E_PROTOCOL, "the daemon's reply is not a JSON object");
	}
out:
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof(none));
	free(p);
	free(line);
	return reply;
}

/* one request, one reply line: the reply object, or NULL (reported) */
static json_object *request(const struct client_opts *o, const char *method)
{
	json_object *rq = json_object_new_object(), *reply;
	int fd;

	json_object_object_add(rq, "v", json_object_new_int(PROTO_VERSION));
	json_object_object_add(rq, "method", json_object_new_string(method));
	if (o->cage)
		json_object_object_add(rq, "cage", json_object_new_string(o->cage));
	if ((fd = client_connect(o->socket)) < 0) {
		json_object_put(rq);
		return NULL;
	}
	reply = client_exchange(fd, o->socket, rq);
	close(fd);
	return reply;
}

static const char *str(json_object *o, const char *key)
{
	json_object *m;

	return json_object_object_get_ex(o, key, &m) ? json_object_get_string(m) : "";
}

static int64_t num(json_object *o, const char *key)
{
	json_object *m;

	return json_object_object_get_ex(o, key, &m) ? json_object_get_int64(m) : 0;
}

/* a reply with "ok": false is reported (exit 1); 0 when ok */
static int failed(json_object *r)
{
	json_object *ok, *err;

	if (json_object_object_get_ex(r, "ok", &ok) && json_object_get_boolean(ok))
		return 0;
	json_object_object_get_ex(r, "error", &err);
	if (!diag_json)
		diag_error_code(str(err, "code"), "%s", str(err, "message"));
	return 1;
}

static void print_json(json_object *r)
{
	puts(json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
}

int cmd_ls(int argc, char **argv)
{
	struct client_opts o;
	json_object *r, *cages;
	int ret;

	if (client_args("ls", argc, argv, 0, &o) || !(r = request(&o, "ls")))
		return EXIT_AGENTCAGE;
	if (diag_json)
		print_json(r);
	if ((ret = failed(r)) || diag_json)
		goto out;
	json_object_object_get_ex(r, "cages", &cages);
	printf("%-20s %-7s %5s %5s %18s  %s\n", "NAME", "MODE", "PROCS", "GEN",
	       "RULES file/exec/net", "FILE");
	for (size_t i = 0; i < json_object_array_length(cages); i++) {
		json_object *c = json_object_array_get_idx(cages, i);
		char rules[64];

		snprintf(rules, sizeof(rules), "%lld/%lld/%lld", (long long)num(c, "file_rules"),
			 (long long)num(c, "exec_rules"), (long long)num(c, "net_entries"));
		printf("%-20s %-7s %5lld %5lld %18s  %s%s%s\n", str(c, "name"), str(c, "mode"),
		       (long long)num(c, "processes"), (long long)num(c, "generation"), rules,
		       str(c, "file"), str(c, "error")[0] ? "  ! " : "", str(c, "error"));
	}
out:
	json_object_put(r);
	return ret;
}

int cmd_reload(int argc, char **argv)
{
	struct client_opts o;
	json_object *r, *res;
	int ret;

	if (client_args("reload", argc, argv, 1, &o) || !(r = request(&o, "reload")))
		return EXIT_AGENTCAGE;
	if (diag_json)
		print_json(r);
	ret = failed(r);
	if (!diag_json && json_object_object_get_ex(r, "results", &res))
		for (size_t i = 0; i < json_object_array_length(res); i++) {
			json_object *x = json_object_array_get_idx(res, i);

			if (!str(x, "code")[0])
				printf("%s: %s (%s)\n", str(x, "cage"), str(x, "result"), str(x, "file"));
			else if (i || !ret)    /* the first refusal is the error above */
				diag_error_code(str(x, "code"), "%s", str(x, "message"));
		}
	json_object_put(r);
	return ret;
}

/* ---- status: the kernel's side of what the daemon says --------------- */

static void problem(json_object *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(json_object *a, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_object_array_add(a, json_object_new_string(msg));
}

/* a pinned cgroup link, attached to cgroup cgid */
static void check_cgroup_link(json_object *pr, const char *dir, const char *name, uint64_t cgid)
{
	struct bpf_link_info info = { 0 };
	__u32 len = sizeof(info);
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/link-%s", dir, name);
	if ((fd = bpf_obj_get(p)) < 0)
		return problem(pr, "link %s is not pinned (%s: %s)", name, p, strerror(errno));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		problem(pr, "link %s: cannot read it: %s", name, strerror(errno));
	else if (info.type != BPF_LINK_TYPE_CGROUP || info.cgroup.cgroup_id != cgid)
		problem(pr, "link %s is not attached to the cage's cgroup", name);
	close(fd);
}

static json_object *check_cage(json_object *c, int cages_fd)
{
	json_object *pr = json_object_new_array();
	uint64_t cgid = (uint64_t)num(c, "cgroup_id");
	struct ac_cage v;
	struct stat st;

	if (stat(str(c, "cgroup"), &st) || st.st_ino != cgid)
		problem(pr, "cgroup %s is gone or is another cgroup", str(c, "cgroup"));
	if (cages_fd < 0)
		problem(pr, "the pinned cages map cannot be read");
	else if (bpf_map_lookup_elem(cages_fd, &cgid, &v))
		problem(pr, "cgroup id %llu is not in the cages map", (unsigned long long)cgid);
	else if (v.policy != num(c, "policy_id") || v.net_policy != num(c, "net_policy_id") ||
		 v.gen != num(c, "policy_gen") || (int)v.audit != !strcmp(str(c, "mode"), "audit"))
		problem(pr, "the cages map holds policy %u/%u generation %u (%s), the daemon "
			"expects %lld/%lld generation %lld (%s)", v.policy, v.net_policy, v.gen,
			v.audit ? "audit" : "enforce", (long long)num(c, "policy_id"),
			(long long)num(c, "net_policy_id"), (long long)num(c, "policy_gen"),
			str(c, "mode"));
	check_cgroup_link(pr, str(c, "pins"), "egress", cgid);
	check_cgroup_link(pr, str(c, "pins"), "ingress", cgid);
	check_cgroup_link(pr, str(c, "pins"), "device", cgid);
	return pr;
}

/* the LSM programs' links pinned in the daemon's directory, each a live link */
static int lsm_links(const char *dir, json_object *pr)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[PATH_MAX];
	int n = 0;

	if (!d) {
		problem(pr, "cannot read the daemon's pins %s: %s", dir, strerror(errno));
		return 0;
	}
	while ((de = readdir(d))) {
		struct bpf_link_info info = { 0 };
		__u32 len = sizeof(info);
		int fd;

		if (strncmp(de->d_name, "link-", 5))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if ((fd = bpf_obj_get(p)) < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			problem(pr, "%s is not a live link", p);
		else
			n++;
		if (fd >= 0)
			close(fd);
	}
	closedir(d);
	if (!n)
		problem(pr, "no program link is pinned in %s", dir);
	return n;
}

static void status_plain(json_object *out)
{
	json_object *cages, *pr;

	json_object_object_get_ex(out, "problems", &pr);
	printf("daemon pid %lld, pins %s: %lld program links pinned; BPF LSM %s; enforcer %s\n",
	       (long long)num(out, "pid"), str(out, "pins"), (long long)num(out, "lsm_links"),
	       str(out, "bpf_lsm"), str(out, "enforcer"));
	for (size_t i = 0; i < json_object_array_length(pr); i++)
		printf("  MISSING: %s\n", json_object_get_string(json_object_array_get_idx(pr, i)));
	json_object_object_get_ex(out, "cages", &cages);
	for (size_t i = 0; i < json_object_array_length(cages); i++) {
		json_object *c = json_object_array_get_idx(cages, i), *cp;

		json_object_object_get_ex(c, "problems", &cp);
		if (!json_object_array_length(cp))
			printf("%s: enforced (%s): cgroup id %lld -> policy %lld in the cages map, "
			       "generation %lld, 3 cgroup links pinned and attached\n", str(c, "name"),
			       str(c, "mode"), (long long)num(c, "cgroup_id"),
			       (long long)num(c, "policy_id"), (long long)num(c, "generation"));
		else
			printf("%s: NOT ENFORCED AS EXPECTED\n", str(c, "name"));
		for (size_t j = 0; j < json_object_array_length(cp); j++)
			printf("  MISSING: %s\n", json_object_get_string(json_object_array_get_idx(cp, j)));
		if (str(c, "error")[0])
			printf("  last reload refused: %s\n", str(c, "error"));
	}
}

int cmd_status(int argc, char **argv)
{
	struct client_opts o;
	json_object *r, *cages, *out, *pr = json_object_new_array(), *oc = json_object_new_array();
	char p[PATH_MAX], err[1024];
	int fd, bad;

	if (client_args("status", argc, argv, 1, &o) || !(r = request(&o, "status"))) {
		json_object_put(pr);
		json_object_put(oc);
		return EXIT_AGENTCAGE;
	}
	if (failed(r)) {
		if (diag_json)
			print_json(r);
		json_object_put(r);
		json_object_put(pr);
		json_object_put(oc);
		return 1;
	}
	out = proto_ok();
	json_object_object_add(out, "pid", json_object_new_int64(num(r, "pid")));
	json_object_object_add(out, "pins", json_object_new_string(str(r, "pins")));
	json_object_object_add(out, "bpf_lsm", json_object_new_string(
		lsm_bpf_active(err, sizeof(err)) ? "not active" : "active"));
	json_object_object_add(out, "lsm_links", json_object_new_int(lsm_links(str(r, "pins"), pr)));
	/* the daemon's cages are held by BPF LSM alone (agentcage-daemon(8)) */
	json_object_object_add(out, "enforcer", json_object_new_string("bpf-lsm"));
	snprintf(p, sizeof(p), "%s/map-cages", str(r, "pins"));
	if ((fd = bpf_obj_get(p)) < 0)
		problem(pr, "cannot open the pinned cages map %s: %s%s", p, strerror(errno),
			geteuid() ? " (status needs root to read the pins)" : "");
	bad = json_object_array_length(pr) > 0;
	json_object_object_get_ex(r, "cages", &cages);
	for (size_t i = 0; i < json_object_array_length(cages); i++) {
		json_object *c = json_object_get(json_object_array_get_idx(cages, i));
		json_object *cp = check_cage(c, fd);

		bad |= json_object_array_length(cp) > 0;
		json_object_object_add(c, "ok", json_object_new_boolean(!json_object_array_length(cp)));
		json_object_object_add(c, "problems", cp);
		json_object_array_add(oc, c);
	}
	if (fd >= 0)
		close(fd);
	json_object_object_add(out, "problems", pr);
	json_object_object_add(out, "cages", oc);
	json_object_object_add(out, "ok", json_object_new_boolean(!bad));
	if (diag_json)
		print_json(out);
	else
		status_plain(out);
	json_object_put(out);
	json_object_put(r);
	return bad;
}
