/* report_html.c - see report_html.h. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "base/escape.h"
#include "base/i18n.h"
#include "bisect/report.h"
#include "bisect/report_flaky.h"
#include "bisect/report_html.h"
#include "engine/flaky.h"
#include "pkg/sysinstall.h"
#include "base/util.h"

/* Above this many builds, the untested ones are drawn as bands, one
 * element per run of them; tested builds always keep their own mark. */
#define BAND_ABOVE 2000
/* The picture's coordinates (the viewBox; the page scales it). */
#define PIC_W 1000.0
#define PIC_X0 80.0
#define PIC_X1 920.0
#define LINE_Y 80.0
/* The close-up: drawn for indexes of more builds than CLOSEUP_ABOVE,
 * when the range left has at most CLOSEUP_MAX; with this many on
 * each side. */
#define CLOSEUP_ABOVE 40
#define CLOSEUP_MAX 60
#define CLOSEUP_MARGIN 8
/* Characters of an id in a label of the picture (the title has all). */
#define LABEL_MAX 24

/* Index text, escaped; "-" for NULL or empty. */
static void esc(ab_buf *out, const char *s)
{
	if (!s || !*s)
		ab_buf_puts(out, "-");
	else
		ab_esc_html_to(out, s);
}

/* s escaped, cut after max characters with an ellipsis: for labels in
 * a picture, where a long id would run over the next one. */
static void esc_short(ab_buf *out, const char *s, size_t max)
{
	size_t len = strlen(s), at = 0, k, n;
	uint32_t cp;
	char *cut;

	for (k = 0; at < len && k < max; k++) {
		n = ab_utf8_len((const unsigned char *)s + at, len - at, &cp);
		at += n ? n : 1;
	}
	if (at >= len) {
		esc(out, s);
		return;
	}
	cut = ab_xstrndup(s, at);
	esc(out, cut);
	ab_buf_puts(out, "\xe2\x80\xa6");	/* ... */
	free(cut);
}

/* The words of the verdicts, as the marks' data-verdict says them. */
static const char *step_verdict(const ab_step *s)
{
	if (s->by == AB_BY_UNAVAILABLE)
		return "unavailable";
	if (s->by == AB_BY_FAILED_BUILD)
		return "failed";
	return ab_term_name(s->verdict);
}

/* Build i's verdict, and in *step the number (from 1) of the last step
 * that judged it, 0 when none did (the given ends, the others). */
static const char *build_verdict(const ab_bisect *b, size_t i, size_t *step)
{
	size_t k;

	*step = 0;
	for (k = b->nsteps; k-- > 0;)
		if (b->steps[k].index == i) {
			*step = k + 1;
			break;
		}
	if (*step) {
		/* Under the flaky model a build may have been judged both
		 * ways: its last verdict alone would hide that. */
		int good = 0, bad = 0;

		for (k = 0; b->flaky && k < b->nsteps; k++)
			if (b->steps[k].index == i && b->steps[k].by != AB_BY_UNAVAILABLE &&
			    b->steps[k].by != AB_BY_FAILED_BUILD) {
				good |= b->steps[k].verdict == AB_TERM_GOOD;
				bad |= b->steps[k].verdict == AB_TERM_BAD;
			}
		return good && bad ? "mixed" : step_verdict(&b->steps[*step - 1]);
	}
	/* The given ends are what they were given as (under the flaky
	 * model the plain engine holds no verdict for them). */
	if (i == b->old_end)
		return ab_bisect_old_term(b);
	if (i == b->new_end)
		return ab_bisect_new_term(b);
	switch (ab_engine_get(b->engine, i)) {
	case AB_V_OLD: return ab_bisect_old_term(b);
	case AB_V_NEW: return ab_bisect_new_term(b);
	case AB_V_FAILED: return "failed";
	default: return b->index->builds[i].failed ? "failed" : "untested";
	}
}

/* A picture: the builds from..to (to included) along the line. */
typedef struct pic {
	const ab_bisect *b;
	size_t from, to;
	int zoom;	/* the close-up: its marks are "zmark", never bands */
	size_t quiet_from, quiet_to;	/* steps not numbered here: the
					 * close-up numbers them */
} pic;

