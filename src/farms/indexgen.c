/* indexgen.c - see indexgen.h. */
#include "config.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "pkg/deb.h"
#include "base/digest.h"
#include "base/escape.h"
#include "base/i18n.h"
#include "index/index.h"
#include "farms/indexgen.h"
#include "farms/names.h"
#include "pkg/rpmpkg.h"
#include "base/util.h"

typedef struct found {
	char *path;		/* absolute */
	char *filename;
	ab_artifact_type type;
	size_t suffix_len;
	int64_t size;
	char sha256[65];
	int is_package;
	ab_pkg_info info;	/* packages only */
	char *evr;		/* packages only */
} found;

typedef struct list {
	found *v;
	size_t n, cap;
} list;

static void list_free(list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].filename);
		free(l->v[i].evr);
		ab_pkg_info_free(&l->v[i].info);
	}
	free(l->v);
}

/* Natural order: runs of digits compare as numbers. */
static int natural_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *ea = a, *eb = b;
			size_t la, lb;
			int c;

			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			for (ea = a; isdigit((unsigned char)*ea); ea++)
				;
			for (eb = b; isdigit((unsigned char)*eb); eb++)
				;
			la = (size_t)(ea - a);
			lb = (size_t)(eb - b);
			if (la != lb)
				return la < lb ? -1 : 1;
			c = memcmp(a, b, la);
			if (c)
				return c;
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

static int cmp_found(const void *x, const void *y)
{
	const found *a = x, *b = y;
	int c;

	if (a->is_package && b->is_package) {
		c = ab_pkg_vercmp(&a->info, &b->info);
		if (c)
			return c;
		/* Same version: keep the builds' artifacts in a stable order. */
		c = strcmp(a->info.name, b->info.name);
		return c ? c : strcmp(a->filename, b->filename);
	}
	{
		/* Stems, so that app-1.2 comes before app-1.2.1. */
		char *sa = ab_xstrndup(a->filename, strlen(a->filename) - a->suffix_len);
		char *sb = ab_xstrndup(b->filename, strlen(b->filename) - b->suffix_len);

		c = natural_cmp(sa, sb);
		free(sa);
		free(sb);
	}
	return c ? c : strcmp(a->path, b->path);
}

/* Whether a file name is an artifact artbisect indexes. */
static int wanted(const char *name, ab_artifact_type *t, size_t *suffix_len)
{
	size_t n = strlen(name);

	if (name[0] == '.')
		return 0;
	if (n > 8 && !strcmp(name + n - 8, ".src.rpm"))
		return 0;
	return ab_artifact_type_guess(name, t, suffix_len) == 0;
}

static int add_file(list *l, const char *path, const char *name, ab_artifact_type t,
		    size_t suffix_len, const struct stat *st)
{
	found *f;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = ab_xrealloc(l->v, l->cap * sizeof *l->v);
	}
	f = &l->v[l->n++];
	memset(f, 0, sizeof *f);
	f->path = ab_xstrdup(path);
	f->filename = ab_xstrdup(name);
	f->type = t;
	f->suffix_len = suffix_len;
	f->size = (int64_t)st->st_size;
	return 0;
}

