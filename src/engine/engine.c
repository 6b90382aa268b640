/* engine.c - the bisection engine: verdicts in, next build out.
 *
 * One verdict byte per build plus a few counters. The range
 * (last_old, first_new) only ever shrinks, so keeping per-verdict counts
 * of the builds strictly inside it costs O(n) over a whole session.
 *
 * Picking a probe: the midpoint while nothing learned at probe time is
 * in the range, which is optimal. Once probes have come back SKIP or
 * UNAVAILABLE we expect more of them nearby, since broken builds come
 * in runs. Then every untested build is weighed by its chance of being
 * testable times how evenly it splits the candidates, and the best
 * wins; the chance comes from the skip model below.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"

#define NV	(AB_V_FAILED + 1)
#define NONE	((size_t)-1)

struct ab_engine {
	size_t n;
	size_t last_old, first_new;
	size_t inside[NV];	/* verdict counts strictly inside the range */
	unsigned char *v;
};

/*
 * The skip model. Builds that turn out untestable at probe time are
 * taken to follow one of three two-state Markov chains along the
 * history, each with RHO of all builds untestable: "isolated" (every
 * build on its own), "short runs" and "long runs" (a build shares the
 * fate of one d builds away with correlation lambda^d). We start
 * undecided and let the observations in the range vote (see
 * chain_weights()): a run of adjacent skips, or skips a few builds
 * apart, favours the clustered chains, and the longer the known run the
 * further the step away from it; a lone skip moves us only a little.
 * The numbers were tuned on a simulation like the one in
 * tests/test-engine.c, with other seeds; results are flat around them.
 * FAILED builds come from the index, exactly and for free: they say
 * nothing about their neighbours, so the model does not see them.
 */
#define RHO		0.15
#define PRIOR_ISOLATED	0.7
#define NCHAINS		2
#define HORIZON		128	/* 0.8^128 < 1e-12: no memory beyond it */

static const struct chain {
	double lambda, prior;
} chains[NCHAINS] = {
	{ 0.4, 0.2 },	/* short runs */
	{ 0.8, 0.1 },	/* long runs */
};

static bool learned_bad(unsigned char v)
{
	return v == AB_V_SKIP || v == AB_V_UNAVAILABLE;
}

ab_engine *ab_engine_new(size_t n, size_t old_idx, size_t new_idx)
{
	ab_engine *e;

	if (old_idx >= new_idx || new_idx >= n)
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->v = calloc(n, 1);
	if (!e->v) {
		free(e);
		return NULL;
	}
	e->n = n;
	e->last_old = old_idx;
	e->first_new = new_idx;
	e->v[old_idx] = AB_V_OLD;
	e->v[new_idx] = AB_V_NEW;
	e->inside[AB_V_UNTESTED] = new_idx - old_idx - 1;
	return e;
}

ab_engine *ab_engine_copy(const ab_engine *e)
{
	ab_engine *c = malloc(sizeof(*c));

	if (!c)
		return NULL;
	*c = *e;
	c->v = malloc(e->n);
	if (!c->v) {
		free(c);
		return NULL;
	}
	memcpy(c->v, e->v, e->n);
	return c;
}

void ab_engine_free(ab_engine *e)
{
	if (!e)
		return;
	free(e->v);
	free(e);
}

/* Drops (from, to] out of the counted inside of the range. */
static void uncount(ab_engine *e, size_t from, size_t to)
{
	for (size_t i = from + 1; i <= to; i++)
		e->inside[e->v[i]]--;
}

