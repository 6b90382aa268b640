/* fetch_private.h - what the fetch modules share; private to
 * fetch.c (the transfer loop), fetch_sink.c (the thread that
 * writes and hashes bodies) and fetch_pages.c (listings and other
 * small pages, with their validators). Nothing else includes it.
 */
#ifndef AB_FETCH_PRIVATE_H
#define AB_FETCH_PRIVATE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <curl/curl.h>

#include "net/cache.h"
#include "base/digest.h"
#include "base/error.h"
#include "net/fetch.h"
#include "base/util.h"

enum xfer_state { XFER_WAITING, XFER_RUNNING, XFER_DONE };

#define WBUF_SIZE ((size_t)1 << 20)
#define MAX_QUEUED 8		/* full buffers waiting for the sink thread */

struct xfer;

/* The sink thread of one call: writes full buffers to their files and
 * runs them through SHA-256, so that hashing (as costly as receiving on
 * a fast link) and the copy into the page cache run beside the loop that
 * receives. Jobs run in the order given, so each file and its hash see
 * the bytes in order. Started at the first full buffer; a call whose
 * bodies fit one buffer never starts it. */
struct sink_job {
	struct xfer *x;
	char *buf;
	size_t len;
};

typedef struct sink_thread {
	pthread_mutex_t lock;
	pthread_cond_t wake;	/* a job was queued, or stop */
	pthread_cond_t done;	/* a job finished */
	pthread_t thread;
	int started, stop, busy;
	struct sink_job queue[MAX_QUEUED];
	size_t head, count;
	char *spare[MAX_QUEUED + 1];	/* buffers to hand out again */
	size_t nspare;
} sink_thread;

typedef struct xfer {
	ab_fetch_item *item;	/* NULL for a memory transfer */
	const char *url;
	enum xfer_state state;
	int tries;		/* transient failures so far */
	int mismatches;		/* digest mismatches so far */
	double not_before;	/* backoff: do not start before this */
	CURL *easy;
	char errbuf[CURL_ERROR_SIZE];
	/* file sink */
	int fd;
	char *tmp_path;
	ab_sha256 *hash;
	int write_errno;	/* set when writing to disk failed */
	/* memory sink */
	ab_buf *mem;
	size_t mem_max;
	int too_big;
	int gave_up;		/* memory transfer failed; errbuf says why */
	int64_t received;
	sink_thread *sink;	/* the call's sink thread (file transfers) */
	char *wbuf;		/* body bytes not yet written: fewer, larger writes */
	size_t wlen;
	int64_t resume_from;	/* bytes the current request starts after */
	int keep;		/* the next start resumes after what we have */
	int part;		/* tmp_path is DIR/tmp/<hex>.part: kept when cancelled */
	int restarted;		/* the server refused a range once */
	size_t mirror;		/* mirrors of the item tried so far */
	int64_t high;		/* most bytes held at once from this URL */
	int free_resumes;	/* cut bodies resumed without a retry */
	char cut[160];		/* how the last body was cut short, or "" */
	int64_t limit;		/* size unknown: the body stops past this */
	int limit_is_free;	/* ... which is the free space, not the cap */
	int over_cap;		/* it went past */
	const ab_fetch_callbacks *cb;
	int64_t *total;		/* ab_fetch_options.received */
	/* a page (ab_fetch_pages): a memory transfer that may be conditional */
	int is_page;
	struct curl_slist *cond;	/* If-None-Match, If-Modified-Since */
	int no_cond;		/* ask without them: the kept body is gone */
	int missing;		/* the server said 404 or 410 */
	int not_modified;	/* a 304: the body is the kept one */
	char *eff_url;		/* after redirects */
	char *etag, *last_modified;	/* what the server sent with a 200 */
} xfer;

/* The sink thread (fetch_sink.c). */
void ab_sink_init(sink_thread *t);
/* Waits until every buffer handed over has been written and hashed. */
void ab_sink_wait(sink_thread *t);
void ab_sink_end(sink_thread *t);
/* Hands x's full buffer to the sink thread and gives x an empty one. */
void ab_sink_hand_over(xfer *x);
/* Writes and hashes what x's buffer holds, after everything handed over
 * before it; -1 with x->write_errno. */
int ab_sink_flush(xfer *x);

/* The transfer loop (fetch.c): runs xs[0..n) until each is DONE, at
 * most max_running at a time (0: all at once); -1 with err for local
 * failures. */
int ab_fetch_run_all(xfer *xs, size_t n, ab_cache *cache, const ab_fetch_options *opt,
		     size_t max_running, ab_error *err);
int ab_fetch_is_http(const char *url);
/* Ends x for good; takes over reason. */
void ab_fetch_give_up(xfer *x, char *reason);

/* A page read whole (fetch_pages.c): a 304 takes the kept body, a 200
 * brings its validators. */
int ab_fetch_finish_page(xfer *x, ab_cache *cache);

#endif
