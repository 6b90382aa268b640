/* sums.h - checksum files published beside builds, parsed into
 * {name, SHA-256} pairs: GNU SHA256SUMS (text and binary mode, and the
 * backslash-escaped lines coreutils writes for names with '\' or a line
 * break), BSD tags ("SHA256 (NAME) = HEX"), a FILE.sha256 holding one
 * digest, and Ubuntu mainline CHECKSUMS (its "# Checksums-Sha256:"
 * section only), as docs/farms.md describes.
 *
 * Owns the parsed list. Parses bytes handed to it; never opens a file or
 * a connection and never prints. It says which digest a file should
 * have, nothing about whether the file has it. Every refusal names the
 * file (its label) and the line, with exit status AB_EXIT_USAGE.
 */
#ifndef AB_FARMS_SUMS_H
#define AB_FARMS_SUMS_H

#include <stddef.h>
#include "base/error.h"

/* A larger file is refused unread: fetch at most this many bytes. */
#define AB_SUMS_MAX_BYTES (16u << 20)
/* A file with more lines is refused. */
#define AB_SUMS_MAX_LINES 200000u

typedef struct ab_sum {
	char *name;		/* relative: never absolute, no ".." or empty
				 * component, no control character, valid
				 * UTF-8; a leading "./" is taken off */
	char sha256[65];	/* lowercase hex */
	size_t line;		/* 1-based, for messages */
} ab_sum;

typedef struct ab_sums {
	ab_sum *items;		/* in file order; a name appears once */
	size_t n;
} ab_sums;

/* Parses len bytes of a checksum file. label names it in messages (its
 * URL, say). lone_name is the name a bare "HEX" line stands for (the
 * FILE of FILE.sha256); NULL refuses such a line. Lines starting with
 * '#' are comments, except Ubuntu's "# Checksums-...:" section headers:
 * when a file has them, only the lines of its Sha256 section count.
 * A name listed twice with the same digest is kept once. NULL with err
 * set on any malformed line, a name listed twice with different
 * digests, a file too large or too long, or one with no SHA-256 line. */
ab_sums *ab_sums_parse(const char *data, size_t len, const char *label, const char *lone_name,
		       ab_error *err);
/* The entry for name, or NULL. */
const ab_sum *ab_sums_find(const ab_sums *s, const char *name);
void ab_sums_free(ab_sums *s);

#endif
