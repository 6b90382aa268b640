/* repodata.h - a yum/dnf repository as an index (CONTRACT.md 4a).
 *
 * Owns reading URL/repodata/repomd.xml and the primary metadata it
 * points to (gzip, xz or zstd, checked against repomd's checksum) with
 * libxml2, and turning every version of one package into a build: id
 * VERSION-RELEASE, ordered by rpm version comparison (epoch included),
 * commit from a git<hex> part of the release, sha256 and size from the
 * repodata. Downloads through fetch.c; every URL a remote repository
 * names is resolved with libcurl's parser and must be http or https.
 * Never prints.
 */
#ifndef AB_FARMS_REPODATA_H
#define AB_FARMS_REPODATA_H

#include "base/error.h"
#include "net/fetch.h"
#include "index/index.h"

/* The index for package name in the repository at url (a path,
 * file://, http:// or https://, with or without a trailing slash).
 * NULL with err: exit 2 when there is no repository there, its metadata
 * is damaged, or it holds no package of that name. */
ab_index *ab_repodata_load(const char *url, const char *package,
			   const ab_fetch_options *fopt, ab_error *err);

/* The same without any fetch, from the bytes of repomd.xml and of the
 * primary metadata already decompressed (its checksum is the caller's
 * to check), as the repository at url would give them: for tests and
 * fuzzing. NULL with err (exit 2). */
ab_index *ab_repodata_parse(const char *repomd, size_t repomd_len, const char *primary,
			    size_t primary_len, const char *url, const char *package,
			    ab_error *err);

#endif
