// SPDX-License-Identifier: GPL-2.0-only
/* The subset loader of yamllite.h. Each function that meets something
 * outside the subset sets l->bad and returns 0; the caller then throws the
 * partial document away and asks libyaml. */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "policy/yamllite.h"

#define LITE_DEPTH 64

struct lite {
	const char *s, *end;
	const char *line;          /* the current content line's start */
	size_t lineno;             /* its number, from 0 */
	int ind;                   /* its indentation; -1 past the last one */
	int depth;
	yaml_document_t *doc;
	int bad;                   /* 1: outside the subset; -1: out of memory */
	char *vals, *vp;           /* the scalars' store: the tag, then each value */
};

static const char str_tag[] = YAML_DEFAULT_SCALAR_TAG;

static int outside(char c)
{
	return (c < 0x20 || c > 0x7e) && c != '\n';
}

/* Is text[0..len) printable ASCII and newlines? Eight bytes at a time:
 * a word with no byte under 0x20 (newlines are) and none from 0x7f up is. */
static int printable(const char *text, size_t len)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	size_t i = 0;
	uint64_t w;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, text + i, 8);
		/* a byte under 0x20, or of 0x7f (+1 carries into 0x80), or over */
		if (!(((w - 0x20 * ones) | (w + ones) | w) & high))
			continue;
		for (size_t j = i; j < i + 8; j++)
			if (outside(text[j]))
				return 0;
	}
	for (; i < len; i++)
		if (outside(text[i]))
			return 0;
	return 1;
}

static int out(struct lite *l)
{
	if (!l->bad)
		l->bad = 1;
	return 0;
}

static const char *spaces(const char *p, const char *end)
{
	while (p < end && *p == ' ')
		p++;
	return p;
}

/* From p, the start of a line, to the next line with content. */
static void next_content(struct lite *l, const char *p)
{
	for (;;) {
		const char *q = spaces(p, l->end);

		if (q == l->end) {
			l->ind = -1;
			return;
		}
		if (*q != '\n' && *q != '#') {
			l->line = p;
			l->ind = (int)(q - p);
			return;
		}
		q = memchr(q, '\n', l->end - q);
		if (!q) {
			l->ind = -1;
			return;
		}
		p = q + 1;
		l->lineno++;
	}
}

/* p is where this line's value ended: only spaces and a comment may follow. */
static void end_line(struct lite *l, const char *p)
{
	const char *q = spaces(p, l->end);

	if (q < l->end && *q != '\n' && (*q != '#' || q == p)) {
		out(l);
		return;
	}
	q = memchr(q, '\n', l->end - q);
	if (!q) {
		l->ind = -1;
		return;
	}
	l->lineno++;
	next_content(l, q + 1);
}

static int mark(struct lite *l, int id, const char *p)
{
	yaml_node_t *n;

	if (!id) {
		l->bad = -1;
		return 0;
	}
	n = yaml_document_get_node(l->doc, id);
	n->start_mark.index = (size_t)(p - l->s);
	n->start_mark.line = l->lineno;
	n->start_mark.column = (size_t)(p - l->line);
	n->end_mark = n->start_mark;
	return id;
}

/* yaml_document_add_scalar(doc, NULL, v, n, style), the same node, less
 * its check that v is UTF-8 (the subset is printable ASCII) and its two
 * allocations: the tag and the value are in the store (yaml_lite_delete).
 * The node stack grows as libyaml's does. */
static int add_scalar(struct lite *l, const char *v, size_t n, yaml_scalar_style_t style)
{
	yaml_document_t *d = l->doc;
	yaml_node_t node = { .type = YAML_SCALAR_NODE, .tag = (yaml_char_t *)l->vals };

	if (d->nodes.top == d->nodes.end) {
		size_t have = (size_t)(d->nodes.end - d->nodes.start);
		yaml_node_t *grown = realloc(d->nodes.start, 2 * have * sizeof(*grown));

		if (!grown)
			return 0;
		d->nodes.top = grown + have;
		d->nodes.end = grown + 2 * have;
		d->nodes.start = grown;
	}
	node.data.scalar.value = (yaml_char_t *)l->vp;
	memcpy(l->vp, v, n);
	l->vp[n] = 0;
	l->vp += n + 1;
	node.data.scalar.length = n;
	node.data.scalar.style = style;
	*d->nodes.top++ = node;
	return (int)(d->nodes.top - d->nodes.start);
}

static int scalar(struct lite *l, const char *at, const char *v, size_t n,
		  yaml_scalar_style_t style)
{
	return mark(l, add_scalar(l, v, n, style), at);
}

static int flow_end(int flow, char c)
{
	return flow && (c == ',' || c == ']');
}

/* What a character may be in the subset: */
enum {
	C_WORD = 1,             /* starts a key, and what may follow '-' at a scalar's start */
	C_KEY = 2,              /* in a key */
	C_START = 4,            /* starts a plain scalar */
	C_FLOW = 8,             /* in a flow sequence's plain scalar, besides ':' and '#' */
	C_PSTOP = 16,           /* what a plain scalar's scan looks at: ':', ' ', '\n' */
	C_FSTOP = 32,           /* and in a flow sequence: what is not C_FLOW */
};

