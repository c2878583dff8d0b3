// SPDX-License-Identifier: GPL-2.0-only
/* A loader for the plain subset of YAML that policies are written in, a
 * tenth of libyaml's cost on a 10,000-rule policy. It builds the same
 * yaml_document_t as yaml_parser_load would, or declines, and the caller
 * then asks libyaml: every error message, and every construct outside the
 * subset, stays libyaml's.
 *
 * The subset: printable ASCII and newlines; block mappings whose keys are
 * words ([A-Za-z0-9_][A-Za-z0-9_.-]*) and block sequences, nested by
 * indentation (a sequence may sit at its key's indentation); values on the
 * key's or the dash's line, each a plain scalar, a one-line quoted scalar
 * ('' escapes, no backslash in "...") or a one-line flow sequence of such
 * scalars; comments. Anchors, tags, block and multi-line scalars, flow
 * mappings, empty values, documents markers and directives are not in it.
 *
 * "The same document" means what lib/policy reads of it: each node's type,
 * a scalar's bytes, a sequence's items and a mapping's pairs in order, and
 * each node's start line and column. tests/fuzz/fuzz_yaml.c and
 * tests/unit/test_yamllite.c hold it to that against libyaml. */
#ifndef AGENTCAGE_YAMLLITE_H
#define AGENTCAGE_YAMLLITE_H
#include <stddef.h>
#include <yaml.h>

/* 1: doc holds the document (yaml_lite_delete frees it); 0: text is not
 * in the subset, doc holds nothing; -1: out of memory. */
int yaml_lite_load(const char *text, size_t len, yaml_document_t *doc);
/* Free a document of yaml_lite_load (its scalars share one allocation:
 * not yaml_document_delete's to free). */
void yaml_lite_delete(yaml_document_t *doc);
#endif
