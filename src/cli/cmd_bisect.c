/* cmd_bisect.c - see cmd_bisect.h and cmd_ctx.h: opening a command's
 * context, running a bisection, reporting. */
#include "config.h"
#include "cli/cmd_ctx.h"

volatile sig_atomic_t cmd_interrupted;

/* 1 at the first signal, 2 at the next: a probe given its grace to
 * clean up is then killed at once (ab_cancelled_twice). */
static void on_signal(int sig)
{
	(void)sig;
	cmd_interrupted = cmd_interrupted ? 2 : 1;
}

/* flags 0 while the run goes on: waits must wake up and see the flag.
 * SA_RESTART once the report is written: a signal then must not cut a
 * write to a full pipe short (the flag is still set). */
static void catch_signals(int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

char *ab_default_work_dir(void)
{
	return ab_xdg_dir("XDG_STATE_HOME", ".local/state");
}

/* Everything one command holds. */

/* "artbisect good" with --work-dir when it is not the default, for hints. */
char *ctx_hint_command(const ctx *c, const char *word)
{
	char *q, *s;

	if (!c->cli->work_dir)
		return ab_xasprintf("artbisect %s", word);
	q = ab_shell_quote(c->cli->work_dir);
	s = ab_xasprintf("artbisect %s --work-dir %s", word, q);
	free(q);
	return s;
}

static const char *argv_value(char **argv, const char *opt);

/* Where the session is kept, and the command that goes on with it:
 * after a probe that could not run, with the probe it meant, or none
 * (the saved one would stop again); with a probe this command was
 * given instead of the saved one, that probe (run keeps the saved). */
static void say_kept(const ctx *c)
{
	char *run = ctx_hint_command(c, "run");
	const char *saved = c->sess ? argv_value(c->sess->argv, "--probe") : NULL;

	if (c->b && c->b->probe_fix) {
		char *q = ab_shell_quote(c->b->probe_fix);

		fprintf(stderr, _("The session is kept in %s; to go on: %s --probe %s\n"), c->work_dir,
			run, q);
		free(q);
	} else if (c->b && c->b->probe_unrunnable) {
		fprintf(stderr, _("The session is kept in %s; to go on, give %s a --probe that runs.\n"),
			c->work_dir, run);
	} else if (c->cli->probe && (!saved || strcmp(saved, c->cli->probe))) {
		char *q = ab_shell_quote(c->cli->probe);

		fprintf(stderr, _("The session is kept in %s; to go on: %s --probe %s\n"), c->work_dir,
			run, q);
		free(q);
	} else {
		fprintf(stderr, _("The session is kept in %s; to go on: %s\n"), c->work_dir, run);
	}
	free(run);
}

void ctx_say_interrupted(const ctx *c, int status, const char *word)
{
	ab_buf cmd = {0};

	if (status != AB_EXIT_ABORTED || c->cli->quiet)
		return;
	if (c->sess && c->work_dir && ab_session_exists(c->work_dir)) {
		say_kept(c);	/* the session it went on with */
		return;
	}
	/* The command as typed goes on with a session that is there, or
	 * replaces one that has ended, as it would have done; from the
	 * directory it was typed in, for the relative paths in it. */
	char *cwd = getcwd(NULL, 0);

	if (cwd) {
		char *q = ab_shell_quote(cwd);

		ab_buf_printf(&cmd, "cd %s && ", q);
		free(q);
		free(cwd);
	}
	ab_buf_puts(&cmd, "artbisect");
	if (word)
		ab_buf_printf(&cmd, " %s", word);
	for (int i = 1; i < c->argc; i++) {
		char *q = ab_shell_quote(c->argv[i]);

		ab_buf_printf(&cmd, " %s", q);
		free(q);
	}
	if (c->work_dir && ab_session_exists(c->work_dir))
		fprintf(stderr, _("The session is kept in %s; to go on: %s\n"), c->work_dir, cmd.data);
	else
		fprintf(stderr, _("Nothing was saved yet; to start again: %s\n"), cmd.data);
	ab_buf_free(&cmd);
}

void ctx_begin(ctx *c, ab_cli *cli, int argc, char **argv)
{
	memset(c, 0, sizeof *c);
	c->cli = cli;
	c->argc = argc;
	c->argv = argv;
	c->lock_fd = -1;
	catch_signals(0);
	ab_digest_init();
	ab_fetch_global_init();
	ab_progress_init(&c->prog, cli->quiet);
	c->work_dir = cli->work_dir ? ab_xstrdup(cli->work_dir)
				    : ab_default_work_dir();
}

/* Fetch settings and the cache directory, once cli is final. */
void ctx_settings(ctx *c)
{
	const ab_cli *cli = c->cli;

	ab_fetch_options_default(&c->fopt);
	c->fopt.cacert = cli->cacert;
	c->fopt.cancel = &cmd_interrupted;
	/* A remote index's URLs (artifacts, mirrors, repodata) stay on http
	 * and https; a body of unknown size stops at the cache cap. */
	c->fopt.http_only = cli->index && (!strncasecmp(cli->index, "http://", 7) ||
					    !strncasecmp(cli->index, "https://", 8));
	c->fopt.unknown_size_cap = cli->cache_size > 0 ? (int64_t)cli->cache_size : 0;
	if (cli->net_timeout > 0) {
		c->fopt.stall_seconds = (long)(cli->net_timeout + 0.999);
		c->fopt.connect_timeout = c->fopt.stall_seconds;
	}
	if (cli->retry_delay_set)
		c->fopt.backoff = cli->retry_delay;
	free(c->cache_dir);
	c->cache_dir = cli->cache_dir ? ab_xstrdup(cli->cache_dir) : ab_default_cache_dir();
	c->prog.quiet = cli->quiet;
	if (cli->max_unpacked > 0) {
		/* unpack.c reads the cap from its variable. */
		char num[32];
		snprintf(num, sizeof num, "%lld", cli->max_unpacked);
		setenv("ARTBISECT_MAX_UNPACKED", num, 1);
	}
	c->prompt.prog = &c->prog;
	c->prompt.launch = cli->launch;
	c->prompt.cancel = &cmd_interrupted;
}

void ctx_end(ctx *c)
{
	ab_progress_flush(&c->prog);
	fflush(stdout);
	ab_bisect_free(c->b);
	ctx_drop_index(c);
	ab_cache_close(c->cache);
	ctx_drop_snapshot(c);
	ctx_drop_index_bytes(c);
	ab_rpm_keyring_free(c->keyring);
	if (c->rpm_ready)
		ab_rpm_cleanup();
	ab_session_free(c->sess);
	ab_session_unlock(c->lock_fd);
	free(c->cache_dir);
	free(c->work_dir);
	free(c->hints);
}

/* Prints the error and gives its exit status. */
int ctx_fail(ctx *c)
{
	ab_progress_flush(&c->prog);
	ab_message("%s", c->err.msg);
	if (c->hints)
		fputs(c->hints, stderr);
	return c->err.code ? c->err.code : AB_EXIT_FAILURE;
}

static int resolve_end(ctx *c, const char *name, size_t dflt, size_t *out)
{
	ssize_t pos;

	if (!name || !*name) {
		*out = dflt;
		return 0;
	}
	pos = ab_index_find(c->idx, name, &c->err);
	if (pos < 0)
		return -1;
	*out = (size_t)pos;
	return 0;
}

/* Good and bad from names (defaults: the oldest and newest builds). */
int ctx_resolve(ctx *c, const char *good, const char *bad, size_t *good_idx,
		       size_t *bad_idx)
{
	size_t first = 0, last = c->idx->nbuilds - 1;
	int fix = c->cli->find_fix;

	if (resolve_end(c, good, fix ? last : first, good_idx) < 0 ||
	    resolve_end(c, bad, fix ? first : last, bad_idx) < 0)
		return -1;
	if (c->idx->builds[*good_idx].failed || c->idx->builds[*bad_idx].failed) {
		ab_error_set(&c->err, AB_EXIT_USAGE,
			     _("build %s failed to build in the farm and cannot be an end of the range"),
			     c->idx->builds[c->idx->builds[*good_idx].failed ? *good_idx : *bad_idx].id);
		return -1;
	}
	return 0;
}

/* The bisection, the cache and the work directory. */
int ctx_make_bisect(ctx *c, size_t good_idx, size_t bad_idx)
{
	const ab_cli *cli = c->cli;
	ab_bisect_options bopt;

	memset(&bopt, 0, sizeof bopt);
	bopt.probe = cli->probe;
	bopt.timeout = cli->timeout;
	bopt.timeout_skip = cli->timeout_skip;
	bopt.find_fix = cli->find_fix;
	bopt.keep_roots = cli->keep_roots;
	bopt.probe_stdout_to_stderr = cli->json;
	bopt.work_dir = c->work_dir;
	bopt.fetch = c->fopt;
	bopt.cancel = &cmd_interrupted;
	bopt.keyring = c->keyring;
	bopt.install_rpm = cli->install_rpm;
	bopt.prefetch = !cli->no_prefetch;
	bopt.jobs = cli->jobs;
	bopt.check_bounds = cli->check_bounds;
	bopt.flaky = cli->flaky;
	bopt.confidence = cli->confidence;
	bopt.max_probes = cli->max_probes;
	bopt.fail_rate_before = cli->fail_rate_before;
	bopt.fail_rate_after = cli->fail_rate_after;
	bopt.confirm = cli->confirm;
	c->b = ab_bisect_new(c->idx, good_idx, bad_idx, &bopt, &c->err);
	return c->b ? 0 : -1;
}

int ctx_open_cache(ctx *c)
{
	if (!c->cache)
		c->cache = ab_cache_open(c->cache_dir, &c->err);
	if (!c->cache)
		return -1;
	if (c->farm)
		ab_farm_set_cache(c->farm, c->cache, &c->b->opt.fetch);
	if (ab_mkdir_p(c->work_dir) < 0 || access(c->work_dir, W_OK) < 0) {
		ab_error_set(&c->err, AB_EXIT_FAILURE, _("work directory %s is not writable: %s"),
			     c->work_dir, strerror(errno));
		return -1;
	}
	c->b->opt.cache_size = c->cli->cache_size > 0 ? (int64_t)c->cli->cache_size
						      : ab_cache_default_cap(c->cache);
	return 0;
}

/* The settings of a saved session, under this command's own options. */
int ctx_session_cli(ctx *c)
{
	ab_cmd cmd = c->cli->cmd;
	char from[1024];
	int n = 0;

	while (c->sess->argv[n])
		n++;
	ab_cli_free(c->cli);
	if (ab_cli_init(c->cli, AB_CMD_START) < 0)
		return -1;
	if (c->sess->log_label)	/* replay: the log's start line */
		snprintf(from, sizeof from, _("%s, line %u"), c->sess->log_label, c->sess->start_line);
	else
		snprintf(from, sizeof from, _("the session in %s"), c->work_dir);
	if (ab_cli_parse(c->cli, n, c->sess->argv, AB_SRC_SESSION, from) != 0)
		return -1;
	c->cli->cmd = cmd;
	if (ab_cli_parse(c->cli, c->argc, c->argv, AB_SRC_ARGS, NULL) != 0)
		return -1;
	if (!c->cli->index) {
		ab_message(_("%s: the session names no index"), from);
		return -1;
	}
	return 0;
}

/* Whether a step holds a verdict (not just a build that could not be
 * had). */
static bool verdicts_given(const ab_bisect *b)
{
	for (size_t i = 0; i < b->nsteps; i++)
		if (b->steps[i].by != AB_BY_UNAVAILABLE && b->steps[i].by != AB_BY_FAILED_BUILD)
			return true;
	return false;
}

int ctx_lock(ctx *c)
{
	c->lock_fd = ab_session_lock(c->work_dir, &c->err);
	return c->lock_fd < 0 ? -1 : 0;
}

/* Writes the session as it stands; a failure is said but not fatal,
 * the run itself is worth more than its record. */
void ctx_save(ctx *c)
{
	ab_error err = {0};

	if (!c->sess || c->snapshot_failed)
		return;
	/* The session names its snapshot: the snapshot is on disk first.
	 * (Its own error: c->err may hold the run's.) */
	if (c->snapshot && ctx_keep_snapshot(c, &err) < 0) {
		c->snapshot_failed = 1;
		ab_progress_flush(&c->prog);
		ab_message(_("the session could not be saved: %s"), err.msg);
		return;
	}
	/* What the farm resolved since is kept too: a resumed session
	 * does not read those listings again. */
	if (c->farm && ab_farm_resolved_count(c->farm) != c->farm_saved) {
		char *snap = ab_farm_snapshot(c->farm), *path = ab_session_index_path(c->work_dir);

		if (ab_write_atomic(path, snap, strlen(snap), 0600, &err) == 0)
			c->farm_saved = ab_farm_resolved_count(c->farm);
		ab_error_clear(&err);
		free(snap);
		free(path);
	}
	if (c->b) {
		ab_session_capture(c->sess, c->b);
		free(c->sess->current);
		c->sess->current = c->has_current && c->b->result != AB_RESULT_FOUND &&
					   c->b->result != AB_RESULT_INCONCLUSIVE
				   ? ab_xstrdup(c->idx->builds[c->current].id) : NULL;
	}
	if (ab_session_save(c->sess, c->work_dir, &err) < 0) {
		ab_progress_flush(&c->prog);
		ab_message(_("the session could not be saved: %s"), err.msg);
	}
}

/* ---- callbacks: progress on the terminal, the session on disk ---- */

static void cb_choose(void *ud, const ab_bisect *b, size_t idx)
{
	ctx *c = ud;
	ab_progress_choose(&c->prog, b, idx);
}

static void cb_ready(void *ud, const ab_bisect *b, size_t idx, const char *root)
{
	ctx *c = ud;

	(void)b;
	(void)root;
	c->current = idx;
	c->has_current = 1;
	ctx_save(c);	/* a crash or a reboot now still knows the build */
}

static void cb_verdict(void *ud, const ab_bisect *b, const ab_step *s)
{
	ctx *c = ud;

	ab_progress_verdict(&c->prog, b, s);
	if (c->has_current && c->current == s->index)
		c->has_current = 0;
	ctx_save(c);
}

static ab_answer cb_ask(void *ud, const ab_bisect *b, size_t idx, const char *root)
{
	ctx *c = ud;
	return ab_prompt_ask(&c->prompt, b, idx, root);
}

void ctx_callbacks(ctx *c, ab_bisect_callbacks *cb)
{
	memset(cb, 0, sizeof *cb);
	cb->ud = c;
	cb->choose = cb_choose;
	cb->ready = cb_ready;
	cb->verdict = cb_verdict;
	cb->ask = cb_ask;
	cb->fetch.progress = ab_progress_download;
	cb->fetch.notice = ab_progress_notice;
	cb->fetch.ud = &c->prog;
}

/* ---- the report ---- */

/* 0, or -1 having said why and how to get the report again (the
 * session keeps what was found; a finished one reprints its report). */
static int write_report_file(const ctx *c, const char *path, const char *text)
{
	int e;
	char *run, *q, *abs;

	if (ab_write_plain(path, text, strlen(text)) == 0)
		return 0;
	e = errno;
	run = ctx_hint_command(c, "run");
	/* By its absolute path: the command may be pasted elsewhere. */
	abs = ab_cli_absolute_path(path);
	q = ab_shell_quote(abs ? abs : path);
	free(abs);
	ab_message(_("cannot write the report to %s: %s; once that is fixed, %s --report %s writes it again"),
		   path, strerror(e), run, q);
	free(q);
	free(run);
	return -1;
}

/* Whether the report on standard output was lost (a full disk, a closed
 * pipe); if so, says why and how to print it again. */
static int report_unwritten(const ctx *c)
{
	int e = fflush(stdout) != 0 ? errno : ferror(stdout) ? EIO : 0;
	char *run;

	if (!e)
		return 0;
	clearerr(stdout);	/* said here, not again at exit */
	run = ctx_hint_command(c, "run");
	ab_message(_("cannot write the report to standard output: %s; once that is fixed, %s%s prints it again"),
		   strerror(e), run, c->cli->json ? " --json" : "");
	free(run);
	return 1;
}

/* Whether --report names an HTML page (.html or .htm, in any case);
 * any other name gets the Markdown. */
static int html_name(const char *path)
{
	size_t n = strlen(path);

	return (n >= 5 && !strcasecmp(path + n - 5, ".html")) ||
	       (n >= 4 && !strcasecmp(path + n - 4, ".htm"));
}

static int all_unavailable(const ab_bisect *b)
{
	size_t i;

	/* A build its farm could not make is an answer, not a fault. */
	for (i = 0; i < b->nsteps; i++)
		if (b->steps[i].by != AB_BY_UNAVAILABLE)
			return 0;
	return 1;
}

/* Prints the report (text, or JSON on stdout with --json), writes
 * --report (HTML or Markdown, by its name), and gives the exit status. */
int ctx_report(ctx *c)
{
	const ab_bisect *b = c->b;
	int status = ab_report_exit_status(b);
	char *text = ab_report_text(b);

	ab_progress_flush(&c->prog);
	catch_signals(SA_RESTART);
	/* Nothing could be tested at all: that is a failure, not an answer. */
	if (b->result == AB_RESULT_INCONCLUSIVE && b->tested == 0 && b->nsteps > 0 &&
	    all_unavailable(b)) {
		/* --quiet leaves the reasons to the report that follows */
		if (!c->cli->quiet)
			ab_message(_("every build tried was unavailable; see the reasons above"));
		else if (!c->cli->json)
			ab_message(_("every build tried was unavailable; see the reasons below"));
		else
			ab_message(_("every build tried was unavailable; see the reasons in the report's steps"));
		status = AB_EXIT_FAILURE;
	}
	if (c->cli->json) {
		json_t *rep = ab_report_json(b);
		char *s;

		if (c->farm) {
			/* What reading the farm cost this run. */
			size_t fetched, revalidated;

			ab_farm_pages_read(c->farm, &fetched, &revalidated);
			json_object_set_new(rep, "farm",
					    json_pack("{s:s, s:I, s:I}", "layout", ab_farm_layout_name(c->farm),
						      "pages_fetched", (json_int_t)fetched,
						      "pages_revalidated", (json_int_t)revalidated));
		}
		/* Why a run stopped, as status --json and a failure give it. */
		if (b->result == AB_RESULT_ABORTED && c->sess && c->sess->message)
			json_object_set_new(rep, "message", json_string(c->sess->message));
		s = json_dumps(rep, AB_JSON_OUT);

		if (!c->cli->quiet)
			fprintf(stderr, "\n%s", text);
		printf("%s\n", s);
		free(s);
		json_decref(rep);
	} else {
		printf("\n%s", text);
	}
	if (report_unwritten(c))
		status = AB_EXIT_FAILURE;
	if (c->cli->report_file) {
		char *rep = html_name(c->cli->report_file) ? ab_report_html(b) : ab_report_markdown(b);
		if (write_report_file(c, c->cli->report_file, rep) < 0)
			status = AB_EXIT_FAILURE;
		free(rep);
	}
	free(text);
	return status;
}

/* ---- sessions that already exist ---- */

static const char *argv_value(char **argv, const char *opt)
{
	size_t i;

	for (i = 0; argv[i]; i++)
		if (!strcmp(argv[i], opt))
			return argv[i + 1];
	return NULL;
}

static int argv_has(char **argv, const char *opt)
{
	size_t i;

	for (i = 0; argv[i]; i++)
		if (!strcmp(argv[i], opt))
			return 1;
	return 0;
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The session keeps the index as an absolute URL: a later command may
 * run in another directory. */
static int ctx_absolute_index(ctx *c)
{
	char *url = ab_index_source_url(c->cli->index, &c->err);

	if (!url)
		return -1;
	c->cli->owned = ab_xrealloc(c->cli->owned, (c->cli->nowned + 1) * sizeof *c->cli->owned);
	c->cli->owned[c->cli->nowned++] = url;
	c->cli->index = url;
	return 0;
}

/* Whether the saved index is the document just read (the farm may have
 * moved to another host or port: the same builds, the same session). */
static int same_snapshot(ctx *c)
{
	char *data = NULL;
	size_t len = 0;
	ab_error err = {0};
	int same = 0;

	if (c->index_bytes && ab_session_load_index(c->work_dir, &data, &len, &err) == 0)
		same = len == c->index_len && !memcmp(data, c->index_bytes, len);
	free(data);
	return same;
}

/* What to do about a session found in the work directory when a new one
 * is asked for: 0 start afresh, 1 continue it (c->sess), -1 with err.
 * A finished session makes room; one for the same range is continued;
 * another one is never thrown away without asking. */
static int existing_session(ctx *c, size_t good_idx, size_t bad_idx)
{
	ab_session *s;
	int same;

	if (!ab_session_exists(c->work_dir))
		return 0;
	s = ab_session_load(c->work_dir, &c->err);
	if (!s)
		return -1;
	if ((!strcmp(s->result, "found") || !strcmp(s->result, "inconclusive")) && s->nkernels) {
		char *reset = ctx_hint_command(c, "reset");

		ab_error_set(&c->err, AB_EXIT_USAGE,
			     _("the finished session in %s installed kernels on this machine; remove them first with: %s"),
			     c->work_dir, reset);
		free(reset);
		ab_session_free(s);
		return -1;
	}
	if (!strcmp(s->result, "found") || !strcmp(s->result, "inconclusive")) {
		ab_session_free(s);
		if (ab_session_remove(c->work_dir, &c->err) < 0)
			return -1;
		return 0;
	}
	same = (same_str(s->index_url, c->idx->source_url) || same_snapshot(c)) &&
	       !strcmp(s->good, c->idx->builds[good_idx].id) &&
	       !strcmp(s->bad, c->idx->builds[bad_idx].id) &&
	       argv_has(s->argv, "--find-fix") == (c->cli->find_fix != 0) &&
	       same_str(argv_value(s->argv, "--package"), c->cli->package);
	if (same) {
		c->sess = s;
		if (!c->cli->quiet) {
			char *reset = ctx_hint_command(c, "reset");

			fprintf(stderr, ngettext("Continuing the session in %s (%zu verdict kept); to start over: %s\n",
						 "Continuing the session in %s (%zu verdicts kept); to start over: %s\n",
						 s->nsteps),
				c->work_dir, s->nsteps, reset);
			free(reset);
		}
		return 1;
	}
	if (ab_prompt_possible()) {
		int a = ab_prompt_existing(&c->prompt, c->work_dir, s->good, s->bad, s->nsteps);

		if (a == 'c') {
			/* Continue the old one: its own range and options. */
			c->sess = s;
			return 2;
		}
		if (a == 'r') {
			ab_session_free(s);
			if (ab_session_remove(c->work_dir, &c->err) < 0)
				return -1;
			return 0;
		}
		ab_session_free(s);
		ab_error_set(&c->err, AB_EXIT_ABORTED, _("nothing done; the session in %s is kept"),
			     c->work_dir);
		return -1;
	}
	{
		char *run = ctx_hint_command(c, "run"), *reset = ctx_hint_command(c, "reset");

		/* The commands on lines of their own, so that each pastes
		 * as printed, as start's hints do. */
		ab_error_set(&c->err, AB_EXIT_USAGE,
			     _("a session for another range (%s to %s, %zu verdicts) is in progress in %s; "
			       "use another --work-dir, or:"),
			     s->good, s->bad, s->nsteps, c->work_dir);
		c->hints = ab_xasprintf(_("  %-40s continues it,\n  %-40s removes it.\n"), run, reset);
		free(run);
		free(reset);
	}
	ab_session_free(s);
	return -1;
}

/* A new session for the command line's index and range, or the one
 * already there for that range. 0, or -1 with err. */
int ctx_open_new(ctx *c, size_t *good_idx, size_t *bad_idx)
{
	int ex;
	char **argv;

	if (ctx_absolute_index(c) < 0 ||
	    ctx_lock(c) < 0 || ctx_rpm(c) < 0 || ctx_load_index(c) < 0 ||
	    ctx_resolve(c, c->cli->good, c->cli->bad, good_idx, bad_idx) < 0)
		return -1;
	ex = existing_session(c, *good_idx, *bad_idx);
	if (ex < 0)
		return -1;
	if (ex == 2) {
		/* Going on with the older session, on its own terms. */
		ctx_drop_index(c);
		ctx_drop_snapshot(c);
		ctx_drop_index_bytes(c);
		ab_rpm_keyring_free(c->keyring);
		c->keyring = NULL;
		if (ctx_session_cli(c) < 0) {
			ab_error_set(&c->err, AB_EXIT_USAGE, "%s", _("the saved session cannot be read"));
			return -1;
		}
		ctx_settings(c);
		ab_error_clear(&c->keyring_err);
		if (c->cli->nkeyrings)
			c->keyring = ab_rpm_keyring_load(c->cli->keyrings, c->cli->nkeyrings,
							 &c->keyring_err);
		if (ctx_load_session_index(c) < 0 ||
		    ctx_resolve(c, c->sess->good, c->sess->bad, good_idx, bad_idx) < 0)
			return -1;
	}
	/* The range is checked before its snapshot is written: a refused
	 * one must not leave a copy of the index in the work directory. */
	if (ctx_make_bisect(c, *good_idx, *bad_idx) < 0)
		return -1;
	argv = ab_cli_session_argv(c->cli, c->idx->builds[*good_idx].id,
				   c->idx->builds[*bad_idx].id);
	if (ex == 0) {
		c->sess = ab_session_new(argv, c->idx->builds[*good_idx].id,
					 c->idx->builds[*bad_idx].id);
		if (c->cli->install_system && !c->cli->system_root) {
			/* The kernel running now is never removed by reset. */
			struct utsname u;
			if (uname(&u) == 0)
				c->sess->running_kernel = ab_xstrdup(u.release);
		}
		ctx_start_snapshot(c);
	} else {
		/* The options of this command are the session's from now on. */
		size_t i;

		for (i = 0; c->sess->argv[i]; i++)
			free(c->sess->argv[i]);
		free(c->sess->argv);
		c->sess->argv = argv;
		argv = NULL;
		ctx_start_snapshot(c);
	}
	ab_cli_argv_free(argv);
	free(c->sess->index_url);
	c->sess->index_url = ab_xstrdup(c->idx->source_url);
	if (ex != 0 && ab_session_apply(c->sess, c->b, 0, &c->err) < 0)
		return -1;
	if (c->sess->current) {
		ssize_t pos = ab_index_find(c->idx, c->sess->current, NULL);
		if (pos >= 0) {
			c->current = (size_t)pos;
			c->has_current = 1;
		}
	}
	free(c->sess->result);
	c->sess->result = ab_xstrdup("running");
	free(c->sess->message);
	c->sess->message = NULL;
	return ctx_open_cache(c);
}

/* The saved session, its settings and its bisection. need_cache: the
 * command downloads. 0, or -1 with err. */
ab_session *ctx_load_session(ctx *c)
{
	if (!ab_session_exists(c->work_dir)) {
		char *start = ctx_hint_command(c, "start --index URL");

		ab_error_set(&c->err, AB_EXIT_USAGE, _("no session in %s; start one with: %s"),
			     c->work_dir, start);
		free(start);
		return NULL;
	}
	return ab_session_load(c->work_dir, &c->err);
}

int ctx_open_saved(ctx *c, int lock, int need_cache)
{
	size_t good_idx, bad_idx;

	/* No session: said before the lock would make the work directory
	 * (a mistyped --work-dir leaves nothing behind). */
	if (!ab_session_exists(c->work_dir)) {
		c->sess = ctx_load_session(c);	/* says there is none */
		return -1;
	}
	if (lock && ctx_lock(c) < 0)
		return -1;
	c->sess = ab_session_load(c->work_dir, &c->err);
	if (!c->sess)
		return -1;
	if (ctx_session_cli(c) < 0) {
		ab_error_set(&c->err, AB_EXIT_USAGE, "%s", _("the saved session cannot be read"));
		return -1;
	}
	ctx_settings(c);
	if (need_cache && ctx_rpm(c) < 0)
		return -1;
	if (ctx_load_session_index(c) < 0 ||
	    ctx_resolve(c, c->sess->good, c->sess->bad, &good_idx, &bad_idx) < 0 ||
	    ctx_make_bisect(c, good_idx, bad_idx) < 0 ||
	    ab_session_apply(c->sess, c->b, 0, &c->err) < 0)
		return -1;
	if (c->sess->current) {
		ssize_t pos = ab_index_find(c->idx, c->sess->current, NULL);
		if (pos >= 0) {
			c->current = (size_t)pos;
			c->has_current = 1;
		}
	}
	ab_bisect_settle(c->b);
	if (!strcmp(c->sess->result, "aborted") && c->b->result == AB_RESULT_RUNNING)
		c->b->result = AB_RESULT_ABORTED;
	return need_cache ? ctx_open_cache(c) : 0;
}

/* ---- running with a probe or the prompt ---- */

/* With --json, automation still gets its one report object after a
 * failure (CONTRACT.md section 6): what was found before it, as
 * "aborted", with the message. */
static void failure_json(const ctx *c)
{
	json_t *rep;
	char *s;

	if (!c->cli->json || !c->b)
		return;
	rep = ab_report_json(c->b);
	json_object_set_new(rep, "message", json_string(c->err.msg));
	s = json_dumps(rep, AB_JSON_OUT);
	printf("%s\n", s);
	free(s);
	json_decref(rep);
}

int ctx_fail_setup(ctx *c)
{
	int status = ctx_fail(c);

	if (status == AB_EXIT_FAILURE && c->b && (c->b->result == AB_RESULT_RUNNING ||
						 c->b->result == AB_RESULT_ABORTED)) {
		c->b->result = AB_RESULT_ABORTED;
		failure_json(c);
	}
	return status;
}

int ctx_run(ctx *c)
{
	ab_bisect_callbacks cb;
	ab_bisect *b = c->b;

	if (c->cli->install_system) {
		ab_error_set(&c->err, AB_EXIT_USAGE, "%s",
			     _("--install system is for testing by hand across reboots: use 'artbisect start', then good, bad or skip (or 'artbisect run --probe CMD --reboot') after each boot"));
		return ctx_fail(c);
	}

	if (!c->cli->probe && !ab_prompt_possible()) {
		ab_error_set(&c->err, AB_EXIT_USAGE, "%s",
			     _("no --probe given and standard input is not a terminal: nobody can be asked for verdicts"));
		return ctx_fail(c);
	}
	ctx_callbacks(c, &cb);
	b->result = AB_RESULT_RUNNING;
	/* why an earlier run stopped is no longer news */
	free(c->sess->message);
	c->sess->message = NULL;
	ab_bisect_settle(b);
	/* A new session is written once its snapshot is in place, at the
	 * first build or verdict: the first download need not wait. */
	if (!c->snapshot)
		ctx_save(c);
	if (!c->cli->quiet && b->result == AB_RESULT_RUNNING) {
		char *name = ab_esc_term(c->idx->name ? c->idx->name : c->idx->label);
		char *good = ab_esc_term(c->idx->builds[c->b->opt.find_fix ? ab_engine_first_new(b->engine)
									 : ab_engine_last_old(b->engine)].id);
		char *bad = ab_esc_term(c->idx->builds[c->b->opt.find_fix ? ab_engine_last_old(b->engine)
									: ab_engine_first_new(b->engine)].id);

		fprintf(stderr, _("Bisecting %s: %zu builds from good %s to bad %s.\n"), name,
			ab_engine_candidate_count(b->engine) + 1, good, bad);
		free(name);
		free(good);
		free(bad);
	}
	if (ab_bisect_run(b, c->cache, &cb, &c->err) < 0 && c->err.code != AB_EXIT_ABORTED) {
		int status, kept = 1;

		b->result = AB_RESULT_ABORTED;
		free(c->sess->message);
		c->sess->message = ab_xstrdup(c->err.msg);
		ctx_save(c);
		status = ctx_fail(c);
		/* Bad input found before any verdict (a --flavour no build
		 * has; a build the farm failed to make may have been passed
		 * over on the way): nothing to go on with, so no session is
		 * left to block the corrected command. */
		if (c->farm && ab_farm_slipped(c->farm) && !verdicts_given(b)) {
			ab_error rm = {0};

			if (ab_session_remove(c->work_dir, &rm) < 0)
				ab_message("%s", rm.msg);
			ab_error_clear(&rm);
			kept = 0;
		}
		failure_json(c);
		if (!c->cli->quiet && kept)
			say_kept(c);
		return status;
	}
	if (b->result == AB_RESULT_ABORTED) {
		free(c->sess->message);
		c->sess->message = ab_xstrdup(c->err.msg[0] ? c->err.msg : _("stopped"));
	}
	ctx_save(c);
	ab_progress_flush(&c->prog);
	if (b->result == AB_RESULT_ABORTED && c->err.msg[0])
		ab_message("%s", c->err.msg);
	if (b->result == AB_RESULT_ABORTED && !c->cli->quiet)
		say_kept(c);
	return ctx_report(c);
}

int ab_cmd_bisect(ab_cli *cli, int argc, char **argv)
{
	ctx c;
	size_t good_idx, bad_idx;
	int status;

	ctx_begin(&c, cli, argc, argv);
	ctx_settings(&c);
	if (!cli->probe && !ab_prompt_possible()) {
		ab_message(_("no --probe given and standard input is not a terminal: nobody can be asked for verdicts"));
		ctx_end(&c);
		return AB_EXIT_USAGE;
	}
	if (ctx_open_new(&c, &good_idx, &bad_idx) < 0) {
		status = ctx_fail_setup(&c);
		ctx_say_interrupted(&c, status, NULL);
	} else {
		status = ctx_run(&c);
	}
	ctx_end(&c);
	return status;
}