static unsigned char cls[256];
static pthread_once_t classes_once = PTHREAD_ONCE_INIT;

static void init_classes(void)
{
	for (int c = 0x20; c < 0x7f; c++) {
		int word = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
			   (c >= 'A' && c <= 'Z') || c == '_';

		cls[c] = (word ? C_WORD | C_KEY : 0) | (c == '.' || c == '-' ? C_KEY : 0) |
			 (strchr("-?:,[]{}#&*!|>'\"%@`", c) ? 0 : C_START) |
			 (strchr("[]{},", c) ? 0 : C_FLOW);
	}
	for (int c = 0; c < 256; c++)
		cls[c] |= (cls[c] & C_FLOW ? 0 : C_FSTOP) | (strchr(": \n", c) && c ? C_PSTOP : 0);
}

static unsigned char class_of(char c)
{
	return cls[(unsigned char)c];
}

/* A plain scalar at p (in a flow sequence if flow): its end, or NULL. */
static const char *plain_end(struct lite *l, const char *p, int flow)
{
	unsigned char stop = C_PSTOP | (flow ? C_FSTOP : 0);
	const char *q;

	if (!(class_of(*p) & C_START) &&
	    ((*p != '-' && (*p != ':' || flow)) || p + 1 == l->end ||
	     (!(class_of(p[1]) & C_WORD) && p[1] != '/' && p[1] != ':')))
		return NULL;
	for (q = p;; q++) {
		/* nothing to look at in most bytes: skip them */
		while (q < l->end && !(class_of(*q) & stop))
			q++;
		if (q == l->end || *q == '\n')
			break;
		if (!flow || (class_of(*q) & C_FLOW)) {
			if (*q == ':' && (flow || q + 1 == l->end || q[1] == ' ' || q[1] == '\n'))
				return NULL;
			if (*q == ' ' && q + 1 < l->end && q[1] == '#')
				break;
			continue;
		}
		if (flow_end(flow, *q))
			break;
		return NULL;
	}
	while (q > p && q[-1] == ' ')
		q--;
	return q;
}

/* A one-line quoted scalar at p: its node, *endp after the closing quote. */
static int quoted(struct lite *l, const char *p, const char **endp)
{
	const char *q, *r;
	char *buf, *w;
	int id;

	for (q = p + 1; q < l->end && *q != '\n'; q++) {
		if (*p == '"' && *q == '\\')
			return out(l);
		if (*q == *p) {
			if (*p == '\'' && q + 1 < l->end && q[1] == '\'')
				q++;
			else
				break;
		}
	}
	if (q == l->end || *q != *p)
		return out(l);
	if (!(buf = malloc((size_t)(q - p)))) {
		l->bad = -1;
		return 0;
	}
	for (w = buf, r = p + 1; r < q; r++) {
		*w++ = *r;
		if (*r == '\'' && *p == '\'')
			r++;
	}
	id = scalar(l, p, buf, (size_t)(w - buf),
		    *p == '"' ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_SINGLE_QUOTED_SCALAR_STYLE);
	free(buf);
	*endp = q + 1;
	return id;
}

/* One scalar at p, in a flow sequence if flow: its node, *endp after it. */
static int one_scalar(struct lite *l, const char *p, int flow, const char **endp)
{
	const char *q;

	if (p == l->end)
		return out(l);
	if (*p == '\'' || *p == '"')
		return quoted(l, p, endp);
	if (!(q = plain_end(l, p, flow)) || q == p)
		return out(l);
	*endp = q;
	return scalar(l, p, p, (size_t)(q - p), YAML_PLAIN_SCALAR_STYLE);
}

/* [a, 'b', "c"] on one line, at p: its node, *endp after the ']'. */
static int flow_seq(struct lite *l, const char *p, const char **endp)
{
	int seq = mark(l, yaml_document_add_sequence(l->doc, NULL, YAML_FLOW_SEQUENCE_STYLE), p);
	const char *q = spaces(p + 1, l->end);

	if (q < l->end && *q == ']') {
		*endp = q + 1;
		return seq;
	}
	while (seq) {
		int item = one_scalar(l, q, 1, &q);

		if (!item || !yaml_document_append_sequence_item(l->doc, seq, item))
			return l->bad ? 0 : (l->bad = -1, 0);
		q = spaces(q, l->end);
		if (q < l->end && *q == ']') {
			*endp = q + 1;
			return seq;
		}
		if (q == l->end || *q != ',')
			return out(l);
		q = spaces(q + 1, l->end);
		if (q == l->end || *q == ']')
			return out(l);
	}
	return 0;
}

/* The value that follows "key: " or "- " at p; the line is ended. */
static int inline_value(struct lite *l, const char *p)
{
	const char *q;
	int id = *p == '[' ? flow_seq(l, p, &q) : one_scalar(l, p, 0, &q);

	if (id)
		end_line(l, q);
	return l->bad ? 0 : id;
}

static int block(struct lite *l, int parent);

static int is_item(const struct lite *l)
{
	const char *p;

	if (l->ind < 0)
		return 0;
	p = l->line + l->ind;
	return p[0] == '-' && p + 1 < l->end && p[1] == ' ';
}

