/* cmd_load.c - see cmd_ctx.h: the index a command bisects, read from
 * a file, a URL, a directory, a yum repository, a real farm or the
 * session's snapshot. */
#include "config.h"
#include "cli/cmd_ctx.h"

/* Starts writing the index snapshot of a new or replaced session on a
 * thread of its own: at a million builds it takes longer than the first
 * download's start, which need not wait for it. Only an accepted index
 * and range get here, so a refused run writes nothing. */
void ctx_start_snapshot(ctx *c)
{
	if (c->index_bytes && !c->snapshot)
		c->snapshot = ab_session_save_index(c->work_dir, c->index_bytes, c->index_len);
}

/* Waits for the snapshot and puts it in place. 0, or -1 with err. */
int ctx_keep_snapshot(ctx *c, ab_error *err)
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

void ctx_drop_snapshot(ctx *c)
{
	ab_write_finish(c->snapshot, 0, NULL);
	c->snapshot = NULL;
}

void ctx_drop_index_bytes(ctx *c)
{
	free(c->index_buf);
	c->index_buf = NULL;
	ab_filemap_close(c->index_map);
	c->index_map = NULL;
	c->index_bytes = NULL;
	c->index_len = 0;
}

/* The index, or the farm that owns it. */
void ctx_drop_index(ctx *c)
{
	if (c->farm)
		ab_farm_free(c->farm);
	else
		ab_index_free(c->idx);
	c->farm = NULL;
	c->idx = NULL;
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

int ctx_rpm(ctx *c)
{
	if (ab_rpm_init(&c->err) < 0)
		return -1;
	c->rpm_ready = 1;
	if (c->cli->nkeyrings) {
		/* librpm reads armored keys only; a farm whose signatures are
		 * checked with GnuPG (a binary keyring such as archlinux.gpg)
		 * does not need it: the failure stands once RPMs are read. */
		struct stat st;

		c->keyring = ab_rpm_keyring_load(c->cli->keyrings, c->cli->nkeyrings, &c->keyring_err);
		/* (A local directory may be a farm: ctx_check_keyring says.) */
		if (!c->keyring && !c->cli->farm && !strstr(c->cli->index, "://") &&
		    !(stat(c->cli->index, &st) == 0 && S_ISDIR(st.st_mode)))
			return ctx_keyring_failed(c);
	}
	return 0;
}

/* A refused index is named as it was given, by its URL or path: the
 * library's messages start with its last segment alone, which says
 * little when the URL is mistyped (a .tar.gz instead of the index). */
static void name_index_source(ctx *c, const char *url)
{
	char *label = ab_index_label(url), *path = ab_index_local_path(url), *msg;
	const char *full = path ? path : url;
	size_t n = strlen(label);

	if (!strncmp(c->err.msg, label, n) && !strncmp(c->err.msg + n, ": ", 2) &&
	    strcmp(label, full)) {
		msg = ab_xasprintf("%s%s", full, c->err.msg + n);
		ab_error_set(&c->err, c->err.code, "%s", msg);
		free(msg);
	}
	free(label);
	free(path);
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
		if (!c->idx) {
			ab_error_set(&c->err, err.code, "%s", err.msg);
			name_index_source(c, url);
		}
		ab_error_clear(&err);
		return c->idx ? 0 : -1;
	}
	ab_error_clear(&err);
	ab_index_free(c->idx);
	c->idx = NULL;
	ctx_drop_index_bytes(c);
	return 1;
}

static void ctx_farm_options(ctx *c, ab_farm_options *o, const char *url);

/* Whether the local directory at url is read as a real farm: --farm
 * says so, or its listing is surely one of a farm's layouts (a farm tree
 * copied to disk). Any other directory is read as `artbisect index DIR`
 * reads it, as before farms were read from the disk. */
static int ctx_directory_is_farm(ctx *c, const char *url)
{
	ab_farm_options o;

	if (c->cli->farm)
		return 1;
	ctx_farm_options(c, &o, url);
	return ab_farm_local_layout(&o) != NULL;
}