static double pic_x(const pic *p, size_t i)
{
	size_t n = p->to - p->from + 1;

	return n > 1 ? PIC_X0 + (PIC_X1 - PIC_X0) * (double)(i - p->from) / (double)(n - 1)
		     : (PIC_X0 + PIC_X1) / 2;
}

static void put_style(ab_buf *out)
{
	ab_buf_puts(out,
		"<style>\n"
		"body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1a1a1a;"
		"background:#fff;margin:1.5em auto;padding:0 1em;max-width:70em;line-height:1.45}\n"
		"h1{font-size:1.45em;margin:.2em 0 .6em;overflow-wrap:anywhere}\n"
		"h2{font-size:1.15em;margin:1.4em 0 .4em}\n"
		"svg{display:block;width:100%;max-width:100%;height:auto}\n"
		".wide{overflow-x:auto}\n"
		".cap{margin:.2em 0 0;font-size:.9em;color:#444}\n"
		"a{overflow-wrap:anywhere}\n"
		"table{border-collapse:collapse;margin:.4em 0}\n"
		"th,td{border:1px solid #ccc;padding:.25em .55em;text-align:left;vertical-align:top}\n"
		"th{background:#f3f3f3}\n"
		"code,pre{font-family:ui-monospace,'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:.92em}\n"
		"code{overflow-wrap:anywhere}\n"
		"pre{background:#f6f6f6;border:1px solid #ddd;padding:.6em;overflow-x:auto;white-space:pre-wrap;"
		"overflow-wrap:anywhere}\n"
		"tr.culprit td{background:#fde8e8;font-weight:600}\n"
		"tr.lastgood td{background:#e6f4e6;font-weight:600}\n"
		".legend span{display:inline-block;margin-right:1.1em;white-space:nowrap}\n"
		".legend svg{display:inline;width:14px;height:14px;vertical-align:-2px}\n"
		".good{fill:#2e8b3a}.bad{fill:#c62828}.skip{fill:#e0a100}\n"
		".unavailable{fill:#fff;stroke:#7b1fa2;stroke-width:2}\n"
		".failed{stroke:#555;stroke-width:2.2;fill:none}\n"
		".untested{stroke:#9a9a9a;stroke-width:1}\n"
		".band{fill:#c8c8c8}\n"
		".axis{stroke:#666;stroke-width:1.5}.range{fill:#fff3c4}\n"
		".hl{fill:none;stroke:#111;stroke-width:2.5}\n"
		".num{font-size:12px;text-anchor:middle;fill:#111}\n"
		".lbl{font-size:13px;font-weight:600;fill:#111}\n"
		".tick{font-size:11px;fill:#444}\n"
		".probe{fill:#5b8def}.probe.bad{fill:#c62828}.probe.good{fill:#2e8b3a}.probe.skip{fill:#e0a100}\n"
		"@media (max-width:600px){body{margin:.5em auto;padding:0 .5em;font-size:15px}"
		"h1{font-size:1.2em}th,td{padding:.2em .35em;font-size:.9em}"
		"td.commit code{word-break:break-all}.wide svg{min-width:540px}}\n"
		"@media print{body{color:#000;background:none;max-width:none;margin:0}"
		"th,tr.culprit td,tr.lastgood td,pre{background:none}"
		"tr.culprit td,tr.lastgood td{border-width:2px;border-color:#000}"
		"a{color:#000}a[href]::after{content:' (' attr(href) ')';font-size:.85em;overflow-wrap:anywhere}"
		"pre{white-space:pre-wrap}.wide{overflow:visible}.cap{color:#000}svg{page-break-inside:avoid}}\n"
		"</style>\n");
}

/* The shape of a verdict at (x, y): told apart by form as well as
 * colour, so that the picture reads in black and white. */
