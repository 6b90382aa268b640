/* report.c - see report.h. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "i18n.h"
#include "report.h"
#include "sysinstall.h"
#include "util.h"

static const char *result_name(ab_result r)
{
	switch (r) {
	case AB_RESULT_FOUND: return "found";
	case AB_RESULT_INCONCLUSIVE: return "inconclusive";
	case AB_RESULT_ABORTED: return "aborted";
	default: return "running";
	}
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
	char *cmp = ab_index_compare_url(b->index, lo, hi);

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
		json_array_append_new(steps, js);
	}
	json_object_set_new(o, "steps", steps);
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

static void describe_build(ab_buf *out, const char *label, const ab_build *bd)
{
	ab_buf_printf(out, "%-16s %s\n", label, bd->id);
	if (bd->version)
		ab_buf_printf(out, "  %-14s %s\n", _("version:"), bd->version);
	if (bd->commit)
		ab_buf_printf(out, "  %-14s %s\n", _("commit:"), bd->commit);
	if (bd->date)
		ab_buf_printf(out, "  %-14s %s\n", _("date:"), bd->date);
	{
		char *rel = ab_kernel_release(bd);
		if (rel)
			ab_buf_printf(out, "  %-14s %s\n", _("uname -r:"), rel);
		free(rel);
	}
}

char *ab_report_text(const ab_bisect *b)
{
	size_t lo = ab_engine_last_old(b->engine), hi = ab_engine_first_new(b->engine), i;
	const ab_build *old = &b->index->builds[lo], *nw = &b->index->builds[hi];
	char *cmp = ab_index_compare_url(b->index, lo, hi);
	int fix = b->opt.find_fix;
	ab_buf out = {0};
	unsigned probes = 0, unavailable = 0, skipped = 0;

	for (i = 0; i < b->nsteps; i++) {
		if (b->steps[i].by == AB_BY_UNAVAILABLE)
			unavailable++;
		else if (b->steps[i].verdict == AB_TERM_SKIP)
			skipped++;
		if (b->steps[i].by == AB_BY_PROBE || b->steps[i].by == AB_BY_TIMEOUT)
			probes++;
	}
	switch (b->result) {
	case AB_RESULT_FOUND:
		ab_buf_puts(&out, fix ? _("The fix is in build ") : _("The first bad build is "));
		ab_buf_printf(&out, "%s.\n\n", nw->id);
		break;
	case AB_RESULT_INCONCLUSIVE:
		ab_buf_printf(&out, fix ? _("Inconclusive: the fix is in one of %zu builds:")
				       : _("Inconclusive: the first bad build is one of %zu builds:"),
			      hi - lo);
		for (i = lo + 1; i <= hi && i <= lo + 20; i++)
			ab_buf_printf(&out, " %s", b->index->builds[i].id);
		if (hi - lo > 20)
			ab_buf_puts(&out, " ...");
		ab_buf_puts(&out, "\n");
		ab_buf_puts(&out, _("The builds between them could not be tested (skipped, failed or unavailable).\n\n"));
		break;
	default:
		ab_buf_printf(&out, _("Stopped with %zu candidate builds left, from %s to %s.\n\n"),
			      hi - lo, b->index->builds[lo + 1].id, nw->id);
		break;
	}
	describe_build(&out, fix ? _("Last bad build:") : _("Last good build:"), old);
	describe_build(&out, b->result == AB_RESULT_FOUND
			     ? (fix ? _("First good build:") : _("First bad build:"))
			     : (fix ? _("Known good build:") : _("Known bad build:")), nw);
	if (cmp)
		ab_buf_printf(&out, "\n%s %s\n", _("Changes between them:"), cmp);
	commits_between(&out, old, nw);
	ab_buf_printf(&out, "\n");
	/* Split so that each number gets its own plural form. */
	ab_buf_printf(&out, ngettext("%u build tested (%u by the probe)", "%u builds tested (%u by the probe)",
				     b->tested), b->tested, probes);
	ab_buf_printf(&out, _(", %u skipped, %u unavailable, "), skipped, unavailable);
	ab_buf_printf(&out, ngettext("out of %zu build in the index.\n",
				     "out of %zu builds in the index.\n", b->index->nbuilds),
		      b->index->nbuilds);
	{
		char size[32];

		ab_buf_printf(&out, _("Downloaded %s of artifacts (prefetched builds included).\n"),
			      ab_format_size((long long)__atomic_load_n(&b->downloaded, __ATOMIC_RELAXED),
					     size));
	}
	if (ab_bisect_waited(b) >= 0)
		ab_buf_printf(&out, _("Waited %.1f s in all for builds to be downloaded, checked and unpacked.\n"),
			      ab_bisect_waited(b));
	for (i = 0; i < b->nsteps; i++) {
		const ab_step *s = &b->steps[i];
		if (s->by == AB_BY_UNAVAILABLE)
			ab_buf_printf(&out, _("  unavailable: %s (%s)\n"),
				      b->index->builds[s->index].id, s->reason ? s->reason : "");
	}
	if (old->commit && nw->commit && b->result != AB_RESULT_ABORTED) {
		ab_buf_puts(&out, "\n");
		if (b->index->vcs_url)
			ab_buf_printf(&out, _("If more than one commit lies between these builds, narrow it down with\nlocal builds in a clone of %s:\n"),
				      b->index->vcs_url);
		else
			ab_buf_puts(&out, _("If more than one commit lies between these builds, narrow it down with\nlocal builds in a clone of the source:\n"));
		ab_buf_printf(&out, "  git log --oneline %s..%s\n", old->commit, nw->commit);
		if (fix)
			ab_buf_printf(&out, "  git bisect start --term-old=broken --term-new=fixed %s %s\n",
				      nw->commit, old->commit);
		else
			ab_buf_printf(&out, "  git bisect start %s %s\n", nw->commit, old->commit);
	}
	free(cmp);
	return ab_buf_steal(&out);
}

