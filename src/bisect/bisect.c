/* bisect.c - see bisect.h. */
#include "config.h"
#include <errno.h>
#include <stdbool.h>
#include <time.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "bisect/bisect.h"
#include "bisect/bisect_steps.h"
#include "engine/flaky.h"
#include "base/i18n.h"
#include "net/prefetch.h"
#include "bisect/probe.h"
#include "base/util.h"

const char *ab_term_name(ab_term t)
{
	switch (t) {
	case AB_TERM_GOOD: return "good";
	case AB_TERM_BAD: return "bad";
	default: return "skip";
	}
}

const char *ab_term_label(const char *term)
{
	if (!strcmp(term, "good"))
		return _("good");
	if (!strcmp(term, "bad"))
		return _("bad");
	if (!strcmp(term, "skip"))
		return _("skip");
	return term;
}

const char *ab_by_name(ab_by by)
{
	static const char *const names[] = {
		"probe", "user", "timeout", "unavailable", "failed-build", "replay",
	};
	return names[by];
}

const char *ab_bisect_old_term(const ab_bisect *b)
{
	return b->opt.find_fix ? "bad" : "good";
}

const char *ab_bisect_new_term(const ab_bisect *b)
{
	return b->opt.find_fix ? "good" : "bad";
}

static ab_verdict engine_verdict(const ab_bisect *b, ab_term t)
{
	if (t == AB_TERM_SKIP)
		return AB_V_SKIP;
	if ((t == AB_TERM_GOOD) != (b->opt.find_fix != 0))
		return AB_V_OLD;
	return AB_V_NEW;
}

ab_bisect *ab_bisect_new(const ab_index *idx, size_t good_idx, size_t bad_idx,
			 const ab_bisect_options *opt, ab_error *err)
{
	size_t old_idx = opt->find_fix ? bad_idx : good_idx;
	size_t new_idx = opt->find_fix ? good_idx : bad_idx;
	ab_bisect *b;
	size_t i;

	if (old_idx >= new_idx) {
		const ab_build *o = &idx->builds[old_idx], *n = &idx->builds[new_idx];
		if (opt->find_fix)
			ab_error_set(err, AB_EXIT_USAGE,
				     _("the bad build %s must be older than the good build %s (with --find-fix)"),
				     o->id, n->id);
		else
			ab_error_set(err, AB_EXIT_USAGE,
				     _("the good build %s must be older than the bad build %s"),
				     o->id, n->id);
		return NULL;
	}
	b = ab_xcalloc(1, sizeof *b);
	b->index = idx;
	b->opt = *opt;
	b->opt.fetch.received = &b->downloaded;
	b->engine = ab_engine_new(idx->nbuilds, old_idx, new_idx);
	b->probe_step = 1;
	b->result = AB_RESULT_RUNNING;
	b->old_end = old_idx;
	b->new_end = new_idx;
	/* Builds the farm could not make are known untestable for free. */
	for (i = old_idx + 1; i < new_idx; i++)
		if (idx->builds[i].failed)
			ab_engine_set(b->engine, i, AB_V_FAILED);
	if (opt->flaky && bisect_go_flaky(b) < 0) {
		ab_error_set(err, AB_EXIT_USAGE, "%s", _("--flaky: the model's settings do not fit"));
		ab_bisect_free(b);
		return NULL;
	}
	return b;
}

void ab_bisect_free(ab_bisect *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->nsteps; i++) {
		free(b->steps[i].reason);
		free(b->steps[i].links);
	}
	free(b->steps);
	free(b->probe_fix);
	ab_engine_free(b->engine);
	ab_flaky_free(b->flaky);
	free(b);
}

static void add_step(ab_bisect *b, size_t idx, ab_term verdict, ab_by by,
		     double seconds, double wait, const char *reason)
{
	ab_step *s;

	if (b->nsteps == b->steps_cap) {
		b->steps_cap = b->steps_cap ? b->steps_cap * 2 : 16;
		b->steps = ab_xrealloc(b->steps, b->steps_cap * sizeof *b->steps);
	}
	s = &b->steps[b->nsteps++];
	s->index = idx;
	s->verdict = verdict;
	s->by = by;
	s->seconds = seconds;
	s->wait = wait;
	s->reason = ab_xstrdup(reason);
	s->at = ab_now();
	s->bound = 0;
	s->links = NULL;
	if (by == AB_BY_PROBE || by == AB_BY_USER || by == AB_BY_TIMEOUT)
		b->tested++;
}