/* Walks dir (not following symlinked directories). */
static int walk(list *l, const char *dir, const char *skip, ab_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int rc = 0;

	if (!d) {
		ab_error_set(err, AB_EXIT_USAGE, "%s: %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			names = ab_xrealloc(names, cap * sizeof *names);
		}
		names[n++] = ab_xstrdup(de->d_name);
	}
	closedir(d);
	for (i = 0; i < n && rc == 0; i++) {
		char *p = ab_path_join(dir, names[i]);
		struct stat st;
		ab_artifact_type t;
		size_t sl;

		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			rc = walk(l, p, skip, err);
		else if (stat(p, &st) == 0 && S_ISREG(st.st_mode) &&
			 (!skip || strcmp(p, skip)) && wanted(names[i], &t, &sl))
			rc = add_file(l, p, names[i], t, sl, &st);
		free(p);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* Percent-encodes one path segment for a URL; ':' too, since a
 * relative URL whose first segment has one reads as a scheme (Arch's
 * epochs: linux-1:6.9.1-1-x86_64.pkg.tar.zst). */
static void put_segment(ab_buf *b, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (isalnum(c) || strchr("-._~+@!$&'()*,;=", c))
			ab_buf_append(b, s + i, 1);
		else
			ab_buf_printf(b, "%%%02X", c);
	}
}

/* Splits an absolute path into its segments (pointers into a copy). */
static size_t segments(char *copy, char **seg, size_t max)
{
	size_t n = 0;
	char *save = NULL, *t;

	for (t = strtok_r(copy, "/", &save); t && n < max; t = strtok_r(NULL, "/", &save))
		seg[n++] = t;
	return n;
}

/* The URL of path relative to the directory base (both absolute), with
 * base_url in front when given. */
static char *relative_url(const char *path, const char *base, const char *base_url)
{
	char *pc = ab_xstrdup(path), *bc = ab_xstrdup(base);
	char *ps[256], *bs[256];
	size_t np = segments(pc, ps, 256), nb = segments(bc, bs, 256), common = 0, i;
	ab_buf b = {0};

	while (common < np - 1 && common < nb && !strcmp(ps[common], bs[common]))
		common++;
	if (base_url) {
		ab_buf_puts(&b, base_url);
		if (b.len && b.data[b.len - 1] != '/')
			ab_buf_puts(&b, "/");
	}
	for (i = common; i < nb; i++)
		ab_buf_puts(&b, "../");
	for (i = common; i < np; i++) {
		put_segment(&b, ps[i], strlen(ps[i]));
		if (i + 1 < np)
			ab_buf_puts(&b, "/");
	}
	free(pc);
	free(bc);
	return ab_buf_steal(&b);
}

static char *iso_date(int64_t t)
{
	char buf[32];
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm))
		return NULL;
	strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return ab_xstrdup(buf);
}

/* Text from a file name or a package header as the index may hold it:
 * as it is when it is UTF-8 without control characters, else with every
 * byte outside printable ASCII written %XX. A name that is not UTF-8 or
 * that holds a line break must still give an index that loads. */
static char *index_text(const char *s)
{
	json_t *j = json_string(s);
	const unsigned char *p;
	int plain = j != NULL && !ab_has_control(s, strlen(s));
	ab_buf b = {0};

	json_decref(j);
	if (plain)
		return ab_xstrdup(s);
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p >= 0x7f)
			ab_buf_printf(&b, "%%%02X", *p);
		else
			ab_buf_append(&b, (const char *)p, 1);
	}
	return ab_buf_steal(&b);
}

/* json_string of index_text(s). */
static json_t *text_json(const char *s)
{
	char *t = index_text(s);
	json_t *j = json_string(t);

	free(t);
	return j;
}

static json_t *artifact_json(const found *f, const char *base, const char *base_url)
{
	json_t *a = json_object();
	char *url = relative_url(f->path, base, base_url);

	json_object_set_new(a, "url", json_string(url));
	json_object_set_new(a, "sha256", json_string(f->sha256));
	json_object_set_new(a, "size", json_integer(f->size));
	json_object_set_new(a, "type", json_string(ab_artifact_type_name(f->type)));
	if (f->is_package)
		json_object_set_new(a, "name", text_json(f->info.name));
	free(url);
	return a;
}

/* Reads what a package says of itself. 0, or -1 with err naming it. */
static int read_package(found *f, ab_error *err)
{
	char *reason = NULL;
	int bad;

	if (f->type == AB_ART_RPM) {
		ab_rpm_rc r = ab_rpm_read_info(f->path, &f->info, &reason, err);
		if (r == AB_RPM_ERROR)
			return -1;
		bad = r != AB_RPM_OK;
	} else {
		ab_deb_rc r = ab_deb_read_info(f->path, &f->info, &reason, err);
		if (r == AB_DEB_ERROR)
			return -1;
		bad = r != AB_DEB_OK;
	}
	if (bad) {
		ab_error_set(err, AB_EXIT_USAGE, "%s: %s", f->path, reason ? reason : "?");
		free(reason);
		return -1;
	}
	f->is_package = 1;
	f->evr = ab_pkg_evr(&f->info);
	return 0;
}

