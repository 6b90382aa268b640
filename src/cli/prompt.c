/* prompt.c - see prompt.h. */
#include "config.h"
#include <ctype.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/escape.h"
#include "base/util.h"
#include "base/i18n.h"
#include "bisect/probe.h"
#include "bisect/report_flaky.h"
#include "engine/flaky.h"
#include "cli/progress.h"
#include "cli/prompt.h"

int ab_prompt_possible(void)
{
	return isatty(STDIN_FILENO);
}

/* Bold, and a color, only for a terminal that wants them. */
static int use_color(void)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");

	return isatty(STDERR_FILENO) && !(nc && *nc) && !(term && !strcmp(term, "dumb"));
}

/* An index string on standard error, as the terminal may show it. */
static void put_str(const char *s)
{
	char *t = ab_esc_term(s);

	fputs(t, stderr);
	free(t);
}

static void put_id(const char *id, const char *color)
{
	if (use_color())
		fprintf(stderr, "\033[1;%sm", color);
	put_str(id);
	if (use_color())
		fputs("\033[0m", stderr);
}

/* A shell inside the scratch root, for looking around before answering,
 * with the variables a probe gets that say which build it is. The
 * environment is made before fork(): prefetch threads may run. */
static void run_shell(const ab_build *bd, const char *root)
{
	static const char *const ours[] = { "ARTBISECT_ROOT=", "ARTBISECT_BUILD=",
					    "ARTBISECT_COMMIT=", "ARTBISECT_VERSION=" };
	const char *sh = getenv("SHELL");
	size_t i, out;
	char **env;
	pid_t pid;

	if (!sh || !*sh)
		sh = "/bin/sh";
	{
		char *r = ab_esc_term(root);	/* named after the build's id */

		fprintf(stderr, _("Starting %s in %s; exit it to come back here.\n"), sh, r);
		free(r);
	}
	env = ab_env_without(ours, sizeof ours / sizeof ours[0], 4, &out);
	env[out++] = ab_xasprintf("%s%s", ours[0], root);
	env[out++] = ab_xasprintf("%s%s", ours[1], bd->id);
	if (bd->commit)
		env[out++] = ab_xasprintf("%s%s", ours[2], bd->commit);
	if (bd->version)
		env[out++] = ab_xasprintf("%s%s", ours[3], bd->version);
	pid = fork();
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);	/* main.c ignores it */
		if (chdir(root) < 0)
			_exit(127);
		execle(sh, sh, (char *)NULL, env);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0)
			;
	for (i = 0; i < out; i++)
		free(env[i]);
	free(env);
}

/* --launch in the root, with the probe's environment; its status is
 * shown, never taken as a verdict: the person judges. */
static void launch(ab_prompt *p, const ab_bisect *b, size_t idx, const char *root)
{
	const ab_build *bd = &b->index->builds[idx];
	ab_probe_spec spec;
	ab_probe_result res;
	ab_error err = {0};

	memset(&spec, 0, sizeof spec);
	spec.command = p->launch;
	spec.root = root;
	spec.build_id = bd->id;
	spec.commit = bd->commit;
	spec.version = bd->version;
	spec.step = b->tested + 1;
	spec.grace = 5.0;
	spec.stdout_to_stderr = 1;
	spec.cancel = p->cancel;
	{
		char *r = ab_esc_term(root);

		fprintf(stderr, _("Running %s in %s\n"), p->launch, r);
		free(r);
	}
	if (ab_probe_run(&spec, &res, &err) < 0)
		fprintf(stderr, "%s\n", err.msg);
	else if (res.signal)
		fprintf(stderr, _("It was ended by signal %d.\n"), res.signal);
	else
		fprintf(stderr, _("It exited with status %d.\n"), res.status);
}

/* Under the flaky model no build is ruled out: the most likely ones,
 * with their probabilities and runs. */
#define LIST_FLAKY 12
static void list_flaky(const ab_bisect *b, size_t idx)
{
	size_t ranked[LIST_FLAKY], n, i;
	double p[LIST_FLAKY];

	n = ab_flaky_ranked(b->flaky, ranked, p, LIST_FLAKY);
	fprintf(stderr, _("  the most likely first %s builds:\n"), ab_term_label(ab_bisect_new_term(b)));
	for (i = 0; i < n; i++) {
		unsigned f, ps;
		char *id = ab_esc_term(b->index->builds[ranked[i]].id);

		ab_report_flaky_runs(b, ranked[i], &f, &ps);
		fprintf(stderr, _("  %-24s %.3f  %u failed, %u passed%s\n"), id, p[i], f, ps,
			ranked[i] == idx ? _(" (being tested)") : "");
		free(id);
	}
}

