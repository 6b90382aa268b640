/* indexgen.h - writes an index (format version 1) for packages and
 * archives on disk: what a farm runs after each build (`artbisect index`).
 *
 * Owns finding the artifacts under the given paths, reading RPMs and
 * .debs for name, version and commit (rpmpkg.c, deb.c), hashing, and the
 * order: packages by version comparison, other archives by natural name
 * order. Produces JSON text with jansson; never prints.
 */
#ifndef AB_INDEXGEN_H
#define AB_INDEXGEN_H

#include <stddef.h>
#include "base/error.h"

typedef struct ab_indexgen_options {
	const char *name;	/* the index's "name", or NULL */
	const char *base_url;	/* artifact URLs are it + the path under the
				 * PATHs' directory; NULL: relative to the
				 * output's directory */
	const char *output;	/* where the index will be written (relative URLs
				 * are made relative to its directory), or NULL
				 * for standard output: relative to the cwd */
	const char *const *packages;	/* package names to take (--package), or
				 * NULL: all, when they are one project's */
	size_t npackages;
} ab_indexgen_options;

/* The index document for the files under paths (files or directories,
 * searched recursively), as UTF-8 JSON text ending in a newline. NULL with
 * err: exit 2 for a path that does not exist or holds no artifact, and
 * for packages of several projects (names that never share a version,
 * such as tzdata and openssl, unlike kernel and kernel-core) unless
 * opt->packages names the ones to take. */
char *ab_indexgen(const char *const *paths, size_t n, const ab_indexgen_options *opt,
		  ab_error *err);

#endif