/* ---- which packages make the builds ----
 * Packages of one project share versions: kernel, kernel-core and
 * kernel-modules 6.8.1-300 are one build. Names that never meet in a
 * version (tzdata and openssl in one download folder) are projects of
 * their own, and interleaving them by version would bisect nonsense. */

static int cmp_name_ptr(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static size_t name_slot(const char **names, size_t n, const char *name)
{
	const char **p = bsearch(&name, names, n, sizeof *names, cmp_name_ptr);

	return (size_t)(p - names);
}

static size_t find_root(size_t *parent, size_t i)
{
	while (parent[i] != i)
		i = parent[i] = parent[parent[i]];
	return i;
}

/* How many package names the message on several projects shows: a
 * download folder of hundreds would push its remedy off the line. */
#define SHOWN_NAMES 8

/* Appends name to the list b, as the SHOWN_NAMES-th at most. */
static void show_name(ab_buf *b, const char *name, const char *sep, size_t *shown)
{
	char q[64];

	if (*shown < SHOWN_NAMES)
		ab_buf_printf(b, "%s%s", *shown ? sep : "", ab_farm_quote(name, strlen(name), q, sizeof q));
	(*shown)++;
}

/* The projects of the packages of l (sorted by version), as groups of
 * names that meet in some version. -1 with err naming them when there
 * is more than one. */
static int one_project(const list *l, ab_error *err)
{
	const char **names = ab_xcalloc(l->n ? l->n : 1, sizeof *names);
	size_t n = 0, i, j, *parent, projects = 0, shown = 0;
	ab_buf b = {0};

	for (i = 0; i < l->n; i++)
		names[n++] = l->v[i].info.name;
	qsort(names, n, sizeof *names, cmp_name_ptr);
	for (i = j = 0; i < n; i++)
		if (!j || strcmp(names[j - 1], names[i]))
			names[j++] = names[i];
	n = j;
	parent = ab_xcalloc(n ? n : 1, sizeof *parent);
	for (i = 0; i < n; i++)
		parent[i] = i;
	for (i = 0; i + 1 < l->n; i++)
		if (ab_pkg_vercmp(&l->v[i].info, &l->v[i + 1].info) == 0)
			parent[find_root(parent, name_slot(names, n, l->v[i].info.name))] =
				find_root(parent, name_slot(names, n, l->v[i + 1].info.name));
	for (i = 0; i < n; i++) {
		if (find_root(parent, i) != i)
			continue;
		show_name(&b, names[i], "; ", &shown);
		for (j = 0; j < n; j++)
			if (j != i && find_root(parent, j) == i)
				show_name(&b, names[j], ", ", &shown);
		projects++;
	}
	if (shown > SHOWN_NAMES)
		ab_buf_printf(&b, _("; and %zu more"), shown - SHOWN_NAMES);
	if (projects > 1)
		ab_error_set(err, AB_EXIT_USAGE,
			     _("the packages are of %zu projects (%s): name the one to index with --package NAME"),
			     projects, b.data);
	ab_buf_free(&b);
	free(parent);
	free(names);
	return projects > 1 ? -1 : 0;
}

/* Keeps the packages opt->packages names; -1 with err when none is left. */
static int take_packages(list *l, const ab_indexgen_options *opt, ab_error *err)
{
	size_t i, k, kept = 0;

	for (i = 0; i < l->n; i++) {
		found *f = &l->v[i];

		for (k = 0; k < opt->npackages && strcmp(f->info.name, opt->packages[k]); k++)
			;
		if (k < opt->npackages) {
			l->v[kept++] = *f;
			continue;
		}
		free(f->path);
		free(f->filename);
		free(f->evr);
		ab_pkg_info_free(&f->info);
	}
	l->n = kept;
	if (!kept) {
		ab_error_set(err, AB_EXIT_USAGE, _("no package named %s%s here"), opt->packages[0],
			     opt->npackages > 1 ? _(" (or the other names given)") : "");
		return -1;
	}
	return 0;
}

/* The directory relative URLs start from: the output file's, or the cwd. */
static char *base_dir(const char *output, ab_error *err)
{
	char *dir, *real, *slash;

	if (!output)
		return getcwd(NULL, 0);
	dir = ab_xstrdup(output);
	slash = strrchr(dir, '/');
	if (!slash) {
		free(dir);
		return getcwd(NULL, 0);
	}
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	real = realpath(dir, NULL);
	if (!real)
		ab_error_set(err, AB_EXIT_USAGE, _("%s: %s"), dir, strerror(errno));
	free(dir);
	return real;
}

/* The directory --base-url stands for: PATH's (a file's own directory),
 * or the deepest one that holds all the PATHs. Every artifact is under
 * it, so no URL gets a "..". NULL with err. */
static char *paths_root(const char *const *paths, size_t n, ab_error *err)
{
	char *root = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		char *real = realpath(paths[i], NULL), *slash;
		struct stat st;
		size_t k;

		if (!real || stat(real, &st) < 0) {
			ab_error_set(err, AB_EXIT_USAGE, "%s: %s", paths[i], strerror(errno));
			free(real);
			free(root);
			return NULL;
		}
		if (!S_ISDIR(st.st_mode) && (slash = strrchr(real, '/')))
			slash[slash == real ? 1 : 0] = '\0';
		if (!root) {
			root = real;
			continue;
		}
		/* The common part, cut at a '/' that both have there. */
		for (k = 0; root[k] && root[k] == real[k]; k++)
			;
		if (!(root[k] == '\0' && (real[k] == '/' || real[k] == '\0'))) {
			while (k > 0 && root[k] != '/')
				k--;
			root[k ? k : 1] = '\0';
		}
		free(real);
	}
	return root;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Ids must be unique: two archives with one stem would clash. */
static int duplicate_id(json_t *builds, ab_error *err)
{
	size_t n = json_array_size(builds), i;
	const char **ids = ab_xcalloc(n ? n : 1, sizeof *ids);
	int dup = 0;

	for (i = 0; i < n; i++)
		ids[i] = json_string_value(json_object_get(json_array_get(builds, i), "id"));
	qsort(ids, n, sizeof *ids, cmp_str);
	for (i = 1; i < n && !dup; i++)
		if (!strcmp(ids[i - 1], ids[i])) {
			ab_error_set(err, AB_EXIT_USAGE,
				     _("two artifacts would both be build '%s'; rename one"), ids[i]);
			dup = 1;
		}
	free(ids);
	return dup;
}

/* Every artifact under paths into l (the index's own file skipped).
 * -1 with err for a path that is missing or holds none. */
static int find_files(list *l, const char *const *paths, size_t n, const char *out_real,
		      ab_error *err)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char *real = realpath(paths[i], NULL);
		struct stat st;
		size_t before = l->n;

		if (!real || stat(real, &st) < 0) {
			ab_error_set(err, AB_EXIT_USAGE, "%s: %s", paths[i], strerror(errno));
			free(real);
			return -1;
		}
		if (S_ISDIR(st.st_mode)) {
			if (walk(l, real, out_real, err) < 0) {
				free(real);
				return -1;
			}
		} else {
			const char *name = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
			ab_artifact_type t;
			size_t sl;

			if (!wanted(name, &t, &sl)) {
				ab_error_set(err, AB_EXIT_USAGE,
					     _("%s: not a package or archive artbisect knows (.rpm, .deb, .tar.*, .zip)"),
					     paths[i]);
				free(real);
				return -1;
			}
			add_file(l, real, name, t, sl, &st);
		}
		if (l->n == before) {
			ab_error_set(err, AB_EXIT_USAGE, _("no packages or archives found under %s"),
				     paths[i]);
			free(real);
			return -1;
		}
		free(real);
	}
	return 0;
}

