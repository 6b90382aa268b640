/* sumtree.c - any directory of builds with checksums, as a layout of
 * farm.h ("sums"): either each subdirectory is a build (nightly/2024-05-01/
 * holding SHA256SUMS, or FILE.sha256 beside each file), or the directory
 * itself holds the files of many builds and a SHA256SUMS or FILE.sha256,
 * and a file's build is its name without archive suffix and architecture
 * words (layout_names.h). Builds in natural order of their names. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "farms/farm.h"
#include "farms/layout_names.h"
#include "farms/names.h"
#include "base/i18n.h"
#include "base/util.h"

/* How many of the newest subdirectories list reads to be sure the tree
 * is one of checksummed builds. */
#define PROBE_DIRS 3

static const char *const sig_exts[] = { ".asc", ".gpg", ".sig" };
#define N_SIG_EXTS (sizeof sig_exts / sizeof sig_exts[0])

int ab_farm_natural_cmp(const char *a, const char *b)
{
	return ab_layout_natural_cmp(a, b);
}

static const char *quote(const char *s, char *buf, size_t size)
{
	return ab_farm_quote(s, strlen(s), buf, size);
}

static const char *arch_of(const ab_farm_options *o)
{
	return o->arch ? o->arch : ab_farm_host_arch("rpm");
}

/* The listing's files by name, for lookups. */
typedef struct byname {
	const ab_listing_entry **e;
	size_t n;
} byname;

static int cmp_entry(const void *a, const void *b)
{
	return strcmp((*(const ab_listing_entry *const *)a)->name,
		      (*(const ab_listing_entry *const *)b)->name);
}

static void byname_init(byname *b, const ab_listing *l)
{
	size_t i;

	b->e = ab_xcalloc(l->n ? l->n : 1, sizeof *b->e);
	b->n = 0;
	for (i = 0; i < l->n; i++)
		if (!l->entries[i].is_dir)
			b->e[b->n++] = &l->entries[i];
	qsort(b->e, b->n, sizeof *b->e, cmp_entry);
}

static const ab_listing_entry *byname_find(const byname *b, const char *name)
{
	ab_listing_entry key = { .name = (char *)name };
	const ab_listing_entry *kp = &key, *const *hit;

	hit = bsearch(&kp, b->e, b->n, sizeof *b->e, cmp_entry);
	return hit ? *hit : NULL;
}

/* name + ext, listed as a file; NULL if not. */
static const ab_listing_entry *find_with(const byname *b, const char *name, size_t len,
					 const char *ext)
{
	char *want = ab_xasprintf("%.*s%s", (int)len, name, ext);
	const ab_listing_entry *e = byname_find(b, want);

	free(want);
	return e;
}

/* The directory's SHA256SUMS, or NULL. */
static const ab_listing_entry *find_list(const ab_listing *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!l->entries[i].is_dir && ab_sumtree_is_list(l->entries[i].name))
			return &l->entries[i];
	return NULL;
}

static bool has_sums(const ab_listing *l)
{
	size_t i, stem;

	for (i = 0; i < l->n; i++) {
		const char *name = l->entries[i].name;
		size_t n = strlen(name), k;

		if (l->entries[i].is_dir)
			continue;
		if (ab_sumtree_is_list(name) || ab_sumtree_is_lone(name, &stem))
			return true;
		for (k = 0; k < N_SIG_EXTS; k++) {
			size_t el = strlen(sig_exts[k]);

			if (n > el && !strcmp(name + n - el, sig_exts[k])) {
				char *base = ab_xstrndup(name, n - el);
				bool is = ab_sumtree_is_list(base);

				free(base);
				if (is)
					return true;
			}
		}
	}
	return false;
}

static int st_recognise(const ab_listing *top, const ab_farm_options *o)
{
	size_t i;

	if (has_sums(top))
		return 2;
	for (i = 0; i < top->n; i++)
		if (top->entries[i].is_dir)
			return 1;
	return 0;
}

