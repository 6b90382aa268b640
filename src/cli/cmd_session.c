/* cmd_session.c - see cmd_ctx.h: the step-by-step commands (start,
 * good, bad, skip, run after a reboot, replay, status, log, reset). */
#include "config.h"
#include "cli/cmd_ctx.h"
#include "bisect/report_flaky.h"

static int prepare_and_say(ctx *c);
static void print_status_json(ctx *c);

/* run with --install system, after a boot: judges the kernel that runs
 * (the candidate, if it came up) with the probe, records it, installs
 * the next candidate and, with --reboot, reboots into it. A candidate
 * that did not come up (the machine fell back to another kernel) is
 * bad: it does not boot. */
/* The probe on the kernel that runs: 0 with its verdict in *t, -1 with
 * c->err (a probe that stopped the run: the session saved first). */
static int probe_running_kernel(ctx *c, const ab_build *bd, const char *root, ab_term *t)
{
	ab_probe_spec spec;
	ab_probe_result res;

	memset(&spec, 0, sizeof spec);
	spec.command = c->cli->probe;
	spec.root = root;
	spec.build_id = bd->id;
	spec.commit = bd->commit;
	spec.version = bd->version;
	spec.step = c->b->probe_step++;
	spec.timeout = c->cli->timeout;
	spec.grace = 5.0;
	spec.stdout_to_stderr = c->cli->json;
	spec.cancel = &cmd_interrupted;
	ab_mkdir_p(root);
	if (ab_probe_run(&spec, &res, &c->err) < 0)
		return -1;
	switch (res.outcome) {
	case AB_PROBE_GOOD: *t = AB_TERM_GOOD; return 0;
	case AB_PROBE_BAD: *t = AB_TERM_BAD; return 0;
	case AB_PROBE_SKIP: *t = AB_TERM_SKIP; return 0;
	case AB_PROBE_TIMEOUT: *t = c->cli->timeout_skip ? AB_TERM_SKIP : AB_TERM_BAD; return 0;
	default:
		ab_error_set(&c->err, AB_EXIT_ABORTED, _("the probe stopped the run on build %s"), bd->id);
		ctx_save(c);
		return -1;
	}
}

static int run_installed_step(ctx *c)
{
	const char *sysroot = c->cli->system_root ? c->cli->system_root : "/";
	const ab_build *bd;
	char *release, *running, *root;
	ab_term t;
	int status;

	if (!c->has_current)
		return prepare_and_say(c);	/* nothing installed yet */
	bd = &c->idx->builds[c->current];
	/* The release installing read off its packages; a session from
	 * before it was kept has only the file names' guess. */
	release = ab_xstrdup(ab_session_kernel_release(c->sess, bd->id));
	if (!release)
		release = ab_kernel_release(bd);
	if (!release)
		release = ab_xstrdup(bd->version ? bd->version : bd->id);
	running = ab_sys_running_release(sysroot);
	root = ab_bisect_root_path(c->b, c->current);
	if (!running || strcmp(running, release)) {
		t = AB_TERM_BAD;
		if (!c->cli->quiet) {
			char *id = ab_esc_term(bd->id), *run = ab_esc_term(running ? running : "?"),
			     *rel = ab_esc_term(release);

			fprintf(stderr, _("Build %s did not come up: kernel %s runs, not %s. It counts as bad.\n"),
				id, run, rel);
			free(id);
			free(run);
			free(rel);
		}
	} else if (!c->cli->probe) {
		char *good = ctx_hint_command(c, "good"), *bad = ctx_hint_command(c, "bad");

		ab_error_set(&c->err, AB_EXIT_USAGE,
			     _("run needs --probe to judge the running kernel (or type %s or %s)"), good, bad);
		free(good);
		free(bad);
		free(release);
		free(running);
		free(root);
		return ctx_fail(c);
	} else if (probe_running_kernel(c, bd, root, &t) < 0) {
		free(release);
		free(running);
		free(root);
		return ctx_fail(c);
	}
	ab_bisect_record(c->b, c->current, t, AB_BY_PROBE, 0, -1, NULL);
	ab_progress_verdict(&c->prog, c->b, &c->b->steps[c->b->nsteps - 1]);
	c->has_current = 0;
	if (!c->cli->keep_roots) {
		ab_error rm = {0};	/* what could not go (a mount) is said */

		if (ab_remove_tree_err(root, &rm) < 0)
			ab_message("%s", rm.msg);
	}
	ctx_save(c);
	free(release);
	free(running);
	free(root);
	status = prepare_and_say(c);
	if (status == 0 && c->b->result == AB_RESULT_RUNNING && c->has_current && c->cli->reboot) {
		if (!c->cli->quiet)
			fprintf(stderr, _("Rebooting into the next candidate.\n"));
		fflush(stdout);
		if (ab_sys_reboot(&c->err) < 0)
			return ctx_fail(c);
	}
	return status;
}

