/* prompt.h - asks the person for a verdict on a terminal.
 *
 * Owns the question at a manual step (good / bad / skip / shell / quit)
 * and reading the answer. Front end only.
 */
#ifndef AB_PROMPT_H
#define AB_PROMPT_H

#include "bisect.h"

/* True when a person can be asked: standard input is a terminal. */
int ab_prompt_possible(void);
/* An ab_bisect_callbacks.ask; ud is the ab_progress. */
ab_answer ab_prompt_ask(void *ud, const ab_bisect *b, size_t idx, const char *root);

#endif
