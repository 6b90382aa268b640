/* prefetch.c - see prefetch.h. */
#include "config.h"
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "base/i18n.h"
#include "net/prefetch.h"
#include "base/util.h"

#define MAX_WORKERS 8

/* One transfer's bytes as the worker last saw them, for a foreground
 * that waits on it. */
typedef struct shown {
	char name[64];		/* the URL's last segment */
	int64_t now, total;
} shown;

typedef struct worker {
	size_t key;
	pthread_t thread;
	volatile sig_atomic_t cancel;
	ab_fetch_options opt;	/* the caller's, with our own cancel flag */
	ab_cache *cache;
	ab_fetch_item *items;
	size_t n;
	char **urls, **shas;	/* owned copies: the worker outlives nothing */
	ab_error err;
	ab_prefetch_ready_fn ready;
	void *ready_ud;
	int stage;		/* an ab_prefetch_stage, set by the thread (atomic) */
	pthread_mutex_t lock;	/* guards shown[] and nshown */
	shown *shown;		/* one per artifact */
	size_t nshown;
	const ab_index *resolve;	/* a farm's build not resolved yet: the
				 * thread resolves it first (its listings) */
	char *why;		/* why the farm found it unavailable */
} worker;

struct ab_prefetch {
	ab_cache *cache;
	ab_fetch_options opt;
	worker *w[MAX_WORKERS];
	ab_prefetch_ready_fn ready;
	void *ready_ud;
};

void ab_prefetch_on_ready(ab_prefetch *p, ab_prefetch_ready_fn fn, void *ud)
{
	p->ready = fn;
	p->ready_ud = ud;
}

ab_prefetch *ab_prefetch_new(ab_cache *cache, const ab_fetch_options *opt)
{
	ab_prefetch *p = ab_xcalloc(1, sizeof *p);

	p->cache = cache;
	p->opt = *opt;
	return p;
}

/* The worker's fetch progress, kept for ab_prefetch_wait to show. */
static void note_progress(void *ud, const char *url, int64_t now, int64_t total)
{
	worker *w = ud;
	const char *slash = strrchr(url, '/');
	size_t i;

	pthread_mutex_lock(&w->lock);
	for (i = 0; i < w->nshown && strncmp(w->shown[i].name, slash ? slash + 1 : url,
					     sizeof w->shown[0].name - 1); i++)
		;
	if (i == w->nshown && i < w->n)
		snprintf(w->shown[w->nshown++].name, sizeof w->shown[0].name, "%s",
			 slash ? slash + 1 : url);
	if (i < w->nshown) {
		w->shown[i].now = now;
		w->shown[i].total = total;
	}
	pthread_mutex_unlock(&w->lock);
}

/* The worker's own copies of the build's artifacts to fetch. */
static void fill_items(worker *w, const ab_index *idx, const ab_build *bd)
{
	size_t i;

	w->items = ab_xcalloc(bd->nartifacts, sizeof *w->items);
	w->urls = ab_xcalloc(bd->nartifacts, sizeof *w->urls);
	w->shas = ab_xcalloc(bd->nartifacts, sizeof *w->shas);
	w->shown = ab_xcalloc(bd->nartifacts, sizeof *w->shown);
	for (i = 0; i < bd->nartifacts; i++) {
		w->urls[i] = ab_xstrdup(bd->artifacts[i].url);
		w->shas[i] = ab_xstrdup(bd->artifacts[i].sha256);
		w->items[i].url = w->urls[i];
		w->items[i].mirrors = ab_index_mirror_urls(idx, &bd->artifacts[i], &w->items[i].nmirrors);
		w->items[i].sha256 = w->shas[i];
		w->items[i].size = bd->artifacts[i].size;
	}
	w->n = bd->nartifacts;
}

static void *run_worker(void *arg)
{
	worker *w = arg;
	ab_fetch_callbacks quiet = { note_progress, NULL, w };
	sigset_t all;
	size_t i;

	/* Signals are the foreground's to see. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	if (w->resolve) {
		const ab_build *bd = &w->resolve->builds[w->key];

		if (ab_index_resolve(w->resolve, w->key, &w->why, &w->err) != 0 ||
		    ab_cancelled(&w->cancel) || !bd->nartifacts)
			goto out;
		pthread_mutex_lock(&w->lock);
		fill_items(w, w->resolve, bd);
		pthread_mutex_unlock(&w->lock);
	}
	if (ab_fetch_artifacts(w->cache, &w->opt, &quiet, w->items, w->n, &w->err) < 0)
		goto out;
	for (i = 0; i < w->n; i++)
		if (w->items[i].status != AB_FETCH_OK)
			goto out;
	__atomic_store_n(&w->stage, AB_PREFETCH_PREPARING, __ATOMIC_RELEASE);
	if (w->ready && !ab_cancelled(&w->cancel))
		w->ready(w->ready_ud, w->key, w->items, w->n, &w->cancel);
out:
	__atomic_store_n(&w->stage, AB_PREFETCH_DONE, __ATOMIC_RELEASE);
	return NULL;
}

static void free_worker(worker *w)
{
	size_t i;

	for (i = 0; i < w->n; i++) {
		ab_index_urls_free((char **)w->items[i].mirrors, w->items[i].nmirrors);
		free(w->items[i].path);
		free(w->items[i].reason);
		free(w->urls[i]);
		free(w->shas[i]);
	}
	free(w->items);
	free(w->urls);
	free(w->shas);
	free(w->shown);
	free(w->why);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

/* Cancels (when asked), waits for and frees the worker in slot. */
static void reap(ab_prefetch *p, size_t slot, int cancel)
{
	worker *w = p->w[slot];

	if (cancel)
		ab_cancel(&w->cancel);
	pthread_join(w->thread, NULL);
	free_worker(w);
	p->w[slot] = NULL;
}

void ab_prefetch_free(ab_prefetch *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < MAX_WORKERS; i++)
		if (p->w[i])
			reap(p, i, 1);
	free(p);
}

