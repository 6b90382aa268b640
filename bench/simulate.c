/* simulate.c - the flaky model (src/engine/flaky.c) driven in-process over
 * random histories, with no downloads, beside two other plans:
 *
 *   repeat k   plain bisection running each midpoint k times and
 *              calling it bad if any run fails; k is the smallest of
 *              1..30 whose accuracy in this simulation (same settings,
 *              same histories) is >= 0.95: the plan is told the rates;
 *   bayesect   git-bayesect's model and choice, reproduced in C from
 *              git_bayesect.py (github.com/hauntsaninja/git_bayesect,
 *              commit cda3871, class Bisector): Beta(0.5, 0.5) priors
 *              on both rates, a uniform prior over every commit from
 *              old to new inclusive, no run counted on the ends, the
 *              build of least expected posterior entropy (ties to the
 *              middle), stop when one commit holds the confidence.
 *
 * A history: builds 0..n-1, good end 0, bad end n-1, the culprit c
 * uniform in 1..n-1; the r-th run on build i fails when a hash of
 * (trial, i, r) falls under the rate (before if i < c, after if not),
 * so every plan sees the same outcomes for the same runs.
 *
 *   bench/simulate [--trials T] [--seed S] [--section N]
 *
 * Prints every figure next to its target (issue 20). Not a test: the
 * figures are measured, never asserted.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/flaky.h"

static uint64_t mix(uint64_t x)
{
	/* splitmix64's finaliser */
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static double unit(uint64_t x)
{
	return (double)(mix(x) >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct history {
	size_t n, culprit;
	double before, after;
	uint64_t seed;
	unsigned *runs;		/* runs so far per build, for the hash */
} history;

static void history_init(history *h, size_t n, double before, double after,
			 uint64_t seed)
{
	h->n = n;
	h->before = before;
	h->after = after;
	h->seed = seed;
	h->culprit = 1 + (size_t)(unit(seed ^ 0x5eed) * (double)(n - 1));
	if (h->culprit > n - 1)
		h->culprit = n - 1;
	h->runs = calloc(n, sizeof *h->runs);
	if (!h->runs)
		abort();
}

static void history_free(history *h)
{
	free(h->runs);
}

static int run(history *h, size_t i)
{
	unsigned r = h->runs[i]++;
	double rate = i < h->culprit ? h->before : h->after;
	uint64_t key = mix(h->seed ^ mix((uint64_t)i * 0x100000001b3ULL + r));
	return unit(key) < rate;
}

typedef struct result {
	double probes;		/* runs */
	int right;
	double rounds;		/* ab_flaky_next calls */
} result;

#define MAX_PROBES 5000

/* Section 6 counts each run by its build's distance from the culprit
 * into these buckets: <= -10, -9..-2, -1, 0, +1, +2..+9, >= +10. */
#define WHERE_BUCKETS 7
static double *where_runs;	/* NULL: not counting */

static void count_where(const history *h, size_t i)
{
	long d = (long)i - (long)h->culprit;
	int b = d <= -10 ? 0 : d <= -2 ? 1 : d == -1 ? 2 : d == 0 ? 3 : d == 1 ? 4 : d < 10 ? 5 : 6;
	if (where_runs)
		where_runs[b]++;
}

/* The flaky model, k builds at a time. */
static result run_flaky(history *h, const ab_flaky_opts *o, size_t k)
{
	result r = { 0, 0, 0 };
	ab_flaky *f = ab_flaky_new(h->n, 0, h->n - 1, o);
	size_t out[AB_FLAKY_MAX_NEXT];
	size_t got;
	while ((got = ab_flaky_next(f, out, k)) > 0) {
		r.rounds++;
		for (size_t u = 0; u < got; u++) {
			count_where(h, out[u]);
			ab_flaky_observe(f, out[u], run(h, out[u]));
		}
	}
	r.probes = ab_flaky_probes(f);
	r.right = ab_flaky_best(f) == h->culprit;
	ab_flaky_free(f);
	return r;
}

/* Plain bisection, each step k runs, bad if any fails. */
static result run_repeat(history *h, unsigned k)
{
	result r = { 0, 0, 0 };
	size_t lo = 0, hi = h->n - 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		int bad = 0;
		/* the first failing run settles it */
		for (unsigned u = 0; u < k && !bad; u++) {
			bad = run(h, mid);
			r.probes++;
		}
		r.rounds++;
		if (bad)
			hi = mid;
		else
			lo = mid;
	}
	r.right = hi == h->culprit;
	return r;
}

/* git-bayesect's Bisector, index 0 the newest build (bad end). */
static double wlog(double w)
{
	return w > 0 ? w * log2(w) : 0;
}

static result run_bayesect(history *h, double confidence)
{
	const double an = 0.5, bn = 0.5, ao = 0.5, bo = 0.5;
	size_t L = h->n;	/* old (build 0) .. new (build n-1) inclusive */
	long *tot = calloc(L, sizeof *tot), *yes = calloc(L, sizeof *yes);
	double *post = malloc(L * sizeof *post), *pn = malloc(L * sizeof *pn),
	       *po = malloc(L * sizeof *po), *eh = malloc(L * sizeof *eh);
	double *suf[4], *pre[4];
	for (int u = 0; u < 4; u++) {
		suf[u] = malloc((L + 1) * sizeof **suf);
		pre[u] = malloc((L + 1) * sizeof **pre);
	}
	result r = { 0, 0, 0 };
	size_t bi = 0;

	for (;;) {
		/* posterior over B: indices 0..B are new */
		double mx = -INFINITY;
		for (size_t b = 0; b < L; b++) {
			double tl = (double)tot[b], yl = (double)yes[b];
			double tr = (double)tot[L - 1] - tl, yr = (double)yes[L - 1] - yl;
			post[b] = ab_flaky_lbeta(an + yl, bn + tl - yl) - ab_flaky_lbeta(an, bn) +
				  ab_flaky_lbeta(ao + yr, bo + tr - yr) - ab_flaky_lbeta(ao, bo);
			pn[b] = (an + yl) / (an + bn + tl);
			po[b] = (ao + yr) / (ao + bo + tr);
			if (post[b] > mx)
				mx = post[b];
		}
		double z = 0;
		for (size_t b = 0; b < L; b++)
			z += exp(post[b] - mx);
		double best = -1;
		for (size_t b = 0; b < L; b++) {
			post[b] = exp(post[b] - mx) / z;
			if (post[b] > best) {
				best = post[b];
				bi = b;
			}
		}
		if (best >= confidence || r.probes >= MAX_PROBES)
			break;
		/* select(): expected entropy of each index, as in numpy */
		pre[0][0] = pre[1][0] = pre[2][0] = pre[3][0] = 0;
		for (size_t b = 0; b < L; b++) {
			double woy = post[b] * po[b], won = post[b] * (1 - po[b]);
			pre[0][b + 1] = pre[0][b] + woy;
			pre[1][b + 1] = pre[1][b] + won;
			pre[2][b + 1] = pre[2][b] + wlog(woy);
			pre[3][b + 1] = pre[3][b] + wlog(won);
		}
		suf[0][L] = suf[1][L] = suf[2][L] = suf[3][L] = 0;
		for (size_t b = L; b-- > 0;) {
			double wny = post[b] * pn[b], wnn = post[b] * (1 - pn[b]);
			suf[0][b] = suf[0][b + 1] + wny;
			suf[1][b] = suf[1][b + 1] + wnn;
			suf[2][b] = suf[2][b + 1] + wlog(wny);
			suf[3][b] = suf[3][b + 1] + wlog(wnn);
		}
		double mn = INFINITY;
		for (size_t x = 0; x < L; x++) {
			double py = pre[0][x] + suf[0][x], pno = pre[1][x] + suf[1][x];
			double ly = pre[2][x] + suf[2][x], ln = pre[3][x] + suf[3][x];
			double hy = py > 0 ? log2(py) - ly / py : 0;
			double hn = pno > 0 ? log2(pno) - ln / pno : 0;
			eh[x] = hy * py + hn * pno;
			if (eh[x] < mn)
				mn = eh[x];
		}
		size_t sel = 0, bestd = (size_t)-1;
		for (size_t x = 0; x < L; x++)
			if (fabs(eh[x] - mn) <= 1e-15 + 1e-12 * fabs(mn)) {
				size_t d = x > L / 2 ? x - L / 2 : L / 2 - x;
				if (d < bestd) {
					bestd = d;
					sel = x;
				}
			}
		int failed = run(h, L - 1 - sel);
		for (size_t x = sel; x < L; x++) {
			tot[x]++;
			yes[x] += failed;
		}
		r.probes++;
	}
	r.right = L - 1 - bi == h->culprit;
	free(tot);
	free(yes);
	free(post);
	free(pn);
	free(po);
	free(eh);
	for (int u = 0; u < 4; u++) {
		free(suf[u]);
		free(pre[u]);
	}
	return r;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static unsigned trials = 300;
static int others = 1;	/* run the other plans in section 2 */
static uint64_t seed0 = 20;

static uint64_t trial_seed(uint64_t setting, unsigned t)
{
	return mix(seed0 * 0x9e3779b97f4a7c15ULL ^ mix(setting * 1000003 + t));
}

typedef struct stats {
	unsigned right, n;
	double probes, max_probes, rounds, secs;
} stats;

static void add(stats *s, result r)
{
	s->n++;
	s->right += (unsigned)r.right;
	s->probes += r.probes;
	s->rounds += r.rounds;
	if (r.probes > s->max_probes)
		s->max_probes = r.probes;
}

static stats flaky_stats(size_t n, double before, double after, uint64_t setting,
			 const ab_flaky_opts *o, size_t k, unsigned nt)
{
	stats s = { 0 };
	double t0 = now();
	for (unsigned t = 0; t < nt; t++) {
		history h;
		history_init(&h, n, before, after, trial_seed(setting, t));
		add(&s, run_flaky(&h, o, k));
		history_free(&h);
	}
	s.secs = now() - t0;
	return s;
}

static void section_accuracy(const ab_flaky_opts *o)
{
	static const double befores[] = { 0, 0.05, 0.1 };
	static const double afters[] = { 0.2, 0.4, 0.6, 0.8, 1.0 };
	unsigned worst = 1000000;
	printf("1. accuracy, 1,000 builds, confidence %.2f, %u trials each\n"
	       "   (reported culprit right / trials, mean probes)\n", o->confidence, trials);
	printf("   before \\ after");
	for (size_t a = 0; a < 5; a++)
		printf("       %.1f     ", afters[a]);
	printf("\n");
	for (size_t b = 0; b < 3; b++) {
		printf("   %.2f           ", befores[b]);
		for (size_t a = 0; a < 5; a++) {
			stats s = flaky_stats(1000, befores[b], afters[a], 100 + b * 10 + a,
					      o, 1, trials);
			unsigned permille = s.right * 1000 / s.n;
			if (permille < worst)
				worst = permille;
			printf(" %5.3f %6.1f  ", (double)s.right / s.n, s.probes / s.n);
			fflush(stdout);
		}
		printf("\n");
	}
	printf("   lowest accuracy %.3f (target >= 0.95 everywhere)\n\n", worst / 1000.0);
}

static void section_cost(const ab_flaky_opts *o)
{
	static const size_t ns[] = { 200, 1000 };
	static const double afters[] = { 0.4, 0.8 };
	printf("2. cost at confidence 0.95, rate 0 before the culprit, %u trials each\n"
	       "   (mean probes, accuracy; repeat k = smallest k reaching 0.95 accuracy here)\n",
	       trials);
	for (size_t ni = 0; ni < 2; ni++)
		for (size_t ai = 0; ai < 2; ai++) {
			size_t n = ns[ni];
			double after = afters[ai];
			uint64_t setting = 200 + ni * 10 + ai;
			stats fl = flaky_stats(n, 0, after, setting, o, 1, trials);
			stats rp = { 0 };
			unsigned k;
			for (k = 1; k <= 30 && others; k++) {
				memset(&rp, 0, sizeof rp);
				for (unsigned t = 0; t < trials; t++) {
					history h;
					history_init(&h, n, 0, after, trial_seed(setting, t));
					add(&rp, run_repeat(&h, k));
					history_free(&h);
				}
				if (rp.right * 100 >= rp.n * 95)
					break;
			}
			stats gb = { 0 };
			for (unsigned t = 0; t < trials && others; t++) {
				history h;
				history_init(&h, n, 0, after, trial_seed(setting, t));
				add(&gb, run_bayesect(&h, 0.95));
				history_free(&h);
			}
			if (!others) {
				printf("   %4zu builds, after %.1f: artbisect %6.1f (%.3f)\n", n, after,
				       fl.probes / fl.n, (double)fl.right / fl.n);
				continue;
			}
			double mf = fl.probes / fl.n, mr = rp.probes / rp.n, mg = gb.probes / gb.n;
			printf("   %4zu builds, after %.1f: artbisect %6.1f (%.3f); repeat k=%u %6.1f (%.3f); "
			       "git-bayesect %6.1f (%.3f)\n",
			       n, after, mf, (double)fl.right / fl.n, k, mr,
			       (double)rp.right / rp.n, mg, (double)gb.right / gb.n);
			printf("      artbisect / repeat = %.2f (target <= %.1f), artbisect / git-bayesect = %.2f (target <= 0.6)\n",
			       mf / mr, after < 0.5 ? 0.9 : 1.0, mf / mg);
			fflush(stdout);
		}
	printf("\n");
}

static void section_deterministic(const ab_flaky_opts *o)
{
	static const size_t ns[] = { 10, 100, 1000, 10000, 100000 };
	printf("3. deterministic histories (rate 0 before, 1 after), %u trials each\n", trials);
	for (size_t i = 0; i < 5; i++) {
		stats s = flaky_stats(ns[i], 0, 1, 300 + i, o, 1, trials);
		unsigned lim = (unsigned)ceil(log2((double)ns[i])) + 5;
		printf("   %6zu builds: mean %5.1f, most %3.0f probes (target <= ceil(log2 n) + 5 = %u), accuracy %.3f\n",
		       ns[i], s.probes / s.n, s.max_probes, lim, (double)s.right / s.n);
		fflush(stdout);
	}
	printf("\n");
}

static void section_scale(const ab_flaky_opts *o)
{
	static const size_t ns[] = { 10, 100, 1000, 10000, 100000 };
	printf("4. random rates (before 0..0.1, after 0.2..1.0), %u trials per size\n", trials);
	for (size_t i = 0; i < 5; i++) {
		stats s = { 0 };
		double t0 = now();
		for (unsigned t = 0; t < trials; t++) {
			uint64_t sd = trial_seed(400 + i, t);
			history h;
			history_init(&h, ns[i], 0.1 * unit(sd ^ 1), 0.2 + 0.8 * unit(sd ^ 2), sd);
			add(&s, run_flaky(&h, o, 1));
			history_free(&h);
		}
		double secs = now() - t0;
		printf("   %6zu builds: accuracy %.3f, mean probes %5.1f, %.2f ms per bisection\n",
		       ns[i], (double)s.right / s.n, s.probes / s.n, secs * 1000 / s.n);
		fflush(stdout);
	}
	printf("\n");
}

static void section_jobs(const ab_flaky_opts *o)
{
	static const size_t ks[] = { 1, 2, 3, 4 };
	printf("5. parallel runs (--jobs k), 1,000 builds, rate 0 before, 0.4 after, %u trials\n", trials);
	for (size_t i = 0; i < 4; i++) {
		stats s = flaky_stats(1000, 0, 0.4, 500, o, ks[i], trials);
		printf("   k=%zu: %5.1f rounds, %5.1f probes, accuracy %.3f\n", ks[i],
		       s.rounds / s.n, s.probes / s.n, (double)s.right / s.n);
		fflush(stdout);
	}
	printf("\n");
}

/* Where the runs go: which builds the model runs, by distance from the
 * culprit, told both rates, one of them, or neither. */
static void section_where(const ab_flaky_opts *o)
{
	static const double fixes[4][2] = { { 0, 0.4 }, { 0, -1 }, { -1, 0.4 }, { -1, -1 } };
	static const char *names[4] = { "both told", "before told", "after told", "both learned" };
	printf("6. where the runs go, 200 builds, rate 0 before, 0.4 after, %u trials each\n"
	       "   (mean runs per bisection on builds this far from the culprit)\n"
	       "   rates          probes accuracy  <=-10 -9..-2     -1      0     +1  +2..9  >=+10\n",
	       trials);
	for (int m = 0; m < 4; m++) {
		ab_flaky_opts om = *o;
		double buckets[WHERE_BUCKETS] = { 0 };
		om.fix_before = fixes[m][0];
		om.fix_after = fixes[m][1];
		where_runs = buckets;
		stats s = flaky_stats(200, 0, 0.4, 600, &om, 1, trials);
		where_runs = NULL;
		printf("   %-13s %7.1f %8.3f ", names[m], s.probes / s.n, (double)s.right / s.n);
		for (int b = 0; b < WHERE_BUCKETS; b++)
			printf(" %6.1f", buckets[b] / s.n);
		printf("\n");
		fflush(stdout);
	}
	printf("\n");
}

/* The chooser of section 7: told where the culprit is (and the true
 * rates, for the odds of each outcome), it runs whichever build among
 * the few that bear on the answer most raises the expected log odds of
 * the true culprit (reaching the stop counts as odds of e^50), until
 * the model stops. Its runs measure what reaching this model's stop
 * costs with no search to do; greedy, so not a strict floor. */
static double log_odds(double p)
{
	if (p > 1 - 1e-15)
		p = 1 - 1e-15;
	if (p < 1e-300)
		p = 1e-300;
	return log(p / (1 - p));
}

#define DONE_ODDS 50.0

static result run_told_culprit(history *h, const ab_flaky_opts *o)
{
	result r = { 0, 0, 0 };
	size_t n = h->n, c = h->culprit;
	ab_flaky *f = ab_flaky_new(n, 0, n - 1, o);
	while (!ab_flaky_done(f)) {
		size_t cand[] = { 0, c > 1 ? c - 2 : 0, c - 1, c, c + 1 < n ? c + 1 : n - 1,
				  n - 1, c / 2, c + (n - 1 - c) / 2 };
		size_t pick = c;
		double best = -INFINITY;
		for (size_t u = 0; u < sizeof cand / sizeof *cand; u++) {
			double pf = cand[u] < c ? h->before : h->after, v = 0;
			for (int fail = 0; fail < 2; fail++) {
				double po = fail ? pf : 1 - pf;
				if (po <= 0)
					continue;
				ab_flaky *g = ab_flaky_copy(f);
				ab_flaky_observe(g, cand[u], fail);
				/* the stop is stricter than the odds while the
				 * rates are unclear: reaching it counts most */
				v += po * (ab_flaky_done(g) ? DONE_ODDS : log_odds(ab_flaky_prob(g, c)));
				ab_flaky_free(g);
			}
			if (v > best) {
				best = v;
				pick = cand[u];
			}
		}
		ab_flaky_observe(f, pick, run(h, pick));
	}
	r.probes = ab_flaky_probes(f);
	r.right = ab_flaky_best(f) == c;
	ab_flaky_free(f);
	return r;
}

static double entropy2(double p)
{
	return p <= 0 || p >= 1 ? 0 : -p * log2(p) - (1 - p) * log2(1 - p);
}

/* Bits one run can tell at most when nothing fails before the culprit
 * and a run after it fails at rate a: the capacity of that Z channel,
 * max over q of h(q a) - q h(a). */
static double z_capacity(double a)
{
	double best = 0;
	for (int k = 1; k < 10000; k++) {
		double q = k / 10000.0, v = entropy2(q * a) - q * entropy2(a);
		if (v > best)
			best = v;
	}
	return best;
}

/* Where the cost target stands: the least any method needs, told the
 * rates or not (Fano's inequality: naming one of M = n - 1 candidates
 * wrong at most 5 % of the time takes log2 M - h(0.05) - 0.05 log2(M -
 * 1) bits, and no run tells more than its channel's capacity, whatever
 * the order of runs); then what the chooser told the culprit needs to
 * reach this model's stop, told the rates too and not; and on a
 * deterministic farm, what the stop asks where it asks most. */
static void section_floor(const ab_flaky_opts *o)
{
	static const size_t ns[] = { 200, 1000 };
	static const double afters[] = { 0.4, 0.8 };
	printf("7. what this model's stop asks, rate 0 before, %u trials each (mean probes)\n"
	       "   floor: no method, told the rates or not, is right 95 %% of the time with fewer\n"
	       "   (Fano's inequality, one run telling at most the capacity of its channel);\n"
	       "   told the culprit: a greedy chooser that knows where it is runs builds until this\n"
	       "   model stops, told the rates too or learning them as the model does\n",
	       trials);
	for (size_t ni = 0; ni < 2; ni++)
		for (size_t ai = 0; ai < 2; ai++) {
			size_t n = ns[ni];
			double after = afters[ai], m = (double)(n - 1);
			double bits = log2(m) - entropy2(0.05) - 0.05 * log2(m - 1);
			uint64_t setting = 200 + ni * 10 + ai;	/* section 2's histories */
			ab_flaky_opts told = *o;
			told.fix_before = 0;
			told.fix_after = after;
			stats st = { 0 }, sl = { 0 };
			for (unsigned t = 0; t < trials; t++) {
				history h;
				history_init(&h, n, 0, after, trial_seed(setting, t));
				add(&st, run_told_culprit(&h, &told));
				history_free(&h);
				history_init(&h, n, 0, after, trial_seed(setting, t));
				add(&sl, run_told_culprit(&h, o));
				history_free(&h);
			}
			stats fl = flaky_stats(n, 0, after, setting, o, 1, trials);
			printf("   %4zu builds, after %.1f: floor %5.1f; told culprit and rates %5.1f, the culprit only %5.1f; "
			       "the model %5.1f\n",
			       n, after, bits / z_capacity(after), st.probes / st.n, sl.probes / sl.n,
			       fl.probes / fl.n);
			fflush(stdout);
		}
	/* A deterministic farm whose culprit is the bad end, the costliest
	 * (section 3): what the stop asks there without any search. */
	static const size_t dn[] = { 100, 1000, 10000 };
	for (size_t i = 0; i < 3; i++) {
		history h;
		history_init(&h, dn[i], 0, 1, trial_seed(700 + i, 0));
		h.culprit = dn[i] - 1;
		result told = run_told_culprit(&h, o);
		history_free(&h);
		history_init(&h, dn[i], 0, 1, trial_seed(700 + i, 0));
		h.culprit = dn[i] - 1;
		result model = run_flaky(&h, o, 1);
		history_free(&h);
		printf("   %5zu builds, deterministic, the culprit the bad end: told the culprit %2.0f; "
		       "the model %2.0f (target <= %u)\n",
		       dn[i], told.probes, model.probes, (unsigned)ceil(log2((double)dn[i])) + 5);
		fflush(stdout);
	}
	printf("\n");
}

int main(int argc, char **argv)
{
	int section = 0;
	ab_flaky_opts o;
	ab_flaky_opts_init(&o);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--trials") && i + 1 < argc)
			trials = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed0 = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--model-only"))
			others = 0;
		else if (!strcmp(argv[i], "--section") && i + 1 < argc)
			section = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--prior-before") && i + 2 < argc) {
			o.before_alpha = atof(argv[++i]);
			o.before_beta = atof(argv[++i]);
		} else if (!strcmp(argv[i], "--prior-after") && i + 2 < argc) {
			o.after_alpha = atof(argv[++i]);
			o.after_beta = atof(argv[++i]);
		} else if (!strcmp(argv[i], "--point-weights") && i + 2 < argc) {
			o.before_zero = atof(argv[++i]);
			o.after_one = atof(argv[++i]);
		} else if (!strcmp(argv[i], "--fix") && i + 2 < argc) {
			o.fix_before = atof(argv[++i]);
			o.fix_after = atof(argv[++i]);
		} else if (!strcmp(argv[i], "--confidence") && i + 1 < argc)
			o.confidence = atof(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [--trials T] [--seed S] [--section 1-7] [--model-only] "
					"[--prior-before A B] [--prior-after A B] [--point-weights Z O] [--fix BEFORE AFTER] [--confidence P]\n",
				argv[0]);
			return 2;
		}
	}
	if (trials == 0)
		trials = 1;
	o.max_probes = MAX_PROBES;
	printf("flaky bisection simulator: seed %llu; priors: before %g x exactly 0 + %g x Beta(%g, %g),\n"
	       "after %g x exactly 1 + %g x Beta(%g, %g)\n\n",
	       (unsigned long long)seed0, o.before_zero, 1 - o.before_zero, o.before_alpha,
	       o.before_beta, o.after_one, 1 - o.after_one, o.after_alpha, o.after_beta);
	if (!section || section == 1)
		section_accuracy(&o);
	if (!section || section == 2)
		section_cost(&o);
	if (!section || section == 3)
		section_deterministic(&o);
	if (!section || section == 4)
		section_scale(&o);
	if (!section || section == 5)
		section_jobs(&o);
	if (!section || section == 6)
		section_where(&o);
	if (!section || section == 7)
		section_floor(&o);
	return 0;
}
