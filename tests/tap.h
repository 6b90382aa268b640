/* tap.h - a minimal TAP producer for the C unit tests. */
#ifndef AB_TAP_H
#define AB_TAP_H

#include <stdio.h>
#include <stdarg.h>

static int tap_n, tap_failed;

/* One result line: "ok" or "not ok" as cond says, or a skip saying why
 * when the check cannot run here (run false). */
static void tap_vresult(int run, const char *why, int cond, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0), unused));
static void tap_vresult(int run, const char *why, int cond, const char *fmt, va_list ap)
{
	if (run && !cond)
		tap_failed++;
	printf("%sok %d - ", !run || cond ? "" : "not ", ++tap_n);
	vprintf(fmt, ap);
	if (!run)
		printf(" # SKIP %s", why);
	putchar('\n');
	fflush(stdout);
}

static void tap_ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3), unused));
static void tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vresult(1, NULL, cond, fmt, ap);
	va_end(ap);
}

static void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));
static void tap_diag(const char *fmt, ...)
{
	va_list ap;
	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* A check that cannot run here: counted, reported as a TAP skip. */
static void tap_skip(const char *why, const char *fmt, ...) __attribute__((format(printf, 2, 3), unused));
static void tap_skip(const char *why, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vresult(0, why, 1, fmt, ap);
	va_end(ap);
}

/* tap_ok when run is true, else a skip saying why. */
static void tap_ok_if(int run, const char *why, int cond, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), unused));
static void tap_ok_if(int run, const char *why, int cond, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vresult(run, why, cond, fmt, ap);
	va_end(ap);
}

/* Call last: prints the plan and returns main's exit status. */
static int tap_done(void) __attribute__((unused));
static int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
