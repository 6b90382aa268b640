/* cmd_bisect.c - see cmd_bisect.h. */
#include "config.h"
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "bisect.h"
#include "cache.h"
#include "cmd_bisect.h"
#include "cmd_cache.h"
#include "digest.h"
#include "escape.h"
#include "fetch.h"
#include "filemap.h"
#include "i18n.h"
#include "index.h"
#include "indexgen.h"
#include "probe.h"
#include "progress.h"
#include "prompt.h"
#include "repodata.h"
#include "farms/farm.h"
#include "report.h"
#include "report_html.h"
#include "rpmpkg.h"
#include "session.h"
#include "sysinstall.h"
#include "rmtree.h"
#include "util.h"

/* The JSON on standard output: non-ASCII as \uXXXX, so that a C1
 * control in a string (U+009B is CSI to some terminals) is no raw byte
 * on a terminal; the values stay exactly the index's. Reals with 15
 * digits: seconds rounded to the millisecond read 0.03, not
 * 0.029999999999999999. */
#define AB_JSON_OUT (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(15))

/* The largest index document we read (a 1M-build index is ~300 MB). */
#define INDEX_MAX_BYTES ((size_t)1 << 30)
/* Smaller local indexes are copied: mapping saves nothing there. */
#define MAP_MIN_BYTES ((size_t)1 << 20)

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

char *ab_default_work_dir(void)
{
	return ab_xdg_dir("XDG_STATE_HOME", ".local/state");
}

/* Everything one command holds. */
typedef struct ctx {
	ab_cli *cli;
	int argc;
	char **argv;
	ab_progress prog;
	ab_prompt prompt;
	ab_fetch_options fopt;
	ab_error err;
	ab_index *idx;
	const char *index_bytes;	/* the document, for a new session's snapshot: */
	size_t index_len;
	char *index_buf;		/* in memory */
	ab_filemap *index_map;		/* or a local file read in place */
	ab_pending_write *snapshot;	/* being written while the run begins */
	int snapshot_failed;	/* then the session is never written */
	ab_rpm_keyring *keyring;
	int rpm_ready;
	ab_cache *cache;
	ab_bisect *b;
	char *cache_dir, *work_dir;
	ab_session *sess;
	int lock_fd;
	size_t current;		/* the build waiting for a verdict */
	int has_current;
	ab_farm *farm;		/* a real farm read from its listings: it owns
				 * idx and resolves builds as they come */
	size_t farm_saved;	/* builds resolved when its snapshot was saved */
	ab_error keyring_err;	/* --keyring as librpm could not read it */
} ctx;

/* "artbisect good" with --work-dir when it is not the default, for hints. */
static char *hint_command(const ctx *c, const char *word)
{
	char *q, *s;

	if (!c->cli->work_dir)
		return ab_xasprintf("artbisect %s", word);
	q = ab_shell_quote(c->cli->work_dir);
	s = ab_xasprintf("artbisect %s --work-dir %s", word, q);
	free(q);
	return s;
}

/* Where the session is kept, and the command that goes on with it. */
static void say_kept(const ctx *c)
{
	char *run = hint_command(c, "run");

	fprintf(stderr, _("The session is kept in %s; to go on: %s\n"), c->work_dir, run);
	free(run);
}

static void ctx_begin(ctx *c, ab_cli *cli, int argc, char **argv)
{
	memset(c, 0, sizeof *c);
	c->cli = cli;
	c->argc = argc;
	c->argv = argv;
	c->lock_fd = -1;
	catch_signals();
	ab_digest_init();
	ab_fetch_global_init();
	ab_progress_init(&c->prog, cli->quiet);
	c->work_dir = cli->work_dir ? ab_xstrdup(cli->work_dir)
				    : ab_default_work_dir();
}

/* Fetch settings and the cache directory, once cli is final. */
static void ctx_settings(ctx *c)
{
	const ab_cli *cli = c->cli;

	ab_fetch_options_default(&c->fopt);
	c->fopt.cacert = cli->cacert;
	c->fopt.cancel = &interrupted;
	/* A remote index's URLs (artifacts, mirrors, repodata) stay on http
	 * and https; a body of unknown size stops at the cache cap. */
	c->fopt.http_only = cli->index && (!strncasecmp(cli->index, "http://", 7) ||
					    !strncasecmp(cli->index, "https://", 8));
	c->fopt.unknown_size_cap = cli->cache_size > 0 ? (int64_t)cli->cache_size : 0;
	if (cli->net_timeout > 0) {
		c->fopt.stall_seconds = (long)(cli->net_timeout + 0.999);
		c->fopt.connect_timeout = c->fopt.stall_seconds;
	}
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
	c->prompt.cancel = &interrupted;
}

