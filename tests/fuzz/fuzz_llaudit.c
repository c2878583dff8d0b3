// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer target: Landlock audit records through ac_llaudit_record, one a
 * line, the line's first byte its type (A access 1423, D domain 1424,
 * S syscall 1300, E end 1320, anything else proctitle 1327). The text after
 * the header comes from the kernel with the caged task's strings in it: the
 * events made of it must stay within their fields. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "enforce/llaudit.h"

static void on_ev(void *ctx, const struct ac_event *ev, uint64_t rt)
{
	size_t *n = ctx;

	(void)rt;
	if (ev->path_len >= sizeof(ev->path) || ev->path[ev->path_len] ||
	    strnlen(ev->comm, sizeof(ev->comm)) >= sizeof(ev->comm) || ev->op >= AC_OP__MAX ||
	    !(ev->flags & AC_EV_LANDLOCK) || ev->action != AC_DENIED)
		abort();
	++*n;
}

static int type_of(uint8_t c)
{
	switch (c) {
	case 'A': return 1423;
	case 'D': return 1424;
	case 'S': return 1300;
	case 'E': return 1320;
	}
	return 1327;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ac_llaudit a;
	size_t n = 0, records = 0;

	ac_llaudit_init(&a, on_ev, &n);
	ac_llaudit_creator(&a, 7);
	ac_llaudit_creator(&a, 4242);
	while (size) {
		const uint8_t *nl = memchr(data, '\n', size);
		size_t len = nl ? (size_t)(nl - data) : size;

		if (len) {   /* a copy of its own: ASan sees a read past the record */
			char *rec = malloc(len - 1 ? len - 1 : 1);

			memcpy(rec, data + 1, len - 1);
			ac_llaudit_record(&a, type_of(data[0]), rec, len - 1);
			free(rec);
			records++;
		}
		data += len + (nl != NULL);
		size -= len + (nl != NULL);
	}
	ac_llaudit_flush(&a);
	if (n > records || a.ndomains > AC_LLAUDIT_DOMAINS)
		abort();
	return 0;
}