static void put_shape(ab_buf *out, const char *v, double x, double y, double r)
{
	if (!strcmp(v, "good"))
		ab_buf_printf(out, "<circle class=\"good\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"/>", x, y, r);
	else if (!strcmp(v, "bad"))
		ab_buf_printf(out, "<rect class=\"bad\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
			      x - r, y - r, 2 * r, 2 * r);
	else if (!strcmp(v, "skip"))
		ab_buf_printf(out, "<polygon class=\"skip\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>",
			      x, y - r - 1, x + r + 1, y, x, y + r + 1, x - r - 1, y);
	else if (!strcmp(v, "mixed"))	/* good and bad: a square in a circle */
		ab_buf_printf(out, "<circle class=\"good\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"/>"
				   "<rect class=\"bad\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
			      x, y, r + 1, x - r * 0.6, y - r * 0.6, r * 1.2, r * 1.2);
	else if (!strcmp(v, "unavailable"))
		ab_buf_printf(out, "<circle class=\"unavailable\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"/>",
			      x, y, r - 1);
	else if (!strcmp(v, "failed"))
		ab_buf_printf(out, "<path class=\"failed\" d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\"/>",
			      x - r, y - r, x + r, y + r, x - r, y + r, x + r, y - r);
	else
		ab_buf_printf(out, "<line class=\"untested\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
			      x, y - 6, x, y + 6);
}

/* One build's mark: a group with its id, verdict and a title to hover. */
static void put_mark(ab_buf *out, const pic *p, size_t i, const char *v, size_t step)
{
	const ab_build *bd = &p->b->index->builds[i];
	double x = pic_x(p, i);

	ab_buf_printf(out, "<g class=\"%s\" data-id=\"", p->zoom ? "zmark" : "mark");
	ab_esc_html_to(out, bd->id);
	ab_buf_printf(out, "\" data-verdict=\"%s\"", v);
	if (step)
		ab_buf_printf(out, " data-step=\"%zu\"", step);
	ab_buf_puts(out, "><title>");
	ab_esc_html_to(out, bd->id);
	if (bd->version) {
		ab_buf_puts(out, " (");
		ab_esc_html_to(out, bd->version);
		ab_buf_puts(out, ")");
	}
	ab_buf_printf(out, ": %s", v);
	if (step && p->b->flaky) {
		unsigned f, ps;

		ab_report_flaky_runs(p->b, i, &f, &ps);
		ab_buf_printf(out, _(", %u failed and %u passed"), f, ps);
	}
	if (step)
		ab_buf_printf(out, _(", step %zu"), step);
	ab_buf_puts(out, "</title>");
	put_shape(out, v, x, LINE_Y, step ? 7 : 4);
	if (step && (i < p->quiet_from || i > p->quiet_to))	/* above, on one of three rows */
		ab_buf_printf(out, "<text class=\"num\" x=\"%.1f\" y=\"%.1f\">%zu</text>", x,
			      LINE_Y - 14 - 14 * (double)((step - 1) % 3), step);
	ab_buf_puts(out, "</g>\n");
}

/* Builds from..to-1, all untested with verdict v, as one band. */
static void put_band(ab_buf *out, const pic *p, size_t from, size_t to, const char *v)
{
	const ab_bisect *b = p->b;
	double x0 = pic_x(p, from), x1 = pic_x(p, to - 1);

	ab_buf_printf(out, "<g class=\"band-run\" data-verdict=\"%s\" data-count=\"%zu\" data-from=\"", v,
		      to - from);
	ab_esc_html_to(out, b->index->builds[from].id);
	ab_buf_puts(out, "\" data-to=\"");
	ab_esc_html_to(out, b->index->builds[to - 1].id);
	ab_buf_printf(out, "\"><title>%zu %s: ", to - from, v);
	ab_esc_html_to(out, b->index->builds[from].id);
	ab_buf_puts(out, " .. ");
	ab_esc_html_to(out, b->index->builds[to - 1].id);
	ab_buf_printf(out, "</title><rect class=\"band\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"8\"/></g>\n",
		      x0 - 0.5, LINE_Y - 4, x1 - x0 + 1);
}

/* The picture of the range: untested builds first (marks or bands),
 * then the judged ones on top, then the two builds that matter ringed. */
static void put_range(ab_buf *out, const pic *p, size_t lo, size_t hi, int fix, int found)
{
	const ab_bisect *b = p->b;
	size_t n = p->to + 1, i, step, run = 0;
	const char *runv = NULL;
	int bands = !p->zoom && n > BAND_ABOVE;
	double xl = pic_x(p, lo), xh = pic_x(p, hi);

	ab_buf_printf(out, "<div class=\"wide\"><svg id=\"%s\" viewBox=\"0 0 %.0f %d\" role=\"img\" "
			   "aria-label=\"%s\">\n", p->zoom ? "closeup" : "range", PIC_W, p->zoom ? 170 : 150,
		      p->zoom ? _("the builds around the change") : _("the builds of the index and their verdicts"));
	ab_buf_printf(out, "<rect class=\"range\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"28\"/>\n",
		      xl, LINE_Y - 14, xh - xl);
	ab_buf_printf(out, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		      PIC_X0 - 10, LINE_Y, PIC_X1 + 10, LINE_Y);
	for (i = p->from; i <= n; i++) {
		const char *v = i < n ? build_verdict(b, i, &step) : NULL;

		if (bands && runv && (i == n || step || strcmp(v, runv))) {
			put_band(out, p, run, i, runv);
			runv = NULL;
		}
		if (i == n || step || !strcmp(v, "good") || !strcmp(v, "bad"))
			continue;
		if (!bands)
			put_mark(out, p, i, v, 0);
		else if (!runv) {
			runv = v;
			run = i;
		}
	}
	for (i = p->from; i < n; i++) {
		const char *v = build_verdict(b, i, &step);

		if (step || !strcmp(v, "good") || !strcmp(v, "bad"))
			put_mark(out, p, i, v, step);
	}
	ab_buf_printf(out, "<circle class=\"hl\" id=\"%slastgood\" cx=\"%.1f\" cy=\"%.1f\" r=\"12\"/>\n",
		      p->zoom ? "z" : "", xl, LINE_Y);
	ab_buf_printf(out, "<circle class=\"hl\" id=\"%s%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"12\"/>\n",
		      p->zoom ? "z" : "", found ? "culprit" : "knownbad", xh, LINE_Y);
	ab_buf_printf(out, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
		      xl - 6, LINE_Y + 32, fix ? _("last bad") : _("last good"));
	ab_buf_printf(out, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"start\">%s</text>\n",
		      xh + 6, LINE_Y + 32, found ? (fix ? _("first good") : _("first bad"))
						  : (fix ? _("known good") : _("known bad")));
	if (p->zoom) {	/* the two ids under their words */
		ab_buf_printf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", xl - 6,
			      LINE_Y + 48);
		esc_short(out, b->index->builds[lo].id, LABEL_MAX);
		ab_buf_printf(out, "</text><text class=\"tick\" x=\"%.1f\" y=\"%.1f\">", xh + 6, LINE_Y + 48);
		esc_short(out, b->index->builds[hi].id, LABEL_MAX);
		ab_buf_puts(out, "</text>\n");
	}
	ab_buf_printf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"start\">", PIC_X0 - 10,
		      p->zoom ? 160 : 140);
	esc_short(out, b->index->builds[p->from].id, LABEL_MAX);
	ab_buf_printf(out, "</text><text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"end\">", PIC_X1 + 10,
		      p->zoom ? 160 : 140);
	esc_short(out, b->index->builds[p->to].id, LABEL_MAX);
	ab_buf_puts(out, "</text>\n</svg></div>\n");
}

