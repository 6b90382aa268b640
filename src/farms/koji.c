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
	else if (!archl)	/* Koji made nothing for the arch */
		why = ab_xasprintf(_("%s: no %s directory in this build (noarch has: %s)"),
				   ab_farm_quote(bd->farm_ref, strlen(bd->farm_ref), q, sizeof q),
				   ab_farm_quote(arch, strlen(arch), q3, sizeof q3),
				   shown ? b.data : _("none"));
	else
		why = ab_xasprintf(_("%s: no subpackage %s for %s (there are: %s)"),
				   ab_farm_quote(bd->farm_ref, strlen(bd->farm_ref), q, sizeof q),
				   ab_farm_quote(sub, strlen(sub), q2, sizeof q2),
				   ab_farm_quote(arch, strlen(arch), q3, sizeof q3),
				   shown ? b.data : _("none"));
	ab_buf_free(&b);
	return why;
}

/* One build's listings and the RPMs picked from them. */
typedef struct koji_build {
	const char *arch;
	const char *const *subs;
	size_t nsubs;
	const ab_listing_entry *picked[AB_FARM_MAX_ARTS];
	ab_listing *rel, *archl, *noarchl;
	char *version, *release, *pkg;
} koji_build;

static void koji_build_free(koji_build *k)
{
	ab_listing_free(k->rel);
	ab_listing_free(k->archl);
	ab_listing_free(k->noarchl);
	free(k->version);
	free(k->release);
	free(k->pkg);
}

/* "x86_64, aarch64": the release's architecture directories. */
static void arch_dirs(const ab_listing *rel, char *buf, size_t size)
{
	static const char *const not_arches[] = { "noarch", "src", "data", "logs" };
	size_t i, k, o = 0;
	char q[64];

	buf[0] = '\0';
	for (i = 0; rel && i < rel->n; i++) {
		const char *name = rel->entries[i].name;

		for (k = 0; k < sizeof not_arches / sizeof *not_arches; k++)
			if (!strcmp(name, not_arches[k]))
				break;
		if (!rel->entries[i].is_dir || k < sizeof not_arches / sizeof *not_arches ||
		    o + strlen(name) + 8 >= size)
			continue;
		o += (size_t)snprintf(buf + o, size - o, "%s%s", o ? ", " : "",
				      ab_farm_quote(name, strlen(name), q, sizeof q));
	}
}

/* What out->miss and out->there say when sub (given with --package) or
 * the arch is not in the build while it has files for others: farm.c
 * then asks the range's ends whether the value is a slip. */
static void say_miss(const ab_farm_options *o, const koji_build *k, const char *sub,
		     ab_farm_resolved *out)
{
	char q[64], list[160];
	ab_buf b = {0};
	size_t shown = 0;

	if (!k->archl) {
		arch_dirs(k->rel, list, sizeof list);
		if (!list[0])
			return;
		snprintf(out->miss, sizeof out->miss, "--arch %s",
			 ab_farm_quote(k->arch, strlen(k->arch), q, sizeof q));
		snprintf(out->there, sizeof out->there, _("architectures there: %s"), list);
		return;
	}
	if (!o->npackages)	/* the name came from the URL, not typed */
		return;
	add_subpackages(&b, k->archl, k->version, k->release, &shown);
	add_subpackages(&b, k->noarchl, k->version, k->release, &shown);
	if (shown) {
		snprintf(out->miss, sizeof out->miss, "--package %s",
			 ab_farm_quote(sub, strlen(sub), q, sizeof q));
		snprintf(out->there, sizeof out->there, _("subpackages there: %s"), b.data);
	}
	ab_buf_free(&b);
}

/* Reads build bd's listings and picks the RPM of each subpackage: 0
 * with k->picked, 1 with *why (out->failed when Koji made nothing for
 * the arch), -1 with err. */