int ab_cmd_run(ab_cli *cli, int argc, char **argv)
{
	ctx c;
	int status;

	ctx_begin(&c, cli, argc, argv);
	if (ctx_open_saved(&c, 1, 1) < 0)
		status = ctx_fail_setup(&c);
	else if (c.b->result == AB_RESULT_FOUND || c.b->result == AB_RESULT_INCONCLUSIVE) {
		if (!cli->quiet)
			fprintf(stderr, _("The session in %s has ended already.\n"), c.work_dir);
		status = ctx_report(&c);
	} else if (c.cli->install_system) {
		c.b->result = AB_RESULT_RUNNING;
		status = run_installed_step(&c);
	} else {
		status = ctx_run(&c);
	}
	ctx_end(&c);
	return status;
}

/* ---- testing by hand: start, good/bad/skip, replay ---- */

/* What to do next, in plain words, on standard output. */
static void say_next(ctx *c, size_t idx, const char *root, const char *artifacts)
{
	const ab_build *bd = &c->idx->builds[idx];
	size_t left = ab_engine_candidate_count(c->b->engine);
	unsigned steps = ab_engine_steps_left(c->b->engine);
	char *good = ctx_hint_command(c, ab_bisect_old_term(c->b)), *bad = ctx_hint_command(c, ab_bisect_new_term(c->b)),
	     *skip = ctx_hint_command(c, "skip");
	const char *p, *q;
	char *id = ab_esc_term(bd->id), *version = ab_esc_term(bd->version), *commit = ab_esc_term(bd->commit);
	/* With --json, standard output holds the one JSON object only. */
	FILE *out = c->cli->json ? stderr : stdout;

	ab_progress_flush(&c->prog);
	fprintf(out, _("Build %s is ready to test"), id);
	if (version)
		fprintf(out, " (%s)", version);
	fprintf(out, ".\n");
	if (c->b->flaky) {
		char *state = ab_progress_flaky_state(c->b);
		unsigned fails, passes;

		ab_report_flaky_runs(c->b, idx, &fails, &passes);
		fprintf(out, _("So far: %s.\n"), state);
		if (fails + passes)
			fprintf(out, _("Its runs so far: %u failed, %u passed.\n"), fails, passes);
		free(state);
	} else {
		fprintf(out, ngettext("%zu build may be the first %s one; ", "%zu builds may be the first %s one; ", left),
		       left, ab_term_label(ab_bisect_new_term(c->b)));
		fprintf(out, ngettext("about %u more step after this one.\n", "about %u more steps after this one.\n",
				steps > 0 ? steps - 1 : 0),
		       steps > 0 ? steps - 1 : 0);
	}
	if (commit)
		fprintf(out, _("  commit:   %s\n"), commit);
	free(id);
	free(version);
	free(commit);
	/* The root and the files are named after the build's id and URLs. */
	id = ab_esc_term(root);
	fprintf(out, _("  unpacked: %s\n"), id);
	free(id);
	for (p = artifacts; p && *p; p = q) {
		char *line;

		q = strchr(p, '\n');
		line = ab_xstrndup(p, q ? (size_t)(q - p) : strlen(p));
		id = ab_esc_term(line);
		fprintf(out, _("  file:     %.*s\n"), (int)strlen(id), id);
		free(line);
		free(id);
		if (q)
			q++;
		else
			break;
	}
	fprintf(out, _("Test it (install the packages and reboot, if that is what it takes), then type\n"
		 "  %-40s if it works,\n  %-40s if it shows the problem,\n  %-40s if it cannot be tested.\n"),
	       c->b->opt.find_fix ? bad : good, c->b->opt.find_fix ? good : bad, skip);
	free(good);
	free(bad);
	free(skip);
}

