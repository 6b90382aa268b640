/* fetch.h - downloads over libcurl's multi interface.
 *
 * Owns transfers: all artifacts of a build at once, retries with backoff
 * for 5xx, timeouts, resets and truncated bodies, a 404 as "unavailable",
 * the digest check while streaming, and handing verified files to the
 * cache; and the bounds of every read (schemes of URLs from remote
 * content, a speed floor, a time cap for metadata, a size cap when the
 * index gives none). Reports progress and retries through callbacks;
 * never prints.
 */
#ifndef AB_FETCH_H
#define AB_FETCH_H

#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include "cache.h"
#include "error.h"

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
	const char *sha256;	/* in */
	int64_t size;		/* in, -1 when unknown */
	ab_fetch_status status;	/* out */
	char *path;		/* out, caller frees */
	char *reason;		/* out when UNAVAILABLE, caller frees */
	int from_cache;		/* out: nothing was downloaded */
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

/* curl_global_init once per process. */
void ab_fetch_global_init(void);

#endif
