/* fetch.c - see fetch.h.
 *
 * One loop over libcurl's multi interface drives every transfer of a
 * call. A transfer streams into a temporary file in the cache while its
 * bytes go through SHA-256; only a matching digest lets the file become a
 * cache entry. Transient failures (5xx, 408, 429, timeouts, resets,
 * truncated bodies) are retried with exponential backoff and jitter; a
 * cut body that brought bytes not seen before resumes at once, without
 * using up a retry. What no index bounds is bounded here: a body of
 * unknown size by the cache cap and the free space, a drip by a speed
 * floor, a metadata read by a time cap, and URLs from remote content by
 * the schemes they may use. The sink thread is fetch_sink.c's, pages
 * (listings and their validators) fetch_pages.c's.
 */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/random.h>
#include <sys/statvfs.h>
#include <curl/curl.h>
#include "base/digest.h"
#include "net/fetch_private.h"
#include "base/i18n.h"
#include "base/util.h"

/* Cut bodies that may resume for free: each must bring new bytes, and
 * a body halved at every cut is whole (to a byte) within 32 for 4 GiB;
 * beyond that a server cutting every body pays with retries. */
#define MAX_FREE_RESUMES 32
/* Free space a download of unknown size leaves on the cache's disk. */
#define FREE_MARGIN ((int64_t)16 << 20)

/* Connections, DNS answers and TLS sessions outlive one fetch call, so
 * the next step's download reuses the connection of the last. libcurl
 * does not support one connection cache used by concurrent threads, so
 * each call takes a share of its own from a small pool for as long as it
 * runs (prefetch workers run calls at the same time as the foreground). */
#define SHARE_POOL 8
static pthread_mutex_t share_lock = PTHREAD_MUTEX_INITIALIZER;
static CURLSH *share_pool[SHARE_POOL];
static int share_busy[SHARE_POOL];