ab_engine_rc ab_engine_set(ab_engine *e, size_t idx, ab_verdict v)
{
	size_t lo = e->last_old, hi = e->first_new;

	/* no rc of its own for a verdict we do not know: out of range too */
	if (idx >= e->n || (unsigned)v >= NV)
		return AB_ENGINE_OUT_OF_RANGE;

	switch (v) {
	case AB_V_OLD:
		if (idx >= hi)
			return AB_ENGINE_CONFLICT;
		if (idx > lo) {
			uncount(e, lo, idx);
			e->last_old = idx;
		}
		break;
	case AB_V_NEW:
		if (idx <= lo)
			return AB_ENGINE_CONFLICT;
		if (idx < hi) {
			uncount(e, idx - 1, hi - 1);
			e->first_new = idx;
		}
		break;
	default:
		/* the ends were tested; a later skip must not unsettle them */
		if (idx == lo || idx == hi)
			return AB_ENGINE_OK;
		if (idx > lo && idx < hi) {
			e->inside[e->v[idx]]--;
			e->inside[v]++;
		}
		break;
	}
	e->v[idx] = (unsigned char)v;
	return AB_ENGINE_OK;
}

ab_verdict ab_engine_get(const ab_engine *e, size_t idx)
{
	return idx < e->n ? (ab_verdict)e->v[idx] : AB_V_UNTESTED;
}

ab_engine_state ab_engine_state_of(const ab_engine *e)
{
	if (e->inside[AB_V_UNTESTED])
		return AB_ENGINE_RUNNING;
	if (e->first_new == e->last_old + 1)
		return AB_ENGINE_FOUND;
	return AB_ENGINE_INCONCLUSIVE;
}

size_t ab_engine_size(const ab_engine *e)
{
	return e->n;
}

size_t ab_engine_last_old(const ab_engine *e)
{
	return e->last_old;
}

size_t ab_engine_first_new(const ab_engine *e)
{
	return e->first_new;
}

size_t ab_engine_candidate_count(const ab_engine *e)
{
	return e->first_new - e->last_old;
}

unsigned ab_engine_steps_left(const ab_engine *e)
{
	size_t t = e->inside[AB_V_UNTESTED];
	unsigned k = 0;

	/* smallest k with 2^k >= t + 1, without overflowing t + 1 */
	while (t) {
		t >>= 1;
		k++;
	}
	return k;
}

static bool picked(const size_t *out, size_t nout, size_t p)
{
	for (size_t i = 0; i < nout; i++)
		if (out[i] == p)
			return true;
	return false;
}

static size_t dist2(const ab_engine *e, size_t p)
{
	size_t two_p = 2 * p, mid2 = e->last_old + e->first_new;

	return two_p > mid2 ? two_p - mid2 : mid2 - two_p;
}

/*
 * The untested build closest to the middle of the candidates, among
 * those that keep the worst case at steps_left: no more than
 * 2^(steps_left - 1) - 1 untested builds may stay on either side of it.
 * With nothing untestable in the range that is the midpoint itself.
 * With FAILED builds in it the window costs about 1% more probes on
 * average than the plain nearest build, but the worst case is then
 * exactly what steps_left promises, and never above
 * ceil(log2(candidates)).
 */
static size_t midpoint(const ab_engine *e)
{
	size_t lo = e->last_old, hi = e->first_new, t = e->inside[AB_V_UNTESTED];
	size_t half = ((size_t)1 << (ab_engine_steps_left(e) - 1)) - 1;
	size_t first = t - 1 > half ? t - 1 - half : 0;
	size_t r = 0, best = NONE, best_d2 = 0;

	/* git's choice among equals, so that the same history costs the same
	 * probes: the older middle, but of three candidates the second. */
	if (t == hi - lo - 1)
		return hi - lo == 3 ? lo + 2 : lo + (hi - lo) / 2;
	/* r counts the untested builds before p: keep first <= r <= half */
	for (size_t p = lo + 1; p < hi && r <= half; p++) {
		size_t d2;

		if (e->v[p] != AB_V_UNTESTED || r++ < first)
			continue;
		d2 = dist2(e, p);
		if (best == NONE || d2 < best_d2) {
			best = p;
			best_d2 = d2;
		}
	}
	return best;
}

