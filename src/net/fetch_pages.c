/* fetch_pages.c - small pages (directory listings, checksum lists,
 * signatures) read on the fetch engine, kept in the cache's page store
 * with their ETag and Last-Modified and asked for again conditionally
 * (fetch.h, ab_fetch_pages). file:// pages are settled here before curl
 * sees them. Never writes artifacts.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "net/fetch_private.h"
#include "base/i18n.h"

/* A header of the last response, or NULL. */
static char *last_header(CURL *h, const char *name)
{
	struct curl_header *hd;

	if (curl_easy_header(h, name, 0, CURLH_HEADER, -1, &hd) != CURLHE_OK || !hd->value ||
	    !*hd->value)
		return NULL;
	return ab_xstrdup(hd->value);
}

/* A page read whole: a 304 takes the kept body, a 200 brings its
 * validators. */
int ab_fetch_finish_page(xfer *x, ab_cache *cache)
{
	long code = 0;
	char *eff = NULL, *data;
	size_t len;

	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_getinfo(x->easy, CURLINFO_EFFECTIVE_URL, &eff);
	free(x->eff_url);
	x->eff_url = ab_xstrdup(eff ? eff : x->url);
	free(x->etag);
	free(x->last_modified);
	x->etag = x->last_modified = NULL;
	if (code == 304 && x->cond && !x->no_cond && cache) {
		if (ab_cache_page_read(cache, x->url, x->mem_max, &data, &len) < 0) {
			/* The kept body went away (or was damaged) since its
			 * validators were read: ask again, for the body. */
			x->no_cond = 1;
			x->state = XFER_WAITING;
			x->not_before = ab_now();
			return 0;
		}
		x->mem->len = 0;
		ab_buf_append(x->mem, data, len);
		free(data);
		x->not_modified = 1;
		x->state = XFER_DONE;
		return 0;
	}
	/* (file:// says 0; anything else not 2xx that curl let through, a
	 * 304 to a plain request or a 3xx without a place to go, is no page.) */
	if (ab_fetch_is_http(x->url) && (code < 200 || code > 299)) {
		ab_fetch_give_up(x, ab_xasprintf(_("HTTP status %ld"), code));
		return 0;
	}
	x->not_modified = 0;
	x->etag = last_header(x->easy, "ETag");
	x->last_modified = last_header(x->easy, "Last-Modified");
	x->state = XFER_DONE;
	return 0;
}

/* Pages read in this process, for the benchmark: anew, and revalidated. */
static size_t pages_fetched, pages_revalidated;

void ab_fetch_page_counts(size_t *fetched, size_t *revalidated)
{
	if (fetched)
		*fetched = __atomic_load_n(&pages_fetched, __ATOMIC_RELAXED);
	if (revalidated)
		*revalidated = __atomic_load_n(&pages_revalidated, __ATOMIC_RELAXED);
}

void ab_page_clear(ab_page *p)
{
	free(p->data);
	free(p->url);
	free(p->why);
	memset(p, 0, sizeof *p);
}

/* Pages running at once: enough to keep every connection to a host busy
 * (CURLMOPT_MAX_HOST_CONNECTIONS) and a few hosts, few enough that a
 * page does not wait its time cap away in curl's queue. */
#define PAGES_AT_ONCE 12

/* A file:// page, before curl reads it: 1 (and p filled) when it is
 * settled already, missing or a directory; 0 when curl is to read it. */
static int local_page(const char *url, ab_page *p)
{
	CURLU *u = curl_url();
	char *path = NULL;
	struct stat st;
	int rc = 0;

	if (!u)
		abort();
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_PATH, &path, CURLU_URLDECODE) != CURLUE_OK) {
		curl_url_cleanup(u);
		return 0;	/* curl says what is wrong with it */
	}
	if (stat(path, &st) < 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			p->status = AB_PAGE_MISSING;
			p->why = ab_xasprintf(_("%s: %s"), url, strerror(errno));
			rc = 1;
		}
		/* (Anything else: curl's reading says it.) */
	} else if (S_ISDIR(st.st_mode)) {
		p->status = AB_PAGE_FAILED;
		p->why = ab_xasprintf(_("%s: a directory, not a page"), url);
		rc = 1;
	}
	curl_free(path);
	curl_url_cleanup(u);
	return rc;
}