/* A share no other running call holds, or NULL (then nothing is shared). */
static CURLSH *share_acquire(int *slot)
{
	CURLSH *sh = NULL;
	int i;

	*slot = -1;
	pthread_mutex_lock(&share_lock);
	for (i = 0; i < SHARE_POOL; i++) {
		if (share_busy[i])
			continue;
		if (!share_pool[i]) {
			CURLSH *n = curl_share_init();

			if (!n)
				break;
			curl_share_setopt(n, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
			curl_share_setopt(n, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
			curl_share_setopt(n, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
			share_pool[i] = n;
		}
		share_busy[i] = 1;
		sh = share_pool[i];
		*slot = i;
		break;
	}
	pthread_mutex_unlock(&share_lock);
	return sh;
}

static void share_release(int slot)
{
	if (slot < 0)
		return;
	pthread_mutex_lock(&share_lock);
	share_busy[slot] = 0;
	pthread_mutex_unlock(&share_lock);
}

void ab_fetch_global_init(void)
{
	static int done;
	if (!done) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		done = 1;
	}
}

void ab_fetch_options_default(ab_fetch_options *o)
{
	memset(o, 0, sizeof *o);
	o->connect_timeout = 30;
	o->stall_seconds = 60;
	o->min_speed = 1024;
	o->max_retries = 3;
	o->backoff = 1.0;
	o->cacert = NULL;
}

static void notice(const ab_fetch_callbacks *cb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void notice(const ab_fetch_callbacks *cb, const char *fmt, ...)
{
	va_list ap;
	char msg[1024];

	if (!cb || !cb->notice)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	cb->notice(cb->ud, msg);
}

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *ud)
{
	xfer *x = ud;
	size_t n = size * nmemb, off = 0;

	if (x->mem) {
		if (x->mem->len + n > x->mem_max) {
			x->too_big = 1;
			return 0;
		}
		if (!x->mem->cap) {
			/* The whole body at once when its size is known: a big
			 * index is then never copied to a bigger buffer. */
			curl_off_t cl = -1;

			if (curl_easy_getinfo(x->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) == CURLE_OK &&
			    cl > 0 && (uint64_t)cl <= x->mem_max)
				ab_buf_reserve(x->mem, (size_t)cl + 1);
		}
		ab_buf_append(x->mem, ptr, n);
		x->received += (int64_t)n;
		return n;
	}
	/* A body longer than the index says is wrong: stop early. */
	if (x->item->size >= 0 && x->received + (int64_t)n > x->item->size) {
		x->too_big = 1;
		return 0;
	}
	/* No size to hold it to: the cache cap and the free space do. */
	if (x->item->size < 0 && x->received + (int64_t)n > x->limit) {
		x->over_cap = 1;
		return 0;
	}
	/* The sink thread could not write: stop this transfer. */
	if (__atomic_load_n(&x->write_errno, __ATOMIC_ACQUIRE))
		return 0;
	if (!x->wbuf)
		x->wbuf = ab_xmalloc(WBUF_SIZE);
	while (off < n) {
		size_t k = n - off < WBUF_SIZE - x->wlen ? n - off : WBUF_SIZE - x->wlen;

		memcpy(x->wbuf + x->wlen, ptr + off, k);
		x->wlen += k;
		off += k;
		if (x->wlen == WBUF_SIZE)
			ab_sink_hand_over(x);
	}
	x->received += (int64_t)n;
	if (x->total)
		__atomic_fetch_add(x->total, (int64_t)n, __ATOMIC_RELAXED);
	return n;
}

static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow,
		       curl_off_t ultotal, curl_off_t ulnow)
{
	xfer *x = ud;
	int64_t total = dltotal > 0 ? (int64_t)dltotal : -1;

	if (x->item && x->item->size >= 0)
		total = x->item->size;
	else if (total >= 0)
		total += x->resume_from;
	/* curl counts from the resume offset; the person wants the whole. */
	if (x->cb && x->cb->progress)
		x->cb->progress(x->cb->ud, x->url, x->resume_from + (int64_t)dlnow, total);
	return 0;
}

int ab_fetch_is_http(const char *url)
{
	return !strncasecmp(url, "http://", 7) || !strncasecmp(url, "https://", 8);
}

/* Whether x may use http and https only: every URL under opt->http_only,
 * and a mirror of an http(s) URL (a local index gives mirrors to file://
 * URLs only, a remote one to http(s) URLs, which it may not send to a
 * local file). */
static int http_only(const xfer *x, const ab_fetch_options *opt)
{
	return opt->http_only || (x->item && x->url != x->item->url && ab_fetch_is_http(x->item->url));
}

/* The per-try time cap of a memory read: metadata cannot come in forever
 * at a speed just above the floor. */
static long max_seconds(const ab_fetch_options *opt)
{
	if (opt->max_seconds > 0)
		return opt->max_seconds;
	return opt->stall_seconds > 0 ? 10 * opt->stall_seconds : 600;
}

static CURL *make_easy(xfer *x, const ab_fetch_options *opt, CURLSH *share)
{
	CURL *h = curl_easy_init();

	if (!h)
		abort();
	if (share)
		curl_easy_setopt(h, CURLOPT_SHARE, share);
	curl_easy_setopt(h, CURLOPT_URL, x->url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, http_only(x, opt) ? "http,https" : "http,https,file");
	/* Never from https down to http: the redirect would drop the TLS
	 * the index was fetched with (the digest still guards artifacts, but
	 * an index has no digest). */
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR,
			 strncasecmp(x->url, "https:", 6) ? "http,https" : "https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, 10L);
	curl_easy_setopt(h, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, opt->connect_timeout);
	/* Slower than the floor over the whole window gives up as a silent
	 * server does: a drip of a few bytes a second is no download. */
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, opt->min_speed > 0 ? opt->min_speed : 1L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, opt->stall_seconds);
	if (x->mem)
		curl_easy_setopt(h, CURLOPT_TIMEOUT, max_seconds(opt));
	curl_easy_setopt(h, CURLOPT_USERAGENT, PACKAGE_NAME "/" PACKAGE_VERSION);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, x->errbuf);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_BUFFERSIZE, 256L * 1024);	/* fewer, larger writes */
	curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, x);
	curl_easy_setopt(h, CURLOPT_PRIVATE, x);
	if (opt->cacert)
		curl_easy_setopt(h, CURLOPT_CAINFO, opt->cacert);
	if (x->cond && !x->no_cond)
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, x->cond);
	x->resume_from = x->received;
	if (x->resume_from > 0)
		curl_easy_setopt(h, CURLOPT_RESUME_FROM_LARGE, (curl_off_t)x->resume_from);
	x->errbuf[0] = '\0';
	return h;
}

