// SPDX-License-Identifier: GPL-2.0-only
/* For the unit tests and the fuzz target of lib/policy/yamllite: libyaml's
 * document of a text, and whether two documents are the same in what
 * lib/policy reads (each node's type, a scalar's bytes, items and pairs in
 * order, each node's start line and column). */
#ifndef AGENTCAGE_TESTS_YAMLSAME_H
#define AGENTCAGE_TESTS_YAMLSAME_H
#include <string.h>
#include <yaml.h>

/* 1: libyaml loaded text into doc (with a root node or none); 0: it failed */
static inline int libyaml_load(const char *text, size_t len, yaml_document_t *doc)
{
	yaml_parser_t p;
	int ok;

	if (!yaml_parser_initialize(&p))
		return 0;
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	ok = yaml_parser_load(&p, doc);
	yaml_parser_delete(&p);
	return ok;
}

static inline int yaml_same_node(yaml_document_t *da, yaml_node_t *a, yaml_document_t *db,
				 yaml_node_t *b)
{
	if (!a || !b)
		return !a && !b;
	if (a->type != b->type || a->start_mark.line != b->start_mark.line ||
	    a->start_mark.column != b->start_mark.column)
		return 0;
	switch (a->type) {
	case YAML_SCALAR_NODE:
		return a->data.scalar.length == b->data.scalar.length &&
		       !memcmp(a->data.scalar.value, b->data.scalar.value, a->data.scalar.length);
	case YAML_SEQUENCE_NODE: {
		yaml_node_item_t *i = a->data.sequence.items.start, *j = b->data.sequence.items.start;

		if (a->data.sequence.items.top - i != b->data.sequence.items.top - j)
			return 0;
		for (; i < a->data.sequence.items.top; i++, j++)
			if (!yaml_same_node(da, yaml_document_get_node(da, *i), db,
					    yaml_document_get_node(db, *j)))
				return 0;
		return 1;
	}
	case YAML_MAPPING_NODE: {
		yaml_node_pair_t *i = a->data.mapping.pairs.start, *j = b->data.mapping.pairs.start;

		if (a->data.mapping.pairs.top - i != b->data.mapping.pairs.top - j)
			return 0;
		for (; i < a->data.mapping.pairs.top; i++, j++)
			if (!yaml_same_node(da, yaml_document_get_node(da, i->key), db,
					    yaml_document_get_node(db, j->key)) ||
			    !yaml_same_node(da, yaml_document_get_node(da, i->value), db,
					    yaml_document_get_node(db, j->value)))
				return 0;
		return 1;
	}
	default:
		return 0;
	}
}

static inline int yaml_same(yaml_document_t *a, yaml_document_t *b)
{
	return yaml_same_node(a, yaml_document_get_root_node(a), b, yaml_document_get_root_node(b));
}
#endif