/* --install system: the build's packages on the machine, its kernel the
 * default for the next boot only. 0, 1 when the packages were refused
 * (recorded as unavailable), -1 with err. */
static int install_on_system(ctx *c, size_t idx, const char *artifacts)
{
	const ab_build *bd = &c->idx->builds[idx];
	const char *sysroot = c->cli->system_root ? c->cli->system_root : "/";
	char *list = ab_xstrdup(artifacts ? artifacts : ""), *save = NULL, *p;
	const char **paths = ab_xcalloc(bd->nartifacts + 1, sizeof *paths);
	char *installed = NULL, *reason = NULL, *release = NULL, *how = NULL;
	size_t n = 0, a;
	int rc, deb = 0;

	for (p = strtok_r(list, "\n", &save); p && n < bd->nartifacts; p = strtok_r(NULL, "\n", &save))
		paths[n++] = p;
	for (a = 0; a < bd->nartifacts; a++)
		deb |= bd->artifacts[a].type == AB_ART_DEB;
	rc = ab_sys_install(bd, paths, n, sysroot, c->keyring, &installed, &release, &reason, &c->err);
	if (rc == 0) {
		if (!release) {
			/* No kernel package we know: take the version. */
			release = ab_xstrdup(bd->version ? bd->version : bd->id);
		}
		ab_session_add_kernel(c->sess, bd->id, deb ? "deb" : "rpm", release, installed);
		ctx_save(c);
		rc = ab_sys_oneshot(sysroot, release, &how, &c->err);
		if (rc >= 0 && !c->cli->quiet) {
			char *i = ab_esc_term(installed), *r = ab_esc_term(release), *h = ab_esc_term_lines(how);

			fprintf(stderr, rc == 0 ? _("Installed %s (kernel %s); next boot only: %s\n")
						: _("Installed %s (kernel %s); %s\n"),
				i, r, h);
			free(i);
			free(r);
			free(h);
		}
		rc = rc < 0 ? -1 : 0;
	} else if (rc > 0) {
		ab_bisect_record(c->b, idx, AB_TERM_SKIP, AB_BY_UNAVAILABLE, 0, -1, reason);
		ab_progress_verdict(&c->prog, c->b, &c->b->steps[c->b->nsteps - 1]);
		c->has_current = 0;
		ctx_save(c);
	}
	free(how);
	free(release);
	free(installed);
	free(reason);
	free(paths);
	free(list);
	return rc;
}

/* 'start' with the session's own options (its index, ends, farm and
 * cache settings): it makes the next build ready. Caller frees. */
static char *start_again_command(const ctx *c)
{
	char *cmd = ctx_hint_command(c, "start");
	ab_buf b = {0};

	ab_buf_puts(&b, cmd);
	for (size_t i = 1; c->sess->argv[i]; i++) {
		char *q = ab_shell_quote(c->sess->argv[i]);

		ab_buf_printf(&b, " %s", q);
		free(q);
	}
	free(cmd);
	return ab_buf_steal(&b);
}

/* After a Ctrl-C while the next build was being made ready: the
 * verdicts are kept, and 'start' goes on with them. */
static void say_start_again(const ctx *c)
{
	char *cmd = start_again_command(c);

	fprintf(stderr, _("The session is kept in %s; to go on: %s\n"), c->work_dir, cmd);
	free(cmd);
}

