/* session.h - the saved state of a bisection, in the work directory.
 *
 * Owns WORK/session.json (what defines the session, its verdicts, the
 * build waiting for one), WORK/index.snapshot (the index as it was read,
 * so later steps bisect the same list), WORK/session.lock (one process
 * drives a session at a time), the plain-text log that `replay` reads
 * back, and replaying saved verdicts into an ab_bisect. Every save is
 * atomic (write, fsync, rename). Never prints, never downloads.
 */
#ifndef AB_SESSION_H
#define AB_SESSION_H

#include <stddef.h>
#include "bisect/bisect.h"
#include "base/escape.h"	/* ab_shell_quote, for logs and hints */
#include "base/error.h"
#include "base/util.h"

typedef struct ab_session_step {
	char *id;
	ab_term verdict;
	ab_by by;
	double seconds;
	double wait;		/* ab_step.wait; -1 when not measured */
	char *reason;		/* why unavailable, or NULL */
	int bound;		/* ab_step.bound: a --check-bounds end */
	char *links;		/* ab_step.links, or NULL */
	unsigned line;		/* its line in a replayed log, or 0 */
} ab_session_step;

/* A kernel --install system put on the machine. */
typedef struct ab_session_kernel {
	char *build;		/* the build's id; NULL in older sessions */
	char *type;		/* "rpm" or "deb" */
	char *release;		/* uname -r */
	char *names;		/* its packages, space-separated, as ab_sys_install gave them */
} ab_session_kernel;

typedef struct ab_session {
	char **argv;		/* "start", options...: what defines it (NULL-terminated) */
	char *index_url;	/* the index's absolute URL, for the snapshot */
	char *good, *bad;	/* the range's ends, as ids */
	char *result;		/* running, found, inconclusive, aborted */
	char *current;		/* the build waiting for a verdict, or NULL */
	char *message;		/* why it stopped (aborted), or NULL */
	char *started;		/* UTC, ISO 8601 */
	unsigned probe_step;	/* ARTBISECT_STEP of the next probe */
	int64_t downloaded;	/* ab_bisect.downloaded */
	ab_session_step *steps;
	size_t nsteps;
	char *running_kernel;	/* uname -r at start, never removed; or NULL */
	ab_session_kernel *kernels;	/* what --install system installed */
	size_t nkernels;
	char *log_label;	/* a replayed log: its name, for messages; or NULL */
	unsigned start_line;	/* ... and the line of its start */
} ab_session;

/* Remembers an installed kernel (once per release and packages); build
 * may be NULL. */
void ab_session_add_kernel(ab_session *s, const char *build, const char *type,
			   const char *release, const char *names);

/* The release of the kernel installed for build, or NULL. */
const char *ab_session_kernel_release(const ab_session *s, const char *build);

ab_session *ab_session_new(char **argv, const char *good, const char *bad);
void ab_session_free(ab_session *s);

/* Whether WORK/session.json exists. */
int ab_session_exists(const char *work_dir);
/* NULL with err: exit 2 when there is no session, 3 when unreadable. */
ab_session *ab_session_load(const char *work_dir, ab_error *err);
int ab_session_save(const ab_session *s, const char *work_dir, ab_error *err);
/* Removes the session, its snapshot and WORK/roots; never the cache. */
int ab_session_remove(const char *work_dir, ab_error *err);

/* Takes WORK/session.lock (flock, not waiting). The descriptor, or -1
 * with err (exit 3) when another process holds it. */
int ab_session_lock(const char *work_dir, ab_error *err);
void ab_session_unlock(int fd);

/* The index document as read at the start. Written in the background
 * (a big index is hundreds of megabytes) while the first build
 * downloads; data must stay as it is until ab_write_finish keeps it (or
 * drops it, when the session turns out to be another one). */
ab_pending_write *ab_session_save_index(const char *work_dir, const char *data, size_t len);
/* 0 with the bytes, 1 when there is no snapshot (a repository index). */
int ab_session_load_index(const char *work_dir, char **data, size_t *len, ab_error *err);
/* Where the snapshot lies (to be freed). */
char *ab_session_index_path(const char *work_dir);

/* Copies b's verdicts, result and counters into s (current is left). */
void ab_session_capture(ab_session *s, const ab_bisect *b);
/* Records s's verdicts into a fresh b; by_replay marks them "replay"
 * (builds found unavailable stay so). -1 with err (exit 2) when a saved
 * id is not in the index or contradicts the others. */
int ab_session_apply(const ab_session *s, ab_bisect *b, int by_replay, ab_error *err);

/* The session as text: an `artbisect start ...` line, then one
 * `artbisect good|bad|skip ID` line per verdict, with comments. */
char *ab_session_log(const ab_session *s);
/* Reads that text back; label names it in messages. NULL with err
 * (exit 2) naming the line. */
ab_session *ab_session_parse_log(const char *text, const char *label, ab_error *err);


#endif
