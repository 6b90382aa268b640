/* escape.c - see escape.h. */
#include "config.h"
#include <inttypes.h>
#include <string.h>
#include <strings.h>
#include "base/escape.h"

size_t ab_utf8_len(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len, i;
	uint32_t c;

	if (n == 0)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	} else if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, beyond U+10FFFF. */
	if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	*cp = c;
	return len;
}

/* ab_utf8_len of a NUL-terminated string: a sequence cut by the end
 * stops at the NUL, which is no continuation byte. */
static size_t utf8_len(const unsigned char *s)
{
	uint32_t c;

	return ab_utf8_len(s, 4, &c);
}

int ab_has_control(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] == 0x7f ||
		    (s[i] == 0xc2 && i + 1 < n && s[i + 1] >= 0x80 && s[i + 1] < 0xa0))
			return 1;
	return 0;
}

/* A C1 control (U+0080..U+009F) in UTF-8 at p. */
static int is_c1(const unsigned char *p)
{
	return p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0;
}

int ab_hidden_cp(uint32_t c)
{
	return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) ||
	       c == 0x061c || c == 0x200e || c == 0x200f || c == 0x2028 || c == 0x2029 ||
	       (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/* Appends the visible form of the control or invalid byte sequence at
 * *p and advances it; 0 (nothing done) when *p starts printable text of
 * n bytes. */
static int put_control(ab_buf *out, const unsigned char **p, size_t *n)
{
	const unsigned char *s = *p;

	*n = utf8_len(s);
	if (*n == 0) {
		ab_buf_printf(out, "\\x%02x", s[0]);
		*p = s + 1;
		return 1;
	}
	if (is_c1(s)) {
		ab_buf_printf(out, "\\u%04x", (unsigned)s[1]);
		*p = s + 2;
		return 1;
	}
	if (*n > 1) {
		uint32_t c;

		/* Bidi marks and overrides, line separators: they would
		 * reorder or break what follows them on the line. */
		ab_utf8_len(s, *n, &c);
		if (!ab_hidden_cp(c))
			return 0;
		ab_buf_printf(out, "\\u%04" PRIx32, c);
		*p = s + *n;
		return 1;
	}
	if (s[0] >= 0x20 && s[0] != 0x7f)
		return 0;
	if (s[0] == '\n')
		ab_buf_puts(out, "\\n");
	else if (s[0] == '\r')
		ab_buf_puts(out, "\\r");
	else if (s[0] == '\t')
		ab_buf_puts(out, "\\t");
	else
		ab_buf_printf(out, "\\x%02x", s[0]);
	*p = s + 1;
	return 1;
}

void ab_esc_term_to(ab_buf *out, const char *s, int keep_lines)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	while (*p) {
		if (keep_lines && (*p == '\n' || *p == '\t')) {
			ab_buf_append(out, p++, 1);
			continue;
		}
		if (put_control(out, &p, &n))
			continue;
		ab_buf_append(out, p, n);
		p += n;
	}
}

static char *term_copy(const char *s, int keep_lines)
{
	ab_buf b = {0};

	if (!s)
		return NULL;
	ab_buf_puts(&b, "");
	ab_esc_term_to(&b, s, keep_lines);
	return ab_buf_steal(&b);
}

char *ab_esc_term(const char *s)
{
	return term_copy(s, 0);
}

char *ab_esc_term_lines(const char *s)
{
	return term_copy(s, 1);
}

void ab_esc_md_to(ab_buf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	while (*p) {
		if (*p == '\n' || *p == '\r' || *p == '\t') {
			ab_buf_puts(out, " ");
			p++;
		} else if (*p == '<') {
			ab_buf_puts(out, "&lt;");
			p++;
		} else if (*p == '>') {
			ab_buf_puts(out, "&gt;");
			p++;
		} else if (*p == '&') {
			ab_buf_puts(out, "&amp;");
			p++;
		} else if (strchr("\\`*_[]()~|!$", *p)) {
			ab_buf_printf(out, "\\%c", *p);
			p++;
		} else if ((*p == ':' && p[1] == '/' && p[2] == '/') ||
			   (*p == '.' && p - (const unsigned char *)s >= 3 &&
			    !strncasecmp((const char *)p - 3, "www", 3))) {
			/* GitHub makes links of "scheme://" and "www." in
			 * text: an escaped ':' or '.' is one no more. */
			ab_buf_printf(out, "\\%c", *p);
			p++;
		} else if (*p == '@') {
			/* Nor of an e-mail address, "mailto:" or "xmpp:" one:
			 * an escape does not stop that, an empty comment
			 * (shown as nothing) between its parts does. */
			ab_buf_puts(out, "<!-- -->@");
			p++;
		} else if (!put_control(out, &p, &n)) {
			ab_buf_append(out, p, n);
			p += n;
		}
	}
}

