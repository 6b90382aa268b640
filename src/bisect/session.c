/* session.c - see session.h. */
#include "config.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "base/i18n.h"
#include "bisect/session.h"
#include "base/rmtree.h"
#include "base/util.h"

#define SESSION_FILE "session.json"
#define SNAPSHOT_FILE "index.snapshot"
#define LOCK_FILE "session.lock"
#define SESSION_MAX_BYTES ((size_t)64 << 20)

static char **argv_dup(char **argv)
{
	size_t n = 0, i;
	char **v;

	while (argv && argv[n])
		n++;
	v = ab_xcalloc(n + 1, sizeof *v);
	for (i = 0; i < n; i++)
		v[i] = ab_xstrdup(argv[i]);
	return v;
}

ab_session *ab_session_new(char **argv, const char *good, const char *bad)
{
	ab_session *s = ab_xcalloc(1, sizeof *s);
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	s->argv = argv_dup(argv);
	s->good = ab_xstrdup(good);
	s->bad = ab_xstrdup(bad);
	s->result = ab_xstrdup("running");
	s->probe_step = 1;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
	s->started = ab_xstrdup(stamp);
	return s;
}

static void free_steps(ab_session *s)
{
	size_t i;

	for (i = 0; i < s->nsteps; i++) {
		free(s->steps[i].id);
		free(s->steps[i].reason);
		free(s->steps[i].links);
	}
	free(s->steps);
	s->steps = NULL;
	s->nsteps = 0;
}

void ab_session_free(ab_session *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; s->argv && s->argv[i]; i++)
		free(s->argv[i]);
	free(s->argv);
	free(s->index_url);
	free(s->good);
	free(s->bad);
	free(s->result);
	free(s->current);
	free(s->message);
	free(s->started);
	free(s->running_kernel);
	free(s->log_label);
	for (i = 0; i < s->nkernels; i++) {
		free(s->kernels[i].build);
		free(s->kernels[i].type);
		free(s->kernels[i].release);
		free(s->kernels[i].names);
	}
	free(s->kernels);
	free_steps(s);
	free(s);
}

void ab_session_add_kernel(ab_session *s, const char *build, const char *type,
			   const char *release, const char *names)
{
	size_t i;

	for (i = 0; i < s->nkernels; i++) {
		if (!strcmp(s->kernels[i].release, release) && !strcmp(s->kernels[i].names, names)) {
			if (build) {
				/* the same packages, now for this build */
				free(s->kernels[i].build);
				s->kernels[i].build = ab_xstrdup(build);
			}
			return;
		}
	}
	s->kernels = ab_xrealloc(s->kernels, (s->nkernels + 1) * sizeof *s->kernels);
	s->kernels[s->nkernels].build = build ? ab_xstrdup(build) : NULL;
	s->kernels[s->nkernels].type = ab_xstrdup(type);
	s->kernels[s->nkernels].release = ab_xstrdup(release);
	s->kernels[s->nkernels].names = ab_xstrdup(names);
	s->nkernels++;
}

const char *ab_session_kernel_release(const ab_session *s, const char *build)
{
	size_t i;

	for (i = s->nkernels; i-- > 0;)
		if (s->kernels[i].build && !strcmp(s->kernels[i].build, build))
			return s->kernels[i].release;
	return NULL;
}

static void add_step(ab_session *s, const char *id, ab_term v, ab_by by, double secs,
		     double wait, const char *reason, int bound)
{
	ab_session_step *st;

	s->steps = ab_xrealloc(s->steps, (s->nsteps + 1) * sizeof *s->steps);
	st = &s->steps[s->nsteps++];
	st->id = ab_xstrdup(id);
	st->verdict = v;
	st->by = by;
	st->seconds = secs;
	st->wait = wait;
	st->reason = ab_xstrdup(reason);
	st->bound = bound;
	st->links = NULL;
}

static int term_from_name(const char *s, ab_term *t)
{
	if (!strcmp(s, "good"))
		*t = AB_TERM_GOOD;
	else if (!strcmp(s, "bad"))
		*t = AB_TERM_BAD;
	else if (!strcmp(s, "skip"))
		*t = AB_TERM_SKIP;
	else
		return -1;
	return 0;
}