/* Starts writing the index snapshot of a new or replaced session on a
 * thread of its own: at a million builds it takes longer than the first
 * download's start, which need not wait for it. Only an accepted index
 * and range get here, so a refused run writes nothing. */
static void ctx_start_snapshot(ctx *c)
{
	if (c->index_bytes && !c->snapshot)
		c->snapshot = ab_session_save_index(c->work_dir, c->index_bytes, c->index_len);
}

/* Waits for the snapshot and puts it in place. 0, or -1 with err. */
static int ctx_keep_snapshot(ctx *c, ab_error *err)
{
	int rc;

	ctx_start_snapshot(c);
	/* A local index read in place and written to since: the snapshot
	 * may not hold the builds that were parsed. */
	ab_write_wait(c->snapshot);
	if (c->snapshot && c->index_map && ab_filemap_changed(c->index_map)) {
		ab_write_finish(c->snapshot, 0, NULL);
		c->snapshot = NULL;
		ab_error_set(err, AB_EXIT_FAILURE, _("%s changed after it was read"),
			     c->idx->label);
		return -1;
	}
	rc = ab_write_finish(c->snapshot, 1, err);
	c->snapshot = NULL;
	return rc;
}

static void ctx_drop_snapshot(ctx *c)
{
	ab_write_finish(c->snapshot, 0, NULL);
	c->snapshot = NULL;
}

static void ctx_drop_index_bytes(ctx *c)
{
	free(c->index_buf);
	c->index_buf = NULL;
	ab_filemap_close(c->index_map);
	c->index_map = NULL;
	c->index_bytes = NULL;
	c->index_len = 0;
}

/* The index, or the farm that owns it. */
static void ctx_drop_index(ctx *c)
{
	if (c->farm)
		ab_farm_free(c->farm);
	else
		ab_index_free(c->idx);
	c->farm = NULL;
	c->idx = NULL;
}

static void ctx_end(ctx *c)
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
}

/* Prints the error and gives its exit status. */
static int fail(ctx *c)
{
	ab_progress_flush(&c->prog);
	ab_message("%s", c->err.msg);
	return c->err.code ? c->err.code : AB_EXIT_FAILURE;
}

static int ctx_keyring_failed(ctx *c)
{
	c->err = c->keyring_err;
	return -1;
}

/* Keys librpm cannot read matter where RPMs are checked: any index
 * but a farm that is not Koji. */
static int ctx_check_keyring(ctx *c)
{
	if (c->keyring_err.code && (!c->farm || !strcmp(ab_farm_layout_name(c->farm), "koji")))
		return ctx_keyring_failed(c);
	return 0;
}

static int ctx_rpm(ctx *c)
{
	if (ab_rpm_init(&c->err) < 0)
		return -1;
	c->rpm_ready = 1;
	if (c->cli->nkeyrings) {
		/* librpm reads armored keys only; a farm whose signatures are
		 * checked with GnuPG (a binary keyring such as archlinux.gpg)
		 * does not need it: the failure stands once RPMs are read. */
		c->keyring = ab_rpm_keyring_load(c->cli->keyrings, c->cli->nkeyrings, &c->keyring_err);
		if (!c->keyring && !c->cli->farm && !strstr(c->cli->index, "://"))
			return ctx_keyring_failed(c);
	}
	return 0;
}

/* A big local index is read where it lies, in the page cache, instead
 * of being copied: at a million builds that is 271 MB of memory that is
 * never filled (a fifth of the load's time on a fresh machine). When the
 * file changed while it was parsed, it is read again the usual way. */
static int ctx_load_mapped_index(ctx *c, const char *url)
{
	char *path = ab_index_local_path(url);
	ab_error err = {0};

	c->index_map = path ? ab_filemap_open(path, MAP_MIN_BYTES, INDEX_MAX_BYTES) : NULL;
	free(path);
	if (!c->index_map)
		return 1;
	c->index_bytes = ab_filemap_data(c->index_map);
	c->index_len = ab_filemap_len(c->index_map);
	c->idx = ab_index_parse(c->index_bytes, c->index_len, url, &err);
	if (!ab_filemap_changed(c->index_map)) {
		if (!c->idx)
			ab_error_set(&c->err, err.code, "%s", err.msg);
		ab_error_clear(&err);
		return c->idx ? 0 : -1;
	}
	ab_error_clear(&err);
	ab_index_free(c->idx);
	c->idx = NULL;
	ctx_drop_index_bytes(c);
	return 1;
}

/* The index named on the command line (or in the session's options). */
/* A local directory of builds as a farm: the index `artbisect index DIR`
 * would write, made in memory (and kept as the session's snapshot). A
 * yum repository (DIR/repodata/repomd.xml) is read as one instead. 1
 * when dir is no such directory, else 0 or -1 with c->err. */