/* The first learned-untestable build in [from, hi), or hi itself. */
static size_t next_obs(const ab_engine *e, size_t from)
{
	size_t hi = e->first_new;

	while (from < hi && !learned_bad(e->v[from]))
		from++;
	return from;
}

/*
 * P(next observation is bad) under a chain with powers lp[] of its
 * lambda, d builds after one that was bad or good.
 */
static double chain_step(const double *lp, size_t d, bool from_bad)
{
	double l = d <= HORIZON ? lp[d] : 0.0;

	return from_bad ? RHO + (1 - RHO) * l : RHO * (1 - l);
}

/*
 * P(each chain | observations in the range) into w[], the isolated
 * chain getting what is left. The observations are last_old (good),
 * every learned-bad build inside and first_new (good); pairs more than
 * HORIZON apart look the same to all chains and are left out.
 */
static void chain_weights(const ab_engine *e, double lp[][HORIZON + 1],
			  double *w)
{
	size_t hi = e->first_new, prev = e->last_old, left;
	double sum = 1.0;
	bool prev_bad = false;

	for (int k = 0; k < NCHAINS; k++)
		w[k] = chains[k].prior / PRIOR_ISOLATED;
	left = e->inside[AB_V_SKIP] + e->inside[AB_V_UNAVAILABLE];
	for (size_t q = next_obs(e, prev + 1); ; q = next_obs(e, q + 1)) {
		bool bad = q < hi;
		size_t d = q - prev;

		for (int k = 0; d <= HORIZON && k < NCHAINS; k++) {
			double pu = chain_step(lp[k], d, prev_bad);

			/* likelihood ratio against the isolated chain */
			w[k] *= bad ? pu / RHO : (1 - pu) / (1 - RHO);
			/* keep it finite; beyond these it is decided anyway */
			if (w[k] > 1e100)
				w[k] = 1e100;
			else if (w[k] < 1e-100)
				w[k] = 1e-100;
		}
		if (!bad)
			break;
		prev = q;
		prev_bad = true;
		/* nothing left to see but first_new, and that too far */
		if (--left == 0 && hi - q > HORIZON)
			break;
	}
	for (int k = 0; k < NCHAINS; k++)
		sum += w[k];
	for (int k = 0; k < NCHAINS; k++)
		w[k] /= sum;
}

/*
 * P(a build is untestable | nearest observations on each side) under a
 * chain: d1 back to one that was bad or not (b1), d2 on to the next (b2).
 */
static double chain_prob(const double *lp, size_t d1, bool b1,
			 size_t d2, bool b2)
{
	double l2 = d2 <= HORIZON ? lp[d2] : 0.0;
	double pu = chain_step(lp, d1, b1);
	/* P(the next observation | this build bad), and | this build good */
	double fu = b2 ? RHO + (1 - RHO) * l2 : (1 - RHO) * (1 - l2);
	double ft = b2 ? RHO * (1 - l2) : (1 - RHO) + RHO * l2;

	return pu * fu / (pu * fu + (1 - pu) * ft);
}

/*
 * Maximises P(testable) * (p - last_old) * (first_new - p): the chance
 * the probe tells us anything times how evenly it splits (the Gini
 * gain; entropy did no better in the simulation and needs libm). Ties
 * go to the build nearer the middle, then to the older one.
 */