static int by_from_name(const char *s, ab_by *by)
{
	int i;

	for (i = AB_BY_PROBE; i <= AB_BY_REPLAY; i++)
		if (!strcmp(s, ab_by_name((ab_by)i))) {
			*by = (ab_by)i;
			return 0;
		}
	return -1;
}

int ab_session_exists(const char *work_dir)
{
	char *p = ab_path_join(work_dir, SESSION_FILE);
	int ok = access(p, F_OK) == 0;

	free(p);
	return ok;
}

static const char *str_field(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

ab_session *ab_session_load(const char *work_dir, ab_error *err)
{
	char *path = ab_path_join(work_dir, SESSION_FILE), *data = NULL;
	size_t len = 0, i;
	json_t *root = NULL, *argv, *steps, *v;
	json_error_t jerr;
	ab_session *s = NULL;
	ab_error rerr = {0};

	if (access(path, F_OK) < 0) {
		ab_error_set(err, AB_EXIT_USAGE,
			     _("no session in %s; start one with: artbisect start --index URL"),
			     work_dir);
		goto out;
	}
	if (ab_read_file(path, SESSION_MAX_BYTES, &data, &len, &rerr) < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, "%s", rerr.msg);
		goto out;
	}
	root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
	argv = json_object_get(root, "argv");
	steps = json_object_get(root, "steps");
	if (!root || !json_is_array(argv) || json_array_size(argv) < 1 ||
	    !json_is_string(json_array_get(argv, 0)) ||
	    strcmp(json_string_value(json_array_get(argv, 0)), "start") || !json_is_array(steps) ||
	    !str_field(root, "good") || !str_field(root, "bad") || !str_field(root, "result")) {
		char *q = ab_shell_quote(work_dir);

		ab_error_set(err, AB_EXIT_FAILURE,
			     _("%s: not a session file this version can read (%s); to remove it: artbisect reset --work-dir %s"),
			     path, root ? _("fields missing") : jerr.text, q);
		free(q);
		goto out;
	}
	s = ab_xcalloc(1, sizeof *s);
	s->argv = ab_xcalloc(json_array_size(argv) + 1, sizeof *s->argv);
	json_array_foreach(argv, i, v)
		s->argv[i] = ab_xstrdup(json_is_string(v) ? json_string_value(v) : "");
	s->index_url = ab_xstrdup(str_field(root, "index_url"));
	s->good = ab_xstrdup(str_field(root, "good"));
	s->bad = ab_xstrdup(str_field(root, "bad"));
	s->result = ab_xstrdup(str_field(root, "result"));
	s->current = ab_xstrdup(str_field(root, "current"));
	s->message = ab_xstrdup(str_field(root, "message"));
	s->started = ab_xstrdup(str_field(root, "started"));
	s->running_kernel = ab_xstrdup(str_field(root, "running_kernel"));
	json_array_foreach(json_object_get(root, "kernels"), i, v) {
		const char *t = str_field(v, "type"), *r = str_field(v, "release"), *nm = str_field(v, "names");
		if (t && r && nm)
			ab_session_add_kernel(s, str_field(v, "build"), t, r, nm);
	}
	/* Absent in sessions from before it was counted. */
	v = json_object_get(root, "downloaded_bytes");
	s->downloaded = json_is_integer(v) && json_integer_value(v) > 0 ? (int64_t)json_integer_value(v) : 0;
	v = json_object_get(root, "probe_step");
	s->probe_step = json_is_integer(v) && json_integer_value(v) > 0
		? (unsigned)json_integer_value(v) : 1;
	json_array_foreach(steps, i, v) {
		const char *id = str_field(v, "id"), *verdict = str_field(v, "verdict"),
			   *by = str_field(v, "by");
		ab_term t;
		ab_by b;

		if (!id || !verdict || !by || term_from_name(verdict, &t) < 0 ||
		    by_from_name(by, &b) < 0) {
			char *q = ab_shell_quote(work_dir);

			ab_error_set(err, AB_EXIT_FAILURE,
				     _("%s: step %zu is damaged; to remove the session: artbisect reset --work-dir %s"),
				     path, i + 1, q);
			free(q);
			ab_session_free(s);
			s = NULL;
			goto out;
		}
		{
			/* Sessions from before waits were measured have none. */
			json_t *w = json_object_get(v, "wait_seconds");

			add_step(s, id, t, b, json_number_value(json_object_get(v, "seconds")),
				 json_is_number(w) && json_number_value(w) >= 0 ? json_number_value(w) : -1,
				 str_field(v, "reason"), json_is_true(json_object_get(v, "bound")));
			s->steps[s->nsteps - 1].links = ab_xstrdup(str_field(v, "links"));
		}
	}
out:
	json_decref(root);
	free(data);
	free(path);
	return s;
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

int ab_session_save(const ab_session *s, const char *work_dir, ab_error *err)
{
	json_t *root = json_object(), *argv = json_array(), *steps = json_array();
	char *path, *text;
	size_t i;
	int rc;

	for (i = 0; s->argv[i]; i++)
		json_array_append_new(argv, json_string(s->argv[i]));
	for (i = 0; i < s->nsteps; i++) {
		const ab_session_step *st = &s->steps[i];
		json_t *o = json_pack("{s:s, s:s, s:s, s:f}", "id", st->id,
				      "verdict", ab_term_name(st->verdict), "by", ab_by_name(st->by),
				      "seconds", st->seconds);
		if (st->wait >= 0)
			json_object_set_new(o, "wait_seconds", json_real(ab_round_ms(st->wait)));
		if (st->reason)
			json_object_set_new(o, "reason", json_string(st->reason));
		if (st->bound)
			json_object_set_new(o, "bound", json_true());
		if (st->links)
			json_object_set_new(o, "links", json_string(st->links));
		json_array_append_new(steps, o);
	}
	json_object_set_new(root, "format", json_string("artbisect-session"));
	json_object_set_new(root, "version", json_integer(1));
	json_object_set_new(root, "argv", argv);
	json_object_set_new(root, "index_url", str_or_null(s->index_url));
	json_object_set_new(root, "good", json_string(s->good));
	json_object_set_new(root, "bad", json_string(s->bad));
	json_object_set_new(root, "result", json_string(s->result));
	json_object_set_new(root, "current", str_or_null(s->current));
	json_object_set_new(root, "message", str_or_null(s->message));
	json_object_set_new(root, "started", str_or_null(s->started));
	json_object_set_new(root, "probe_step", json_integer(s->probe_step));
	json_object_set_new(root, "downloaded_bytes", json_integer((json_int_t)s->downloaded));
	json_object_set_new(root, "steps", steps);
	if (s->running_kernel)
		json_object_set_new(root, "running_kernel", json_string(s->running_kernel));
	if (s->nkernels) {
		json_t *ks = json_array();
		for (i = 0; i < s->nkernels; i++)
			json_array_append_new(ks, json_pack("{s:s?, s:s, s:s, s:s}",
							   "build", s->kernels[i].build,
							   "type", s->kernels[i].type,
							   "release", s->kernels[i].release,
							   "names", s->kernels[i].names));
		json_object_set_new(root, "kernels", ks);
	}
	text = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (ab_mkdir_p(work_dir) < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot make %s: %s"), work_dir, strerror(errno));
		free(text);
		return -1;
	}
	path = ab_path_join(work_dir, SESSION_FILE);
	rc = ab_write_atomic(path, text, strlen(text), 0644, err);
	free(path);
	free(text);
	return rc;
}

int ab_session_remove(const char *work_dir, ab_error *err)
{
	static const char *const files[] = { SESSION_FILE, SNAPSHOT_FILE };
	char *p;
	size_t i;

	/* The roots first: when one cannot go (a file system still
	 * mounted in it), the session stays, and a second try finds it. */
	p = ab_path_join(work_dir, "roots");
	if (ab_remove_tree_err(p, err) < 0) {
		free(p);
		return -1;
	}
	free(p);
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		p = ab_path_join(work_dir, files[i]);
		if (unlink(p) < 0 && errno != ENOENT) {
			ab_error_set(err, AB_EXIT_FAILURE, _("cannot remove %s: %s"), p, strerror(errno));
			free(p);
			return -1;
		}
		free(p);
	}
	return 0;
}