/* Feeds the bytes already in fd (a kept partial download) to the hash. */
static int hash_existing(xfer *x, long long have)
{
	char buf[65536];
	long long done = 0;

	if (lseek(x->fd, 0, SEEK_SET) < 0)
		return -1;
	while (done < have) {
		ssize_t n = read(x->fd, buf, sizeof buf);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		ab_sha256_update(x->hash, buf, (size_t)n);
		done += n;
	}
	return lseek(x->fd, 0, SEEK_END) < 0 ? -1 : 0;
}

/* The cache cap for a body of unknown size. */
static int64_t unknown_cap(ab_cache *cache, const ab_fetch_options *opt)
{
	return opt->unknown_size_cap > 0 ? opt->unknown_size_cap : ab_cache_default_cap(cache);
}

/* Why a body of the size the index gives is not even asked for: more
 * than the cache cap, which holds whatever the index says (a size is the
 * farm's word: one past the cap would evict every verified entry and
 * fill the disk). NULL when it fits. */
static char *declared_over_cap(const xfer *x, ab_cache *cache, const ab_fetch_options *opt)
{
	int64_t cap;
	char sz[32], cz[32];

	/* (The default cap, which lists the cache, only where it may matter.) */
	if (x->item->size <= 0 || (opt->unknown_size_cap <= 0 && x->item->size <= AB_CACHE_CAP_FLOOR))
		return NULL;
	cap = unknown_cap(cache, opt);
	if (x->item->size <= cap)
		return NULL;
	ab_format_size((long long)x->item->size, sz);
	ab_format_size((long long)cap, cz);
	return opt->unknown_size_cap > 0
		? ab_xasprintf(_("the index gives %s, more than the cache cap (--cache-size) of %s; not downloaded"), sz, cz)
		: ab_xasprintf(_("the index gives %s, more than the cache's default cap (--cache-size) of %s; not downloaded"), sz, cz);
}

/* Where a body of unknown size stops, once x->received is settled: the
 * cache cap, or the free space the file can still take when that is less. */
static void set_limit(xfer *x, ab_cache *cache, const ab_fetch_options *opt)
{
	struct statvfs sv;

	x->limit = unknown_cap(cache, opt);
	x->limit_is_free = 0;
	x->over_cap = 0;
	if (statvfs(ab_cache_dir(cache), &sv) == 0) {
		int64_t room = (int64_t)sv.f_bavail * (int64_t)sv.f_frsize;

		room = (room > FREE_MARGIN ? room - FREE_MARGIN : 0) + x->received;
		if (room < x->limit) {
			x->limit = room;
			x->limit_is_free = 1;
		}
	}
}

static int sink_reset_file(xfer *x, ab_cache *cache, const ab_fetch_options *opt,
			   ab_error *err);

/* Readies the sink for the next request: after what is already there
 * when x->keep says so (a resumed download), empty otherwise. */
static int sink_reset(xfer *x, ab_cache *cache, const ab_fetch_options *opt, ab_error *err)
{
	int rc;

	ab_sink_wait(x->sink);
	x->too_big = 0;
	x->write_errno = 0;
	if (x->mem) {
		/* (A page starts over: its rest could be of a newer version,
		 * and no digest would tell.) */
		if (x->keep && x->mem->len > 0 && !x->is_page) {
			x->keep = 0;
			x->received = (int64_t)x->mem->len;
			return 0;
		}
		x->keep = 0;
		x->received = 0;
		x->mem->len = 0;
		return 0;
	}
	rc = sink_reset_file(x, cache, opt, err);
	if (rc == 0 && x->item->size < 0)
		set_limit(x, cache, opt);
	return rc;
}

