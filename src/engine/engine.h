/* engine.h - the bisection engine: a pure state machine.
 *
 * Owns the ordered builds' verdicts and answers "which build next?" and
 * "are we done, with which candidates?". It speaks of OLD and NEW states
 * only; the front end maps good/bad onto them (--find-fix swaps them).
 * Never does I/O, keeps no globals, never allocates after ab_engine_new
 * except in ab_engine_new itself.
 *
 * Model: builds 0..n-1, oldest first. last_old < first_new always hold.
 * The first NEW build is somewhere in (last_old, first_new]; those
 * positions are the candidates. A build marked SKIP, UNAVAILABLE or
 * FAILED can never be tested, so when every build strictly between
 * last_old and first_new is one of those, the search is over: FOUND when
 * exactly one candidate is left, INCONCLUSIVE otherwise.
 */
#ifndef AB_ENGINE_H
#define AB_ENGINE_H

#include <stddef.h>
#include <stdbool.h>

typedef enum ab_verdict {
	AB_V_UNTESTED = 0,
	AB_V_OLD,		/* good by default */
	AB_V_NEW,		/* bad by default */
	AB_V_SKIP,		/* the probe or person could not test it */
	AB_V_UNAVAILABLE,	/* download or verification failed for good */
	AB_V_FAILED,		/* the farm could not build it (index status) */
} ab_verdict;

typedef enum ab_engine_state {
	AB_ENGINE_RUNNING,
	AB_ENGINE_FOUND,
	AB_ENGINE_INCONCLUSIVE,
} ab_engine_state;

typedef enum ab_engine_rc {
	AB_ENGINE_OK = 0,
	AB_ENGINE_OUT_OF_RANGE,	/* index >= n */
	AB_ENGINE_CONFLICT,	/* OLD at/after first_new, or NEW at/before last_old */
} ab_engine_rc;

typedef struct ab_engine ab_engine;

/* n builds; old_idx < new_idx < n are taken as OLD and NEW without a
 * test. Returns NULL when the arguments do not fit. */
ab_engine *ab_engine_new(size_t n, size_t old_idx, size_t new_idx);
void ab_engine_free(ab_engine *e);
/* An independent copy, to ask "what next if this verdict came?". */
ab_engine *ab_engine_copy(const ab_engine *e);

/* Records a verdict. OLD inside the range moves last_old up, NEW moves
 * first_new down; verdicts outside the range are kept but change
 * nothing. Skip-like verdicts on the range ends are ignored. */
ab_engine_rc ab_engine_set(ab_engine *e, size_t idx, ab_verdict v);
ab_verdict ab_engine_get(const ab_engine *e, size_t idx);

ab_engine_state ab_engine_state_of(const ab_engine *e);
size_t ab_engine_size(const ab_engine *e);
size_t ab_engine_last_old(const ab_engine *e);
size_t ab_engine_first_new(const ab_engine *e);
/* Candidates are the contiguous positions last_old+1 .. first_new. */
size_t ab_engine_candidate_count(const ab_engine *e);

/* The next build to test, or (size_t)-1 when the state is not RUNNING.
 * Reaches ceil(log2(candidates)) probes when nothing is skipped. When
 * the midpoint cannot be tested it picks an untested build near it,
 * stepping away from clusters of untestable builds (git's skip logic is
 * the anchor). Deterministic. */
size_t ab_engine_next(const ab_engine *e);

/* Multisection without rounds: the build to start next while the
 * builds pending[0..npending) are still being fetched or probed. It is
 * the untested build nearest the middle of the longest stretch of
 * candidates their verdicts could leave (the older stretch on ties), so
 * that whatever they say it halves what is left of it. With nothing
 * pending inside the range, ab_engine_next(). NONE when no stretch has
 * an untested build strictly inside. Pending builds beyond the first
 * AB_ENGINE_MAX_PENDING inside the range are not looked at. */
#define AB_ENGINE_MAX_PENDING 128
size_t ab_engine_pick(const ab_engine *e, const size_t *pending, size_t npending);

/* Probes still needed in the worst case if nothing more is skipped:
 * ceil(log2(testable untested builds in the range + 1)). */
unsigned ab_engine_steps_left(const ab_engine *e);

#endif