/* Temporary files of an atomic save that never finished (the process
 * was killed, or exited while the snapshot's thread was writing): only
 * the lock's holder writes them, so once it is held they are stale. */
static void sweep_stale_tmp(const char *work_dir)
{
	static const char *const files[] = { SESSION_FILE ".tmp-", SNAPSHOT_FILE ".tmp-" };
	DIR *d = opendir(work_dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
			size_t k = strlen(files[i]);
			struct stat st;

			/* mkostemp's six characters, nothing else */
			if (strncmp(e->d_name, files[i], k) || strlen(e->d_name + k) != 6)
				continue;
			if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISREG(st.st_mode))
				unlinkat(dirfd(d), e->d_name, 0);
		}
	}
	closedir(d);
}

int ab_session_lock(const char *work_dir, ab_error *err)
{
	char *p;
	int fd;

	if (ab_mkdir_p(work_dir) < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("work directory %s cannot be made: %s"),
			     work_dir, strerror(errno));
		return -1;
	}
	p = ab_path_join(work_dir, LOCK_FILE);
	fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		int e = errno;

		/* A directory of ours may hold a lock another user left (a
		 * run as root): then the lock is what to name. */
		if (access(work_dir, W_OK) == 0)
			ab_error_set(err, AB_EXIT_FAILURE, _("%s is not writable: %s"), p, strerror(e));
		else
			ab_error_set(err, AB_EXIT_FAILURE, _("work directory %s is not writable: %s"),
				     work_dir, strerror(e));
		free(p);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		char pid[32] = "";
		ssize_t n = pread(fd, pid, sizeof pid - 1, 0);

		pid[n > 0 ? strcspn(pid, "\n") : 0] = '\0';
		ab_error_set(err, AB_EXIT_FAILURE,
			     _("another artbisect (process %s) is driving the session in %s; wait for it or stop it"),
			     pid[0] ? pid : "?", work_dir);
		close(fd);
		free(p);
		return -1;
	}
	sweep_stale_tmp(work_dir);
	/* Who holds it, for the message above; the lock itself is flock's. */
	if (ftruncate(fd, 0) == 0) {
		char pid[32];
		int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
		if (pwrite(fd, pid, (size_t)n, 0) < 0) {
			/* only informative */
		}
	}
	free(p);
	return fd;
}

