// SPDX-License-Identifier: GPL-2.0-only
/* agentcage events [--follow] [--cage NAME]: the daemon's event stream
 * (docs/protocol.md, method "events"). Without --follow, the events the
 * daemon still holds (its backlog), then exit; with it, every event as it
 * comes until the daemon goes. --json prints each line as the daemon
 * sends it (the event schema plus "v"); else one plain line per event. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include <json-c/json.h>
#include "client.h"
#include "diag.h"
#include "proto/proto.h"
#include "verbs.h"

struct events_opts {
	const char *socket, *cage;
	int follow;
};

static int events_args(int argc, char **argv, struct events_opts *o)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' }, { "cage", required_argument, NULL, 'c' },
		{ "follow", no_argument, NULL, 'f' }, { "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' }, { 0 } };
	int c;

	memset(o, 0, sizeof(*o));
	while ((c = getopt_long(argc, argv, "s:c:fjh", opts, NULL)) != -1) {
		switch (c) {
		case 's': o->socket = optarg; break;
		case 'c': o->cage = optarg; break;
		case 'f': o->follow = 1; break;
		case 'j': diag_json = true; break;
		case 'h':
			printf("usage: agentcage events [--follow] [--cage NAME] [--socket PATH] [--json]\n");
			exit(0);
		default:
			diag_error_code(AC_E_USAGE, "bad option; see 'agentcage events --help'");
			return -1;
		}
	}
	if (optind < argc) {
		diag_error_code(AC_E_USAGE, "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	o->socket = proto_socket_path(o->socket);
	return 0;
}

/* connected and asked; the socket, or -1 (reported) */
static int subscribe(const struct events_opts *o)
{
	struct timeval tv = { .tv_sec = 60 };
	json_object *rq = json_object_new_object();
	size_t n;
	char *line;
	int fd;

	json_object_object_add(rq, "v", json_object_new_int(PROTO_VERSION));
	json_object_object_add(rq, "method", json_object_new_string("events"));
	json_object_object_add(rq, "follow", json_object_new_boolean(o->follow));
	if (o->cage)
		json_object_object_add(rq, "cage", json_object_new_string(o->cage));
	line = proto_line(rq, &n);
	if (!line || (fd = client_connect(o->socket)) < 0) {
		free(line);
		return -1;
	}
	if (send(fd, line, n, MSG_NOSIGNAL) != (ssize_t)n) {
		diag_error_code(AC_E_DAEMON_UNREACHABLE, "cannot reach the daemon at %s: %s; start "
				"it with 'agentcage daemon', or name its socket with --socket PATH "
				"or AGENTCAGE_SOCKET", o->socket, strerror(errno));
		free(line);
		close(fd);
		return -1;
	}
	free(line);
	if (!o->follow)
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/* a string value printed bare, as agentcage run's own lines print op,
 * peer and family: a word of safe bytes; comm and path always quoted */
static int bare(const char *k, const char *s)
{
	if (!strcmp(k, "comm") || !strcmp(k, "path") || !*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.:/@+-[]", *s))
			return 0;
	return 1;
}

void events_print_plain(FILE *f, const char *prefix, json_object *ev)
{
	json_object *m;
	const char *action = "";

	if (json_object_object_get_ex(ev, "action", &m))
		action = !strcmp(json_object_get_string(m), "audited") ? "AUDIT" : "DENY";
	else if (json_object_object_get_ex(ev, "level", &m))
		action = "ERROR";   /* a policy file a reload refused */
	fprintf(f, "%s%s %s %s", prefix,
		json_object_object_get_ex(ev, "time", &m) ? json_object_get_string(m) : "-",
		json_object_object_get_ex(ev, "cage", &m) ? json_object_get_string(m) : "?", action);
	json_object_object_foreach(ev, k, v) {
		if (!strcmp(k, "v") || !strcmp(k, "time") || !strcmp(k, "cage") || !strcmp(k, "action") ||
		    !strcmp(k, "level"))
			continue;
		if (!v)   /* a packet's pid: no task */
			fprintf(f, " %s=-", k);
		else if (json_object_is_type(v, json_type_string) && bare(k, json_object_get_string(v)))
			fprintf(f, " %s=%s", k, json_object_get_string(v));
		else
			fprintf(f, " %s=%s", k, json_object_is_type(v, json_type_string) ?
				json_object_to_json_string_ext(v, JSON_C_TO_STRING_NOSLASHESCAPE) :
				json_object_to_json_string(v));
	}
	fputc('\n', f);
}

/* one line of the stream: 1 at its end, -1 on an error reply, else 0 */
static int line_of(const char *line, int first)
{
	json_object *o = json_tokener_parse(line), *m, *err = NULL, *msg = NULL, *code = NULL;
	int ret = 0;

	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		diag_error_code(AC_E_PROTOCOL, "the daemon sent a line that is not a JSON object");
		return -1;
	}
	if (first && json_object_object_get_ex(o, "ok", &m)) {
		if (!json_object_get_boolean(m)) {
			json_object_object_get_ex(o, "error", &err);
			json_object_object_get_ex(err, "message", &msg);
			json_object_object_get_ex(err, "code", &code);
			diag_error_code(code ? json_object_get_string(code) : AC_E_PROTOCOL, "%s",
					msg ? json_object_get_string(msg) : line);
			ret = -1;
		}
	} else if (json_object_object_get_ex(o, "end", &m)) {
		ret = 1;
	} else if (diag_json) {
		fputs(line, stdout);
		putchar('\n');
	} else if (json_object_object_get_ex(o, "dropped", &m)) {
		diag_warn("%lld events dropped: this client did not read them fast enough",
			  (long long)json_object_get_int64(m));
	} else {
		events_print_plain(stdout, "", o);
	}
	json_object_put(o);
	fflush(stdout);
	return ret;
}

int cmd_events(int argc, char **argv)
{
	struct events_opts o;
	char buf[1 << 16], *nl;
	size_t len = 0;
	int fd, first = 1, r = 0;
	ssize_t got;

	if (events_args(argc, argv, &o) || (fd = subscribe(&o)) < 0)
		return EXIT_AGENTCAGE;
	while (r == 0 && (got = recv(fd, buf + len, sizeof(buf) - 1 - len, 0)) > 0) {
		len += got;
		buf[len] = 0;
		while (r == 0 && (nl = memchr(buf, '\n', len))) {
			*nl = 0;
			r = line_of(buf, first);
			first = 0;
			len -= nl + 1 - buf;
			memmove(buf, nl + 1, len);
		}
		if (len == sizeof(buf) - 1)
			len = 0;   /* a line longer than any event: skipped */
	}
	close(fd);
	if (r == 0)
		diag_error_code(AC_E_DAEMON_UNREACHABLE, "the daemon at %s closed the event stream",
				o.socket);
	return r == 1 ? 0 : 1;
}