static void put_legend(ab_buf *out, const ab_bisect *b)
{
	static const char *const vs[] = { "good", "bad", "mixed", "skip", "unavailable", "failed", "untested" };
	size_t i;

	ab_buf_puts(out, "<p class=\"legend\">");
	for (i = 0; i < sizeof vs / sizeof *vs; i++) {
		if (!strcmp(vs[i], "mixed") && !b->flaky)
			continue;
		ab_buf_puts(out, "<span><svg viewBox=\"0 0 20 20\" aria-hidden=\"true\">");
		put_shape(out, vs[i], 10, 10, 7);
		ab_buf_printf(out, "</svg> %s</span>", strcmp(vs[i], "mixed") ? vs[i] : _("good and bad"));
	}
	ab_buf_printf(out, "<span>%s</span></p>\n",
		      _("numbers: the steps, in the order they ran"));
}

static void put_build_row(ab_buf *out, const char *cls, const char *label, const ab_build *bd)
{
	char *rel = ab_kernel_release(bd);

	ab_buf_printf(out, "<tr class=\"%s\"><th>%s</th><td><code>", cls, label);
	esc(out, bd->id);
	ab_buf_puts(out, "</code></td><td>");
	esc(out, bd->version);
	ab_buf_puts(out, "</td><td class=\"commit\"><code>");
	esc(out, bd->commit);
	ab_buf_puts(out, "</code></td><td>");
	esc(out, bd->date);
	if (rel) {
		ab_buf_puts(out, "</td><td><code>");
		esc(out, rel);
	}
	ab_buf_puts(out, "</td></tr>\n");
	free(rel);
}