void ab_session_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

char *ab_session_index_path(const char *work_dir)
{
	return ab_path_join(work_dir, SNAPSHOT_FILE);
}

ab_pending_write *ab_session_save_index(const char *work_dir, const char *data, size_t len)
{
	char *p = ab_session_index_path(work_dir);
	ab_pending_write *w = ab_write_begin(p, data, len, 0644);

	free(p);
	return w;
}

int ab_session_load_index(const char *work_dir, char **data, size_t *len, ab_error *err)
{
	char *p = ab_session_index_path(work_dir);
	ab_error rerr = {0};
	int rc = 0;

	if (access(p, F_OK) < 0)
		rc = 1;
	else if (ab_read_file(p, (size_t)1 << 31, data, len, &rerr) < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, "%s", rerr.msg);
		rc = -1;
	}
	free(p);
	return rc;
}

void ab_session_capture(ab_session *s, const ab_bisect *b)
{
	static const char *const results[] = { "running", "found", "inconclusive", "aborted" };
	size_t i;

	free_steps(s);
	for (i = 0; i < b->nsteps; i++) {
		const ab_step *st = &b->steps[i];
		/* settle() names failed builds again when the search ends. */
		if (st->by == AB_BY_FAILED_BUILD)
			continue;
		add_step(s, b->index->builds[st->index].id, st->verdict, st->by, st->seconds,
			 st->wait, st->reason, st->bound);
		s->steps[s->nsteps - 1].links = ab_xstrdup(st->links);
	}
	free(s->result);
	s->result = ab_xstrdup(results[b->result]);
	s->probe_step = b->probe_step;
	s->downloaded = __atomic_load_n(&b->downloaded, __ATOMIC_RELAXED);
}

