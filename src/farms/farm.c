/* farm.c - see farm.h: opening a farm, lazy resolution, the snapshot,
 * and the services layouts use (listings, texts, the document's
 * entries); checksum lists and verified downloads are farm_trust.c's. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include "base/digest.h"
#include "farms/farm.h"
#include "farms/farm_priv.h"
#include "farms/names.h"
#include "farms/openpgp.h"
#include "base/i18n.h"
#include "pkg/rpmpkg.h"
#include "base/util.h"

static const ab_farm_layout *const layouts[] = {
	&ab_farm_mainline, &ab_farm_archive, &ab_farm_koji, &ab_farm_sumtree,
};
#define NLAYOUTS (sizeof layouts / sizeof layouts[0])

static const char *own(ab_farm *f, const char *s)
{
	if (!s)
		return NULL;
	f->owned = ab_xrealloc(f->owned, (f->nowned + 1) * sizeof *f->owned);
	return f->owned[f->nowned++] = ab_xstrdup(s);
}

static const char *const *own_list(ab_farm *f, const char *const *v, size_t n)
{
	const char **copy;
	size_t i;

	if (!n)
		return NULL;
	copy = ab_xcalloc(n, sizeof *copy);
	for (i = 0; i < n; i++)
		copy[i] = own(f, v[i]);
	f->owned = ab_xrealloc(f->owned, (f->nowned + 1) * sizeof *f->owned);
	f->owned[f->nowned++] = (char *)copy;
	return copy;
}

const ab_farm_options *ab_farm_opts(const ab_farm *f)
{
	return &f->o;
}

/* ---- pages ---- */

/* Reads n pages at once through the fetch engine, kept in the cache
 * with their validators (a second run only revalidates). -1 with err
 * when nothing can go on. */
static int get_pages(ab_farm *f, const char *const *urls, size_t n, size_t max, ab_page *out,
		     int listings, ab_error *err)
{
	size_t i, fetched = 0, revalidated = 0;

	if (ab_fetch_pages(f->o.cache, f->o.fetch, urls, n, max, out, err) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (out[i].status != AB_PAGE_OK)
			continue;
		if (out[i].revalidated)
			revalidated++;
		else
			fetched++;
	}
	if (!listings)
		return 0;	/* the figures are of listing pages */
	pthread_mutex_lock(&f->lock);
	f->fetched += fetched;
	f->revalidated += revalidated;
	pthread_mutex_unlock(&f->lock);
	return 0;
}

/* Reads url into memory: 0, 1 when the server says it is not there,
 * -1 with err (the message names url). */
static int get_page(ab_farm *f, const char *url, size_t max, char **data, size_t *len,
		    ab_error *err)
{
	ab_page pg;
	char *why = NULL;
	int rc;

	*data = NULL;
	*len = 0;
	if (f->root && ab_listing_local_inside(f->root, url, &why)) {
		ab_error_set(err, AB_EXIT_USAGE, "%s", why);	/* a link out of a local farm */
		free(why);
		return -1;
	}
	memset(&pg, 0, sizeof pg);
	if (get_pages(f, &url, 1, max, &pg, 0, err) < 0)
		return -1;
	if (pg.status == AB_PAGE_OK) {
		*data = pg.data;
		*len = pg.len;
		pg.data = NULL;
		rc = 0;
	} else if (pg.status == AB_PAGE_MISSING) {
		rc = 1;
	} else {
		ab_error_set(err, AB_EXIT_USAGE, "%s", pg.why ? pg.why : url);
		rc = -1;
	}
	ab_page_clear(&pg);
	return rc;
}

/* Where every listing comes from: the pages of a remote farm, fetched
 * and parsed, or a local farm's directories. out[i] NULL with why[i]
 * (and missing[i] when there is no such page or directory); -1 with err
 * for what stops everything (interrupted, disk full). */
