/* test-sums.c - checksum files (src/farms/sums.c): GNU SHA256SUMS in
 * text and binary mode and with escaped names, BSD tags, lone .sha256
 * files, Ubuntu mainline CHECKSUMS; and every refusal, with its line:
 * malformed lines, names listed twice with two digests, names that
 * climb or are absolute or hold control characters, the caps. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "farms/sums.h"
#include "base/util.h"
#include "tap.h"

#define H1 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define H1UP "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF"
#define H2 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA1 "da39a3ee5e6b4b0d3255bfef95601890afd80709"

static ab_sums *parse(const char *doc, const char *lone, ab_error *err)
{
	ab_error_clear(err);
	return ab_sums_parse(doc, strlen(doc), "http://h/v6.8/SHA256SUMS", lone, err);
}

static int has(const ab_sums *s, const char *name, const char *hex)
{
	const ab_sum *e = ab_sums_find(s, name);

	return e && !strcmp(e->sha256, hex);
}

static void good(void)
{
	ab_error err;
	ab_sums *s;

	s = parse(H1 "  linux.tar.zst\n" H2 " *binary.iso\n" H1UP "  upper.deb\r\n\n" H2 "  ./dot/slash.deb\n"
		  H1 "  name with  spaces \n" H1 "  amd64/linux-image.deb\n", NULL, &err);
	tap_ok(s && s->n == 6, "GNU SHA256SUMS: 6 lines (%s)", s ? "" : err.msg);
	tap_ok(has(s, "linux.tar.zst", H1) && has(s, "binary.iso", H2), "text and binary ('*') mode");
	tap_ok(has(s, "upper.deb", H1), "upper-case hex made lower case, CRLF taken off");
	tap_ok(has(s, "dot/slash.deb", H2), "a leading ./ taken off");
	tap_ok(has(s, "name with  spaces ", H1), "spaces in names kept as they are");
	tap_ok(has(s, "amd64/linux-image.deb", H1) && s && s->items[5].line == 7, "a relative path; line numbers kept");
	ab_sums_free(s);

	s = parse("\\" H1 "  back\\\\slash\n" H2 "  plain\\name\n", NULL, &err);
	tap_ok(has(s, "back\\slash", H1), "escaped line: \\\\ is one backslash (%s)", s ? "" : err.msg);
	tap_ok(has(s, "plain\\name", H2), "a backslash in an unescaped line is a backslash");
	ab_sums_free(s);

	s = parse("SHA256 (linux.tar.zst) = " H1 "\nSHA512 (linux.tar.zst) = " H1 H1 "\nMD5 (x) = 00\n"
		  "SHA256 (odd) = name) = " H2 "\n\\SHA256 (esc\\\\aped) = " H1 "\n", NULL, &err);
	tap_ok(s && s->n == 3 && has(s, "linux.tar.zst", H1), "BSD tags: SHA256 read, SHA512 and MD5 skipped (%s)",
	       s ? "" : err.msg);
	tap_ok(has(s, "odd) = name", H2), "BSD: a name holding \") = \"");
	tap_ok(has(s, "esc\\aped", H1), "BSD: an escaped name");
	ab_sums_free(s);

	s = parse(H1 "\n", "linux-6.8.iso", &err);
	tap_ok(s && s->n == 1 && has(s, "linux-6.8.iso", H1), "a lone digest names the file it sits beside");
	ab_sums_free(s);
	s = parse(H2 "  linux-6.8.iso", "linux-6.8.iso", &err);
	tap_ok(s && s->n == 1 && has(s, "linux-6.8.iso", H2), "a .sha256 file with a name and no final newline");
	ab_sums_free(s);

	s = parse("# Checksums-Sha1:\n" SHA1 "  amd64/linux-headers.deb\n" SHA1 "  amd64/linux-image.deb\n\n"
		  "# Checksums-Sha256:\n" H1 "  amd64/linux-headers.deb\n" H2 "  amd64/linux-image.deb\n\n", NULL, &err);
	tap_ok(s && s->n == 2 && has(s, "amd64/linux-headers.deb", H1) && has(s, "amd64/linux-image.deb", H2),
	       "Ubuntu mainline CHECKSUMS: the Sha256 section only (%s)", s ? "" : err.msg);
	ab_sums_free(s);
	s = parse("# Checksums-Sha256:\n" H1 "  a.deb\n# Checksums-Sha1:\n" SHA1 "  a.deb\nnot even a line\n", NULL, &err);
	tap_ok(s && s->n == 1 && has(s, "a.deb", H1), "mainline: the section ends at the next header");
	ab_sums_free(s);

	s = parse("# made by sha256sum\n" H1 "  a\n" H1 "  a\n", NULL, &err);
	tap_ok(s && s->n == 1 && s->items[0].line == 2, "a comment skipped; a name listed twice with one digest kept once");
	ab_sums_free(s);
}

static void bad(void)
{
	static const struct {
		const char *doc, *lone, *want;
	} cases[] = {
		{ H1 "  a\n" H2 "  b\n" H2 "  a\n", NULL,
		  "SHA256SUMS: line 3: \"a\" is listed twice with different digests (lines 1 and 3)" },
		{ H1 "  a\n\nnot a line\n", NULL, "SHA256SUMS: line 3: not a checksum line" },
		{ SHA1 "  a.deb\n", NULL, "line 1: a SHA-1 digest (40 hex digits) where SHA-256 (64) is expected" },
		{ H1 H1 "  a.deb\n", NULL, "line 1: a SHA-512 digest" },
		{ H1 "x  a.deb\n", NULL, "line 1: not a checksum line" },
		{ H1 "\n", NULL, "line 1: a digest with no file name" },
		{ H1 "  \n", NULL, "line 1: the file name is empty" },
		{ H1 "  ../../etc/passwd\n", NULL, "line 1: the file name \"../../etc/passwd\" climbs out with \"..\"" },
		{ H1 "  a/../../b\n", NULL, "climbs out" },
		{ H1 "  a/..\n", NULL, "climbs out" },
		{ H1 "  /etc/passwd\n", NULL, "line 1: the file name \"/etc/passwd\" is absolute" },
		{ H1 "  a//b\n", NULL, "has an empty or \".\" component" },
		{ H1 "  a/./b\n", NULL, "has an empty or \".\" component" },
		{ H1 "  dir/\n", NULL, "has an empty or \".\" component" },
		{ H1 "  a\tb\n", NULL, "the file name \"a?b\" holds a control character" },
		{ H1 "  a\033[2Jb\n", NULL, "\"a?[2Jb\" holds a control character" },
		{ "\\" H1 "  a\\nb\n", NULL, "line 1: the file name \"a?b\" holds a control character" },
		{ "\\" H1 "  a\\tb\n", NULL, "line 1: a backslash in the file name that is not" },
		{ "\\" H1 "  a\\\n", NULL, "a backslash in the file name" },
		{ H1 "  caf\xe9\n", NULL, "the file name \"caf?\" is not valid UTF-8" },
		{ H1 "  caf\xc3\xa9\x01\n", NULL, "the file name \"caf\xc3\xa9?\" holds a control" },
		{ "SHA256 (a) = " SHA1 "\n", NULL, "a SHA-1 digest" },
		{ "SHA256 (a) = zz\n", NULL, "not a checksum line" },
		{ "SHA256 (../a) = " H1 "\n", NULL, "climbs out" },
		{ "", NULL, "SHA256SUMS: no SHA-256 checksum in it" },
		{ "# Checksums-Sha1:\n" SHA1 "  a\n", NULL, "no SHA-256 checksum" },
		{ "# Checksums-Sha256:\n" SHA1 "  a\n", NULL, "line 2: a SHA-1 digest" },
		{ H1 "\n", "../x", "climbs out" },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		ab_error err;
		ab_sums *s = parse(cases[i].doc, cases[i].lone, &err);

		tap_ok(!s && err.code == AB_EXIT_USAGE && strstr(err.msg, cases[i].want) && !strchr(err.msg, '\n') &&
			       !strchr(err.msg, '\033'),
		       "refused %zu: %s", i, err.msg);
		ab_sums_free(s);
	}
}

static void caps(void)
{
	ab_error err;
	ab_buf b = {0};
	ab_sums *s;
	size_t i;

	for (i = 0; i < AB_SUMS_MAX_LINES; i++)
		ab_buf_printf(&b, H1 "  f%zu\n", i);
	s = parse(b.data, NULL, &err);
	tap_ok(s && s->n == AB_SUMS_MAX_LINES, "200,000 lines: read");
	ab_sums_free(s);
	ab_buf_puts(&b, "\n");
	s = parse(b.data, NULL, &err);
	tap_ok(!s && strstr(err.msg, "line 200001: more than 200000 lines; refused"), "200,001 lines: %s", err.msg);
	ab_buf_free(&b);
	ab_error_clear(&err);
	s = ab_sums_parse("", (size_t)AB_SUMS_MAX_BYTES + 1, "SUMS", NULL, &err);
	tap_ok(!s && !strcmp(err.msg, "SUMS: larger than 16 MiB; refused"), "over 16 MiB: %s", err.msg);
	ab_error_clear(&err);
	s = ab_sums_parse(H1 "  a\0b\n", 68 + 3, "SUMS", NULL, &err);
	tap_ok(!s && strstr(err.msg, "SUMS: line 1: the file name \"a?b\" holds a control character"),
	       "a NUL byte in a name: %s", err.msg);
}

int main(void)
{
	good();
	bad();
	caps();
	return tap_done();
}