/* Prepares the next build (or ends), saves, and says what comes next. */
static int prepare_and_say(ctx *c)
{
	ab_bisect_callbacks cb;
	char *root = NULL, *artifacts = NULL;
	size_t idx;
	int rc;

	ctx_callbacks(c, &cb);
	cb.ready = NULL;
	c->has_current = 0;
	rc = ab_bisect_prepare_next(c->b, c->cache, &cb, &idx, &root, &artifacts, &c->err);
	if (rc < 0) {
		int status;

		ctx_save(c);
		status = ctx_fail(c);
		if (status == AB_EXIT_ABORTED && !c->cli->quiet && c->sess->argv && c->sess->argv[0])
			say_start_again(c);
		return status;
	}
	if (rc == 1) {
		ctx_save(c);
		return ctx_report(c);
	}
	c->current = idx;
	c->has_current = 1;
	ctx_save(c);
	if (c->cli->install_system) {
		int r = install_on_system(c, idx, artifacts);

		if (r < 0) {
			free(root);
			free(artifacts);
			return ctx_fail(c);
		}
		if (r > 0) {
			/* Refused: the build counts as unavailable; the next one. */
			free(root);
			free(artifacts);
			return prepare_and_say(c);
		}
	}
	say_next(c, idx, root, artifacts);
	if (c->cli->install_system && !c->cli->quiet)
		fprintf(c->cli->json ? stderr : stdout,
			_("It is installed and set as the default for the next boot only: reboot into it, test, then type one of the commands above.\n"));
	/* Automation gets where the session stands, as `status --json`. */
	if (c->cli->json)
		print_status_json(c);
	free(root);
	free(artifacts);
	return 0;
}

/* --install system on this machine takes root (rpm or dpkg on /, the
 * boot loader's one-shot tool): refused before anything is downloaded,
 * rather than every build turning out unavailable. -1 with err. */
static int system_needs_root(ctx *c)
{
	if (!c->cli->install_system || c->cli->system_root || geteuid() == 0)
		return 0;
	ab_error_set(&c->err, AB_EXIT_USAGE, "%s",
		     _("--install system installs each candidate on this machine, which needs root: run artbisect as root, or give --system-root DIR"));
	return -1;
}

int ab_cmd_start(ab_cli *cli, int argc, char **argv)
{
	ctx c;
	size_t good_idx, bad_idx;
	int status;

	ctx_begin(&c, cli, argc, argv);
	ctx_settings(&c);
	if (system_needs_root(&c) < 0) {
		status = ctx_fail(&c);
	} else if (ctx_open_new(&c, &good_idx, &bad_idx) < 0) {
		status = ctx_fail(&c);
		ctx_say_interrupted(&c, status, "start");
	} else {
		status = prepare_and_say(&c);
	}
	ctx_end(&c);
	return status;
}

int ab_cmd_verdict(ab_cli *cli, int argc, char **argv)
{
	ab_term t = cli->cmd == AB_CMD_GOOD ? AB_TERM_GOOD
		    : cli->cmd == AB_CMD_BAD ? AB_TERM_BAD : AB_TERM_SKIP;
	ctx c;
	ssize_t pos;
	int status;

	ctx_begin(&c, cli, argc, argv);
	if (ctx_open_saved(&c, 1, 1) < 0) {
		status = ctx_fail(&c);
		goto out;
	}
	if (c.b->result == AB_RESULT_FOUND || c.b->result == AB_RESULT_INCONCLUSIVE) {
		char *reset = ctx_hint_command(&c, "reset");

		ab_message(_("the session in %s has ended already; to clear it: %s"), c.work_dir, reset);
		free(reset);
		status = ctx_report(&c);
		goto out;
	}
	if (cli->verdict_id) {
		pos = ab_index_find(c.idx, cli->verdict_id, &c.err);
		if (pos < 0) {
			status = ctx_fail(&c);
			goto out;
		}
	} else if (c.has_current) {
		pos = (ssize_t)c.current;
	} else {
		/* Said here, not through c.err: the start command with all
		 * the session's options may be longer than an error holds. */
		char *verdict = ctx_hint_command(&c, ab_term_name(t)), *start = start_again_command(&c);

		ab_progress_flush(&c.prog);
		ab_message(_("no build is waiting for a verdict; name one (%s ID), or prepare the next with: %s"),
			   verdict, start);
		free(verdict);
		free(start);
		status = AB_EXIT_USAGE;
		goto out;
	}
	if (ab_bisect_record(c.b, (size_t)pos, t, AB_BY_USER, 0, -1, NULL) != AB_ENGINE_OK) {
		ab_error_set(&c.err, AB_EXIT_USAGE,
			     _("%s cannot be %s: so far the last %s build is %s and the earliest %s one is %s"),
			     c.idx->builds[pos].id, ab_term_label(ab_term_name(t)),
			     ab_term_label(ab_bisect_old_term(c.b)),
			     c.idx->builds[ab_engine_last_old(c.b->engine)].id,
			     ab_term_label(ab_bisect_new_term(c.b)),
			     c.idx->builds[ab_engine_first_new(c.b->engine)].id);
		status = ctx_fail(&c);
		goto out;
	}
	if (!cli->quiet) {
		char *id = ab_esc_term(c.idx->builds[pos].id);

		fprintf(stderr, _("Recorded: %s is %s.\n"), id, ab_term_label(ab_term_name(t)));
		free(id);
	}
	/* The verdict is on disk before anything else is tried. */
	if (c.has_current && (size_t)pos == c.current) {
		char *root = ab_bisect_root_path(c.b, c.current);

		c.has_current = 0;
		if (!c.cli->keep_roots) {
			ab_error rm = {0};	/* what could not go (a mount) is said */

			if (ab_remove_tree_err(root, &rm) < 0)
				ab_message("%s", rm.msg);
		}
		free(root);
	}
	/* A verdict goes on with a run that was stopped (the probe's
	 * abort, a Ctrl-C, 'q' at the prompt): why it stopped is no
	 * longer news, and the next build is made ready. */
	if (c.b->result == AB_RESULT_ABORTED)
		c.b->result = AB_RESULT_RUNNING;
	free(c.sess->message);
	c.sess->message = NULL;
	free(c.sess->result);
	c.sess->result = ab_xstrdup("running");
	ctx_save(&c);
	status = prepare_and_say(&c);
out:
	ctx_end(&c);
	return status;
}

