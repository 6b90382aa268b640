/* fetch.h - downloads over libcurl's multi interface.
 *
 * Owns transfers: all artifacts of a build at once, retries with backoff
 * for 5xx, timeouts, resets and truncated bodies, a 404 as "unavailable",
 * the digest check while streaming (or, for a file whose digest is not
 * known beforehand, the caller's check of the finished file), and
 * handing verified files to the cache; pages (listings, checksum lists)
 * read concurrently and revalidated against the cache with the
 * validators their server sent; and the bounds of every read (schemes
 * of URLs from remote content, a speed floor, a time cap for metadata,
 * a size cap when the index gives none). Reports progress and retries
 * through callbacks; never prints.
 */
#ifndef AB_FETCH_H
#define AB_FETCH_H

#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include "net/cache.h"
#include "base/error.h"

typedef struct ab_fetch_callbacks {
	/* Bytes so far of one transfer (total -1 when unknown). */
	void (*progress)(void *ud, const char *url, int64_t now, int64_t total);
	/* A retry or a give-up, in words, for the log. */
	void (*notice)(void *ud, const char *msg);
	void *ud;
} ab_fetch_callbacks;

typedef struct ab_fetch_options {
	long connect_timeout;	/* seconds */
	long stall_seconds;	/* the window: slower than min_speed over it
				 * (a silent server, or a drip): retry */
	long min_speed;		/* bytes/s averaged over stall_seconds */
	int max_retries;	/* per transfer, after the first try, for
				 * transient errors (a cut body that brought
				 * new bytes resumes without using one) */
	double backoff;		/* seconds before the first retry, doubling */
	long max_seconds;	/* a memory read (metadata) ends within this
				 * per try; 0: 10 times stall_seconds */
	int http_only;		/* the URLs came from remote content (or from
				 * a document that did): only http and https,
				 * redirects included; anything else is
				 * refused before a transfer starts */
	int64_t unknown_size_cap;	/* a download whose size is unknown stops
				 * past this (the cache cap); 0: the cache's
				 * default cap. Never past the free space. */
	const char *cacert;	/* NULL: the system's CAs */
	volatile sig_atomic_t *cancel;	/* set by a signal handler: stop now */
	int64_t *received;	/* NULL, or a total that every artifact byte
				 * received is added to (atomically: prefetch
				 * threads share it) */
} ab_fetch_options;

void ab_fetch_options_default(ab_fetch_options *o);

typedef enum ab_fetch_status {
	AB_FETCH_PENDING = 0,
	AB_FETCH_OK,		/* path is a verified cache entry */
	AB_FETCH_UNAVAILABLE,	/* 404, retries exhausted, digest mismatch,
				 * an unknown size past its cap, a URL
				 * that is not http(s) under http_only */
} ab_fetch_status;

typedef struct ab_fetch_item {
	const char *url;	/* in */
	char *const *mirrors;	/* in: other URLs of the same file, tried in turn;
				 * those of an http(s) URL must be http(s) */
	size_t nmirrors;
	const char *sha256;	/* in; NULL when not known beforehand: the file
				 * is downloaded whole (a cache hit cannot be
				 * known), hashed while it streams, and given
				 * to check before it becomes an entry */
	int64_t size;		/* in, -1 when unknown */
	/* in, NULL for none: when sha256 is NULL, the finished download (a
	 * temporary file at path, its digest sha256) is kept only when this
	 * returns 0; otherwise it is removed and the item UNAVAILABLE with
	 * *why (malloc'd, or NULL for a generic reason) as its reason.
	 * Called from the transfer loop (the others wait meanwhile). */
	int (*check)(void *ud, const char *path, const char *sha256, char **why);
	void *check_ud;
	ab_fetch_status status;	/* out */
	char *path;		/* out, caller frees */
	char *reason;		/* out when UNAVAILABLE, caller frees */
	int from_cache;		/* out: nothing was downloaded */
	char got_sha256[65];	/* out when OK: the digest of the file ("" else) */
} ab_fetch_item;

/* Fetches every item into the cache, in parallel. Returns 0 when every
 * item ended OK or UNAVAILABLE; -1 with err (exit 3) for failures that
 * are not the server's (disk full, cache not writable), or exit 4 when
 * *opt->cancel was set. */
int ab_fetch_artifacts(ab_cache *cache, const ab_fetch_options *opt,
		       const ab_fetch_callbacks *cb, ab_fetch_item *items,
		       size_t n, ab_error *err);

/* Reads a whole resource (http, https, file; http and https only under
 * opt->http_only) into memory, for the index. Refuses bodies larger than
 * max and reads slower than opt->max_seconds. Transient errors are
 * retried as above. -1 with err: exit 2 when the URL cannot be read. */
int ab_fetch_to_memory(const char *url, const ab_fetch_options *opt,
		       size_t max, char **data, size_t *len, ab_error *err);

enum {
	AB_PAGE_OK = 0,
	AB_PAGE_MISSING,	/* HTTP 404 or 410, or a file:// URL of nothing */
	AB_PAGE_FAILED,		/* anything else: why says what */
};

typedef struct ab_page {
	char *data;		/* the body, NUL-terminated (ab_page_clear frees) */
	size_t len;
	char *url;		/* the URL after redirects: the base for its links */
	int status;		/* AB_PAGE_* */
	char *why;		/* when not OK: one line naming the URL */
	int revalidated;	/* the server said 304: the body is the kept one */
} ab_page;

/* Reads n pages concurrently (http, https, file; http and https only
 * under opt->http_only), each of at most max bytes, with the retries,
 * the speed floor and the time cap of ab_fetch_to_memory. With a cache,
 * a page kept from before is asked for with If-None-Match and
 * If-Modified-Since from the ETag and Last-Modified its server sent then:
 * a 304 gives the kept body, a 200 replaces it (a page sent with neither
 * is not kept). A file:// URL of a directory is no page (FAILED); one of
 * a file is read (never kept). out[i] is filled for urls[i]. 0 when
 * every page ended OK, MISSING or FAILED; -1 with err (out all cleared)
 * when interrupted (exit 4) or the cache could not be written (exit 3). */
int ab_fetch_pages(ab_cache *cache, const ab_fetch_options *opt, const char *const *urls, size_t n,
		   size_t max, ab_page *out, ab_error *err);
void ab_page_clear(ab_page *p);
/* Pages that ended OK in this process so far (all threads): read anew,
 * and revalidated (304). Either pointer may be NULL. */
void ab_fetch_page_counts(size_t *fetched, size_t *revalidated);

/* curl_global_init once per process. */
void ab_fetch_global_init(void);

#endif
