/* prefetch.c - see prefetch.h. */
#include "config.h"
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "i18n.h"
#include "prefetch.h"
#include "util.h"

#define MAX_WORKERS 8

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

static void *run_worker(void *arg)
{
	worker *w = arg;
	ab_fetch_callbacks quiet = { NULL, NULL, NULL };
	sigset_t all;
	size_t i;

	/* Signals are the foreground's to see. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
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

	if (bd->failed || !bd->nartifacts)
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
	if (!missing && !p->ready)
		return;
	w = ab_xcalloc(1, sizeof *w);
	w->key = key;
	w->cache = p->cache;
	w->opt = p->opt;
	w->opt.cancel = &w->cancel;
	w->ready = p->ready;
	w->ready_ud = p->ready_ud;
	w->stage = AB_PREFETCH_FETCHING;
	w->n = bd->nartifacts;
	w->items = ab_xcalloc(w->n, sizeof *w->items);
	w->urls = ab_xcalloc(w->n, sizeof *w->urls);
	w->shas = ab_xcalloc(w->n, sizeof *w->shas);
	for (i = 0; i < w->n; i++) {
		w->urls[i] = ab_xstrdup(bd->artifacts[i].url);
		w->shas[i] = ab_xstrdup(bd->artifacts[i].sha256);
		w->items[i].url = w->urls[i];
		w->items[i].mirrors = ab_index_mirror_urls(idx, &bd->artifacts[i], &w->items[i].nmirrors);
		w->items[i].sha256 = w->shas[i];
		w->items[i].size = bd->artifacts[i].size;
	}
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

int ab_prefetch_wait(ab_prefetch *p, size_t key, char **reason)
{
	size_t i, j;
	int rc = 0;

	*reason = NULL;
	for (i = 0; i < MAX_WORKERS; i++) {
		worker *w = p->w[i];

		if (!w || w->key != key)
			continue;
		pthread_join(w->thread, NULL);
		for (j = 0; j < w->n; j++) {
			if (w->items[j].status == AB_FETCH_UNAVAILABLE && !rc) {
				const char *slash = strrchr(w->urls[j], '/');

				*reason = ab_xasprintf("%s: %s", slash ? slash + 1 : w->urls[j],
						       w->items[j].reason ? w->items[j].reason : "?");
				rc = 1;
			}
		}
		free_worker(w);
		p->w[i] = NULL;
	}
	return rc;
}