/* Whether build idx has its failed-build step already (a farm said so
 * when it was tried). */
static int failed_step(const ab_bisect *b, size_t idx)
{
	size_t i;

	for (i = 0; i < b->nsteps; i++)
		if (b->steps[i].index == idx && b->steps[i].by == AB_BY_FAILED_BUILD)
			return 1;
	return 0;
}

/* Whether build idx was given the other verdict (good against bad) before. */
static int judged_otherwise(const ab_bisect *b, size_t idx, ab_term verdict)
{
	size_t i;

	if (verdict == AB_TERM_SKIP)
		return 0;
	for (i = 0; i < b->nsteps; i++)
		if (b->steps[i].index == idx && b->steps[i].verdict != AB_TERM_SKIP &&
		    b->steps[i].verdict != verdict && b->steps[i].by != AB_BY_UNAVAILABLE &&
		    b->steps[i].by != AB_BY_FAILED_BUILD)
			return 1;
	/* The ends were given as good and bad without a step. */
	return (idx == b->old_end || idx == b->new_end) &&
	       engine_verdict(b, verdict) != (idx == b->old_end ? AB_V_OLD : AB_V_NEW);
}

ab_engine_rc ab_bisect_record(ab_bisect *b, size_t idx, ab_term verdict, ab_by by,
			      double seconds, double wait, const char *reason)
{
	ab_verdict v = engine_verdict(b, verdict);
	ab_engine_rc rc;

	if (by == AB_BY_UNAVAILABLE)
		v = AB_V_UNAVAILABLE;
	/* A farm found out only now that it could not build it. */
	if (by == AB_BY_UNAVAILABLE && b->index->builds[idx].failed) {
		v = AB_V_FAILED;
		by = AB_BY_FAILED_BUILD;
	}
	if (idx >= b->index->nbuilds)
		return AB_ENGINE_OUT_OF_RANGE;
	if (!b->flaky) {
		rc = ab_engine_set(b->engine, idx, v);
		/* One build both good and bad: a flaky regression (or a
		 * lying run), for the model to weigh. A contradiction between
		 * two builds is refused as a slip, unless --flaky. */
		if (rc == AB_ENGINE_CONFLICT && judged_otherwise(b, idx, verdict) &&
		    bisect_go_flaky(b) == 0)
			b->switched = 1;
		else if (rc != AB_ENGINE_OK)
			return rc;
	}
	if (b->flaky)
		bisect_flaky_observe(b, idx, verdict, by);
	add_step(b, idx, verdict, by, seconds, wait, reason);
	return AB_ENGINE_OK;
}

/* The --check-bounds step of end idx, or NULL. */
const ab_step *bisect_bound_step(const ab_bisect *b, size_t idx)
{
	size_t i;

	for (i = 0; i < b->nsteps; i++)
		if (b->steps[i].bound && b->steps[i].index == idx)
			return &b->steps[i];
	return NULL;
}

int ab_bisect_record_bound(ab_bisect *b, size_t idx, ab_term verdict, ab_by by,
			   double seconds, double wait, const char *reason)
{
	if ((idx != b->old_end && idx != b->new_end) || bisect_bound_step(b, idx))
		return -1;
	add_step(b, idx, verdict, by, seconds, wait, reason);
	b->steps[b->nsteps - 1].bound = 1;
	if (b->flaky)
		bisect_flaky_observe(b, idx, verdict, by);
	return 0;
}

int ab_bisect_bounds(const ab_bisect *b, ab_bounds *out)
{
	memset(out, 0, sizeof *out);
	out->old_step = bisect_bound_step(b, b->old_end);
	out->new_step = bisect_bound_step(b, b->new_end);
	/* A skip or an unavailable end is not the verdict it was given as:
	 * the check cannot vouch for it. */
	out->old_ok = out->old_step && engine_verdict(b, out->old_step->verdict) == AB_V_OLD;
	out->new_ok = out->new_step && engine_verdict(b, out->new_step->verdict) == AB_V_NEW;
	return out->old_step || out->new_step;
}

int ab_bisect_bounds_failed(const ab_bisect *b)
{
	ab_bounds bd;

	if (!ab_bisect_bounds(b, &bd))
		return 0;
	return (bd.old_step && !bd.old_ok) || (bd.new_step && !bd.new_ok);
}

