// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "util/error.h"

int ac_error_set(struct ac_error *e, const char *code, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -1;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

void ac_error_prefix(struct ac_error *e, const char *fmt, ...)
{
	char pre[256], old[sizeof(e->msg)];
	va_list ap;

	if (!e)
		return;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	/* the message is cut at its buffer's end, as every message is */
	size_t n = strnlen(pre, sizeof(pre) - 1);
	memcpy(e->msg, pre, n);
	if (n + 2 < sizeof(e->msg)) {
		memcpy(e->msg + n, ": ", 2);
		n += 2;
		snprintf(e->msg + n, sizeof(e->msg) - n, "%.*s", (int)(sizeof(e->msg) - n - 1), old);
	} else {
		e->msg[sizeof(e->msg) - 1] = 0;
	}
}
