/* test-engine.c - the bisection engine: API contract, exhaustive small
 * histories, random large ones, and a simulation of untestable builds
 * comparing our probe choice with plain nearest-to-midpoint and with
 * git's skip_away(). */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "rng.h"
#include "tap.h"

#define NONE ((size_t)-1)

/* What a build really is. Only TRUE_FAILED is known before probing. */
enum { TRUE_OK, TRUE_SKIP, TRUE_FAILED, TRUE_UNAVAILABLE };

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
	return xorshift64s(&rng_state);
}

static size_t rnd_range(size_t lo, size_t hi)	/* uniform in [lo, hi] */
{
	return lo + (size_t)(rnd() % (uint64_t)(hi - lo + 1));
}

static bool rnd_chance(unsigned per_mille)
{
	return rnd() % 1000 < per_mille;
}

static unsigned ceil_log2(size_t x)
{
	unsigned k = 0;

	while (k < 64 && ((size_t)1 << k) < x)
		k++;
	return k;
}

/* A history to bisect: builds 0..n-1, start at old/new, first NEW build
 * is the culprit, truth[] says which builds are untestable. */
struct history {
	size_t n, old, new, culprit;
	const unsigned char *truth;
};

struct outcome {
	size_t probes;
	unsigned steps0;	/* steps_left before the first probe */
	ab_engine_state state;
	size_t last_old, first_new;
	unsigned bad_pick;	/* outside the range, tested, or a repeat */
	unsigned conflict;	/* set() refused a truthful verdict */
	unsigned steps_bad;	/* steps_left disagreed with a recount */
	unsigned pick_bad;	/* pick() broke one of its properties */
};

typedef size_t (*chooser)(const ab_engine *e);

static size_t pick_ours(const ab_engine *e)
{
	return ab_engine_next(e);
}

static bool untested_inside(const ab_engine *e, size_t p)
{
	return p > ab_engine_last_old(e) && p < ab_engine_first_new(e) &&
	       ab_engine_get(e, p) == AB_V_UNTESTED;
}

static size_t count_untested(const ab_engine *e)
{
	size_t t = 0;

	for (size_t p = ab_engine_last_old(e) + 1; p < ab_engine_first_new(e); p++)
		t += ab_engine_get(e, p) == AB_V_UNTESTED;
	return t;
}

/* pick() with up to five builds pending, each the last pick added: the
 * first is next(); each is an untested build strictly inside the range,
 * not pending, nearest the middle of a longest stretch between the
 * pending builds that has an untested build inside; NONE only when no
 * stretch has one. Returns how many properties failed. */
static unsigned check_pick(const ab_engine *e)
{
	size_t lo = ab_engine_last_old(e), hi = ab_engine_first_new(e);
	size_t pend[5], np = 0;
	unsigned bad = 0;

	for (; np < 5; np++) {
		size_t p = ab_engine_pick(e, pend, np), best_len = 0, a, b, d, q;

		if (np == 0 && p != ab_engine_next(e))
			bad++;
		/* the longest stretch with an untested build inside */
		for (a = lo; a < hi; a = b) {
			bool inner = false;

			for (b = a + 1; b < hi; b++) {
				bool pending = false;

				for (size_t i = 0; i < np; i++)
					pending |= pend[i] == b;
				if (pending)
					break;
				inner |= ab_engine_get(e, b) == AB_V_UNTESTED;
			}
			if (inner && b - a > best_len)
				best_len = b - a;
		}
		if (p == NONE) {
			bad += best_len != 0;
			break;
		}
		if (!untested_inside(e, p))
			bad++;
		for (size_t i = 0; i < np; i++)
			bad += pend[i] == p;
		if (np == 0) {
			pend[np] = p;
			continue;
		}
		/* p's own stretch (a, b] */
		for (a = lo, b = hi, q = 0; q < np; q++) {
			if (pend[q] < p && pend[q] > a)
				a = pend[q];
			if (pend[q] > p && pend[q] < b)
				b = pend[q];
		}
		if (b - a != best_len)
			bad++;
		/* nothing untested in it nearer its middle */
		d = p > a + (b - a) / 2 ? p - (a + (b - a) / 2) : a + (b - a) / 2 - p;
		for (q = a + 1; q < b; q++) {
			size_t dq = q > a + (b - a) / 2 ? q - (a + (b - a) / 2) : a + (b - a) / 2 - q;

			if (ab_engine_get(e, q) == AB_V_UNTESTED && dq < d)
				bad++;
		}
		pend[np] = p;
	}
	return bad;
}