double ab_bisect_waited(const ab_bisect *b)
{
	double sum = -1.0;
	size_t i;

	for (i = 0; i < b->nsteps; i++)
		if (b->steps[i].wait >= 0)
			sum = (sum < 0 ? 0 : sum) + b->steps[i].wait;
	return sum;
}

size_t ab_bisect_builds_tested(const ab_bisect *b)
{
	unsigned char *seen = ab_xcalloc(b->index->nbuilds ? b->index->nbuilds : 1, 1);
	size_t i, n = 0;

	for (i = 0; i < b->nsteps; i++) {
		const ab_step *s = &b->steps[i];

		if ((s->by == AB_BY_PROBE || s->by == AB_BY_USER || s->by == AB_BY_TIMEOUT) &&
		    !seen[s->index]) {
			seen[s->index] = 1;
			n++;
		}
	}
	free(seen);
	return n;
}

/* The probe's description for build idx in root. */
void bisect_probe_spec(ab_bisect *b, size_t idx, const char *root, const char *artifacts,
		       ab_probe_spec *spec)
{
	const ab_build *bd = &b->index->builds[idx];

	memset(spec, 0, sizeof *spec);
	spec->command = b->opt.probe;
	spec->root = root;
	spec->build_id = bd->id;
	spec->commit = bd->commit;
	spec->version = bd->version;
	spec->artifacts = artifacts;
	spec->arts = bd->artifacts;
	spec->narts = bd->nartifacts;
	spec->step = b->probe_step++;
	spec->links = root != NULL;
	spec->timeout = b->opt.timeout;
	spec->grace = 5.0;
	spec->stdout_to_stderr = b->opt.probe_stdout_to_stderr;
	spec->cancel = b->opt.cancel;
}

/* The first probe of a run exited 126 or 127: the contract (section
 * 4b) stops the bisection there with exit 4, whatever the cause, since
 * it is what a probe that cannot run exits with, and every build would
 * then be "bad" and the answer a confident wrong one. When the program
 * is missing or not executable (a relative path meant from where
 * artbisect was started, a typo), err says so and what to give instead.
 * Always 1 with err. */
static int probe_could_not_run(ab_bisect *b, size_t idx, const char *root,
			       const ab_probe_result *res, ab_error *err)
{
	char *why = NULL, *cwd = getcwd(NULL, 0);

	b->probe_unrunnable = 1;
	if (ab_probe_cannot_run(b->opt.probe, root, cwd, res->status, &why, &b->probe_fix))
		ab_error_set(err, AB_EXIT_ABORTED,
			     _("the probe could not be run (exit %d from '%s' in %s): %s; stopping"),
			     res->status, b->opt.probe, root, why);
	else
		ab_error_set(err, AB_EXIT_ABORTED,
			     _("the probe exited with status %d on %s, the first build it ran: that is how "
			       "a probe that cannot be run exits, so it gives no verdict; stopping"),
			     res->status, b->index->builds[idx].id);
	free(why);
	free(cwd);
	return 1;
}

/* A finished probe's verdict: 0 with *t and *by; 1 when the run must
 * stop (the probe aborted it, or could not run), -1 when it was
 * interrupted; err says. */
int bisect_probe_verdict(ab_bisect *b, size_t idx, const char *root, const ab_probe_result *res,
			 ab_term *t, ab_by *by, ab_error *err)
{
	const ab_build *bd = &b->index->builds[idx];
	int first = b->probes_run++ == 0;

	*by = AB_BY_PROBE;
	switch (res->outcome) {
	case AB_PROBE_GOOD: *t = AB_TERM_GOOD; return 0;
	case AB_PROBE_BAD:
		if (first && (res->status == 126 || res->status == 127))
			return probe_could_not_run(b, idx, root, res, err);
		*t = AB_TERM_BAD;
		return 0;
	case AB_PROBE_SKIP: *t = AB_TERM_SKIP; return 0;
	case AB_PROBE_TIMEOUT:
		*t = b->opt.timeout_skip ? AB_TERM_SKIP : AB_TERM_BAD;
		*by = AB_BY_TIMEOUT;
		return 0;
	case AB_PROBE_CANCELLED:
	case AB_PROBE_STOPPED:
		ab_error_set(err, AB_EXIT_ABORTED, _("interrupted while probing %s"), bd->id);
		return -1;
	default:
		if (res->signal)
			ab_error_set(err, AB_EXIT_ABORTED,
				     _("the probe was killed by signal %d on build %s; stopping"),
				     res->signal, bd->id);
		else
			ab_error_set(err, AB_EXIT_ABORTED,
				     _("the probe exited with status %d on build %s; stopping"),
				     res->status, bd->id);
		return 1;
	}
}