/* Items "- VALUE" at the current line's indentation. */
static int block_seq(struct lite *l)
{
	int c = l->ind;
	int seq = mark(l, yaml_document_add_sequence(l->doc, NULL, YAML_BLOCK_SEQUENCE_STYLE),
		       l->line + c);

	while (seq && l->ind == c && is_item(l)) {
		const char *p = spaces(l->line + c + 2, l->end);
		int item;

		if (p == l->end || *p == '\n' || *p == '#')
			return out(l);
		item = inline_value(l, p);
		if (!item)
			return 0;
		if (!yaml_document_append_sequence_item(l->doc, seq, item))
			return l->bad = -1, 0;
	}
	return l->ind > c ? out(l) : seq;
}

static const char *key_end(struct lite *l, const char *p)
{
	const char *q = p;

	if (!(class_of(*q) & C_WORD))
		return NULL;
	while (q < l->end && q - p < 128 && (class_of(*q) & C_KEY))
		q++;
	if (q == l->end || *q != ':' || (q + 1 < l->end && q[1] != ' ' && q[1] != '\n'))
		return NULL;
	return q;
}

/* The value of the key whose ':' is at colon, on the line of a mapping at c. */
static int map_value(struct lite *l, const char *colon, int c)
{
	const char *p = spaces(colon + 1, l->end);

	if (p < l->end && *p != '\n' && *p != '#')
		return inline_value(l, p);
	end_line(l, colon + 1);
	if (l->bad)
		return 0;
	if (l->ind > c)
		return block(l, c);
	if (l->ind == c && is_item(l))
		return block_seq(l);
	return out(l);          /* an empty value */
}

/* Pairs "key: VALUE" at the current line's indentation. */
static int block_map(struct lite *l)
{
	int c = l->ind;
	int map = mark(l, yaml_document_add_mapping(l->doc, NULL, YAML_BLOCK_MAPPING_STYLE),
		       l->line + c);

	while (map && l->ind == c) {
		const char *p = l->line + c, *colon = key_end(l, p);
		int key, value;

		if (!colon)
			return out(l);
		key = scalar(l, p, p, (size_t)(colon - p), YAML_PLAIN_SCALAR_STYLE);
		if (!key || !(value = map_value(l, colon, c)))
			return 0;
		if (!yaml_document_append_mapping_pair(l->doc, map, key, value))
			return l->bad = -1, 0;
	}
	return l->ind > c ? out(l) : map;
}

/* The block node at the current line, indented more than its parent. */
static int block(struct lite *l, int parent)
{
	int id;

	if (l->ind <= parent || ++l->depth > LITE_DEPTH)
		return out(l);
	id = is_item(l) ? block_seq(l) : block_map(l);
	l->depth--;
	return id;
}

int yaml_lite_load(const char *text, size_t len, yaml_document_t *doc)
{
	struct lite l = { .s = text, .doc = doc };
	yaml_mark_t m = { 0, 0, 0 };
	int taken;

	/* lines, indentations and scalars are counted in ints (libyaml's
	 * document API takes an int length): a longer text is libyaml's */
	if (len > INT_MAX)
		return 0;
	l.end = text + len;     /* only now: text + SIZE_MAX would overflow */
	pthread_once(&classes_once, init_classes);

	if (!printable(text, len))
		return 0;
	/* a scalar's value and its NUL take at most twice its bytes (a
	 * 32-bit size_t could not count that for the longest texts) */
	if (len > (SIZE_MAX - sizeof(str_tag)) / 2)
		return 0;
	if (!(l.vals = malloc(sizeof(str_tag) + 2 * len)))
		return -1;
	memcpy(l.vals, str_tag, sizeof(str_tag));
	l.vp = l.vals + sizeof(str_tag);
	if (!yaml_document_initialize(doc, NULL, NULL, NULL, 1, 1)) {
		free(l.vals);
		return -1;
	}
	doc->start_mark = doc->end_mark = m;
	next_content(&l, text);
	taken = l.ind >= 0 && block(&l, -1) && l.ind < 0 && !l.bad;
	if (l.vp == l.vals + sizeof(str_tag))
		free(l.vals);   /* no scalar holds the store */
	if (taken)
		return 1;
	yaml_lite_delete(doc);
	return l.bad < 0 ? -1 : 0;
}

void yaml_lite_delete(yaml_document_t *doc)
{
	yaml_char_t *store = NULL;

	for (yaml_node_t *n = doc->nodes.start; n && n < doc->nodes.top; n++) {
		if (n->type == YAML_SCALAR_NODE) {
			store = n->tag;     /* every scalar's: the store */
			continue;
		}
		free(n->tag);
		if (n->type == YAML_SEQUENCE_NODE)
			free(n->data.sequence.items.start);
		else if (n->type == YAML_MAPPING_NODE)
			free(n->data.mapping.pairs.start);
	}
	free(store);
	free(doc->nodes.start);
	free(doc->version_directive);       /* none: as yaml_document_delete would */
	free(doc->tag_directives.start);
	memset(doc, 0, sizeof(*doc));
}