/* Probes until the engine stops, answering truthfully. */
static void simulate(const struct history *h, chooser pick, bool check,
		     struct outcome *o)
{
	ab_engine *e = ab_engine_new(h->n, h->old, h->new);
	unsigned char *probed = calloc(h->n, 1);

	memset(o, 0, sizeof(*o));
	if (!e || !probed) {
		o->bad_pick++;
		goto out;
	}
	for (size_t p = 0; p < h->n; p++)
		if (h->truth[p] == TRUE_FAILED &&
		    ab_engine_set(e, p, AB_V_FAILED) != AB_ENGINE_OK)
			o->conflict++;
	o->steps0 = ab_engine_steps_left(e);
	while (ab_engine_state_of(e) == AB_ENGINE_RUNNING) {
		size_t p, t;
		ab_verdict v;

		if (check) {
			t = count_untested(e);
			if (ab_engine_steps_left(e) != ceil_log2(t + 1))
				o->steps_bad++;
			o->pick_bad += check_pick(e);
		}
		p = pick(e);
		if (p == NONE || p >= h->n || !untested_inside(e, p) || probed[p]) {
			o->bad_pick++;
			break;
		}
		probed[p] = 1;
		o->probes++;
		if (h->truth[p] == TRUE_SKIP)
			v = AB_V_SKIP;
		else if (h->truth[p] == TRUE_UNAVAILABLE)
			v = AB_V_UNAVAILABLE;
		else
			v = p >= h->culprit ? AB_V_NEW : AB_V_OLD;
		if (ab_engine_set(e, p, v) != AB_ENGINE_OK)
			o->conflict++;
	}
	if (check && (ab_engine_steps_left(e) != 0 || ab_engine_next(e) != NONE ||
		      ab_engine_pick(e, NULL, 0) != NONE))
		o->steps_bad++;
	o->state = ab_engine_state_of(e);
	o->last_old = ab_engine_last_old(e);
	o->first_new = ab_engine_first_new(e);
out:
	free(probed);
	ab_engine_free(e);
}

/* Did the search end where it must? The candidates left are (G, B]: G
 * the last testable build before the culprit, B the first testable one
 * at or after it; FOUND iff that is a single build. */
static bool result_ok(const struct history *h, const struct outcome *o)
{
	size_t g = h->culprit - 1, b = h->culprit;

	while (g > h->old && h->truth[g] != TRUE_OK)
		g--;
	while (b < h->new && h->truth[b] != TRUE_OK)
		b++;
	if (o->bad_pick || o->conflict || o->last_old != g || o->first_new != b)
		return false;
	if (b == g + 1)
		return o->state == AB_ENGINE_FOUND;
	return o->state == AB_ENGINE_INCONCLUSIVE;
}

/* ---- API contract ---- */

static void test_new(void)
{
	ab_engine *e;

	tap_ok(ab_engine_new(10, 5, 5) == NULL, "new refuses old == new");
	tap_ok(ab_engine_new(10, 6, 5) == NULL, "new refuses old > new");
	tap_ok(ab_engine_new(10, 0, 10) == NULL, "new refuses new == n");
	tap_ok(ab_engine_new(10, 0, 11) == NULL, "new refuses new > n");
	tap_ok(ab_engine_new(0, 0, 0) == NULL, "new refuses n == 0");

	e = ab_engine_new(10, 2, 7);
	tap_ok(e && ab_engine_size(e) == 10 && ab_engine_last_old(e) == 2 &&
	       ab_engine_first_new(e) == 7 && ab_engine_candidate_count(e) == 5 &&
	       ab_engine_get(e, 2) == AB_V_OLD && ab_engine_get(e, 7) == AB_V_NEW &&
	       ab_engine_get(e, 0) == AB_V_UNTESTED &&
	       ab_engine_state_of(e) == AB_ENGINE_RUNNING,
	       "new(10, 2, 7): range (2, 7], ends marked, running");
	tap_ok(ab_engine_steps_left(e) == 3, "steps_left = ceil(log2(4 + 1)) = 3");
	ab_engine_free(e);

	e = ab_engine_new(2, 0, 1);
	tap_ok(e && ab_engine_state_of(e) == AB_ENGINE_FOUND &&
	       ab_engine_next(e) == NONE && ab_engine_steps_left(e) == 0 &&
	       ab_engine_pick(e, NULL, 0) == NONE,
	       "adjacent old and new: FOUND at once, nothing to probe");
	ab_engine_free(e);
	ab_engine_free(NULL);
}