static int sink_reset_file(xfer *x, ab_cache *cache, const ab_fetch_options *opt,
			   ab_error *err)
{
	struct stat st;

	if (x->fd < 0) {
		long long have = 0;

		/* A partial download left by an earlier run, or a new one
		 * under the same name, so that a later run can resume it.
		 * A file whose digest is not known has no such name. */
		x->fd = x->item->sha256 ? ab_cache_part_open(cache, x->item->sha256, &x->tmp_path, &have)
					: -1;
		if (x->fd >= 0) {
			x->part = 1;
			x->hash = ab_sha256_new();
			x->received = 0;
			/* (What an earlier run left past the cap is no start.) */
			if (have > 0 && (x->item->size < 0 ? have < unknown_cap(cache, opt)
							  : have < x->item->size) &&
			    hash_existing(x, have) == 0) {
				x->received = have;
				return 0;
			}
			ab_sha256_final(x->hash, (char[65]){0});
			x->hash = NULL;
			x->keep = 0;
		} else {
			x->fd = ab_cache_tmp_open(cache, &x->tmp_path, err);
			if (x->fd < 0)
				return -1;
			x->keep = 0;
		}
	}
	if (x->keep && x->hash && x->received > 0) {
		x->keep = 0;
		return 0;
	}
	x->keep = 0;
	x->wlen = 0;
	if (x->hash) {
		char junk[65];
		ab_sha256_final(x->hash, junk);
	}
	x->hash = ab_sha256_new();
	x->received = 0;
	/* Truncating a file to nothing makes ext4 flush it when it is
	 * closed (auto_da_alloc), and the next fsync anywhere on the file
	 * system then waits for all of it: only a file with bytes in it is
	 * truncated. */
	if ((fstat(x->fd, &st) < 0 || st.st_size > 0) && ftruncate(x->fd, 0) < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot write %s: %s"),
			     x->tmp_path, strerror(errno));
		return -1;
	}
	if (lseek(x->fd, 0, SEEK_SET) < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot write %s: %s"),
			     x->tmp_path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Closes the sink; the file goes too unless keep_part and it is the
 * .part file a later run resumes. */
static void sink_close(xfer *x, int keep_part)
{
	ab_sink_wait(x->sink);
	if (x->hash) {
		char junk[65];
		ab_sha256_final(x->hash, junk);
		x->hash = NULL;
	}
	if (x->fd >= 0) {
		if (keep_part && x->part)
			ab_sink_flush(x);
		close(x->fd);
		x->fd = -1;
	}
	x->wlen = 0;
	if (x->tmp_path) {
		if (!(keep_part && x->part))
			unlink(x->tmp_path);
		free(x->tmp_path);
		x->tmp_path = NULL;
	}
	x->part = 0;
}

static void sink_discard(xfer *x)
{
	sink_close(x, 0);
}

void ab_fetch_give_up(xfer *x, char *reason)
{
	/* A failed host is not the end: the next mirror may have the file. */
	if (x->item && x->mirror < x->item->nmirrors) {
		const char *next = x->item->mirrors[x->mirror++];

		notice(x->cb, _("%s: %s; trying the mirror %s"), x->url, reason, next);
		free(reason);
		x->url = next;
		x->tries = 0;
		x->mismatches = 0;
		x->restarted = 0;
		x->keep = 0;
		x->received = 0;
		x->high = 0;
		x->free_resumes = 0;
		x->cut[0] = '\0';
		if (x->hash) {
			char junk[65];
			ab_sha256_final(x->hash, junk);
			x->hash = NULL;
		}
		x->state = XFER_WAITING;
		x->not_before = ab_now();
		return;
	}
	x->state = XFER_DONE;
	if (x->item) {
		x->item->status = AB_FETCH_UNAVAILABLE;
		x->item->reason = reason;
	} else {
		x->gave_up = 1;
		snprintf(x->errbuf, sizeof x->errbuf, "%s", reason);
		free(reason);
	}
	sink_discard(x);
}

static double backoff_delay(const ab_fetch_options *opt, int tries)
{
	double d = opt->backoff;
	int i;

	for (i = 1; i < tries; i++)
		d *= 2;
	/* Jitter keeps a farm of clients from retrying in step: from the
	 * kernel, since rand() unseeded gives every client the same. */
	uint32_t r;
	if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
		r = (uint32_t)getpid() * 2654435761u;
	return d * (0.75 + 0.5 * ((double)r / 4294967295.0));
}

/* Retries, as curl --retry N does: N retries after the first try. */
static void retry_or_give_up(xfer *x, const ab_fetch_options *opt, const char *why)
{
	x->keep = 0;
	x->tries++;
	if (x->tries > opt->max_retries) {
		ab_fetch_give_up(x, ab_xasprintf(_("gave up after %d tries: %s"), x->tries, why));
		return;
	}
	notice(x->cb, _("%s: %s; retrying (try %d of %d)"), x->url, why,
	       x->tries + 1, opt->max_retries + 1);
	x->state = XFER_WAITING;
	x->not_before = ab_now() + backoff_delay(opt, x->tries);
}

/* A finished, complete body: verify it and make it a cache entry. */
static int finish_file(xfer *x, ab_cache *cache, const ab_fetch_options *opt, ab_error *err)
{
	char got[65];
	ab_fetch_item *it = x->item;

	ab_sha256_final(x->hash, got);
	x->hash = NULL;
	if (it->size >= 0 && x->received != it->size) {
		char *why = ab_xasprintf(_("size is %lld bytes, the index says %lld"),
					 (long long)x->received, (long long)it->size);
		retry_or_give_up(x, opt, why);
		free(why);
		return 0;
	}
	/* No digest to hold it to: the item's check decides, before the file
	 * may become an entry (under the digest it has). */
	if (!it->sha256 && it->check) {
		char *why = NULL;

		if (it->check(it->check_ud, x->tmp_path, got, &why) != 0) {
			/* A check cut short by the Ctrl-C (its gpg got the
			 * SIGINT too) says nothing about the file. */
			if (ab_cancelled(opt->cancel)) {
				free(why);
				ab_error_set(err, AB_EXIT_ABORTED, "%s", _("interrupted"));
				return -1;
			}
			ab_fetch_give_up(x, why ? why : ab_xstrdup(_("refused by its check")));
			return 0;
		}
		free(why);
	}
	if (it->sha256 && strcmp(got, it->sha256) != 0) {
		x->mismatches++;
		if (x->mismatches > 1) {
			ab_fetch_give_up(x, ab_xasprintf(_("sha256 mismatch: expected %s, got %s"),
						it->sha256, got));
			return 0;
		}
		notice(x->cb, _("%s: sha256 mismatch (got %s); fetching it again"), x->url, got);
		x->state = XFER_WAITING;
		x->not_before = ab_now();
		return 0;
	}
	if (ab_cache_commit(cache, x->fd, x->tmp_path, got, err) < 0) {
		x->fd = -1;
		free(x->tmp_path);
		x->tmp_path = NULL;
		return -1;
	}
	x->fd = -1;
	free(x->tmp_path);
	x->tmp_path = NULL;
	ab_cache_note_url(cache, got, it->url);
	it->status = AB_FETCH_OK;
	memcpy(it->got_sha256, got, sizeof it->got_sha256);
	it->path = ab_cache_entry_path(cache, got);
	x->state = XFER_DONE;
	return 0;
}

static int is_fatal_errno(int e)
{
	return e == ENOSPC || e == EDQUOT || e == EROFS || e == EIO || e == EACCES;
}

/* Says in x->cut how the body just received was cut short. */
static void note_cut(xfer *x, CURLcode res)
{
	curl_off_t cl = -1;
	long long got = (long long)(x->received - x->resume_from);

	if (res != CURLE_PARTIAL_FILE)
		snprintf(x->cut, sizeof x->cut, _("%s after %lld bytes of the body"),
			 x->errbuf[0] ? x->errbuf : curl_easy_strerror(res), got);
	else if (curl_easy_getinfo(x->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) != CURLE_OK ||
		 cl < 0)
		snprintf(x->cut, sizeof x->cut, _("the server closed the connection after %lld bytes of the body"),
			 got);
	else if (x->resume_from > 0)
		snprintf(x->cut, sizeof x->cut,
			 _("the server sent %lld of the %lld bytes it announced (from byte %lld), then closed"),
			 got, (long long)cl, (long long)x->resume_from);
	else
		snprintf(x->cut, sizeof x->cut, _("the server sent %lld of the %lld bytes it announced, then closed"),
			 got, (long long)cl);
}

/* A body cut short: what came is good so far (the digest runs over it),
 * so the next request asks for the rest only; at once and without using
 * up a retry when it brought bytes not held before. */
static void on_cut(xfer *x, CURLcode res, const ab_fetch_options *opt)
{
	note_cut(x, res);
	if (x->received > x->high && x->free_resumes < MAX_FREE_RESUMES) {
		x->free_resumes++;
		x->high = x->received;
		notice(x->cb, _("%s: %s; resuming at byte %lld"), x->url, x->cut, (long long)x->received);
		x->keep = 1;
		x->state = XFER_WAITING;
		x->not_before = ab_now();
		return;
	}
	retry_or_give_up(x, opt, x->cut);
	if (x->state == XFER_WAITING)
		x->keep = 1;
}

/* The server would not resume (error 33, or a 416): say what came first,
 * then start over, once for free. */
static void on_range_refused(xfer *x, CURLcode res, const ab_fetch_options *opt)
{
	char why[sizeof x->cut + 128];
	const char *what = res == CURLE_RANGE_ERROR ? _("the server does not support byte ranges")
						    : _("the server answered 416 (range not satisfiable)");

	if (x->cut[0])
		snprintf(why, sizeof why, _("%s; resuming: %s"), x->cut, what);
	else
		snprintf(why, sizeof why, _("resuming: %s"), what);
	if (!x->restarted) {
		x->restarted = 1;
		x->keep = 0;
		x->received = 0;
		x->state = XFER_WAITING;
		x->not_before = ab_now();
		if (x->hash) {
			char junk[65];
			ab_sha256_final(x->hash, junk);
			x->hash = NULL;
		}
		return;
	}
	retry_or_give_up(x, opt, why);
}

/* A body that came without a size went past its limit, or filled the
 * disk: this file is unavailable (and removed), the run goes on. */
static void on_over_cap(xfer *x, const ab_fetch_options *opt, int enospc)
{
	char sz[32];

	if (enospc)
		ab_fetch_give_up(x, ab_xasprintf(_("the index gives no size, and the disk of the cache filled up after %s; removed"),
					ab_format_size((long long)x->received, sz)));
	else if (x->limit_is_free)
		ab_fetch_give_up(x, ab_xasprintf(_("the index gives no size, and the body went past %s, the free space of the cache; stopped and removed"),
					ab_format_size((long long)x->limit, sz)));
	else if (opt->unknown_size_cap > 0)
		ab_fetch_give_up(x, ab_xasprintf(_("the index gives no size, and the body went past %s, the cache cap (--cache-size); stopped and removed"),
					ab_format_size((long long)x->limit, sz)));
	else
		ab_fetch_give_up(x, ab_xasprintf(_("the index gives no size, and the body went past %s, the cache's default cap (--cache-size); stopped and removed"),
					ab_format_size((long long)x->limit, sz)));
}

/* A memory read that ran into its time cap: not retried, a slow source
 * stays slow. 1 when that is what happened. */
static int over_time(xfer *x, const ab_fetch_options *opt)
{
	curl_off_t us = 0;
	char sz[32];

	/* (curl stops a hair before the cap: a quarter second of slack.) */
	if (!x->mem || curl_easy_getinfo(x->easy, CURLINFO_TOTAL_TIME_T, &us) != CURLE_OK ||
	    us < (curl_off_t)max_seconds(opt) * 1000000 - 250000)
		return 0;
	if (opt->max_seconds > 0)
		ab_fetch_give_up(x, ab_xasprintf(_("not whole after %ld s (%s had come), the most a metadata read may take"),
					max_seconds(opt), ab_format_size((long long)x->received, sz)));
	else
		ab_fetch_give_up(x, ab_xasprintf(_("not whole after %ld s (%s had come), the most a metadata read may take (10 times --net-timeout)"),
					max_seconds(opt), ab_format_size((long long)x->received, sz)));
	return 1;
}

/* Decides what a finished transfer means. -1 only for local failures. */
static int on_done(xfer *x, CURLcode res, ab_cache *cache, const ab_fetch_options *opt,
		   ab_error *err)
{
	long code = 0;
	char why[CURL_ERROR_SIZE + 64];

	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &code);
	if (!x->mem)
		ab_sink_flush(x);	/* the file now holds every byte counted */
	if (x->write_errno) {
		if ((x->write_errno == ENOSPC || x->write_errno == EDQUOT) && x->item->size < 0) {
			on_over_cap(x, opt, 1);
			return 0;
		}
		if (is_fatal_errno(x->write_errno)) {
			ab_error_set(err, AB_EXIT_FAILURE, _("cannot write %s: %s"),
				     x->tmp_path, strerror(x->write_errno));
			sink_discard(x);
			return -1;
		}
		snprintf(why, sizeof why, "%s", strerror(x->write_errno));
		retry_or_give_up(x, opt, why);
		return 0;
	}
	if (x->over_cap) {
		on_over_cap(x, opt, 0);
		return 0;
	}
	if (x->too_big) {
		if (x->mem)
			ab_fetch_give_up(x, ab_xasprintf(_("larger than %zu bytes"), x->mem_max));
		else
			ab_fetch_give_up(x, ab_xasprintf(_("body is longer than the %lld bytes the index says"),
						(long long)x->item->size));
		return 0;
	}
	if (res == CURLE_OK) {
		if (x->is_page)
			return ab_fetch_finish_page(x, cache);
		if (x->mem) {
			x->state = XFER_DONE;
			return 0;
		}
		return finish_file(x, cache, opt, err);
	}
	snprintf(why, sizeof why, "%s", x->errbuf[0] ? x->errbuf : curl_easy_strerror(res));
	if (res == CURLE_RANGE_ERROR || (res == CURLE_HTTP_RETURNED_ERROR && code == 416)) {
		on_range_refused(x, res, opt);
		return 0;
	}
	if (res == CURLE_HTTP_RETURNED_ERROR) {
		snprintf(why, sizeof why, _("HTTP status %ld"), code);
		if (code >= 500 || code == 408 || code == 429) {
			retry_or_give_up(x, opt, why);
			return 0;
		}
		/* A page that is not there is an answer, not a failure. */
		if (x->is_page && (code == 404 || code == 410))
			x->missing = 1;
		ab_fetch_give_up(x, ab_xstrdup(why));
		return 0;
	}
	switch (res) {
	case CURLE_OPERATION_TIMEDOUT:
		if (over_time(x, opt))
			return 0;
		/* fall through */
	case CURLE_PARTIAL_FILE:
	case CURLE_RECV_ERROR:
		if (res == CURLE_PARTIAL_FILE || (res == CURLE_RECV_ERROR && x->received > x->resume_from)) {
			on_cut(x, res, opt);
			return 0;
		}
		/* fall through */
	case CURLE_COULDNT_CONNECT:
	case CURLE_SEND_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_COULDNT_RESOLVE_HOST:
		retry_or_give_up(x, opt, why);
		/* What arrived is good so far (the digest runs over it): the
		 * next try asks only for the rest. */
		if (x->state == XFER_WAITING)
			x->keep = 1;
		return 0;
	default:
		ab_fetch_give_up(x, ab_xstrdup(why));
		return 0;
	}
}

