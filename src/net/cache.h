/* cache.h - the content-addressed download cache.
 *
 * Owns the cache directory layout: verified files at
 * DIR/sha256/<64 hex>, downloads in progress under DIR/tmp/, where each
 * entry came from under DIR/meta/, entries not yet on disk for sure
 * under DIR/unsynced/. An entry exists only once its bytes matched its
 * digest. Pages (listings, checksum lists: no digest known beforehand)
 * are kept apart, with the validators their server sent, under
 * DIR/pages/<sha256 of the URL> (the body) and <...>.json beside it;
 * they are no entries (never listed, never evicted with them; `cache
 * clean` removes them). Never downloads and never prints.
 */
#ifndef AB_CACHE_H
#define AB_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "base/error.h"

typedef struct ab_cache ab_cache;

/* Creates the directories when missing; NULL with err (exit 3) when the
 * directory cannot be made or written. */
ab_cache *ab_cache_open(const char *dir, ab_error *err);
/* The cache at dir for looking only (ab_cache_list, ab_cache_has,
 * ab_cache_partial_bytes): nothing is made or checked for writing, so a
 * cache another user owns, or on read-only media, can be listed. */
ab_cache *ab_cache_open_to_read(const char *dir);
void ab_cache_close(ab_cache *c);
const char *ab_cache_dir(const ab_cache *c);

/* Path a verified entry has (whether or not it exists yet). Caller frees. */
char *ab_cache_entry_path(const ab_cache *c, const char *sha256);
bool ab_cache_has(const ab_cache *c, const char *sha256);
/* Whether the entry can be used as it is: like ab_cache_has, but an
 * entry written without fsync before a crash is hashed again first (and
 * removed when its bytes no longer match, or made durable when they do). */
bool ab_cache_check(const ab_cache *c, const char *sha256);
/* A fresh temporary file for a download, opened for writing; its path
 * goes to *tmp_path (caller frees). -1 with err on failure. */
int ab_cache_tmp_open(const ab_cache *c, char **tmp_path, ab_error *err);
/* The partial download of sha256 kept between runs, DIR/tmp/<hex>.part,
 * opened for appending and locked against other writers. Returns the fd
 * and the bytes already there in *have; -1 when another process or
 * thread holds it (use ab_cache_tmp_open then) or it cannot be opened. */
int ab_cache_part_open(const ab_cache *c, const char *sha256, char **part_path,
		       long long *have);
/* Renames tmp_path to the entry of sha256 and closes fd. The bytes are
 * not fsynced: a marker naming this boot (DIR/unsynced/<hex>, itself on
 * disk first) makes ab_cache_check verify them again after a crash.
 * Where no marker can be made, fd is fsynced first, as is the directory
 * after the rename. -1 with err on failure (the temp file is removed). */
int ab_cache_commit(const ab_cache *c, int fd, const char *tmp_path,
		    const char *sha256, ab_error *err);

/* Marks an entry as just used (its mtime), for least-recently-used
 * eviction. */
void ab_cache_touch(const ab_cache *c, const char *sha256);
/* Remembers where an entry came from (DIR/meta/<hex>), for listings. */
void ab_cache_note_url(const ab_cache *c, const char *sha256, const char *url);

typedef struct ab_cache_entry {
	char sha256[65];
	int64_t size;
	time_t used;		/* last use */
	char *url;		/* where it came from, or NULL */
} ab_cache_entry;

/* Every verified entry, least recently used first. Free with
 * ab_cache_entries_free. -1 with err when the directory cannot be read. */
int ab_cache_list(const ab_cache *c, ab_cache_entry **out, size_t *n, ab_error *err);
void ab_cache_entries_free(ab_cache_entry *v, size_t n);
/* Bytes held by entries, and by partial downloads. */
int64_t ab_cache_partial_bytes(const ab_cache *c);

/* Removes least recently used entries until the cache holds at most max
 * bytes, never one whose digest is in keep[0..nkeep). Returns the bytes
 * freed. */
int64_t ab_cache_evict(const ab_cache *c, int64_t max, const char *const *keep, size_t nkeep);

/* Removes every entry and page (older_than 0) or those not used for
 * older_than seconds, and partial downloads; returns the bytes freed. */
int64_t ab_cache_clean(const ab_cache *c, time_t older_than);

/* ---- pages ---- */

/* What a server said of a page last time: its validators (NULL when it
 * sent none) and the URL it came from after redirects. */
typedef struct ab_cache_page_info {
	char *etag;
	char *last_modified;
	char *effective_url;
} ab_cache_page_info;

void ab_cache_page_info_clear(ab_cache_page_info *info);
/* The validators kept for url: 0 with *info filled (free with
 * ab_cache_page_info_clear), -1 when nothing usable is kept. */
int ab_cache_page_get(const ab_cache *c, const char *url, ab_cache_page_info *info);
/* The kept body of url, at most max bytes, NUL-terminated (caller
 * frees); its digest is checked against the one kept beside it, and its
 * use noted (mtime). 0, or -1 when it is missing, damaged or larger. */
int ab_cache_page_read(const ab_cache *c, const char *url, size_t max, char **data, size_t *len);
/* Keeps len bytes of data as url's body with info beside it, each file
 * written to a temporary name and renamed (a crash leaves the old pair,
 * the new body with old validators, or the new pair: the digest kept in
 * the info refuses a body that does not go with it). -1 with err (exit 3)
 * when they cannot be written; nothing of url is kept then. */
int ab_cache_page_put(const ab_cache *c, const char *url, const ab_cache_page_info *info,
		      const char *data, size_t len, ab_error *err);
/* Removes what is kept of url (a page that is gone or has no validators). */
void ab_cache_page_forget(const ab_cache *c, const char *url);

/* The default cap: a quarter of what the cache's file system could give
 * it (free space plus what the cache holds), at least AB_CACHE_CAP_FLOOR. */
#define AB_CACHE_CAP_FLOOR ((int64_t)256 << 20)
int64_t ab_cache_default_cap(const ab_cache *c);

#endif