/* Reads what the packages say, keeps the ones opt names (or refuses
 * several projects), orders the builds and hashes every file. */
static int select_files(list *l, const ab_indexgen_options *opt, ab_error *err)
{
	size_t i, npackages = 0;

	if (ab_rpm_init(err) < 0)
		return -1;
	for (i = 0; i < l->n; i++) {
		found *f = &l->v[i];

		if ((f->type == AB_ART_RPM || f->type == AB_ART_DEB) && read_package(f, err) < 0)
			return -1;
		npackages += f->is_package;
	}
	if (npackages && npackages != l->n) {
		ab_error_set(err, AB_EXIT_USAGE,
			     _("packages and plain archives cannot share one index (%zu packages, %zu archives)"),
			     npackages, l->n - npackages);
		return -1;
	}
	for (i = 0; i + 1 < l->n && npackages; i++) {
		if (l->v[i].info.kind != l->v[i + 1].info.kind) {
			ab_error_set(err, AB_EXIT_USAGE,
				     _("RPMs and .debs cannot share one index (%s, %s)"),
				     l->v[i].path, l->v[i + 1].path);
			return -1;
		}
	}
	if (!npackages && opt->npackages) {
		ab_error_set(err, AB_EXIT_USAGE,
			     _("--package %s: the artifacts here are archives, not packages"),
			     opt->packages[0]);
		return -1;
	}
	if (npackages && opt->npackages && take_packages(l, opt, err) < 0)
		return -1;
	qsort(l->v, l->n, sizeof *l->v, cmp_found);
	if (npackages && !opt->npackages && one_project(l, err) < 0)
		return -1;
	for (i = 0; i < l->n; i++) {
		ab_error herr = {0};

		if (ab_sha256_file(l->v[i].path, l->v[i].sha256, &herr) < 0) {
			ab_error_set(err, AB_EXIT_FAILURE, "%s", herr.msg);
			return -1;
		}
	}
	return 0;
}

