/* util.h - small helpers every module needs: allocation that cannot
 * return NULL, string building, paths, making directories (removing a
 * tree is rmtree.h's).
 * Never prints and never exits except when memory runs out. */
#ifndef AB_UTIL_H
#define AB_UTIL_H

#include <stddef.h>
#include <stdbool.h>
#include "base/error.h"
#include <signal.h>
#include <spawn.h>

void *ab_xmalloc(size_t n);
void *ab_xcalloc(size_t n, size_t size);
void *ab_xrealloc(void *p, size_t n);
char *ab_xstrdup(const char *s);	/* NULL stays NULL */
char *ab_xstrndup(const char *s, size_t n);
/* For buffers of megabytes: aligned to the kernel's huge pages and
 * advised to use them (page faults are a good part of filling a fresh
 * buffer of hundreds of megabytes). Freed and reallocated as usual. */
void *ab_xmalloc_big(size_t n);
/* The same for zeroed arrays: fresh pages from the kernel are zero
 * already, so unlike a memset after ab_xmalloc_big this touches none. */
void *ab_xcalloc_big(size_t n, size_t size);
char *ab_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growing byte buffer, always NUL-terminated. */
typedef struct ab_buf {
	char *data;
	size_t len, cap;
} ab_buf;
void ab_buf_append(ab_buf *b, const void *data, size_t len);
void ab_buf_reserve(ab_buf *b, size_t cap);	/* room for cap bytes in all */
void ab_buf_puts(ab_buf *b, const char *s);
void ab_buf_printf(ab_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *ab_buf_steal(ab_buf *b);	/* hands over data; b is empty again */
void ab_buf_free(ab_buf *b);

/* A copy of the environment without the variables that names[] start
 * ("NAME="), with room for extra more and the final NULL; *n gets how
 * many it holds. Every string is a copy: free them all. For a child's
 * environment, made before fork() (threads may run). */
char **ab_env_without(const char *const *names, size_t nnames, size_t extra, size_t *n);

char *ab_path_join(const char *a, const char *b);
/* $var/artbisect when var holds an absolute path, else
 * $HOME/fallback/artbisect (/tmp when HOME is unset): the XDG base
 * directories, e.g. ab_xdg_dir("XDG_STATE_HOME", ".local/state"). */
char *ab_xdg_dir(const char *var, const char *fallback);
/* mkdir -p with mode 0755; 0 or -1 with errno set. */
int ab_mkdir_p(const char *path);
/* Reads a whole regular file, up to max bytes. */
int ab_read_file(const char *path, size_t max, char **data, size_t *len, ab_error *err);
/* Replaces path with len bytes of data atomically (temporary file in the
 * same directory, fsync, rename, fsync of the directory); mode as chmod.
 * 0, or -1 with err (exit 3). */
int ab_write_atomic(const char *path, const void *data, size_t len, int mode, ab_error *err);
/* Writes an output file the user named: a regular file or a new path
 * as ab_write_atomic does, through a symlink at the file it leads to;
 * anything else that exists (a FIFO, a device such as /dev/null) is opened
 * and written into, since a rename would replace it. 0, or -1 with err
 * (exit 3) naming path. */
int ab_write_output(const char *path, const void *data, size_t len, int mode, ab_error *err);
/* Opens path for writing (created 0666 less the umask, truncated) and
 * writes all of data: 0, or -1 with errno set. Not atomic. */
int ab_write_plain(const char *path, const void *data, size_t len);
/* ab_write_atomic with its slow half (writing and fsyncing hundreds of
 * megabytes) in a thread of its own: ab_write_begin starts it, data
 * must stay as it is until ab_write_finish, which waits for it and
 * then renames the file into place (keep) or removes it. */
typedef struct ab_pending_write ab_pending_write;
ab_pending_write *ab_write_begin(const char *path, const void *data, size_t len, int mode);
/* Waits for the writing without putting the file in place. */
void ab_write_wait(ab_pending_write *w);
int ab_write_finish(ab_pending_write *w, int keep, ab_error *err);
/* Monotonic seconds. */
double ab_now(void);
/* Seconds to the millisecond, as reports and sessions keep them. A number
 * read back from a hand-edited file may be anything: it is bounded to
 * [0, 1e12] before it is rounded. */
double ab_round_ms(double seconds);
/* "500M", "20G", "1048576" -> bytes (K, M, G, T are powers of 1024).
 * 0, or -1 when s is not a size. */
int ab_parse_size(const char *s, long long *out);
/* "1.5 MiB" for a byte count, into buf. */
const char *ab_format_size(long long n, char buf[32]);
/* A file-name-safe copy of s (anything but [A-Za-z0-9._+-] becomes '_'). */
char *ab_safe_name(const char *s);

/* Cancel flags are set by a signal handler or another thread and read
 * in loops: atomic accesses, so that every thread sees them. */
static inline bool ab_cancelled(const volatile sig_atomic_t *flag)
{
	return flag && __atomic_load_n(flag, __ATOMIC_RELAXED);
}

/* Set twice (a second Ctrl-C): what waits politely stops waiting. */
static inline bool ab_cancelled_twice(const volatile sig_atomic_t *flag)
{
	return flag && __atomic_load_n(flag, __ATOMIC_RELAXED) >= 2;
}

static inline void ab_cancel(volatile sig_atomic_t *flag)
{
	__atomic_store_n(flag, 1, __ATOMIC_RELAXED);
}

/* Spawn attributes that give the child SIGPIPE at its default (main.c
 * ignores it, so that a reader going away cannot kill a run). Destroy
 * with posix_spawnattr_destroy. */
void ab_spawnattr_pipe_default(posix_spawnattr_t *attr);

/* Starts this very program afresh with argv (a helper: a new program
 * holds none of the locks other threads may hold at a fork). The path
 * /proc/self/exe names rather than the link itself: under valgrind
 * (which runs as another program) that is the one meant; after an
 * upgrade replaced the file the link ends in " (deleted)", no such path
 * exists, and the link itself is used. posix_spawn's result. */
int ab_spawn_self(pid_t *pid, const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
		  char *const argv[]);

#endif