/* What ab_report_markdown has between its table and its steps. */
static void put_middle(ab_buf *out, const ab_bisect *b, size_t lo, size_t hi, int fix, int found)
{
	const ab_build *old = &b->index->builds[lo], *nw = &b->index->builds[hi];
	char *cmp = ab_index_compare_url(b->index, lo, hi);
	size_t i;

	if (!found) {
		ab_buf_printf(out, "<p>%s", ab_report_candidates_words(b));
		for (i = lo + 1; i <= hi && i <= lo + 50; i++) {
			ab_buf_puts(out, " <code>");
			esc(out, b->index->builds[i].id);
			ab_buf_puts(out, "</code>");
		}
		ab_buf_puts(out, hi - lo > 50 ? " ...</p>\n" : "</p>\n");
	}
	if (cmp && ab_esc_is_web_url(cmp)) {
		ab_buf_printf(out, "<p>%s <a id=\"compare\" href=\"", _("Changes between them:"));
		ab_esc_html_to(out, cmp);
		ab_buf_puts(out, "\">");
		ab_esc_html_to(out, cmp);
		ab_buf_puts(out, "</a></p>\n");
	}
	free(cmp);
	if (old->position >= 0 && nw->position > old->position) {
		long long c = nw->position - old->position;

		ab_buf_puts(out, "<p>");
		ab_buf_printf(out, ngettext("%lld commit lies between them (by the index's positions).\n",
					    "%lld commits lie between them (by the index's positions).\n",
					    (unsigned long)c), c);
		ab_buf_puts(out, "</p>\n");
	}
	if (old->commit && nw->commit && ab_is_object_name(old->commit, strlen(old->commit)) &&
	    ab_is_object_name(nw->commit, strlen(nw->commit))) {
		char *o = ab_shell_quote(old->commit), *n = ab_shell_quote(nw->commit);

		ab_buf_printf(out, "<p>%s", _("To narrow it down to one commit with local builds, in a clone of"));
		ab_buf_puts(out, " <code>");
		esc(out, b->index->vcs_url ? b->index->vcs_url : _("the source"));
		ab_buf_puts(out, "</code>:</p>\n<pre id=\"commands\">");
		/* Object names: hexadecimal digits, nothing to escape. */
		ab_buf_printf(out, "git log --oneline %s..%s\n", o, n);
		if (fix)
			ab_buf_printf(out, "git bisect start --term-old=broken --term-new=fixed %s %s\n", n, o);
		else
			ab_buf_printf(out, "git bisect start %s %s\n", n, o);
		ab_buf_puts(out, "</pre>\n");
		free(o);
		free(n);
	}
}

/* Under --jobs: each probe as a bar over the time it ran, one row per
 * step, so that the ones side by side show as overlapping bars. */
static void put_jobs(ab_buf *out, const ab_bisect *b)
{
	double t0 = 0, t1 = 0, h, span;
	size_t i, rows = 0, row = 0;

	for (i = 0; i < b->nsteps; i++) {
		const ab_step *s = &b->steps[i];

		if ((s->by != AB_BY_PROBE && s->by != AB_BY_TIMEOUT) || s->at <= 0)
			continue;
		if (!rows || s->at - s->seconds < t0)
			t0 = s->at - s->seconds;
		if (!rows || s->at > t1)
			t1 = s->at;
		rows++;
	}
	if (!rows)
		return;
	span = t1 - t0 > 0.001 ? t1 - t0 : 0.001;
	h = 30 + 18.0 * (double)rows;
	ab_buf_printf(out, "<h2>%s</h2>\n", _("Probes side by side"));
	ab_buf_printf(out, "<p>%s</p>\n", _("Each bar is one probe, from its start to its verdict; bars "
					    "that overlap ran at the same time."));
	ab_buf_printf(out, "<div class=\"wide\"><svg id=\"jobs\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
			   "aria-label=\"%s\">\n", PIC_W, h, _("probes over time"));
	for (i = 0; i < b->nsteps; i++) {
		const ab_step *s = &b->steps[i];
		double x0, x1, y;

		if ((s->by != AB_BY_PROBE && s->by != AB_BY_TIMEOUT) || s->at <= 0)
			continue;
		x0 = PIC_X0 + (PIC_X1 - PIC_X0) * (s->at - s->seconds - t0) / span;
		x1 = PIC_X0 + (PIC_X1 - PIC_X0) * (s->at - t0) / span;
		y = 10 + 18.0 * (double)row++;
		ab_buf_printf(out, "<g class=\"probe-run\" data-step=\"%zu\" data-id=\"", i + 1);
		ab_esc_html_to(out, b->index->builds[s->index].id);
		ab_buf_printf(out, "\"><title>%zu: ", i + 1);
		ab_esc_html_to(out, b->index->builds[s->index].id);
		ab_buf_printf(out, " %s, %.2f s</title>", step_verdict(s), s->seconds);
		ab_buf_printf(out, "<text class=\"num\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%zu</text>",
			      PIC_X0 - 14, y + 12, i + 1);
		ab_buf_printf(out, "<rect class=\"probe %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"13\"/></g>\n",
			      step_verdict(s), x0, y, x1 - x0 > 1 ? x1 - x0 : 1);
	}
	ab_buf_printf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.0f\">0 s</text>"
			   "<text class=\"tick\" x=\"%.1f\" y=\"%.0f\" text-anchor=\"end\">%.1f s</text>\n",
		      PIC_X0, h - 4, PIC_X1, h - 4, t1 - t0);
	ab_buf_puts(out, "</svg></div>\n");
}

