/* sums.c - checksum files into {name, SHA-256} pairs (see sums.h).
 * Line forms, after an optional leading '\' that marks an escaped name:
 *   GNU   HEX SP (SP | '*') NAME
 *   BSD   TAG SP '(' NAME ')' SP '=' SP HEX   (TAG other than SHA256: skipped)
 *   lone  HEX                                 (only with lone_name) */
#include "config.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "farms/names.h"
#include "farms/sums.h"
#include "base/i18n.h"
#include "base/util.h"

struct parser {
	const char *label;
	const char *lone_name;
	ab_sums *s;
	size_t cap, line;
	ab_error *err;
};

static int fail(struct parser *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct parser *P, const char *fmt, ...)
{
	char reason[700];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof reason, fmt, ap);
	va_end(ap);
	ab_error_set(P->err, AB_EXIT_USAGE, _("%s: line %zu: %s"), P->label, P->line, reason);
	return -1;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static size_t hex_run(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && is_hex(s[i]))
		i++;
	return i;
}

/* "\\" -> '\', "\n" -> line feed, "\r" -> carriage return, as coreutils
 * writes them; len is updated. -1 on any other escape. */
static int unescape(char *s, size_t *len)
{
	size_t i, o = 0;

	for (i = 0; i < *len; i++) {
		if (s[i] != '\\') {
			s[o++] = s[i];
			continue;
		}
		if (++i == *len)
			return -1;
		if (s[i] == '\\')
			s[o++] = '\\';
		else if (s[i] == 'n')
			s[o++] = '\n';
		else if (s[i] == 'r')
			s[o++] = '\r';
		else
			return -1;
	}
	*len = o;
	return 0;
}

/* Checks the name; takes off leading "./". Returns the name to keep
 * (allocated) or NULL after fail(). */
static char *check_name(struct parser *P, const char *name, size_t len)
{
	char q[128];
	size_t i, start;

	while (len >= 2 && name[0] == '.' && name[1] == '/')
		name += 2, len -= 2;
	ab_farm_quote(name, len, q, sizeof q);
	if (len == 0)
		return fail(P, _("the file name is empty")), NULL;
	if (ab_has_control(name, len))
		return fail(P, _("the file name \"%s\" holds a control character"), q), NULL;
	if (!ab_farm_utf8_valid(name, len))
		return fail(P, _("the file name \"%s\" is not valid UTF-8"), q), NULL;
	if (name[0] == '/')
		return fail(P, _("the file name \"%s\" is absolute"), q), NULL;
	for (start = i = 0; i <= len; i++) {
		if (i < len && name[i] != '/')
			continue;
		if (i - start == 2 && name[start] == '.' && name[start + 1] == '.')
			return fail(P, _("the file name \"%s\" climbs out with \"..\""), q), NULL;
		if (i == start || (i - start == 1 && name[start] == '.'))
			return fail(P, _("the file name \"%s\" has an empty or \".\" component"), q), NULL;
		start = i + 1;
	}
	return ab_xstrndup(name, len);
}

static int add(struct parser *P, const char *hex, const char *name, size_t len, bool escaped)
{
	char *copy = ab_xstrndup(name, len), *kept;
	ab_sum *e;
	int i;

	if (escaped && unescape(copy, &len) < 0) {
		free(copy);
		return fail(P, _("a backslash in the file name that is not \\\\, \\n or \\r"));
	}
	kept = check_name(P, copy, len);
	free(copy);
	if (!kept)
		return -1;
	if (P->s->n == P->cap) {
		P->cap = P->cap ? 2 * P->cap : 32;
		P->s->items = ab_xrealloc(P->s->items, P->cap * sizeof *P->s->items);
	}
	e = &P->s->items[P->s->n++];
	e->name = kept;
	e->line = P->line;
	for (i = 0; i < 64; i++)
		e->sha256[i] = (char)(hex[i] >= 'A' && hex[i] <= 'F' ? hex[i] - 'A' + 'a' : hex[i]);
	e->sha256[64] = '\0';
	return 0;
}

static int wrong_length(struct parser *P, size_t h)
{
	if (h == 40)
		return fail(P, _("a SHA-1 digest (40 hex digits) where SHA-256 (64) is expected"));
	if (h == 128)
		return fail(P, _("a SHA-512 digest (128 hex digits) where SHA-256 (64) is expected"));
	return fail(P, _("not a checksum line (expected 64 hex digits, two spaces and a file name)"));
}

/* "TAG (NAME) = HEX"; 1 when the line is not of this form. */
static int bsd_line(struct parser *P, const char *s, size_t n, bool escaped)
{
	size_t t = 0, h;
	const char *end;

	while (t < n && ((s[t] >= 'A' && s[t] <= 'Z') || (s[t] >= '0' && s[t] <= '9') || s[t] == '-'))
		t++;
	if (t == 0 || t + 2 > n || s[t] != ' ' || s[t + 1] != '(')
		return 1;
	/* the name may hold ") = ": the digest is what follows the last one */
	for (end = s + n - 4; end > s + t + 1; end--)
		if (!memcmp(end, ") = ", 4))
			break;
	if (end <= s + t + 1)
		return 1;
	if (t != 6 || memcmp(s, "SHA256", 6))
		return 0;	/* another algorithm's line */
	h = hex_run(end + 4, (size_t)(s + n - end - 4));
	if (h != (size_t)(s + n - end - 4) || h != 64)
		return wrong_length(P, h == (size_t)(s + n - end - 4) ? h : 0);
	return add(P, end + 4, s + t + 2, (size_t)(end - s - t - 2), escaped);
}