static int read_listings(ab_farm *f, const char *const *urls, size_t n, ab_listing **out,
			 bool *missing, char **why, ab_error *err)
{
	ab_page *pg;
	size_t i;

	for (i = 0; i < n; i++) {
		out[i] = NULL;
		why[i] = NULL;
		missing[i] = false;
	}
	if (f->root) {
		i = ab_listing_read_dirs(f->root, urls, n, out, missing, why);
		pthread_mutex_lock(&f->lock);
		f->fetched += i;
		pthread_mutex_unlock(&f->lock);
		return 0;
	}
	pg = ab_xcalloc(n ? n : 1, sizeof *pg);
	if (get_pages(f, urls, n, AB_LISTING_MAX_BYTES, pg, 1, err) < 0) {
		free(pg);
		return -1;
	}
	for (i = 0; i < n; i++) {
		ab_error e = {0};

		if (pg[i].status == AB_PAGE_OK &&
		    !(out[i] = ab_listing_parse(pg[i].data, pg[i].len, pg[i].url ? pg[i].url : "", &e)))
			why[i] = ab_xstrdup(e.msg);
		else if (pg[i].status == AB_PAGE_MISSING)
			why[i] = ab_xasprintf(_("%s: not found (HTTP 404)"), urls[i]);
		else if (pg[i].status != AB_PAGE_OK)
			why[i] = ab_xstrdup(pg[i].why ? pg[i].why : urls[i]);
		missing[i] = pg[i].status == AB_PAGE_MISSING;
		ab_page_clear(&pg[i]);
	}
	free(pg);
	return 0;
}

ab_listing *ab_farm_listing(ab_farm *f, const char *url, bool *missing, ab_error *err)
{
	ab_listing *l = NULL;
	char *why = NULL;

	if (read_listings(f, &url, 1, &l, missing, &why, err) < 0)
		return NULL;
	if (!l && !*missing)
		ab_error_set(err, AB_EXIT_USAGE, "%s", why);
	free(why);
	return l;
}

int ab_farm_listings(ab_farm *f, const char *const *urls, size_t n, ab_listing **out,
		     char **why, ab_error *err)
{
	bool *missing = ab_xcalloc(n ? n : 1, sizeof *missing);
	int rc = read_listings(f, urls, n, out, missing, why, err);

	free(missing);
	return rc;
}

int ab_farm_text(ab_farm *f, const char *url, size_t max, char **data, size_t *len,
		 ab_error *err)
{
	return get_page(f, url, max, data, len, err);
}

/* ---- what layouts put in the document ---- */

void ab_farm_set_date(json_t *build, int64_t mtime)
{
	char date[32];
	struct tm tm;
	time_t t = (time_t)mtime;

	if (mtime < 0 || !gmtime_r(&t, &tm) || !strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm))
		return;
	json_object_set_new(build, "date", json_string(date));
}

void ab_farm_add_dir_build(json_t *builds, const ab_listing_entry *e)
{
	json_t *b = json_object();

	json_object_set_new(b, "id", json_string(e->name));
	json_object_set_new(b, "version", json_string(e->name));
	json_object_set_new(b, "farm_ref", json_string(e->url));
	ab_farm_set_date(b, e->mtime);
	json_array_append_new(builds, b);
}

/* ---- resolution ---- */