/* The builds that may still be the first new one, with what is known. */
static void list_left(const ab_bisect *b, size_t idx)
{
	size_t lo = ab_engine_last_old(b->engine), hi = ab_engine_first_new(b->engine), i;
	size_t shown = 0;

	char *id = ab_esc_term(b->index->builds[lo].id);

	fprintf(stderr, _("  %-24s last %s\n"), id, ab_term_label(ab_bisect_old_term(b)));
	free(id);
	for (i = lo + 1; i < hi; i++) {
		ab_verdict v = ab_engine_get(b->engine, i);
		const char *note = i == idx ? _("being tested")
				   : v == AB_V_SKIP ? _("skipped")
				   : v == AB_V_UNAVAILABLE ? _("unavailable")
				   : v == AB_V_FAILED ? _("failed to build") : "";

		if (shown++ == 40 && hi - i > 10) {
			fprintf(stderr, _("  ... %zu more\n"), hi - i - 1);
			i = hi - 2;
			continue;
		}
		id = ab_esc_term(b->index->builds[i].id);
		fprintf(stderr, "  %-24s %s\n", id, note);
		free(id);
	}
	id = ab_esc_term(b->index->builds[hi].id);
	fprintf(stderr, _("  %-24s known %s\n"), id, ab_term_label(ab_bisect_new_term(b)));
	free(id);
}

static int read_word(char *line, size_t n)
{
	char *s;

	if (!fgets(line, (int)n, stdin))
		return -1;
	for (s = line; isspace((unsigned char)*s); s++)
		;
	memmove(line, s, strlen(s) + 1);
	line[strcspn(line, " \t\r\n")] = '\0';
	for (s = line; *s; s++)
		*s = (char)tolower((unsigned char)*s);
	return 0;
}

static int is(const char *w, const char *letter, const char *word)
{
	return !strcmp(w, letter) || !strcmp(w, word);
}

ab_answer ab_prompt_ask(ab_prompt *p, const ab_bisect *b, size_t idx, const char *root)
{
	const ab_build *bd = &b->index->builds[idx];
	char line[256];

	ab_progress_flush(p->prog);
	fputs(_("Build "), stderr);
	put_id(bd->id, "33");
	{
		char *r = ab_esc_term(root);

		fprintf(stderr, _(" is ready in %s\n"), r);
		free(r);
	}
	if (p->launch)
		launch(p, b, idx, root);
	for (;;) {
		fputs(_("Is "), stderr);
		put_id(bd->id, "33");
		fputs(_(" good or bad? [g]ood [b]ad [s]kip [r]etry s[h]ell [l]ist [q]uit: "), stderr);
		fflush(stderr);
		if (read_word(line, sizeof line) < 0)
			return AB_ANSWER_QUIT;
		if (is(line, "g", "good"))
			return AB_ANSWER_GOOD;
		if (is(line, "b", "bad"))
			return AB_ANSWER_BAD;
		if (is(line, "s", "skip"))
			return AB_ANSWER_SKIP;
		if (is(line, "q", "quit"))
			return AB_ANSWER_QUIT;	/* the caller says how to go on */
		if (is(line, "h", "shell")) {
			run_shell(bd, root);
			continue;
		}
		if (is(line, "l", "list")) {
			if (b->flaky)
				list_flaky(b, idx);
			else
				list_left(b, idx);
			continue;
		}
		if (is(line, "r", "retry")) {
			if (p->launch) {
				launch(p, b, idx, root);
				continue;
			}
			return AB_ANSWER_RETRY;
		}
		if (line[0])
			fprintf(stderr, _("Please answer g, b, s, r, h, l or q.\n"));
	}
}

int ab_prompt_existing(ab_prompt *p, const char *work_dir, const char *good, const char *bad,
		       size_t nsteps)
{
	char line[256];

	ab_progress_flush(p->prog);
	{
		char *g = ab_esc_term(good), *b = ab_esc_term(bad), *w = ab_esc_term(work_dir);

		fprintf(stderr, ngettext("A session for another range (%s to %s, %zu verdict) is in progress in %s.\n",
					 "A session for another range (%s to %s, %zu verdicts) is in progress in %s.\n",
					 nsteps),
			g, b, nsteps, w);
		free(g);
		free(b);
		free(w);
	}
	for (;;) {
		fputs(_("[c]ontinue it, [r]eset it and start the new one, or [q]uit? "), stderr);
		fflush(stderr);
		if (read_word(line, sizeof line) < 0 || is(line, "q", "quit"))
			return 'q';
		if (is(line, "c", "continue"))
			return 'c';
		if (is(line, "r", "reset"))
			return 'r';
	}
}