struct snapshot {
	size_t lo, hi, cand;
	ab_engine_state st;
	unsigned steps;
	size_t next;
	unsigned char v[16];
};

static void snap(const ab_engine *e, struct snapshot *s)
{
	s->lo = ab_engine_last_old(e);
	s->hi = ab_engine_first_new(e);
	s->cand = ab_engine_candidate_count(e);
	s->st = ab_engine_state_of(e);
	s->steps = ab_engine_steps_left(e);
	s->next = ab_engine_next(e);
	for (size_t i = 0; i < 16; i++)
		s->v[i] = (unsigned char)ab_engine_get(e, i);
}

static bool same(const struct snapshot *a, const struct snapshot *b)
{
	return a->lo == b->lo && a->hi == b->hi && a->cand == b->cand &&
	       a->st == b->st && a->steps == b->steps && a->next == b->next &&
	       !memcmp(a->v, b->v, sizeof(a->v));
}

static void test_set(void)
{
	ab_engine *e = ab_engine_new(16, 2, 12);
	struct snapshot before, after;
	bool ok = true;

	ab_engine_set(e, 5, AB_V_SKIP);
	ab_engine_set(e, 4, AB_V_OLD);
	ab_engine_set(e, 9, AB_V_NEW);
	tap_ok(ab_engine_last_old(e) == 4 && ab_engine_first_new(e) == 9 &&
	       ab_engine_get(e, 5) == AB_V_SKIP,
	       "OLD and NEW inside the range move its ends");

	/* every conflicting verdict is refused and changes nothing */
	snap(e, &before);
	for (size_t i = 9; i < 16; i++)
		ok &= ab_engine_set(e, i, AB_V_OLD) == AB_ENGINE_CONFLICT;
	for (size_t i = 0; i <= 4; i++)
		ok &= ab_engine_set(e, i, AB_V_NEW) == AB_ENGINE_CONFLICT;
	snap(e, &after);
	tap_ok(ok && same(&before, &after),
	       "OLD at/after first_new, NEW at/before last_old: CONFLICT, state unchanged");

	ok = ab_engine_set(e, 16, AB_V_OLD) == AB_ENGINE_OUT_OF_RANGE &&
	     ab_engine_set(e, (size_t)-1, AB_V_SKIP) == AB_ENGINE_OUT_OF_RANGE &&
	     ab_engine_set(e, 6, (ab_verdict)42) == AB_ENGINE_OUT_OF_RANGE &&
	     ab_engine_get(e, 99) == AB_V_UNTESTED;
	snap(e, &after);
	tap_ok(ok && same(&before, &after),
	       "index >= n (or no such verdict): OUT_OF_RANGE, state unchanged");

	/* outside the range: stored, nothing moves */
	ok = ab_engine_set(e, 1, AB_V_OLD) == AB_ENGINE_OK &&
	     ab_engine_set(e, 14, AB_V_NEW) == AB_ENGINE_OK &&
	     ab_engine_set(e, 0, AB_V_SKIP) == AB_ENGINE_OK &&
	     ab_engine_set(e, 15, AB_V_FAILED) == AB_ENGINE_OK;
	tap_ok(ok && ab_engine_get(e, 1) == AB_V_OLD && ab_engine_get(e, 14) == AB_V_NEW &&
	       ab_engine_get(e, 0) == AB_V_SKIP && ab_engine_get(e, 15) == AB_V_FAILED &&
	       ab_engine_last_old(e) == 4 && ab_engine_first_new(e) == 9,
	       "verdicts outside the range are stored and change nothing");

	ok = ab_engine_set(e, 4, AB_V_SKIP) == AB_ENGINE_OK &&
	     ab_engine_set(e, 9, AB_V_UNAVAILABLE) == AB_ENGINE_OK &&
	     ab_engine_set(e, 9, AB_V_UNTESTED) == AB_ENGINE_OK;
	tap_ok(ok && ab_engine_get(e, 4) == AB_V_OLD && ab_engine_get(e, 9) == AB_V_NEW,
	       "skip-like verdicts on the range ends are ignored");

	/* a skip can be taken back, and a skipped build tested after all */
	ab_engine_set(e, 6, AB_V_FAILED);
	ab_engine_set(e, 7, AB_V_UNAVAILABLE);
	tap_ok(ab_engine_steps_left(e) == 1 && ab_engine_next(e) == 8,
	       "untestable builds inside leave one to probe");
	ab_engine_set(e, 6, AB_V_UNTESTED);
	ab_engine_set(e, 5, AB_V_OLD);
	tap_ok(ab_engine_last_old(e) == 5 && ab_engine_steps_left(e) == 2 &&
	       ab_engine_state_of(e) == AB_ENGINE_RUNNING,
	       "UNTESTED resets a build; OLD over SKIP still moves last_old");
	ab_engine_set(e, 6, AB_V_SKIP);
	ab_engine_set(e, 8, AB_V_SKIP);
	tap_ok(ab_engine_state_of(e) == AB_ENGINE_INCONCLUSIVE &&
	       ab_engine_candidate_count(e) == 4 && ab_engine_next(e) == NONE &&
	       ab_engine_steps_left(e) == 0,
	       "only untestable builds left inside: INCONCLUSIVE, (5, 9]");
	ab_engine_set(e, 7, AB_V_UNTESTED);
	ab_engine_set(e, 7, AB_V_NEW);
	ab_engine_set(e, 6, AB_V_UNTESTED);
	ab_engine_set(e, 6, AB_V_OLD);
	tap_ok(ab_engine_state_of(e) == AB_ENGINE_FOUND && ab_engine_first_new(e) == 7,
	       "retesting narrows it to FOUND at 7");
	ab_engine_free(e);
}

