/* error.c - see error.h. */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "base/error.h"

void ab_error_set(ab_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	char *nl;

	if (!err)
		return;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	/* One line, whatever the parts said. */
	while ((nl = strchr(err->msg, '\n')))
		*nl = ' ';
}

void ab_error_clear(ab_error *err)
{
	if (!err)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}