/* Why an end's verdict is not the one it was given as (the probe's
 * status, for the report), or NULL when it is. */
char *bisect_bound_reason(const ab_bisect *b, size_t idx, ab_term t, const ab_probe_result *res)
{
	ab_verdict want = idx == b->old_end ? AB_V_OLD : AB_V_NEW;

	if (engine_verdict(b, t) == want)
		return NULL;
	if (res->outcome == AB_PROBE_TIMEOUT)
		return ab_xasprintf(_("the probe timed out after %g s"), b->opt.timeout);
	return ab_xasprintf(_("the probe exited %d"), res->status);
}

/* Probes or asks; 0 with a recorded verdict, 1 when the run must stop
 * (abort or quit), -1 with err. wait: the seconds the build took to be
 * ready; bound: idx is an end, checked for --check-bounds. */
int bisect_judge(ab_bisect *b, ab_cache *cache, const ab_bisect_callbacks *cb, size_t idx,
		 char **root, char **artifacts, double wait, int bound, ab_error *err)
{
	ab_probe_spec spec;
	ab_probe_result res;
	ab_term t;
	ab_by by;
	int rc;

	if (!b->opt.probe) {
		ab_answer a;

		while ((a = cb->ask(cb->ud, b, idx, *root)) == AB_ANSWER_RETRY) {
			/* A fresh root, as if the build had just arrived. */
			char *reason = NULL;
			double t0 = ab_now();

			free(*root);
			free(*artifacts);
			rc = bisect_prepare(b, cache, cb, idx, root, artifacts, &reason, err);
			wait += ab_now() - t0;
			if (rc != 0) {
				if (rc > 0)
					ab_error_set(err, AB_EXIT_FAILURE, "%s", reason);
				free(reason);
				return -1;
			}
		}
		if (a == AB_ANSWER_QUIT)
			return 1;
		t = a == AB_ANSWER_GOOD ? AB_TERM_GOOD : a == AB_ANSWER_BAD ? AB_TERM_BAD : AB_TERM_SKIP;
		if (bound)
			ab_bisect_record_bound(b, idx, t, AB_BY_USER, 0, wait, NULL);
		else
			ab_bisect_record(b, idx, t, AB_BY_USER, 0, wait, NULL);
		return 0;
	}
	bisect_probe_spec(b, idx, *root, *artifacts, &spec);
	if (ab_probe_run(&spec, &res, err) < 0)
		return -1;
	rc = bisect_probe_verdict(b, idx, *root, &res, &t, &by, err);
	if (rc != 0) {
		free(res.links);
		return rc;
	}
	if (bound) {
		char *why = bisect_bound_reason(b, idx, t, &res);

		ab_bisect_record_bound(b, idx, t, by, res.seconds, wait, why);
		free(why);
	} else if (ab_bisect_record(b, idx, t, by, res.seconds, wait, NULL) != AB_ENGINE_OK) {
		free(res.links);
		return 0;
	}
	b->steps[b->nsteps - 1].links = res.links;
	return 0;
}

void ab_bisect_settle(ab_bisect *b)
{
	ab_engine_state st;
	size_t i, lo, hi;

	if (b->flaky) {
		if (b->result != AB_RESULT_ABORTED)
			bisect_flaky_settle(b);
		return;
	}
	st = ab_engine_state_of(b->engine);
	lo = ab_engine_last_old(b->engine);
	hi = ab_engine_first_new(b->engine);

	/* An end that is not what it was given as leaves no answer to
	 * search for, whatever the engine says. */
	if (b->result != AB_RESULT_ABORTED && ab_bisect_bounds_failed(b)) {
		b->result = AB_RESULT_INCONCLUSIVE;
		return;
	}
	if (st == AB_ENGINE_RUNNING || b->result == AB_RESULT_FOUND ||
	    b->result == AB_RESULT_INCONCLUSIVE)
		return;		/* still searching, or settled already */
	b->result = st == AB_ENGINE_FOUND ? AB_RESULT_FOUND : AB_RESULT_INCONCLUSIVE;
	/* Name the failed builds that left the answer open: the report
	 * should say why it is inconclusive. */
	for (i = lo + 1; i < hi; i++)
		if (ab_engine_get(b->engine, i) == AB_V_FAILED && !failed_step(b, i))
			add_step(b, i, AB_TERM_SKIP, AB_BY_FAILED_BUILD, 0, -1, NULL);
}