static void put_artifacts(ab_farm *f, size_t pos, const ab_farm_resolved *r)
{
	ab_build *bd = &f->idx->builds[pos];
	ab_artifact *arts = ab_xcalloc(r->n, sizeof *arts);
	json_t *obj = json_array_get(f->builds, pos), *ja = json_array();
	size_t i;

	for (i = 0; i < r->n; i++) {
		ab_artifact *a = &arts[i];
		size_t slen;

		a->url = ab_xstrdup(r->arts[i].url);
		memcpy(a->sha256, r->arts[i].sha256, 65);
		a->size = r->arts[i].size;
		a->filename = ab_index_label(a->url);
		if (ab_artifact_type_guess(a->filename, &a->type, &slen) < 0)
			a->type = AB_ART_FILE;
		json_t *o = json_pack("{s:s, s:s, s:s}", "url", a->url, "sha256", a->sha256,
				      "type", ab_artifact_type_name(a->type));
		if (a->size >= 0)
			json_object_set_new(o, "size", json_integer(a->size));
		json_array_append_new(ja, o);
	}
	f->arts = ab_xrealloc(f->arts, (f->narts + 1) * sizeof *f->arts);
	f->arts[f->narts].a = arts;
	f->arts[f->narts++].n = r->n;
	bd->artifacts = arts;
	bd->nartifacts = r->n;
	bd->trust = (unsigned char)r->trust;
	json_object_set_new(obj, "artifacts", ja);
	json_object_set_new(obj, "farm_trust", json_string(ab_trust_name(r->trust)));
	__atomic_store_n(&bd->unresolved, 0, __ATOMIC_RELEASE);
}

/* Appends build pos's id to the list in buf. */
static void add_id(ab_farm *f, size_t pos, char *buf, size_t size)
{
	const char *id = f->idx->builds[pos].id;
	size_t o = strlen(buf);
	char q[64];

	snprintf(buf + o, size - o, "%s%s", o ? ", " : "", ab_farm_quote(id, strlen(id), q, sizeof q));
}

/* Build pos has nothing for an option's value (r->miss) and no build
 * has matched it yet: when the range's ends have nothing for it either,
 * the value is taken for a slip, said at once (exit 2) rather than the
 * whole range walked as failed builds. 1 when an end has it or cannot
 * tell (a gap of this build's: it stays failed), -1 with err. */
static int check_ends(ab_farm *f, size_t pos, const ab_farm_resolved *r, ab_error *err)
{
	const char *given[2] = { f->o.good, f->o.bad };
	size_t ends[2] = { 0, f->idx->nbuilds - 1 }, i;
	char ids[200] = "";

	if (!f->layout->match)
		return 1;
	for (i = 0; i < 2; i++) {
		ssize_t at = given[i] ? ab_index_find(f->idx, given[i], NULL) : -1;

		if (at >= 0)
			ends[i] = (size_t)at;
	}
	add_id(f, pos, ids, sizeof ids);
	for (i = 0; i < 2; i++) {
		ab_farm_resolved m;
		int rc;

		if (ends[i] == pos || (i && ends[1] == ends[0]))
			continue;
		memset(&m, 0, sizeof m);
		rc = f->layout->match(f, &f->idx->builds[ends[i]], &m, err);
		if (rc < 0)
			return -1;
		if (rc == 0)
			__atomic_store_n(&f->matched, 1, __ATOMIC_RELEASE);
		if (rc == 0 || strcmp(m.miss, r->miss))
			return 1;
		add_id(f, ends[i], ids, sizeof ids);
	}
	ab_error_set(err, AB_EXIT_USAGE, _("%s: no build has it (looked at %s; %s)"), r->miss, ids,
		     r->there);
	return -1;
}

