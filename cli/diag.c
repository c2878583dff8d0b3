#include <stdarg.h>
#include <stdio.h>
#include "diag.h"
#include "event/json.h"

bool diag_json;
int diag_verbose;

static void diag_emit(const char *level, const char *fmt, va_list ap)
{
	char msg[2048];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (diag_json) {
		fprintf(stderr, "{\"level\":\"%s\",\"message\":", level);
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
	diag_emit("error", fmt, ap);
	va_end(ap);
}

void diag_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_emit("warning", fmt, ap);
	va_end(ap);
}

void diag_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_emit("info", fmt, ap);
	va_end(ap);
}
