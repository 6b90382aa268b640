/* flaky.c - Bayesian bisection of flaky regressions.
 *
 * The posterior is a step function. For a culprit c, only the counts of
 * failing and passing runs before c and from c on matter, and those
 * change only at builds that have runs. So the candidates fall into
 * segments (obs[j], obs[j+1]] between consecutive observed builds of
 * [good, bad], and every candidate of a segment has the same likelihood:
 * one Beta-Binomial marginal per side, in log space. An update costs
 * O(observed builds), not O(n); only a range with untestable builds in
 * it is scanned build by build, to weigh its blocks.
 *
 * Choosing: a run on build i fails with probability pb(c) (the rate
 * after, predicted from the runs given c) when c <= i and pa(c) when
 * c > i; these predictive rates are exact for the Beta-Binomial model.
 * The gain counted is the information a run gives about the culprit
 * and the two rates together, H(outcome) - sum_c P(c) E[h(rate) | c]:
 * learning the rates is what makes later passes convincing, and a gain
 * about the culprit alone never asks for the run on a surely bad build
 * that would teach them (in simulation: the same cost, fewer wrong
 * answers where the rates are close; bench/README.md).
 *
 * As i moves inside a stretch with no observed or pending build, one
 * candidate at a time moves from one side to the other: every sum is
 * linear in i, and the negated gain, s log s of linear terms plus a
 * linear term (the E[h] of each candidate is fixed), is convex. So each
 * stretch is searched by ternary search, and the best build that may be
 * run is the nearest such build on either side of the minimum. The
 * builds chosen before in one ab_flaky_next call are treated as pending
 * runs of unknown outcome: the gain is then the joint one, summed over
 * their 2^m outcomes, still convex between breakpoints.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/flaky.h"

#define NONE	((size_t)-1)
#define PMIN	1e-9	/* fixed rates are kept in [PMIN, 1 - PMIN] */
/* The search stops when the odds against the best block are STOP_ODDS
 * times smaller than the asked confidence allows, plus up to STOP_WEAK
 * more when the two rates are hard to tell apart (Chernoff information
 * below STOP_CLEAR nats): the posterior is over-confident when few runs
 * separate them (judged from the answer's runs, stop_odds). Tuned in
 * bench/simulate.c (bench/README.md). */
#define STOP_ODDS	1.5
#define STOP_WEAK	4.0
#define STOP_CLEAR	0.3

struct ab_flaky {
	size_t n, good, bad;
	ab_flaky_opts o;
	unsigned *fails, *passes;	/* runs per build */
	unsigned char *untestable;
	size_t untestable_in;		/* untestable builds in [good, bad] */
	unsigned probes;
	unsigned long ftot, ptot;	/* runs on all builds */
	unsigned long fbelow, pbelow;	/* runs on builds < good */
	/* Observed builds of [good, bad], ascending; good and bad always. */
	size_t *obs, nobs;
	/* Per segment j < nobs - 1, candidates (obs[j], obs[j+1]]: the
	 * posterior of each candidate and the predictive failure rates of
	 * a run before and after c. */
	double *w, *pa, *pb;
	/* E[h(rate)] of a run before and after c, h the binary entropy */
	double *ea, *eb;
	size_t best, best_lo, best_hi;
	double best_mass;
};

void ab_flaky_opts_init(ab_flaky_opts *o)
{
	o->confidence = 0.95;
	o->max_probes = 0;
	o->fix_before = -1;
	o->fix_after = -1;
	/* tuned in bench/simulate.c: see bench/README.md */
	o->before_alpha = 1;
	o->before_beta = 10;
	o->after_alpha = 1;
	o->after_beta = 2;
	o->before_zero = 0.5;
	o->after_one = 0.2;
}

/* log Gamma(x) for x > 0: recurrence up to 8, then Stirling's series.
 * Ours, because lgamma() writes the global signgam. */
static double lgam(double x)
{
	double acc = 0;
	while (x < 8) {
		acc -= log(x);
		x += 1;
	}
	double z = 1 / (x * x);
	return acc + (x - 0.5) * log(x) - x + 0.91893853320467274178 +
	       (1 / x) * (1.0 / 12 - z * (1.0 / 360 - z * (1.0 / 1260 - z / 1680)));
}

