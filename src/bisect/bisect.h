/* bisect.h - drives one bisection: engine, fetch, unpack, probe.
 *
 * Owns the loop "ask the engine, prepare the build, get a verdict,
 * record it" and the list of steps the report is made from. Maps good
 * and bad onto the engine's OLD and NEW (--find-fix swaps them). Talks to
 * the person only through callbacks; never prints.
 */
#ifndef AB_BISECT_H
#define AB_BISECT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "engine/engine.h"
#include "base/error.h"
#include "net/fetch.h"
#include "index/index.h"

typedef enum ab_term { AB_TERM_GOOD, AB_TERM_BAD, AB_TERM_SKIP } ab_term;

typedef enum ab_by {
	AB_BY_PROBE,
	AB_BY_USER,
	AB_BY_TIMEOUT,
	AB_BY_UNAVAILABLE,
	AB_BY_FAILED_BUILD,
	AB_BY_REPLAY,
} ab_by;

typedef struct ab_step {
	size_t index;		/* position in the index's builds */
	ab_term verdict;
	ab_by by;
	double seconds;		/* probe time, 0 when none ran */
	double wait;		/* seconds from turning to the build until it was
				 * ready (download, checks, unpacking that prefetch
				 * did not hide); -1 when not measured */
	char *reason;		/* why unavailable, or NULL */
	double at;		/* ab_now() when it was recorded, 0 when read
				 * back from a session: the HTML report draws
				 * the probe over [at - seconds, at] */
	int bound;		/* a --check-bounds run on an end of the range:
				 * never given to the engine */
	char *links;		/* what the probe linked to (a lab job, its
				 * log): "TEXT URL" lines, http(s) only; or NULL */
} ab_step;

typedef enum ab_result {
	AB_RESULT_RUNNING,
	AB_RESULT_FOUND,
	AB_RESULT_INCONCLUSIVE,
	AB_RESULT_ABORTED,
} ab_result;

typedef struct ab_bisect_options {
	const char *probe;	/* NULL: ask through the callback */
	double timeout;		/* seconds, 0 = none */
	int timeout_skip;	/* --timeout-verdict skip */
	int find_fix;
	int keep_roots;
	int probe_stdout_to_stderr;
	const char *work_dir;	/* scratch roots go under WORK/roots */
	ab_fetch_options fetch;
	volatile sig_atomic_t *cancel;
	const struct ab_rpm_keyring *keyring;	/* --keyring, or NULL */
	int install_rpm;	/* --install rpm: a transaction, not unpacking */
	int prefetch;		/* download the possible next builds during a probe */
	int jobs;		/* probes at once (multisection); 1 = plain bisection */
	int64_t cache_size;	/* bytes the cache may hold; -1 = no cap */
	int check_bounds;	/* probe both ends before the first midpoint */
	int flaky;		/* --flaky: the Bayesian model from the start */
	double confidence;	/* --confidence (flaky): 0 = 0.95 */
	unsigned max_probes;	/* --max-probes (flaky): 0 = no limit */
	double fail_rate_before, fail_rate_after;	/* fixed rates; < 0: learned */
	unsigned confirm;	/* --confirm N: run the answer's ends N times more */
} ab_bisect_options;

/* What the person answers at a manual step. */
typedef enum ab_answer {
	AB_ANSWER_GOOD, AB_ANSWER_BAD, AB_ANSWER_SKIP, AB_ANSWER_QUIT,
	AB_ANSWER_RETRY,	/* unpack the build afresh and ask again */
} ab_answer;

typedef struct ab_bisect ab_bisect;

typedef struct ab_bisect_callbacks {
	/* The build chosen next, before it is fetched. */
	void (*choose)(void *ud, const ab_bisect *b, size_t idx);
	/* The build is in its root and about to be probed or asked about. */
	void (*ready)(void *ud, const ab_bisect *b, size_t idx, const char *root);
	/* A verdict was recorded. */
	void (*verdict)(void *ud, const ab_bisect *b, const ab_step *s);
	/* Manual mode: the person's verdict on the build in root. */
	ab_answer (*ask)(void *ud, const ab_bisect *b, size_t idx, const char *root);
	ab_fetch_callbacks fetch;
	void *ud;
} ab_bisect_callbacks;