int ab_session_apply(const ab_session *s, ab_bisect *b, int by_replay, ab_error *err)
{
	size_t i;

	for (i = 0; i < s->nsteps; i++) {
		const ab_session_step *st = &s->steps[i];
		ab_error ferr = {0};
		ssize_t pos = ab_index_find(b->index, st->id, &ferr);
		ab_by by = st->by;

		if (pos < 0) {
			if (s->log_label && st->line)
				ab_error_set(err, AB_EXIT_USAGE, _("%s, line %u: the index has no build %s"),
					     s->log_label, st->line, st->id);
			else
				ab_error_set(err, AB_EXIT_USAGE, _("the session names build %s, which the index does not have"),
					     st->id);
			return -1;
		}
		if (by_replay && by != AB_BY_UNAVAILABLE)
			by = AB_BY_REPLAY;
		/* An end's --check-bounds verdict is a step, never a move of
		 * the range: the engine does not see it. */
		if (st->bound ? ab_bisect_record_bound(b, (size_t)pos, st->verdict, by, st->seconds,
						       st->wait, st->reason) != 0
			      : ab_bisect_record(b, (size_t)pos, st->verdict, by, st->seconds, st->wait,
						 st->reason) != AB_ENGINE_OK) {
			if (s->log_label && st->line)
				ab_error_set(err, AB_EXIT_USAGE,
					     _("%s, line %u: the verdict '%s' on build %s contradicts the lines before it"),
					     s->log_label, st->line, ab_term_name(st->verdict), st->id);
			else
				ab_error_set(err, AB_EXIT_USAGE,
					     _("the session's verdict '%s' on build %s contradicts its earlier verdicts"),
					     ab_term_name(st->verdict), st->id);
			return -1;
		}
		b->steps[b->nsteps - 1].at = 0;	/* not timed by this process */
		b->steps[b->nsteps - 1].links = ab_xstrdup(st->links);
	}
	if (s->probe_step > b->probe_step)
		b->probe_step = s->probe_step;
	if (!by_replay)
		__atomic_fetch_add(&b->downloaded, s->downloaded, __ATOMIC_RELAXED);
	return 0;
}

/* Any line break or other control character in a comment becomes a
 * space, so that one step stays one line and the terminal the log is
 * shown on reads no escape (C1 controls and DEL included). */
static void put_comment(ab_buf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++) {
		if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0) {
			ab_buf_puts(out, " ");
			p++;
		} else {
			ab_buf_append(out, *p < 0x20 || *p == 0x7f ? (const unsigned char *)" " : p, 1);
		}
	}
}

/* Starts the comment of a --check-bounds step in the log. */
static const char bound_mark[] = "check-bounds ";

char *ab_session_log(const ab_session *s)
{
	ab_buf out = {0};
	size_t i;

	ab_buf_puts(&out, "# artbisect session log (artbisect replay FILE makes it again)\n");
	if (s->started) {
		ab_buf_puts(&out, "# started ");
		put_comment(&out, s->started);
		ab_buf_puts(&out, "\n");
	}
	ab_buf_puts(&out, "artbisect");
	for (i = 0; s->argv[i]; i++) {
		char *q = ab_shell_quote(s->argv[i]);
		ab_buf_printf(&out, " %s", q);
		free(q);
	}
	ab_buf_puts(&out, "\n");
	ab_buf_printf(&out, "# downloaded %lld bytes\n", (long long)s->downloaded);
	for (i = 0; i < s->nsteps; i++) {
		const ab_session_step *st = &s->steps[i];
		char *q = ab_shell_quote(st->id);

		/* "--": an id may start with '-' (it is no option). */
		ab_buf_printf(&out, "artbisect %s -- %s", ab_term_name(st->verdict), q);
		free(q);
		/* "check-bounds": an end's check, which replay keeps apart. */
		ab_buf_printf(&out, "  # %s%s", st->bound ? bound_mark : "", ab_by_name(st->by));
		if (st->reason) {
			ab_buf_puts(&out, ": ");
			put_comment(&out, st->reason);
		} else {
			if (st->seconds > 0)
				ab_buf_printf(&out, ", %.3f s", st->seconds);
			if (st->wait >= 0)
				ab_buf_printf(&out, ", waited %.3f s", st->wait);
		}
		ab_buf_puts(&out, "\n");
	}
	ab_buf_puts(&out, "# ");
	put_comment(&out, s->result);
	if (s->current) {
		ab_buf_puts(&out, ", waiting for a verdict on ");
		put_comment(&out, s->current);
	}
	ab_buf_puts(&out, "\n");
	return ab_buf_steal(&out);
}

/* Splits one line as a POSIX shell would for plain words, '...' and
 * backslashes (no expansions); stops at an unquoted '#' word. -1 when a
 * quote is not closed. */