/* Find-fix: the front end calls "fixed" NEW and "broken" OLD; the engine
 * never knows, so the first fixed build comes out like a culprit. */
static void test_find_fix(void)
{
	static const bool fixed[12] = { 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1 };
	ab_engine *e = ab_engine_new(12, 0, 11);
	size_t p, probes = 0;

	while ((p = ab_engine_next(e)) != NONE && probes++ < 12)
		ab_engine_set(e, p, fixed[p] ? AB_V_NEW : AB_V_OLD);
	tap_ok(ab_engine_state_of(e) == AB_ENGINE_FOUND && ab_engine_first_new(e) == 7 &&
	       probes <= 4, "find-fix with swapped terms finds the first fixed build (%zu probes)",
	       probes);
	ab_engine_free(e);
}

static void test_pick(void)
{
	ab_engine *e = ab_engine_new(101, 0, 100);
	size_t pend[8] = { 50, 25, 75, 0, 100, 200 };

	tap_ok(ab_engine_pick(e, NULL, 0) == 50 && ab_engine_next(e) == 50,
	       "pick() with nothing pending is next()");
	tap_ok(ab_engine_pick(e, pend, 1) == 25,
	       "pick() with 50 pending: 25, the middle of the older of two equal stretches");
	tap_ok(ab_engine_pick(e, pend, 2) == 75, "pick() with 50 and 25 pending: 75");
	tap_ok(ab_engine_pick(e, pend, 3) == 12, "pick() with 25, 50 and 75 pending: 12");
	tap_ok(ab_engine_pick(e, pend + 3, 3) == 50,
	       "pick(): builds pending outside the range change nothing");
	ab_engine_set(e, 49, AB_V_FAILED);
	ab_engine_set(e, 50, AB_V_SKIP);
	ab_engine_set(e, 51, AB_V_UNAVAILABLE);
	pend[0] = 25;
	pend[1] = 75;
	tap_ok(ab_engine_pick(e, pend, 2) == 48,
	       "pick(): an untestable middle (49-51 of (25, 75]) moves to the nearest untested build, the older on ties: 48");
	ab_engine_free(e);

	e = ab_engine_new(101, 0, 100);
	pend[0] = 50;
	pend[1] = 10;
	ab_engine_set(e, 50, AB_V_NEW);	/* the range is now (0, 50] */
	tap_ok(ab_engine_pick(e, pend, 2) == 30,
	       "pick(): a pending build that left the range is not a cut (10 pending in (0, 50]: 30)");
	ab_engine_free(e);

	e = ab_engine_new(8, 0, 7);
	ab_engine_set(e, 2, AB_V_SKIP);
	ab_engine_set(e, 3, AB_V_FAILED);
	ab_engine_set(e, 4, AB_V_SKIP);
	pend[0] = 1;
	pend[1] = 5;
	pend[2] = 6;
	tap_ok(ab_engine_pick(e, pend, 3) == NONE,
	       "pick(): every untested build pending: none");
	tap_ok(ab_engine_pick(e, pend, 2) == 6, "pick(): the last untested build when the rest is pending");
	ab_engine_free(e);
}