double ab_flaky_lbeta(double a, double b)
{
	return lgam(a) + lgam(b) - lgam(a + b);
}

/* The digamma function for x > 0: recurrence up to 6, then the
 * asymptotic series. */
static double digamma(double x)
{
	double acc = 0;
	while (x < 6) {
		acc -= 1 / x;
		x += 1;
	}
	double z = 1 / (x * x);
	return acc + log(x) - 0.5 / x - z * (1.0 / 12 - z * (1.0 / 120 - z / 252));
}

static double xlogx(double s)
{
	return s > 0 ? s * log(s) : 0;
}

static double bin_entropy(double p)
{
	return -xlogx(p) - xlogx(1 - p);
}

/* E[h(q)] in nats for q ~ Beta(a, b): E[q ln q] = a/(a+b) (psi(a+1) -
 * psi(a+b+1)), and the same for 1 - q. */
static double beta_mean_entropy(double a, double b)
{
	double s = a + b, d = digamma(s + 1);
	return -(a / s) * (digamma(a + 1) - d) - (b / s) * (digamma(b + 1) - d);
}

static double clamp_rate(double p)
{
	return p < PMIN ? PMIN : p > 1 - PMIN ? 1 - PMIN : p;
}

static double logaddexp(double x, double y)
{
	double m = x > y ? x : y;
	if (m == -INFINITY)
		return m;
	return m + log(exp(x - m) + exp(y - m));
}

/* log P(these runs | one side), the side's rate integrated out over its
 * prior (weight pw on exactly prate, the rest Beta(al, be)) or fixed;
 * *pred gets the predictive failure rate of one more run on that side,
 * exact for this prior, and *ent the posterior mean of h(rate) (0 for
 * the point rate, 0 or 1). */
static double side(double fix, double al, double be, double pw, double prate,
		   unsigned long f, unsigned long p, double *pred, double *ent)
{
	if (fix >= 0) {
		double r = clamp_rate(fix);
		*pred = r;
		*ent = bin_entropy(r);
		return (double)f * log(r) + (double)p * log1p(-r);
	}
	double lb = ab_flaky_lbeta(al + (double)f, be + (double)p) - ab_flaky_lbeta(al, be);
	double pb = (al + (double)f) / (al + be + (double)f + (double)p);
	double eb = beta_mean_entropy(al + (double)f, be + (double)p);
	bool fits = prate == 0 ? f == 0 : p == 0;	/* can the point rate say this? */
	if (!(pw > 0) || !fits) {
		*pred = pb;
		*ent = eb;
		return log1p(-pw) + lb;
	}
	double l = logaddexp(log(pw), log1p(-pw) + lb);
	double r = exp(log(pw) - l);	/* posterior weight of the point rate */
	*pred = r * prate + (1 - r) * pb;
	*ent = (1 - r) * eb;
	return l;
}

static size_t seg_len(const ab_flaky *f, size_t j)
{
	return f->obs[j + 1] - f->obs[j];
}

/* The posterior, its best block, after any change. */
static void recompute(ab_flaky *f)
{
	size_t S = f->nobs - 1;
	unsigned long fb = f->fbelow, pb = f->pbelow;
	double mx = -INFINITY;

	for (size_t j = 0; j < S; j++) {
		size_t i = f->obs[j];
		fb += f->fails[i];
		pb += f->passes[i];
		double l = side(f->o.fix_before, f->o.before_alpha, f->o.before_beta,
				f->o.before_zero, 0, fb, pb, &f->pa[j], &f->ea[j]) +
			   side(f->o.fix_after, f->o.after_alpha, f->o.after_beta,
				f->o.after_one, 1, f->ftot - fb, f->ptot - pb, &f->pb[j],
				&f->eb[j]);
		f->w[j] = l;
		if (l + log((double)seg_len(f, j)) > mx)
			mx = l + log((double)seg_len(f, j));
	}
	double z = 0;
	for (size_t j = 0; j < S; j++)
		z += (double)seg_len(f, j) * exp(f->w[j] - mx);
	double lz = mx + log(z);
	for (size_t j = 0; j < S; j++)
		f->w[j] = exp(f->w[j] - lz);

	f->best_mass = -1;
	if (!f->untestable_in) {
		/* every candidate is a block of its own */
		for (size_t j = 0; j < S; j++)
			if (f->w[j] > f->best_mass) {
				f->best_mass = f->w[j];
				f->best = f->obs[j + 1];
			}
		f->best_lo = f->best_hi = f->best;
		return;
	}
	/* A block ends at each build that can be run (and at bad). */
	size_t j = 0, lo = f->good + 1;
	double acc = 0;
	for (size_t c = f->good + 1; c <= f->bad; c++) {
		while (f->obs[j + 1] < c)
			j++;
		acc += f->w[j];
		if (!f->untestable[c] || c == f->bad) {
			if (acc > f->best_mass) {
				f->best_mass = acc;
				f->best_lo = lo;
				f->best_hi = c;
			}
			acc = 0;
			lo = c + 1;
		}
	}
	f->best = f->best_hi;
}

