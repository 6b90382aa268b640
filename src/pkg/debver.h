/* debver.h - Debian version strings: syntax and ordering, as Debian
 * policy section 5.6.12 and dpkg define them ([epoch:]upstream[-revision],
 * "~" sorting before anything, even the end). Pure; no I/O.
 */
#ifndef AB_DEBVER_H
#define AB_DEBVER_H

/* 1 when s is a valid Debian version; 0 with *why (static text) if not. */
int ab_debver_valid(const char *s, const char **why);

/* <0, 0, >0 as dpkg --compare-versions orders a and b. */
int ab_debver_cmp(const char *a, const char *b);

#endif
