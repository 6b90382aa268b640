/* mainline.c - the Ubuntu mainline kernel farm (kernel.ubuntu.com/mainline/)
 * as a layout of farm.h: version directories vX.Y[.Z][-rcN]/ in kernel
 * order; a build's packages in its ARCH/ subdirectory (or, before
 * v5.7-rc7 and v5.6.17, in the version directory itself), checked
 * against the CHECKSUMS beside them, signed by CHECKSUMS.gpg. */
#include "config.h"
#include <ctype.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "farms/farm.h"
#include "farms/layout_names.h"
#include "farms/names.h"
#include "base/i18n.h"
#include "base/util.h"

/* A status file holds an exit code: a few bytes. */
#define STATUS_MAX 4096

/* A daily build's directory: YYYY-MM-DD. */
static bool is_day(const char *s)
{
	static const char shape[] = "dddd-dd-dd";
	size_t i;

	for (i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != shape[i])
			return false;
	return s[i] == '\0';
}

/* Whether url is mainline's daily/ directory, whose builds are days. */
static bool is_daily_url(const char *url)
{
	size_t n = url ? strlen(url) : 0;

	while (n && url[n - 1] == '/')
		n--;
	return n >= 6 && !strncmp(url + n - 6, "/daily", 6);
}

static int ml_recognise(const ab_listing *top, const ab_farm_options *o)
{
	ab_mainline_ver v;
	size_t i, found = 0, days = 0;

	for (i = 0; i < top->n && found < 2; i++) {
		if (top->entries[i].is_dir && ab_mainline_dir_parse(top->entries[i].name, &v))
			found++;
		if (top->entries[i].is_dir && is_day(top->entries[i].name))
			days++;
	}
	if (found < 2 && days >= 2 && is_daily_url(o->url))
		return 2;
	return found >= 2 ? 2 : found;
}

struct dir {
	const ab_listing_entry *e;
	ab_mainline_ver v;
};

static int cmp_dir(const void *a, const void *b)
{
	const struct dir *x = a, *y = b;
	int c = ab_mainline_ver_cmp(&x->v, &y->v);

	/* v6.9 and v6.9.0 are one version: the name decides */
	return c ? c : strcmp(x->e->name, y->e->name);
}

static const char *quote(const char *s, char *buf, size_t size)
{
	return ab_farm_quote(s, strlen(s), buf, size);
}

/* daily/: the days' directories in date order, ids the dates. */
static int ml_list_days(ab_farm *f, const ab_listing *top, json_t *builds, ab_error *err)
{
	const ab_listing_entry **d = ab_xcalloc(top->n ? top->n : 1, sizeof *d);
	size_t i, j, n = 0;
	char q[128];

	for (i = 0; i < top->n; i++)
		if (top->entries[i].is_dir && is_day(top->entries[i].name))
			d[n++] = &top->entries[i];
	if (!n) {
		free(d);
		ab_error_set(err, AB_EXIT_USAGE,
			     _("%s: no kernel version directories (vX.Y/, vX.Y.Z/, vX.Y-rcN/) or days (YYYY-MM-DD/) in the listing"),
			     quote(ab_farm_opts(f)->url, q, sizeof q));
		return -1;
	}
	for (i = 1; i < n; i++)	/* insertion sort: ISO dates sort as strings */
		for (j = i; j > 0 && strcmp(d[j - 1]->name, d[j]->name) > 0; j--) {
			const ab_listing_entry *t = d[j];
			d[j] = d[j - 1];
			d[j - 1] = t;
		}
	for (i = 0; i < n; i++)
		ab_farm_add_dir_build(builds, d[i]);
	free(d);
	return 0;
}

static int ml_list(ab_farm *f, const ab_listing *top, json_t *builds, ab_error *err)
{
	struct dir *d = ab_xcalloc(top->n ? top->n : 1, sizeof *d);
	size_t i, n = 0;
	char q[128];

	for (i = 0; i < top->n; i++)
		if (top->entries[i].is_dir && ab_mainline_dir_parse(top->entries[i].name, &d[n].v))
			d[n++].e = &top->entries[i];
	if (!n) {
		free(d);
		if (is_daily_url(ab_farm_opts(f)->url))
			return ml_list_days(f, top, builds, err);
		ab_error_set(err, AB_EXIT_USAGE,
			     _("%s: no kernel version directories (vX.Y/, vX.Y.Z/, vX.Y-rcN/) in the listing"),
			     quote(ab_farm_opts(f)->url, q, sizeof q));
		return -1;
	}
	qsort(d, n, sizeof *d, cmp_dir);
	for (i = 0; i < n; i++) {
		char version[96];
		json_t *b = json_object();

		ab_mainline_ver_string(&d[i].v, version, sizeof version);
		json_object_set_new(b, "id", json_string(d[i].e->name));
		json_object_set_new(b, "version", json_string(version));
		json_object_set_new(b, "farm_ref", json_string(d[i].e->url));
		ab_farm_set_date(b, d[i].e->mtime);
		json_array_append_new(builds, b);
	}
	free(d);
	return 0;
}