static void xfer_cleanup(xfer *x)
{
	if (x->fd >= 0 && x->part && x->state != XFER_DONE)
		ab_sink_flush(x);
	/* Interrupted: a .part file stays for the next run to resume. */
	sink_close(x, x->state != XFER_DONE);
	if (x->easy) {
		curl_easy_cleanup(x->easy);
		x->easy = NULL;
	}
	free(x->wbuf);
	x->wbuf = NULL;
}

/* Runs transfers until each is DONE, at most max_running at a time (0:
 * all at once). -1 with err for local failures. */
int ab_fetch_run_all(xfer *xs, size_t n, ab_cache *cache, const ab_fetch_options *opt,
		     size_t max_running, ab_error *err)
{
	CURLM *multi = curl_multi_init();
	size_t left = n, i, nrunning = 0;
	int rc = 0, slot;
	CURLSH *share = share_acquire(&slot);

	if (!multi)
		abort();
	curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 6L);
	while (left > 0 && rc == 0) {
		double now = ab_now(), wake = now + 1.0;
		int running = 0, msgs;
		CURLMsg *m;

		if (ab_cancelled(opt->cancel)) {
			ab_error_set(err, AB_EXIT_ABORTED, _("interrupted"));
			rc = -1;
			break;
		}

		for (i = 0; i < n; i++) {
			xfer *x = &xs[i];
			if (x->state != XFER_WAITING)
				continue;
			if (max_running && nrunning >= max_running)
				break;
			if (x->not_before > now) {
				if (x->not_before < wake)
					wake = x->not_before;
				continue;
			}
			/* Before any transfer: curl would refuse it too (its
			 * protocols are set so), in less plain words. */
			if (http_only(x, opt) && !ab_fetch_is_http(x->url)) {
				ab_fetch_give_up(x, ab_xstrdup(_("refused: a URL from a remote index or repository must be http or https")));
				if (x->state == XFER_DONE)
					left--;
				continue;
			}
			if (x->item && !x->mem) {
				char *why = declared_over_cap(x, cache, opt);

				if (why) {
					ab_fetch_give_up(x, why);
					if (x->state == XFER_DONE)
						left--;
					continue;
				}
			}
			if (sink_reset(x, cache, opt, err) < 0) {
				rc = -1;
				break;
			}
			if (x->easy)
				curl_easy_cleanup(x->easy);
			x->easy = make_easy(x, opt, share);
			curl_multi_add_handle(multi, x->easy);
			x->state = XFER_RUNNING;
			nrunning++;
		}
		if (rc < 0)
			break;
		curl_multi_perform(multi, &running);
		while ((m = curl_multi_info_read(multi, &msgs))) {
			xfer *x;
			if (m->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
			curl_multi_remove_handle(multi, m->easy_handle);
			nrunning--;
			if (on_done(x, m->data.result, cache, opt, err) < 0) {
				rc = -1;
				break;
			}
			if (x->state == XFER_DONE) {
				curl_easy_cleanup(x->easy);
				x->easy = NULL;
				left--;
			}
		}
		if (rc < 0 || left == 0)
			break;
		{
			double ms = (wake - ab_now()) * 1000.0;
			if (ms < 0)
				ms = 0;
			if (ms > 200)
				ms = 200;	/* stay responsive to Ctrl-C */
			curl_multi_poll(multi, NULL, 0, (int)ms, NULL);	/* a signal cuts it short */
		}
	}
	for (i = 0; i < n; i++) {
		if (xs[i].easy)
			curl_multi_remove_handle(multi, xs[i].easy);
		xfer_cleanup(&xs[i]);
	}
	curl_multi_cleanup(multi);
	share_release(slot);
	return rc;
}