/* The files of the directory that have a checksum to be checked with
 * (all, under a SHA256SUMS; else those with a FILE.sha256), grouped into
 * builds. names[] and ents[] are filled for the group indices. */
static ab_sumtree_group *flat_groups(const ab_listing *l, const char *arch, const char ***names,
				     const ab_listing_entry ***ents, size_t *ngroups)
{
	bool list = find_list(l) != NULL;
	byname b;
	size_t i, n = 0;
	ab_sumtree_group *g;

	byname_init(&b, l);
	*names = ab_xcalloc(l->n ? l->n : 1, sizeof **names);
	*ents = ab_xcalloc(l->n ? l->n : 1, sizeof **ents);
	for (i = 0; i < l->n; i++) {
		const ab_listing_entry *e = &l->entries[i];

		if (e->is_dir || (!list && !find_with(&b, e->name, strlen(e->name), ".sha256")))
			continue;
		(*ents)[n] = e;
		(*names)[n++] = e->name;
	}
	g = ab_sumtree_group_names(*names, n, arch, ngroups);
	free(b.e);
	return g;
}

/* The directory an entry is in: its URL up to the last '/'. */
static char *dir_of(const char *url)
{
	const char *slash = strrchr(url, '/');

	return ab_xstrndup(url, slash ? (size_t)(slash - url) + 1 : strlen(url));
}

static int list_flat(const ab_sumtree_group *g, size_t ng, const ab_listing_entry **ents,
		     json_t *builds)
{
	size_t i, j;

	for (i = 0; i < ng; i++) {
		json_t *b = json_object();
		char *dir = dir_of(ents[g[i].files[0]]->url), *ref;
		int64_t mtime = -1;

		for (j = 0; j < g[i].nfiles; j++)
			if (ents[g[i].files[j]]->mtime > mtime)
				mtime = ents[g[i].files[j]]->mtime;
		json_object_set_new(b, "id", json_string(g[i].key));
		json_object_set_new(b, "version", json_string(g[i].key));
		/* the directory and the build's key: resolve groups again */
		ref = ab_xasprintf("%s#%s", dir, g[i].key);
		json_object_set_new(b, "farm_ref", json_string(ref));
		free(ref);
		ab_farm_set_date(b, mtime);
		json_array_append_new(builds, b);
		free(dir);
	}
	return 0;
}

static bool has_digit(const char *s)
{
	for (; *s; s++)
		if (*s >= '0' && *s <= '9')
			return true;
	return false;
}

static int cmp_dir_entry(const void *a, const void *b)
{
	return ab_layout_natural_cmp((*(const ab_listing_entry *const *)a)->name,
				     (*(const ab_listing_entry *const *)b)->name);
}

static int list_dirs(ab_farm *f, const ab_listing *top, json_t *builds, ab_error *err)
{
	const ab_listing_entry **d = ab_xcalloc(top->n ? top->n : 1, sizeof *d);
	const char *urls[PROBE_DIRS];
	ab_listing *probe[PROBE_DIRS] = { NULL };
	char *pwhy[PROBE_DIRS] = { NULL };
	size_t i, n = 0, np = 0;
	bool digits = false, sure = false;
	char q[128], qd[128];
	int r = -1;

	for (i = 0; i < top->n; i++)
		if (top->entries[i].is_dir && has_digit(top->entries[i].name))
			digits = true;
	/* latest/, archive/ beside 2024-05-01/ are not builds */
	for (i = 0; i < top->n; i++)
		if (top->entries[i].is_dir && (!digits || has_digit(top->entries[i].name)))
			d[n++] = &top->entries[i];
	if (!n) {
		ab_error_set(err, AB_EXIT_USAGE,
			     _("%s: no builds: neither subdirectories nor files with SHA256SUMS or FILE.sha256"),
			     quote(ab_farm_opts(f)->url, q, sizeof q));
		goto out;
	}
	qsort(d, n, sizeof *d, cmp_dir_entry);

	/* a tree of directories is many things; the newest few say whether
	 * it is one of checksummed builds */
	for (i = n; i > 0 && np < PROBE_DIRS; i--)
		urls[np++] = d[i - 1]->url;
	if (ab_farm_listings(f, urls, np, probe, pwhy, err) < 0)
		goto out;
	for (i = 0; i < np; i++)
		if (probe[i] && has_sums(probe[i]))
			sure = true;
	if (!sure) {
		ab_error_set(err, AB_EXIT_USAGE,
			     _("%s: not a tree of builds with checksums: its newest subdirectory %s holds no SHA256SUMS or FILE.sha256"),
			     quote(ab_farm_opts(f)->url, q, sizeof q), quote(d[n - 1]->name, qd, sizeof qd));
		goto out;
	}
	for (i = 0; i < n; i++)
		ab_farm_add_dir_build(builds, d[i]);
	r = 0;
out:
	for (i = 0; i < np; i++) {
		ab_listing_free(probe[i]);
		free(pwhy[i]);
	}
	free(d);
	return r;
}