int ab_cmd_replay(ab_cli *cli, int argc, char **argv)
{
	ctx c;
	char *text = NULL;
	size_t len = 0, good_idx, bad_idx;
	ab_session *log;
	int status;
	char **sargv;

	ctx_begin(&c, cli, argc, argv);
	if (ab_read_file(cli->replay_file, 64 << 20, &text, &len, &c.err) < 0) {
		status = ctx_fail(&c);
		goto out;
	}
	log = ab_session_parse_log(text, cli->replay_file, &c.err);
	free(text);
	if (!log) {
		status = ctx_fail(&c);
		goto out;
	}
	if (ctx_lock(&c) < 0) {
		ab_session_free(log);
		status = ctx_fail(&c);
		goto out;
	}
	/* Everything the log says is checked before the session it replaces
	 * goes: a bad line, an index out of reach or a contradiction leaves
	 * that session as it was. */
	c.sess = log;
	if (ctx_session_cli(&c) < 0) {
		status = AB_EXIT_USAGE;
		goto out;
	}
	ctx_settings(&c);
	if (system_needs_root(&c) < 0 || ctx_rpm(&c) < 0 || ctx_load_index(&c) < 0 ||
	    ctx_resolve(&c, log->good, log->bad, &good_idx, &bad_idx) < 0) {
		/* Named by the log's line that says it: the start line. */
		if (log->log_label && c.err.msg[0]) {
			char *msg = ab_xstrdup(c.err.msg);

			ab_error_set(&c.err, c.err.code, _("%s, line %u: %s"), log->log_label, log->start_line, msg);
			free(msg);
		}
		status = ctx_fail(&c);
		goto out;
	}
	sargv = ab_cli_session_argv(c.cli, c.idx->builds[good_idx].id, c.idx->builds[bad_idx].id);
	c.sess = ab_session_new(sargv, c.idx->builds[good_idx].id, c.idx->builds[bad_idx].id);
	ab_cli_argv_free(sargv);
	free(c.sess->started);
	c.sess->started = ab_xstrdup(log->started);
	c.sess->index_url = ab_xstrdup(c.idx->source_url);
	if (ctx_make_bisect(&c, good_idx, bad_idx) < 0 || ab_session_apply(log, c.b, 0, &c.err) < 0) {
		ab_session_free(log);
		status = ctx_fail(&c);
		goto out;
	}
	if (ab_session_exists(c.work_dir)) {
		if (!cli->quiet)
			fprintf(stderr, _("Replacing the session in %s.\n"), c.work_dir);
		if (ab_session_remove(c.work_dir, &c.err) < 0) {
			ab_session_free(log);
			status = ctx_fail(&c);
			goto out;
		}
	}
	if (ctx_keep_snapshot(&c, &c.err) < 0 || ctx_open_cache(&c) < 0) {
		ab_session_free(log);
		status = ctx_fail(&c);
		goto out;
	}
	/* The cli's strings point into the log's words; keep them. */
	ctx_save(&c);
	if (!cli->quiet)
		fprintf(stderr, ngettext("Replayed %zu verdict.\n", "Replayed %zu verdicts.\n",
					 log->nsteps), log->nsteps);
	status = prepare_and_say(&c);
	ab_session_free(log);
out:
	ctx_end(&c);
	return status;
}

