/* koji.c - the "koji" farm layout: one package of a Koji tree
 * (kojipkgs.fedoraproject.org/packages/kernel/), laid out as Koji's
 * pathinfo lays it: NAME/VERSION/RELEASE/ARCH/SUB-VERSION-RELEASE.ARCH.rpm,
 * with noarch/, src/, data/ and logs/ beside ARCH/.
 *
 * Owns reading the version directories (only those in the range asked
 * for, concurrently), ordering their releases as rpm does, and taking a
 * build's subpackages from its ARCH/ (or noarch/) directory, each
 * checked by librpm through farm.c. Reads only through farm.c's
 * services; never prints; every URL it hands on is an entry's own from
 * a listing, never one built from a name.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>

#include "farms/farm.h"
#include "farms/names.h"
#include "farms/pkgnames.h"
#include "base/i18n.h"
#include "pkg/pkginfo.h"
#include "base/util.h"

static int koji_recognise(const ab_listing *top, const ab_farm_options *o)
{
	return ab_koji_recognise(top, o->url);
}

typedef struct cand {
	const char *version, *release, *url;
	int64_t mtime;
} cand;

static int cmp_cand(const void *x, const void *y)
{
	const cand *a = x, *b = y;
	int r = ab_koji_vr_cmp(a->version, a->release, b->version, b->release);

	if (r)
		return r;
	if ((r = strcmp(a->version, b->version)))
		return r;
	return strcmp(a->release, b->release);
}

static int koji_list(ab_farm *f, const ab_listing *top, json_t *builds, ab_error *err)
{
	const ab_farm_options *o = ab_farm_opts(f);
	const char **urls = ab_xcalloc(top->n ? top->n : 1, sizeof *urls);
	const char **vnames = ab_xcalloc(top->n ? top->n : 1, sizeof *vnames);
	ab_listing **ls;
	char **whys, *first_why = NULL, q[128];
	cand *c = NULL;
	size_t i, j, nv = 0, n = 0, cap = 0;
	int rc = -1;

	for (i = 0; i < top->n; i++) {
		const ab_listing_entry *e = &top->entries[i];

		if (!e->is_dir || !isdigit((unsigned char)e->name[0]) || !ab_koji_name_ok(e->name) ||
		    !ab_koji_version_in_range(e->name, o->good, o->bad))
			continue;
		urls[nv] = e->url;
		vnames[nv++] = e->name;
	}
	if (!nv) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: no version directories%s"),
			     ab_farm_quote(o->url, strlen(o->url), q, sizeof q),
			     o->good && o->bad ? _(" between the good and bad builds") : "");
		free(urls);
		free(vnames);
		return -1;
	}
	ls = ab_xcalloc(nv, sizeof *ls);
	whys = ab_xcalloc(nv, sizeof *whys);
	if (ab_farm_listings(f, urls, nv, ls, whys, err) < 0)
		goto out;
	for (i = 0; i < nv; i++) {
		if (!ls[i]) {
			if (!first_why && whys[i])
				first_why = ab_xstrdup(whys[i]);
			continue;
		}
		for (j = 0; j < ls[i]->n; j++) {
			const ab_listing_entry *e = &ls[i]->entries[j];

			if (!e->is_dir || !ab_koji_name_ok(e->name))
				continue;
			if (n == cap)
				c = ab_xrealloc(c, (cap = cap ? 2 * cap : 64) * sizeof *c);
			c[n].version = vnames[i];
			c[n].release = e->name;
			c[n].url = e->url;
			c[n].mtime = e->mtime;
			n++;
		}
	}
	if (!n) {
		if (first_why)
			ab_error_set(err, AB_EXIT_USAGE, _("%s: no builds could be read: %s"),
				     ab_farm_quote(o->url, strlen(o->url), q, sizeof q), first_why);
		else
			ab_error_set(err, AB_EXIT_USAGE, _("%s: no release directories in its versions"),
				     ab_farm_quote(o->url, strlen(o->url), q, sizeof q));
		goto out;
	}
	qsort(c, n, sizeof *c, cmp_cand);
	for (i = 0; i < n; i++) {
		json_t *b = json_object();
		char *id = ab_xasprintf("%s-%s", c[i].version, c[i].release);
		char *commit = ab_pkg_commit_from_version(c[i].release);

		json_object_set_new(b, "id", json_string(id));
		json_object_set_new(b, "version", json_string(id));
		if (commit)
			json_object_set_new(b, "commit", json_string(commit));
		ab_farm_set_date(b, c[i].mtime);
		json_object_set_new(b, "farm_ref", json_string(c[i].url));
		json_array_append_new(builds, b);
		free(id);
		free(commit);
	}
	rc = 0;
out:
	for (i = 0; i < nv; i++) {
		ab_listing_free(ls[i]);
		free(whys[i]);
	}
	free(ls);
	free(whys);
	free(first_why);
	free(c);
	free(urls);
	free(vnames);
	return rc;
}

static const ab_listing_entry *find_dir(const ab_listing *l, const char *name)
{
	size_t i;

	for (i = 0; l && i < l->n; i++)
		if (l->entries[i].is_dir && !strcmp(l->entries[i].name, name))
			return &l->entries[i];
	return NULL;
}

static const ab_listing_entry *find_rpm(const ab_listing *l, const char *sub, const char *version,
					const char *release, const char *arch)
{
	size_t i;

	for (i = 0; l && i < l->n; i++)
		if (!l->entries[i].is_dir &&
		    ab_rpmfile_is(l->entries[i].name, sub, version, release, arch))
			return &l->entries[i];
	return NULL;
}

/* "kernel, kernel-core, kernel-modules, ..." of this build, shortened. */
static void add_subpackages(ab_buf *b, const ab_listing *l, const char *version, const char *release,
			    size_t *shown)
{
	size_t i;
	char q[128];

	for (i = 0; l && i < l->n; i++) {
		ab_rpmfile rf;

		if (l->entries[i].is_dir || !ab_rpmfile_parse(l->entries[i].name, &rf))
			continue;
		if (!strcmp(rf.version, version) && !strcmp(rf.release, release) && strcmp(rf.arch, "src")) {
			if (b->len >= 200) {
				if (!b->len || b->data[b->len - 1] != '.')
					ab_buf_puts(b, ", ...");
			} else {
				ab_buf_printf(b, "%s%s", *shown ? ", " : "",
					      ab_farm_quote(rf.name, strlen(rf.name), q, sizeof q));
			}
			(*shown)++;
		}
		ab_rpmfile_free(&rf);
	}
}