/* The index named on the command line (or in the session's options). */
/* A local directory of builds as a farm: the index `artbisect index DIR`
 * would write, made in memory (and kept as the session's snapshot). A
 * yum repository (DIR/repodata/repomd.xml) is read as one instead. 1
 * when dir is no such directory, 2 when it is to be read as a real farm
 * (ctx_directory_is_farm), else 0 or -1 with c->err. */
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
	if (c->cli->farm || (access(repomd, F_OK) != 0 && ctx_directory_is_farm(c, url))) {
		free(repomd);
		free(dir);
		return 2;
	}
	if (access(repomd, F_OK) == 0) {
		free(repomd);
		if (!package) {
			ab_error_set(&c->err, AB_EXIT_USAGE,
				     _("%s is a yum repository: name the package to bisect with --package NAME"), dir);
			free(dir);
			return -1;
		}
		free(dir);
		return 1;
	}
	free(repomd);
	memset(&o, 0, sizeof o);
	virt = ab_path_join(dir, "index.json");	/* URLs relative to dir */
	if (access(virt, F_OK) == 0 && !c->cli->quiet) {
		/* A farm's index beside its builds has their commits; the
		 * directory is read as it is now, which may be newer. */
		char *d = ab_esc_term(dir), *q = ab_shell_quote(virt), *e = ab_esc_term(q);

		fprintf(stderr, _("%s holds an index.json; reading the builds in the directory instead (--index %s reads that index)\n"),
			d, e);
		free(d);
		free(q);
		free(e);
	}
	o.output = virt;
	/* Named by the directory, not by the index.json it does not hold. */
	o.name = dir;
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

/* A farm tree on the local disk: a refusal names its path, as the
 * user gave it, rather than its file:// URL. */
static int ctx_open_local_farm(ctx *c, const char *url)
{
	char *path = ab_index_local_path(url), *at;
	size_t n = strlen(url);
	ab_buf b = {0};
	const char *m;

	if (ctx_open_farm(c, url, NULL, 0) == 0 || !path) {
		int ok = c->farm != NULL;

		free(path);
		return ok ? 0 : -1;
	}
	for (m = c->err.msg; (at = strstr(m, url)); m = at + n) {
		ab_buf_append(&b, m, (size_t)(at - m));
		ab_buf_append(&b, path, strlen(path));
	}
	ab_buf_append(&b, m, strlen(m));
	ab_error_set(&c->err, c->err.code, "%s", b.data);
	ab_buf_free(&b);
	free(path);
	return -1;
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

/* A directory URL that no farm layout reads may be a yum repository
 * given without --package: then that is what the message says. */
static void say_if_yum(ctx *c, const char *url)
{
	char *repomd = ab_xasprintf("%srepodata/repomd.xml", url), *data = NULL;
	size_t len = 0;
	ab_error e = {0};

	if (ab_fetch_to_memory(repomd, &c->fopt, AB_LISTING_MAX_BYTES, &data, &len, &e) == 0)
		ab_error_set(&c->err, AB_EXIT_USAGE,
			     _("%s is a yum repository: name the package to bisect with --package NAME"), url);
	ab_error_clear(&e);
	free(data);
	free(repomd);
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
	if (rc == 2)
		rc = ctx_open_local_farm(c, url);
	if (rc != 1) {
		free(url);
		return rc;
	}
	/* A directory URL is a farm's listing: an index is a document. */
	if (cli->farm || (!cli->package && is_remote(url) && url[strlen(url) - 1] == '/')) {
		rc = ctx_open_farm(c, url, NULL, 0);
		if (rc < 0 && !cli->farm && c->err.code == AB_EXIT_USAGE)
			say_if_yum(c, url);
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
		if (!c->idx)
			name_index_source(c, url);
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

int ctx_load_index(ctx *c)
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
int ctx_load_session_index(ctx *c)
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
