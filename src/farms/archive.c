/* archive.c - the "arch" farm layout: one package's directory of the
 * Arch Linux Archive (archive.archlinux.org/packages/l/linux/), whose
 * listing holds NAME-[E:]VERSION-REL-ARCH.pkg.tar.{zst,xz,gz} with a
 * detached .sig beside each.
 *
 * Owns turning that listing into builds in pacman's order and a build
 * into its one package file, checked against its signature. Reads only
 * through farm.c's services; never prints; every URL it hands on is an
 * entry's own from the listing, never one built from a name.
 */
#include "config.h"

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

static int archive_recognise(const ab_listing *top, const ab_farm_options *o)
{
	(void)o;
	return ab_archpkg_recognise(top);
}

/* --package, else the directory's own name: packages/l/linux/ -> linux. */
static char *package_name(const ab_farm_options *o)
{
	if (o->npackages > 0 && o->packages[0] && *o->packages[0])
		return ab_xstrdup(o->packages[0]);
	return ab_farm_url_last_segment(o->url);
}

static const char *want_arch(const ab_farm_options *o)
{
	const char *a = o->arch && *o->arch ? o->arch : ab_farm_host_arch("arch");

	return a ? a : "x86_64";
}

typedef struct cand {
	ab_archpkg p;
	const ab_listing_entry *e;
	int own_arch;	/* 1 for our arch, 0 for "any" */
} cand;

/* pacman's order; one id twice (.zst and .xz, ARCH and any): the
 * preferred first, so that it is the one kept. */
static int cmp_cand(const void *x, const void *y)
{
	const cand *a = x, *b = y;
	int r = ab_alpm_vercmp(a->p.evr, b->p.evr);

	if (r)
		return r;
	if ((r = strcmp(a->p.evr, b->p.evr)))
		return r;
	if (a->own_arch != b->own_arch)
		return b->own_arch - a->own_arch;
	return (int)a->p.comp - (int)b->p.comp;
}

static int archive_list(ab_farm *f, const ab_listing *top, json_t *builds, ab_error *err)
{
	const ab_farm_options *o = ab_farm_opts(f);
	const char *arch = want_arch(o);
	char *name = package_name(o);
	cand *c;
	size_t i, n = 0, kept = 0, others = 0;
	char q1[128], q2[128];

	if (!name) {
		ab_error_set(err, AB_EXIT_USAGE,
			     _("%s: no package name in the URL; name it with --package"),
			     ab_farm_quote(o->url, strlen(o->url), q1, sizeof q1));
		return -1;
	}
	c = ab_xcalloc(top->n ? top->n : 1, sizeof *c);
	for (i = 0; i < top->n; i++) {
		const ab_listing_entry *e = &top->entries[i];

		if (e->is_dir || !ab_archpkg_parse(e->name, &c[n].p))
			continue;
		if (strcmp(c[n].p.name, name) || (strcmp(c[n].p.arch, arch) && strcmp(c[n].p.arch, "any"))) {
			others++;
			ab_archpkg_free(&c[n].p);
			continue;
		}
		c[n].e = e;
		c[n].own_arch = !strcmp(c[n].p.arch, arch);
		n++;
	}
	qsort(c, n, sizeof *c, cmp_cand);
	for (i = 0; i < n; i++) {
		json_t *b;
		char *commit;

		if (i > 0 && !strcmp(c[i].p.evr, c[i - 1].p.evr))
			continue;	/* the same build in another compression */
		b = json_object();
		json_object_set_new(b, "id", json_string(c[i].p.evr));
		json_object_set_new(b, "version", json_string(c[i].p.evr));
		if ((commit = ab_pkg_commit_from_version(c[i].p.version)))
			json_object_set_new(b, "commit", json_string(commit));
		free(commit);
		ab_farm_set_date(b, c[i].e->mtime);
		json_object_set_new(b, "farm_ref", json_string(c[i].e->url));
		json_array_append_new(builds, b);
		kept++;
	}
	for (i = 0; i < n; i++)
		ab_archpkg_free(&c[i].p);
	free(c);
	if (!kept)
		ab_error_set(err, AB_EXIT_USAGE,
			     others ? _("%s: no package %s for %s among the packages listed (--package names "
					"another, --arch another architecture)")
				    : _("%s: no package %s for %s: the listing holds no Arch package files"),
			     ab_farm_quote(o->url, strlen(o->url), q1, sizeof q1),
			     ab_farm_quote(name, strlen(name), q2, sizeof q2), arch);
	free(name);
	return kept ? 0 : -1;
}

