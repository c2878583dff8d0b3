// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>
#include "diag.h"
#include "event/json.h"

bool diag_json;
int diag_verbose;

static void diag_emit(const char *level, const char *code, const char *fmt, va_list ap)
{
	char msg[2048];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (diag_json) {
		fprintf(stderr, "{\"level\":\"%s\",", level);
		if (code)
			fprintf(stderr, "\"code\":\"%s\",", code);
		fputs("\"message\":", stderr);
		json_write_string(stderr, msg, -1);
		fputs("}\n", stderr);
	} else {
		fprintf(stderr, "agentcage: %s%s\n", level[0] == 'e' ? "error: " :
			level[0] == 'w' ? "warning: " : "", msg);
	}
}

void diag_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_emit("error", NULL, fmt, ap);
	va_end(ap);
}

void diag_error_code(const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_emit("error", code, fmt, ap);
	va_end(ap);
}

static void emit_err(const char *code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit_err(const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_emit("error", code, fmt, ap);
	va_end(ap);
}

void diag_err(const struct ac_error *e)
{
	emit_err(e->code, "%s", e->msg);
}

void diag_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_emit("warning", NULL, fmt, ap);
	va_end(ap);
}

void diag_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_emit("info", NULL, fmt, ap);
	va_end(ap);
}