static int split_words(const char *line, char ***words, size_t *n, char **comment)
{
	const char *p = line;

	*words = NULL;
	*n = 0;
	*comment = NULL;
	for (;;) {
		ab_buf w = {0};
		int have = 0;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n')
			break;
		if (*p == '#') {
			*comment = ab_xstrdup(p + 1);
			break;
		}
		while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
			if (p[0] == '$' && p[1] == '\'') {
				/* $'...': backslash escapes \\, \', \xHH (what
				 * ab_shell_quote writes) and \n, \t. */
				for (p += 2; *p && *p != '\''; p++) {
					char c = *p;

					if (c == '\\' && p[1]) {
						p++;
						if (*p == 'n')
							c = '\n';
						else if (*p == 't')
							c = '\t';
						else if (*p == 'x' && isxdigit((unsigned char)p[1])) {
							unsigned v = 0;
							int k;

							for (k = 0; k < 2 && isxdigit((unsigned char)p[1]); k++, p++)
								v = v * 16 + (unsigned)(isdigit((unsigned char)p[1])
									? p[1] - '0' : (tolower((unsigned char)p[1]) - 'a' + 10));
							c = (char)v;
						} else
							c = *p;
					}
					ab_buf_append(&w, &c, 1);
				}
				if (*p != '\'') {
					ab_buf_free(&w);
					return -1;
				}
				p++;
			} else if (*p == '\'') {
				const char *end = strchr(p + 1, '\'');
				if (!end) {
					ab_buf_free(&w);
					return -1;
				}
				ab_buf_append(&w, p + 1, (size_t)(end - p - 1));
				p = end + 1;
			} else if (*p == '\\' && p[1]) {
				ab_buf_append(&w, p + 1, 1);
				p += 2;
			} else {
				ab_buf_append(&w, p, 1);
				p++;
			}
			have = 1;
		}
		if (have || w.data) {
			*words = ab_xrealloc(*words, (*n + 2) * sizeof **words);
			(*words)[(*n)++] = w.data ? ab_buf_steal(&w) : ab_xstrdup("");
			(*words)[*n] = NULL;
		}
		ab_buf_free(&w);
	}
	return 0;
}

static void free_words(char **w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(w[i]);
	free(w);
}

/* The value after --good or --bad in a start line. */
static const char *start_value(char **w, size_t n, const char *opt)
{
	size_t i;

	for (i = 0; i + 1 < n; i++)
		if (!strcmp(w[i], opt))
			return w[i + 1];
	return NULL;
}

/* A blank or comment line of a log: the start time is kept for the
 * start line, and what was downloaded. */
static void parse_log_comment(ab_session *s, const char *comment, char **started)
{
	if (comment && !strncmp(comment, " started ", 9)) {
		free(*started);
		*started = ab_xstrdup(comment + 9);
		(*started)[strcspn(*started, "\r")] = '\0';
	} else if (comment && s && !strncmp(comment, " downloaded ", 12)) {
		long long v = strtoll(comment + 12, NULL, 10);

		s->downloaded = v > 0 ? v : 0;
	}
}

/* The start line w[0..n) makes *s, which takes *started. -1 with err
 * when it is a second one. */
static int parse_log_start(ab_session **s, char **w, size_t n, char **started,
			   const char *label, unsigned lineno, ab_error *err)
{
	const char *good = start_value(w, n, "--good");
	const char *bad = start_value(w, n, "--bad");

	if (*s) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s, line %u: a second start line"),
			     label, lineno);
		return -1;
	}
	*s = ab_session_new(w, good ? good : "", bad ? bad : "");
	if (*started) {
		free((*s)->started);
		(*s)->started = *started;
		*started = NULL;
	}
	return 0;
}

/* The comment keeps who gave the verdict ("user", "probe,
 * 1.250 s, waited 0.400 s", "unavailable: why"), so that a
 * replayed session is the same; a hand-written line is the
 * replay's own. *reason points into comment. */
