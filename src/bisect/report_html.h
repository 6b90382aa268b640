/* report_html.h - the end-of-run report as one self-contained HTML page.
 *
 * Owns the page --report FILE.html writes: a picture of the range (one
 * mark per build along a line, by position, with its verdict and the
 * step that tested it), the last old and first new builds with their
 * versions, commits, compare link and git commands, the steps, and
 * under --jobs the probes that ran side by side. Inline SVG and CSS
 * only: no script, no font, no image, no link but the compare URL, so
 * it opens from a mail attachment. Every index string is escaped with
 * ab_esc_html_to. Pure: builds the page, never prints.
 */
#ifndef AB_REPORT_HTML_H
#define AB_REPORT_HTML_H

#include "bisect/bisect.h"

/* The page, UTF-8. Caller frees. */
char *ab_report_html(const ab_bisect *b);

#endif
