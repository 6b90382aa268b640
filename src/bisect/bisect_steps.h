/* bisect_steps.h - what bisect.c, bisect_prepare.c and multisect.c
 * share: preparing one build, judging it, and the ends of --check-bounds. Internal to the
 * bisection (not for the front end); never prints.
 */
#ifndef AB_BISECT_STEPS_H
#define AB_BISECT_STEPS_H

#include <signal.h>

#include "bisect/bisect.h"
#include "bisect/probe.h"

/* bisect_prepare.c: */
/* The scratch root's path for build idx (allocated). */
char *bisect_root_path(const ab_bisect *b, size_t idx);
/* Prefetch's "ready" callback (ud: the ab_bisect): unpacks a verified
 * build ahead of its turn into an early root, room allowing. */
void bisect_early_unpack(void *ud, size_t key, const ab_fetch_item *items, size_t n,
			 const volatile sig_atomic_t *cancel);
/* Downloads, verifies and unpacks one build. Returns 0 and *root when
 * ready, 1 with *reason when the build is unavailable, -1 with err. */
int bisect_prepare(ab_bisect *b, ab_cache *cache, const ab_bisect_callbacks *cb,
		   size_t idx, char **root, char **artifacts, char **reason, ab_error *err);
/* Removes a root a probe or a person has had; what cannot be removed
 * (a file system still mounted in it) is left and said. */
void bisect_remove_root(const ab_bisect_callbacks *cb, const char *root);
/* Removes every early root but those of builds keys[0..nkeys). */
void bisect_early_sweep(const ab_bisect *b, const size_t *keys, size_t nkeys);

/* The probe's description for build idx in root. */
void bisect_probe_spec(ab_bisect *b, size_t idx, const char *root, const char *artifacts,
		       ab_probe_spec *spec);
/* A finished probe's verdict: 0 with *t and *by; 1 when the run must
 * stop, -1 when it was interrupted; err says. */
int bisect_probe_verdict(ab_bisect *b, size_t idx, const char *root, const ab_probe_result *res,
			 ab_term *t, ab_by *by, ab_error *err);
/* Probes or asks; 0 with a recorded verdict, 1 when the run must stop,
 * -1 with err. bound: idx is an end, checked for --check-bounds. */
int bisect_judge(ab_bisect *b, ab_cache *cache, const ab_bisect_callbacks *cb, size_t idx,
		 char **root, char **artifacts, double wait, int bound, ab_error *err);

/* The --check-bounds step of end idx, or NULL. */
const ab_step *bisect_bound_step(const ab_bisect *b, size_t idx);
/* Why an end's verdict is not the one it was given as, or NULL. */
char *bisect_bound_reason(const ab_bisect *b, size_t idx, ab_term t, const ab_probe_result *res);

/* multisect.c: --jobs N probes at once until the range is settled, and
 * the two ends of --check-bounds (at once with --jobs 2+). 0, 1 when
 * the run must stop, -1 with err. */
int bisect_multisect(ab_bisect *b, ab_cache *cache, const ab_bisect_callbacks *cb,
		     ab_error *err);
int bisect_check_bounds(ab_bisect *b, ab_cache *cache, const ab_bisect_callbacks *cb,
			ab_error *err);

/* bisect_flaky.c: flaky verdicts (the model of flaky.h) and --confirm. */
/* Hands the bisection to the model, with every run so far. 0, -1. */
int bisect_go_flaky(ab_bisect *b);
/* One recorded step as the model's observation. */
void bisect_flaky_observe(ab_bisect *b, size_t idx, ab_term t, ab_by by);
/* The build the model runs next, or (size_t)-1 when it is done. */
size_t bisect_flaky_next(const ab_bisect *b);
/* For --jobs: the model's best build not in flight, or (size_t)-1. */
size_t bisect_flaky_pick(const ab_bisect *b, const size_t *pending, size_t npending);
/* The builds it would run after a pass and after a failure on idx
 * (for prefetch): how many written to out. */
size_t bisect_flaky_after(const ab_bisect *b, size_t idx, size_t out[2]);
/* Sets the result once the model is done. */
void bisect_flaky_settle(ab_bisect *b);
/* --confirm N after a deterministic answer: 0, 1 (stop), -1 with err. */
int bisect_confirm(ab_bisect *b, ab_cache *cache, const ab_bisect_callbacks *cb, ab_error *err);

#endif
