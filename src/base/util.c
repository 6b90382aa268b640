/* util.c - see util.h. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "base/i18n.h"
#include "base/util.h"

static void out_of_memory(void)
{
	fputs("artbisect: out of memory\n", stderr);
	abort();
}

void *ab_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *ab_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *ab_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		out_of_memory();
	return p;
}

#define HUGE_PAGE ((size_t)2 << 20)
#define BIG_BYTES ((size_t)4 << 20)

void *ab_xmalloc_big(size_t n)
{
	void *p = NULL;

	if (n < BIG_BYTES || posix_memalign(&p, HUGE_PAGE, n) != 0)
		return ab_xmalloc(n);
#ifdef MADV_HUGEPAGE
	madvise(p, n, MADV_HUGEPAGE);
#endif
	return p;
}

void *ab_xcalloc_big(size_t n, size_t size)
{
	void *p = ab_xcalloc(n, size);
#ifdef MADV_HUGEPAGE
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), start, end;

	/* calloc maps a block this big afresh; the advice covers the whole
	 * pages inside it. */
	if (n * size >= BIG_BYTES) {
		start = ((uintptr_t)p + page - 1) & ~(page - 1);
		end = ((uintptr_t)p + n * size) & ~(page - 1);
		madvise((void *)start, end - start, MADV_HUGEPAGE);
	}
#endif
	return p;
}

char *ab_xstrdup(const char *s)
{
	return s ? ab_xstrndup(s, strlen(s)) : NULL;
}

char *ab_xstrndup(const char *s, size_t n)
{
	char *p = ab_xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static char *vasprintf_x(const char *fmt, va_list ap)
{
	va_list ap2;
	int n;
	char *p;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		out_of_memory();
	p = ab_xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *ab_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = vasprintf_x(fmt, ap);
	va_end(ap);
	return p;
}

void ab_buf_reserve(ab_buf *b, size_t cap)
{
	if (cap <= b->cap)
		return;
	b->data = b->data ? ab_xrealloc(b->data, cap) : ab_xmalloc_big(cap);
	b->cap = cap;
}

void ab_buf_append(ab_buf *b, const void *data, size_t len)
{
	if (b->len + len + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + len + 1)
			cap *= 2;
		b->data = ab_xrealloc(b->data, cap);
		b->cap = cap;
	}
	memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
}

void ab_buf_puts(ab_buf *b, const char *s)
{
	ab_buf_append(b, s, strlen(s));
}

void ab_buf_printf(ab_buf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vasprintf_x(fmt, ap);
	va_end(ap);
	ab_buf_puts(b, s);
	free(s);
}

char *ab_buf_steal(ab_buf *b)
{
	char *p = b->data ? b->data : ab_xstrdup("");
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

void ab_buf_free(ab_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

char *ab_xdg_dir(const char *var, const char *fallback)
{
	const char *v = getenv(var), *home = getenv("HOME");

	if (v && v[0] == '/')
		return ab_path_join(v, "artbisect");
	if (!home || !*home)
		home = "/tmp";
	return ab_xasprintf("%s/%s/artbisect", home, fallback);
}

char *ab_path_join(const char *a, const char *b)
{
	size_t la = strlen(a);
	if (la && a[la - 1] == '/')
		return ab_xasprintf("%s%s", a, b);
	return ab_xasprintf("%s/%s", a, b);
}

int ab_mkdir_p(const char *path)
{
	char *p = ab_xstrdup(path), *s;
	int rc = 0;

	for (s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;
			*s = '\0';
			if (mkdir(p, 0755) < 0 && errno != EEXIST) {
				rc = -1;
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	if (rc == 0) {
		struct stat st;
		if (stat(p, &st) < 0)
			rc = -1;
		else if (!S_ISDIR(st.st_mode)) {
			errno = ENOTDIR;
			rc = -1;
		}
	}
	free(p);
	return rc;
}

int ab_read_file(const char *path, size_t max, char **data, size_t *len, ab_error *err)
{
	FILE *f = fopen(path, "rb");
	ab_buf b = {0};
	char chunk[65536];
	size_t n;

	if (!f) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: cannot open: %s"), path, strerror(errno));
		return -1;
	}
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (b.len + n > max) {
			ab_error_set(err, AB_EXIT_USAGE, _("%s: larger than %zu bytes"), path, max);
			fclose(f);
			ab_buf_free(&b);
			return -1;
		}
		ab_buf_append(&b, chunk, n);
	}
	if (ferror(f)) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: read error: %s"), path, strerror(errno));
		fclose(f);
		ab_buf_free(&b);
		return -1;
	}
	fclose(f);
	*len = b.len;
	*data = ab_buf_steal(&b);
	return 0;
}

double ab_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double ab_round_ms(double seconds)
{
	if (!(seconds >= 0 && seconds < 1e12))
		return seconds >= 0 ? 1e12 : 0;
	return (double)((long long)(seconds * 1000 + 0.5)) / 1000.0;
}

char *ab_safe_name(const char *s)
{
	char *p = ab_xstrdup(s), *q;
	for (q = p; *q; q++) {
		char c = *q;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '+' || c == '-'))
			*q = '_';
	}
	if (p[0] == '.')
		p[0] = '_';
	return p;
}