/* A table cell: '|' and line breaks would break the row. */
static void md_cell(ab_buf *out, const char *s)
{
	ab_buf_puts(out, " ");
	if (!s || !*s) {
		ab_buf_puts(out, "-");
	} else {
		for (; *s; s++) {
			if (*s == '|')
				ab_buf_puts(out, "\\|");
			else if (*s == '\n' || *s == '\r')
				ab_buf_puts(out, " ");
			else
				ab_buf_append(out, s, 1);
		}
	}
	ab_buf_puts(out, " |");
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

char *ab_report_markdown(const ab_bisect *b)
{
	size_t lo = ab_engine_last_old(b->engine), hi = ab_engine_first_new(b->engine), i;
	const ab_build *old = &b->index->builds[lo], *nw = &b->index->builds[hi];
	char *cmp = ab_index_compare_url(b->index, lo, hi);
	int fix = b->opt.find_fix, found = b->result == AB_RESULT_FOUND;
	const char *what = b->index->name ? b->index->name : b->index->label;
	ab_buf out = {0};

	if (found)
		ab_buf_printf(&out, fix ? _("## %s: fixed in build %s\n\n") : _("## %s: regression in build %s\n\n"),
			      what, nw->id);
	else
		ab_buf_printf(&out, fix ? _("## %s: fixed in one of %zu builds\n\n")
				       : _("## %s: regression in one of %zu builds\n\n"),
			      what, hi - lo);
	ab_buf_printf(&out, "| | %s | %s | %s | %s |\n|---|---|---|---|---|\n", _("build"),
		      _("version"), _("commit"), _("date"));
	md_build_row(&out, fix ? _("last bad") : _("last good"), old);
	md_build_row(&out, found ? (fix ? _("first good") : _("first bad"))
				 : (fix ? _("known good") : _("known bad")), nw);
	{
		char *ro = ab_kernel_release(old), *rn = ab_kernel_release(nw);

		if (ro || rn)
			ab_buf_printf(&out, _("\nKernels (uname -r): %s `%s`, %s `%s`.\n"),
				      fix ? _("last bad") : _("last good"), ro ? ro : "?",
				      found ? (fix ? _("first good") : _("first bad"))
					    : (fix ? _("known good") : _("known bad")),
				      rn ? rn : "?");
		free(ro);
		free(rn);
	}
	if (!found) {
		ab_buf_puts(&out, "\n");
		ab_buf_puts(&out, _("Candidates (they could not be told apart):"));
		for (i = lo + 1; i <= hi && i <= lo + 50; i++)
			ab_buf_printf(&out, " `%s`", b->index->builds[i].id);
		if (hi - lo > 50)
			ab_buf_puts(&out, " ...");
		ab_buf_puts(&out, "\n");
	}
	if (cmp)
		ab_buf_printf(&out, "\n%s %s\n", _("Changes between them:"), cmp);
	if (old->position >= 0 && nw->position > old->position) {
		ab_buf_puts(&out, "\n");
		commits_between(&out, old, nw);
	}
	if (old->commit && nw->commit) {
		ab_buf_puts(&out, "\n");
		if (b->index->vcs_url)
			ab_buf_printf(&out, _("To narrow it down to one commit with local builds, in a clone of %s:\n\n"),
				      b->index->vcs_url);
		else
			ab_buf_puts(&out, _("To narrow it down to one commit with local builds, in a clone of the source:\n\n"));
		ab_buf_printf(&out, "    git log --oneline %s..%s\n", old->commit, nw->commit);
		if (fix)
			ab_buf_printf(&out, "    git bisect start --term-old=broken --term-new=fixed %s %s\n",
				      nw->commit, old->commit);
		else
			ab_buf_printf(&out, "    git bisect start %s %s\n", nw->commit, old->commit);
	}
	ab_buf_printf(&out, "\n### %s\n\n| # | %s | %s | %s |\n|---|---|---|---|\n", _("Steps"),
		      _("build"), _("verdict"), _("by"));
	for (i = 0; i < b->nsteps; i++) {
		const ab_step *s = &b->steps[i];
		char num[32];

		snprintf(num, sizeof num, "%zu", i + 1);
		ab_buf_puts(&out, "|");
		md_cell(&out, num);
		md_cell(&out, b->index->builds[s->index].id);
		md_cell(&out, ab_term_name(s->verdict));
		if (s->reason) {
			char *by = ab_xasprintf("%s: %s", ab_by_name(s->by), s->reason);
			md_cell(&out, by);
			free(by);
		} else {
			md_cell(&out, ab_by_name(s->by));
		}
		ab_buf_puts(&out, "\n");
	}
	ab_buf_printf(&out, "\n");
	ab_buf_printf(&out, _("Found with artbisect %s over %s (%zu builds, %u tested)%s.\n"),
		      PACKAGE_VERSION, b->index->source_url, b->index->nbuilds, b->tested,
		      fix ? _(", looking for the fix") : "");
	if (found && !fix && is_linux(b->index))
		ab_buf_printf(&out, "\n#regzbot introduced: %s..%s\n",
			      old->commit ? old->commit : old->id, nw->commit ? nw->commit : nw->id);
	free(cmp);
	return ab_buf_steal(&out);
}
