/* report_flaky.h - the flaky model's part of the report.
 *
 * Owns how the model's answer is told: the culprit with its
 * probability and the next most likely builds, the estimated failure
 * rates and each build's failed/passed runs, as the JSON report's
 * "flaky" object, as lines of the text report and as sections of the
 * Markdown and HTML reports; and how a build's runs are counted (the
 * front end's progress uses the same count). Only for a bisection
 * under the model (b->flaky set); never prints.
 */
#ifndef AB_REPORT_FLAKY_H
#define AB_REPORT_FLAKY_H

#include <jansson.h>
#include "bisect/bisect.h"
#include "base/util.h"

/* Appends s to out with the escapes of the report's form. */
typedef void (*ab_esc_fn)(ab_buf *out, const char *s);

/* Build i's runs, failed and passed: the model's counts without the
 * verdicts the range was given with (which are no runs). */
void ab_report_flaky_runs(const ab_bisect *b, size_t i, unsigned *fails, unsigned *passes);

/* The report's "flaky" object. Caller json_decref()s it. */
json_t *ab_report_flaky_json(const ab_bisect *b);

/* The model's answer in words, ids through esc. */
void ab_report_flaky_text(ab_buf *out, const ab_bisect *b, ab_esc_fn esc);

/* The same as a section of the Markdown report, its lists as tables
 * (lines of text would run together into one paragraph). */
void ab_report_flaky_markdown(ab_buf *out, const ab_bisect *b);

/* The same as a section of the HTML report: the culprit and the next
 * most likely builds with their probabilities, the rates, and a table
 * of every build's runs. */
void ab_report_flaky_html(ab_buf *out, const ab_bisect *b);

#endif