/* While build idx is judged, fetch the builds that could come next:
 * the next one if it turns out old, and the next one if new. */
static void prefetch_next(ab_bisect *b, size_t idx)
{
	static const ab_verdict outcomes[] = { AB_V_OLD, AB_V_NEW };
	size_t i;

	if (b->flaky) {
		size_t next[2], n = bisect_flaky_after(b, idx, next);

		for (i = 0; i < n; i++)
			if (next[i] != idx)
				ab_prefetch_start(b->prefetch, next[i], b->index, &b->index->builds[next[i]]);
		return;
	}

	for (i = 0; i < sizeof outcomes / sizeof outcomes[0]; i++) {
		ab_engine *e = ab_engine_copy(b->engine);
		size_t next;

		if (!e)
			return;
		ab_engine_set(e, idx, outcomes[i]);
		next = ab_engine_next(e);
		ab_engine_free(e);
		if (next != (size_t)-1)
			ab_prefetch_start(b->prefetch, next, b->index, &b->index->builds[next]);
	}
}

static int run_loop(ab_bisect *b, ab_cache *cache, const ab_bisect_callbacks *cb,
		    ab_error *err);

/* The build to run next: the engine's, or the flaky model's. */
static size_t bisect_next(const ab_bisect *b)
{
	return b->flaky ? bisect_flaky_next(b) : ab_engine_next(b->engine);
}

int ab_bisect_run(ab_bisect *b, ab_cache *cache, const ab_bisect_callbacks *cb,
		  ab_error *err)
{
	int rc;

	if (b->opt.prefetch) {
		b->prefetch = ab_prefetch_new(cache, &b->opt.fetch);
		ab_prefetch_on_ready(b->prefetch, bisect_early_unpack, b);
		bisect_early_sweep(b, NULL, 0);	/* what an interrupted run left */
	}
	rc = 0;
	if (b->opt.check_bounds && b->result != AB_RESULT_ABORTED &&
	    !ab_bisect_bounds_failed(b)) {
		rc = bisect_check_bounds(b, cache, cb, err);
		if (rc != 0) {
			b->result = AB_RESULT_ABORTED;
			if (rc > 0)
				rc = 0;
		}
	}
	if (b->result != AB_RESULT_ABORTED)
		rc = run_loop(b, cache, cb, err);
	/* --confirm: a deterministic answer's ends run again; a run that
	 * disagrees hands the search to the flaky model, which goes on. */
	if (rc == 0 && b->opt.confirm && b->result == AB_RESULT_FOUND && !b->flaky) {
		rc = bisect_confirm(b, cache, cb, err);
		b->confirm_round = 0;
		if (rc == 0 && b->flaky)
			rc = run_loop(b, cache, cb, err);
		else if (rc > 0) {
			b->result = AB_RESULT_ABORTED;
			rc = 0;
		} else if (rc < 0 && err->code == AB_EXIT_ABORTED)
			b->result = AB_RESULT_ABORTED;
	}
	if (b->prefetch) {
		ab_prefetch_free(b->prefetch);
		b->prefetch = NULL;
		bisect_early_sweep(b, NULL, 0);
	}
	return rc;
}

/* Unavailable builds one after another before a run gives up. */
#define MAX_UNAVAILABLE_IN_A_ROW 32