/* Where next() goes when the middle cannot be tested. */
static long gap_after_run(size_t n, size_t len, ab_verdict v)
{
	ab_engine *e = ab_engine_new(n, 0, n - 1);
	size_t m = (n - 1) / 2, p;

	for (size_t i = 0; i < len; i++)
		ab_engine_set(e, m + i, v);
	p = ab_engine_next(e);
	ab_engine_free(e);
	return p >= m + len ? (long)(p - (m + len - 1)) : (long)m - (long)p;
}

static void test_step_away(void)
{
	long g1 = gap_after_run(201, 1, AB_V_SKIP);
	long g3 = gap_after_run(201, 3, AB_V_SKIP);
	long g8 = gap_after_run(201, 8, AB_V_SKIP);
	long big = gap_after_run(100001, 3, AB_V_SKIP);

	tap_ok(gap_after_run(201, 5, AB_V_FAILED) == 1,
	       "FAILED builds in the middle: the nearest untested build, no step away");
	tap_ok(g1 > 1 && g1 < g3 && g3 <= g8 && g8 < 50,
	       "the step away from a learned run of skips grows with its length (%ld, %ld, %ld)",
	       g1, g3, g8);
	tap_ok(big > g3 && big < 1000,
	       "and stays small against a large range (%ld of 100000)", big);
}

/* ---- exhaustive small histories ---- */

struct tally {
	size_t cases, wrong, bad_pick, conflict, steps_bad, pick_bad;
	size_t over;	/* more probes than steps_left promised, where it can */
};

/* bound: nothing is skipped at probe time, so steps_left must hold */
static void tally_add(struct tally *t, const struct history *h, const struct outcome *o,
		      bool bound)
{
	t->cases++;
	t->over += bound && o->probes > o->steps0;
	t->wrong += !result_ok(h, o);
	t->bad_pick += o->bad_pick;
	t->conflict += o->conflict;
	t->steps_bad += o->steps_bad;
	t->pick_bad += o->pick_bad;
}

static bool tally_clean(const struct tally *t)
{
	return t->cases && !t->wrong && !t->bad_pick && !t->conflict &&
	       !t->steps_bad && !t->pick_bad && !t->over;
}

#define TALLY_FMT "%zu cases, %zu wrong results, %zu bad picks, %zu conflicts, " \
		  "%zu steps_left and %zu pick mismatches, %zu over steps_left"
#define TALLY_ARGS(t) (t).cases, (t).wrong, (t).bad_pick, (t).conflict, \
		      (t).steps_bad, (t).pick_bad, (t).over

#define EXHAUSTIVE_MAX 14

static void test_exhaustive(void)
{
	unsigned char truth[EXHAUSTIVE_MAX];
	struct outcome o;

	for (size_t n = 2; n <= EXHAUSTIVE_MAX; n++) {
		size_t inner = n - 2, worst = 0, over = 0, loose = 0;
		unsigned limit = ceil_log2(n - 1);
		struct tally skip = { 0 }, failed = { 0 };

		for (unsigned long mask = 0; mask < 1UL << inner; mask++) {
			size_t failed_worst = 0;
			unsigned failed_steps0 = 0;

			for (size_t culprit = 1; culprit < n; culprit++) {
				struct history h = { n, 0, n - 1, culprit, truth };

				/* untestable, found out only by probing */
				memset(truth, TRUE_OK, n);
				for (size_t i = 0; i < inner; i++)
					if (mask >> i & 1)
						truth[i + 1] = TRUE_SKIP;
				simulate(&h, pick_ours, true, &o);
				tally_add(&skip, &h, &o, !mask);
				if (!mask) {
					worst = o.probes > worst ? o.probes : worst;
					over += o.probes > limit;
				}

				/* the same builds failed in the farm: known up front */
				for (size_t i = 0; i < inner; i++)
					if (mask >> i & 1)
						truth[i + 1] = TRUE_FAILED;
				simulate(&h, pick_ours, true, &o);
				tally_add(&failed, &h, &o, true);
				if (o.probes > failed_worst)
					failed_worst = o.probes;
				failed_steps0 = o.steps0;
			}
			/* ... and some culprit needs all of them */
			loose += failed_worst != failed_steps0;
		}
		tap_ok(tally_clean(&skip), "n=%zu, every culprit x every skip set: " TALLY_FMT,
		       n, TALLY_ARGS(skip));
		tap_ok(tally_clean(&failed), "n=%zu, every culprit x every FAILED set: " TALLY_FMT,
		       n, TALLY_ARGS(failed));
		tap_ok(worst == limit && !over,
		       "n=%zu, no skips: worst case %zu probes == ceil(log2(%zu)) = %u, %zu over",
		       n, worst, n - 1, limit, over);
		tap_ok(!loose, "n=%zu, every FAILED set: worst case == starting steps_left "
		       "(%zu sets where not)", n, loose);
	}
}