int ab_parse_size(const char *s, long long *out)
{
	char *end;
	double v;
	long long mult = 1;

	if (!s || !*s || *s == '-')
		return -1;
	v = strtod(s, &end);
	if (end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': mult = 1LL << 10; end++; break;
	case 'm': case 'M': mult = 1LL << 20; end++; break;
	case 'g': case 'G': mult = 1LL << 30; end++; break;
	case 't': case 'T': mult = 1LL << 40; end++; break;
	default: break;
	}
	if (*end == 'i' || *end == 'I')
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end || !(v >= 0) || v * (double)mult > 9.2e18)
		return -1;
	*out = (long long)(v * (double)mult);
	return 0;
}

const char *ab_format_size(long long n, char buf[32])
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, 32, "%lld B", n);
	else
		snprintf(buf, 32, "%.1f %s", v, units[u]);
	return buf;
}

/* All of data to fd: 0, or -1 with errno set. */
static int write_all(int fd, const void *data, size_t len)
{
	const char *text = data;
	size_t off = 0;

	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

int ab_write_plain(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666), e;

	if (fd < 0)
		return -1;
	if (write_all(fd, data, len) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

/* The first half of an atomic write: data into a new temporary file
 * beside path, fsynced. The file's name, or NULL with errno set. */
static char *write_tmp(const char *path, const void *data, size_t len, int mode)
{
	char *tmp = ab_xasprintf("%s.tmp-XXXXXX", path);
	int fd = mkostemp(tmp, O_CLOEXEC), e;

	if (fd < 0 || write_all(fd, data, len) < 0)
		goto fail;
	if (fchmod(fd, (mode_t)mode) < 0 || fsync(fd) < 0 || close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	return tmp;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	errno = e;
	return NULL;
}

/* The second half: tmp renamed to path, the rename itself on disk. */
static int commit_tmp(const char *tmp, const char *path)
{
	char *dir, *slash;
	int dfd;

	if (rename(tmp, path) < 0)
		return -1;
	dir = ab_xstrdup(path);
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	dfd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(dir);
	return 0;
}

struct ab_pending_write {
	char *path, *tmp;
	const void *data;
	size_t len;
	int mode, errnum, threaded;
	int done;	/* the thread joined, or the writing done here */
	pthread_t thread;
};

static void *pending_run(void *arg)
{
	ab_pending_write *w = arg;

	w->tmp = write_tmp(w->path, w->data, w->len, w->mode);
	w->errnum = w->tmp ? 0 : errno;
	return NULL;
}

static ab_pending_write *pending_new(const char *path, const void *data, size_t len, int mode)
{
	ab_pending_write *w = ab_xcalloc(1, sizeof *w);

	w->path = ab_xstrdup(path);
	w->data = data;
	w->len = len;
	w->mode = mode;
	return w;
}

ab_pending_write *ab_write_begin(const char *path, const void *data, size_t len, int mode)
{
	ab_pending_write *w = pending_new(path, data, len, mode);

	/* Without a thread, ab_write_finish does the writing. */
	w->threaded = pthread_create(&w->thread, NULL, pending_run, w) == 0;
	return w;
}

void ab_write_wait(ab_pending_write *w)
{
	if (!w || w->done)
		return;
	if (w->threaded)
		pthread_join(w->thread, NULL);
	else
		pending_run(w);
	w->done = 1;
}

int ab_write_finish(ab_pending_write *w, int keep, ab_error *err)
{
	int rc = 0;

	if (!w)
		return 0;
	if (keep)
		ab_write_wait(w);
	else if (w->threaded && !w->done)
		pthread_join(w->thread, NULL);
	if (keep && (!w->tmp || commit_tmp(w->tmp, w->path) < 0)) {
		int e = w->tmp ? errno : w->errnum;

		ab_error_set(err, AB_EXIT_FAILURE, _("cannot write %s: %s"), w->path, strerror(e));
		rc = -1;
	}
	if (w->tmp && (!keep || rc < 0))
		unlink(w->tmp);
	free(w->tmp);
	free(w->path);
	free(w);
	return rc;
}

/* Writes to path through a temporary file in the same directory: write,
 * fsync, rename, fsync the directory. */
int ab_write_atomic(const char *path, const void *data, size_t len, int mode, ab_error *err)
{
	return ab_write_finish(pending_new(path, data, len, mode), 1, err);
}

/* Where a symlink that leads nowhere yet leads: its links followed, a
 * relative one from the directory it is in. NULL with errno set (ELOOP
 * after 40 links). */
static char *dangling_target(const char *path)
{
	char *p = ab_xstrdup(path);
	int hops;

	for (hops = 0; hops < 40; hops++) {
		struct stat st;
		char buf[PATH_MAX], *slash, *next;
		ssize_t n;

		if (lstat(p, &st) < 0 || !S_ISLNK(st.st_mode))
			return p;
		n = readlink(p, buf, sizeof buf - 1);
		if (n < 0) {
			free(p);
			return NULL;
		}
		buf[n] = '\0';
		slash = strrchr(p, '/');
		if (buf[0] == '/' || !slash) {
			next = ab_xstrdup(buf);
		} else {
			slash[1] = '\0';
			next = ab_xasprintf("%s%s", p, buf);
		}
		free(p);
		p = next;
	}
	free(p);
	errno = ELOOP;
	return NULL;
}

int ab_write_output(const char *path, const void *data, size_t len, int mode, ab_error *err)
{
	struct stat st;
	char *real;
	int rc;

	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* A FIFO or a device (/dev/null, say): written into, never replaced. */
		if (ab_write_plain(path, data, len) == 0)
			return 0;
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot write %s: %s"), path, strerror(errno));
		return -1;
	}
	/* Through a symlink, the file it leads to is the one replaced. */
	if (stat(path, &st) == 0)
		real = realpath(path, NULL);
	else if (errno == ENOENT)
		real = dangling_target(path);	/* path itself when no link */
	else
		real = ab_xstrdup(path);	/* ab_write_atomic says why */
	if (!real) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot write %s: %s"), path, strerror(errno));
		return -1;
	}
	rc = ab_write_atomic(real, data, len, mode, err);
	free(real);
	return rc;
}

char **ab_env_without(const char *const *names, size_t nnames, size_t extra, size_t *n)
{
	extern char **environ;
	size_t total = 0, i, k;
	char **env;

	while (environ[total])
		total++;
	env = ab_xcalloc(total + extra + 1, sizeof *env);
	*n = 0;
	for (i = 0; i < total; i++) {
		for (k = 0; k < nnames; k++)
			if (!strncmp(environ[i], names[k], strlen(names[k])))
				break;
		if (k == nnames)
			env[(*n)++] = ab_xstrdup(environ[i]);
	}
	return env;
}

int ab_spawn_self(pid_t *pid, const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
		  char *const argv[])
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	int rc = ENOENT;

	if (n > 0) {
		exe[n] = '\0';
		if (access(exe, X_OK) == 0)
			rc = posix_spawn(pid, exe, fa, attr, argv, environ);
	}
	if (rc != 0)
		rc = posix_spawn(pid, "/proc/self/exe", fa, attr, argv, environ);
	return rc;
}

void ab_spawnattr_pipe_default(posix_spawnattr_t *attr)
{
	sigset_t pipe_sig;

	posix_spawnattr_init(attr);
	sigemptyset(&pipe_sig);
	sigaddset(&pipe_sig, SIGPIPE);
	posix_spawnattr_setsigdefault(attr, &pipe_sig);
	posix_spawnattr_setflags(attr, POSIX_SPAWN_SETSIGDEF);
}
