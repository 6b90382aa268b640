/* escape.h - strings from an index or a farm made safe where they go.
 *
 * Owns the one rule per destination for text nobody here wrote (names,
 * versions, dates, URLs, reasons): the terminal and the text report,
 * the Markdown and HTML reports, the links in them, and the shell, for
 * the commands artbisect prints for people to paste. Also says which
 * commits may be used at all. Pure: no I/O, no locale, no global state.
 */
#ifndef AB_ESCAPE_H
#define AB_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include "base/util.h"

/* Length (1..4) of the valid UTF-8 sequence at s, which has n bytes
 * left, with its code point in *cp; 0 when it is none (a stray
 * continuation byte, an overlong form, a surrogate, a cut end). */
size_t ab_utf8_len(const unsigned char *s, size_t n, uint32_t *cp);

/* 1 when s[0..n) holds a control character: C0 (NUL too), DEL, or a C1
 * control (U+0080..U+009F in UTF-8, which some terminals obey as ESC
 * sequences do). Names holding one are refused where they are read. */
int ab_has_control(const char *s, size_t n);

/* 1 for a code point no reader should get as it is: C0 and C1 controls,
 * DEL, the line and paragraph separators, and the bidi marks, overrides
 * and isolates that reorder the text around them (U+061C, U+200E/F,
 * U+202A..E, U+2066..9). */
int ab_hidden_cp(uint32_t c);

/* For a terminal: C0 control characters and DEL become \n, \r, \t or
 * \xHH (ESC is \x1b), C1 controls (U+0080..U+009F) \u0080..\u009f, the
 * other ab_hidden_cp characters \uXXXX, and bytes that are not UTF-8
 * \xHH; everything else is kept. keep_lines
 * keeps \n and \t, for whole messages artbisect wrote around such
 * strings. */
void ab_esc_term_to(ab_buf *out, const char *s, int keep_lines);
/* The same into a new string; NULL stays NULL. Caller frees. */
char *ab_esc_term(const char *s);
char *ab_esc_term_lines(const char *s);

/* For Markdown text (a heading, a table cell, a sentence): < > & as
 * entities, the characters that open emphasis, code, links, tables or
 * math (\ ` * _ [ ] ( ) ~ | ! $) behind a backslash, and the ':' of
 * "://" and the '.' of "www." too (GitHub's autolinks); an empty
 * comment "<!-- -->" before each '@' (an e-mail autolink); line breaks
 * and tabs as spaces, other controls as in ab_esc_term. The result
 * cannot start a line, a link, an image or HTML of its own. */
void ab_esc_md_to(ab_buf *out, const char *s);

/* For HTML text and quoted attribute values: & < > " ' as entities,
 * controls and bytes that are not UTF-8 made visible as in ab_esc_term
 * (\x1b, \n, \u009b). The result cannot open a tag, an entity the
 * caller did not write, or leave an attribute. */
void ab_esc_html_to(ab_buf *out, const char *s);

/* 1 when url is an http:// or https:// URL (scheme in any case) with a
 * host and no control character, 0 otherwise: only such URLs become
 * links. */
int ab_esc_is_web_url(const char *url);
/* url as a Markdown autolink <...>, with spaces, controls, < > " ` \
 * and bytes above 0x7f percent-encoded. Only for ab_esc_is_web_url. */
void ab_esc_md_url_to(ab_buf *out, const char *url);

/* 1 when s (n bytes) is a git object name: 7 to 64 hexadecimal digits
 * (SHA-1 and SHA-256, abbreviated or whole). */
int ab_is_object_name(const char *s, size_t n);

/* Quotes s for a POSIX shell when it needs it: as is when it holds only
 * safe characters, else in '...', or $'...' when it holds control
 * characters (so that one line stays one line) or bytes that are not
 * UTF-8 (so that what is pasted is what was meant). Caller frees. */
char *ab_shell_quote(const char *s);

#endif