void ab_esc_html_to(ab_buf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	while (*p) {
		const char *ent = NULL;

		switch (*p) {
		case '&': ent = "&amp;"; break;
		case '<': ent = "&lt;"; break;
		case '>': ent = "&gt;"; break;
		case '"': ent = "&quot;"; break;
		case '\'': ent = "&#39;"; break;
		}
		if (ent) {
			ab_buf_puts(out, ent);
			p++;
		} else if (!put_control(out, &p, &n)) {
			ab_buf_append(out, p, n);
			p += n;
		}
	}
}

int ab_esc_is_web_url(const char *url)
{
	const unsigned char *p;
	size_t k;

	if (!strncasecmp(url, "http://", 7))
		k = 7;
	else if (!strncasecmp(url, "https://", 8))
		k = 8;
	else
		return 0;
	for (p = (const unsigned char *)url; *p; p++)
		if (*p < 0x20 || *p == 0x7f || is_c1(p))
			return 0;	/* no URL has them; JSON would carry them raw */
	return url[k] && !strchr("/?#", url[k]);
}

void ab_esc_md_url_to(ab_buf *out, const char *url)
{
	const unsigned char *p;

	ab_buf_puts(out, "<");
	for (p = (const unsigned char *)url; *p; p++) {
		if (*p <= 0x20 || *p >= 0x7f || strchr("<>\"`\\", *p))
			ab_buf_printf(out, "%%%02X", *p);
		else
			ab_buf_append(out, p, 1);
	}
	ab_buf_puts(out, ">");
}

int ab_is_object_name(const char *s, size_t n)
{
	size_t i;

	if (n < 7 || n > 64)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
		      (s[i] >= 'A' && s[i] <= 'F')))
			return 0;
	return 1;
}

char *ab_shell_quote(const char *s)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789._+-/:=@%,^";
	const unsigned char *p;
	ab_buf b = {0};
	int control = 0;

	/* zsh expands a word that starts with '=' (=ls is /bin/ls). */
	if (*s && *s != '=' && strspn(s, safe) == strlen(s))
		return ab_xstrdup(s);
	for (p = (const unsigned char *)s; *p && !control; p += utf8_len(p))
		control = *p < 0x20 || *p == 0x7f || is_c1(p) || !utf8_len(p);
	if (control) {
		/* $'...' keeps a line break on one line, as bash and zsh read
		 * it, and shows no control to the terminal the line is on; a
		 * byte that is not UTF-8 is written as \xHH too, which the
		 * terminal cannot turn into another character. */
		ab_buf_puts(&b, "$'");
		for (p = (const unsigned char *)s; *p; p++) {
			size_t n = utf8_len(p);

			if (*p == '\\' || *p == '\'')
				ab_buf_printf(&b, "\\%c", *p);
			else if (*p < 0x20 || *p == 0x7f || !n)
				ab_buf_printf(&b, "\\x%02x", *p);
			else if (is_c1(p)) {
				ab_buf_printf(&b, "\\x%02x\\x%02x", p[0], p[1]);
				p++;
			} else {
				ab_buf_append(&b, p, n);
				p += n - 1;
			}
		}
		ab_buf_puts(&b, "'");
		return ab_buf_steal(&b);
	}
	ab_buf_puts(&b, "'");
	for (; *s; s++) {
		if (*s == '\'')
			ab_buf_puts(&b, "'\\''");
		else
			ab_buf_append(&b, s, 1);
	}
	ab_buf_puts(&b, "'");
	return ab_buf_steal(&b);
}