static int ctx_index_directory(ctx *c, const char *url)
{
	char *dir = ab_index_local_path(url), *repomd, *virt, *src;
	const char *paths[1], *package = c->cli->package;
	ab_indexgen_options o;
	struct stat st;

	if (dir && stat(dir, &st) < 0) {
		ab_error_set(&c->err, AB_EXIT_USAGE,
			     _("%s: %s (expected an artifact index, a yum repository or a directory of builds)"),
			     dir, strerror(errno));
		free(dir);
		return -1;
	}
	if (!dir || !S_ISDIR(st.st_mode)) {
		free(dir);
		return 1;
	}
	repomd = ab_path_join(dir, "repodata/repomd.xml");
	if (access(repomd, F_OK) == 0) {
		free(repomd);
		free(dir);
		return 1;
	}
	free(repomd);
	memset(&o, 0, sizeof o);
	virt = ab_path_join(dir, "index.json");	/* URLs relative to dir */
	o.output = virt;
	o.packages = package ? &package : NULL;
	o.npackages = package ? 1 : 0;
	paths[0] = dir;
	ab_digest_init();
	c->index_buf = ab_indexgen(paths, 1, &o, &c->err);
	if (c->index_buf) {
		c->index_len = strlen(c->index_buf);
		c->index_bytes = c->index_buf;
		src = ab_index_source_url(virt, &c->err);
		if (src)
			c->idx = ab_index_parse(c->index_bytes, c->index_len, src, &c->err);
		free(src);
	}
	free(virt);
	free(dir);
	return c->idx ? 0 : -1;
}

static void ctx_farm_options(ctx *c, ab_farm_options *o, const char *url)
{
	const ab_cli *cli = c->cli;

	memset(o, 0, sizeof *o);
	o->url = url;
	o->layout = cli->farm;
	o->arch = cli->arch;
	o->flavour = cli->flavour;
	o->packages = cli->packages;
	o->npackages = cli->npackages;
	o->keyrings = cli->keyrings;
	o->nkeyrings = cli->nkeyrings;
	o->allow_unverified = cli->allow_unverified;
	o->good = cli->good;
	o->bad = cli->bad;
	o->fetch = &c->fopt;
	o->rpm_keyring = c->keyring;
	o->cache = c->cache;
}

/* A real farm at url (its top listing in top[0..len) when read
 * already): its builds, and the snapshot a session keeps of them. */
static int ctx_open_farm(ctx *c, const char *url, const char *top, size_t len)
{
	ab_farm_options o;

	/* Listings are kept in the cache with their validators. */
	if (!c->cache && !(c->cache = ab_cache_open(c->cache_dir, &c->err)))
		return -1;
	ctx_farm_options(c, &o, url);
	o.top_page = top;
	o.top_len = len;
	c->farm = ab_farm_open(&o, &c->err);
	if (!c->farm)
		return -1;
	c->idx = ab_farm_index(c->farm);
	c->index_buf = ab_farm_snapshot(c->farm);
	c->index_bytes = c->index_buf;
	c->index_len = strlen(c->index_buf);
	return 0;
}

/* The farm a session's snapshot describes. */
static int ctx_resume_farm(ctx *c, const char *data, size_t len)
{
	ab_farm_options o;

	if (!c->cache && !(c->cache = ab_cache_open(c->cache_dir, &c->err)))
		return -1;
	ctx_farm_options(c, &o, c->sess->index_url);
	c->farm = ab_farm_resume(&o, data, len, &c->err);
	if (!c->farm)
		return -1;
	c->idx = ab_farm_index(c->farm);
	c->farm_saved = ab_farm_resolved_count(c->farm);
	return 0;
}

static int is_remote(const char *url)
{
	return !strncmp(url, "http://", 7) || !strncmp(url, "https://", 8);
}

