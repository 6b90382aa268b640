/* multisect.c - several probes at once (--jobs N), and the two ends of
 * --check-bounds, on threads that each run one probe; see
 * bisect_steps.h. The foreground records verdicts as they come. */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "bisect/bisect_steps.h"
#include "engine/flaky.h"
#include "base/i18n.h"
#include "net/prefetch.h"
#include "base/util.h"

/* ---- multisection: several probes at once, without rounds ----
 * Whenever a probe slot is free, the engine picks the build that best
 * splits what the pending builds' verdicts could leave; verdicts are
 * recorded as they come, and a probe or download they made useless is
 * stopped. With prefetch the picks are downloaded one at a time, each
 * chosen when the link turns to it: on a slow link that is when most
 * verdicts are in, and the first probe starts after one download, not
 * after N. */

typedef struct job {
	size_t idx;
	double picked;		/* when a free slot was given to it */
	char *root, *artifacts;
	ab_probe_spec spec;
	ab_probe_result res;
	ab_error err;
	int rc;			/* ab_probe_run's */
	double wait;		/* seconds from picked to its probe's start */
	volatile sig_atomic_t stop;
	int done;		/* set by the thread when it ends (atomic) */
	int started;		/* its probe's thread runs */
	int over;		/* its verdict is in, or it was unavailable */
	int bound;		/* a --check-bounds run on an end of the range */
	pthread_t thread;
} job;

static void *job_main(void *arg)
{
	job *j = arg;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);	/* signals are the foreground's */
	j->rc = ab_probe_run(&j->spec, &j->res, &j->err);
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Whether build idx can still move the range. */
static bool still_useful(const ab_bisect *b, size_t idx)
{
	/* Under the flaky model every run is an observation. */
	if (b->flaky)
		return !ab_flaky_untestable(b->flaky, idx);
	return idx > ab_engine_last_old(b->engine) && idx < ab_engine_first_new(b->engine);
}

static void job_free(const ab_bisect *b, const ab_bisect_callbacks *cb, job *j)
{
	if (j->root && !b->opt.keep_roots)
		bisect_remove_root(cb, j->root);
	free(j->root);
	free(j->artifacts);
	free(j->res.links);	/* a stopped probe's, or one with no verdict */
	free(j);
}

/* Whether picked build j can go to a probe without the loop waiting
 * for its download. */
static bool job_ready(const ab_bisect *b, const job *j)
{
	ab_prefetch_stage st;

	if (!b->prefetch)
		return true;
	st = ab_prefetch_stage_of(b->prefetch, j->idx);
	return st == AB_PREFETCH_NONE || st == AB_PREFETCH_DONE;
}

/* Prepares picked build j and starts its probe in a thread. 0 when it
 * runs or its build was recorded unavailable, -1 with err. */
static int job_start(ab_bisect *b, ab_cache *cache, const ab_bisect_callbacks *cb, job *j,
		     ab_error *err)
{
	char *reason = NULL;
	int rc;

	if (cb->choose)
		cb->choose(cb->ud, b, j->idx);
	rc = bisect_prepare(b, cache, cb, j->idx, &j->root, &j->artifacts, &reason, err);
	j->wait = ab_now() - j->picked;
	if (rc < 0)
		return -1;
	if (rc == 1) {
		if (j->bound)
			ab_bisect_record_bound(b, j->idx, AB_TERM_SKIP, AB_BY_UNAVAILABLE, 0, j->wait,
					       reason);
		else
			ab_bisect_record(b, j->idx, AB_TERM_SKIP, AB_BY_UNAVAILABLE, 0, j->wait, reason);
		if (cb->verdict)
			cb->verdict(cb->ud, b, &b->steps[b->nsteps - 1]);
		free(reason);
		j->over = 1;
		return 0;
	}
	if (cb->ready)
		cb->ready(cb->ud, b, j->idx, j->root);
	bisect_probe_spec(b, j->idx, j->root, j->artifacts, &j->spec);
	j->spec.stop = &j->stop;
	if (pthread_create(&j->thread, NULL, job_main, j) != 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot start the probe: %s"), strerror(errno));
		return -1;
	}
	j->started = 1;
	return 0;
}

/* Records finished probe j's verdict: 0, 1 when the run must stop,
 * -1 with err. */