static int koji_pick(ab_farm *f, const ab_build *bd, koji_build *k, ab_farm_resolved *out,
		     char **why, ab_error *err)
{
	const ab_farm_options *o = ab_farm_opts(f);
	bool missing = false, noarch_read = false;
	char q[128];
	size_t i;

	k->arch = o->arch && *o->arch ? o->arch : ab_farm_host_arch("rpm");
	if (!k->arch)
		k->arch = "x86_64";
	k->subs = o->packages;
	k->nsubs = o->npackages;
	if (!bd->farm_ref || !ab_koji_split_id(bd->id, &k->version, &k->release)) {
		*why = ab_xasprintf(_("build %s: not a Koji VERSION-RELEASE"),
				    ab_farm_quote(bd->id, strlen(bd->id), q, sizeof q));
		return 1;
	}
	if (!k->nsubs) {
		if (!(k->pkg = ab_farm_url_last_segment(o->url))) {
			ab_error_set(err, AB_EXIT_USAGE, _("%s: no package name in the URL; name it with --package"),
				     ab_farm_quote(o->url, strlen(o->url), q, sizeof q));
			return -1;
		}
		k->subs = (const char *const *)&k->pkg;
		k->nsubs = 1;
	}
	if (k->nsubs > AB_FARM_MAX_ARTS) {
		ab_error_set(err, AB_EXIT_USAGE, _("at most %d --package subpackages can be taken from a build"),
			     AB_FARM_MAX_ARTS);
		return -1;
	}
	k->rel = ab_farm_listing(f, bd->farm_ref, &missing, err);
	if (!k->rel) {
		if (!missing)
			return -1;
		*why = ab_xasprintf(_("%s: the build's directory is gone"),
				    ab_farm_quote(bd->farm_ref, strlen(bd->farm_ref), q, sizeof q));
		return 1;
	}
	if (read_dir(f, find_dir(k->rel, k->arch), &k->archl, err) < 0)
		return -1;
	for (i = 0; i < k->nsubs; i++) {
		k->picked[i] = find_rpm(k->archl, k->subs[i], k->version, k->release, k->arch);
		if (!k->picked[i] && !noarch_read) {
			noarch_read = true;
			if (read_dir(f, find_dir(k->rel, "noarch"), &k->noarchl, err) < 0)
				return -1;
		}
		if (!k->picked[i])
			k->picked[i] = find_rpm(k->noarchl, k->subs[i], k->version, k->release, "noarch");
		if (!k->picked[i]) {
			/* No directory for the arch: Koji did not make it there
			 * (a noarch/ of documentation alone is no build). */
			out->failed = !k->archl;
			say_miss(o, k, k->subs[i], out);
			*why = missing_why(bd, k->arch, k->subs[i], k->archl, k->noarchl, k->version,
					   k->release);
			return 1;
		}
	}
	return 0;
}

static int koji_resolve(ab_farm *f, const ab_build *bd, ab_farm_resolved *out, char **why,
			ab_error *err)
{
	koji_build k = {0};
	ab_trust trust = AB_TRUST_SIGNED;
	size_t i, j;
	int rc;

	memset(out, 0, sizeof *out);
	*why = NULL;
	if ((rc = koji_pick(f, bd, &k, out, why, err)) != 0)
		goto out;
	for (i = 0; i < k.nsubs; i++) {
		ab_trust t = AB_TRUST_DIGEST;
		char sha[65] = "";

		rc = ab_farm_fetch_verified(f, k.picked[i]->url, k.picked[i]->size, AB_CHECK_RPM, NULL, sha,
					    &t, why, err);
		if (rc) {
			for (j = 0; j < out->n; j++)
				free(out->arts[j].url);
			memset(out, 0, sizeof *out);
			goto out;
		}
		out->arts[i].url = ab_xstrdup(k.picked[i]->url);
		memcpy(out->arts[i].sha256, sha, sizeof sha);
		out->arts[i].sha256[64] = '\0';
		out->arts[i].size = k.picked[i]->size;
		out->n = i + 1;
		/* the weakest: unverified < digest < signed */
		if (t == AB_TRUST_UNVERIFIED || (t == AB_TRUST_DIGEST && trust == AB_TRUST_SIGNED))
			trust = t;
	}
	out->trust = trust;
out:
	koji_build_free(&k);
	return rc;
}

/* Whether bd has every subpackage for the arch, from its listings. */
static int koji_match(ab_farm *f, const ab_build *bd, ab_farm_resolved *out, ab_error *err)
{
	koji_build k = {0};
	char *why = NULL;
	int rc;

	memset(out, 0, sizeof *out);
	rc = koji_pick(f, bd, &k, out, &why, err);
	free(why);
	koji_build_free(&k);
	return rc;
}

const ab_farm_layout ab_farm_koji = {
	.name = "koji",
	.recognise = koji_recognise,
	.list = koji_list,
	.resolve = koji_resolve,
	.match = koji_match,
};
