/* progress.c - see progress.h. */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "i18n.h"
#include "progress.h"
#include "util.h"

void ab_progress_init(ab_progress *p, int quiet)
{
	memset(p, 0, sizeof *p);
	p->tty = isatty(STDERR_FILENO);
	p->quiet = quiet;
}

void ab_progress_flush(ab_progress *p)
{
	if (p->line_open) {
		fputs("\r\033[K", stderr);
		p->line_open = 0;
	}
}

void ab_message(const char *fmt, ...)
{
	va_list ap;

	fputs("artbisect: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void ab_progress_choose(void *ud, const ab_bisect *b, size_t idx)
{
	ab_progress *p = ud;
	const ab_build *bd = &b->index->builds[idx];
	size_t left = ab_engine_candidate_count(b->engine);
	unsigned steps = ab_engine_steps_left(b->engine);

	if (p->quiet)
		return;
	ab_progress_flush(p);
	fprintf(stderr, _("Testing %s%s%s%s: %zu candidates left, "),
		bd->id, bd->version ? " [" : "", bd->version ? bd->version : "",
		bd->version ? "]" : "", left);
	fprintf(stderr, ngettext("about %u more step\n", "about %u more steps\n", steps), steps);
}

void ab_progress_verdict(void *ud, const ab_bisect *b, const ab_step *s)
{
	ab_progress *p = ud;
	const ab_build *bd = &b->index->builds[s->index];

	if (p->quiet)
		return;
	ab_progress_flush(p);
	if (s->by == AB_BY_UNAVAILABLE)
		fprintf(stderr, _("  %s is unavailable: %s\n"), bd->id, s->reason ? s->reason : "");
	else if (s->by == AB_BY_TIMEOUT)
		fprintf(stderr, _("  %s: %s (timed out after %.1f s)\n"), bd->id,
			ab_term_name(s->verdict), s->seconds);
	else
		fprintf(stderr, _("  %s: %s (%.2f s)\n"), bd->id, ab_term_name(s->verdict), s->seconds);
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

void ab_progress_download(void *ud, const char *url, int64_t now, int64_t total)
{
	ab_progress *p = ud;
	const char *name = strrchr(url, '/');
	char a[32], t[32];
	double tnow;

	if (!p->tty || p->quiet)
		return;
	tnow = ab_now();
	if (tnow - p->last_draw < 0.1 && (total < 0 || now < total))
		return;
	p->last_draw = tnow;
	human_size(a, sizeof a, now);
	if (total >= 0)
		human_size(t, sizeof t, total);
	fprintf(stderr, "\r\033[K  %s %s %s%s%s", _("downloading"), name ? name + 1 : url, a,
		total >= 0 ? " / " : "", total >= 0 ? t : "");
	p->line_open = 1;
}

void ab_progress_notice(void *ud, const char *msg)
{
	ab_progress *p = ud;

	if (p->quiet)
		return;
	ab_progress_flush(p);
	fprintf(stderr, "  %s\n", msg);
}
