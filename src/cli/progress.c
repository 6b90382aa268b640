/* progress.c - see progress.h. */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/escape.h"
#include "base/i18n.h"
#include "bisect/report_flaky.h"
#include "cli/progress.h"
#include "base/util.h"
#include "engine/flaky.h"

void ab_progress_init(ab_progress *p, int quiet)
{
	memset(p, 0, sizeof *p);
	p->tty = isatty(STDERR_FILENO);
	p->quiet = quiet;
}

void ab_progress_flush(ab_progress *p)
{
	/* Up over the lines drawn, and clear to the end of the screen. */
	if (p->lines > 0)
		fprintf(stderr, "\r\033[%dA\033[J", p->lines);
	p->lines = 0;
}

/* s on standard error as the terminal may show it: messages quote
 * what an index or a server said (ESC, BEL, CR become \x1b...). */
static void put_safe(const char *s)
{
	char *t = ab_esc_term_lines(s);

	fputs(t, stderr);
	free(t);
}

void ab_message(const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	fputs("artbisect: ", stderr);
	put_safe(msg ? msg : fmt);
	fputc('\n', stderr);
	free(msg);
}

char *ab_progress_flaky_state(const ab_bisect *b)
{
	size_t lo, hi;
	double best = ab_flaky_best_range(b->flaky, &lo, &hi);
	char *likely = ab_esc_term(b->index->builds[hi].id), *s;

	/* The stopping level, not --confidence: it is what the run waits
	 * for (docs/flaky.md, "When it stops"). */
	s = ab_xasprintf(b->opt.find_fix ? _("most likely fix %s, probability %.3f (stops at %.3f)")
					 : _("most likely first bad build %s, probability %.3f (stops at %.3f)"),
			 likely, best, ab_flaky_stop_mass(b->flaky));
	free(likely);
	return s;
}

/* Under the flaky model the line says how often the build has been run
 * and how near the stop the most likely build is. */
static void choose_flaky(const ab_bisect *b, size_t idx, const char *id, const char *version)
{
	unsigned fails, passes, runs;
	char *state = ab_progress_flaky_state(b);
	char *name = ab_xasprintf("%s%s%s%s", id, version ? " [" : "", version ? version : "", version ? "]" : "");

	ab_report_flaky_runs(b, idx, &fails, &passes);
	runs = fails + passes;
	if (runs)
		fprintf(stderr, ngettext("Testing %s (run %u time so far): %s\n",
					 "Testing %s (run %u times so far): %s\n", runs), name, runs, state);
	else
		fprintf(stderr, _("Testing %s (its first run): %s\n"), name, state);
	free(name);
	free(state);
}

void ab_progress_choose(void *ud, const ab_bisect *b, size_t idx)
{
	ab_progress *p = ud;
	const ab_build *bd = &b->index->builds[idx];
	size_t left = ab_engine_candidate_count(b->engine);
	unsigned steps = ab_engine_steps_left(b->engine);

	char *id, *version;

	if (p->quiet)
		return;
	ab_progress_flush(p);
	id = ab_esc_term(bd->id);
	version = ab_esc_term(bd->version);
	if (b->confirm_round) {
		fprintf(stderr, _("Confirming %s%s%s%s (run %u of %u)\n"), id, version ? " [" : "",
			version ? version : "", version ? "]" : "", b->confirm_round, b->opt.confirm);
	} else if (b->flaky) {
		choose_flaky(b, idx, id, version);
	} else {
		fprintf(stderr, ngettext("Testing %s%s%s%s: %zu candidate left, ",
					 "Testing %s%s%s%s: %zu candidates left, ", left),
			id, version ? " [" : "", version ? version : "", version ? "]" : "", left);
		fprintf(stderr, ngettext("about %u more step\n", "about %u more steps\n", steps), steps);
	}
	free(id);
	free(version);
}

void ab_progress_verdict(void *ud, const ab_bisect *b, const ab_step *s)
{
	ab_progress *p = ud;
	const ab_build *bd = &b->index->builds[s->index];

	char *id, *why;

	if (p->quiet)
		return;
	ab_progress_flush(p);
	id = ab_esc_term(bd->id);
	why = ab_esc_term(s->reason ? s->reason : "");
	if (s->by == AB_BY_UNAVAILABLE)
		fprintf(stderr, _("  %s is unavailable: %s\n"), id, why);
	else if (s->by == AB_BY_FAILED_BUILD && *why)
		fprintf(stderr, _("  %s: skip, a failed build: %s\n"), id, why);
	else if (b->flaky && s->verdict != AB_TERM_SKIP) {
		unsigned fails, passes;

		/* Each run is one observation: the counts say what the
		 * model has seen of this build so far. */
		ab_report_flaky_runs(b, s->index, &fails, &passes);
		if (s->by == AB_BY_TIMEOUT)
			fprintf(stderr, _("  %s: %s (timed out after %.1f s; %u failed, %u passed on it so far)\n"),
				id, ab_term_label(ab_term_name(s->verdict)), s->seconds, fails, passes);
		else
			fprintf(stderr, _("  %s: %s (%.2f s; %u failed, %u passed on it so far)\n"), id,
				ab_term_label(ab_term_name(s->verdict)), s->seconds, fails, passes);
	} else if (s->by == AB_BY_TIMEOUT)
		fprintf(stderr, _("  %s: %s (timed out after %.1f s)\n"), id,
			ab_term_label(ab_term_name(s->verdict)), s->seconds);
	else
		fprintf(stderr, _("  %s: %s (%.2f s)\n"), id, ab_term_label(ab_term_name(s->verdict)),
			s->seconds);
	free(id);
	free(why);
}

