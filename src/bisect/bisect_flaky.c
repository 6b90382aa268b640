/* bisect_flaky.c - the bisection with flaky verdicts (issue 20): the
 * Bayesian model of flaky.c fed with every run, asked for the next
 * build, and turned into an answer; and --confirm, which runs the ends
 * of a deterministic answer again. Internal to the bisection (see
 * bisect_steps.h); never prints. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "bisect/bisect_steps.h"
#include "engine/flaky.h"
#include "base/i18n.h"
#include "base/util.h"

/* A step's run as the model sees it: 1 failed (the NEW state: bad, or
 * good with --find-fix), 0 passed, -1 no run (skip, unavailable). */
static int run_of(const ab_bisect *b, ab_term t, ab_by by)
{
	if (t == AB_TERM_SKIP || by == AB_BY_UNAVAILABLE || by == AB_BY_FAILED_BUILD)
		return -1;
	return (t == AB_TERM_BAD) != (b->opt.find_fix != 0);
}

void bisect_flaky_observe(ab_bisect *b, size_t idx, ab_term t, ab_by by)
{
	int r = run_of(b, t, by);

	if (r < 0)
		ab_flaky_mark_untestable(b->flaky, idx);
	else
		ab_flaky_observe(b->flaky, idx, r == 1);
}

int bisect_go_flaky(ab_bisect *b)
{
	ab_flaky_opts o;
	size_t i;

	if (b->flaky)
		return 0;
	ab_flaky_opts_init(&o);
	if (b->opt.confidence > 0)
		o.confidence = b->opt.confidence;
	o.max_probes = b->opt.max_probes;
	o.fix_before = b->opt.fail_rate_before;
	o.fix_after = b->opt.fail_rate_after;
	b->flaky = ab_flaky_new(b->index->nbuilds, b->old_end, b->new_end, &o);
	if (!b->flaky)
		return -1;
	/* Builds the farm could not make are never chosen. */
	for (i = b->old_end + 1; i < b->new_end; i++)
		if (b->index->builds[i].failed)
			ab_flaky_mark_untestable(b->flaky, i);
	/* Every run so far is an observation, --check-bounds' too. */
	for (i = 0; i < b->nsteps; i++)
		bisect_flaky_observe(b, b->steps[i].index, b->steps[i].verdict, b->steps[i].by);
	if (b->result == AB_RESULT_FOUND || b->result == AB_RESULT_INCONCLUSIVE)
		b->result = AB_RESULT_RUNNING;	/* the answer is the model's now */
	return 0;
}

size_t bisect_flaky_next(const ab_bisect *b)
{
	size_t out[1];

	return ab_flaky_next(b->flaky, out, 1) ? out[0] : (size_t)-1;
}

/* For --jobs: the model's best build not among the pending ones (the
 * builds in flight), or (size_t)-1. */
size_t bisect_flaky_pick(const ab_bisect *b, const size_t *pending, size_t npending)
{
	size_t out[AB_FLAKY_MAX_NEXT], n, i, k;

	n = ab_flaky_next(b->flaky, out, npending + 1 < AB_FLAKY_MAX_NEXT ? npending + 1 : AB_FLAKY_MAX_NEXT);
	for (i = 0; i < n; i++) {
		for (k = 0; k < npending && pending[k] != out[i]; k++)
			;
		if (k == npending)
			return out[i];
	}
	return (size_t)-1;
}

/* While build idx runs, the builds the model would choose after a pass
 * and after a failure. */
size_t bisect_flaky_after(const ab_bisect *b, size_t idx, size_t out[2])
{
	size_t n = 0, k, pick;
	int failed;

	for (failed = 0; failed < 2; failed++) {
		ab_flaky *f = ab_flaky_copy(b->flaky);

		if (!f)
			continue;
		ab_flaky_observe(f, idx, failed);
		if (ab_flaky_next(f, &pick, 1)) {
			for (k = 0; k < n && out[k] != pick; k++)
				;
			if (k == n)
				out[n++] = pick;
		}
		ab_flaky_free(f);
	}
	return n;
}

/* The model's answer as the engine's range, so that the reports' last
 * good and first bad builds are the model's. */
static void engine_from_model(ab_bisect *b, size_t lo, size_t hi)
{
	ab_engine *e = ab_engine_new(b->index->nbuilds, lo - 1, hi);
	size_t i;

	if (!e)
		return;
	for (i = lo; i < hi; i++)
		ab_engine_set(e, i, b->index->builds[i].failed ? AB_V_FAILED : AB_V_SKIP);
	ab_engine_free(b->engine);
	b->engine = e;
}

/* Found when one build holds the confidence; else inconclusive, and
 * the candidates are every build that may still be the culprit at that
 * confidence (the contract's "every build that may be the first new
 * one"), not the best block alone, which may be a single build. */
void bisect_flaky_settle(ab_bisect *b)
{
	double conf = b->opt.confidence > 0 ? b->opt.confidence : 0.95;
	size_t lo, hi;
	double p;

	if (b->result != AB_RESULT_RUNNING || !ab_flaky_done(b->flaky))
		return;
	p = ab_flaky_best_range(b->flaky, &lo, &hi);
	if (lo == hi && p >= conf) {
		b->result = AB_RESULT_FOUND;
	} else {
		ab_flaky_credible_range(b->flaky, conf, &lo, &hi);
		b->result = AB_RESULT_INCONCLUSIVE;
	}
	engine_from_model(b, lo, hi);
}

/* --confirm N: the culprit and the last good build run N times more
 * each; a run that disagrees hands the session to the flaky model. 0,
 * 1 when the run must stop, -1 with err. */
int bisect_confirm(ab_bisect *b, ab_cache *cache, const ab_bisect_callbacks *cb, ab_error *err)
{
	unsigned round;
	size_t k;

	for (round = 0; round < b->opt.confirm && !b->flaky; round++) {
		size_t ends[2] = { ab_engine_first_new(b->engine), ab_engine_last_old(b->engine) };

		for (k = 0; k < 2 && !b->flaky; k++) {
			char *root = NULL, *artifacts = NULL, *reason = NULL;
			double wait = ab_now();
			int rc;

			if (ab_cancelled(b->opt.cancel)) {
				ab_error_set(err, AB_EXIT_ABORTED, _("interrupted"));
				return -1;
			}
			b->confirm_round = round + 1;
			if (cb->choose)
				cb->choose(cb->ud, b, ends[k]);
			rc = bisect_prepare(b, cache, cb, ends[k], &root, &artifacts, &reason, err);
			wait = ab_now() - wait;
			if (rc < 0)
				return -1;
			if (rc == 1) {
				/* Nothing to confirm with: the answer stands. */
				free(reason);
				return 0;
			}
			if (cb->ready)
				cb->ready(cb->ud, b, ends[k], root);
			rc = bisect_judge(b, cache, cb, ends[k], &root, &artifacts, wait, 0, err);
			if (!b->opt.keep_roots)
				bisect_remove_root(cb, root);
			free(root);
			free(artifacts);
			if (rc != 0)
				return rc;
			if (cb->verdict)
				cb->verdict(cb->ud, b, &b->steps[b->nsteps - 1]);
		}
	}
	return 0;
}
