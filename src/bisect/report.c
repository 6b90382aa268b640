/* report.c - see report.h. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "base/escape.h"
#include "base/i18n.h"
#include "bisect/report.h"
#include "bisect/report_flaky.h"
#include "pkg/sysinstall.h"
#include "base/util.h"

static const char *result_name(ab_result r)
{
	switch (r) {
	case AB_RESULT_FOUND: return "found";
	case AB_RESULT_INCONCLUSIVE: return "inconclusive";
	case AB_RESULT_ABORTED: return "aborted";
	default: return "running";
	}
}

/* compare_url, when it is a web link: the index's template could
 * otherwise make it javascript: or a local file in every report. */
static char *compare_url(const ab_bisect *b, size_t lo, size_t hi)
{
	char *u = ab_index_compare_url(b->index, lo, hi);

	if (u && !ab_esc_is_web_url(u)) {
		free(u);
		u = NULL;
	}
	return u;
}

/* Whether the report may print git commands for these builds: only
 * with object names, which the shell never reads as more than a word. */
static int git_commands(const ab_build *old, const ab_build *nw)
{
	return old->commit && nw->commit && ab_is_object_name(old->commit, strlen(old->commit)) &&
	       ab_is_object_name(nw->commit, strlen(nw->commit));
}

/* The git commands that narrow the range down, each word quoted for the
 * shell, each line starting with indent. */