static int job_verdict(ab_bisect *b, const ab_bisect_callbacks *cb, job *j, ab_error *err)
{
	ab_term t;
	ab_by by;
	int rc;

	if (j->res.outcome == AB_PROBE_STOPPED)
		return 0;	/* stopped: no longer needed */
	if (j->rc < 0) {
		*err = j->err;
		return -1;
	}
	rc = bisect_probe_verdict(b, j->idx, j->root, &j->res, &t, &by, err);
	if (rc == 0 && j->bound) {
		char *why = bisect_bound_reason(b, j->idx, t, &j->res);

		ab_bisect_record_bound(b, j->idx, t, by, j->res.seconds, j->wait, why);
		free(why);
		b->steps[b->nsteps - 1].links = j->res.links;
		j->res.links = NULL;
		if (cb->verdict)
			cb->verdict(cb->ud, b, &b->steps[b->nsteps - 1]);
	} else if (rc == 0 && ab_bisect_record(b, j->idx, t, by, j->res.seconds, j->wait, NULL) ==
		   AB_ENGINE_OK) {
		b->steps[b->nsteps - 1].links = j->res.links;
		j->res.links = NULL;
		if (cb->verdict)
			cb->verdict(cb->ud, b, &b->steps[b->nsteps - 1]);
	}
	return rc;
}

/* Whether finished job j ends the run (an abort, an interruption): that
 * is acted on at once, not in its turn. */
static bool job_stops_run(const job *j)
{
	switch (j->res.outcome) {
	case AB_PROBE_GOOD: case AB_PROBE_BAD: case AB_PROBE_SKIP: case AB_PROBE_TIMEOUT:
		return j->rc < 0;
	default:
		return true;
	}
}

/* Joins the probes that ended and records their verdicts. After the run
 * was told to stop (*ret holds why), a probe that still ended on its
 * own keeps its verdict, so a resumed run does not run it again. Whether
 * any ended. */
static int collect_verdicts(ab_bisect *b, const ab_bisect_callbacks *cb, job **js, size_t n,
			    int *ret, ab_error *err)
{
	int acted = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		job *j = js[i];

		if (!j->started || !__atomic_load_n(&j->done, __ATOMIC_ACQUIRE))
			continue;
		pthread_join(j->thread, NULL);
		j->started = 0;
		j->over = 1;
		if (*ret == 0) {
			*ret = job_verdict(b, cb, j, err);
		} else if (!job_stops_run(j)) {
			ab_error late = { 0 };

			job_verdict(b, cb, j, &late);
		}
		acted = 1;
	}
	return acted;
}

/* Stops what the verdicts made useless, or everything when ret is set
 * or the search ended; drops what is done with. The number of jobs
 * kept, in pick order. */
static size_t drop_useless(ab_bisect *b, const ab_bisect_callbacks *cb, job **js, size_t n,
			   int ret)
{
	size_t keys[AB_ENGINE_MAX_PENDING + 1];
	size_t i, k;
	int dropped = 0;

	for (i = k = 0; i < n; i++) {
		job *j = js[i];
		bool useless = ret != 0 || b->result != AB_RESULT_RUNNING ||
			!still_useful(b, j->idx);

		if (j->started) {
			if (useless)
				ab_cancel(&j->stop);
			js[k++] = j;
		} else if (useless || j->over) {
			dropped |= !j->over;	/* a download to cancel */
			job_free(b, cb, j);
		} else {
			js[k++] = j;
		}
	}
	n = k;
	if (dropped && b->prefetch) {
		for (i = 0; i < n; i++)
			keys[i] = js[i]->idx;
		ab_prefetch_keep(b->prefetch, keys, n);
		bisect_early_sweep(b, keys, n);
	}
	return n;
}

/* Probes for the picked builds that are ready, in pick order, in the
 * free slots; with no probe running and none ready, the first is waited
 * for. Whether one was started (or tried: *ret says if that failed). */
