/* cache.h - the content-addressed download cache.
 *
 * Owns the cache directory layout: verified files at
 * DIR/sha256/<64 hex>, downloads in progress under DIR/tmp/. An entry
 * exists only once its bytes matched its digest. Never downloads and
 * never prints.
 */
#ifndef AB_CACHE_H
#define AB_CACHE_H

#include <stdbool.h>
#include "error.h"

typedef struct ab_cache ab_cache;

/* Creates the directories when missing; NULL with err (exit 3) when the
 * directory cannot be made or written. */
ab_cache *ab_cache_open(const char *dir, ab_error *err);
void ab_cache_close(ab_cache *c);
const char *ab_cache_dir(const ab_cache *c);

/* Path a verified entry has (whether or not it exists yet). Caller frees. */
char *ab_cache_entry_path(const ab_cache *c, const char *sha256);
bool ab_cache_has(const ab_cache *c, const char *sha256);
/* A fresh temporary file for a download, opened for writing; its path
 * goes to *tmp_path (caller frees). -1 with err on failure. */
int ab_cache_tmp_open(const ab_cache *c, char **tmp_path, ab_error *err);
/* The partial download of sha256 kept between runs, DIR/tmp/<hex>.part,
 * opened for appending and locked against other writers. Returns the fd
 * and the bytes already there in *have; -1 when another process or
 * thread holds it (use ab_cache_tmp_open then) or it cannot be opened. */
int ab_cache_part_open(const ab_cache *c, const char *sha256, char **part_path,
		       long long *have);
/* fsyncs fd's file, renames tmp_path to the entry of sha256 and fsyncs the
 * directory. Closes fd. -1 with err on failure (the temp file is removed). */
int ab_cache_commit(const ab_cache *c, int fd, const char *tmp_path,
		    const char *sha256, ab_error *err);

#endif
