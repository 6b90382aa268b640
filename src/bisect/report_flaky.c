/* report_flaky.c - see report_flaky.h: the flaky model's answer in the
 * reports. */
#include "config.h"
#include <stdlib.h>
#include "base/escape.h"
#include "base/i18n.h"
#include "bisect/report_flaky.h"
#include "engine/flaky.h"

/* A build's runs: the model also counts the verdicts the range was
 * given with (a pass on the old end, a failure on the new), which are
 * no runs. */
void ab_report_flaky_runs(const ab_bisect *b, size_t i, unsigned *f, unsigned *p)
{
	ab_flaky_counts(b->flaky, i, f, p);
	if (i == b->old_end && *p > 0)
		(*p)--;
	if (i == b->new_end && *f > 0)
		(*f)--;
}

/* The builds with runs, in index order, into *out (freed by the caller);
 * how many. */
static size_t builds_with_runs(const ab_bisect *b, size_t **out)
{
	size_t i, n = 0;

	*out = ab_xcalloc(b->index->nbuilds, sizeof **out);
	for (i = 0; i < b->index->nbuilds; i++) {
		unsigned f, p;

		ab_report_flaky_runs(b, i, &f, &p);
		if (f + p)
			(*out)[n++] = i;
	}
	return n;
}

/* The heading of the most likely builds' column. */
static const char *most_likely_heading(const ab_bisect *b)
{
	return b->opt.find_fix ? _("most likely fix") : _("most likely first bad build");
}

json_t *ab_report_flaky_json(const ab_bisect *b)
{
	size_t ranked[5], *with_runs, n, i, lo, hi;
	double p[5], before, after, best = ab_flaky_best_range(b->flaky, &lo, &hi);
	json_t *o = json_object(), *r = json_array(), *c = json_array();

	n = ab_flaky_ranked(b->flaky, ranked, p, 5);
	for (i = 0; i < n; i++)
		json_array_append_new(r, json_pack("{s:s, s:f}", "id", b->index->builds[ranked[i]].id,
						   "probability", p[i]));
	n = builds_with_runs(b, &with_runs);
	for (i = 0; i < n; i++) {
		unsigned f, ps;

		ab_report_flaky_runs(b, with_runs[i], &f, &ps);
		json_array_append_new(c, json_pack("{s:s, s:I, s:I}", "id", b->index->builds[with_runs[i]].id,
						   "fails", (json_int_t)f, "passes", (json_int_t)ps));
	}
	free(with_runs);
	ab_flaky_rates(b->flaky, &before, &after);
	json_object_set_new(o, "culprit", json_string(b->index->builds[hi].id));
	json_object_set_new(o, "probability", json_real(best));
	json_object_set_new(o, "confidence", json_real(b->opt.confidence > 0 ? b->opt.confidence : 0.95));
	json_object_set_new(o, "stop_level", json_real(ab_flaky_stop_mass(b->flaky)));
	json_object_set_new(o, "switched", json_boolean(b->switched));
	json_object_set_new(o, "ranked", r);
	json_object_set_new(o, "fail_rate_before", json_real(before));
	json_object_set_new(o, "fail_rate_after", json_real(after));
	json_object_set_new(o, "runs", c);
	json_object_set_new(o, "probes", json_integer(ab_flaky_probes(b->flaky)));
	return o;
}

/* The builds with runs and their counts, in index order, a few to a
 * line; at most RUNS_SHOWN of them, those nearest culprit hi. */
#define RUNS_SHOWN 40
/* The window [*from, *to) of the n builds with_runs[] that is shown. */
static void runs_window(const size_t *with_runs, size_t n, size_t hi, size_t *from, size_t *to)
{
	*from = 0;
	while (*from + RUNS_SHOWN < n && with_runs[*from + RUNS_SHOWN / 2] < hi)
		(*from)++;
	*to = *from + RUNS_SHOWN < n ? *from + RUNS_SHOWN : n;
}

static void runs_text(ab_buf *out, const ab_bisect *b, size_t hi, ab_esc_fn esc)
{
	size_t *with_runs, n = builds_with_runs(b, &with_runs), from, to, i;

	runs_window(with_runs, n, hi, &from, &to);
	if (n == 0) {	/* stopped before the first run */
		free(with_runs);
		return;
	}
	ab_buf_puts(out, _("Runs (failed/passed):"));
	if (from > 0)
		ab_buf_puts(out, " ...");
	for (i = from; i < to; i++) {
		unsigned f, ps;

		ab_report_flaky_runs(b, with_runs[i], &f, &ps);
		ab_buf_puts(out, (i - from) % 6 == 0 ? "\n  " : "  ");
		esc(out, b->index->builds[with_runs[i]].id);
		ab_buf_printf(out, " %u/%u", f, ps);
	}
	ab_buf_puts(out, to < n ? "  ...\n" : "\n");
	free(with_runs);
}