struct ab_bisect {
	const ab_index *index;
	ab_engine *engine;
	ab_bisect_options opt;
	ab_result result;
	ab_step *steps;
	size_t nsteps, steps_cap;
	unsigned tested;	/* builds probed or judged by the person */
	unsigned probe_step;	/* ARTBISECT_STEP of the next probe */
	unsigned probes_run;	/* probe verdicts in this process: a first
				 * 126 or 127 stops the run (contract 4b) */
	int probe_unrunnable;	/* ... and it did: the run stopped */
	unsigned confirm_round;	/* --confirm: the round being run, from 1; else 0 */
	char *probe_fix;	/* the probe it meant (an absolute path), or NULL */
	struct ab_prefetch *prefetch;	/* during ab_bisect_run, when enabled */
	int64_t downloaded;	/* artifact bytes received over the network by
				 * the session, prefetch included (atomic) */
	size_t old_end, new_end;	/* the range as given (OLD and NEW) */
	struct ab_flaky *flaky;	/* the flaky model (flaky.h) once verdicts
				 * disagreed or --flaky was given; then it,
				 * not the engine, picks builds and answers */
	int switched;		/* the model took over from the engine when a
				 * verdict contradicted the others */
};

/* good_idx and bad_idx are the given (or default) ends; with find_fix
 * good is the newer one. NULL with err (exit 2) when the order is wrong. */
ab_bisect *ab_bisect_new(const ab_index *idx, size_t good_idx, size_t bad_idx,
			 const ab_bisect_options *opt, ab_error *err);
void ab_bisect_free(ab_bisect *b);

/* Runs until found, inconclusive or aborted. -1 with err for failures
 * that end the run (exit 3, or 4 when cancelled). */
int ab_bisect_run(ab_bisect *b, ab_cache *cache, const ab_bisect_callbacks *cb,
		  ab_error *err);

/* For testing by hand: fetches, verifies and unpacks the next build to
 * test, recording the unavailable ones on the way. 0 with *idx, *root
 * and *artifacts (the files, one per line) when a build is ready; 1 when
 * the search has ended (b->result says how); -1 with err. */
int ab_bisect_prepare_next(ab_bisect *b, ab_cache *cache, const ab_bisect_callbacks *cb,
			   size_t *idx, char **root, char **artifacts, ab_error *err);
/* Sets b->result from the engine once the search has ended. */
void ab_bisect_settle(ab_bisect *b);
/* Where build idx is unpacked: WORK/roots/IDX-ID. */
char *ab_bisect_root_path(const ab_bisect *b, size_t idx);

/* Records a verdict given in terms of good/bad/skip; wait is the
 * step's ab_step.wait (-1 when not measured). */
ab_engine_rc ab_bisect_record(ab_bisect *b, size_t idx, ab_term verdict, ab_by by,
			      double seconds, double wait, const char *reason);
/* Records the verdict of a --check-bounds run on an end of the range
 * (idx is b->old_end or b->new_end) as a step, without the engine: the
 * ends are OLD and NEW by definition. -1 when idx is no end or that end
 * has its verdict already. */
int ab_bisect_record_bound(ab_bisect *b, size_t idx, ab_term verdict, ab_by by,
			   double seconds, double wait, const char *reason);

/* The --check-bounds steps of the ends, NULL where that end has none. */
typedef struct ab_bounds {
	const ab_step *old_step, *new_step;
	int old_ok, new_ok;	/* the end has the verdict it was given as */
} ab_bounds;
/* Fills out; 1 when any end has been checked, 0 when none has. */
int ab_bisect_bounds(const ab_bisect *b, ab_bounds *out);
/* Whether a checked end did not have its given verdict (or could not be
 * tested): the result is then inconclusive. */
int ab_bisect_bounds_failed(const ab_bisect *b);

/* The steps' waits added up: the run's time spent waiting for builds
 * (-1 when no step measured one). */
double ab_bisect_waited(const ab_bisect *b);
/* How many distinct builds were tested (b->tested counts the runs: under
 * the flaky model one build may be run many times). */
size_t ab_bisect_builds_tested(const ab_bisect *b);

/* The words of the old and new states: good/bad, or bad/good. */
const char *ab_bisect_old_term(const ab_bisect *b);
const char *ab_bisect_new_term(const ab_bisect *b);
const char *ab_term_name(ab_term t);
/* A verdict's word as a person reads it, in their language (good, bad,
 * skip); what is typed, logged and written to JSON stays the word. */
const char *ab_term_label(const char *term);
const char *ab_by_name(ab_by by);

#endif