/* ---- random large histories ---- */

enum pattern { PAT_NONE, PAT_ISOLATED, PAT_CLUSTERS, PAT_FAILED, PAT_MIXED, PAT_COUNT };

static const char *const pattern_name[PAT_COUNT] = {
	"no skips", "isolated skips", "clustered skips", "clustered FAILED",
	"clusters of FAILED/SKIP/UNAVAILABLE",
};

/* Untestable builds covering per_mille of [from, to] in runs of 1..maxlen. */
static void add_clusters(unsigned char *truth, size_t from, size_t to,
			 unsigned per_mille, size_t maxlen, enum pattern pat)
{
	size_t span = to - from + 1, want = span * per_mille / 1000, have = 0;

	for (size_t guard = 0; have < want && guard < 4 * span; guard++) {
		size_t len = rnd_range(1, maxlen), s = rnd_range(from, to);
		unsigned char kind = pat == PAT_FAILED ? TRUE_FAILED : TRUE_SKIP;

		if (pat == PAT_MIXED) {
			static const unsigned char kinds[] = {
				TRUE_SKIP, TRUE_FAILED, TRUE_FAILED, TRUE_UNAVAILABLE,
			};
			kind = kinds[rnd() % 4];
		}
		for (size_t p = s; p < s + len && p <= to; p++) {
			have += truth[p] == TRUE_OK;
			truth[p] = kind;
		}
	}
}

static void make_truth(unsigned char *truth, size_t n, size_t old, size_t new,
		       enum pattern pat)
{
	memset(truth, TRUE_OK, n);
	if (new - old < 2)
		return;
	switch (pat) {
	case PAT_NONE:
	case PAT_COUNT:
		break;
	case PAT_ISOLATED: {
		unsigned pm = (unsigned)rnd_range(50, 250);

		for (size_t p = old + 1; p < new; p++)
			if (rnd_chance(pm))
				truth[p] = TRUE_SKIP;
		break;
	}
	case PAT_CLUSTERS:
	case PAT_FAILED:
	case PAT_MIXED:
		add_clusters(truth, old + 1, new - 1, (unsigned)rnd_range(100, 300), 8, pat);
		break;
	}
}

static void test_random(size_t n, size_t cases)
{
	unsigned char *truth = malloc(n);
	struct tally t[PAT_COUNT] = { { 0 } };
	size_t over = 0, bound_cases = 0;
	struct outcome o;

	for (size_t i = 0; i < cases; i++) {
		enum pattern pat = (enum pattern)(i % PAT_COUNT);
		/* mostly the whole index, sometimes a narrower start */
		size_t old = i % 3 ? 0 : rnd_range(0, n / 2);
		size_t new = i % 3 ? n - 1 : rnd_range(old + 1, n - 1);
		size_t culprit = rnd_range(old + 1, new);
		struct history h = { n, old, new, culprit, truth };

		make_truth(truth, n, old, new, pat);
		simulate(&h, pick_ours, true, &o);
		tally_add(&t[pat], &h, &o, pat == PAT_NONE || pat == PAT_FAILED);
		if (pat == PAT_NONE) {
			unsigned limit = ceil_log2(new - old);

			bound_cases++;
			over += o.probes > limit;
		}
	}
	for (int p = 0; p < PAT_COUNT; p++)
		tap_ok(tally_clean(&t[p]), "n=%zu, random %s: " TALLY_FMT,
		       n, pattern_name[p], TALLY_ARGS(t[p]));
	tap_ok(bound_cases && !over,
	       "n=%zu, no skips: probes <= ceil(log2(candidates)) in all %zu cases (%zu over)",
	       n, bound_cases, over);
	free(truth);
}