/* What the probe linked to (its lab job): "TEXT URL" lines whose URLs
 * were checked when read (http(s), no quote or bracket). */
static void put_links(ab_buf *out, const char *links)
{
	const char *p = links;

	while (p && *p) {
		const char *end = strchr(p, '\n'), *sp;
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char *text, *url;

		for (sp = p + n; sp > p && sp[-1] != ' '; sp--)
			;
		text = ab_xstrndup(p, sp > p ? (size_t)(sp - p - 1) : 0);
		url = ab_xstrndup(sp, (size_t)(p + n - sp));
		ab_buf_puts(out, " <a class=\"link\" rel=\"noopener noreferrer\" href=\"");
		ab_esc_html_to(out, url);
		ab_buf_puts(out, "\">");
		ab_esc_html_to(out, *text ? text : url);
		ab_buf_puts(out, "</a>");
		free(text);
		free(url);
		p = end ? end + 1 : NULL;
	}
}

static void put_steps(ab_buf *out, const ab_bisect *b)
{
	size_t i;

	ab_buf_printf(out, "<h2>%s</h2>\n<div class=\"wide\"><table id=\"steps\">\n"
			   "<tr><th>#</th><th>%s</th><th>%s</th><th>%s</th><th>%s</th><th>%s</th></tr>\n",
		      _("Steps"), _("build"), _("verdict"), _("by"), _("seconds"), _("wait"));
	for (i = 0; i < b->nsteps; i++) {
		const ab_step *s = &b->steps[i];

		ab_buf_printf(out, "<tr data-verdict=\"%s\"><td>%zu</td><td><code>", step_verdict(s), i + 1);
		esc(out, b->index->builds[s->index].id);
		ab_buf_puts(out, "</code>");
		if (b->index->builds[s->index].nartifacts &&
		    b->index->builds[s->index].trust == AB_TRUST_UNVERIFIED)
			ab_buf_printf(out, " <span class=\"unverified\">%s</span>", _("unverified"));
		ab_buf_printf(out, "</td><td>%s</td><td>%s", step_verdict(s), ab_by_name(s->by));
		if (s->reason) {
			ab_buf_puts(out, ": ");
			ab_esc_html_to(out, s->reason);
		}
		put_links(out, s->links);
		ab_buf_printf(out, "</td><td>%.2f</td><td>", s->seconds);
		if (s->wait >= 0)
			ab_buf_printf(out, "%.2f", s->wait);
		else
			ab_buf_puts(out, "-");
		ab_buf_puts(out, "</td></tr>\n");
	}
	ab_buf_puts(out, "</table></div>\n");
	{
		size_t unverified;
		const char *t = ab_report_trust_sentence(b, &unverified);

		if (t)
			ab_buf_printf(out, "<p id=\"trust\">%s</p>\n", t);
	}
}