static ab_flaky *alloc(size_t n, size_t m)
{
	ab_flaky *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->fails = calloc(n, sizeof *f->fails);
	f->passes = calloc(n, sizeof *f->passes);
	f->untestable = calloc(n, 1);
	f->obs = malloc((m + 1) * sizeof *f->obs);
	f->w = malloc(m * sizeof *f->w);
	f->pa = malloc(m * sizeof *f->pa);
	f->pb = malloc(m * sizeof *f->pb);
	f->ea = malloc(m * sizeof *f->ea);
	f->eb = malloc(m * sizeof *f->eb);
	if (!f->fails || !f->passes || !f->untestable || !f->obs || !f->w ||
	    !f->pa || !f->pb || !f->ea || !f->eb) {
		ab_flaky_free(f);
		return NULL;
	}
	return f;
}

ab_flaky *ab_flaky_new(size_t n, size_t good, size_t bad, const ab_flaky_opts *o)
{
	ab_flaky_opts d;
	if (!o) {
		ab_flaky_opts_init(&d);
		o = &d;
	}
	if (!(good < bad && bad < n) || !(o->before_alpha > 0) ||
	    !(o->before_beta > 0) || !(o->after_alpha > 0) || !(o->after_beta > 0))
		return NULL;
	ab_flaky *f = alloc(n, bad - good);
	if (!f)
		return NULL;
	f->n = n;
	f->good = good;
	f->bad = bad;
	f->o = *o;
	if (!(f->o.confidence > 0 && f->o.confidence <= 1))
		f->o.confidence = 0.95;
	if (!(f->o.before_zero >= 0 && f->o.before_zero < 1))
		f->o.before_zero = 0;
	if (!(f->o.after_one >= 0 && f->o.after_one < 1))
		f->o.after_one = 0;
	if (f->o.fix_before > 1)
		f->o.fix_before = 1;
	if (f->o.fix_after > 1)
		f->o.fix_after = 1;
	/* the user's verdicts on the ends, one run each */
	f->passes[good] = 1;
	f->fails[bad] = 1;
	f->ptot = f->ftot = 1;
	f->obs[0] = good;
	f->obs[1] = bad;
	f->nobs = 2;
	recompute(f);
	return f;
}

void ab_flaky_free(ab_flaky *f)
{
	if (!f)
		return;
	free(f->fails);
	free(f->passes);
	free(f->untestable);
	free(f->obs);
	free(f->w);
	free(f->pa);
	free(f->pb);
	free(f->ea);
	free(f->eb);
	free(f);
}

