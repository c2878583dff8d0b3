/* Diagnostics: one error function for plain and JSON output. */
#ifndef AGENTCAGE_DIAG_H
#define AGENTCAGE_DIAG_H
#include <stdbool.h>

#define EXIT_AGENTCAGE 125 /* agentcage itself failed */

extern bool diag_json;     /* --json: errors as JSON objects on stderr */
extern int diag_verbose;   /* -v */

void diag_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void diag_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void diag_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#endif