static size_t pick_around_skips(const ab_engine *e)
{
	size_t lo = e->last_old, hi = e->first_new;
	double lp[NCHAINS][HORIZON + 1], w[NCHAINS], w_iso = 1.0;
	double best_score = -1.0;
	size_t best = NONE, best_d2 = 0, far = NONE, far_d2 = 0;
	size_t prev = lo, nx;
	bool prev_bad = false;

	for (int k = 0; k < NCHAINS; k++) {
		lp[k][0] = 1.0;
		for (int d = 1; d <= HORIZON; d++)
			lp[k][d] = lp[k][d - 1] * chains[k].lambda;
	}
	chain_weights(e, lp, w);
	for (int k = 0; k < NCHAINS; k++)
		w_iso -= w[k];

	nx = next_obs(e, lo + 1);
	for (size_t p = lo + 1; p < hi; p++) {
		unsigned char v = e->v[p];
		double pu, score;
		size_t d2;

		if (learned_bad(v)) {
			prev = p;
			prev_bad = true;
			nx = next_obs(e, p + 1);
			continue;
		}
		if (v != AB_V_UNTESTED)
			continue;
		d2 = dist2(e, p);
		if (p - prev > HORIZON && nx - p > HORIZON) {
			/* out of reach of every observation: plain RHO, so
			 * only the nearest to the middle can win */
			if (far == NONE || d2 < far_d2) {
				far = p;
				far_d2 = d2;
			}
			continue;
		}
		pu = w_iso * RHO;
		for (int k = 0; k < NCHAINS; k++)
			pu += w[k] * chain_prob(lp[k], p - prev, prev_bad,
						nx - p, nx < hi);
		score = (1 - pu) * (double)(p - lo) * (double)(hi - p);
		if (score > best_score * (1 + 1e-12) ||
		    (score >= best_score * (1 - 1e-12) && d2 < best_d2)) {
			best = p;
			best_d2 = d2;
			best_score = score;
		}
	}
	if (far != NONE) {
		double score = (1 - RHO) * (double)(far - lo) * (double)(hi - far);

		if (best == NONE || score > best_score * (1 + 1e-12) ||
		    (score >= best_score * (1 - 1e-12) && far_d2 < best_d2))
			best = far;
	}
	return best;
}

size_t ab_engine_next(const ab_engine *e)
{
	if (!e->inside[AB_V_UNTESTED])
		return NONE;
	/* FAILED builds alone say nothing about their neighbours */
	if (!e->inside[AB_V_SKIP] && !e->inside[AB_V_UNAVAILABLE])
		return midpoint(e);
	return pick_around_skips(e);
}

size_t ab_engine_pick(const ab_engine *e, const size_t *pending, size_t npending)
{
	size_t lo = e->last_old, hi = e->first_new;
	size_t cut[AB_ENGINE_MAX_PENDING + 2], ncut = 1;
	bool tried[AB_ENGINE_MAX_PENDING + 1] = { false };

	if (!e->inside[AB_V_UNTESTED])
		return NONE;
	/* The stretches between the pending builds inside the range, in
	 * order: cut[] holds lo, the pending builds sorted, hi. */
	cut[0] = lo;
	for (size_t i = 0; i < npending && ncut <= AB_ENGINE_MAX_PENDING; i++) {
		size_t p = pending[i], j;

		if (p <= lo || p >= hi || picked(cut, ncut, p))
			continue;
		for (j = ncut; j > 1 && cut[j - 1] > p; j--)
			cut[j] = cut[j - 1];
		cut[j] = p;
		ncut++;
	}
	if (ncut == 1)
		return ab_engine_next(e);
	cut[ncut++] = hi;
	/* The longest stretch first (the older on ties): a build in its
	 * middle halves the most candidates whatever the pending verdicts
	 * say. A stretch with nothing testable inside is passed over. */
	for (;;) {
		size_t best = NONE, len = 0;

		for (size_t s = 0; s + 1 < ncut; s++)
			if (!tried[s] && cut[s + 1] - cut[s] > len) {
				best = s;
				len = cut[s + 1] - cut[s];
			}
		if (best == NONE || len < 2)
			return NONE;
		tried[best] = true;
		size_t a = cut[best], target = a + len / 2;
		for (size_t k = 0; k < len; k++) {
			if (k < target - a && e->v[target - k] == AB_V_UNTESTED)
				return target - k;
			if (k && target + k < a + len && e->v[target + k] == AB_V_UNTESTED)
				return target + k;
		}
	}
}