/* The directory a listed URL is in, up to its last '/'. */
static char *dir_of(const char *url)
{
	const char *slash = strrchr(url, '/');

	return slash ? ab_xstrndup(url, (size_t)(slash + 1 - url)) : NULL;
}

static int archive_resolve(ab_farm *f, const ab_build *bd, ab_farm_resolved *out, char **why,
			   ab_error *err)
{
	const ab_farm_options *o = ab_farm_opts(f);
	const ab_listing_entry *e = NULL, *sig = NULL;
	ab_listing_names names;
	ab_listing *l;
	ab_trust trust = AB_TRUST_DIGEST;
	char *dir, *signame, sha[65] = "", q[128], q2[128];
	bool missing = false;
	size_t i;
	int rc;

	memset(out, 0, sizeof *out);
	*why = NULL;
	if (!bd->farm_ref || !(dir = dir_of(bd->farm_ref))) {
		*why = ab_xasprintf(_("build %s: no package file recorded"),
				    ab_farm_quote(bd->id, strlen(bd->id), q, sizeof q));
		return 1;
	}
	/* The listing again (revalidated from the cache): the .sig and the
	 * size are the listing's, and a resumed session has no listing. */
	l = ab_farm_listing(f, dir, &missing, err);
	if (!l) {
		if (!missing) {
			free(dir);
			return -1;
		}
		*why = ab_xasprintf(_("%s: the directory is gone"), ab_farm_quote(dir, strlen(dir), q, sizeof q));
		free(dir);
		return 1;
	}
	free(dir);
	for (i = 0; i < l->n && !e; i++)
		if (!l->entries[i].is_dir && !strcmp(l->entries[i].url, bd->farm_ref))
			e = &l->entries[i];
	if (!e) {
		*why = ab_xasprintf(_("%s: no longer listed"),
				    ab_farm_quote(bd->farm_ref, strlen(bd->farm_ref), q, sizeof q));
		ab_listing_free(l);
		return 1;
	}
	ab_listing_names_init(&names, l);
	signame = ab_xasprintf("%s.sig", e->name);
	sig = ab_listing_names_find(&names, signame);
	if (sig && sig->is_dir)
		sig = NULL;
	free(signame);
	if (!sig && !o->allow_unverified) {
		*why = ab_xasprintf(_("%s: no signature (no .sig beside it); --allow-unverified takes it unchecked"),
				    ab_farm_quote(e->url, strlen(e->url), q2, sizeof q2));
		rc = 1;
	} else {
		rc = ab_farm_fetch_verified(f, e->url, e->size, AB_CHECK_DETACHED_SIG, sig ? sig->url : NULL,
					    sha, &trust, why, err);
	}
	if (rc == 0) {
		out->arts[0].url = ab_xstrdup(e->url);
		memcpy(out->arts[0].sha256, sha, sizeof sha);
		out->arts[0].sha256[64] = '\0';
		out->arts[0].size = e->size;
		out->n = 1;
		out->trust = trust;
	}
	ab_listing_names_free(&names);
	ab_listing_free(l);
	return rc;
}

const ab_farm_layout ab_farm_archive = {
	.name = "arch",
	.recognise = archive_recognise,
	.list = archive_list,
	.resolve = archive_resolve,
};