static int st_list(ab_farm *f, const ab_listing *top, json_t *builds, ab_error *err)
{
	const char **names = NULL;
	const ab_listing_entry **ents = NULL;
	size_t ng = 0;
	ab_sumtree_group *g = NULL;
	int r;

	if (has_sums(top))
		g = flat_groups(top, arch_of(ab_farm_opts(f)), &names, &ents, &ng);
	r = ng ? list_flat(g, ng, ents, builds) : list_dirs(f, top, builds, err);
	ab_sumtree_groups_free(g, ng);
	free(names);
	free(ents);
	return r;
}

/* The weaker of two trust levels: unverified < digest < signed. */
static ab_trust weakest(ab_trust a, ab_trust b)
{
	if (a == AB_TRUST_UNVERIFIED || b == AB_TRUST_UNVERIFIED)
		return AB_TRUST_UNVERIFIED;
	if (a == AB_TRUST_DIGEST || b == AB_TRUST_DIGEST)
		return AB_TRUST_DIGEST;
	return AB_TRUST_SIGNED;
}

/* Whether a file named name belongs to the build: its type is known,
 * it is for arch and, in a flat directory, its key is key. */
static bool wanted(const char *name, const char *arch, const char *key)
{
	bool fits;
	char *k = ab_sumtree_key(name, arch, &fits);
	bool ok = k && fits && (!key || !strcmp(k, key));

	free(k);
	return ok;
}

/* The signatures a checksum list may have beside it. */
static size_t sigs_of(const byname *b, const char *name, const char *sig[N_SIG_EXTS])
{
	size_t k, n = 0;
	const ab_listing_entry *e;

	for (k = 0; k < N_SIG_EXTS; k++)
		if ((e = find_with(b, name, strlen(name), sig_exts[k])))
			sig[n++] = e->url;
	return n;
}

static int cmp_art_name(const void *a, const void *b)
{
	const char *x = strrchr(((const ab_farm_art *)a)->url, '/');
	const char *y = strrchr(((const ab_farm_art *)b)->url, '/');

	return ab_layout_natural_cmp(x ? x : "", y ? y : "");
}

static int add_art(ab_farm_resolved *out, const ab_listing_entry *e, const char *sha256,
		   const char *dir, char **why)
{
	char q[128];
	ab_farm_art *a;

	if (out->n == AB_FARM_MAX_ARTS) {
		*why = ab_xasprintf(_("%s: more than %d artifacts in one build"), quote(dir, q, sizeof q),
				    AB_FARM_MAX_ARTS);
		return 1;
	}
	a = &out->arts[out->n++];
	a->url = ab_xstrdup(e->url);
	memcpy(a->sha256, sha256, 65);
	a->size = e->size;
	return 0;
}

/* Under one SHA256SUMS: every artifact it names for the build must be
 * listed. */
