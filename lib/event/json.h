// SPDX-License-Identifier: GPL-2.0-only
/* JSON string output that stays valid for any bytes. */
#ifndef AGENTCAGE_JSON_H
#define AGENTCAGE_JSON_H
#include <stdio.h>
#include <sys/types.h>

/* Write s (len bytes, or up to NUL when len < 0) as a quoted JSON string.
 * Invalid UTF-8 bytes become U+FFFD; control characters are escaped. */
void json_write_string(FILE *f, const char *s, ssize_t len);
/* Write n strings as a JSON array. */
void json_write_strings(FILE *f, char *const *s, size_t n);
#endif
