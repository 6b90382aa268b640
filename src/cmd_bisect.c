/* cmd_bisect.c - see cmd_bisect.h. */
#include "config.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bisect.h"
#include "cache.h"
#include "cmd_bisect.h"
#include "cmd_cache.h"
#include "digest.h"
#include "fetch.h"
#include "i18n.h"
#include "index.h"
#include "progress.h"
#include "repodata.h"
#include "rpmpkg.h"
#include "prompt.h"
#include "report.h"
#include "util.h"

/* The largest index document we read (a 1M-build index is ~300 MB). */
#define INDEX_MAX_BYTES ((size_t)1 << 30)

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: waits must wake up and see the flag. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* $XDG_<var> or ~/<fallback>, then /artbisect. */
static char *xdg_dir(const char *var, const char *fallback)
{
	const char *v = getenv(var), *home = getenv("HOME");

	if (v && v[0] == '/')
		return ab_path_join(v, "artbisect");
	if (!home || !*home)
		home = "/tmp";
	return ab_xasprintf("%s/%s/artbisect", home, fallback);
}

static ab_index *load_index(const char *arg, const char *package,
			    const ab_fetch_options *fopt, ab_error *err)
{
	char *url, *data = NULL;
	size_t len = 0;
	ab_index *idx = NULL;

	if (package)
		return ab_repodata_load(arg, package, fopt, err);
	url = ab_index_source_url(arg, err);
	if (!url)
		return NULL;
	if (ab_fetch_to_memory(url, fopt, INDEX_MAX_BYTES, &data, &len, err) == 0) {
		idx = ab_index_parse(data, len, url, err);
		free(data);
	} else if (err->code != AB_EXIT_ABORTED) {
		/* Whatever went wrong, an index that cannot be read is bad input. */
		err->code = AB_EXIT_USAGE;
	}
	free(url);
	return idx;
}

static int resolve_end(const ab_index *idx, const char *name, size_t dflt, size_t *out,
		       ab_error *err)
{
	ssize_t pos;

	if (!name) {
		*out = dflt;
		return 0;
	}
	pos = ab_index_find(idx, name, err);
	if (pos < 0)
		return -1;
	*out = (size_t)pos;
	return 0;
}

static void write_report_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		ab_message(_("cannot write the report to %s: %s"), path, strerror(errno));
}

static int all_unavailable(const ab_bisect *b)
{
	size_t i;

	for (i = 0; i < b->nsteps; i++)
		if (b->steps[i].by != AB_BY_UNAVAILABLE && b->steps[i].by != AB_BY_FAILED_BUILD)
			return 0;
	return 1;
}

