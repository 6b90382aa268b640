/* pkgnames.c - package and directory names of the "arch" and "koji"
 * layouts (see pkgnames.h). */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>
#include <rpm/rpmlib.h>
#include <rpm/rpmver.h>

#include "farms/names.h"
#include "farms/pkgnames.h"
#include "pkg/pkginfo.h"
#include "base/util.h"

/* Every character of s[0..n) is one of ASCII's letters and digits or in
 * extra. */
static bool only(const char *s, size_t n, const char *extra)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!(c < 0x80 && isalnum(c)) && (!c || !strchr(extra, c)))
			return false;
	}
	return true;
}

static bool all_digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return n > 0;
}

static const char *last_dash(const char *s, const char *end)
{
	while (end > s) {
		end--;
		if (*end == '-')
			return end;
	}
	return NULL;
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !memcmp(s + n - k, suffix, k);
}

void ab_archpkg_free(ab_archpkg *p)
{
	if (!p)
		return;
	free(p->name);
	free(p->epoch);
	free(p->version);
	free(p->rel);
	free(p->arch);
	free(p->evr);
	memset(p, 0, sizeof *p);
}

bool ab_archpkg_parse(const char *file, ab_archpkg *out)
{
	static const struct {
		const char *suffix;
		ab_archpkg_comp comp;
	} suffixes[] = {
		{".pkg.tar.zst", AB_ARCHPKG_ZST},
		{".pkg.tar.xz", AB_ARCHPKG_XZ},
		{".pkg.tar.gz", AB_ARCHPKG_GZ},
	};
	const char *end = NULL, *a, *r, *v, *colon;
	size_t n, i;

	memset(out, 0, sizeof *out);
	if (!file)
		return false;
	n = strlen(file);
	for (i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
		if (ends_with(file, n, suffixes[i].suffix)) {
			end = file + n - strlen(suffixes[i].suffix);
			out->comp = suffixes[i].comp;
			break;
		}
	if (!end)
		return false;
	/* From the right: -ARCH, -REL, -VERSION; NAME keeps its dashes. */
	if (!(a = last_dash(file, end)) || !(r = last_dash(file, a)) || !(v = last_dash(file, r)))
		return false;
	if (a + 1 == end || !only(a + 1, (size_t)(end - a - 1), "_"))
		return false;
	/* pkgrel: 1, 2.1 */
	if (!isdigit((unsigned char)r[1]) || !isdigit((unsigned char)a[-1]) ||
	    !only(r + 1, (size_t)(a - r - 1), ".") || strspn(r + 1, "0123456789.") < (size_t)(a - r - 1))
		return false;
	/* [EPOCH:]pkgver */
	colon = memchr(v + 1, ':', (size_t)(r - v - 1));
	if (colon && !all_digits(v + 1, (size_t)(colon - v - 1)))
		return false;
	{
		const char *ver = colon ? colon + 1 : v + 1;

		if (ver == r || !only(ver, (size_t)(r - ver), "._+~") || !isalnum((unsigned char)ver[0]))
			return false;
		out->version = ab_xstrndup(ver, (size_t)(r - ver));
	}
	/* pkgname: letters, digits, @._+- and no leading '-' or '.' */
	if (v == file || file[0] == '-' || file[0] == '.' || !only(file, (size_t)(v - file), "@._+-")) {
		ab_archpkg_free(out);
		return false;
	}
	out->name = ab_xstrndup(file, (size_t)(v - file));
	out->rel = ab_xstrndup(r + 1, (size_t)(a - r - 1));
	out->arch = ab_xstrndup(a + 1, (size_t)(end - a - 1));
	if (colon && strspn(v + 1, "0") < (size_t)(colon - v - 1))
		out->epoch = ab_xstrndup(v + 1, (size_t)(colon - v - 1));
	out->evr = out->epoch ? ab_xasprintf("%s:%s-%s", out->epoch, out->version, out->rel)
			      : ab_xasprintf("%s-%s", out->version, out->rel);
	return true;
}

/* pacman's rpmvercmp (lib/libalpm/version.c) walks the versions its
 * own way: separators of unequal length decide, and at the end a letter
 * part loses to nothing (1.0rc < 1.0) where librpm lets any remainder
 * win. That walk is copied here; each pair of segments (digits against
 * digits, letters against letters) is compared by librpm's rpmvercmp. */
static int part_cmp(const char *a, const char *b)
{
	const char *one = a, *two = b;

	if (!strcmp(a, b))
		return 0;
	while (*one && *two) {
		const char *p1 = one, *p2 = two, *s1, *s2;
		char *x, *y;
		bool num;
		int r;

		while (*one && !isalnum((unsigned char)*one))
			one++;
		while (*two && !isalnum((unsigned char)*two))
			two++;
		if (!*one || !*two)
			break;
		if (one - p1 != two - p2)
			return one - p1 < two - p2 ? -1 : 1;
		num = isdigit((unsigned char)*one);
		s1 = one;
		s2 = two;
		if (num) {
			while (isdigit((unsigned char)*one))
				one++;
			while (isdigit((unsigned char)*two))
				two++;
		} else {
			while (isalpha((unsigned char)*one))
				one++;
			while (isalpha((unsigned char)*two))
				two++;
		}
		if (two == s2)	/* digits against letters: digits are newer */
			return num ? 1 : -1;
		x = ab_xstrndup(s1, (size_t)(one - s1));
		y = ab_xstrndup(s2, (size_t)(two - s2));
		r = rpmvercmp(x, y);
		free(x);
		free(y);
		if (r)
			return r < 0 ? -1 : 1;
	}
	if (!*one && !*two)
		return 0;
	/* pacman's "final showdown": a remaining letter part never beats
	 * an empty string */
	return (!*one && !isalpha((unsigned char)*two)) || isalpha((unsigned char)*one) ? -1 : 1;
}

/* pacman's parseEVR: leading digits and ':' are the epoch ("0" when
 * none), the part after the last '-' the release (NULL when none). */
static void parse_evr(char *evr, const char **epoch, const char **version, const char **release)
{
	char *s = evr, *se;

	while (*s && isdigit((unsigned char)*s))
		s++;
	se = strrchr(s, '-');
	if (*s == ':') {
		*epoch = evr;
		*s++ = '\0';
		*version = s;
		if (!**epoch)
			*epoch = "0";
	} else {
		*epoch = "0";
		*version = evr;
	}
	if (se) {
		*se++ = '\0';
		*release = se;
	} else {
		*release = NULL;
	}
}

int ab_alpm_vercmp(const char *a, const char *b)
{
	char *x, *y;
	const char *e1, *v1, *r1, *e2, *v2, *r2;
	int ret;

	if (!a || !b)
		return !a ? (!b ? 0 : -1) : 1;
	if (!strcmp(a, b))
		return 0;
	x = ab_xstrdup(a);
	y = ab_xstrdup(b);
	parse_evr(x, &e1, &v1, &r1);
	parse_evr(y, &e2, &v2, &r2);
	ret = part_cmp(e1, e2);
	if (!ret) {
		ret = part_cmp(v1, v2);
		if (!ret && r1 && r2)
			ret = part_cmp(r1, r2);
	}
	free(x);
	free(y);
	return ret;
}

static int cmp_entry_name(const void *x, const void *y)
{
	const ab_listing_entry *const *a = x, *const *b = y;

	return strcmp((*a)->name, (*b)->name);
}

void ab_listing_names_init(ab_listing_names *s, const ab_listing *l)
{
	size_t i;

	s->n = l ? l->n : 0;
	s->v = ab_xcalloc(s->n ? s->n : 1, sizeof *s->v);
	for (i = 0; i < s->n; i++)
		s->v[i] = &l->entries[i];
	qsort(s->v, s->n, sizeof *s->v, cmp_entry_name);
}

const ab_listing_entry *ab_listing_names_find(const ab_listing_names *s, const char *name)
{
	ab_listing_entry key = {.name = (char *)name};
	const ab_listing_entry *k = &key, *const *hit;

	hit = bsearch(&k, s->v, s->n, sizeof *s->v, cmp_entry_name);
	return hit ? *hit : NULL;
}

void ab_listing_names_free(ab_listing_names *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

int ab_archpkg_recognise(const ab_listing *l)
{
	ab_listing_names names;
	size_t i, pkgs = 0, signed_pkgs = 0;

	if (!l)
		return 0;
	ab_listing_names_init(&names, l);
	for (i = 0; i < l->n; i++) {
		const ab_listing_entry *e = &l->entries[i], *sig;
		ab_archpkg p;
		char *signame;

		if (e->is_dir || !ab_archpkg_parse(e->name, &p))
			continue;
		ab_archpkg_free(&p);
		pkgs++;
		signame = ab_xasprintf("%s.sig", e->name);
		sig = ab_listing_names_find(&names, signame);
		if (sig && !sig->is_dir)
			signed_pkgs++;
		free(signame);
	}
	ab_listing_names_free(&names);
	return signed_pkgs >= 2 ? 2 : pkgs >= 2 ? 1 : 0;
}

/* ---- Koji ---- */

bool ab_koji_name_ok(const char *s)
{
	size_t i;

	if (!s || !*s)
		return false;
	for (i = 0; s[i]; i++)
		if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 0x7f || s[i] == '-')
			return false;
	return true;
}

bool ab_koji_split_id(const char *id, char **version, char **release)
{
	const char *dash;

	*version = *release = NULL;
	if (!id || !(dash = strchr(id, '-')) || strchr(dash + 1, '-') || dash == id || !dash[1])
		return false;
	*version = ab_xstrndup(id, (size_t)(dash - id));
	*release = ab_xstrdup(dash + 1);
	if (!ab_koji_name_ok(*version) || !ab_koji_name_ok(*release)) {
		free(*version);
		free(*release);
		*version = *release = NULL;
		return false;
	}
	return true;
}

int ab_koji_vr_cmp(const char *v1, const char *r1, const char *v2, const char *r2)
{
	ab_pkg_info a = {.kind = AB_PKG_RPM, .version = (char *)v1, .release = (char *)r1};
	ab_pkg_info b = {.kind = AB_PKG_RPM, .version = (char *)v2, .release = (char *)r2};
	int r = ab_pkg_vercmp(&a, &b);

	return r < 0 ? -1 : r > 0;
}

bool ab_koji_version_in_range(const char *version, const char *good, const char *bad)
{
	char *gv, *gr, *bv, *br;
	const char *lo, *hi;
	bool in;

	if (!ab_koji_split_id(good, &gv, &gr))
		return true;
	if (!ab_koji_split_id(bad, &bv, &br)) {
		free(gv);
		free(gr);
		return true;
	}
	lo = rpmvercmp(gv, bv) <= 0 ? gv : bv;
	hi = lo == gv ? bv : gv;
	in = rpmvercmp(version, lo) >= 0 && rpmvercmp(version, hi) <= 0;
	free(gv);
	free(gr);
	free(bv);
	free(br);
	return in;
}

void ab_rpmfile_free(ab_rpmfile *f)
{
	if (!f)
		return;
	free(f->name);
	free(f->version);
	free(f->release);
	free(f->arch);
	memset(f, 0, sizeof *f);
}

bool ab_rpmfile_parse(const char *file, ab_rpmfile *out)
{
	const char *end, *dot, *r, *v;
	size_t n;

	memset(out, 0, sizeof *out);
	if (!file || !ends_with(file, n = strlen(file), ".rpm"))
		return false;
	end = file + n - 4;
	for (dot = end; dot > file && dot[-1] != '.'; dot--)
		;
	if (dot == file || dot == end)
		return false;
	dot--;	/* at the '.' before ARCH */
	if (!(r = last_dash(file, dot)) || !(v = last_dash(file, r)) || v == file || r == v + 1 ||
	    dot == r + 1)
		return false;
	if (!only(dot + 1, (size_t)(end - dot - 1), "_") ||
	    !only(r + 1, (size_t)(dot - r - 1), "._+~^") || !only(v + 1, (size_t)(r - v - 1), "._+~^") ||
	    !only(file, (size_t)(v - file), "._+-"))
		return false;
	out->name = ab_xstrndup(file, (size_t)(v - file));
	out->version = ab_xstrndup(v + 1, (size_t)(r - v - 1));
	out->release = ab_xstrndup(r + 1, (size_t)(dot - r - 1));
	out->arch = ab_xstrndup(dot + 1, (size_t)(end - dot - 1));
	return true;
}

bool ab_rpmfile_is(const char *file, const char *sub, const char *version, const char *release,
		   const char *arch)
{
	ab_rpmfile f;
	bool is;

	if (!sub || !version || !release || !arch || !ab_rpmfile_parse(file, &f))
		return false;
	is = !strcmp(f.name, sub) && !strcmp(f.version, version) && !strcmp(f.release, release) &&
	     !strcmp(f.arch, arch);
	ab_rpmfile_free(&f);
	return is;
}

/* The raw segments of url's path: the last one and the one before it
 * (either may be NULL), with no trailing '/'. 0, or -1 when url does not
 * parse. */
static int path_tail(const char *url, char **last, char **before)
{
	CURLU *h = curl_url();
	char *path = NULL, *end, *s;
	int rc = -1;

	*last = *before = NULL;
	if (h && url && curl_url_set(h, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(h, CURLUPART_PATH, &path, 0) == CURLUE_OK) {
		end = path + strlen(path);
		while (end > path && end[-1] == '/')
			end--;
		*end = '\0';
		if ((s = strrchr(path, '/'))) {
			*last = s[1] ? ab_xstrdup(s + 1) : NULL;
			*s = '\0';
			if ((s = strrchr(path, '/')) && s[1])
				*before = ab_xstrdup(s + 1);
		}
		rc = 0;
	}
	curl_free(path);
	curl_url_cleanup(h);
	return rc;
}

static char *decoded_name(const char *raw)
{
	int len = 0;
	char *d, *out = NULL;

	if (!raw || !*raw)
		return NULL;
	d = curl_easy_unescape(NULL, raw, 0, &len);
	if (d && len > 0 && ab_farm_utf8_valid(d, (size_t)len) && !memchr(d, '/', (size_t)len) &&
	    strcmp(d, ".") && strcmp(d, "..")) {
		int i;

		for (i = 0; i < len && (unsigned char)d[i] >= 0x20 && d[i] != 0x7f; i++)
			;
		if (i == len)
			out = ab_xstrdup(d);
	}
	curl_free(d);
	return out;
}

char *ab_farm_url_last_segment(const char *url)
{
	char *last, *before, *name;

	if (path_tail(url, &last, &before) < 0)
		return NULL;
	name = decoded_name(last);
	free(last);
	free(before);
	return name;
}

int ab_koji_recognise(const ab_listing *top, const char *url)
{
	char *last = NULL, *before = NULL;
	size_t i;
	int sure;

	if (!top || !top->n)
		return 0;
	for (i = 0; i < top->n; i++)
		if (!top->entries[i].is_dir || !isdigit((unsigned char)top->entries[i].name[0]))
			return 0;
	sure = path_tail(url, &last, &before) == 0 && last && before && !strcmp(before, "packages");
	free(last);
	free(before);
	return sure ? 2 : 1;
}