/* What the builds share, gathered while they are made: the index names
 * the project and the arch only when there is one of each. */
struct shared {
	char *arch, *project;
	int arch_mixed, project_mixed;
};

static void note_shared(struct shared *s, const found *g)
{
	const char *a = g->info.arch;

	if (a && strcmp(a, "noarch") && strcmp(a, "all")) {
		if (!s->arch)
			s->arch = ab_xstrdup(a);
		else if (strcmp(s->arch, a))
			s->arch_mixed = 1;
	}
	if (!s->project)
		s->project = ab_xstrdup(g->info.name);
	else if (strcmp(s->project, g->info.name))
		s->project_mixed = 1;
}

/* A build's id: its package version, or its archive's name without the
 * suffix. */
static char *build_id(const found *f)
{
	char *stem = f->is_package ? ab_xstrdup(f->evr)
		: ab_xstrndup(f->filename, strlen(f->filename) - f->suffix_len);
	char *id = index_text(stem);

	free(stem);
	return id;
}

/* The artifacts l->v[first..last) of one build into arts; -1 with err
 * when two of them are the same package. */
static int add_artifacts(json_t *arts, const list *l, size_t first, size_t last,
			 const char *base, const char *base_url, struct shared *s, ab_error *err)
{
	size_t j;

	for (j = first; j < last; j++) {
		const found *g = &l->v[j];

		if (j > first && g->is_package && !strcmp(g->info.name, l->v[j - 1].info.name) &&
		    !strcmp(g->info.arch ? g->info.arch : "", l->v[j - 1].info.arch ? l->v[j - 1].info.arch : "")) {
			ab_error_set(err, AB_EXIT_USAGE, _("%s and %s are the same package %s %s"),
				     l->v[j - 1].path, g->path, g->info.name, g->evr);
			return -1;
		}
		json_array_append_new(arts, artifact_json(g, base, base_url));
		if (g->is_package)
			note_shared(s, g);
	}
	return 0;
}

