/* progress.h - what a run shows on standard error while it works.
 *
 * Owns the step lines ("testing build X"), verdict lines and the
 * download progress line, redrawn in place only when standard error is
 * a terminal. Part of the front end: the only place that prints them.
 */
#ifndef AB_PROGRESS_H
#define AB_PROGRESS_H

#include "bisect.h"

typedef struct ab_progress {
	int tty;		/* standard error is a terminal */
	int quiet;
	int line_open;		/* a progress line waits to be cleared */
	double last_draw;
} ab_progress;

void ab_progress_init(ab_progress *p, int quiet);
void ab_progress_choose(void *ud, const ab_bisect *b, size_t idx);
void ab_progress_verdict(void *ud, const ab_bisect *b, const ab_step *s);
void ab_progress_download(void *ud, const char *url, int64_t now, int64_t total);
void ab_progress_notice(void *ud, const char *msg);
/* Clears a pending progress line before other output. */
void ab_progress_flush(ab_progress *p);
/* Prints "artbisect: MSG" on standard error. */
void ab_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
