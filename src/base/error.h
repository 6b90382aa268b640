/* error.h - the error value library modules hand back to the front end.
 * Owns: one message line and the exit status the contract gives it.
 * Never prints: the front end decides where the message goes. */
#ifndef AB_ERROR_H
#define AB_ERROR_H

/* Exit status of artbisect (CONTRACT.md section 5). */
enum ab_exit {
	AB_EXIT_FOUND = 0,
	AB_EXIT_INCONCLUSIVE = 1,
	AB_EXIT_USAGE = 2,	/* bad usage or bad input */
	AB_EXIT_FAILURE = 3,	/* could not be worked around */
	AB_EXIT_ABORTED = 4,
};

typedef struct ab_error {
	int code;		/* an enum ab_exit value; 0 while unset */
	char msg[1024];		/* one line, no trailing newline */
} ab_error;

/* Sets code and a printf-formatted message; a NULL err is allowed. */
void ab_error_set(ab_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void ab_error_clear(ab_error *err);

#endif