/* ---- looking at a session ---- */

/* status without --json: where the session stands, in plain words.
 * Every string from the index or the session is escaped for the terminal. */
static void status_text(ctx *c)
{
	const ab_bisect *b = c->b;
	char *wd = ab_esc_term(c->work_dir), *started = ab_esc_term(c->sess->started ? c->sess->started : "?");
	char *msg = ab_esc_term(c->sess->message ? c->sess->message : "?");
	char *src = ab_esc_term(c->idx->source_url);
	char *lo = ab_esc_term(c->idx->builds[ab_engine_last_old(b->engine)].id);
	char *hi = ab_esc_term(c->idx->builds[ab_engine_first_new(b->engine)].id);

	printf(_("Session in %s, started %s: "), wd, started);
	switch (b->result) {
	case AB_RESULT_FOUND: printf(_("found.\n")); break;
	case AB_RESULT_INCONCLUSIVE: printf(_("ended, inconclusive.\n")); break;
	case AB_RESULT_ABORTED: printf(_("stopped (%s).\n"), msg); break;
	default: printf(_("running.\n")); break;
	}
	printf(_("  index:      %s\n"), src);
	/* The words of the report: "first" only once it is found. */
	if (b->result == AB_RESULT_FOUND)
		printf(_("  range:      last %s %s, first %s %s\n"), ab_term_label(ab_bisect_old_term(b)),
		       lo, ab_term_label(ab_bisect_new_term(b)), hi);
	else
		printf(_("  range:      last %s %s, known %s %s\n"), ab_term_label(ab_bisect_old_term(b)),
		       lo, ab_term_label(ab_bisect_new_term(b)), hi);
	if (b->flaky) {
		char *state = ab_progress_flaky_state(b);

		/* No build is ruled out under the flaky model: where the
		 * most likely one stands says more than a count. */
		printf(_("  flaky:      %s\n"), state);
		free(state);
	} else {
		printf(ngettext("  candidates: %zu build", "  candidates: %zu builds",
				ab_engine_candidate_count(b->engine)),
		       ab_engine_candidate_count(b->engine));
		if (b->result == AB_RESULT_RUNNING || b->result == AB_RESULT_ABORTED)
			printf(ngettext(", about %u more step\n", ", about %u more steps\n",
					ab_engine_steps_left(b->engine)),
			       ab_engine_steps_left(b->engine));
		else
			printf("\n");
	}
	printf(ngettext("  verdicts:   %zu\n", "  verdicts:   %zu\n", b->nsteps), b->nsteps);
	if (c->has_current && b->result != AB_RESULT_FOUND && b->result != AB_RESULT_INCONCLUSIVE) {
		char *root = ab_bisect_root_path(b, c->current), *r = ab_esc_term(root);
		char *id = ab_esc_term(c->idx->builds[c->current].id);

		if (access(root, F_OK) == 0) {
			printf(_("  waiting:    %s, unpacked in %s\n"), id, r);
		} else {
			/* quit at the prompt, or Ctrl-C, removed it */
			char *run = ctx_hint_command(c, "run");

			printf(_("  waiting:    %s (not unpacked now: %s unpacks it again)\n"), id, run);
			free(run);
		}
		free(root);
		free(r);
		free(id);
	}
	free(wd);
	free(started);
	free(msg);
	free(src);
	free(lo);
	free(hi);
}

/* The session as `status --json` gives it: the report, the build
 * waiting for a verdict ("current"), the work dir, why it stopped. */