static int read_dir(ab_farm *f, const ab_listing_entry *e, ab_listing **out, ab_error *err)
{
	bool missing = false;

	*out = NULL;
	if (!e)
		return 0;
	*out = ab_farm_listing(f, e->url, &missing, err);
	return *out || missing ? 0 : -1;
}

/* Why subpackage sub of build bd is not there for arch: no directory
 * for it, or the subpackages there are (archl, noarchl may be NULL). */
static char *missing_why(const ab_build *bd, const char *arch, const char *sub,
			 const ab_listing *archl, const ab_listing *noarchl, const char *version,
			 const char *release)
{
	ab_buf b = {0};
	size_t shown = 0;
	char q[128], q2[128], q3[128], *why;

	add_subpackages(&b, archl, version, release, &shown);
	add_subpackages(&b, noarchl, version, release, &shown);
	if (!archl && !noarchl)
		why = ab_xasprintf(_("%s: no %s or noarch directory in this build"),
				   ab_farm_quote(bd->farm_ref, strlen(bd->farm_ref), q, sizeof q),
				   ab_farm_quote(arch, strlen(arch), q3, sizeof q3));
	else
		why = ab_xasprintf(_("%s: no subpackage %s for %s (there are: %s)"),
				   ab_farm_quote(bd->farm_ref, strlen(bd->farm_ref), q, sizeof q),
				   ab_farm_quote(sub, strlen(sub), q2, sizeof q2),
				   ab_farm_quote(arch, strlen(arch), q3, sizeof q3),
				   shown ? b.data : _("none"));
	ab_buf_free(&b);
	return why;
}