static void put_git_commands(ab_buf *out, const char *indent, const ab_build *old,
			     const ab_build *nw, int fix)
{
	char *o = ab_shell_quote(old->commit), *n = ab_shell_quote(nw->commit);

	ab_buf_printf(out, "%sgit log --oneline %s..%s\n", indent, o, n);
	if (fix)
		ab_buf_printf(out, "%sgit bisect start --term-old=broken --term-new=fixed %s %s\n",
			      indent, n, o);
	else
		ab_buf_printf(out, "%sgit bisect start %s %s\n", indent, n, o);
	free(o);
	free(n);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *build_ref(const ab_bisect *b, size_t idx)
{
	const ab_build *bd = &b->index->builds[idx];
	json_t *o = json_pack("{s:s, s:o, s:I}", "id", bd->id, "commit", str_or_null(bd->commit),
			      "index", (json_int_t)idx);
	char *rel = ab_kernel_release(bd);

	if (rel)
		json_object_set_new(o, "kernel_release", json_string(rel));
	free(rel);
	return o;
}

typedef void (*esc_fn)(ab_buf *out, const char *s);

/* ---- trust: how far the tested builds were checked ---- */

/* Whether the report speaks of trust: for a farm's builds, or an index
 * that says how its builds were checked; an index v1 is its own root. */
static int speaks_of_trust(const ab_bisect *b)
{
	size_t i;

	if (b->index->resolver)
		return 1;
	for (i = 0; i < b->nsteps; i++)
		if (b->index->builds[b->steps[i].index].trust != AB_TRUST_DIGEST)
			return 1;
	return 0;
}

/* The weakest check any downloaded build had, and how many were not
 * verified at all. */
static ab_trust weakest_trust(const ab_bisect *b, size_t *unverified)
{
	int seen = 0, level = 2;	/* 2 signed, 1 digest, 0 unverified */
	size_t i, j;

	*unverified = 0;
	for (i = 0; i < b->nsteps; i++) {
		const ab_build *bd = &b->index->builds[b->steps[i].index];
		int l;

		if (!bd->nartifacts)
			continue;
		for (j = 0; j < i; j++)
			if (b->steps[j].index == b->steps[i].index)
				break;
		if (j < i)
			continue;
		l = bd->trust == AB_TRUST_SIGNED ? 2 : bd->trust == AB_TRUST_DIGEST ? 1 : 0;
		if (!l)
			(*unverified)++;
		if (l < level)
			level = l;
		seen = 1;
	}
	if (!seen)
		return AB_TRUST_DIGEST;
	return level == 2 ? AB_TRUST_SIGNED : level == 1 ? AB_TRUST_DIGEST : AB_TRUST_UNVERIFIED;
}

static int downloaded_any(const ab_bisect *b)
{
	size_t i;

	for (i = 0; i < b->nsteps; i++)
		if (b->index->builds[b->steps[i].index].nartifacts)
			return 1;
	return 0;
}

/* One sentence on it (translated), or NULL when there is nothing to say. */
const char *ab_report_trust_sentence(const ab_bisect *b, size_t *unverified)
{
	ab_trust t;

	*unverified = 0;
	if (!speaks_of_trust(b) || !downloaded_any(b))
		return NULL;
	t = weakest_trust(b, unverified);
	if (t == AB_TRUST_SIGNED)
		return _("Every build downloaded was checked against a signature by a key in the keyring.");
	if (t == AB_TRUST_DIGEST)
		return _("The builds were checked for integrity (sha256 from the farm's checksum lists, or an RPM's own digests), not authenticity: pass --keyring with the farm's signing key to check its signatures.");
	return _("WARNING: some builds were not verified at all (--allow-unverified); they are marked unverified.");
}

/* ---- what probes linked to (a lab's job, its log) ---- */

/* A step's links as JSON: [{"text", "url"}]. */
static json_t *links_json(const char *links)
{
	json_t *a = json_array();
	const char *p = links;

	while (p && *p) {
		const char *end = strchr(p, '\n'), *sp;
		size_t n = end ? (size_t)(end - p) : strlen(p);

		for (sp = p + n; sp > p && sp[-1] != ' '; sp--)
			;
		json_array_append_new(a, json_pack("{s:s%, s:s%}", "text", p, sp > p ? (size_t)(sp - p - 1) : 0,
						   "url", sp, (size_t)(p + n - sp)));
		p = end ? end + 1 : NULL;
	}
	return a;
}

/* Calls fn for each "TEXT URL" line of links. */
static void each_link(const char *links, void (*fn)(void *ud, const char *text, size_t tn,
						    const char *url, size_t un), void *ud)
{
	const char *p = links;

	while (p && *p) {
		const char *end = strchr(p, '\n'), *sp;
		size_t n = end ? (size_t)(end - p) : strlen(p);

		for (sp = p + n; sp > p && sp[-1] != ' '; sp--)
			;
		fn(ud, p, sp > p ? (size_t)(sp - p - 1) : 0, sp, (size_t)(p + n - sp));
		p = end ? end + 1 : NULL;
	}
}

typedef struct link_out {
	ab_buf *out;
	esc_fn esc;
	int md;
} link_out;

static void put_link(void *ud, const char *text, size_t tn, const char *url, size_t un)
{
	link_out *lo = ud;
	char *t = ab_xstrndup(text, tn), *u = ab_xstrndup(url, un);

	/* The URL was checked when it was read: http(s), no character that
	 * ends a link. */
	if (lo->md) {
		ab_buf_puts(lo->out, " [");
		lo->esc(lo->out, *t ? t : _("link"));
		ab_buf_printf(lo->out, "](%s)", u);
	} else {
		ab_buf_puts(lo->out, " ");
		if (*t) {
			lo->esc(lo->out, t);
			ab_buf_puts(lo->out, " ");
		}
		lo->esc(lo->out, u);
	}
	free(t);
	free(u);
}

/* ---- --check-bounds ----
 * What the check of the ends said, in one line. Ids and reasons come
 * from the index and the network: they go through esc (the terminal's
 * or Markdown's escapes; none for JSON, which jansson quotes). */

typedef void (*esc_fn)(ab_buf *out, const char *s);

static void esc_none(ab_buf *out, const char *s) { ab_buf_puts(out, s); }
static void esc_term(ab_buf *out, const char *s) { ab_esc_term_to(out, s, 0); }

/* Why one end is not what it was given as; nothing when it is. */
static void bound_problem(ab_buf *out, const ab_bisect *b, const ab_step *s, int is_old,
			  esc_fn esc)
{
	int fix = b->opt.find_fix;
	const char *given = ab_term_label(is_old ? ab_bisect_old_term(b) : ab_bisect_new_term(b));
	char *what;
	const char *why;

	if (out->len)
		ab_buf_puts(out, "; ");
	if (s->by == AB_BY_UNAVAILABLE)
		what = ab_xasprintf(_("the %s end %s is unavailable (%s): the check cannot say whether it is %s"),
				    given, "\x01", "\x02", given);
	else if (s->verdict == AB_TERM_SKIP)
		what = ab_xasprintf(s->reason ? _("the %s end %s could not be tested (%s): the check cannot say whether it is %s")
					      : _("the %s end %s could not be tested%s: the check cannot say whether it is %s"),
				    given, "\x01", s->reason ? "\x02" : "", given);
	else if (is_old)
		what = ab_xasprintf(fix ? _("the bad end %s is good%s: the fix is older than the range")
					: _("the good end %s is bad%s: the problem is older than the range"),
				    "\x01", s->reason ? " (\x02)" : "");
	else
		what = ab_xasprintf(fix ? _("the good end %s is bad%s: the fix is not in it")
					: _("the bad end %s is good%s: the problem does not show in it"),
				    "\x01", s->reason ? " (\x02)" : "");
	/* The id and the reason go in escaped, at their marks. */
	for (why = what; *why; why++) {
		if (*why == '\x01')
			esc(out, b->index->builds[s->index].id);
		else if (*why == '\x02')
			esc(out, s->reason ? s->reason : "");
		else
			ab_buf_append(out, why, 1);
	}
	free(what);
}

/* The line that says why the ends failed the check, or NULL. */
static char *bounds_problems(const ab_bisect *b, esc_fn esc)
{
	ab_bounds bd;
	ab_buf out = {0};

	if (!ab_bisect_bounds(b, &bd) || !ab_bisect_bounds_failed(b))
		return NULL;
	ab_buf_puts(&out, "");
	if (bd.old_step && !bd.old_ok)
		bound_problem(&out, b, bd.old_step, 1, esc);
	if (bd.new_step && !bd.new_ok)
		bound_problem(&out, b, bd.new_step, 0, esc);
	return ab_buf_steal(&out);
}

/* "good", "bad", "skip", "unavailable", or null when not tested. */
static json_t *bound_json(const ab_step *s)
{
	if (!s)
		return json_null();
	return json_string(s->by == AB_BY_UNAVAILABLE ? "unavailable" : ab_term_name(s->verdict));
}

/* The report's "bounds" object, only when the check ran. */
static void json_bounds(json_t *o, const ab_bisect *b)
{
	ab_bounds bd;
	char *why;
	json_t *j;

	if (!ab_bisect_bounds(b, &bd))
		return;
	j = json_pack("{s:b, s:b, s:o, s:o}", "checked", bd.old_step && bd.new_step,
		      "ok", !ab_bisect_bounds_failed(b), "old", bound_json(bd.old_step),
		      "new", bound_json(bd.new_step));
	why = bounds_problems(b, esc_none);
	if (why)
		json_object_set_new(j, "message", json_string(why));
	free(why);
	json_object_set_new(o, "bounds", j);
}

/* The check in one line (escaped by esc), or nothing when it did not
 * run; a failure only with failures (the text report says it first). */
static void bounds_line(ab_buf *out, const ab_bisect *b, esc_fn esc, int failures)
{
	ab_bounds bd;
	char *why;

	if (!ab_bisect_bounds(b, &bd))
		return;
	why = bounds_problems(b, esc);
	if (why && !failures) {
		free(why);
		return;
	}
	if (why) {
		ab_buf_printf(out, _("The ends were checked first (--check-bounds): %s.\n"), why);
	} else if (bd.old_step && bd.new_step) {
		ab_buf_puts(out, _("The ends were checked first (--check-bounds): "));
		esc(out, b->index->builds[bd.old_step->index].id);
		ab_buf_printf(out, _(" is %s, "), ab_term_label(ab_bisect_old_term(b)));
		esc(out, b->index->builds[bd.new_step->index].id);
		ab_buf_printf(out, _(" is %s.\n"), ab_term_label(ab_bisect_new_term(b)));
	} else {
		ab_buf_puts(out, _("The check of the ends (--check-bounds) was not finished.\n"));
	}
	free(why);
}

int ab_report_exit_status(const ab_bisect *b)
{
	switch (b->result) {
	case AB_RESULT_FOUND:
		return AB_EXIT_FOUND;
	case AB_RESULT_INCONCLUSIVE:
		return AB_EXIT_INCONCLUSIVE;
	default:
		return AB_EXIT_ABORTED;
	}
}

json_t *ab_report_json(const ab_bisect *b)
{
	size_t lo = ab_engine_last_old(b->engine), hi = ab_engine_first_new(b->engine), i;
	json_t *o = json_object(), *cands = json_array(), *steps = json_array();
	char *cmp = compare_url(b, lo, hi);
	int trust = speaks_of_trust(b);

	json_object_set_new(o, "result", json_string(result_name(b->result)));
	json_object_set_new(o, "terms", json_pack("{s:s, s:s}", "old", ab_bisect_old_term(b),
						   "new", ab_bisect_new_term(b)));
	json_object_set_new(o, "last_old", build_ref(b, lo));
	json_object_set_new(o, "first_new",
			    b->result == AB_RESULT_FOUND ? build_ref(b, hi) : json_null());
	for (i = lo + 1; i <= hi; i++)
		json_array_append_new(cands, json_string(b->index->builds[i].id));
	json_object_set_new(o, "candidates", cands);
	json_object_set_new(o, "compare_url", str_or_null(cmp));
	for (i = 0; i < b->nsteps; i++) {
		const ab_step *s = &b->steps[i];
		json_t *js = json_pack("{s:s, s:I, s:s, s:s, s:f}",
				       "id", b->index->builds[s->index].id,
				       "index", (json_int_t)s->index,
				       "verdict", ab_term_name(s->verdict),
				       "by", ab_by_name(s->by),
				       "seconds", ab_round_ms(s->seconds));
		if (s->wait >= 0)
			json_object_set_new(js, "wait_seconds", json_real(ab_round_ms(s->wait)));
		if (s->reason)
			json_object_set_new(js, "reason", json_string(s->reason));
		if (s->bound)
			json_object_set_new(js, "bound",
					    json_string(s->index == b->old_end ? "old" : "new"));
		if (s->links)
			json_object_set_new(js, "links", links_json(s->links));
		if (trust && b->index->builds[s->index].nartifacts)
			json_object_set_new(js, "trust",
					    json_string(ab_trust_name(b->index->builds[s->index].trust)));
		json_array_append_new(steps, js);
	}
	json_object_set_new(o, "steps", steps);
	if (b->flaky)
		json_object_set_new(o, "flaky", ab_report_flaky_json(b));
	if (trust && downloaded_any(b)) {
		size_t unverified;
		ab_trust t = weakest_trust(b, &unverified);
		json_t *ids = json_array();

		for (i = 0; i < b->nsteps; i++) {
			const ab_build *bd = &b->index->builds[b->steps[i].index];
			size_t j;

			for (j = 0; j < i && b->steps[j].index != b->steps[i].index; j++)
				;
			if (j == i && bd->nartifacts && bd->trust == AB_TRUST_UNVERIFIED)
				json_array_append_new(ids, json_string(bd->id));
		}
		json_object_set_new(o, "trust", json_pack("{s:s, s:o}", "level", ab_trust_name(t),
							  "unverified", ids));
	}
	json_bounds(o, b);
	json_object_set_new(o, "tested", json_integer(b->tested));
	json_object_set_new(o, "builds", json_integer((json_int_t)b->index->nbuilds));
	if (ab_bisect_waited(b) >= 0)
		json_object_set_new(o, "wait_seconds", json_real(ab_round_ms(ab_bisect_waited(b))));
	json_object_set_new(o, "downloaded_bytes",
			    json_integer((json_int_t)__atomic_load_n(&b->downloaded, __ATOMIC_RELAXED)));
	free(cmp);
	return o;
}

/* "N commits lie between them" when the index gives both positions. */
static void commits_between(ab_buf *out, const ab_build *old, const ab_build *nw)
{
	long long n;

	if (old->position < 0 || nw->position < 0 || nw->position <= old->position)
		return;
	n = nw->position - old->position;
	ab_buf_printf(out, ngettext("%lld commit lies between them (by the index's positions).\n",
				    "%lld commits lie between them (by the index's positions).\n", (unsigned long)n),
		      n);
}

/* "  label: value" for the text report, the value as the terminal
 * may show it; nothing when value is NULL. */
static void text_field(ab_buf *out, const char *label, const char *value)
{
	if (!value)
		return;
	ab_buf_printf(out, "  %-14s ", label);
	ab_esc_term_to(out, value, 0);
	ab_buf_puts(out, "\n");
}

/* An index string in the text report, escaped for the terminal. */
static void text_str(ab_buf *out, const char *s)
{
	ab_esc_term_to(out, s, 0);
}

static void describe_build(ab_buf *out, const char *label, const ab_build *bd)
{
	char *rel = ab_kernel_release(bd);

	ab_buf_printf(out, "%-16s ", label);
	text_str(out, bd->id);
	ab_buf_puts(out, "\n");
	text_field(out, _("version:"), bd->version);
	text_field(out, _("commit:"), bd->commit);
	text_field(out, _("date:"), bd->date);
	text_field(out, _("uname -r:"), rel);
	free(rel);
}

/* The text report's lines on single steps: how far the builds were
 * checked, the unverified ones, --check-bounds, the unavailable and
 * failed ones with why, and what each probe linked to. */
static void text_step_notes(ab_buf *out, const ab_bisect *b)
{
	size_t i;

	{
		size_t unverified;
		const char *t = ab_report_trust_sentence(b, &unverified);

		if (t)
			ab_buf_printf(out, "%s\n", t);
		for (i = 0; unverified && i < b->nsteps; i++) {
			const ab_build *bd = &b->index->builds[b->steps[i].index];

			if (bd->nartifacts && bd->trust == AB_TRUST_UNVERIFIED) {
				char *id = ab_esc_term(bd->id);

				ab_buf_printf(out, _("  unverified: %s\n"), id);
				free(id);
			}
		}
	}
	bounds_line(out, b, esc_term, 0);
	for (i = 0; i < b->nsteps; i++) {
		const ab_step *s = &b->steps[i];
		if (s->by == AB_BY_UNAVAILABLE) {
			char *id = ab_esc_term(b->index->builds[s->index].id);
			char *why = ab_esc_term(s->reason ? s->reason : "");

			ab_buf_printf(out, _("  unavailable: %s (%s)\n"), id, why);
			free(id);
			free(why);
		} else if (s->by == AB_BY_FAILED_BUILD && s->reason && *s->reason) {
			/* the farm's word on it: a mistyped --flavour shows here */
			char *id = ab_esc_term(b->index->builds[s->index].id);
			char *why = ab_esc_term(s->reason);

			ab_buf_printf(out, _("  failed build: %s (%s)\n"), id, why);
			free(id);
			free(why);
		}
	}
	for (i = 0; i < b->nsteps; i++) {
		const ab_step *s = &b->steps[i];

		if (s->links) {
			link_out lo = { out, esc_term, 0 };
			char *id = ab_esc_term(b->index->builds[s->index].id);

			ab_buf_printf(out, _("  probe of %s:"), id);
			each_link(s->links, put_link, &lo);
			ab_buf_puts(out, "\n");
			free(id);
		}
	}
}

/* The text report's first lines: the answer, or what is left. */
static void text_headline(ab_buf *out, const ab_bisect *b, size_t lo, size_t hi)
{
	const ab_build *nw = &b->index->builds[hi];
	int fix = b->opt.find_fix;
	size_t i;

	switch (b->result) {
	case AB_RESULT_FOUND:
		ab_buf_puts(out, fix ? _("The fix is in build ") : _("The first bad build is "));
		text_str(out, nw->id);
		ab_buf_puts(out, ".\n\n");
		break;
	case AB_RESULT_INCONCLUSIVE:
		if (ab_bisect_bounds_failed(b)) {
			ab_buf_puts(out, _("Inconclusive: the range's ends are not what they were given as.\n"));
			bounds_line(out, b, esc_term, 1);
			ab_buf_puts(out, "\n");
			break;
		}
		ab_buf_printf(out, fix ? _("Inconclusive: the fix is in one of %zu builds:")
				       : _("Inconclusive: the first bad build is one of %zu builds:"),
			      hi - lo);
		for (i = lo + 1; i <= hi && i <= lo + 20; i++) {
			ab_buf_puts(out, " ");
			text_str(out, b->index->builds[i].id);
		}
		if (hi - lo > 20)
			ab_buf_puts(out, " ...");
		ab_buf_puts(out, "\n");
		if (b->flaky)
			ab_buf_puts(out, _("The runs so far do not single one out at the confidence asked.\n\n"));
		else
			ab_buf_puts(out, _("The builds between them could not be tested (skipped, failed or unavailable).\n\n"));
		break;
	default: {
		char *from, *to;

		if (b->flaky) {	/* no build is ruled out: no range to give */
			ab_buf_puts(out, _("Stopped before one build held the probability that ends the run.\n\n"));
			break;
		}
		from = ab_esc_term(b->index->builds[lo + 1].id);
		to = ab_esc_term(nw->id);

		ab_buf_printf(out, _("Stopped with %zu candidate builds left, from %s to %s.\n\n"),
			      hi - lo, from, to);
		free(from);
		free(to);
		break;
	}
	}
}

/* The text report's counts: builds tested, skipped and unavailable,
 * bytes downloaded, time waited. */
static void text_counts(ab_buf *out, const ab_bisect *b)
{
	unsigned probes = 0, unavailable = 0, skipped = 0;
	size_t i, distinct = ab_bisect_builds_tested(b);

	for (i = 0; i < b->nsteps; i++) {
		if (b->steps[i].by == AB_BY_UNAVAILABLE)
			unavailable++;
		else if (b->steps[i].verdict == AB_TERM_SKIP)
			skipped++;
		if (b->steps[i].by == AB_BY_PROBE || b->steps[i].by == AB_BY_TIMEOUT)
			probes++;
	}
	/* Split so that each number gets its own plural form. */
	if (distinct < b->tested) {
		ab_buf_printf(out, ngettext("%u run", "%u runs", b->tested), b->tested);
		ab_buf_printf(out, ngettext(" on %zu build (%u by the probe)",
					    " on %zu builds (%u by the probe)", distinct), distinct, probes);
	} else {
		ab_buf_printf(out, ngettext("%u build tested (%u by the probe)",
					    "%u builds tested (%u by the probe)", b->tested), b->tested,
			      probes);
	}
	ab_buf_printf(out, _(", %u skipped, %u unavailable, "), skipped, unavailable);
	ab_buf_printf(out, ngettext("out of %zu build in the index.\n",
				    "out of %zu builds in the index.\n", b->index->nbuilds),
		      b->index->nbuilds);
	{
		char size[32];

		ab_buf_printf(out, _("Downloaded %s of artifacts (prefetched builds included).\n"),
			      ab_format_size((long long)__atomic_load_n(&b->downloaded, __ATOMIC_RELAXED),
					     size));
	}
	if (ab_bisect_waited(b) >= 0)
		ab_buf_printf(out, _("Waited %.1f s in all for builds to be downloaded, checked and unpacked.\n"),
			      ab_bisect_waited(b));
}

/* The text report's way on with git between old and nw, when both
 * name commits. Not when an end failed --check-bounds: the change is
 * not between them. */
static void text_git_hint(ab_buf *out, const ab_bisect *b, const ab_build *old,
			  const ab_build *nw)
{
	if (git_commands(old, nw) && b->result != AB_RESULT_ABORTED && !ab_bisect_bounds_failed(b)) {
		ab_buf_puts(out, "\n");
		if (b->index->vcs_url) {
			char *url = ab_esc_term(b->index->vcs_url);

			ab_buf_printf(out, _("If more than one commit lies between these builds, narrow it down with\nlocal builds in a clone of %s:\n"),
				      url);
			free(url);
		} else {
			ab_buf_puts(out, _("If more than one commit lies between these builds, narrow it down with\nlocal builds in a clone of the source:\n"));
		}
		put_git_commands(out, "  ", old, nw, b->opt.find_fix);
	}
}

char *ab_report_text(const ab_bisect *b)
{
	size_t lo = ab_engine_last_old(b->engine), hi = ab_engine_first_new(b->engine);
	const ab_build *old = &b->index->builds[lo], *nw = &b->index->builds[hi];
	char *cmp = compare_url(b, lo, hi);
	int fix = b->opt.find_fix;
	ab_buf out = {0};

	text_headline(&out, b, lo, hi);
	if (b->flaky) {
		ab_report_flaky_text(&out, b, esc_term);
		ab_buf_puts(&out, "\n");
	}
	if (ab_bisect_bounds_failed(b)) {
		/* an end that is not what it was given as: no "last good" */
		describe_build(&out, fix ? _("Given as bad:") : _("Given as good:"), old);
		describe_build(&out, fix ? _("Given as good:") : _("Given as bad:"), nw);
	} else {
		describe_build(&out, fix ? _("Last bad build:") : _("Last good build:"), old);
		describe_build(&out, b->result == AB_RESULT_FOUND
				     ? (fix ? _("First good build:") : _("First bad build:"))
				     : (fix ? _("Known good build:") : _("Known bad build:")), nw);
	}
	if (cmp) {
		ab_buf_printf(&out, "\n%s ", _("Changes between them:"));
		text_str(&out, cmp);
		ab_buf_puts(&out, "\n");
	}
	commits_between(&out, old, nw);
	ab_buf_printf(&out, "\n");
	text_counts(&out, b);
	text_step_notes(&out, b);
	text_git_hint(&out, b, old, nw);
	free(cmp);
	return ab_buf_steal(&out);
}

/* A table cell: escaped Markdown text (a '|' or a line break would
 * also break the row). */
static void md_cell(ab_buf *out, const char *s)
{
	ab_buf_puts(out, " ");
	if (!s || !*s)
		ab_buf_puts(out, "-");
	else
		ab_esc_md_to(out, s);
	ab_buf_puts(out, " |");
}

/* s as Markdown text, in a new string; NULL stays NULL. */
static char *md(const char *s)
{
	ab_buf t = {0};

	if (!s)
		return NULL;
	ab_buf_puts(&t, "");
	ab_esc_md_to(&t, s);
	return ab_buf_steal(&t);
}

static void md_build_row(ab_buf *out, const char *label, const ab_build *bd)
{
	ab_buf_puts(out, "|");
	md_cell(out, label);
	md_cell(out, bd->id);
	md_cell(out, bd->version);
	md_cell(out, bd->commit);
	md_cell(out, bd->date);
	ab_buf_puts(out, "\n");
}

/* The kernel's regression tracker reads "#regzbot introduced:" lines. */
static int is_linux(const ab_index *idx)
{
	const char *fields[] = { idx->project, idx->name };
	size_t i;

	for (i = 0; i < 2; i++)
		if (fields[i] && (strcasestr(fields[i], "linux") || strcasestr(fields[i], "kernel")))
			return 1;
	return 0;
}

/* s for inside `...`, where Markdown reads nothing but a backtick: those
 * become ', controls as ab_esc_term shows them. */
static char *md_code(const char *s)
{
	char *t = ab_esc_term(s), *p;

	for (p = t; *p; p++)
		if (*p == '`')
			*p = '\'';
	return t;
}

/* The title line: what was bisected and where the change is. */
static void md_title(ab_buf *out, const ab_bisect *b, size_t lo, size_t hi, int fix, int found)
{
	char *what = md(b->index->name ? b->index->name : b->index->label);
	char *id = md(b->index->builds[hi].id);

	if (found)
		ab_buf_printf(out, fix ? _("## %s: fixed in build %s\n\n") : _("## %s: regression in build %s\n\n"),
			      what, id);
	else
		ab_buf_printf(out, fix ? _("## %s: fixed in one of %zu builds\n\n")
				       : _("## %s: regression in one of %zu builds\n\n"),
			      what, hi - lo);
	free(what);
	free(id);
}

const char *ab_report_candidates_words(const ab_bisect *b)
{
	if (b->result != AB_RESULT_INCONCLUSIVE)
		return _("Candidates left when it stopped:");
	return b->flaky ? _("Candidates (the runs so far do not single one out):")
			: _("Candidates (they could not be told apart):");
}

/* The kernels' releases, the candidates, the compare link, the count of
 * commits and the git commands: what comes between the table and the steps. */
static void md_middle(ab_buf *out, const ab_bisect *b, size_t lo, size_t hi, int fix, int found)
{
	const ab_build *old = &b->index->builds[lo], *nw = &b->index->builds[hi];
	char *ro = ab_kernel_release(old), *rn = ab_kernel_release(nw), *cmp = compare_url(b, lo, hi);
	size_t i;

	if (ro || rn) {
		char *eo = md_code(ro ? ro : "?"), *en = md_code(rn ? rn : "?");

		ab_buf_printf(out, _("\nKernels (uname -r): %s `%s`, %s `%s`.\n"),
			      fix ? _("last bad") : _("last good"), eo,
			      found ? (fix ? _("first good") : _("first bad"))
				    : (fix ? _("known good") : _("known bad")), en);
		free(eo);
		free(en);
	}
	free(ro);
	free(rn);
	if (!found) {
		ab_buf_puts(out, "\n");
		ab_buf_puts(out, ab_report_candidates_words(b));
		for (i = lo + 1; i <= hi && i <= lo + 50; i++) {
			ab_buf_puts(out, " ");
			ab_esc_md_to(out, b->index->builds[i].id);
		}
		if (hi - lo > 50)
			ab_buf_puts(out, " ...");
		ab_buf_puts(out, "\n");
	}
	if (cmp) {
		ab_buf_printf(out, "\n%s ", _("Changes between them:"));
		ab_esc_md_url_to(out, cmp);
		ab_buf_puts(out, "\n");
	}
	free(cmp);
	if (old->position >= 0 && nw->position > old->position) {
		ab_buf_puts(out, "\n");
		commits_between(out, old, nw);
	}
	if (git_commands(old, nw) && !ab_bisect_bounds_failed(b)) {
		ab_buf_puts(out, "\n");
		if (b->index->vcs_url) {
			char *url = md(b->index->vcs_url);

			ab_buf_printf(out, _("To narrow it down to one commit with local builds, in a clone of %s:\n\n"),
				      url);
			free(url);
		} else {
			ab_buf_puts(out, _("To narrow it down to one commit with local builds, in a clone of the source:\n\n"));
		}
		put_git_commands(out, "    ", old, nw, fix);
	}
}

char *ab_report_markdown(const ab_bisect *b)
{
	size_t lo = ab_engine_last_old(b->engine), hi = ab_engine_first_new(b->engine), i;
	const ab_build *old = &b->index->builds[lo], *nw = &b->index->builds[hi];
	int fix = b->opt.find_fix, found = b->result == AB_RESULT_FOUND;
	ab_buf out = {0};

	md_title(&out, b, lo, hi, fix, found);
	{
		ab_buf line = {0};

		bounds_line(&line, b, ab_esc_md_to, 1);
		if (line.len) {
			ab_buf_append(&out, line.data, line.len);
			ab_buf_puts(&out, "\n");
		}
		ab_buf_free(&line);
	}
	ab_buf_printf(&out, "| | %s | %s | %s | %s |\n|---|---|---|---|---|\n", _("build"),
		      _("version"), _("commit"), _("date"));
	md_build_row(&out, fix ? _("last bad") : _("last good"), old);
	md_build_row(&out, found ? (fix ? _("first good") : _("first bad"))
				 : (fix ? _("known good") : _("known bad")), nw);
	md_middle(&out, b, lo, hi, fix, found);
	if (b->flaky) {
		ab_buf_puts(&out, "\n");
		ab_report_flaky_markdown(&out, b);
	}
	ab_buf_printf(&out, "\n### %s\n\n| # | %s | %s | %s |\n|---|---|---|---|\n", _("Steps"),
		      _("build"), _("verdict"), _("by"));
	for (i = 0; i < b->nsteps; i++) {
		const ab_step *s = &b->steps[i];
		char num[32];

		snprintf(num, sizeof num, "%zu", i + 1);
		ab_buf_puts(&out, "|");
		md_cell(&out, num);
		if (b->index->builds[s->index].trust == AB_TRUST_UNVERIFIED &&
		    b->index->builds[s->index].nartifacts) {
			char *id = ab_xasprintf(_("%s (unverified)"), b->index->builds[s->index].id);
			md_cell(&out, id);
			free(id);
		} else {
			md_cell(&out, b->index->builds[s->index].id);
		}
		md_cell(&out, ab_term_name(s->verdict));
		if (s->reason) {
			char *by = ab_xasprintf("%s: %s", ab_by_name(s->by), s->reason);
			md_cell(&out, by);
			free(by);
		} else {
			md_cell(&out, ab_by_name(s->by));
		}
		if (s->links) {
			link_out lk = { &out, ab_esc_md_to, 1 };

			out.len--;	/* inside the cell: before its closing '|' */
			each_link(s->links, put_link, &lk);
			ab_buf_puts(&out, " |");
		}
		ab_buf_puts(&out, "\n");
	}
	ab_buf_printf(&out, "\n");
	{
		char *src = md(b->index->source_url);

		size_t distinct = ab_bisect_builds_tested(b);

		if (distinct < b->tested)
			ab_buf_printf(&out, _("Found with artbisect %s over %s (%zu builds, %zu tested in %u runs)%s.\n"),
				      PACKAGE_VERSION, src, b->index->nbuilds, distinct, b->tested,
				      fix ? _(", looking for the fix") : "");
		else
			ab_buf_printf(&out, _("Found with artbisect %s over %s (%zu builds, %u tested)%s.\n"),
				      PACKAGE_VERSION, src, b->index->nbuilds, b->tested,
				      fix ? _(", looking for the fix") : "");
		free(src);
	}
	{
		size_t unverified;
		const char *t = ab_report_trust_sentence(b, &unverified);

		if (t)
			ab_buf_printf(&out, "\n%s\n", t);
	}
	/* Read by a bot at the start of a line: object names or escaped ids. */
	if (found && !fix && is_linux(b->index)) {
		char *o = md(old->commit ? old->commit : old->id), *n = md(nw->commit ? nw->commit : nw->id);

		ab_buf_printf(&out, "\n#regzbot introduced: %s..%s\n", o, n);
		free(o);
		free(n);
	}
	return ab_buf_steal(&out);
}
