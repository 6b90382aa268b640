/* prompt.h - asks the person on a terminal.
 *
 * Owns the question at a manual step (good / bad / skip / retry / shell /
 * list / quit), running --launch before it, and the question about a
 * session found in the work directory. Colors only when standard error
 * is a terminal and NO_COLOR is unset. Front end only. Never judges a
 * build itself: the verdict is the person's.
 */
#ifndef AB_PROMPT_H
#define AB_PROMPT_H

#include <signal.h>
#include "bisect/bisect.h"
#include "cli/progress.h"

typedef struct ab_prompt {
	ab_progress *prog;
	const char *launch;	/* --launch: run in the root before asking */
	volatile sig_atomic_t *cancel;
} ab_prompt;

/* True when a person can be asked: standard input is a terminal. */
int ab_prompt_possible(void);
/* An ab_bisect_callbacks.ask. */
ab_answer ab_prompt_ask(ab_prompt *p, const ab_bisect *b, size_t idx, const char *root);
/* A session for another range exists: 'c' continue it, 'r' remove it
 * and start the new one, 'q' do nothing. */
int ab_prompt_existing(ab_prompt *p, const char *work_dir, const char *good, const char *bad,
		       size_t nsteps);

#endif
