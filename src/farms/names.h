/* names.h - checks on names read from farms (listings, checksum files),
 * shared by listing.c and sums.c. Owns nothing; never allocates, never
 * prints. */
#ifndef AB_FARMS_NAMES_H
#define AB_FARMS_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* Whether s[0..n) is valid UTF-8: no overlong form, no surrogate,
 * nothing beyond U+10FFFF. */
bool ab_farm_utf8_valid(const char *s, size_t n);
/* A copy of s[0..n) fit for a one-line message: at most 100 bytes,
 * control bytes (a line break, an escape sequence) and bytes that are
 * not UTF-8 made '?'. Returns buf. */
const char *ab_farm_quote(const char *s, size_t n, char *buf, size_t size);

#endif