/* A package build's commit (the first one its packages name), date (the
 * latest build time) and version. */
static void set_package_build(json_t *b, const list *l, size_t first, size_t last)
{
	const char *commit = NULL;
	int64_t bt = -1;
	size_t j;

	for (j = first; j < last; j++) {
		if (!commit && l->v[j].info.commit)
			commit = l->v[j].info.commit;
		if (l->v[j].info.buildtime > bt)
			bt = l->v[j].info.buildtime;
	}
	if (commit)
		json_object_set_new(b, "commit", text_json(commit));
	if (bt >= 0) {
		char *d = iso_date(bt);
		if (d)
			json_object_set_new(b, "date", json_string(d));
		free(d);
	}
	json_object_set_new(b, "version", text_json(l->v[first].evr));
}

/* Appends the build that starts at l->v[*first] (packages of one version
 * make one build) and moves *first past it; -1 with err. */
static int add_build(json_t *builds, const list *l, size_t *first, const char *base,
		     const char *base_url, struct shared *s, ab_error *err)
{
	const found *f = &l->v[*first];
	size_t last = *first + 1;
	json_t *b = json_object(), *arts = json_array();
	char *id;

	if (f->is_package)
		while (last < l->n && ab_pkg_vercmp(&l->v[last].info, &f->info) == 0)
			last++;
	id = build_id(f);
	if (add_artifacts(arts, l, *first, last, base, base_url, s, err) < 0) {
		free(id);
		json_decref(b);
		json_decref(arts);
		return -1;
	}
	json_object_set_new(b, "id", json_string(id));
	if (f->is_package)
		set_package_build(b, l, *first, last);
	json_object_set_new(b, "status", json_string("ok"));
	json_object_set_new(b, "artifacts", arts);
	json_array_append_new(builds, b);
	free(id);
	*first = last;
	return 0;
}

/* text with a final newline, as a file should end; takes over text. */
static char *with_newline(char *text)
{
	size_t len;
	char *t;

	if (!text)
		return NULL;
	len = strlen(text);
	t = ab_xmalloc(len + 2);
	memcpy(t, text, len);
	t[len] = '\n';
	t[len + 1] = '\0';
	free(text);
	return t;
}

char *ab_indexgen(const char *const *paths, size_t n, const ab_indexgen_options *opt,
		  ab_error *err)
{
	list l = {0};
	json_t *root = NULL, *builds = NULL;
	char *base = NULL, *out_real = NULL, *text = NULL;
	struct shared s = {0};
	size_t first;

	base = base_dir(opt->output, err);
	if (!base)
		goto out;
	if (opt->output) {
		const char *slash = strrchr(opt->output, '/');
		out_real = ab_path_join(base, slash ? slash + 1 : opt->output);
	}
	if (find_files(&l, paths, n, out_real, err) < 0 || select_files(&l, opt, err) < 0)
		goto out;
	if (opt->base_url) {
		/* URL + the path under PATH, wherever the index goes. */
		free(base);
		base = paths_root(paths, n, err);
		if (!base)
			goto out;
	}

	root = json_object();
	json_object_set_new(root, "format", json_string("artbisect-index"));
	json_object_set_new(root, "version", json_integer(1));
	if (opt->name)
		json_object_set_new(root, "name", text_json(opt->name));
	builds = json_array();
	for (first = 0; first < l.n;)
		if (add_build(builds, &l, &first, base, opt->base_url, &s, err) < 0)
			goto out;
	if (s.project && !s.project_mixed)
		json_object_set_new(root, "project", text_json(s.project));
	if (s.arch && !s.arch_mixed)
		json_object_set_new(root, "arch", text_json(s.arch));
	json_object_set_new(root, "builds", builds);
	builds = NULL;	/* root owns it now */
	if (duplicate_id(json_object_get(root, "builds"), err))
		goto out;
	text = with_newline(json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER));
out:
	json_decref(builds);
	json_decref(root);
	list_free(&l);
	free(base);
	free(out_real);
	free(s.arch);
	free(s.project);
	return text;
}