static void human_size(char *buf, size_t n, int64_t bytes)
{
	if (bytes >= 1 << 20)
		snprintf(buf, n, "%.1f MiB", (double)bytes / (1 << 20));
	else if (bytes >= 1 << 10)
		snprintf(buf, n, "%.1f KiB", (double)bytes / (1 << 10));
	else
		snprintf(buf, n, "%lld B", (long long)bytes);
}

/* The slot of transfer name, taking a free or stale one when new. */
static ab_progress_xfer *slot_of(ab_progress *p, const char *name, double tnow)
{
	ab_progress_xfer *free_slot = NULL, *oldest = &p->x[0];
	size_t i;

	for (i = 0; i < AB_PROGRESS_SLOTS; i++) {
		ab_progress_xfer *x = &p->x[i];

		if (x->name[0] && !strcmp(x->name, name))
			return x;
		if (!x->name[0] && !free_slot)
			free_slot = x;
		if (x->last_seen < oldest->last_seen)
			oldest = x;
	}
	if (!free_slot)
		free_slot = oldest;
	memset(free_slot, 0, sizeof *free_slot);
	snprintf(free_slot->name, sizeof free_slot->name, "%s", name);
	free_slot->last_seen = tnow;
	return free_slot;
}

static void draw(ab_progress *p, double tnow)
{
	int64_t now = 0, total = 0;
	int known = 1, active = 0;
	char a[32], t[32], r[32];
	size_t i;

	ab_progress_flush(p);
	for (i = 0; i < AB_PROGRESS_SLOTS; i++) {
		ab_progress_xfer *x = &p->x[i];

		if (!x->name[0])
			continue;
		/* Finished or silent for long: off the screen. */
		if ((x->total >= 0 && x->now >= x->total) || tnow - x->last_seen > 5) {
			x->name[0] = '\0';
			continue;
		}
		active++;
		now += x->now;
		if (x->total >= 0)
			total += x->total;
		else
			known = 0;
		human_size(a, sizeof a, x->now);
		if (x->total > 0) {
			human_size(t, sizeof t, x->total);
			fprintf(stderr, "  %-40.40s %10s / %-10s %3d%%\n", x->name, a, t,
				(int)(100 * x->now / x->total));
		} else {
			fprintf(stderr, "  %-40.40s %10s\n", x->name, a);
		}
		p->lines++;
	}
	if (active > 0) {
		human_size(a, sizeof a, now);
		human_size(r, sizeof r, (int64_t)p->rate);
		if (known && total > 0) {
			human_size(t, sizeof t, total);
			if (p->rate > 0)
				fprintf(stderr, _("  %d downloading: %s / %s at %s/s, %.0f s left\n"), active,
					a, t, r, (double)(total - now) / p->rate);
			else
				fprintf(stderr, _("  %d downloading: %s / %s\n"), active, a, t);
		} else {
			fprintf(stderr, _("  %d downloading: %s at %s/s\n"), active, a, r);
		}
		p->lines++;
	}
}

void ab_progress_download(void *ud, const char *url, int64_t now, int64_t total)
{
	ab_progress *p = ud;
	const char *name = strrchr(url, '/');
	char *esc;
	ab_progress_xfer *x;
	double tnow;

	if (!p->tty || p->quiet)
		return;
	tnow = ab_now();
	/* The name is the farm's: kept escaped, as it is drawn. */
	esc = ab_esc_term(name ? name + 1 : url);
	x = slot_of(p, esc, tnow);
	free(esc);
	if (now > x->now)
		p->win_bytes += now - x->now;
	x->now = now;
	x->total = total;
	x->last_seen = tnow;
	if (p->win_start == 0)
		p->win_start = tnow;
	if (tnow - p->win_start >= 1.0) {
		double inst = (double)p->win_bytes / (tnow - p->win_start);

		p->rate = p->rate > 0 ? 0.6 * inst + 0.4 * p->rate : inst;
		p->win_start = tnow;
		p->win_bytes = 0;
	}
	if (tnow - p->last_draw < 0.1 && (total < 0 || now < total))
		return;
	p->last_draw = tnow;
	draw(p, tnow);
}

void ab_progress_notice(void *ud, const char *msg)
{
	ab_progress *p = ud;

	if (p->quiet)
		return;
	ab_progress_flush(p);
	fputs("  ", stderr);
	put_safe(msg);
	fputc('\n', stderr);
}