void ab_prefetch_start(ab_prefetch *p, size_t key, const ab_index *idx, const ab_build *bd)
{
	worker *w;
	size_t i, slot = MAX_WORKERS, missing = 0;

	if (bd->failed || (!bd->nartifacts && !bd->unresolved))
		return;
	for (i = 0; i < MAX_WORKERS; i++) {
		if (p->w[i] && p->w[i]->key == key)
			return;
		if (!p->w[i] && slot == MAX_WORKERS)
			slot = i;
	}
	if (slot == MAX_WORKERS)
		return;
	for (i = 0; i < bd->nartifacts; i++)
		if (!ab_cache_has(p->cache, bd->artifacts[i].sha256))
			missing++;
	if (!missing && !p->ready && !bd->unresolved)
		return;
	w = ab_xcalloc(1, sizeof *w);
	w->key = key;
	w->cache = p->cache;
	w->opt = p->opt;
	w->opt.cancel = &w->cancel;
	w->ready = p->ready;
	w->ready_ud = p->ready_ud;
	w->stage = AB_PREFETCH_FETCHING;
	pthread_mutex_init(&w->lock, NULL);
	if (bd->unresolved)
		w->resolve = idx;
	else
		fill_items(w, idx, bd);
	if (pthread_create(&w->thread, NULL, run_worker, w) != 0) {
		free_worker(w);	/* no thread: the foreground fetches it itself */
		return;
	}
	p->w[slot] = w;
}

void ab_prefetch_keep(ab_prefetch *p, const size_t *keys, size_t n)
{
	size_t i, j;

	/* Flag them all first, then join: the cancellations overlap. */
	for (i = 0; i < MAX_WORKERS; i++) {
		int wanted = 0;

		if (!p->w[i])
			continue;
		for (j = 0; j < n; j++)
			if (keys[j] == p->w[i]->key)
				wanted = 1;
		if (!wanted)
			ab_cancel(&p->w[i]->cancel);
	}
	for (i = 0; i < MAX_WORKERS; i++)
		if (p->w[i] && ab_cancelled(&p->w[i]->cancel))
			reap(p, i, 1);
}

ab_prefetch_stage ab_prefetch_stage_of(const ab_prefetch *p, size_t key)
{
	size_t i;

	for (i = 0; i < MAX_WORKERS; i++)
		if (p->w[i] && p->w[i]->key == key)
			return (ab_prefetch_stage)__atomic_load_n(&p->w[i]->stage, __ATOMIC_ACQUIRE);
	return AB_PREFETCH_NONE;
}

/* Until worker w is done: while it downloads its transfers go to show,
 * every tenth of a second; the caller's cancel flag reaches it
 * throughout (an early unpack stops too). */
static void watch(ab_prefetch *p, worker *w, const ab_fetch_callbacks *show)
{
	shown copy[16];
	size_t i, n;
	int stage;

	while ((stage = __atomic_load_n(&w->stage, __ATOMIC_ACQUIRE)) != AB_PREFETCH_DONE) {
		struct timespec tenth = { 0, 100 * 1000 * 1000 };

		if (ab_cancelled(p->opt.cancel))
			ab_cancel(&w->cancel);
		if (stage == AB_PREFETCH_FETCHING && show && show->progress) {
			pthread_mutex_lock(&w->lock);
			n = w->nshown < 16 ? w->nshown : 16;
			if (n)	/* (none yet while a farm's build is resolved) */
				memcpy(copy, w->shown, n * sizeof *copy);
			pthread_mutex_unlock(&w->lock);
			for (i = 0; i < n; i++)
				show->progress(show->ud, copy[i].name, copy[i].now, copy[i].total);
		}
		nanosleep(&tenth, NULL);
	}
}

int ab_prefetch_wait(ab_prefetch *p, size_t key, char **reason, const ab_fetch_callbacks *show)
{
	size_t i, j;
	int rc = 0;

	*reason = NULL;
	for (i = 0; i < MAX_WORKERS; i++) {
		worker *w = p->w[i];

		if (!w || w->key != key)
			continue;
		watch(p, w, show);
		pthread_join(w->thread, NULL);
		if (w->why) {
			*reason = w->why;
			w->why = NULL;
			rc = 1;
		}
		for (j = 0; j < w->n; j++) {
			if (w->items[j].status == AB_FETCH_UNAVAILABLE && !rc) {
				/* named by URL, as bisect_prepare names it */
				*reason = ab_xasprintf("%s: %s", w->urls[j],
						       w->items[j].reason ? w->items[j].reason : "?");
				rc = 1;
			}
		}
		free_worker(w);
		p->w[i] = NULL;
	}
	return rc;
}
