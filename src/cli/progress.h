/* progress.h - what a run shows on standard error while it works.
 *
 * Owns the step lines ("testing build X"), verdict lines and, only when
 * standard error is a terminal, the downloads: one line per active
 * transfer and an overall line (bytes, rate, time left), redrawn in
 * place as pacman and curl do. Part of the front end: the only place
 * that prints them. Never decides anything: it shows what the library
 * reports through its callbacks.
 */
#ifndef AB_PROGRESS_H
#define AB_PROGRESS_H

#include "bisect/bisect.h"

#define AB_PROGRESS_SLOTS 8

/* One transfer on the screen. */
typedef struct ab_progress_xfer {
	char name[64];		/* the URL's last segment */
	int64_t now, total;	/* total -1 when unknown */
	double last_seen;
} ab_progress_xfer;

typedef struct ab_progress {
	int tty;		/* standard error is a terminal */
	int quiet;
	int lines;		/* lines drawn below the last message, to redraw */
	double last_draw;
	ab_progress_xfer x[AB_PROGRESS_SLOTS];
	/* The overall rate, over a sliding window of a few seconds. */
	double win_start;
	int64_t win_bytes, done_bytes;
	double rate;
} ab_progress;

void ab_progress_init(ab_progress *p, int quiet);
/* Under the flaky model, where no build is ruled out and "candidates
 * left" says nothing: "most likely first bad build ID, probability P
 * (stops at S)", ready for the terminal; the caller frees it. */
char *ab_progress_flaky_state(const ab_bisect *b);
void ab_progress_choose(void *ud, const ab_bisect *b, size_t idx);
void ab_progress_verdict(void *ud, const ab_bisect *b, const ab_step *s);
void ab_progress_download(void *ud, const char *url, int64_t now, int64_t total);
void ab_progress_notice(void *ud, const char *msg);
/* Clears a pending progress line before other output. */
void ab_progress_flush(ab_progress *p);
/* Prints "artbisect: MSG" on standard error. */
void ab_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