static int one_line(struct parser *P, const char *s, size_t n)
{
	bool escaped = n && s[0] == '\\';
	const char *hex;
	size_t h;
	int rc;

	if (escaped)
		s++, n--;
	if ((rc = bsd_line(P, s, n, escaped)) <= 0)
		return rc;
	hex = s;
	h = hex_run(s, n);
	if (h == n && h == 64 && !escaped) {
		if (!P->lone_name)
			return fail(P, _("a digest with no file name"));
		return add(P, hex, P->lone_name, strlen(P->lone_name), false);
	}
	if (h != 64 || n < 66 || (s[64] != ' ' && s[64] != '\t'))
		return wrong_length(P, h == n || s[h] == ' ' || s[h] == '\t' ? h : 0);
	s += 65, n -= 65;
	if (s[0] == ' ' || s[0] == '*')
		s++, n--;	/* text or binary mode: the same bytes */
	return add(P, hex, s, n, escaped);
}

static int cmp_item(const void *a, const void *b)
{
	const ab_sum *x = *(ab_sum *const *)a, *y = *(ab_sum *const *)b;
	int d = strcmp(x->name, y->name);

	return d ? d : (x > y) - (x < y);
}

/* A name listed twice: the same digest is kept once (its first line),
 * two digests refuse the file. */
static int check_duplicates(struct parser *P)
{
	ab_sums *s = P->s;
	ab_sum **v;
	size_t i, o;
	char q[128];

	if (s->n < 2)
		return 0;
	v = ab_xmalloc(s->n * sizeof *v);
	for (i = 0; i < s->n; i++)
		v[i] = &s->items[i];
	qsort(v, s->n, sizeof *v, cmp_item);
	for (i = 1; i < s->n; i++) {
		if (strcmp(v[i]->name, v[i - 1]->name))
			continue;
		if (strcmp(v[i]->sha256, v[i - 1]->sha256)) {
			P->line = v[i]->line;
			fail(P, _("\"%s\" is listed twice with different digests (lines %zu and %zu)"),
			     ab_farm_quote(v[i]->name, strlen(v[i]->name), q, sizeof q), v[i - 1]->line,
			     v[i]->line);
			free(v);
			return -1;
		}
		v[i]->sha256[0] = '\0';	/* the same again: dropped below */
		v[i]->line = v[i - 1]->line;
	}
	free(v);
	for (i = o = 0; i < s->n; i++) {
		if (s->items[i].sha256[0])
			s->items[o++] = s->items[i];
		else
			free(s->items[i].name);
	}
	s->n = o;
	return 0;
}

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(s, prefix, k);
}

/* Ubuntu mainline CHECKSUMS: "# Checksums-Sha1:" and "# Checksums-Sha256:"
 * sections; only the second counts. */
static bool has_sections(const char *data, size_t len)
{
	const char *p = data, *end = data + len, *nl;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (starts(p, (size_t)(nl - p), "# Checksums-"))
			return true;
	}
	return false;
}

static bool blank(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return false;
	return true;
}

static int parse_lines(struct parser *P, const char *data, size_t len)
{
	const char *p = data, *end = data + len, *nl;
	bool sections = has_sections(data, len), in_sha256 = !sections;
	size_t n;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (++P->line > AB_SUMS_MAX_LINES)
			return fail(P, _("more than %u lines; refused"), AB_SUMS_MAX_LINES);
		n = (size_t)(nl - p);
		if (n && p[n - 1] == '\r')
			n--;	/* written on Windows */
		if (sections && starts(p, n, "# Checksums-"))
			in_sha256 = starts(p, n, "# Checksums-Sha256:");
		if (!in_sha256 || (n && p[0] == '#'))
			continue;
		if (blank(p, n))
			continue;
		if (one_line(P, p, n) < 0)
			return -1;
	}
	return 0;
}

ab_sums *ab_sums_parse(const char *data, size_t len, const char *label, const char *lone_name,
		       ab_error *err)
{
	struct parser P = {0};
	char q[128];

	P.label = label ? ab_farm_quote(label, strlen(label), q, sizeof q) : "checksums";
	P.lone_name = lone_name;
	P.err = err;
	if (len > AB_SUMS_MAX_BYTES) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: larger than %u MiB; refused"), P.label,
			     AB_SUMS_MAX_BYTES >> 20);
		return NULL;
	}
	P.s = ab_xcalloc(1, sizeof *P.s);
	if (parse_lines(&P, data, len) < 0 || check_duplicates(&P) < 0) {
		ab_sums_free(P.s);
		return NULL;
	}
	if (P.s->n == 0) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: no SHA-256 checksum in it"), P.label);
		ab_sums_free(P.s);
		return NULL;
	}
	return P.s;
}

const ab_sum *ab_sums_find(const ab_sums *s, const char *name)
{
	size_t i;

	for (i = 0; s && i < s->n; i++)
		if (!strcmp(s->items[i].name, name))
			return &s->items[i];
	return NULL;
}

void ab_sums_free(ab_sums *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		free(s->items[i].name);
	free(s->items);
	free(s);
}