int ab_fetch_artifacts(ab_cache *cache, const ab_fetch_options *opt,
		       const ab_fetch_callbacks *cb, ab_fetch_item *items,
		       size_t n, ab_error *err)
{
	xfer *xs = ab_xcalloc(n ? n : 1, sizeof *xs);
	sink_thread sink;
	size_t i, todo = 0;
	int rc;

	ab_fetch_global_init();
	for (i = 0; i < n; i++) {
		ab_fetch_item *it = &items[i];
		it->status = AB_FETCH_PENDING;
		it->path = NULL;
		it->reason = NULL;
		it->from_cache = 0;
		it->got_sha256[0] = '\0';
		/* A cache entry exists only once verified: trust it (after a
		 * crash, once it is verified again). A file whose digest is not
		 * known cannot be looked up: it is downloaded. */
		if (it->sha256 && ab_cache_check(cache, it->sha256)) {
			ab_cache_touch(cache, it->sha256);
			it->status = AB_FETCH_OK;
			it->path = ab_cache_entry_path(cache, it->sha256);
			snprintf(it->got_sha256, sizeof it->got_sha256, "%s", it->sha256);
			it->from_cache = 1;
			continue;
		}
		xs[todo].item = it;
		xs[todo].url = it->url;
		xs[todo].fd = -1;
		xs[todo].cb = cb;
		xs[todo].total = opt->received;
		xs[todo].state = XFER_WAITING;
		todo++;
	}
	ab_sink_init(&sink);
	for (i = 0; i < todo; i++)
		xs[i].sink = &sink;
	rc = ab_fetch_run_all(xs, todo, cache, opt, 0, err);
	ab_sink_end(&sink);
	free(xs);
	return rc;
}

int ab_fetch_to_memory(const char *url, const ab_fetch_options *opt,
		       size_t max, char **data, size_t *len, ab_error *err)
{
	xfer x;
	ab_buf b = {0};
	int rc;

	ab_fetch_global_init();
	memset(&x, 0, sizeof x);
	x.url = url;
	x.fd = -1;
	x.mem = &b;
	x.mem_max = max;
	x.state = XFER_WAITING;
	rc = ab_fetch_run_all(&x, 1, NULL, opt, 0, err);
	if (rc == 0 && x.gave_up) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: %s"), url, x.errbuf);
		rc = -1;
	}
	if (rc < 0) {
		ab_buf_free(&b);
		return -1;
	}
	*len = b.len;
	*data = ab_buf_steal(&b);
	return 0;
}