static int resolve(void *farm, size_t pos, char **why, ab_error *err)
{
	ab_farm *f = farm;
	ab_farm_resolved r;
	size_t i;
	int rc = 0, slipped = 0;

	memset(&r, 0, sizeof r);
	pthread_mutex_lock(&f->lock);
	if (f->slip) {
		ab_error_set(err, AB_EXIT_USAGE, "%s", f->slip);
		pthread_mutex_unlock(&f->lock);
		return -1;
	}
	if (f->idx->builds[pos].unresolved) {
		pthread_mutex_unlock(&f->lock);
		rc = f->layout->resolve(f, &f->idx->builds[pos], &r, why, err);
		if (rc == 1 && r.miss[0] && !__atomic_load_n(&f->matched, __ATOMIC_ACQUIRE) &&
		    check_ends(f, pos, &r, err) < 0) {
			free(*why);
			*why = NULL;
			rc = -1;
			slipped = err->code == AB_EXIT_USAGE;
		}
		pthread_mutex_lock(&f->lock);
		if (rc == 0)
			f->matched = 1;
		if (slipped && !f->slip)
			f->slip = ab_xstrdup(err->msg);
		if (rc == 0 && !r.n) {
			*why = ab_xasprintf(_("%s: no artifacts for this build"),
					    f->idx->builds[pos].farm_ref ? f->idx->builds[pos].farm_ref : f->url);
			rc = 1;
		}
		if (rc == 0 && f->idx->builds[pos].unresolved)
			put_artifacts(f, pos, &r);
		if (rc == 1 && r.failed && !f->idx->builds[pos].failed) {
			json_t *obj = json_array_get(f->builds, pos);

			f->idx->builds[pos].failed = 1;
			json_object_set_new(obj, "status", json_string("failed"));
			json_object_set_new(obj, "farm_note", json_string(*why ? *why : ""));
			__atomic_add_fetch(&f->nfailed, 1, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&f->lock);
	for (i = 0; i < r.n; i++)
		free(r.arts[i].url);
	return rc;
}

/* ---- opening ---- */

static ab_farm *farm_new(const ab_farm_options *o)
{
	ab_farm *f = ab_xcalloc(1, sizeof *f);

	f->o = *o;
	f->o.url = own(f, o->url);
	f->o.layout = own(f, o->layout);
	f->o.arch = own(f, o->arch);
	f->o.flavour = own(f, o->flavour);
	f->o.packages = own_list(f, o->packages, o->npackages);
	f->o.keyrings = own_list(f, o->keyrings, o->nkeyrings);
	f->o.good = own(f, o->good);
	f->o.bad = own(f, o->bad);
	f->o.top_page = NULL;
	f->o.top_len = 0;
	pthread_mutex_init(&f->lock, NULL);
	return f;
}

static const ab_farm_layout *layout_named(const char *name)
{
	size_t i;

	for (i = 0; i < NLAYOUTS; i++)
		if (!strcmp(layouts[i]->name, name))
			return layouts[i];
	return NULL;
}

/* The keys to check signatures with: --keyring, or those a Debian
 * package installs for this layout. 0, -1 with err. */
static int open_keys(ab_farm *f, ab_error *err)
{
	const char *const *files = f->o.keyrings;
	size_t n = f->o.nkeyrings;

	if (!n && getenv("ARTBISECT_DEFAULT_KEYRINGS")) {
		/* The keyrings to use instead of the packages' (empty: none),
		 * colon-separated: for a lab with its own keys, and for tests. */
		char *list = ab_xstrdup(getenv("ARTBISECT_DEFAULT_KEYRINGS")), *save = NULL, *p;
		const char *v[32];

		for (p = strtok_r(list, ":", &save); p && n < 32; p = strtok_r(NULL, ":", &save))
			v[n++] = p;
		files = own_list(f, v, n);
		free(list);
		f->keyrings_default = n > 0;
	} else if (!n) {
		files = ab_pgp_default_keyrings(f->layout->name, &n);
		f->keyrings_default = n > 0;
	}
	if (!n)
		return 0;
	f->pgp = ab_pgp_open(files, n, err);
	if (!f->pgp && ab_farm_interrupted(f, err))
		return -1;	/* not "no public key in it" */
	if (f->pgp && f->keyrings_default) {
		/* a refusal names the keys that were used, not --keyring */
		ab_buf names = {0};
		size_t i;

		for (i = 0; i < n; i++)
			ab_buf_printf(&names, "%s%s", i ? ", " : "", files[i]);
		ab_pgp_keys_default(f->pgp, names.data);
		ab_buf_free(&names);
	}
	return f->pgp ? 0 : -1;
}

/* The farm's document around the builds its layout listed. */
static void make_doc(ab_farm *f, json_t *builds)
{
	json_t *farm = json_pack("{s:s, s:s}", "layout", f->layout->name, "url", f->url);
	json_t *pk = json_array();
	size_t i;

	if (f->o.arch)
		json_object_set_new(farm, "arch", json_string(f->o.arch));
	if (f->o.flavour)
		json_object_set_new(farm, "flavour", json_string(f->o.flavour));
	for (i = 0; i < f->o.npackages; i++)
		json_array_append_new(pk, json_string(f->o.packages[i]));
	json_object_set_new(farm, "packages", pk);
	f->doc = json_object();
	json_object_set_new(f->doc, "farm", farm);	/* first: ab_farm_is_snapshot */
	json_object_set_new(f->doc, "format", json_string("artbisect-index"));
	json_object_set_new(f->doc, "version", json_integer(1));
	json_object_set_new(f->doc, "name", json_string(f->url));
	json_object_set_new(f->doc, "builds", builds);
	f->builds = builds;
}

/* Parses the document into the index the bisection uses. */
static int make_index(ab_farm *f, const char *text, size_t len, ab_error *err)
{
	f->idx = ab_index_parse_farm(text, len, f->url, err);
	if (!f->idx)
		return -1;
	free(f->idx->label);
	f->idx->label = ab_xstrdup(f->url);
	f->idx->resolver = resolve;
	f->idx->farm = f;
	/* a resumed session's resolved builds had files for the options */
	for (size_t i = 0; i < f->idx->nbuilds && !f->matched; i++)
		f->matched = !f->idx->builds[i].unresolved && f->idx->builds[i].nartifacts > 0;
	return 0;
}

static char *dir_url(const char *url)
{
	size_t n = strlen(url);

	return n && url[n - 1] == '/' ? ab_xstrdup(url) : ab_xasprintf("%s/", url);
}

/* A farm on the local disk (file://): the real path of its top
 * directory, inside which everything it reads must lie. 0, -1 with err. */
static int set_root(ab_farm *f, bool resumed, ab_error *err)
{
	if (strncasecmp(f->url, "file:", 5))
		return 0;
	f->root = ab_listing_local_root(f->url, resumed, err);
	return f->root ? 0 : -1;
}

/* The layout a listing surely is of (the recognisers' best score, at
 * least min), or NULL. */
static const ab_farm_layout *recognise(const ab_listing *top, const ab_farm_options *o, int min)
{
	const ab_farm_layout *best = NULL;
	int top_score = min - 1, score;
	size_t i;

	for (i = 0; i < NLAYOUTS; i++) {
		score = layouts[i]->recognise(top, o);
		if (score > top_score && score > 0) {
			top_score = score;
			best = layouts[i];
		}
	}
	return best;
}

const char *ab_farm_local_layout(const ab_farm_options *o)
{
	char *url = dir_url(o->url), *root = ab_listing_local_root(url, false, NULL);
	ab_listing *top = NULL;
	const ab_farm_layout *l = NULL;
	ab_error e = {0};
	bool missing;

	if (root && (top = ab_listing_read_dir(root, url, &missing, &e)))
		l = recognise(top, o, 2);
	ab_listing_free(top);
	free(root);
	free(url);
	return l ? l->name : NULL;
}

/* Which layout the top listing is: --farm, or the surest guess. */
static int pick_layout(ab_farm *f, const ab_listing *top, ab_error *err)
{
	if (f->o.layout) {
		f->layout = layout_named(f->o.layout);
		if (!f->layout) {
			ab_error_set(err, AB_EXIT_USAGE,
				     _("--farm %s: unknown farm layout (expected mainline, arch, koji or sums)"),
				     f->o.layout);
			return -1;
		}
		return 0;
	}
	f->layout = recognise(top, &f->o, 1);
	if (!f->layout) {
		ab_error_set(err, AB_EXIT_USAGE,
			     _("%s: a directory listing of %zu entries that is no farm artbisect knows (Ubuntu mainline vX.Y/ directories, Arch packages with .sig files, Koji version directories, builds with SHA256SUMS); name one with --farm"),
			     f->url, top->n);
		return -1;
	}
	return 0;
}

ab_farm *ab_farm_open(const ab_farm_options *o, ab_error *err)
{
	ab_farm *f = farm_new(o);
	ab_listing *top = NULL;
	json_t *builds = json_array();
	char *text = NULL;
	bool missing = false;

	f->url = dir_url(o->url);
	if (set_root(f, false, err) < 0)
		goto fail;
	if (o->top_page && !f->root) {
		top = ab_listing_parse(o->top_page, o->top_len, f->url, err);
		f->fetched++;	/* read by the caller */
	}
	else
		top = ab_farm_listing(f, f->url, &missing, err);
	if (!top) {
		if (missing)
			ab_error_set(err, AB_EXIT_USAGE, f->root ? _("%s: no such directory") :
				     _("%s: not found (HTTP 404)"), f->url);
		err->code = err->code == AB_EXIT_ABORTED ? AB_EXIT_ABORTED : AB_EXIT_USAGE;
		goto fail;
	}
	if (!top->n) {
		char buf[200];

		ab_error_set(err, AB_EXIT_USAGE, "%s: %s", f->url,
			     ab_listing_empty_reason(top, buf, sizeof buf));
		goto fail;
	}
	if (pick_layout(f, top, err) < 0 || open_keys(f, err) < 0)
		goto fail;
	/* A farm whose only root of trust is a signature on each package
	 * is refused up front without keys, rather than build by build. */
	if (!f->pgp && !f->o.allow_unverified && !strcmp(f->layout->name, "arch")) {
		ab_error_set(err, AB_EXIT_USAGE,
			     _("%s: Arch packages are checked by their signatures only: pass --keyring /usr/share/keyrings/archlinux.gpg (Debian package archlinux-keyring), or --allow-unverified"),
			     f->url);
		goto fail;
	}
	if (f->layout->list(f, top, builds, err) < 0)
		goto fail;
	if (!json_array_size(builds)) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: no builds found (read as a %s farm)"), f->url,
			     f->layout->name);
		goto fail;
	}
	make_doc(f, builds);
	builds = NULL;
	text = json_dumps(f->doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (!text || make_index(f, text, strlen(text), err) < 0)
		goto fail;
	free(text);
	ab_listing_free(top);
	return f;
fail:
	if (err->code == 0)
		err->code = AB_EXIT_USAGE;
	free(text);
	json_decref(builds);
	ab_listing_free(top);
	ab_farm_free(f);
	return NULL;
}

ab_farm *ab_farm_resume(const ab_farm_options *o, const char *snapshot, size_t len,
			ab_error *err)
{
	ab_farm *f = farm_new(o);
	json_error_t je;
	json_t *farm;
	const char *layout = NULL, *url = NULL;

	f->doc = json_loadb(snapshot, len, 0, &je);
	farm = f->doc ? json_object_get(f->doc, "farm") : NULL;
	if (farm && json_unpack(farm, "{s:s, s:s}", "layout", &layout, "url", &url) == 0)
		f->layout = layout_named(layout);
	f->builds = f->doc ? json_object_get(f->doc, "builds") : NULL;
	if (!f->layout || !json_is_array(f->builds)) {
		ab_error_set(err, AB_EXIT_FAILURE, _("the session's farm snapshot is damaged"));
		goto fail;
	}
	f->url = ab_xstrdup(url);
	if (set_root(f, true, err) < 0 || open_keys(f, err) < 0 || make_index(f, snapshot, len, err) < 0)
		goto fail;
	return f;
fail:
	ab_farm_free(f);
	return NULL;
}

bool ab_farm_is_snapshot(const char *data, size_t len)
{
	static const char head[] = "{\"farm\":";

	return len >= sizeof head - 1 && !memcmp(data, head, sizeof head - 1);
}

ab_index *ab_farm_index(ab_farm *f)
{
	return f->idx;
}

char *ab_farm_snapshot(ab_farm *f)
{
	char *s;

	pthread_mutex_lock(&f->lock);
	s = json_dumps(f->doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
	pthread_mutex_unlock(&f->lock);
	return s;
}

void ab_farm_pages_read(ab_farm *f, size_t *fetched, size_t *revalidated)
{
	pthread_mutex_lock(&f->lock);
	*fetched = f->fetched;
	*revalidated = f->revalidated;
	pthread_mutex_unlock(&f->lock);
}

char *ab_farm_export(ab_farm *f, ab_farm_progress_fn each, void *ud, ab_error *err)
{
	json_t *doc, *builds;
	char *text;
	size_t i;

	for (i = 0; i < f->idx->nbuilds; i++) {
		char *why = NULL;
		int rc;
		ab_farm_outcome what = AB_FARM_RESOLVED;

		ab_farm_check_clear();
		rc = ab_index_resolve(f->idx, i, &why, err);
		if (rc < 0)
			return NULL;
		if (rc == 1 || f->idx->builds[i].failed)
			what = ab_farm_check_failed() && !f->idx->builds[i].failed ? AB_FARM_UNVERIFIED : AB_FARM_FAILED;
		if (!why && what == AB_FARM_FAILED) {	/* failed in the listing */
			const char *note;

			pthread_mutex_lock(&f->lock);
			note = json_string_value(json_object_get(json_array_get(f->builds, i), "farm_note"));
			why = ab_xstrdup(note && *note ? note : _("the farm marks it failed"));
			pthread_mutex_unlock(&f->lock);
		}
		if (each)
			each(ud, i, f->idx->nbuilds, f->idx->builds[i].id, why, what);
		if (rc == 1) {
			/* Nothing to fetch: failed, for every reader. */
			pthread_mutex_lock(&f->lock);
			json_object_set_new(json_array_get(f->builds, i), "status", json_string("failed"));
			json_object_set_new(json_array_get(f->builds, i), "farm_note", json_string(why));
			pthread_mutex_unlock(&f->lock);
		}
		free(why);
	}
	pthread_mutex_lock(&f->lock);
	doc = json_deep_copy(f->doc);
	pthread_mutex_unlock(&f->lock);
	/* An index, not a session's snapshot: no "farm" object first. */
	json_object_del(doc, "farm");
	json_object_set_new(doc, "farm_layout", json_string(f->layout->name));
	builds = json_object_get(doc, "builds");
	json_incref(builds);
	json_object_del(doc, "builds");
	json_object_set_new(doc, "builds", builds);
	text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	return text;
}

void ab_farm_set_cache(ab_farm *f, ab_cache *cache, const ab_fetch_options *fetch)
{
	f->o.cache = cache;
	if (fetch)
		f->o.fetch = fetch;
}

bool ab_farm_slipped(ab_farm *f)
{
	bool slipped;

	pthread_mutex_lock(&f->lock);
	slipped = f->slip != NULL;
	pthread_mutex_unlock(&f->lock);
	return slipped;
}

size_t ab_farm_resolved_count(const ab_farm *f)
{
	return __atomic_load_n(&f->narts, __ATOMIC_ACQUIRE) +
	       __atomic_load_n(&f->nfailed, __ATOMIC_ACQUIRE);
}

const char *ab_farm_layout_name(const ab_farm *f)
{
	return f->layout ? f->layout->name : "";
}

bool ab_farm_keys_default(const ab_farm *f)
{
	return f->keyrings_default;
}

void ab_farm_free(ab_farm *f)
{
	size_t i;

	if (!f)
		return;
	ab_index_free(f->idx);
	for (i = 0; i < f->narts; i++) {
		size_t j;

		for (j = 0; j < f->arts[i].n; j++) {
			free(f->arts[i].a[j].url);
			free(f->arts[i].a[j].filename);
		}
		free(f->arts[i].a);
	}
	free(f->arts);
	json_decref(f->doc);
	ab_pgp_close(f->pgp);
	for (i = 0; i < f->nowned; i++)
		free(f->owned[i]);
	free(f->owned);
	free(f->url);
	free(f->root);
	free(f->slip);
	pthread_mutex_destroy(&f->lock);
	free(f);
}