static const ab_listing_entry *find(const ab_listing *l, const char *name, bool dir)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->entries[i].is_dir == dir && !strcmp(l->entries[i].name, name))
			return &l->entries[i];
	return NULL;
}

/* The directory's listing: 0, 1 with *why when the server says it is
 * gone, -1 with err. */
static int read_dir(ab_farm *f, const char *url, ab_listing **out, char **why, ab_error *err)
{
	bool missing = false;
	char q[128];

	if (!(*out = ab_farm_listing(f, url, &missing, err))) {
		if (!missing)
			return -1;
		*why = ab_xasprintf(_("%s: the directory is not there any more (404)"),
				    quote(url, q, sizeof q));
		return 1;
	}
	return 0;
}

/* 1 with *why when dir's status file says the build failed. */
static int check_status(ab_farm *f, const ab_listing *l, const char *dir, char **why,
			ab_error *err)
{
	const ab_listing_entry *st = find(l, "status", false);
	char *data = NULL, q[128], qs[64];
	size_t len = 0, a = 0;
	int r;

	if (!st)
		return 0;
	if ((r = ab_farm_text(f, st->url, STATUS_MAX, &data, &len, err)) < 0)
		return -1;
	if (r == 1)
		return 0;	/* listed but gone: the packages say the rest */
	while (a < len && strchr(" \t\r\n", data[a]))
		a++;
	while (len > a && strchr(" \t\r\n", data[len - 1]))
		len--;
	if (len - a != 1 || data[a] != '0') {
		*why = ab_xasprintf(_("%s: the farm's status file says the build failed (status \"%s\")"),
				    quote(dir, q, sizeof q), ab_farm_quote(data + a, len - a, qs, 24));
		free(data);
		return 1;
	}
	free(data);
	return 0;
}

/* The names of l's subdirectories, "a, b", into buf: how many. */
static size_t dir_names(const ab_listing *l, char *buf, size_t size)
{
	size_t i, n = 0, o = 0;
	bool full = false;
	char q[48];

	buf[0] = '\0';
	for (i = 0; i < l->n; i++) {
		int w;

		if (!l->entries[i].is_dir)
			continue;
		if (!full) {
			w = snprintf(buf + o, size - o, "%s%s", n ? ", " : "",
				     quote(l->entries[i].name, q, sizeof q));
			/* cut short on a whole name, room kept for ",..." */
			if (w < 0 || (size_t)w + 5 > size - o) {
				snprintf(buf + o, size - o, "%s", n ? ",..." : "...");
				full = true;
			} else {
				o += (size_t)w;
			}
		}
		n++;
	}
	return n;
}

/* An architecture name that can stand in a URL as it is. */
static bool arch_word(const char *a)
{
	size_t i;

	for (i = 0; a[i]; i++)
		if (!isalnum((unsigned char)a[i]) && a[i] != '_' && a[i] != '-' && a[i] != '.')
			return false;
	return i > 0 && strcmp(a, ".") && strcmp(a, "..");
}

/* Where a build's files are listed, as ml_read_files found them. */
typedef struct ml_dir {
	ab_listing *top, *sub;	/* the version's directory, ARCH/ */
	const ab_listing *files;	/* one of them */
	const char *dir;	/* its URL */
	char *arch_url;
} ml_dir;

static void ml_dir_free(ml_dir *d)
{
	ab_listing_free(d->top);
	ab_listing_free(d->sub);
	free(d->arch_url);
}

/* The listing that holds build bd's packages for arch. Since 5.6.17 and
 * 5.7-rc7 each architecture has a directory: it is read first, so that
 * a build costs one listing; the version's own directory only when it
 * is not there (older builds, or none for this architecture: then
 * out->failed, and out->miss). 0, 1 with *why, -1 with err. */