ab_flaky *ab_flaky_copy(const ab_flaky *f)
{
	size_t m = f->bad - f->good;
	ab_flaky *c = alloc(f->n, m);
	if (!c)
		return NULL;
	unsigned *fa = c->fails, *pa = c->passes;
	size_t *ob = c->obs;
	unsigned char *ut = c->untestable;
	double *w = c->w, *ppa = c->pa, *ppb = c->pb, *pea = c->ea, *peb = c->eb;
	*c = *f;
	c->fails = fa;
	c->passes = pa;
	c->untestable = ut;
	c->obs = ob;
	c->w = w;
	c->pa = ppa;
	c->pb = ppb;
	c->ea = pea;
	c->eb = peb;
	memcpy(c->fails, f->fails, f->n * sizeof *f->fails);
	memcpy(c->passes, f->passes, f->n * sizeof *f->passes);
	memcpy(c->untestable, f->untestable, f->n);
	memcpy(c->obs, f->obs, f->nobs * sizeof *f->obs);
	memcpy(c->w, f->w, (f->nobs - 1) * sizeof *f->w);
	memcpy(c->pa, f->pa, (f->nobs - 1) * sizeof *f->pa);
	memcpy(c->pb, f->pb, (f->nobs - 1) * sizeof *f->pb);
	memcpy(c->ea, f->ea, (f->nobs - 1) * sizeof *f->ea);
	memcpy(c->eb, f->eb, (f->nobs - 1) * sizeof *f->eb);
	return c;
}

