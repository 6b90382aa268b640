/* names.c - checks on names read from farms (see names.h). */
#include "config.h"

#include "base/escape.h"
#include "farms/names.h"

bool ab_farm_utf8_valid(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, k;
	uint32_t cp;

	for (; i < n; i += k)
		if (!(k = ab_utf8_len(s + i, n - i, &cp)))
			return false;
	return true;
}

const char *ab_farm_quote(const char *s, size_t n, char *buf, size_t size)
{
	size_t i = 0, o = 0, k;

	if (!size)
		return buf;
	while (i < n && o < 100) {
		uint32_t cp;

		k = ab_utf8_len((const unsigned char *)s + i, n - i, &cp);
		if (k > 1) {
			if (o + k >= size)
				break;	/* never half a character */
			while (k--)
				buf[o++] = s[i++];
			continue;
		}
		if (o + 1 >= size)
			break;
		/* control bytes (a line break, an escape sequence) and bytes
		 * that are not UTF-8 never reach a terminal */
		buf[o++] = k != 1 || (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
		i++;
	}
	buf[o] = '\0';
	return buf;
}