static void print_status_json(ctx *c)
{
	json_t *rep = ab_report_json(c->b);
	char *s;

	json_object_set_new(rep, "current",
			    c->has_current && (c->b->result == AB_RESULT_RUNNING ||
					       c->b->result == AB_RESULT_ABORTED)
			    ? json_pack("{s:s, s:I}", "id", c->idx->builds[c->current].id,
					"index", (json_int_t)c->current)
			    : json_null());
	json_object_set_new(rep, "work_dir", json_string(c->work_dir));
	if (c->sess->message)
		json_object_set_new(rep, "message", json_string(c->sess->message));
	s = json_dumps(rep, AB_JSON_OUT);
	printf("%s\n", s);
	free(s);
	json_decref(rep);
}

int ab_cmd_status(ab_cli *cli, int argc, char **argv)
{
	ctx c;
	int status = 0, json = cli->json;

	ctx_begin(&c, cli, argc, argv);
	if (ctx_open_saved(&c, 0, 0) < 0) {
		status = ctx_fail(&c);
		goto out;
	}
	if (json) {
		print_status_json(&c);
		goto out;
	}
	status_text(&c);
out:
	ctx_end(&c);
	return status;
}

int ab_cmd_log(ab_cli *cli, int argc, char **argv)
{
	ctx c;
	char *text;
	int status = 0;

	ctx_begin(&c, cli, argc, argv);
	c.sess = ctx_load_session(&c);
	if (!c.sess) {
		status = ctx_fail(&c);
	} else {
		text = ab_session_log(c.sess);
		fputs(text, stdout);
		free(text);
	}
	ctx_end(&c);
	return status;
}

/* reset: every kernel --install system put on the machine goes, except
 * the one that was running when the session started and the one
 * running now. */
static int remove_kernels(ctx *c)
{
	struct utsname u;
	const char *sysroot = "/", *running = NULL;
	size_t i;

	c->sess = ab_session_load(c->work_dir, &c->err);
	if (!c->sess) {
		/* A session file that cannot be read names no kernels: it is
		 * removed all the same, as its error message says. */
		ab_error_clear(&c->err);
		return 0;
	}
	if (!c->sess->nkernels)
		return 0;
	if (ctx_session_cli(c) < 0) {
		ab_error_set(&c->err, AB_EXIT_USAGE, "%s", _("the saved session cannot be read"));
		return -1;
	}
	if (c->cli->system_root)
		sysroot = c->cli->system_root;
	else if (uname(&u) == 0)
		running = u.release;
	if (ab_rpm_init(&c->err) < 0)
		return -1;
	c->rpm_ready = 1;
	for (i = 0; i < c->sess->nkernels; i++) {
		const ab_session_kernel *k = &c->sess->kernels[i];
		/* Both were read off packages a farm sent. */
		char *names = ab_esc_term(k->names), *release = ab_esc_term(k->release);
		int rc = 0;

		if ((running && !strcmp(k->release, running)) ||
		    (c->sess->running_kernel && !strcmp(k->release, c->sess->running_kernel))) {
			printf(_("Kept %s: kernel %s is running (or was at the start).\n"), names, release);
		} else if (ab_sys_remove(sysroot, !strcmp(k->type, "deb") ? AB_ART_DEB : AB_ART_RPM,
					 k->names, &c->err) < 0) {
			rc = -1;
		} else {
			printf(_("Removed %s (kernel %s).\n"), names, release);
		}
		free(names);
		free(release);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int ab_cmd_reset(ab_cli *cli, int argc, char **argv)
{
	ctx c;
	int status = 0;

	ctx_begin(&c, cli, argc, argv);
	if (access(c.work_dir, F_OK) != 0) {
		printf(_("There is no session in %s.\n"), c.work_dir);	/* and nothing is made */
	} else if (ctx_lock(&c) < 0) {
		status = ctx_fail(&c);
	} else if (!ab_session_exists(c.work_dir)) {
		/* What a command that failed half-way may have left: its
		 * snapshot, its roots. */
		if (ab_session_remove(c.work_dir, &c.err) < 0)
			status = ctx_fail(&c);
		else
			printf(_("There is no session in %s.\n"), c.work_dir);
	} else if (remove_kernels(&c) < 0 || ab_session_remove(c.work_dir, &c.err) < 0) {
		status = ctx_fail(&c);
	} else {
		printf(_("The session in %s is removed; the download cache is kept.\n"), c.work_dir);
	}
	ctx_end(&c);
	return status;
}