/* If-None-Match and If-Modified-Since from what the server sent last
 * time, or NULL when nothing of url is kept. */
static struct curl_slist *conditions(ab_cache *cache, const char *url)
{
	ab_cache_page_info info;
	struct curl_slist *l = NULL;
	char *h;

	if (!cache || !ab_fetch_is_http(url) || ab_cache_page_get(cache, url, &info) < 0)
		return NULL;
	if (info.etag) {
		h = ab_xasprintf("If-None-Match: %s", info.etag);
		l = curl_slist_append(l, h);
		free(h);
	}
	if (info.last_modified) {
		h = ab_xasprintf("If-Modified-Since: %s", info.last_modified);
		l = curl_slist_append(l, h);
		free(h);
	}
	ab_cache_page_info_clear(&info);
	return l;
}

int ab_fetch_pages(ab_cache *cache, const ab_fetch_options *opt, const char *const *urls, size_t n,
		   size_t max, ab_page *out, ab_error *err)
{
	xfer *xs = ab_xcalloc(n ? n : 1, sizeof *xs);
	ab_buf *bufs = ab_xcalloc(n ? n : 1, sizeof *bufs);
	size_t *which = ab_xcalloc(n ? n : 1, sizeof *which);
	size_t i, todo = 0;
	int rc;

	ab_fetch_global_init();
	for (i = 0; i < n; i++) {
		xfer *x;

		memset(&out[i], 0, sizeof out[i]);
		/* (Under http_only a file:// URL is refused before anything,
		 * by run_all, its existence included.) */
		if (!strncasecmp(urls[i], "file:", 5) && !opt->http_only && local_page(urls[i], &out[i]))
			continue;
		x = &xs[todo];
		which[todo++] = i;
		x->url = urls[i];
		x->fd = -1;
		x->mem = &bufs[i];
		x->mem_max = max;
		x->is_page = 1;
		x->state = XFER_WAITING;
		x->cond = conditions(cache, urls[i]);
	}
	rc = ab_fetch_run_all(xs, todo, cache, opt, PAGES_AT_ONCE, err);
	for (i = 0; i < todo; i++) {
		xfer *x = &xs[i];
		ab_page *p = &out[which[i]];

		if (rc < 0) {
			/* (Interrupted or a local failure: no page is told.) */
		} else if (x->gave_up || x->state != XFER_DONE) {
			p->status = x->missing ? AB_PAGE_MISSING : AB_PAGE_FAILED;
			p->why = ab_xasprintf(_("%s: %s"), x->url, x->errbuf);
			/* What was kept of a page that is gone is of no use. */
			if (x->missing && cache)
				ab_cache_page_forget(cache, x->url);
		} else {
			p->status = AB_PAGE_OK;
			p->len = x->mem->len;
			p->data = ab_buf_steal(x->mem);
			p->data[p->len] = '\0';	/* (a retry may have emptied a longer body) */
			p->url = x->eff_url;
			x->eff_url = NULL;
			p->revalidated = x->not_modified;
			__atomic_fetch_add(x->not_modified ? &pages_revalidated : &pages_fetched, 1,
					   __ATOMIC_RELAXED);
			if (cache && ab_fetch_is_http(x->url) && !x->not_modified) {
				ab_cache_page_info info = { x->etag, x->last_modified, p->url };

				/* Without a validator there is nothing to ask with. */
				if (!x->etag && !x->last_modified)
					ab_cache_page_forget(cache, x->url);
				else if (ab_cache_page_put(cache, x->url, &info, p->data, p->len, err) < 0)
					rc = -1;
			}
		}
		curl_slist_free_all(x->cond);
		free(x->eff_url);
		free(x->etag);
		free(x->last_modified);
		ab_buf_free(x->mem);
	}
	if (rc < 0)
		for (i = 0; i < n; i++)
			ab_page_clear(&out[i]);
	free(which);
	free(bufs);
	free(xs);
	return rc;
}
