/* flaky.h - Bayesian bisection of flaky regressions: a pure model.
 *
 * Owns the runs seen on every build, the posterior over where the
 * culprit (the first bad build) is, the failure rates before and after
 * it, and the choice of the next builds to run. Never does I/O, keeps
 * no globals, never prints; it allocates in ab_flaky_new and
 * ab_flaky_copy only (and a scratch array that ab_flaky_credible_range
 * frees before it returns). docs/flaky.md says the model in plain words.
 *
 * Builds 0..n-1, oldest first. The culprit c lies in (good, bad], each
 * candidate equally likely a priori. A run on build i fails with rate
 * A when i < c and B when i >= c; A and B have Beta priors and are
 * learned from the runs (integrated out exactly), or fixed. Every run
 * is one observation; the same build may be run any number of times.
 * The ends are taken as the user's verdicts: ab_flaky_new records one
 * passing run on good and one failing run on bad (ab_flaky_counts
 * shows them; ab_flaky_probes does not count them).
 *
 * Builds marked untestable are never chosen, but may still be the
 * culprit: candidates that no testable build separates (an untestable
 * build and the first testable one after it) form one "block", and the
 * search stops when one block holds the confidence, as engine.c's
 * INCONCLUSIVE range when the block has more than one build.
 *
 * While every run agrees with one boundary (passes below, fails from
 * it on), the build above it is the most likely culprit and the builds
 * on both sides of it have runs, only those two are chosen: the end
 * game of a farm that looks deterministic.
 *
 * The stop is stricter than the confidence asked: the odds against the
 * best block must be 1.5 times smaller (0.967 for 0.95), and up to 5.5
 * times (0.991) when the learned rates are close or barely measured,
 * since the posterior is over-confident when few runs tell them apart
 * (docs/flaky.md).
 */
#ifndef AB_FLAKY_H
#define AB_FLAKY_H

#include <stddef.h>
#include <stdbool.h>

/* Most builds ab_flaky_next hands out at once (--jobs plus prefetch). */
#define AB_FLAKY_MAX_NEXT 8

typedef struct ab_flaky_opts {
	double confidence;	/* asked confidence (0.95; the stop is stricter) */
	unsigned max_probes;	/* stop after this many runs; 0: no limit */
	double fix_before;	/* failure rate before the culprit; < 0: learn */
	double fix_after;	/* failure rate from the culprit on; < 0: learn */
	/* Beta(alpha, beta) priors of the learned rates */
	double before_alpha, before_beta;
	double after_alpha, after_beta;
	/* prior weight of "never fails before" (before rate exactly 0) and
	 * of "always fails after" (after rate exactly 1), in [0, 1) */
	double before_zero, after_one;
} ab_flaky_opts;

/* The defaults: confidence 0.95, no probe limit, both rates learned;
 * before: 0 with weight 0.5, else Beta(1, 10); after: 1 with weight
 * 0.2, else Beta(1, 2). */
void ab_flaky_opts_init(ab_flaky_opts *o);

typedef struct ab_flaky ab_flaky;

/* n builds, good < bad < n; o NULL for the defaults. NULL when the
 * arguments do not fit (or a prior parameter is not positive). */
ab_flaky *ab_flaky_new(size_t n, size_t good, size_t bad, const ab_flaky_opts *o);
void ab_flaky_free(ab_flaky *f);
/* An independent copy. */
ab_flaky *ab_flaky_copy(const ab_flaky *f);

/* One run on build idx. Any build may be observed, the ends and builds
 * outside (good, bad] too (those only teach the rates). False when idx
 * >= n or the build is marked untestable. */
bool ab_flaky_observe(ab_flaky *f, size_t idx, bool failed);
/* The build cannot be run (skipped, unavailable, failed to build): it
 * is never chosen again; its runs so far still count. */
bool ab_flaky_mark_untestable(ab_flaky *f, size_t idx);
bool ab_flaky_untestable(const ab_flaky *f, size_t idx);

/* Up to k (at most AB_FLAKY_MAX_NEXT) distinct builds to run next,
 * best first, written to out; 0 when done. The first has the greatest
 * expected information gain about the culprit and the rates (or, in
 * the end game above, the more telling of the two builds); each next
 * one the greatest joint gain together with those before it (greedy). */
size_t ab_flaky_next(const ab_flaky *f, size_t *out, size_t k);
/* The best block holds the confidence, max_probes runs were seen, or
 * no build is left to run. */
bool ab_flaky_done(const ab_flaky *f);

/* The probability the most likely block must reach for the run to
 * stop: above the asked confidence while the rates are uncertain. */
double ab_flaky_stop_mass(const ab_flaky *f);
/* P(culprit == idx); 0 outside (good, bad]. */
double ab_flaky_prob(const ab_flaky *f, size_t idx);
/* The most likely culprit (the latest build of the most likely block). */
size_t ab_flaky_best(const ab_flaky *f);
/* The most likely block [*lo, *hi] (lo == hi unless untestable builds
 * are in it) and its probability. */
double ab_flaky_best_range(const ab_flaky *f, size_t *lo, size_t *hi);
/* The narrowest range [*lo, *hi] that holds the best block and the most
 * likely builds that together make up at least probability mass: every
 * build that may still be the culprit at that confidence (all of
 * (good, bad] when rounding leaves the mass short). */
void ab_flaky_credible_range(const ab_flaky *f, double mass, size_t *lo, size_t *hi);
/* The k (at most 64) most likely culprits, most likely first, with their
 * probabilities (p may be NULL); returns how many were written. */
size_t ab_flaky_ranked(const ab_flaky *f, size_t *out, double *p, size_t k);
/* Posterior means of the failure rates (or the fixed ones). */
void ab_flaky_rates(const ab_flaky *f, double *before, double *after);
/* Runs seen on build idx, the ends' given verdicts included. */
void ab_flaky_counts(const ab_flaky *f, size_t idx, unsigned *fails, unsigned *passes);
/* Runs observed since ab_flaky_new (the ends' verdicts not counted). */
unsigned ab_flaky_probes(const ab_flaky *f);
size_t ab_flaky_size(const ab_flaky *f);

/* log B(a, b), a and b > 0 (for the simulator's other policies). */
double ab_flaky_lbeta(double a, double b);

#endif