static int koji_resolve(ab_farm *f, const ab_build *bd, ab_farm_resolved *out, char **why,
			ab_error *err)
{
	const ab_farm_options *o = ab_farm_opts(f);
	const char *arch = o->arch && *o->arch ? o->arch : ab_farm_host_arch("rpm");
	const char *const *subs = o->packages;
	size_t nsubs = o->npackages, i, k;
	const ab_listing_entry *picked[AB_FARM_MAX_ARTS];
	ab_listing *rel = NULL, *archl = NULL, *noarchl = NULL;
	char *version = NULL, *release = NULL, *pkg = NULL, q[128];
	bool missing = false, noarch_read = false;
	ab_trust trust = AB_TRUST_SIGNED;
	int rc = -1;

	memset(out, 0, sizeof *out);
	*why = NULL;
	if (!arch)
		arch = "x86_64";
	if (!bd->farm_ref || !ab_koji_split_id(bd->id, &version, &release)) {
		*why = ab_xasprintf(_("build %s: not a Koji VERSION-RELEASE"),
				    ab_farm_quote(bd->id, strlen(bd->id), q, sizeof q));
		return 1;
	}
	if (!nsubs) {
		if (!(pkg = ab_farm_url_last_segment(o->url))) {
			ab_error_set(err, AB_EXIT_USAGE, _("%s: no package name in the URL; name it with --package"),
				     ab_farm_quote(o->url, strlen(o->url), q, sizeof q));
			goto out;
		}
		subs = (const char *const *)&pkg;
		nsubs = 1;
	}
	if (nsubs > AB_FARM_MAX_ARTS) {
		ab_error_set(err, AB_EXIT_USAGE, _("at most %d --package subpackages can be taken from a build"),
			     AB_FARM_MAX_ARTS);
		goto out;
	}
	rel = ab_farm_listing(f, bd->farm_ref, &missing, err);
	if (!rel) {
		if (missing) {
			*why = ab_xasprintf(_("%s: the build's directory is gone"),
					    ab_farm_quote(bd->farm_ref, strlen(bd->farm_ref), q, sizeof q));
			rc = 1;
		}
		goto out;
	}
	if (read_dir(f, find_dir(rel, arch), &archl, err) < 0)
		goto out;
	for (i = 0; i < nsubs; i++) {
		picked[i] = find_rpm(archl, subs[i], version, release, arch);
		if (!picked[i]) {
			if (!noarch_read) {
				noarch_read = true;
				if (read_dir(f, find_dir(rel, "noarch"), &noarchl, err) < 0)
					goto out;
			}
			picked[i] = find_rpm(noarchl, subs[i], version, release, "noarch");
		}
		if (!picked[i]) {
			if (!noarch_read && read_dir(f, find_dir(rel, "noarch"), &noarchl, err) < 0)
				goto out;
			/* No directory for the arch: Koji did not make it there
			 * (a noarch/ of documentation alone is no build). */
			out->failed = !archl;
			*why = missing_why(bd, arch, subs[i], archl, noarchl, version, release);
			rc = 1;
			goto out;
		}
	}
	for (i = 0; i < nsubs; i++) {
		ab_trust t = AB_TRUST_DIGEST;
		char sha[65] = "";

		rc = ab_farm_fetch_verified(f, picked[i]->url, picked[i]->size, AB_CHECK_RPM, NULL, sha, &t, why,
					    err);
		if (rc) {
			for (k = 0; k < out->n; k++)
				free(out->arts[k].url);
			memset(out, 0, sizeof *out);
			goto out;
		}
		out->arts[i].url = ab_xstrdup(picked[i]->url);
		memcpy(out->arts[i].sha256, sha, sizeof sha);
		out->arts[i].sha256[64] = '\0';
		out->arts[i].size = picked[i]->size;
		out->n = i + 1;
		/* the weakest: unverified < digest < signed */
		if (t == AB_TRUST_UNVERIFIED || (t == AB_TRUST_DIGEST && trust == AB_TRUST_SIGNED))
			trust = t;
	}
	out->trust = trust;
	rc = 0;
out:
	ab_listing_free(rel);
	ab_listing_free(archl);
	ab_listing_free(noarchl);
	free(version);
	free(release);
	free(pkg);
	return rc;
}

const ab_farm_layout ab_farm_koji = {
	.name = "koji",
	.recognise = koji_recognise,
	.list = koji_list,
	.resolve = koji_resolve,
};