static int ml_read_files(ab_farm *f, const ab_build *bd, const char *arch, ml_dir *d,
			 ab_farm_resolved *out, char **why, ab_error *err)
{
	const ab_listing_entry *e;
	char flavours[160], q[128], qa[48];
	int r;

	if (arch_word(arch)) {
		bool missing = false;

		d->arch_url = ab_xasprintf("%s%s/", bd->farm_ref, arch);
		if ((d->sub = ab_farm_listing(f, d->arch_url, &missing, err))) {
			d->dir = d->arch_url;
			d->files = d->sub;
			return 0;
		}
		if (!missing)
			return -1;
	}
	if ((r = read_dir(f, bd->farm_ref, &d->top, why, err)))
		return r;
	d->dir = bd->farm_ref;
	d->files = d->top;
	if ((e = find(d->top, arch, true))) {
		if ((r = read_dir(f, e->url, &d->sub, why, err)))
			return r;
		d->dir = e->url;
		d->files = d->sub;
	} else if (dir_names(d->top, flavours, sizeof flavours)) {
		/* per-architecture directories, but not this one's */
		*why = ab_xasprintf(_("%s: no %s/ directory: no build for that architecture (there: %s)"),
				    quote(d->dir, q, sizeof q), quote(arch, qa, sizeof qa), flavours);
		out->failed = true;
		snprintf(out->miss, sizeof out->miss, "--arch %s", qa);
		snprintf(out->there, sizeof out->there, _("architectures there: %s"), flavours);
		return 1;
	}
	return 0;
}

static const char *ml_arch(const ab_farm_options *o)
{
	return ab_mainline_arch(o->arch ? o->arch : ab_farm_host_arch("deb"));
}

static const char *ml_flavour(const ab_farm_options *o)
{
	return o->flavour ? o->flavour : "generic";
}

/* Whether bd names a directory to read: 1 with *why when not. */
static int ml_no_dir(const ab_build *bd, char **why)
{
	char q[128];

	if (bd->farm_ref && *bd->farm_ref && bd->farm_ref[strlen(bd->farm_ref) - 1] == '/')
		return 0;
	*why = ab_xasprintf(_("build %s: no directory URL to read its packages from"),
			    quote(bd->id, q, sizeof q));
	return 1;
}

/* The architectures of the .debs among names, "amd64, i386" into buf
 * ("all" is none): how many. */
static size_t deb_arches(const char *const *names, size_t n, char *buf, size_t size)
{
	size_t i, j, k = 0, o = 0, len;
	char q[48];

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		const char *u = strrchr(names[i], '_');

		len = u ? strlen(u + 1) : 0;
		if (len <= 4 || strcmp(u + len - 3, ".deb") || !strncmp(u + 1, "all.", 4))
			continue;
		len -= 4;
		for (j = 0; j < i; j++) {	/* said already? */
			const char *v = strrchr(names[j], '_');

			if (v && !strncmp(v + 1, u + 1, len) && !strcmp(v + 1 + len, ".deb"))
				break;
		}
		if (j < i || o + len + 8 >= size)
			continue;
		o += (size_t)snprintf(buf + o, size - o, "%s%s", k++ ? ", " : "",
				      ab_farm_quote(u + 1, len, q, sizeof q));
	}
	return k;
}

/* The image and its packages for arch and flavour among the files in
 * dir: 0 with *pick and *ents (the files pick counts in; caller frees),
 * 1 with *why and out->failed (and out->miss when the build has other
 * flavours) when there is no image. */
static int ml_pick(const ab_listing *files, const char *dir, const char *arch, const char *flavour,
		   ab_mainline_picked *pick, const ab_listing_entry ***ents,
		   ab_farm_resolved *out, char **why)
{
	const char **names = ab_xcalloc(files->n ? files->n : 1, sizeof *names);
	char flavours[160], q[128], qa[48], qf[48];
	size_t i, n = 0;
	int r = 0;

	*ents = ab_xcalloc(files->n ? files->n : 1, sizeof **ents);
	for (i = 0; i < files->n; i++)
		if (!files->entries[i].is_dir) {
			(*ents)[n] = &files->entries[i];
			names[n++] = files->entries[i].name;
		}
	if (ab_mainline_pick(names, n, arch, flavour, pick, flavours, sizeof flavours) < 0) {
		quote(flavour, qf, sizeof qf);
		if (*flavours) {
			*why = ab_xasprintf(_("%s: no kernel image for %s, flavour %s (flavours there: %s)"),
					    quote(dir, q, sizeof q), quote(arch, qa, sizeof qa), qf,
					    flavours);
			snprintf(out->miss, sizeof out->miss, "--flavour %s", qf);
			snprintf(out->there, sizeof out->there, _("flavours there: %s"), flavours);
		} else {
			*why = ab_xasprintf(_("%s: no kernel image for %s, flavour %s (none for %s at all)"),
					    quote(dir, q, sizeof q), quote(arch, qa, sizeof qa), qf, qa);
			/* an old build's one directory: the .debs name theirs */
			if (deb_arches(names, n, flavours, sizeof flavours)) {
				snprintf(out->miss, sizeof out->miss, "--arch %s", qa);
				snprintf(out->there, sizeof out->there, _("architectures there: %s"),
					 flavours);
			}
		}
		out->failed = true;	/* no image for the arch: a failed build */
		r = 1;
	}
	free(names);
	return r;
}

