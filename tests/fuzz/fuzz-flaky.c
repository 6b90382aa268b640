/* fuzz-flaky.c - libFuzzer target: the flaky model (src/engine/flaky.c)
 * driven by any bytes. The input is decoded into a model (2 to 5,000
 * builds, the ends, options with fixed rates at 0 and 1, odd priors,
 * confidences near 0.5 and 1, max_probes) and up to MAX_OPS operations
 * (runs on any build, the ends and builds outside (good, bad] too;
 * untestable builds, all but one, all of them; next with k from 0 to
 * beyond AB_FLAKY_MAX_NEXT; the best block, the ranking, the rates, the
 * counts, credible ranges; copies). After every operation the promises
 * of flaky.h are checked against a shadow of the runs fed in, and a
 * broken one traps; never a crash, a leak or undefined behaviour
 * either. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "engine/flaky.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_N	5000
#define MAX_OPS	200
#define EPS	1e-9	/* rounding allowed on a probability */
#define WORK	4000000ul	/* budget of the next calls (next_cost) */
#define RANGE	1024	/* most builds marked untestable at once */
#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

typedef struct {
	const uint8_t *p;
	size_t left;
} input;

static unsigned byte(input *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

static unsigned u16(input *in)
{
	unsigned a = byte(in);
	return a | byte(in) << 8;
}

/* The shadow: what was fed in, as flaky.h says the model keeps it. */
typedef struct {
	size_t n, good, bad;
	ab_flaky_opts o;
	unsigned *fails, *passes;
	unsigned char *untestable;
	unsigned probes;
	double *prob;	/* scratch: P(culprit == c) for every build */
	unsigned long work;	/* rough cost of the next calls so far */
} shadow;

static const double rates[] = { 0, 1, 0, 1, 1e-12, 1 - 1e-12, 0.5, 0.05, 0.4, 0.999, 1e-9 };
static const double priors[] = { 1, 2, 10, 0.5, 1e-3, 1e-6, 1e-9, 1e3, 1e6, 1e9, 0.01, 100, 3.7 };
/* (1 and -0.5 are no weights, 0, -1, 1.5 and NaN no confidence: what
 * they do is not promised, only that nothing breaks) */
static const double weights[] = { 0, 0.5, 0.2, 1e-12, 0.999999, 1 - 1e-15, 0.01, 0.9, 1, -0.5 };
static const double confidences[] = {
	0.95, 0.5, 0.5000001, 0.51, 0.9, 0.99, 0.999, 0.999999, 1 - 1e-12, 1, 0.6, 0.8,
	0.95, 0.5, 0.999, 1, 0, -1, 1.5, NAN,
};
static const double masses[] = { 0.95, 0, 0.5, 0.9, 0.99, 0.999999, 1, 1 - 1e-15, 1.5, -1, 1e-300 };

static double pick_double(input *in, const double *t, size_t nt)
{
	unsigned b = byte(in);
	if (b < 0xf0)
		return t[b % nt];
	return (double)u16(in) / 65535.0;	/* any value in [0, 1] */
}

static void decode_opts(input *in, ab_flaky_opts *o)
{
	unsigned which = byte(in);

	ab_flaky_opts_init(o);
	if (which & 1)
		o->confidence = pick_double(in, confidences, sizeof confidences / sizeof *confidences);
	if (which & 2)
		o->max_probes = byte(in) % 64;
	if (which & 4)
		o->fix_before = pick_double(in, rates, sizeof rates / sizeof *rates);
	if (which & 8)
		o->fix_after = pick_double(in, rates, sizeof rates / sizeof *rates);
	if (which & 16) {
		o->before_alpha = priors[byte(in) % (sizeof priors / sizeof *priors)];
		o->before_beta = priors[byte(in) % (sizeof priors / sizeof *priors)];
	}
	if (which & 32) {
		o->after_alpha = priors[byte(in) % (sizeof priors / sizeof *priors)];
		o->after_beta = priors[byte(in) % (sizeof priors / sizeof *priors)];
	}
	if (which & 64)
		o->before_zero = pick_double(in, weights, sizeof weights / sizeof *weights);
	if (which & 128)
		o->after_one = pick_double(in, weights, sizeof weights / sizeof *weights);
}

/* A build to act on: the ends, the builds beside them, builds outside
 * (good, bad] and past n, or any. */
static size_t decode_idx(input *in, const shadow *s, const ab_flaky *f, const size_t *last, size_t nlast)
{
	unsigned b = byte(in);
	size_t r = u16(in);

	switch (b % 16) {
	case 0: return s->good;
	case 1: return s->bad;
	case 2: return s->good ? s->good - 1 : 0;
	case 3: return s->bad + 1;	/* may be n */
	case 4: return 0;
	case 5: return s->n - 1;
	case 6: return s->n + r % 3;	/* out of range */
	case 7: return SIZE_MAX - r % 2;
	case 8: return ab_flaky_best(f);
	case 9: return ab_flaky_best(f) - 1;
	case 10: return s->good + 1;
	case 11: return nlast ? last[r % nlast] : s->bad;
	case 12: return r % s->n;
	default: return s->good + 1 + r % (s->bad - s->good);
	}
}

static bool near(double a, double b)
{
	return fabs(a - b) <= EPS * (1 + fabs(a) + fabs(b));
}

static bool is_prob(double p)
{
	return isfinite(p) && p >= -EPS && p <= 1 + EPS;
}

static bool testable_in(const shadow *s, size_t lo, size_t hi)
{
	for (size_t i = lo; i <= hi; i++)
		if (!s->untestable[i])
			return true;
	return false;
}

/* Every promise of flaky.h about the state, against the shadow. */
static void check_state(const ab_flaky *f, shadow *s)
{
	size_t n = s->n, good = s->good, bad = s->bad;
	double sum = 0;

	CHECK(ab_flaky_size(f) == n);
	CHECK(ab_flaky_probes(f) == s->probes);
	for (size_t i = 0; i < n; i++) {
		unsigned fl = 12345, pa = 12345;
		ab_flaky_counts(f, i, &fl, &pa);
		CHECK(fl == s->fails[i] && pa == s->passes[i]);
		CHECK(ab_flaky_untestable(f, i) == (s->untestable[i] != 0));
		double p = ab_flaky_prob(f, i);
		CHECK(is_prob(p));
		if (i <= good || i > bad)
			CHECK(p == 0);
		s->prob[i] = p;
		sum += p;
	}
	CHECK(ab_flaky_prob(f, n) == 0 && ab_flaky_prob(f, SIZE_MAX) == 0);
	CHECK(fabs(sum - 1) <= 1e-6);	/* the culprit lies in (good, bad] */

	/* The best block: in (good, bad], the latest build the best one;
	 * one build unless untestable builds are in it, and then those
	 * untestable builds and the first testable one after them. */
	size_t lo = 0, hi = 0;
	double mass = ab_flaky_best_range(f, &lo, &hi), in_block = 0;
	CHECK(is_prob(mass));
	CHECK(good < lo && lo <= hi && hi <= bad);
	CHECK(ab_flaky_best(f) == hi);
	for (size_t c = lo; c < hi; c++)
		CHECK(s->untestable[c]);
	CHECK(lo == good + 1 || !s->untestable[lo - 1]);
	for (size_t c = lo; c <= hi; c++)
		in_block += s->prob[c];
	CHECK(fabs(in_block - mass) <= 1e-6);
	/* and no block is more likely */
	double acc = 0;
	for (size_t c = good + 1; c <= bad; c++) {
		acc += s->prob[c];
		if (!s->untestable[c] || c == bad) {
			CHECK(acc <= mass + 1e-6);
			acc = 0;
		}
	}

	/* The stop: stricter than the confidence, by 1.5 to 5.5 times on
	 * the odds against the best block. */
	double conf = s->o.confidence;
	bool done = ab_flaky_done(f);
	bool probes_out = s->o.max_probes && s->probes >= s->o.max_probes;
	if (conf > 0 && conf <= 1) {
		if (done)
			CHECK(mass >= 1 - (1 - conf) / 1.5 - 1e-6 || probes_out ||
			      !testable_in(s, good + 1, bad));
		else
			CHECK(mass < 1 - (1 - conf) / 5.5 + 1e-6 && !probes_out);
	}

	/* The rates: means in [0, 1], the fixed ones as given. */
	double rb = -1, ra = -1;
	ab_flaky_rates(f, &rb, &ra);
	CHECK(is_prob(rb) && is_prob(ra));
	if (s->o.fix_before >= 0 && s->o.fix_before <= 1)
		CHECK(rb == s->o.fix_before);
	if (s->o.fix_after >= 0 && s->o.fix_after <= 1)
		CHECK(ra == s->o.fix_after);
}

/* The builds of [good, bad] that have runs. */
static size_t observed(const shadow *s)
{
	size_t nobs = 0;
	for (size_t i = s->good; i <= s->bad; i++)
		nobs += s->fails[i] || s->passes[i];
	return nobs;
}

/* Roughly what ab_flaky_next(k) costs with nobs builds run. */
static unsigned long next_cost(size_t nobs, size_t k)
{
	unsigned long m = k < AB_FLAKY_MAX_NEXT ? k : AB_FLAKY_MAX_NEXT;
	return (m ? m : 1) * (nobs + m) * (nobs + m) * 40 * (1ul << (m ? m - 1 : 0));
}

/* ab_flaky_next: up to k (at most AB_FLAKY_MAX_NEXT) distinct builds
 * that may be run, none when done; greedy, so a shorter ask gives the
 * first ones of a longer one. */
static size_t check_next(const ab_flaky *f, shadow *s, size_t k, size_t *out, bool prefix)
{
	size_t buf[AB_FLAKY_MAX_NEXT + 4];
	size_t cap = k < AB_FLAKY_MAX_NEXT ? k : AB_FLAKY_MAX_NEXT;

	for (size_t i = 0; i < sizeof buf / sizeof *buf; i++)
		buf[i] = (size_t)-7;
	size_t got = ab_flaky_next(f, buf, k);
	CHECK(got <= cap);
	for (size_t i = cap; i < sizeof buf / sizeof *buf; i++)
		CHECK(buf[i] == (size_t)-7);	/* nothing written past k */
	if (ab_flaky_done(f))
		CHECK(got == 0);
	else if (k > 0)
		CHECK(got > 0);
	for (size_t i = 0; i < got; i++) {
		CHECK(buf[i] < s->n && !s->untestable[buf[i]]);
		for (size_t j = 0; j < i; j++)
			CHECK(buf[i] != buf[j]);
	}
	if (prefix && got > 1) {
		size_t shorter[AB_FLAKY_MAX_NEXT];
		size_t g2 = ab_flaky_next(f, shorter, got - 1);
		CHECK(g2 == got - 1);
		for (size_t i = 0; i < g2; i++)
			CHECK(shorter[i] == buf[i]);
	}
	/* The end game: while every run agrees with one boundary b (passes
	 * below, fails from it on), b - 1 and b have runs and b is the best
	 * build (docs/flaky.md), the first is one of those two. */
	if (got) {
		size_t b = SIZE_MAX;
		bool agree = true;
		for (size_t i = 0; i < s->n && agree; i++) {
			if (s->fails[i] && b == SIZE_MAX)
				b = i;
			if (s->passes[i] && b != SIZE_MAX)
				agree = false;
		}
		if (agree && b != SIZE_MAX && b > 0 && (s->passes[b - 1] || s->fails[b - 1]) &&
		    !s->untestable[b - 1] && !s->untestable[b] && ab_flaky_best(f) == b)
			CHECK(buf[0] == b || buf[0] == b - 1);
	}
	memcpy(out, buf, got * sizeof *out);
	return got;
}

/* ab_flaky_ranked: the most likely culprits first, distinct, with
 * their probabilities, and none left out more likely than the last. */
static void check_ranked(const ab_flaky *f, shadow *s, size_t k)
{
	size_t out[64], out2[64], cand = s->bad - s->good;
	double p[64];
	size_t want = k < 64 ? k : 64;
	if (want > cand)
		want = cand;

	size_t got = ab_flaky_ranked(f, out, p, k);
	CHECK(got == want);
	CHECK(ab_flaky_ranked(f, out2, NULL, k) == got);
	for (size_t i = 0; i < got; i++) {
		CHECK(out2[i] == out[i]);
		CHECK(out[i] > s->good && out[i] <= s->bad);
		CHECK(is_prob(p[i]) && near(p[i], s->prob[out[i]]));
		if (i)
			CHECK(p[i] <= p[i - 1]);
		for (size_t j = 0; j < i; j++)
			CHECK(out[i] != out[j]);
	}
	if (got && got < cand) {
		unsigned char *listed = calloc(s->n, 1);
		if (!listed)
			return;
		for (size_t i = 0; i < got; i++)
			listed[out[i]] = 1;
		for (size_t c = s->good + 1; c <= s->bad; c++)
			if (!listed[c])
				CHECK(s->prob[c] <= p[got - 1] * (1 + EPS) + 1e-300);
		free(listed);
	}
}

/* ab_flaky_credible_range: in (good, bad], around the best block,
 * holding at least the mass asked (or all of (good, bad]). */
static void check_credible(const ab_flaky *f, shadow *s, double mass)
{
	size_t lo = 0, hi = 0, blo, bhi;
	ab_flaky_credible_range(f, mass, &lo, &hi);
	ab_flaky_best_range(f, &blo, &bhi);
	CHECK(s->good < lo && lo <= hi && hi <= s->bad);
	CHECK(lo <= blo && bhi <= hi);
	if (lo == s->good + 1 && hi == s->bad)
		return;
	double in = 0;
	for (size_t c = lo; c <= hi; c++)
		in += s->prob[c];
	CHECK(in >= (mass < 1 ? mass : 1) - 1e-6);
}

/* ab_flaky_copy: the same answers, then independent of the original. */
static void check_copy(ab_flaky *f, shadow *s, input *in)
{
	ab_flaky *c = ab_flaky_copy(f);
	if (!c)
		return;
	size_t lo, hi, clo, chi, a[AB_FLAKY_MAX_NEXT], b[AB_FLAKY_MAX_NEXT];
	double m = ab_flaky_best_range(f, &lo, &hi);
	CHECK(ab_flaky_best_range(c, &clo, &chi) == m && clo == lo && chi == hi);
	CHECK(ab_flaky_done(c) == ab_flaky_done(f));
	check_state(c, s);
	size_t k = byte(in) % 3 + 1;
	s->work += next_cost(observed(s), k);
	if (k == 1 || s->work < WORK) {
		size_t ga = ab_flaky_next(f, a, k), gb = ab_flaky_next(c, b, k);
		CHECK(ga == gb && !memcmp(a, b, ga * sizeof *a));
	}
	/* Runs on the copy, and a build of it untestable: not the original's. */
	size_t i = s->good + 1 + u16(in) % (s->bad - s->good);
	ab_flaky_observe(c, i, byte(in) & 1);
	ab_flaky_observe(c, s->good, true);
	ab_flaky_mark_untestable(c, s->bad);
	ab_flaky_free(c);
	check_state(f, s);
	CHECK(ab_flaky_best_range(f, &clo, &chi) == m && clo == lo && chi == hi);
}

static bool observe(ab_flaky *f, shadow *s, size_t idx, bool failed)
{
	bool ok = ab_flaky_observe(f, idx, failed);
	CHECK(ok == (idx < s->n && !s->untestable[idx]));
	if (ok) {
		if (failed)
			s->fails[idx]++;
		else
			s->passes[idx]++;
		s->probes++;
	}
	return ok;
}

static void mark(ab_flaky *f, shadow *s, size_t idx)
{
	ab_flaky_mark_untestable(f, idx);
	if (idx < s->n)
		s->untestable[idx] = 1;
}

/* Arguments that do not fit give NULL. */
static void check_refusals(input *in, size_t n, size_t good, size_t bad)
{
	ab_flaky_opts o;
	unsigned b = byte(in);
	ab_flaky *f = NULL;

	ab_flaky_opts_init(&o);
	switch (b % 8) {
	case 0: f = ab_flaky_new(n, bad, good, NULL); break;
	case 1: f = ab_flaky_new(n, good, good, &o); break;
	case 2: f = ab_flaky_new(n, good, n, &o); break;
	case 3: f = ab_flaky_new(bad, good, bad, &o); break;
	case 4: o.before_alpha = 0; f = ab_flaky_new(n, good, bad, &o); break;
	case 5: o.after_beta = -1; f = ab_flaky_new(n, good, bad, &o); break;
	case 6: o.before_beta = NAN; f = ab_flaky_new(n, good, bad, &o); break;
	default: o.after_alpha = -0.0; f = ab_flaky_new(n, good, bad, &o); break;
	}
	CHECK(f == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	input in = { data, size };
	shadow s;
	memset(&s, 0, sizeof s);

	/* The size: mostly small, up to MAX_N. */
	unsigned sz = byte(&in), r = u16(&in);
	static const size_t caps[8] = { 16, 64, 512, MAX_N, 16, 64, 512, 2048 };
	size_t n = 2 + r % (caps[(sz & 3) | (sz >> 2 & 4)] - 1);
	size_t good = u16(&in) % (n - 1);
	size_t bad = good + 1 + u16(&in) % (n - 1 - good);
	if (sz & 4)
		check_refusals(&in, n, good, bad);
	if (sz & 8)
		ab_flaky_opts_init(&s.o);
	else
		decode_opts(&in, &s.o);

	ab_flaky *f = ab_flaky_new(n, good, bad, sz & 8 ? NULL : &s.o);
	CHECK(f != NULL);
	s.n = n;
	s.good = good;
	s.bad = bad;
	s.fails = calloc(n, sizeof *s.fails);
	s.passes = calloc(n, sizeof *s.passes);
	s.untestable = calloc(n, 1);
	s.prob = calloc(n, sizeof *s.prob);
	if (!s.fails || !s.passes || !s.untestable || !s.prob)
		goto out;
	/* the ends' verdicts, one run each, not probes */
	s.passes[good] = 1;
	s.fails[bad] = 1;
	check_state(f, &s);

	size_t last[AB_FLAKY_MAX_NEXT], nlast = 0;
	for (unsigned op = 0; op < MAX_OPS && in.left; op++) {
		unsigned code = byte(&in);
		switch (code % 12) {
		case 0:
		case 1:
			observe(f, &s, decode_idx(&in, &s, f, last, nlast), code % 2);
			break;
		case 2:
			mark(f, &s, decode_idx(&in, &s, f, last, nlast));
			break;
		case 3: {
			/* every build of a range untestable but one (or all) */
			unsigned how = byte(&in);
			size_t keep = decode_idx(&in, &s, f, last, nlast);
			size_t from = how & 1 ? 0 : how & 2 ? good : good + 1;
			size_t to = how & 4 ? n - 1 : bad;
			/* each new one costs a scan of (good, bad]: at most
			 * RANGE of them, around the one kept */
			if (to - from >= RANGE) {
				size_t mid = keep < n ? keep : bad;
				from = mid > from + RANGE / 2 ? mid - RANGE / 2 : from;
				to = from + RANGE - 1 < to ? from + RANGE - 1 : to;
			}
			unsigned long cost = (unsigned long)(to - from + 1) * (bad - good + 1) * 10;
			if (s.work + cost > WORK)
				break;
			s.work += cost;
			for (size_t i = from; i <= to; i++)
				if (i != keep || (how & 8))
					mark(f, &s, i);
			break;
		}
		case 4:
		case 5: {
			/* the next builds, run as a history with a culprit and
			 * two rates would have them run (or not run) */
			size_t k = byte(&in) % (AB_FLAKY_MAX_NEXT + 3);
			unsigned how = byte(&in);
			size_t nobs = observed(&s);
			/* k picks, each a search of every stretch, each step
			 * a sum over the segments and 2^(k-1) outcomes: keep
			 * each input quick */
			while (k > 1 && s.work + next_cost(nobs, k) > WORK)
				k--;
			s.work += next_cost(nobs, k);
			nlast = check_next(f, &s, k, last, how & 1);
			if (how & 2) {
				size_t culprit = good + 1 + u16(&in) % (bad - good);
				unsigned outcomes = byte(&in);
				for (size_t i = 0; i < nlast; i++) {
					bool failed = last[i] >= culprit;
					if (outcomes >> i & 1)
						failed = !failed;	/* flaky */
					observe(f, &s, last[i], failed);
				}
			}
			break;
		}
		case 6:
			check_ranked(f, &s, byte(&in) % 70);
			break;
		case 7:
			check_credible(f, &s, pick_double(&in, masses, sizeof masses / sizeof *masses));
			break;
		case 8: {
			size_t idx = decode_idx(&in, &s, f, last, nlast);
			unsigned fl = 0, pa = 0;
			ab_flaky_counts(f, idx, &fl, &pa);
			if (idx < n)
				CHECK(fl == s.fails[idx] && pa == s.passes[idx]);
			break;
		}
		case 9:
			check_copy(f, &s, &in);
			break;
		case 10: {
			/* a burst of runs on one build */
			size_t idx = decode_idx(&in, &s, f, last, nlast);
			unsigned times = byte(&in) % 16 + 1, fails = byte(&in);
			for (unsigned t = 0; t < times; t++)
				observe(f, &s, idx, fails >> (t % 8) & 1);
			break;
		}
		default: {
			/* log B(a, b) as libm's lgamma has it */
			double a = priors[byte(&in) % (sizeof priors / sizeof *priors)];
			double b = priors[byte(&in) % (sizeof priors / sizeof *priors)];
			double la = lgamma(a), lb = lgamma(b), lab = lgamma(a + b);
			double v = ab_flaky_lbeta(a, b);
			CHECK(isfinite(v));
			CHECK(fabs(v - (la + lb - lab)) <= 1e-9 * (1 + fabs(la) + fabs(lb) + fabs(lab)));
			break;
		}
		}
		check_state(f, &s);
	}
out:
	ab_flaky_free(f);
	free(s.fails);
	free(s.passes);
	free(s.untestable);
	free(s.prob);
	return 0;
}