/* ---- strategies for untestable midpoints, simulated ---- */

/* Plain: the untested build nearest the middle, older on ties. */
static size_t pick_nearest(const ab_engine *e)
{
	size_t lo = ab_engine_last_old(e), hi = ab_engine_first_new(e);
	size_t best = NONE, best_d = 0;

	for (size_t p = lo + 1; p < hi; p++) {
		size_t d = 2 * p > lo + hi ? 2 * p - (lo + hi) : lo + hi - 2 * p;

		if (ab_engine_get(e, p) == AB_V_UNTESTED && (best == NONE || d < best_d)) {
			best = p;
			best_d = d;
		}
	}
	return best;
}

/*
 * git's choice (bisect.c: find_bisection, managed_skipped, skip_away)
 * for a linear history, FAILED builds being skipped up front. Checked
 * probe for probe against git 2.39.5 bisecting real repositories, with
 * their object ids for fake_oid().
 */
#define PRN_MODULO 32768

static unsigned get_prn(unsigned count)
{
	count = count * 1103515245 + 12345;
	return (count / 65536) % PRN_MODULO;
}

static int sqrti(int val)
{
	float d, x = (float)val;

	if (!val)
		return 0;
	do {
		float y = (x + (float)val / x) / 2;

		d = (y > x) ? y - x : x - y;
		x = y;
	} while (d >= 0.5);
	return (int)x;
}

/* Stands in for the object id that breaks git's ties in distance. */
static uint32_t fake_oid(size_t p)
{
	uint64_t x = (uint64_t)p * 0x9e3779b97f4a7c15ULL;

	return (uint32_t)((x ^ x >> 29) >> 32);
}

static bool git_untestable(const ab_engine *e, size_t p)
{
	ab_verdict v = ab_engine_get(e, p);

	return v == AB_V_SKIP || v == AB_V_UNAVAILABLE || v == AB_V_FAILED;
}

static bool git_any_skipped(const ab_engine *e)
{
	for (size_t p = 0; p < ab_engine_size(e); p++)
		if (git_untestable(e, p))
			return true;
	return false;
}

/* skip_away()'s walk to the index-th entry not skipped. */
struct git_walk {
	size_t want, seen, prev, first;
};

static bool git_visit(struct git_walk *w, size_t p, size_t hi)
{
	if (w->first == NONE)
		w->first = p;
	if (w->seen++ == w->want) {
		/* landed on the current bad: take the one before */
		if (p == hi)
			w->prev = w->prev == NONE ? w->first : w->prev;
		else
			w->prev = p;
		return true;
	}
	w->prev = p;
	return false;
}

static size_t pick_git(const ab_engine *e)
{
	size_t lo = ab_engine_last_old(e), hi = ab_engine_first_new(e), c = hi - lo;
	size_t count = 0, a, b;
	struct git_walk w = { NONE, 0, NONE, NONE };
	long long index;
	int prn;

	/*
	 * The best commit; if it can be tested git takes it. Until anything
	 * is skipped git stops at the first halfway commit its weight walk
	 * meets: the older middle, but never the oldest commit (weight 1),
	 * so of three it takes the second. After a skip it sorts them all
	 * by distance and breaks ties by object id.
	 */
	a = lo + c / 2;
	b = hi - c / 2;
	if (!git_any_skipped(e))
		return c == 3 ? lo + 2 : a;
	if (a != b && fake_oid(b) < fake_oid(a))
		a = b;
	if (!git_untestable(e, a))
		return a;

	/* skip_away(): count is the number of entries not skipped */
	for (size_t p = lo + 1; p <= hi; p++)
		count += !git_untestable(e, p);
	prn = (int)get_prn((unsigned)count);
	index = ((long long)count * prn / PRN_MODULO) * sqrti(prn) / sqrti(PRN_MODULO);
	w.want = (size_t)index;

	/*
	 * The list sorted by distance min(w, c - w), w = p - lo, best
	 * first: for each distance from c/2 down to 0 the builds lo + dist
	 * and hi - dist, in oid order; hi, the current bad, comes last.
	 */
	for (size_t dist = c / 2 + 1; dist-- > 0;) {
		size_t x = lo + dist, y = hi - dist, t;

		if (x != y && fake_oid(y) < fake_oid(x)) {
			t = x;
			x = y;
			y = t;
		}
		if (x > lo && !git_untestable(e, x) && git_visit(&w, x, hi))
			return w.prev;
		if (y != x && y > lo && !git_untestable(e, y) && git_visit(&w, y, hi))
			return w.prev;
	}
	return w.first;
}