static int start_ready(ab_bisect *b, ab_cache *cache, const ab_bisect_callbacks *cb, job **js,
		       size_t n, size_t slots, int *ret, ab_error *err)
{
	size_t i, nprobing;
	int begun = 0;

	for (i = nprobing = 0; i < n; i++)
		nprobing += js[i]->started;
	for (int wait = 0; wait < 2 && !begun; wait++) {
		for (i = 0; i < n && *ret == 0 && nprobing < slots; i++) {
			job *j = js[i];

			if (j->started || j->over || !(wait ? nprobing == 0 : job_ready(b, j)))
				continue;
			if (job_start(b, cache, cb, j, err) < 0)
				*ret = -1;
			nprobing += j->started;
			begun = 1;
			if (wait)
				break;
		}
	}
	return begun;
}

/* Fills the free slots and the one ahead with the engine's picks; with
 * prefetch, one download at a time. Whether it picked any. */
static int pick_more(ab_bisect *b, job **js, size_t *n, size_t cap)
{
	size_t keys[AB_ENGINE_MAX_PENDING + 1];
	size_t i;
	int fetching = 0, acted = 0;

	for (i = 0; i < *n; i++)
		if (!js[i]->started && b->prefetch &&
		    ab_prefetch_stage_of(b->prefetch, js[i]->idx) == AB_PREFETCH_FETCHING)
			fetching = 1;
	while (*n < cap && !fetching) {
		size_t pick;
		job *j;

		for (i = 0; i < *n; i++)
			keys[i] = js[i]->idx;
		pick = b->flaky ? bisect_flaky_pick(b, keys, *n) : ab_engine_pick(b->engine, keys, *n);
		if (pick == (size_t)-1)
			break;
		j = ab_xcalloc(1, sizeof *j);
		j->idx = pick;
		j->picked = ab_now();
		js[(*n)++] = j;
		acted = 1;
		if (b->prefetch) {
			ab_prefetch_start(b->prefetch, pick, b->index, &b->index->builds[pick]);
			fetching = ab_prefetch_stage_of(b->prefetch, pick) == AB_PREFETCH_FETCHING;
		}
	}
	return acted;
}

/* Runs the rest of the search with up to opt.jobs probes at once. 0
 * when it ended (b->result says how), 1 when the run must stop, -1 with
 * err. */
int bisect_multisect(ab_bisect *b, ab_cache *cache, const ab_bisect_callbacks *cb,
		     ab_error *err)
{
	/* With prefetch, one build more than probes: it downloads while
	 * they all run, so the slot the next verdict frees does not wait
	 * for the link. */
	size_t slots = (size_t)b->opt.jobs, cap = slots + (b->prefetch != NULL), n = 0;
	job **js = ab_xcalloc(cap, sizeof *js);	/* picked, in pick order */
	int ret = 0;

	for (;;) {
		int acted = collect_verdicts(b, cb, js, n, &ret, err);

		ab_bisect_settle(b);
		if (ret == 0 && ab_cancelled(b->opt.cancel)) {
			ab_error_set(err, AB_EXIT_ABORTED, _("interrupted"));
			ret = -1;
		}
		n = drop_useless(b, cb, js, n, ret);
		if (ret != 0 || b->result != AB_RESULT_RUNNING) {
			if (n == 0)
				break;
			goto nap;	/* waiting for stopped probes to end */
		}
		if (start_ready(b, cache, cb, js, n, slots, &ret, err))
			acted = 1;
		if (ret != 0 || acted)
			continue;	/* look at the verdicts and the range again */
		if (pick_more(b, js, &n, cap))
			continue;
nap:		{
			struct timespec ten_ms = { 0, 10 * 1000 * 1000 };

			nanosleep(&ten_ms, NULL);
		}
	}
	free(js);
	return ret;
}


/* ---- --check-bounds: both ends probed before the first midpoint ----
 * Each end is a job as in multisection, its verdict a step of its own
 * that the engine never sees (the ends are OLD and NEW by definition).
 * With --jobs 2 or more the two probes run at once. */

/* Waits for the started jobs js[0..n), recording their verdicts in that
 * order (old end first); after a stop the others are stopped too. 0,
 * 1 when the run must stop, -1 with err. */