int ab_cmd_bisect(const ab_cli *cli)
{
	ab_error err = {0};
	ab_fetch_options fopt;
	ab_bisect_options bopt;
	ab_bisect_callbacks cb;
	ab_progress prog;
	ab_index *idx = NULL;
	ab_cache *cache = NULL;
	ab_bisect *b = NULL;
	ab_rpm_keyring *keyring = NULL;
	char *cache_dir = NULL, *work_dir = NULL;
	size_t good_idx, bad_idx;
	int status = AB_EXIT_USAGE;

	catch_signals();
	ab_digest_init();
	ab_fetch_global_init();
	ab_progress_init(&prog, cli->quiet);

	ab_fetch_options_default(&fopt);
	fopt.cacert = cli->cacert;
	fopt.cancel = &interrupted;
	if (cli->net_timeout > 0) {
		fopt.stall_seconds = (long)(cli->net_timeout + 0.999);
		fopt.connect_timeout = fopt.stall_seconds;
	}

	if (!cli->probe && !ab_prompt_possible()) {
		ab_message(_("no --probe given and standard input is not a terminal: nobody can be asked for verdicts"));
		return AB_EXIT_USAGE;
	}

	if (ab_rpm_init(&err) < 0)
		goto fail;
	if (cli->nkeyrings) {
		keyring = ab_rpm_keyring_load(cli->keyrings, cli->nkeyrings, &err);
		if (!keyring)
			goto fail;
	}
	idx = load_index(cli->index, cli->package, &fopt, &err);
	if (!idx)
		goto fail;
	{
		/* Defaults: good is the oldest, bad the newest; --find-fix swaps. */
		size_t first = 0, last = idx->nbuilds - 1;
		if (resolve_end(idx, cli->good, cli->find_fix ? last : first, &good_idx, &err) < 0 ||
		    resolve_end(idx, cli->bad, cli->find_fix ? first : last, &bad_idx, &err) < 0)
			goto fail;
	}
	if (idx->builds[good_idx].failed || idx->builds[bad_idx].failed) {
		ab_error_set(&err, AB_EXIT_USAGE, _("build %s failed to build in the farm and cannot be an end of the range"),
			     idx->builds[idx->builds[good_idx].failed ? good_idx : bad_idx].id);
		goto fail;
	}

	cache_dir = cli->cache_dir ? ab_xstrdup(cli->cache_dir) : ab_default_cache_dir();
	work_dir = cli->work_dir ? ab_xstrdup(cli->work_dir) : xdg_dir("XDG_STATE_HOME", ".local/state");

	memset(&bopt, 0, sizeof bopt);
	bopt.probe = cli->probe;
	bopt.timeout = cli->timeout;
	bopt.timeout_skip = cli->timeout_skip;
	bopt.find_fix = cli->find_fix;
	bopt.keep_roots = cli->keep_roots;
	bopt.probe_stdout_to_stderr = cli->json;
	bopt.work_dir = work_dir;
	bopt.fetch = fopt;
	bopt.cancel = &interrupted;
	bopt.keyring = keyring;
	bopt.install_rpm = cli->install_rpm;
	bopt.prefetch = !cli->no_prefetch;
	bopt.jobs = cli->jobs;
	b = ab_bisect_new(idx, good_idx, bad_idx, &bopt, &err);
	if (!b)
		goto fail;

	cache = ab_cache_open(cache_dir, &err);
	if (!cache)
		goto fail;
	if (ab_mkdir_p(work_dir) < 0 || access(work_dir, W_OK) < 0) {
		ab_error_set(&err, AB_EXIT_FAILURE, _("work directory %s is not writable: %s"),
			     work_dir, strerror(errno));
		goto fail;
	}

	b->opt.cache_size = cli->cache_size > 0 ? (int64_t)cli->cache_size : ab_cache_default_cap(cache);

	memset(&cb, 0, sizeof cb);
	cb.ud = &prog;
	cb.choose = ab_progress_choose;
	cb.verdict = ab_progress_verdict;
	cb.ask = ab_prompt_ask;
	cb.fetch.progress = ab_progress_download;
	cb.fetch.notice = ab_progress_notice;
	cb.fetch.ud = &prog;

	if (!cli->quiet)
		fprintf(stderr, _("Bisecting %s: %zu builds from good %s to bad %s.\n"),
			idx->name ? idx->name : idx->label, ab_engine_candidate_count(b->engine) + 1,
			idx->builds[good_idx].id, idx->builds[bad_idx].id);

	if (ab_bisect_run(b, cache, &cb, &err) < 0 && err.code != AB_EXIT_ABORTED)
		goto fail;
	ab_progress_flush(&prog);

	status = ab_report_exit_status(b);
	/* Nothing could be tested at all: that is a failure, not an answer. */
	if (b->result == AB_RESULT_INCONCLUSIVE && b->tested == 0 && b->nsteps > 0 &&
	    all_unavailable(b)) {
		ab_message(_("every build tried was unavailable; see the reasons above"));
		status = AB_EXIT_FAILURE;
	}
	if (b->result == AB_RESULT_ABORTED && err.msg[0])
		ab_message("%s", err.msg);
	{
		char *text = ab_report_text(b);
		if (cli->json) {
			json_t *rep = ab_report_json(b);
			char *s = json_dumps(rep, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			if (!cli->quiet)
				fprintf(stderr, "\n%s", text);
			printf("%s\n", s);
			free(s);
			json_decref(rep);
		} else {
			printf("\n%s", text);
		}
		if (cli->report_file)
			write_report_file(cli->report_file, text);
		free(text);
	}
	goto out;

fail:
	ab_progress_flush(&prog);
	ab_message("%s", err.msg);
	status = err.code ? err.code : AB_EXIT_FAILURE;
out:
	fflush(stdout);
	ab_bisect_free(b);
	ab_cache_close(cache);
	ab_index_free(idx);
	ab_rpm_keyring_free(keyring);
	ab_rpm_cleanup();
	free(cache_dir);
	free(work_dir);
	return status;
}