enum { S_OURS, S_NEAREST, S_GIT, S_COUNT };

static void test_simulation(void)
{
	static const char *const corpus_name[] = {
		"clusters of 1..8 covering 10-30%",
		"isolated skips, 5-25%",
		"clusters, half FAILED (known up front)",
		"long clusters of 1..40 (not in the total)",
	};
	static const chooser pickers[S_COUNT] = { pick_ours, pick_nearest, pick_git };
	const size_t histories = 300, culprits = 8, nmax = 2048;
	unsigned char *truth = malloc(nmax);
	size_t grand[S_COUNT] = { 0 }, wrong = 0, runs = 0;
	struct outcome o;

	rng_state = 0x6a09e667f3bcc908ULL;	/* the corpus does not depend on the tests above */
	for (int corpus = 0; corpus < 4; corpus++) {
		size_t total[S_COUNT] = { 0 };

		for (size_t hist = 0; hist < histories; hist++) {
			/* log-uniform-ish sizes from 16 to 2047 */
			size_t base = (size_t)16 << rnd_range(0, 6);
			size_t n = rnd_range(base, 2 * base - 1);

			memset(truth, TRUE_OK, n);
			if (corpus == 1) {
				unsigned pm = (unsigned)rnd_range(50, 250);

				for (size_t p = 1; p < n - 1; p++)
					if (rnd_chance(pm))
						truth[p] = TRUE_SKIP;
			} else {
				size_t want = (n - 2) * rnd_range(100, 300) / 1000, have = 0;

				while (have < want) {
					size_t len = rnd_range(1, corpus == 3 ? 40 : 8);
					size_t s = rnd_range(1, n - 2);
					unsigned char kind = corpus == 2 && rnd() % 2 ?
							     TRUE_FAILED : TRUE_SKIP;

					for (size_t p = s; p < s + len && p < n - 1; p++) {
						have += truth[p] == TRUE_OK;
						truth[p] = kind;
					}
				}
			}
			for (size_t k = 0; k < culprits; k++) {
				struct history h = { n, 0, n - 1, rnd_range(1, n - 1), truth };

				for (int s = 0; s < S_COUNT; s++) {
					simulate(&h, pickers[s], false, &o);
					wrong += !result_ok(&h, &o);
					total[s] += o.probes;
					runs++;
				}
			}
		}
		tap_diag("simulation, %s: %zu bisections, probes: ours %zu, nearest %zu, git %zu",
			 corpus_name[corpus], histories * culprits,
			 total[S_OURS], total[S_NEAREST], total[S_GIT]);
		for (int s = 0; s < S_COUNT && corpus < 3; s++)
			grand[s] += total[s];
	}
	tap_diag("simulation, first three: probes: ours %zu, nearest %zu, git %zu "
		 "(ours/git %.3f, ours/nearest %.3f)",
		 grand[S_OURS], grand[S_NEAREST], grand[S_GIT],
		 (double)grand[S_OURS] / (double)grand[S_GIT],
		 (double)grand[S_OURS] / (double)grand[S_NEAREST]);
	tap_ok(!wrong, "simulation: all %zu bisections by all strategies end right (%zu wrong)",
	       runs, wrong);
	tap_ok(grand[S_OURS] <= grand[S_GIT],
	       "simulation: our probes (%zu) <= git skip_away's (%zu)",
	       grand[S_OURS], grand[S_GIT]);
	tap_ok(grand[S_OURS] <= grand[S_NEAREST],
	       "simulation: our probes (%zu) <= plain nearest-to-midpoint's (%zu)",
	       grand[S_OURS], grand[S_NEAREST]);
	free(truth);
}


int main(void)
{
	test_new();
	test_set();
	test_find_fix();
	test_pick();
	test_step_away();
	test_exhaustive();
	test_random(1000, 500);
	test_random(1000000, 250);
	test_simulation();
	return tap_done();
}