static int run_loop(ab_bisect *b, ab_cache *cache, const ab_bisect_callbacks *cb,
		    ab_error *err)
{
	unsigned unavailable_in_a_row = 0;

	ab_bisect_settle(b);
	while (b->result == AB_RESULT_RUNNING) {
		size_t idx = bisect_next(b);
		char *root = NULL, *artifacts = NULL, *reason = NULL;
		double wait;
		int rc;

		if (ab_cancelled(b->opt.cancel)) {
			ab_error_set(err, AB_EXIT_ABORTED, _("interrupted"));
			b->result = AB_RESULT_ABORTED;
			return -1;
		}
		if (b->prefetch) {
			ab_prefetch_keep(b->prefetch, &idx, 1);	/* the rest is useless now */
			bisect_early_sweep(b, &idx, 1);
		}
		if (idx == (size_t)-1) {
			/* The model has no build left to run. */
			b->result = AB_RESULT_INCONCLUSIVE;
			break;
		}
		if (b->opt.jobs > 1 && b->opt.probe) {
			rc = bisect_multisect(b, cache, cb, err);
			if (rc != 0) {
				b->result = AB_RESULT_ABORTED;
				if (rc < 0 && err->code != AB_EXIT_ABORTED)
					return -1;
				return rc < 0 ? -1 : 0;
			}
			continue;
		}
		if (cb->choose)
			cb->choose(cb->ud, b, idx);
		wait = ab_now();
		rc = bisect_prepare(b, cache, cb, idx, &root, &artifacts, &reason, err);
		wait = ab_now() - wait;
		if (rc < 0) {
			if (err->code == AB_EXIT_ABORTED)
				b->result = AB_RESULT_ABORTED;
			return -1;
		}
		if (rc == 1) {
			ab_bisect_record(b, idx, AB_TERM_SKIP, AB_BY_UNAVAILABLE, 0, wait, reason);
			if (cb->verdict)
				cb->verdict(cb->ud, b, &b->steps[b->nsteps - 1]);
			/* A farm whose builds all vanish (a listing of links to
			 * nothing) is not walked to its end. */
			if (!b->index->builds[idx].failed &&
			    ++unavailable_in_a_row >= MAX_UNAVAILABLE_IN_A_ROW) {
				if (cb->fetch.notice) {
					char *msg = ab_xasprintf(_("%u builds in a row were unavailable: the farm looks broken; giving up"),
								 unavailable_in_a_row);
					cb->fetch.notice(cb->fetch.ud, msg);
					free(msg);
				}
				free(reason);
				b->result = AB_RESULT_INCONCLUSIVE;
				break;
			}
			free(reason);
			ab_bisect_settle(b);
			continue;
		}
		unavailable_in_a_row = 0;
		if (b->prefetch)
			prefetch_next(b, idx);
		if (cb->ready)
			cb->ready(cb->ud, b, idx, root);
		rc = bisect_judge(b, cache, cb, idx, &root, &artifacts, wait, 0, err);
		if (!b->opt.keep_roots)
			bisect_remove_root(cb, root);
		free(root);
		free(artifacts);
		if (rc != 0) {
			b->result = AB_RESULT_ABORTED;
			if (rc == 1 && !err->code)
				ab_error_set(err, AB_EXIT_ABORTED, _("stopped by the user"));
			return rc < 0 ? -1 : 0;
		}
		if (cb->verdict)
			cb->verdict(cb->ud, b, &b->steps[b->nsteps - 1]);
		ab_bisect_settle(b);
	}
	return 0;
}

int ab_bisect_prepare_next(ab_bisect *b, ab_cache *cache, const ab_bisect_callbacks *cb,
			   size_t *idx, char **root, char **artifacts, ab_error *err)
{
	ab_bisect_settle(b);
	while (b->result == AB_RESULT_RUNNING) {
		size_t next = bisect_next(b);
		char *reason = NULL;
		double t0;
		int rc;

		if (ab_cancelled(b->opt.cancel)) {
			ab_error_set(err, AB_EXIT_ABORTED, _("interrupted"));
			return -1;
		}
		if (next == (size_t)-1) {
			b->result = AB_RESULT_INCONCLUSIVE;
			break;
		}
		if (cb->choose)
			cb->choose(cb->ud, b, next);
		t0 = ab_now();
		rc = bisect_prepare(b, cache, cb, next, root, artifacts, &reason, err);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			*idx = next;
			return 0;
		}
		ab_bisect_record(b, next, AB_TERM_SKIP, AB_BY_UNAVAILABLE, 0, ab_now() - t0, reason);
		if (cb->verdict)
			cb->verdict(cb->ud, b, &b->steps[b->nsteps - 1]);
		free(reason);
		ab_bisect_settle(b);
	}
	return 1;
}

char *ab_bisect_root_path(const ab_bisect *b, size_t idx)
{
	return bisect_root_path(b, idx);
}