static int bounds_wait(ab_bisect *b, const ab_bisect_callbacks *cb, job **js, size_t n,
		       ab_error *err)
{
	struct timespec ten_ms = { 0, 10 * 1000 * 1000 };
	int ret = 0;

	for (;;) {
		size_t i, running = 0;
		int ordered = 1;	/* every job before this one is over */

		for (i = 0; i < n; i++) {
			job *j = js[i];

			if (j->started && __atomic_load_n(&j->done, __ATOMIC_ACQUIRE) &&
			    (ordered || ret != 0 || job_stops_run(j))) {
				pthread_join(j->thread, NULL);
				j->started = 0;
				j->over = 1;
				if (ret == 0)
					ret = job_verdict(b, cb, j, err);
			}
			if (j->started && ret != 0)
				ab_cancel(&j->stop);
			running += j->started;
			ordered = ordered && j->over;
		}
		if (running == 0)
			return ret;
		nanosleep(&ten_ms, NULL);
	}
}

/* Prepares end idx and probes it (or asks), in this thread. 0 with
 * its step recorded, 1 when the run must stop, -1 with err. */
static int check_end(ab_bisect *b, ab_cache *cache, const ab_bisect_callbacks *cb, size_t idx,
		     ab_error *err)
{
	char *root = NULL, *artifacts = NULL, *reason = NULL;
	double wait = ab_now();
	int rc;

	if (cb->choose)
		cb->choose(cb->ud, b, idx);
	rc = bisect_prepare(b, cache, cb, idx, &root, &artifacts, &reason, err);
	wait = ab_now() - wait;
	if (rc < 0)
		return -1;
	if (rc == 1) {
		ab_bisect_record_bound(b, idx, AB_TERM_SKIP, AB_BY_UNAVAILABLE, 0, wait, reason);
		free(reason);
	} else {
		if (cb->ready)
			cb->ready(cb->ud, b, idx, root);
		rc = bisect_judge(b, cache, cb, idx, &root, &artifacts, wait, 1, err);
		if (!b->opt.keep_roots)
			bisect_remove_root(cb, root);
		free(root);
		free(artifacts);
		if (rc == 1 && !err->code)
			ab_error_set(err, AB_EXIT_ABORTED, _("stopped by the user"));
		if (rc != 0)
			return rc;
	}
	if (cb->verdict)
		cb->verdict(cb->ud, b, &b->steps[b->nsteps - 1]);
	return 0;
}

/* Both ends' probes at once, on threads as in multisection. */
static int check_ends_at_once(ab_bisect *b, ab_cache *cache, const ab_bisect_callbacks *cb,
			      const size_t *ends, ab_error *err)
{
	job *js[2];
	size_t i, n = 0;
	int ret = 0;

	for (i = 0; i < 2 && ret == 0; i++, n++) {
		js[i] = ab_xcalloc(1, sizeof *js[i]);
		js[i]->idx = ends[i];
		js[i]->bound = 1;
		js[i]->picked = ab_now();
		if (job_start(b, cache, cb, js[i], err) < 0)
			ret = -1;
	}
	{
		int w = bounds_wait(b, cb, js, n, err);

		if (ret == 0)
			ret = w;
	}
	for (i = 0; i < n; i++)
		job_free(b, cb, js[i]);
	return ret;
}

/* Probes (or asks about) the ends that have no --check-bounds verdict
 * yet, the old one first. 0, 1 when the run must stop, -1 with err. */
int bisect_check_bounds(ab_bisect *b, ab_cache *cache, const ab_bisect_callbacks *cb,
			ab_error *err)
{
	size_t ends[2], n = 0, i;
	int ret = 0;

	if (!bisect_bound_step(b, b->old_end))
		ends[n++] = b->old_end;
	if (!bisect_bound_step(b, b->new_end))
		ends[n++] = b->new_end;
	/* The second end downloads while the first is prepared and probed. */
	if (n == 2 && b->prefetch)
		ab_prefetch_start(b->prefetch, ends[1], b->index, &b->index->builds[ends[1]]);
	if (n == 2 && b->opt.probe && b->opt.jobs >= 2)
		ret = check_ends_at_once(b, cache, cb, ends, err);
	else
		for (i = 0; i < n && ret == 0; i++)
			ret = check_end(b, cache, cb, ends[i], err);
	if (ret == 0 && ab_cancelled(b->opt.cancel)) {
		ab_error_set(err, AB_EXIT_ABORTED, _("interrupted"));
		ret = -1;
	}
	return ret;
}