/* The heading, also the page's title: what was bisected, and where. */
static void put_title(ab_buf *out, const ab_bisect *b, size_t lo, size_t hi, int fix, int found)
{
	const char *what = b->index->name ? b->index->name : b->index->label;

	esc(out, what);
	ab_buf_puts(out, ": ");
	if (found) {
		ab_buf_puts(out, fix ? _("fixed in build") : _("regression in build"));
		ab_buf_puts(out, " ");
		esc(out, b->index->builds[hi].id);
		if (b->flaky) {
			size_t from, to;

			ab_buf_printf(out, _(" (probability %.3f)"), ab_flaky_best_range(b->flaky, &from, &to));
		}
	} else {
		ab_buf_printf(out, fix ? _("fixed in one of %zu builds") : _("regression in one of %zu builds"),
			      hi - lo);
	}
}

/* The whole range, and when it is long a close-up of the builds around
 * the change, where the last steps crowd together. */
static void put_pictures(ab_buf *out, const ab_bisect *b, size_t lo, size_t hi, int fix, int found)
{
	pic all = { b, 0, b->index->nbuilds - 1, 0, 1, 0 };
	pic near = { b, lo > CLOSEUP_MARGIN ? lo - CLOSEUP_MARGIN : 0, hi + CLOSEUP_MARGIN, 1, 1, 0 };
	int closeup = b->index->nbuilds > CLOSEUP_ABOVE && hi - lo <= CLOSEUP_MAX;

	if (near.to > all.to)
		near.to = all.to;
	if (closeup) {
		all.quiet_from = near.from;
		all.quiet_to = near.to;
	}
	put_range(out, &all, lo, hi, fix, found);
	if (closeup) {
		ab_buf_printf(out, "<p class=\"cap\">%s</p>\n", _("Close-up of the builds around the change:"));
		put_range(out, &near, lo, hi, fix, found);
	}
	put_legend(out, b);
}

char *ab_report_html(const ab_bisect *b)
{
	size_t lo = ab_engine_last_old(b->engine), hi = ab_engine_first_new(b->engine);
	int fix = b->opt.find_fix, found = b->result == AB_RESULT_FOUND;
	ab_buf out = {0};

	ab_buf_puts(&out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
			  "<meta name=\"generator\" content=\"artbisect " PACKAGE_VERSION "\">\n<title>");
	put_title(&out, b, lo, hi, fix, found);
	ab_buf_puts(&out, "</title>\n");
	put_style(&out);
	ab_buf_printf(&out, "</head>\n<body data-result=\"%s\">\n<h1>",
		      found ? "found" : b->result == AB_RESULT_INCONCLUSIVE ? "inconclusive" : "aborted");
	put_title(&out, b, lo, hi, fix, found);
	ab_buf_puts(&out, "</h1>\n");
	put_pictures(&out, b, lo, hi, fix, found);
	ab_buf_printf(&out, "<div class=\"wide\"><table id=\"builds\">\n<tr><th></th><th>%s</th><th>%s</th>"
			    "<th>%s</th><th>%s</th></tr>\n", _("build"), _("version"), _("commit"), _("date"));
	put_build_row(&out, "lastgood", fix ? _("last bad") : _("last good"), &b->index->builds[lo]);
	put_build_row(&out, found ? "culprit" : "knownbad",
		      found ? (fix ? _("first good") : _("first bad")) : (fix ? _("known good") : _("known bad")),
		      &b->index->builds[hi]);
	ab_buf_puts(&out, "</table></div>\n");
	put_middle(&out, b, lo, hi, fix, found);
	if (b->flaky)
		ab_report_flaky_html(&out, b);
	if (b->opt.jobs > 1)
		put_jobs(&out, b);
	put_steps(&out, b);
	ab_buf_printf(&out, "<p>");
	ab_buf_printf(&out, _("Found with artbisect %s over "), PACKAGE_VERSION);
	ab_buf_puts(&out, "<code>");
	esc(&out, b->index->source_url);
	ab_buf_printf(&out, "</code> (");
	if (ab_bisect_builds_tested(b) < b->tested)
		ab_buf_printf(&out, _("%zu builds, %zu tested in %u runs"), b->index->nbuilds,
			      ab_bisect_builds_tested(b), b->tested);
	else
		ab_buf_printf(&out, _("%zu builds, %u tested"), b->index->nbuilds, b->tested);
	ab_buf_printf(&out, ")%s.</p>\n</body>\n</html>\n", fix ? _(", looking for the fix") : "");
	return ab_buf_steal(&out);
}