static int ml_match(ab_farm *f, const ab_build *bd, ab_farm_resolved *out, ab_error *err)
{
	const ab_farm_options *o = ab_farm_opts(f);
	const ab_listing_entry **ents = NULL;
	ab_mainline_picked pick;
	ml_dir d = { 0 };
	char *why = NULL;
	int r;

	memset(out, 0, sizeof *out);
	if ((r = ml_no_dir(bd, &why)) == 0 &&
	    (r = ml_read_files(f, bd, ml_arch(o), &d, out, &why, err)) == 0 &&
	    (r = check_status(f, d.files, d.dir, &why, err)) == 0)	/* failed: cannot tell */
		r = ml_pick(d.files, d.dir, ml_arch(o), ml_flavour(o), &pick, &ents, out, &why);
	free(why);
	free(ents);
	ml_dir_free(&d);
	return r;
}

static int ml_resolve(ab_farm *f, const ab_build *bd, ab_farm_resolved *out, char **why,
		      ab_error *err)
{
	const ab_farm_options *o = ab_farm_opts(f);
	const char *arch = ml_arch(o);
	ml_dir d = { 0 };
	const ab_listing *files;
	const char *dir, *sig[1];
	const ab_listing_entry **ents = NULL;
	ab_mainline_picked pick;
	ab_sums *sums = NULL;
	char q[128], qn[128];
	char *sums_url = NULL, *sig_url = NULL;
	size_t i;
	int r;

	memset(out, 0, sizeof *out);
	if (ml_no_dir(bd, why))
		return 1;
	if ((r = ml_read_files(f, bd, arch, &d, out, why, err)))
		goto out;
	files = d.files;
	dir = d.dir;
	if ((r = check_status(f, files, dir, why, err))) {
		out->failed = r == 1;	/* the farm says so */
		goto out;
	}
	if ((r = ml_pick(files, dir, arch, ml_flavour(o), &pick, &ents, out, why)))
		goto out;

	/* dir is a URL the listing resolved (ends in '/'): the names added
	 * are ours, never the farm's */
	sums_url = ab_xasprintf("%sCHECKSUMS", dir);
	sig_url = ab_xasprintf("%sCHECKSUMS.gpg", dir);
	sig[0] = sig_url;
	if ((r = ab_farm_sums(f, sums_url, sig, 1, NULL, &sums, &out->trust, why, err)))
		goto out;
	for (i = 0; i < pick.n; i++) {
		const ab_listing_entry *pe = ents[pick.idx[i]];
		const ab_sum *s = ab_sums_find(sums, pe->name);
		ab_farm_art *a = &out->arts[out->n];

		if (!s) {
			*why = ab_xasprintf(_("%s: %s has no SHA-256 for %s"), quote(dir, q, sizeof q),
					    "CHECKSUMS", quote(pe->name, qn, sizeof qn));
			r = 1;
			goto out;
		}
		a->url = ab_xstrdup(pe->url);
		memcpy(a->sha256, s->sha256, sizeof a->sha256);
		a->size = pe->size;
		out->n++;
	}
	r = 0;
out:
	if (r) {
		for (i = 0; i < out->n; i++)
			free(out->arts[i].url);
		out->n = 0;
	}
	ab_sums_free(sums);
	free(sums_url);
	free(sig_url);
	free(ents);
	ml_dir_free(&d);
	return r;
}

const ab_farm_layout ab_farm_mainline = {
	.name = "mainline",
	.recognise = ml_recognise,
	.list = ml_list,
	.resolve = ml_resolve,
	.match = ml_match,
};
