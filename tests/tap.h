/* tap.h - a minimal TAP producer for the C unit tests. */
#ifndef AB_TAP_H
#define AB_TAP_H

#include <stdio.h>
#include <stdarg.h>

static int tap_n, tap_failed;

static void tap_ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3), unused));
static void tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;
	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
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
	printf("ok %d - ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", why);
	fflush(stdout);
}

/* tap_ok when run is true, else a skip saying why. */
static void tap_ok_if(int run, const char *why, int cond, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), unused));
static void tap_ok_if(int run, const char *why, int cond, const char *fmt, ...)
{
	va_list ap;
	if (run && !cond)
		tap_failed++;
	printf("%sok %d - ", !run || cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (!run)
		printf(" # SKIP %s", why);
	putchar('\n');
	fflush(stdout);
}

/* Call last: prints the plan and returns main's exit status. */
static int tap_done(void) __attribute__((unused));
static int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