/* Whether a remote document is a directory listing (HTML), not an index. */
static int looks_like_html(const char *d, size_t len)
{
	size_t i = 0;

	if (len >= 3 && !memcmp(d, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < len && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r'))
		i++;
	return i < len && d[i] == '<';
}

/* With --package: a yum repository, unless the URL is a listing that
 * has no repodata/ (a Koji package directory). */
static int listing_has_repodata(const char *d, size_t len, const char *url)
{
	ab_error e = {0};
	ab_listing *l = ab_listing_parse(d, len, url, &e);
	size_t i;
	int has = !l;

	for (i = 0; l && i < l->n; i++)
		if (l->entries[i].is_dir && !strcmp(l->entries[i].name, "repodata"))
			has = 1;
	ab_listing_free(l);
	return has;
}

static int ctx_read_index(ctx *c)
{
	const ab_cli *cli = c->cli;
	char *url;
	int rc;

	url = ab_index_source_url(cli->index, &c->err);
	if (!url)
		return -1;
	rc = ctx_index_directory(c, url);
	if (rc <= 0) {
		free(url);
		return rc;
	}
	/* A directory URL is a farm's listing: an index is a document. */
	if (cli->farm || (!cli->package && is_remote(url) && url[strlen(url) - 1] == '/')) {
		rc = ctx_open_farm(c, url, NULL, 0);
		free(url);
		return rc;
	}
	if (cli->package) {
		char *top = NULL;
		size_t len = 0;
		ab_error e = {0};
		if (is_remote(url) && ab_fetch_to_memory(url, &c->fopt, AB_LISTING_MAX_BYTES, &top, &len, &e) == 0 &&
		    looks_like_html(top, len) && !listing_has_repodata(top, len, url)) {
			rc = ctx_open_farm(c, url, top, len);
			free(top);
			free(url);
			return rc;
		}
		free(top);
		free(url);
		c->idx = ab_repodata_load(cli->index, cli->package, &c->fopt, &c->err);
		return c->idx ? 0 : -1;
	}
	rc = ctx_load_mapped_index(c, url);
	if (rc <= 0) {
		free(url);
		return rc;
	}
	if (ab_fetch_to_memory(url, &c->fopt, INDEX_MAX_BYTES, &c->index_buf, &c->index_len,
			       &c->err) == 0) {
		if (looks_like_html(c->index_buf, c->index_len)) {
			/* A directory listing: a real farm, read as it is. */
			char *top = c->index_buf;
			size_t len = c->index_len;

			c->index_buf = NULL;
			c->index_len = 0;
			rc = ctx_open_farm(c, url, top, len);
			free(top);
			free(url);
			return rc;
		}
		c->index_bytes = c->index_buf;
		c->idx = ab_index_parse(c->index_bytes, c->index_len, url, &c->err);
	} else if (c->err.code != AB_EXIT_ABORTED) {
		/* Whatever went wrong, an index that cannot be read is bad input. */
		c->err.code = AB_EXIT_USAGE;
	}
	free(url);
	return c->idx ? 0 : -1;
}

/* Says which commits the index gave that are not object names: they
 * are dropped (the library never prints). */
static void warn_dropped_commits(const ctx *c)
{
	size_t first = 0, n = ab_index_dropped_commits(c->idx, &first);
	char *label, *id;

	if (!n || c->cli->quiet)
		return;
	label = ab_esc_term(c->idx->label);
	id = ab_esc_term(c->idx->builds[first].id);
	if (n == 1)
		ab_message(_("%s: builds[%zu].commit (build %s) is not a git object name (7 to 64 hexadecimal digits); it is ignored"),
			   label, first, id);
	else
		ab_message(ngettext("%s: builds[%zu].commit (build %s) is not a git object name (7 to 64 hexadecimal digits); it and %zu other commit like it are ignored",
				    "%s: builds[%zu].commit (build %s) is not a git object name (7 to 64 hexadecimal digits); it and %zu other commits like it are ignored",
				    n - 1),
			   label, first, id, n - 1);
	free(label);
	free(id);
}

static int ctx_load_index(ctx *c)
{
	int rc = ctx_read_index(c);

	if (rc == 0)
		rc = ctx_check_keyring(c);

	if (rc == 0)
		warn_dropped_commits(c);
	return rc;
}

/* The session's snapshot parsed where it lies: 0, -1 with c->err, or 1
 * when it is small, missing or changed (then it is read into memory). */
static int ctx_load_mapped_snapshot(ctx *c)
{
	char *path = ab_session_index_path(c->work_dir);
	ab_filemap *m = ab_filemap_open(path, MAP_MIN_BYTES, SIZE_MAX);
	ab_error err = {0};
	int changed;

	free(path);
	if (!m)
		return 1;
	if (ab_farm_is_snapshot(ab_filemap_data(m), ab_filemap_len(m))) {
		ab_filemap_close(m);
		return 1;
	}
	c->idx = ab_index_parse(ab_filemap_data(m), ab_filemap_len(m), c->sess->index_url, &err);
	changed = ab_filemap_changed(m);
	ab_filemap_close(m);
	if (!changed && !c->idx)
		ab_error_set(&c->err, AB_EXIT_FAILURE, "%s", err.msg);
	ab_error_clear(&err);
	if (!changed)
		return c->idx ? 0 : -1;
	ab_index_free(c->idx);
	c->idx = NULL;
	return 1;
}

static int ctx_load_session_index_only(ctx *c);

/* A saved session bisects the index as it was when it started. */
static int ctx_load_session_index(ctx *c)
{
	int rc = ctx_load_session_index_only(c);

	return rc == 0 ? ctx_check_keyring(c) : rc;
}

static int ctx_load_session_index_only(ctx *c)
{
	char *data = NULL;
	size_t len = 0;
	int rc = c->sess->index_url ? ctx_load_mapped_snapshot(c) : 1;

	if (rc <= 0)
		return rc;
	rc = c->sess->index_url ? ab_session_load_index(c->work_dir, &data, &len, &c->err) : 1;
	if (rc < 0)
		return -1;
	if (rc == 1)
		return ctx_load_index(c);
	if (ab_farm_is_snapshot(data, len)) {
		rc = ctx_resume_farm(c, data, len);
		free(data);
		if (rc < 0 && c->err.code != AB_EXIT_ABORTED)
			c->err.code = AB_EXIT_FAILURE;
		return rc;
	}
	c->idx = ab_index_parse(data, len, c->sess->index_url, &c->err);
	free(data);
	if (!c->idx) {
		c->err.code = AB_EXIT_FAILURE;
		return -1;
	}
	return 0;
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
static int ctx_resolve(ctx *c, const char *good, const char *bad, size_t *good_idx,
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
static int ctx_make_bisect(ctx *c, size_t good_idx, size_t bad_idx)
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
	bopt.cancel = &interrupted;
	bopt.keyring = c->keyring;
	bopt.install_rpm = cli->install_rpm;
	bopt.prefetch = !cli->no_prefetch;
	bopt.jobs = cli->jobs;
	bopt.check_bounds = cli->check_bounds;
	c->b = ab_bisect_new(c->idx, good_idx, bad_idx, &bopt, &c->err);
	return c->b ? 0 : -1;
}

static int ctx_open_cache(ctx *c)
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
static int ctx_session_cli(ctx *c)
{
	ab_cmd cmd = c->cli->cmd;
	char from[1024];
	int n = 0;

	while (c->sess->argv[n])
		n++;
	ab_cli_free(c->cli);
	if (ab_cli_init(c->cli, AB_CMD_START) < 0)
		return -1;
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

static int ctx_lock(ctx *c)
{
	c->lock_fd = ab_session_lock(c->work_dir, &c->err);
	return c->lock_fd < 0 ? -1 : 0;
}

/* Writes the session as it stands; a failure is said but not fatal,
 * the run itself is worth more than its record. */
static void ctx_save(ctx *c)
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

static void ctx_callbacks(ctx *c, ab_bisect_callbacks *cb)
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

static void write_report_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		ab_message(_("cannot write the report to %s: %s"), path, strerror(errno));
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
static int ctx_report(ctx *c)
{
	const ab_bisect *b = c->b;
	int status = ab_report_exit_status(b);
	char *text = ab_report_text(b);

	ab_progress_flush(&c->prog);
	/* Nothing could be tested at all: that is a failure, not an answer. */
	if (b->result == AB_RESULT_INCONCLUSIVE && b->tested == 0 && b->nsteps > 0 &&
	    all_unavailable(b)) {
		ab_message(_("every build tried was unavailable; see the reasons above"));
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
		s = json_dumps(rep, AB_JSON_OUT);

		if (!c->cli->quiet)
			fprintf(stderr, "\n%s", text);
		printf("%s\n", s);
		free(s);
		json_decref(rep);
	} else {
		printf("\n%s", text);
	}
	if (c->cli->report_file) {
		char *rep = html_name(c->cli->report_file) ? ab_report_html(b) : ab_report_markdown(b);
		write_report_file(c->cli->report_file, rep);
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
		char *reset = hint_command(c, "reset");

		ab_error_set(&c->err, AB_EXIT_USAGE,
			     _("the finished session in %s installed kernels on this machine; '%s' removes them first"),
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
			char *reset = hint_command(c, "reset");

			fprintf(stderr, ngettext("Continuing the session in %s (%zu verdict kept; '%s' starts over).\n",
						 "Continuing the session in %s (%zu verdicts kept; '%s' starts over).\n",
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
		char *run = hint_command(c, "run"), *reset = hint_command(c, "reset");

		ab_error_set(&c->err, AB_EXIT_USAGE,
			     _("a session for another range (%s to %s, %zu verdicts) is in progress in %s: "
			       "'%s' continues it, '%s' removes it, or use another --work-dir"),
			     s->good, s->bad, s->nsteps, c->work_dir, run, reset);
		free(run);
		free(reset);
	}
	ab_session_free(s);
	return -1;
}

/* A new session for the command line's index and range, or the one
 * already there for that range. 0, or -1 with err. */
static int ctx_open_new(ctx *c, size_t *good_idx, size_t *bad_idx)
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
static int ctx_open_saved(ctx *c, int lock, int need_cache)
{
	size_t good_idx, bad_idx;

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

static int ctx_run(ctx *c)
{
	ab_bisect_callbacks cb;
	ab_bisect *b = c->b;

	if (c->cli->install_system) {
		ab_error_set(&c->err, AB_EXIT_USAGE, "%s",
			     _("--install system is for testing by hand across reboots: use 'artbisect start', then good, bad or skip (or 'artbisect run --probe CMD --reboot') after each boot"));
		return fail(c);
	}

	if (!c->cli->probe && !ab_prompt_possible()) {
		ab_error_set(&c->err, AB_EXIT_USAGE, "%s",
			     _("no --probe given and standard input is not a terminal: nobody can be asked for verdicts"));
		return fail(c);
	}
	ctx_callbacks(c, &cb);
	b->result = AB_RESULT_RUNNING;
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
		int status;

		b->result = AB_RESULT_ABORTED;
		free(c->sess->message);
		c->sess->message = ab_xstrdup(c->err.msg);
		ctx_save(c);
		status = fail(c);
		if (c->cli->json) {
			/* Automation still gets its one report object: what was
			 * found before the failure, as "aborted". */
			json_t *rep = ab_report_json(b);
			char *s;

			json_object_set_new(rep, "message", json_string(c->err.msg));
			s = json_dumps(rep, AB_JSON_OUT);
			printf("%s\n", s);
			free(s);
			json_decref(rep);
		}
		if (!c->cli->quiet)
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
	if (ctx_open_new(&c, &good_idx, &bad_idx) < 0)
		status = fail(&c);
	else
		status = ctx_run(&c);
	ctx_end(&c);
	return status;
}

static int prepare_and_say(ctx *c);

/* run with --install system, after a boot: judges the kernel that runs
 * (the candidate, if it came up) with the probe, records it, installs
 * the next candidate and, with --reboot, reboots into it. A candidate
 * that did not come up (the machine fell back to another kernel) is
 * bad: it does not boot. */
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
		ab_error_set(&c->err, AB_EXIT_USAGE, "%s",
			     _("run needs --probe to judge the running kernel (or type artbisect good or bad)"));
		free(release);
		free(running);
		free(root);
		return fail(c);
	} else {
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
		spec.cancel = &interrupted;
		ab_mkdir_p(root);
		if (ab_probe_run(&spec, &res, &c->err) < 0) {
			free(release);
			free(running);
			free(root);
			return fail(c);
		}
		switch (res.outcome) {
		case AB_PROBE_GOOD: t = AB_TERM_GOOD; break;
		case AB_PROBE_BAD: t = AB_TERM_BAD; break;
		case AB_PROBE_SKIP: t = AB_TERM_SKIP; break;
		case AB_PROBE_TIMEOUT: t = c->cli->timeout_skip ? AB_TERM_SKIP : AB_TERM_BAD; break;
		default:
			ab_error_set(&c->err, AB_EXIT_ABORTED, _("the probe stopped the run on build %s"), bd->id);
			ctx_save(c);
			free(release);
			free(running);
			free(root);
			return fail(c);
		}
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
			return fail(c);
	}
	return status;
}

int ab_cmd_run(ab_cli *cli, int argc, char **argv)
{
	ctx c;
	int status;

	ctx_begin(&c, cli, argc, argv);
	if (ctx_open_saved(&c, 1, 1) < 0)
		status = fail(&c);
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
	char *good = hint_command(c, ab_bisect_old_term(c->b)), *bad = hint_command(c, ab_bisect_new_term(c->b)),
	     *skip = hint_command(c, "skip");
	const char *p, *q;
	char *id = ab_esc_term(bd->id), *version = ab_esc_term(bd->version), *commit = ab_esc_term(bd->commit);

	ab_progress_flush(&c->prog);
	printf(_("Build %s is ready to test"), id);
	if (version)
		printf(" (%s)", version);
	printf(".\n");
	printf(ngettext("%zu build may be the first %s one; ", "%zu builds may be the first %s one; ", left),
	       left, ab_bisect_new_term(c->b));
	printf(ngettext("about %u more step after this one.\n", "about %u more steps after this one.\n",
			steps > 0 ? steps - 1 : 0),
	       steps > 0 ? steps - 1 : 0);
	if (commit)
		printf(_("  commit:   %s\n"), commit);
	free(id);
	free(version);
	free(commit);
	/* The root and the files are named after the build's id and URLs. */
	id = ab_esc_term(root);
	printf(_("  unpacked: %s\n"), id);
	free(id);
	for (p = artifacts; p && *p; p = q) {
		char *line;

		q = strchr(p, '\n');
		line = ab_xstrndup(p, q ? (size_t)(q - p) : strlen(p));
		id = ab_esc_term(line);
		printf(_("  file:     %.*s\n"), (int)strlen(id), id);
		free(line);
		free(id);
		if (q)
			q++;
		else
			break;
	}
	printf(_("Test it (install the packages and reboot, if that is what it takes), then type\n"
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
	char *installed = NULL, *reason = NULL, *release = ab_kernel_release(bd), *how = NULL;
	size_t n = 0;
	int rc;

	for (p = strtok_r(list, "\n", &save); p && n < bd->nartifacts; p = strtok_r(NULL, "\n", &save))
		paths[n++] = p;
	rc = ab_sys_install(bd, paths, n, sysroot, c->keyring, &installed, &reason, &c->err);
	if (rc == 0) {
		if (!release) {
			/* Not a kernel package name we know: take the version. */
			release = ab_xstrdup(bd->version ? bd->version : bd->id);
		}
		ab_session_add_kernel(c->sess, bd->artifacts[0].type == AB_ART_DEB ? "deb" : "rpm",
				      release, installed);
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
		ctx_save(c);
		return fail(c);
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
			return fail(c);
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
		printf(_("It is installed and set as the default for the next boot only: reboot into it, test, then type one of the commands above.\n"));
	free(root);
	free(artifacts);
	return 0;
}

int ab_cmd_start(ab_cli *cli, int argc, char **argv)
{
	ctx c;
	size_t good_idx, bad_idx;
	int status;

	ctx_begin(&c, cli, argc, argv);
	ctx_settings(&c);
	if (ctx_open_new(&c, &good_idx, &bad_idx) < 0)
		status = fail(&c);
	else
		status = prepare_and_say(&c);
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
		status = fail(&c);
		goto out;
	}
	if (c.b->result == AB_RESULT_FOUND || c.b->result == AB_RESULT_INCONCLUSIVE) {
		char *reset = hint_command(&c, "reset");

		ab_message(_("the session in %s has ended already; '%s' clears it"), c.work_dir, reset);
		free(reset);
		status = ctx_report(&c);
		goto out;
	}
	if (cli->verdict_id) {
		pos = ab_index_find(c.idx, cli->verdict_id, &c.err);
		if (pos < 0) {
			status = fail(&c);
			goto out;
		}
	} else if (c.has_current) {
		pos = (ssize_t)c.current;
	} else {
		ab_error_set(&c.err, AB_EXIT_USAGE,
			     _("no build is waiting for a verdict; name one (artbisect %s ID), or 'artbisect start' prepares the next"),
			     ab_term_name(t));
		status = fail(&c);
		goto out;
	}
	if (ab_bisect_record(c.b, (size_t)pos, t, AB_BY_USER, 0, -1, NULL) != AB_ENGINE_OK) {
		ab_error_set(&c.err, AB_EXIT_USAGE,
			     _("%s cannot be %s: the last %s build is %s and the first %s build is %s"),
			     c.idx->builds[pos].id, ab_term_name(t), ab_bisect_old_term(c.b),
			     c.idx->builds[ab_engine_last_old(c.b->engine)].id, ab_bisect_new_term(c.b),
			     c.idx->builds[ab_engine_first_new(c.b->engine)].id);
		status = fail(&c);
		goto out;
	}
	if (!cli->quiet) {
		char *id = ab_esc_term(c.idx->builds[pos].id);

		fprintf(stderr, _("Recorded: %s is %s.\n"), id, ab_term_name(t));
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
	int status, n = 0;
	char **sargv;

	ctx_begin(&c, cli, argc, argv);
	if (ab_read_file(cli->replay_file, 64 << 20, &text, &len, &c.err) < 0) {
		status = fail(&c);
		goto out;
	}
	log = ab_session_parse_log(text, cli->replay_file, &c.err);
	free(text);
	if (!log) {
		status = fail(&c);
		goto out;
	}
	if (ctx_lock(&c) < 0) {
		ab_session_free(log);
		status = fail(&c);
		goto out;
	}
	if (ab_session_exists(c.work_dir)) {
		if (!cli->quiet)
			fprintf(stderr, _("Replacing the session in %s.\n"), c.work_dir);
		if (ab_session_remove(c.work_dir, &c.err) < 0) {
			ab_session_free(log);
			status = fail(&c);
			goto out;
		}
	}
	/* The log's options, under this command's own. */
	c.sess = log;
	while (log->argv[n])
		n++;
	if (ctx_session_cli(&c) < 0) {
		status = AB_EXIT_USAGE;
		goto out;
	}
	ctx_settings(&c);
	if (ctx_rpm(&c) < 0 || ctx_load_index(&c) < 0 ||
	    ctx_resolve(&c, log->good, log->bad, &good_idx, &bad_idx) < 0) {
		status = fail(&c);
		goto out;
	}
	sargv = ab_cli_session_argv(c.cli, c.idx->builds[good_idx].id, c.idx->builds[bad_idx].id);
	c.sess = ab_session_new(sargv, c.idx->builds[good_idx].id, c.idx->builds[bad_idx].id);
	ab_cli_argv_free(sargv);
	free(c.sess->started);
	c.sess->started = ab_xstrdup(log->started);
	c.sess->index_url = ab_xstrdup(c.idx->source_url);
	if (ctx_keep_snapshot(&c, &c.err) < 0 ||
	    ctx_make_bisect(&c, good_idx, bad_idx) < 0 ||
	    ab_session_apply(log, c.b, 0, &c.err) < 0 || ctx_open_cache(&c) < 0) {
		ab_session_free(log);
		status = fail(&c);
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
		printf(_("  range:      last %s %s, first %s %s\n"), ab_bisect_old_term(b), lo,
		       ab_bisect_new_term(b), hi);
	else
		printf(_("  range:      last %s %s, known %s %s\n"), ab_bisect_old_term(b), lo,
		       ab_bisect_new_term(b), hi);
	printf(ngettext("  candidates: %zu build", "  candidates: %zu builds",
			ab_engine_candidate_count(b->engine)),
	       ab_engine_candidate_count(b->engine));
	if (b->result == AB_RESULT_RUNNING || b->result == AB_RESULT_ABORTED)
		printf(ngettext(", about %u more step\n", ", about %u more steps\n",
				ab_engine_steps_left(b->engine)),
		       ab_engine_steps_left(b->engine));
	else
		printf("\n");
	printf(ngettext("  verdicts:   %zu\n", "  verdicts:   %zu\n", b->nsteps), b->nsteps);
	if (c->has_current && b->result != AB_RESULT_FOUND && b->result != AB_RESULT_INCONCLUSIVE) {
		char *root = ab_bisect_root_path(b, c->current), *r = ab_esc_term(root);
		char *id = ab_esc_term(c->idx->builds[c->current].id);

		printf(_("  waiting:    %s, unpacked in %s\n"), id, r);
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

int ab_cmd_status(ab_cli *cli, int argc, char **argv)
{
	ctx c;
	int status = 0, json = cli->json;

	ctx_begin(&c, cli, argc, argv);
	if (ctx_open_saved(&c, 0, 0) < 0) {
		status = fail(&c);
		goto out;
	}
	if (json) {
		json_t *rep = ab_report_json(c.b);
		char *s;

		json_object_set_new(rep, "current",
				    c.has_current && (c.b->result == AB_RESULT_RUNNING ||
						      c.b->result == AB_RESULT_ABORTED)
				    ? json_pack("{s:s, s:I}", "id", c.idx->builds[c.current].id,
						"index", (json_int_t)c.current)
				    : json_null());
		json_object_set_new(rep, "work_dir", json_string(c.work_dir));
		if (c.sess->message)
			json_object_set_new(rep, "message", json_string(c.sess->message));
		s = json_dumps(rep, AB_JSON_OUT);
		printf("%s\n", s);
		free(s);
		json_decref(rep);
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
	c.sess = ab_session_load(c.work_dir, &c.err);
	if (!c.sess) {
		status = fail(&c);
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
	if (!c->sess)
		return -1;
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

		if ((running && !strcmp(k->release, running)) ||
		    (c->sess->running_kernel && !strcmp(k->release, c->sess->running_kernel))) {
			printf(_("Kept %s: kernel %s is running (or was at the start).\n"), k->names, k->release);
			continue;
		}
		if (ab_sys_remove(sysroot, !strcmp(k->type, "deb") ? AB_ART_DEB : AB_ART_RPM, k->names,
				  &c->err) < 0)
			return -1;
		printf(_("Removed %s (kernel %s).\n"), k->names, k->release);
	}
	return 0;
}

int ab_cmd_reset(ab_cli *cli, int argc, char **argv)
{
	ctx c;
	int status = 0;

	ctx_begin(&c, cli, argc, argv);
	if (ctx_lock(&c) < 0) {
		status = fail(&c);
	} else if (!ab_session_exists(c.work_dir)) {
		printf(_("There is no session in %s.\n"), c.work_dir);
	} else if (remove_kernels(&c) < 0 || ab_session_remove(c.work_dir, &c.err) < 0) {
		status = fail(&c);
	} else {
		printf(_("The session in %s is removed; the download cache is kept.\n"), c.work_dir);
	}
	ctx_end(&c);
	return status;
}