void ab_report_flaky_text(ab_buf *out, const ab_bisect *b, ab_esc_fn esc)
{
	size_t ranked[5], n, i, lo, hi;
	double p[5], before, after, best = ab_flaky_best_range(b->flaky, &lo, &hi);

	ab_buf_puts(out, b->switched ? _("Flaky verdicts (a build was judged both good and bad): the answer is weighed by probability.\n")
				     : _("Flaky mode (--flaky): the answer is weighed by probability.\n"));
	ab_buf_puts(out, b->opt.find_fix ? _("Most likely fix: ") : _("Most likely first bad build: "));
	esc(out, b->index->builds[hi].id);
	ab_buf_printf(out, _(" (probability %.3f"), best);
	n = ab_flaky_ranked(b->flaky, ranked, p, 5);
	for (i = 0; i < n; i++) {
		/* What would print as 0.000 says nothing. */
		if (ranked[i] == hi || p[i] < 0.0005)
			continue;
		ab_buf_puts(out, _("; then "));
		esc(out, b->index->builds[ranked[i]].id);
		ab_buf_printf(out, " %.3f", p[i]);
	}
	ab_buf_puts(out, ").\n");
	ab_flaky_rates(b->flaky, &before, &after);
	ab_buf_printf(out, _("Estimated failure rate: %.2f before it, %.2f from it on (%u runs).\n"),
		      before, after, ab_flaky_probes(b->flaky));
	runs_text(out, b, hi, esc);
}

void ab_report_flaky_markdown(ab_buf *out, const ab_bisect *b)
{
	size_t ranked[5], *with_runs, n, i, lo, hi, from, to;
	double p[5], before, after;

	ab_flaky_best_range(b->flaky, &lo, &hi);
	ab_buf_printf(out, "### %s\n\n", _("Flaky verdicts"));
	ab_buf_puts(out, b->switched ? _("Flaky verdicts (a build was judged both good and bad): the answer is weighed by probability.\n")
				     : _("Flaky mode (--flaky): the answer is weighed by probability.\n"));
	ab_buf_printf(out, "\n| %s | %s |\n|---|---|\n", most_likely_heading(b), _("probability"));
	n = ab_flaky_ranked(b->flaky, ranked, p, 5);
	for (i = 0; i < n; i++) {
		if (i > 0 && p[i] < 0.0005)
			continue;
		ab_buf_puts(out, "| ");
		ab_esc_md_to(out, b->index->builds[ranked[i]].id);
		ab_buf_printf(out, " | %.3f |\n", p[i]);
	}
	ab_flaky_rates(b->flaky, &before, &after);
	ab_buf_puts(out, "\n");
	ab_buf_printf(out, _("Estimated failure rate: %.2f before it, %.2f from it on (%u runs).\n"),
		      before, after, ab_flaky_probes(b->flaky));
	n = builds_with_runs(b, &with_runs);
	runs_window(with_runs, n, hi, &from, &to);
	if (n)
		ab_buf_printf(out, "\n| %s | %s | %s |\n|---|---|---|\n", _("build"), _("failed"), _("passed"));
	if (from > 0)
		ab_buf_puts(out, "| ... | | |\n");
	for (i = from; i < to; i++) {
		unsigned f, ps;

		ab_report_flaky_runs(b, with_runs[i], &f, &ps);
		ab_buf_puts(out, "| ");
		ab_esc_md_to(out, b->index->builds[with_runs[i]].id);
		ab_buf_printf(out, " | %u | %u |\n", f, ps);
	}
	if (to < n)
		ab_buf_puts(out, "| ... | | |\n");
	free(with_runs);
}

void ab_report_flaky_html(ab_buf *out, const ab_bisect *b)
{
	size_t ranked[5], *with_runs, n, i, lo, hi;
	double p[5], before, after;

	ab_flaky_best_range(b->flaky, &lo, &hi);
	ab_buf_printf(out, "<h2 id=\"flaky\">%s</h2>\n<p>", _("Flaky verdicts"));
	ab_buf_puts(out, b->switched ? _("Flaky verdicts (a build was judged both good and bad): the answer is weighed by probability.\n")
				     : _("Flaky mode (--flaky): the answer is weighed by probability.\n"));
	ab_buf_printf(out, "</p>\n<div class=\"wide\"><table id=\"ranked\">\n<tr><th>%s</th><th>%s</th></tr>\n",
		      most_likely_heading(b), _("probability"));
	n = ab_flaky_ranked(b->flaky, ranked, p, 5);
	for (i = 0; i < n; i++) {
		/* As in the text: what would show as 0.000 says nothing. */
		if (i > 0 && p[i] < 0.0005)
			continue;
		ab_buf_printf(out, "<tr%s><td><code>", ranked[i] == hi ? " class=\"culprit\"" : "");
		ab_esc_html_to(out, b->index->builds[ranked[i]].id);
		ab_buf_printf(out, "</code></td><td>%.3f</td></tr>\n", p[i]);
	}
	ab_buf_puts(out, "</table></div>\n<p id=\"rates\">");
	ab_flaky_rates(b->flaky, &before, &after);
	ab_buf_printf(out, _("Estimated failure rate: %.2f before it, %.2f from it on (%u runs).\n"),
		      before, after, ab_flaky_probes(b->flaky));
	ab_buf_puts(out, "</p>\n");
	n = builds_with_runs(b, &with_runs);
	if (n == 0) {	/* stopped before the first run */
		free(with_runs);
		return;
	}
	ab_buf_printf(out, "<div class=\"wide\"><table id=\"runs\">\n<tr><th>%s</th><th>%s</th><th>%s</th></tr>\n",
		      _("build"), _("failed"), _("passed"));
	for (i = 0; i < n; i++) {
		unsigned f, ps;

		ab_report_flaky_runs(b, with_runs[i], &f, &ps);
		ab_buf_printf(out, "<tr%s data-fails=\"%u\" data-passes=\"%u\"><td><code>",
			      with_runs[i] == hi ? " class=\"culprit\"" : "", f, ps);
		ab_esc_html_to(out, b->index->builds[with_runs[i]].id);
		ab_buf_printf(out, "</code></td><td>%u</td><td>%u</td></tr>\n", f, ps);
	}
	ab_buf_puts(out, "</table></div>\n");
	free(with_runs);
}