/* The index of the first observed build >= i. */
static size_t obs_lower(const ab_flaky *f, size_t i)
{
	size_t lo = 0, hi = f->nobs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->obs[mid] < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool ab_flaky_observe(ab_flaky *f, size_t idx, bool failed)
{
	if (idx >= f->n || f->untestable[idx])
		return false;
	if (idx >= f->good && idx <= f->bad) {
		size_t k = obs_lower(f, idx);
		if (f->obs[k] != idx) {
			memmove(f->obs + k + 1, f->obs + k, (f->nobs - k) * sizeof *f->obs);
			f->obs[k] = idx;
			f->nobs++;
		}
	}
	if (failed) {
		f->fails[idx]++;
		f->ftot++;
		if (idx < f->good)
			f->fbelow++;
	} else {
		f->passes[idx]++;
		f->ptot++;
		if (idx < f->good)
			f->pbelow++;
	}
	f->probes++;
	recompute(f);
	return true;
}

bool ab_flaky_mark_untestable(ab_flaky *f, size_t idx)
{
	if (idx >= f->n)
		return false;
	if (!f->untestable[idx]) {
		f->untestable[idx] = 1;
		if (idx >= f->good && idx <= f->bad)
			f->untestable_in++;
		recompute(f);
	}
	return true;
}

bool ab_flaky_untestable(const ab_flaky *f, size_t idx)
{
	return idx < f->n && f->untestable[idx];
}

/* The Chernoff information (nats) between runs failing at rate a and
 * at rate b: how fast runs tell the two apart. */
static double chernoff(double a, double b)
{
	double lo = 0, hi = 1, l, g;
	for (int it = 0; it < 40; it++) {
		double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
		double g1 = pow(a, m1) * pow(b, 1 - m1) + pow(1 - a, m1) * pow(1 - b, 1 - m1);
		double g2 = pow(a, m2) * pow(b, 1 - m2) + pow(1 - a, m2) * pow(1 - b, 1 - m2);
		if (g1 < g2)
			hi = m2;
		else
			lo = m1;
	}
	l = (lo + hi) / 2;
	g = pow(a, l) * pow(b, 1 - l) + pow(1 - a, l) * pow(1 - b, 1 - l);
	return g > 0 ? -log(g) : INFINITY;
}

/* Mean and standard deviation of one side's rate given its runs, under
 * the same prior as side(). */
static void side_spread(double fix, double al, double be, double pw, double prate,
			unsigned long f, unsigned long p, double *mean, double *sd)
{
	if (fix >= 0) {
		*mean = fix;
		*sd = 0;
		return;
	}
	double a = al + (double)f, b = be + (double)p;
	double bm = a / (a + b), b2 = a * (a + 1) / ((a + b) * (a + b + 1)), r = 0;
	bool fits = prate == 0 ? f == 0 : p == 0;
	if (pw > 0 && fits) {
		double lb = ab_flaky_lbeta(a, b) - ab_flaky_lbeta(al, be);
		r = exp(log(pw) - logaddexp(log(pw), log1p(-pw) + lb));
	}
	double m = r * prate + (1 - r) * bm, m2 = r * prate * prate + (1 - r) * b2;
	*mean = m;
	*sd = m2 > m * m ? sqrt(m2 - m * m) : 0;
}

/* How many times smaller than asked the odds against the answer must
 * be. The rates are judged as the answer's runs leave them, each moved
 * one standard deviation towards the other: a rate learned from a
 * handful of runs must not make the stop easy. */
static double stop_odds(const ab_flaky *f)
{
	unsigned long fb = f->fbelow, pb = f->pbelow;
	for (size_t j = 0; j < f->nobs && f->obs[j] < f->best; j++) {
		fb += f->fails[f->obs[j]];
		pb += f->passes[f->obs[j]];
	}
	double ma, sa, mb, sb;
	side_spread(f->o.fix_before, f->o.before_alpha, f->o.before_beta, f->o.before_zero, 0,
		    fb, pb, &ma, &sa);
	side_spread(f->o.fix_after, f->o.after_alpha, f->o.after_beta, f->o.after_one, 1,
		    f->ftot - fb, f->ptot - pb, &mb, &sb);
	double a = ma + sa, b = mb - sb;
	double c = b > a ? chernoff(a > 1 ? 1 : a, b < 0 ? 0 : b) : 0;
	return STOP_ODDS + (c < STOP_CLEAR ? STOP_WEAK * (STOP_CLEAR - c) / STOP_CLEAR : 0);
}

double ab_flaky_stop_mass(const ab_flaky *f)
{
	return 1 - (1 - f->o.confidence) / stop_odds(f);
}

bool ab_flaky_done(const ab_flaky *f)
{
	return f->best_mass >= ab_flaky_stop_mass(f) ||
	       (f->o.max_probes && f->probes >= f->o.max_probes) ||
	       f->untestable_in == f->bad - f->good + 1;
}

/* The negated joint information gain (up to a constant) of a run on i
 * together with the m pending runs pend[] (ascending, all distinct from
 * i): sum over the outcomes of s log s, plus E_c[E[h(rate) | c]] of the
 * run on i. */
static double cost(const ab_flaky *f, size_t i, const size_t *pend, size_t m)
{
	double sy[1 << (AB_FLAKY_MAX_NEXT - 1)], mc[1 << (AB_FLAKY_MAX_NEXT - 1)];
	double v[1 << (AB_FLAKY_MAX_NEXT - 1)];
	size_t nc = (size_t)1 << m, t0 = 0;
	double cond = 0;

	for (size_t c = 0; c < nc; c++)
		sy[c] = mc[c] = 0;
	for (size_t j = 0; j + 1 < f->nobs; j++) {
		size_t lo = f->obs[j], hi = f->obs[j + 1];
		double w = f->w[j], pa = f->pa[j], pb = f->pb[j];
		if (w == 0)
			continue;
		while (t0 < m && pend[t0] <= lo)
			t0++;
		size_t pos = lo, t = t0;
		bool i_done = !(i > lo && i < hi);
		while (pos < hi) {
			/* the piece (pos, nxt]: no cut strictly inside it */
			size_t nxt = hi;
			if (t < m && pend[t] < nxt)
				nxt = pend[t];
			if (!i_done && i < nxt)
				nxt = i;
			double len = (double)(nxt - pos), p = nxt <= i ? pb : pa;
			cond += len * w * (nxt <= i ? f->eb[j] : f->ea[j]);
			v[0] = len * w;
			for (size_t u = 0; u < m; u++) {
				double q = nxt <= pend[u] ? pb : pa;
				size_t half = (size_t)1 << u;
				for (size_t e = 0; e < half; e++) {
					v[e | half] = v[e] * q;
					v[e] *= 1 - q;
				}
			}
			for (size_t c = 0; c < nc; c++) {
				mc[c] += v[c];
				sy[c] += v[c] * p;
			}
			if (t < m && pend[t] == nxt)
				t++;
			if (nxt == i)
				i_done = true;
			pos = nxt;
		}
	}
	double s = cond;
	for (size_t c = 0; c < nc; c++)
		s += xlogx(sy[c]) + xlogx(mc[c] - sy[c]);
	return s;
}

static bool is_pending(size_t i, const size_t *pend, size_t m)
{
	for (size_t u = 0; u < m; u++)
		if (pend[u] == i)
			return true;
	return false;
}

static bool runnable(const ab_flaky *f, size_t i, const size_t *pend, size_t m)
{
	return !f->untestable[i] && !is_pending(i, pend, m);
}

/* The best runnable build in [lo, hi], where the cost is convex; NONE
 * if there is none. *best_cost gets its cost. */
static size_t search(const ab_flaky *f, size_t lo, size_t hi, const size_t *pend,
		     size_t m, double *best_cost)
{
	size_t a = lo, b = hi;
	while (b - a > 2) {
		size_t m1 = a + (b - a) / 3, m2 = b - (b - a) / 3;
		double g1 = cost(f, m1, pend, m), g2 = cost(f, m2, pend, m);
		if (g1 < g2)
			b = m2 - 1;
		else if (g1 > g2)
			a = m1 + 1;
		else {
			a = m1;
			b = m2;
		}
	}
	size_t x = a;
	double gx = cost(f, a, pend, m);
	for (size_t y = a + 1; y <= b; y++) {
		double g = cost(f, y, pend, m);
		if (g < gx) {
			gx = g;
			x = y;
		}
	}
	if (runnable(f, x, pend, m)) {
		*best_cost = gx;
		return x;
	}
	/* convex: the best runnable build is the nearest on either side */
	size_t l = NONE, r = NONE, got = NONE;
	for (size_t y = x; y > lo; y--)
		if (runnable(f, y - 1, pend, m)) {
			l = y - 1;
			break;
		}
	for (size_t y = x + 1; y <= hi; y++)
		if (runnable(f, y, pend, m)) {
			r = y;
			break;
		}
	*best_cost = INFINITY;
	if (l != NONE) {
		*best_cost = cost(f, l, pend, m);
		got = l;
	}
	if (r != NONE) {
		double g = cost(f, r, pend, m);
		if (g < *best_cost) {
			*best_cost = g;
			got = r;
		}
	}
	return got;
}

/* The first pick, with nothing pending: the same cost in closed form.
 * In segment j, with x candidates of it on the failing side (the run on
 * i = obs[j] + x), P(fail) = y0 + x d and E_c[h] = c0 + x e, so the
 * cost is phi(y) + phi(tot - y) + c0 + x e, convex in x, least where
 * logit(y / tot) = -e / d. O(segments) in all. */
static double cost0(double y0, double d, double c0, double e, double tot, double x)
{
	double y = y0 + x * d;
	return xlogx(y) + xlogx(tot - y) + c0 + x * e;
}

static size_t pick_first(const ab_flaky *f)
{
	size_t S = f->nobs - 1, best = NONE;
	double best_cost = INFINITY, tot = 0, ya = 0, ha = 0, yb = 0, hb = 0;

	for (size_t j = 0; j < S; j++) {
		double mj = f->w[j] * (double)seg_len(f, j);
		tot += mj;
		ya += mj * f->pa[j];
		ha += mj * f->ea[j];
	}
	/* ya, ha: segments >= j on the passing side; yb, hb: < j failing */
	for (size_t j = 0; j < S; j++) {
		size_t lo = f->obs[j], len = seg_len(f, j);
		double w = f->w[j], pa = f->pa[j], pb = f->pb[j];
		double y0 = yb + ya, c0 = hb + ha;
		double d = w * (pb - pa), e = w * (f->eb[j] - f->ea[j]);
		double xs;
		if (d != 0) {
			double t = -e / d, ys;
			ys = t > 700 ? 1 : t < -700 ? 0 : 1 / (1 + exp(-t));
			xs = (ys * tot - y0) / d;
		} else
			xs = e < 0 ? (double)len : 0;
		if (!(xs >= 0))
			xs = 0;
		if (xs > (double)len)
			xs = (double)len;
		size_t x = (size_t)xs;
		/* the integer minimum is x or x + 1; then the nearest runnable
		 * build on either side of it */
		if (x < len && cost0(y0, d, c0, e, tot, (double)x + 1) <
			       cost0(y0, d, c0, e, tot, (double)x))
			x++;
		size_t l = NONE, r = NONE;
		for (size_t y = x + 1; y > 0; y--)
			if (!f->untestable[lo + y - 1]) {
				l = y - 1;
				break;
			}
		for (size_t y = x + 1; y <= len; y++)
			if (!f->untestable[lo + y]) {
				r = y;
				break;
			}
		size_t cand[2] = { l, r };
		for (int u = 0; u < 2; u++) {
			if (cand[u] == NONE)
				continue;
			double g = cost0(y0, d, c0, e, tot, (double)cand[u]);
			if (g < best_cost) {
				best_cost = g;
				best = lo + cand[u];
			}
		}
		double mj = w * (double)len;
		ya -= mj * pa;
		ha -= mj * f->ea[j];
		yb += mj * pb;
		hb += mj * f->eb[j];
	}
	return best;
}

/* The build with the greatest joint gain together with pend[0..m). */
static size_t pick(const ab_flaky *f, const size_t *pend, size_t m)
{
	size_t best = NONE;
	double best_cost = INFINITY;

	if (m == 0)
		return pick_first(f);

	for (size_t j = 0; j + 1 < f->nobs; j++) {
		size_t lo = f->obs[j], hi = f->obs[j + 1];
		/* A stretch without mass: splitting it gains nothing; its
		 * ends are looked at from the stretches beside it, or here. */
		bool flat = f->w[j] * (double)(hi - lo) < 1e-12;
		size_t a = lo, u = 0;
		while (a < hi) {
			while (u < m && pend[u] <= a)
				u++;
			size_t b = (u < m && pend[u] < hi) ? pend[u] : hi;
			size_t got = NONE;
			double g = INFINITY;
			if (flat) {
				size_t ends[2] = { a, b };
				for (int e = 0; e < 2; e++)
					if (runnable(f, ends[e], pend, m)) {
						double ge = cost(f, ends[e], pend, m);
						if (ge < g) {
							g = ge;
							got = ends[e];
						}
					}
			} else
				got = search(f, a, b, pend, m, &g);
			if (got != NONE && g < best_cost) {
				best_cost = g;
				best = got;
			}
			a = b;
		}
	}
	return best;
}

/* The information (nats) a run on i gives about one question only:
 * is the best build the culprit? */
static double gain_on_best(const ab_flaky *f, size_t i)
{
	double fail_best = 0, fail = 0, pc = f->best_mass;

	for (size_t j = 0; j + 1 < f->nobs; j++) {
		size_t lo = f->obs[j], hi = f->obs[j + 1];
		size_t on_fail = i <= lo ? 0 : i >= hi ? hi - lo : i - lo;
		double w = f->w[j];
		fail += w * ((double)on_fail * f->pb[j] + (double)(hi - lo - on_fail) * f->pa[j]);
		if (f->best > lo && f->best <= hi)
			fail_best = w * (f->best <= i ? f->pb[j] : f->pa[j]);
	}
	double h = 0;
	if (fail > 0)
		h += fail * bin_entropy(fail_best / fail);
	if (fail < 1)
		h += (1 - fail) * bin_entropy((pc - fail_best) / (1 - fail));
	return bin_entropy(pc) - h;
}

/* The end game of a history that looks deterministic: once the best
 * build b has failed, the one before it has passed, and every run
 * agrees with that boundary, only runs on those two settle it. The
 * greedy gain would go on checking passes far below (six runs more for
 * a culprit at the bad end of 1,000 builds, bench/README.md), so of
 * the two, the one that tells most about "b is the culprit". NONE when
 * the history is not there yet or no longer looks deterministic. */
static size_t end_game(const ab_flaky *f)
{
	size_t b = f->best;
	if (f->best_lo != f->best_hi || b <= f->good || f->fbelow)
		return NONE;
	size_t a = b - 1;
	if (!f->passes[a] || !f->fails[b] || f->untestable[a] || f->untestable[b])
		return NONE;
	unsigned long passes = f->pbelow;
	for (size_t j = 0; j < f->nobs; j++) {
		size_t i = f->obs[j];
		if (i <= a ? f->fails[i] != 0 : f->passes[i] != 0)
			return NONE;
		passes += f->passes[i];
	}
	if (passes != f->ptot)	/* a pass above the bad end */
		return NONE;
	return gain_on_best(f, a) >= gain_on_best(f, b) ? a : b;
}

size_t ab_flaky_next(const ab_flaky *f, size_t *out, size_t k)
{
	size_t pend[AB_FLAKY_MAX_NEXT], m = 0;

	if (ab_flaky_done(f))
		return 0;
	if (k > AB_FLAKY_MAX_NEXT)
		k = AB_FLAKY_MAX_NEXT;
	if (k > 0 && (out[0] = end_game(f)) != NONE)
		pend[m++] = out[0];
	while (m < k) {
		size_t i = pick(f, pend, m);
		if (i == NONE)
			break;
		out[m] = i;
		/* keep pend ascending */
		size_t u = m;
		while (u > 0 && pend[u - 1] > i) {
			pend[u] = pend[u - 1];
			u--;
		}
		pend[u] = i;
		m++;
	}
	return m;
}

double ab_flaky_prob(const ab_flaky *f, size_t idx)
{
	if (idx <= f->good || idx > f->bad)
		return 0;
	return f->w[obs_lower(f, idx) - 1];
}

size_t ab_flaky_best(const ab_flaky *f)
{
	return f->best;
}

double ab_flaky_best_range(const ab_flaky *f, size_t *lo, size_t *hi)
{
	*lo = f->best_lo;
	*hi = f->best_hi;
	return f->best_mass;
}

void ab_flaky_credible_range(const ab_flaky *f, double mass, size_t *lo, size_t *hi)
{
	size_t S = f->nobs - 1, *ord = malloc(S * sizeof *ord), k, u;
	double acc = 0;

	*lo = f->best_lo;
	*hi = f->best_hi;
	if (!ord) {
		*lo = f->good + 1;
		*hi = f->bad;
		return;
	}
	/* Segments by the probability of each of their candidates, most
	 * likely first (few: one per observed build). */
	for (k = 0; k < S; k++) {
		for (u = k; u > 0 && f->w[ord[u - 1]] < f->w[k]; u--)
			ord[u] = ord[u - 1];
		ord[u] = k;
	}
	for (k = 0; k < S && acc < mass; k++) {
		size_t j = ord[k];

		/* all candidates of a segment are alike: the latest first */
		for (size_t c = f->obs[j + 1]; c > f->obs[j] && acc < mass; c--) {
			acc += f->w[j];
			if (c < *lo)
				*lo = c;
			if (c > *hi)
				*hi = c;
		}
	}
	if (acc < mass) {
		*lo = f->good + 1;
		*hi = f->bad;
	}
	free(ord);
}

size_t ab_flaky_ranked(const ab_flaky *f, size_t *out, double *p, size_t k)
{
	double pr[64];
	size_t got = 0;

	if (k == 0)
		return 0;
	if (k > 64)
		k = 64;
	for (size_t j = 0; j + 1 < f->nobs; j++) {
		double w = f->w[j];
		/* all candidates of a segment are alike: the latest first */
		for (size_t c = f->obs[j + 1], taken = 0; c > f->obs[j] && taken < k;
		     c--, taken++) {
			if (got == k && !(w > pr[k - 1]))
				break;
			size_t u = got < k ? got++ : k - 1;
			while (u > 0 && pr[u - 1] < w) {
				pr[u] = pr[u - 1];
				out[u] = out[u - 1];
				u--;
			}
			pr[u] = w;
			out[u] = c;
		}
	}
	if (p)
		memcpy(p, pr, got * sizeof *p);
	return got;
}

void ab_flaky_rates(const ab_flaky *f, double *before, double *after)
{
	double a = 0, b = 0;
	for (size_t j = 0; j + 1 < f->nobs; j++) {
		double m = f->w[j] * (double)seg_len(f, j);
		a += m * f->pa[j];
		b += m * f->pb[j];
	}
	*before = f->o.fix_before >= 0 ? f->o.fix_before : a;
	*after = f->o.fix_after >= 0 ? f->o.fix_after : b;
}

void ab_flaky_counts(const ab_flaky *f, size_t idx, unsigned *fails, unsigned *passes)
{
	*fails = idx < f->n ? f->fails[idx] : 0;
	*passes = idx < f->n ? f->passes[idx] : 0;
}

unsigned ab_flaky_probes(const ab_flaky *f)
{
	return f->probes;
}

size_t ab_flaky_size(const ab_flaky *f)
{
	return f->n;
}