static int from_list(ab_farm *f, const byname *b, const ab_listing_entry *list, const char *dir,
		     const char *arch, const char *key, ab_farm_resolved *out, char **why,
		     ab_error *err)
{
	const char *sig[N_SIG_EXTS];
	size_t nsig = sigs_of(b, list->name, sig), i;
	ab_sums *sums = NULL;
	char q[128], qn[128], ql[64];
	int r;

	if ((r = ab_farm_sums(f, list->url, sig, nsig, NULL, &sums, &out->trust, why, err)))
		return r;
	for (i = 0; i < sums->n && !r; i++) {
		const ab_sum *s = &sums->items[i];
		const ab_listing_entry *e;

		/* files of other directories and other builds are not ours */
		if (strchr(s->name, '/') || !wanted(s->name, arch, key))
			continue;
		if (!(e = byname_find(b, s->name))) {
			*why = ab_xasprintf(_("%s: %s names %s, which the directory does not list"),
					    quote(dir, q, sizeof q), quote(list->name, ql, sizeof ql),
					    quote(s->name, qn, sizeof qn));
			r = 1;
			break;
		}
		r = add_art(out, e, s->sha256, dir, why);
	}
	ab_sums_free(sums);
	return r;
}

/* A FILE.sha256 beside each file. */
static int from_lone(ab_farm *f, const byname *b, const char *dir, const char *arch,
		     const char *key, ab_farm_resolved *out, char **why, ab_error *err)
{
	size_t i;
	bool first = true;
	char q[128], qn[128];
	int r = 0;

	for (i = 0; i < b->n && !r; i++) {
		const ab_listing_entry *e = b->e[i], *sum;
		const char *sig[N_SIG_EXTS];
		ab_sums *sums = NULL;
		const ab_sum *s;
		ab_trust trust = AB_TRUST_DIGEST;
		size_t nsig;

		if (!wanted(e->name, arch, key) || !(sum = find_with(b, e->name, strlen(e->name), ".sha256")))
			continue;
		nsig = sigs_of(b, sum->name, sig);
		if ((r = ab_farm_sums(f, sum->url, sig, nsig, e->name, &sums, &trust, why, err)))
			break;
		if (!(s = ab_sums_find(sums, e->name))) {
			*why = ab_xasprintf(_("%s: %s.sha256 has no SHA-256 for %s"), quote(dir, q, sizeof q),
					    quote(e->name, qn, sizeof qn), qn);
			r = 1;
		} else {
			r = add_art(out, e, s->sha256, dir, why);
		}
		out->trust = first ? trust : weakest(out->trust, trust);
		first = false;
		ab_sums_free(sums);
	}
	return r;
}

/* The build has no file for arch: when it has files for others, what
 * out->miss and out->there say (farm.c asks the range's ends whether
 * the --arch is a slip). */
static void say_miss(const byname *b, const char *arch, ab_farm_resolved *out)
{
	const char **names = ab_xcalloc(b->n + 1, sizeof *names);
	char list[160], qa[48];
	size_t i;

	for (i = 0; i < b->n; i++)
		names[i] = b->e[i]->name;
	if (ab_sumtree_arches(names, b->n, list, sizeof list)) {
		snprintf(out->miss, sizeof out->miss, "--arch %s", quote(arch, qa, sizeof qa));
		snprintf(out->there, sizeof out->there, _("architectures there: %s"), list);
	}
	free(names);
}

/* One build's directory, read: its URL, its key among the builds of a
 * flat directory (or NULL), its listing and the listing by name. */
typedef struct st_build {
	char *dir;
	const char *key;
	ab_listing *l;
	byname b;
} st_build;

static void st_build_free(st_build *sb)
{
	free(sb->b.e);
	ab_listing_free(sb->l);
	free(sb->dir);
}

/* Reads build bd's directory: 0, 1 with *why (no directory to read, or
 * it is gone), -1 with err. */
