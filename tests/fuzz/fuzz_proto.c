// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer target: the control protocol (lib/proto). The input is a request
 * line through proto_parse_request, whose accepted requests are checked
 * against the parser's promises (a known method, NUL-terminated members of
 * their sizes, a run's cage, a join's run id and 32 lowercase hex digits);
 * and, when json-c reads it as an object, the launch settings of a run reply
 * through proto_launch_parse, whose result must go back through
 * proto_launch_json and parse to the same settings. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "policy/policy.h"
#include "proto/proto.h"

static void check_request(const struct proto_req *r)
{
	if (r->method < PM_LS || r->method > PM_EXPIRE || (r->method == PM_EXPIRE) != !!r->seconds ||
	    !memchr(r->cage, 0, sizeof(r->cage)) || !memchr(r->run, 0, sizeof(r->run)) ||
	    r->token[PROTO_TOKEN_LEN] || r->pid < 0 || (r->follow != 0 && r->follow != 1))
		abort();
	/* a run names a cage or carries a policy, never both */
	if (r->method == PM_RUN && !r->cage[0] == !r->policy)
		abort();
	if (r->policy && ((r->method != PM_RUN && r->method != PM_RELOAD) || strlen(r->policy) != r->policy_len))
		abort();
	if (!memchr(r->file, 0, sizeof(r->file)) || !memchr(r->cwd, 0, sizeof(r->cwd)) ||
	    (r->cwd[0] && r->cwd[0] != '/') || (r->cage_tmp[0] && r->cage_tmp[0] != '/') ||
	    (r->tty[0] && r->tty[0] != '/'))
		abort();
	if (r->mode != MODE_UNSET && r->mode != MODE_ENFORCE && r->mode != MODE_AUDIT)
		abort();
	if (r->method == PM_JOIN && (!r->run[0] || strlen(r->token) != PROTO_TOKEN_LEN))
		abort();
	if (r->token[0] && strspn(r->token, "0123456789abcdef") != PROTO_TOKEN_LEN)
		abort();
}

static int same_list(const struct plist *a, const struct plist *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->items[i], b->items[i]))
			return 0;
	return 1;
}

/* p's launch settings, as a run reply carries them, read back the same */
static void round_trip(const struct policy *p)
{
	struct policy q;
	struct ac_error e = { 0 };
	size_t n;
	char *line = proto_line(proto_launch_json(p), &n);
	json_object *o;

	if (!line)
		return;
	if (n < 1 || memchr(line, '\n', n - 1) || !(o = json_tokener_parse(line)))
		abort();
	free(line);
	memset(&q, 0, sizeof(q));
	if (proto_launch_parse(o, &q, &e) || strcmp(p->user, q.user) || p->isolate != q.isolate ||
	    !same_list(&p->env, &q.env) || !same_list(&p->sys_deny, &q.sys_deny) ||
	    memcmp(&p->limits, &q.limits, sizeof(p->limits)))
		abort();
	json_object_put(o);
	policy_free(&q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proto_req r;
	struct ac_error e = { 0 };
	struct policy p;
	json_object *o;
	char *text = malloc(size + 2);

	if (!text)
		return 0;
	/* as the daemon hands a line over: in its buffer, followed by its
	 * newline (proto_parse_request looks at the byte after the parsed
	 * object with strspn, which stops there) */
	memcpy(text, data, size);
	text[size] = '\n';
	text[size + 1] = 0;
	if (!proto_parse_request(text, size, &r, &e)) {
		check_request(&r);
		proto_req_free(&r);
	} else if (!e.code || !e.msg[0])
		abort();
	/* json_tokener_parse reads a C string: up to a NUL, if any */
	o = json_tokener_parse(text);
	free(text);
	if (o && json_object_is_type(o, json_type_object)) {
		memset(&p, 0, sizeof(p));
		memset(&e, 0, sizeof(e));
		if (!proto_launch_parse(o, &p, &e))
			round_trip(&p);
		else if (!e.code)
			abort();
		policy_free(&p);
	}
	json_object_put(o);
	return 0;
}
