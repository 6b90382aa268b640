/* prefetch.h - downloads builds in the background while a probe runs.
 *
 * Owns one worker thread per build being prefetched, each with its own
 * libcurl multi handle, writing verified entries into the cache exactly
 * as a foreground fetch would (content-addressed, atomic renames, so the
 * two never step on each other). Builds that a verdict made useless are
 * cancelled. Once a build is all in the cache, an optional hook may
 * start preparing it in the same thread (bisect.c unpacks it early).
 * Never prints and never reports progress: the foreground's waits are
 * what the person sees.
 */
#ifndef AB_PREFETCH_H
#define AB_PREFETCH_H

#include <signal.h>
#include <stddef.h>
#include "net/cache.h"
#include "net/fetch.h"
#include "index/index.h"

typedef struct ab_prefetch ab_prefetch;

ab_prefetch *ab_prefetch_new(ab_cache *cache, const ab_fetch_options *opt);
/* Cancels and waits for every worker. */
void ab_prefetch_free(ab_prefetch *p);

/* Called in a worker's thread when build key's artifacts are all in the
 * cache (items[i].path), unless the worker was cancelled; *cancel turns
 * non-zero when the build becomes useless. ab_prefetch_wait() and
 * ab_prefetch_keep() wait for it to return. */
typedef void (*ab_prefetch_ready_fn)(void *ud, size_t key, const ab_fetch_item *items,
				     size_t n, const volatile sig_atomic_t *cancel);
void ab_prefetch_on_ready(ab_prefetch *p, ab_prefetch_ready_fn fn, void *ud);

/* Starts fetching build key's artifacts, unless it is already being
 * fetched or everything is in the cache (and there is no ready hook). */
void ab_prefetch_start(ab_prefetch *p, size_t key, const ab_index *idx, const ab_build *bd);

/* Cancels every worker whose build is not among keys[0..n). */
void ab_prefetch_keep(ab_prefetch *p, const size_t *keys, size_t n);

/* Where build key's worker is, without waiting: NONE when there is no
 * worker (never started, refused, or waited for already), FETCHING
 * while it downloads, PREPARING while the ready hook runs, DONE when
 * ab_prefetch_wait() would return at once. */
typedef enum ab_prefetch_stage {
	AB_PREFETCH_NONE,
	AB_PREFETCH_FETCHING,
	AB_PREFETCH_PREPARING,
	AB_PREFETCH_DONE,
} ab_prefetch_stage;
ab_prefetch_stage ab_prefetch_stage_of(const ab_prefetch *p, size_t key);

/* Waits for build key's worker, if there is one. Returns 1 and a reason
 * (caller frees) when the worker found the build unavailable, 0
 * otherwise (the cache then holds what the worker got). While it still
 * downloads, its transfers go to show->progress (when show is not NULL)
 * in the caller's thread, and a cancel flag of the options given to
 * ab_prefetch_new stops it. */
int ab_prefetch_wait(ab_prefetch *p, size_t key, char **reason, const ab_fetch_callbacks *show);

#endif