static int st_read(ab_farm *f, const ab_build *bd, st_build *sb, char **why, ab_error *err)
{
	const char *hash;
	bool missing = false;
	char q[128];

	if (!bd->farm_ref || !*bd->farm_ref) {
		*why = ab_xasprintf(_("build %s: no directory URL to read its files from"),
				    quote(bd->id, q, sizeof q));
		return 1;
	}
	/* "DIR/" or, for a build among others in one directory, "DIR/#KEY"
	 * (a URL the listing resolved has no '#' of its own) */
	hash = strchr(bd->farm_ref, '#');
	sb->dir = hash ? ab_xstrndup(bd->farm_ref, (size_t)(hash - bd->farm_ref)) : ab_xstrdup(bd->farm_ref);
	if (hash)
		sb->key = hash + 1;
	if (!*sb->dir || sb->dir[strlen(sb->dir) - 1] != '/') {
		*why = ab_xasprintf(_("build %s: no directory URL to read its files from"),
				    quote(bd->id, q, sizeof q));
		return 1;
	}
	if (!(sb->l = ab_farm_listing(f, sb->dir, &missing, err))) {
		if (!missing)
			return -1;
		*why = ab_xasprintf(_("%s: the directory is not there any more (404)"),
				    quote(sb->dir, q, sizeof q));
		return 1;
	}
	byname_init(&sb->b, sb->l);
	return 0;
}

/* Whether the build has any file for arch. */
static bool st_any(const st_build *sb, const char *arch)
{
	for (size_t i = 0; i < sb->b.n; i++)
		if (wanted(sb->b.e[i]->name, arch, sb->key))
			return true;
	return false;
}

static int st_resolve(ab_farm *f, const ab_build *bd, ab_farm_resolved *out, char **why,
		      ab_error *err)
{
	const char *arch = arch_of(ab_farm_opts(f));
	const ab_listing_entry *list;
	st_build sb = { 0 };
	char q[128], qk[128], qa[48];
	size_t i;
	int r;

	memset(out, 0, sizeof *out);
	if ((r = st_read(f, bd, &sb, why, err)) != 0)
		goto out;
	if ((list = find_list(sb.l)))
		r = from_list(f, &sb.b, list, sb.dir, arch, sb.key, out, why, err);
	else
		r = from_lone(f, &sb.b, sb.dir, arch, sb.key, out, why, err);
	if (!r && !out->n) {
		/* no file for the arch at all: the farm did not make it */
		out->failed = !st_any(&sb, arch);
		if (out->failed) {
			say_miss(&sb.b, arch, out);
			*why = ab_xasprintf(_("%s: no file for %s: the build failed or was not made for it"),
					    quote(sb.dir, q, sizeof q), quote(arch, qa, sizeof qa));
		} else if (sb.key) {
			*why = ab_xasprintf(_("%s: no file of build %s for %s with a checksum"),
					    quote(sb.dir, q, sizeof q), quote(sb.key, qk, sizeof qk),
					    quote(arch, qa, sizeof qa));
		} else {
			*why = ab_xasprintf(_("%s: no file for %s with a checksum"), quote(sb.dir, q, sizeof q),
					    quote(arch, qa, sizeof qa));
		}
		r = 1;
	}
	if (r) {
		for (i = 0; i < out->n; i++)
			free(out->arts[i].url);
		out->n = 0;
	} else {
		/* install order: natural order of the names */
		qsort(out->arts, out->n, sizeof out->arts[0], cmp_art_name);
	}
out:
	st_build_free(&sb);
	return r;
}

/* Whether bd has a file for --arch, from its listing alone. */
static int st_match(ab_farm *f, const ab_build *bd, ab_farm_resolved *out, ab_error *err)
{
	const char *arch = arch_of(ab_farm_opts(f));
	st_build sb = { 0 };
	char *why = NULL;
	int r;

	memset(out, 0, sizeof *out);
	if ((r = st_read(f, bd, &sb, &why, err)) == 0 && !st_any(&sb, arch)) {
		say_miss(&sb.b, arch, out);
		r = 1;
	}
	free(why);
	st_build_free(&sb);
	return r;
}

const ab_farm_layout ab_farm_sumtree = {
	.name = "sums",
	.recognise = st_recognise,
	.list = st_list,
	.resolve = st_resolve,
	.match = st_match,
};
