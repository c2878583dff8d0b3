// SPDX-License-Identifier: GPL-2.0-only
/* Diagnostics of the CLI: one function each for plain and JSON output. */
#ifndef AGENTCAGE_DIAG_H
#define AGENTCAGE_DIAG_H
#include <stdbool.h>
#include "util/error.h"

#define EXIT_AGENTCAGE 125 /* agentcage itself failed */

extern bool diag_json;     /* --json: errors as JSON objects on stderr */
extern int diag_verbose;   /* -v */

/* One line on stderr: "agentcage: error: MESSAGE", or with --json
 * {"level":"error","code":CODE,"message":MESSAGE} (code omitted when NULL). */
void diag_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void diag_error_code(const char *code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A library error, with its code. */
void diag_err(const struct ac_error *e);
void diag_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void diag_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#endif