static void parse_verdict_comment(const char *comment, ab_by *by, const char **reason,
				  double *secs, double *wait, int *bound)
{
	const char *c = comment + strspn(comment, " ");
	size_t wl;

	if (!strncmp(c, bound_mark, sizeof bound_mark - 1)) {
		*bound = 1;
		c += sizeof bound_mark - 1;
	}
	wl = strcspn(c, ",: ");
	char *word = ab_xstrndup(c, wl);
	ab_by named;

	if (by_from_name(word, &named) == 0) {
		const char *w8 = strstr(c + wl, ", waited ");

		*by = named;
		if (c[wl] == ':' && c[wl + 1] == ' ')
			*reason = c + wl + 2;
		else if (c[wl] == ',')
			*secs = strtod(c + wl + 1, NULL);
		if (!*reason && w8)
			*wait = strtod(w8 + 9, NULL);
		if (!(*wait < 1e12))
			*wait = -1;	/* nan, inf: not a wait */
	}
	free(word);
}

/* The verdict line w[0..n), whose first word is term t, adds a step
 * to s. -1 with err. */
static int parse_log_verdict(ab_session *s, char **w, size_t n, ab_term t, const char *comment,
			     const char *label, unsigned lineno, ab_error *err)
{
	ab_by by = AB_BY_REPLAY;
	const char *reason = NULL;
	double secs = 0, wait = -1;
	int bound = 0;
	size_t first = 0;

	if (!s) {
		ab_error_set(err, AB_EXIT_USAGE,
			     _("%s, line %u: a verdict before the start line"), label, lineno);
		return -1;
	}
	/* "bad -- ID", as the log writes it, or "bad ID". */
	if (n - first == 3 && !strcmp(w[first + 1], "--"))
		first++;
	if (n - first != 2) {
		ab_error_set(err, AB_EXIT_USAGE,
			     _("%s, line %u: expected '%s ID'"), label, lineno, w[first]);
		return -1;
	}
	if (comment)
		parse_verdict_comment(comment, &by, &reason, &secs, &wait, &bound);
	add_step(s, w[first + 1], t, by, secs, wait >= 0 ? wait : -1, reason, bound);
	return 0;
}

/* One line's words w[0..n) and comment, into *s. -1 with err. */
static int parse_log_line(ab_session **s, char **w, size_t n, const char *comment,
			  char **started, const char *label, unsigned lineno, ab_error *err)
{
	size_t first = 0;
	ab_term t;

	if (n > 0 && !strcmp(w[0], "artbisect"))
		first = 1;	/* the lines are commands; the word is optional */
	if (n == first) {
		parse_log_comment(*s, comment, started);
		return 0;
	}
	if (!strcmp(w[first], "start"))
		return parse_log_start(s, w + first, n - first, started, label, lineno, err);
	if (term_from_name(w[first], &t) == 0)
		return parse_log_verdict(*s, w + first, n - first, t, comment, label, lineno, err);
	ab_error_set(err, AB_EXIT_USAGE,
		     _("%s, line %u: expected start, good, bad or skip, got '%s'"),
		     label, lineno, w[first]);
	return -1;
}

ab_session *ab_session_parse_log(const char *text, const char *label, ab_error *err)
{
	ab_session *s = NULL;
	const char *line = text;
	char *started = NULL;
	unsigned lineno = 0;

	while (*line) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		char *copy = ab_xstrndup(line, len), **w = NULL, *comment = NULL;
		size_t n = 0;

		lineno++;
		line += len + (eol ? 1 : 0);
		if (split_words(copy, &w, &n, &comment) < 0) {
			ab_error_set(err, AB_EXIT_USAGE, _("%s, line %u: a quote is not closed"), label,
				     lineno);
			goto bad;
		}
		free(copy);
		copy = NULL;
		{
			int had = s != NULL;
			size_t steps = s ? s->nsteps : 0;

			if (parse_log_line(&s, w, n, comment, &started, label, lineno, err) < 0)
				goto bad;
			/* where each step came from, for the messages of replay */
			if (s && !had)
				s->start_line = lineno;
			if (s && s->nsteps > steps)
				s->steps[s->nsteps - 1].line = lineno;
		}
		free_words(w, n);
		free(comment);
		continue;
bad:
		free(copy);
		free_words(w, n);
		free(comment);
		ab_session_free(s);
		free(started);
		return NULL;
	}
	free(started);
	if (!s)
		ab_error_set(err, AB_EXIT_USAGE, _("%s: no 'artbisect start' line; is it a session log?"),
			     label);
	else
		s->log_label = ab_xstrdup(label);
	return s;
}
