/* report.h - the end-of-run report.
 *
 * Owns the two forms of the result: the JSON object of CONTRACT.md
 * section 6 (jansson) and the text a person pastes into a bug report.
 * Builds them from a finished (or aborted) bisection; never prints.
 */
#ifndef AB_REPORT_H
#define AB_REPORT_H

#include <jansson.h>
#include "bisect/bisect.h"

/* The contract's report object. Caller json_decref()s it. */
json_t *ab_report_json(const ab_bisect *b);

/* The human report, several lines ending in a newline. Caller frees. */
char *ab_report_text(const ab_bisect *b);

/* The report for a bug tracker or an upstream mail, as Markdown: the
 * last old and first new builds with commits, dates and versions, the
 * compare URL, the git commands that narrow it further, the steps, and
 * for Linux a "#regzbot introduced:" line. Caller frees. */
char *ab_report_markdown(const ab_bisect *b);
/* How far the tested builds were checked, in one translated sentence
 * (NULL for an index v1 that says nothing of it); *unverified counts
 * the builds taken with nothing to check them against. */
const char *ab_report_trust_sentence(const ab_bisect *b, size_t *unverified);
/* The words before the list of candidates of a run that found none:
 * why they are left (not told apart, not singled out by flaky runs, or
 * the run stopped first). */
const char *ab_report_candidates_words(const ab_bisect *b);

/* The exit status the contract gives this result. */
int ab_report_exit_status(const ab_bisect *b);

#endif
