// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include "event/json.h"

/* length of a valid UTF-8 sequence at s (n bytes left), or 0 */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) { len = 2; cp = s[0] & 0x1f; }
	else if (s[0] >= 0xe0 && s[0] <= 0xef) { len = 3; cp = s[0] & 0x0f; }
	else if (s[0] >= 0xf0 && s[0] <= 0xf4) { len = 4; cp = s[0] & 0x07; }
	else return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void json_write_string(FILE *f, const char *str, ssize_t slen)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = slen < 0 ? strlen(str) : (size_t)slen, i = 0, l;

	fputc('"', f);
	while (i < n) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
			i++;
		} else if (c == '\n') { fputs("\\n", f); i++; }
		else if (c == '\t') { fputs("\\t", f); i++; }
		else if (c == '\r') { fputs("\\r", f); i++; }
		else if (c < 0x20 || c == 0x7f) { fprintf(f, "\\u%04x", c); i++; }
		else if ((l = utf8_len(s + i, n - i)) == 0) { fputs("\\ufffd", f); i++; }
		else { fwrite(s + i, 1, l, f); i += l; }
	}
	fputc('"', f);
}

void json_write_strings(FILE *f, char *const *s, size_t n)
{
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		json_write_string(f, s[i], -1);
	}
	fputc(']', f);
}
