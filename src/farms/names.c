/* names.c - checks on names read from farms (see names.h). */
#include "config.h"

#include "farms/names.h"

bool ab_farm_utf8_valid(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, k, len;
	unsigned cp;

	while (i < n) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if (s[i] >= 0xc2 && s[i] <= 0xdf)
			len = 2, cp = s[i] & 0x1f;
		else if (s[i] >= 0xe0 && s[i] <= 0xef)
			len = 3, cp = s[i] & 0x0f;
		else if (s[i] >= 0xf0 && s[i] <= 0xf4)
			len = 4, cp = s[i] & 0x07;
		else
			return false;
		if (n - i < len)
			return false;
		for (k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += len;
	}
	return true;
}

bool ab_farm_has_control(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return true;
	return false;
}

static size_t utf8_len(unsigned char c)
{
	return c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 :
	       c >= 0xf0 && c <= 0xf4 ? 4 : 0;
}

const char *ab_farm_quote(const char *s, size_t n, char *buf, size_t size)
{
	size_t i = 0, o = 0, k;

	if (!size)
		return buf;
	while (i < n && o < 100) {
		k = utf8_len((unsigned char)s[i]);
		if (k > 1 && k <= n - i && ab_farm_utf8_valid(s + i, k)) {
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
