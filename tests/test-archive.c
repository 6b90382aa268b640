/* test-archive.c - the pure parts of the "arch" farm layout
 * (src/farms/pkgnames.c): Arch package file names as the Arch Linux
 * Archive lists them, pacman's version order, the package name taken
 * from the listing's URL, and recognising a package directory. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "farms/listing.h"
#include "farms/pkgnames.h"
#include "base/util.h"
#include "tap.h"
#include "nginx-page.h"

static void parses(const char *file, const char *name, const char *epoch, const char *version,
		   const char *rel, const char *arch, const char *evr, ab_archpkg_comp comp)
{
	ab_archpkg p;
	bool ok = ab_archpkg_parse(file, &p);

	tap_ok(ok && !strcmp(p.name, name) && (epoch ? p.epoch && !strcmp(p.epoch, epoch) : !p.epoch) &&
		       !strcmp(p.version, version) && !strcmp(p.rel, rel) && !strcmp(p.arch, arch) &&
		       !strcmp(p.evr, evr) && p.comp == comp,
	       "%s: name %s, version %s, rel %s, arch %s, id %s", file, name, version, rel, arch, evr);
	if (ok && strcmp(p.name, name))
		tap_diag("got name %s version %s rel %s arch %s", p.name, p.version, p.rel, p.arch);
	ab_archpkg_free(&p);
}

static void refuses(const char *file, const char *why)
{
	ab_archpkg p;
	bool ok = ab_archpkg_parse(file, &p);

	tap_ok(!ok && !p.name && !p.evr, "refused: %s (%s)", file, why);
	ab_archpkg_free(&p);
}

static int sign(int x)
{
	return x < 0 ? -1 : x > 0;
}

static void vercmp(const char *a, const char *b, int want)
{
	int got = sign(ab_alpm_vercmp(a, b)), back = sign(ab_alpm_vercmp(b, a));

	tap_ok(got == want && back == -want, "vercmp(%s, %s) = %d (got %d, reversed %d)", a, b, want, got,
	       back);
}

static void segment(const char *url, const char *want)
{
	char *got = ab_farm_url_last_segment(url);

	tap_ok(want ? got && !strcmp(got, want) : !got, "last segment of %s: %s (got %s)", url,
	       want ? want : "none", got ? got : "none");
	free(got);
}

/* Real names from archive.archlinux.org/packages/, and names that are
 * no package. */
static void test_names(void)
{
	parses("linux-6.8.1.arch1-1-x86_64.pkg.tar.zst", "linux", NULL, "6.8.1.arch1", "1", "x86_64",
	       "6.8.1.arch1-1", AB_ARCHPKG_ZST);
	parses("linux-lts-6.6.22-1-x86_64.pkg.tar.zst", "linux-lts", NULL, "6.6.22", "1", "x86_64",
	       "6.6.22-1", AB_ARCHPKG_ZST);
	parses("linux-headers-5.4.arch1-1-x86_64.pkg.tar.xz", "linux-headers", NULL, "5.4.arch1", "1",
	       "x86_64", "5.4.arch1-1", AB_ARCHPKG_XZ);
	parses("python-3.12.2-1-x86_64.pkg.tar.zst", "python", NULL, "3.12.2", "1", "x86_64", "3.12.2-1",
	       AB_ARCHPKG_ZST);
	parses("ca-certificates-20240222-1-any.pkg.tar.zst", "ca-certificates", NULL, "20240222", "1",
	       "any", "20240222-1", AB_ARCHPKG_ZST);
	parses("gtk+-1.2.10-16-x86_64.pkg.tar.xz", "gtk+", NULL, "1.2.10", "16", "x86_64", "1.2.10-16",
	       AB_ARCHPKG_XZ);
	parses("mesa-1:24.0.3-1-x86_64.pkg.tar.zst", "mesa", "1", "24.0.3", "1", "x86_64",
	       "1:24.0.3-1", AB_ARCHPKG_ZST);
	parses("systemd-255.4-2.1-x86_64.pkg.tar.zst", "systemd", NULL, "255.4", "2.1", "x86_64",
	       "255.4-2.1", AB_ARCHPKG_ZST);
	parses("foo-0:1.0-1-x86_64.pkg.tar.zst", "foo", NULL, "1.0", "1", "x86_64", "1.0-1", AB_ARCHPKG_ZST);
	parses("downgrade-11.4.2-1-any.pkg.tar.gz", "downgrade", NULL, "11.4.2", "1", "any", "11.4.2-1",
	       AB_ARCHPKG_GZ);
	parses("pacman-git-6.1.0.r15.g0eed3fe-1-x86_64.pkg.tar.zst", "pacman-git", NULL,
	       "6.1.0.r15.g0eed3fe", "1", "x86_64", "6.1.0.r15.g0eed3fe-1", AB_ARCHPKG_ZST);

	refuses("linux-6.8.1.arch1-1-x86_64.pkg.tar.zst.sig", "a signature");
	refuses("linux-6.8.1.arch1-1-x86_64.pkg.tar", "no compression suffix");
	refuses("linux-6.8.1.arch1-x86_64.pkg.tar.zst", "no release");
	refuses("6.8.1.arch1-1-x86_64.pkg.tar.zst", "no name");
	refuses("-6.8-1-x86_64.pkg.tar.zst", "empty name");
	refuses("linux-6.8-1a-x86_64.pkg.tar.zst", "a release with a letter");
	refuses("linux-6.8-1-.pkg.tar.zst", "empty arch");
	refuses("linux--1-x86_64.pkg.tar.zst", "empty version");
	refuses("linux-x:6.8-1-x86_64.pkg.tar.zst", "an epoch that is no number");
	refuses("linux-1:2:6.8-1-x86_64.pkg.tar.zst", "two colons");
	refuses("linux-6.8 1-1-x86_64.pkg.tar.zst", "a space");
	refuses("lin\xc3\xa9ux-6.8-1-x86_64.pkg.tar.zst", "a name beyond ASCII");
	refuses(".pkg.tar.zst", "nothing but the suffix");
	refuses("", "empty");
	refuses("README", "not a package");
	refuses("linux-6.8.1-1-x86_64.pkg.tar.zst/../x", "junk after the suffix");
}

/* pacman's documented order (vercmp(8), alpm_pkg_vercmp). */
static void test_vercmp(void)
{
	vercmp("1.0a", "1.0b", -1);
	vercmp("1.0b", "1.0beta", -1);
	vercmp("1.0beta", "1.0p", -1);
	vercmp("1.0p", "1.0pre", -1);
	vercmp("1.0pre", "1.0rc", -1);
	vercmp("1.0rc", "1.0", -1);
	vercmp("1.0", "1.0.a", -1);
	vercmp("1.0.a", "1.0.1", -1);
	vercmp("1", "1.0", -1);
	vercmp("1.0", "1.1", -1);
	vercmp("1.1", "1.1.1", -1);
	vercmp("1.1.1", "1.2", -1);
	vercmp("1.2", "2.0", -1);
	vercmp("2.0", "3.0.0", -1);
	vercmp("1.0", "1.0.1", -1);
	vercmp("1:1.0", "2.0", 1);
	vercmp("1:1.0", "1.0", 1);
	vercmp("2:1.0", "10:0.1", -1);
	vercmp("1.0-1", "1.0-2", -1);
	vercmp("1.0-2", "1.0.1-1", -1);
	vercmp("1.0-1", "1.0", 0);	/* a release on one side only is not compared */
	vercmp("1.0", "1.0", 0);
	vercmp("0:1.0-1", "1.0-1", 0);
	vercmp("1.0-1", "1.0-1.1", -1);
	vercmp("6.8.1.arch1-1", "6.8.1.arch2-1", -1);
	vercmp("6.8.9.arch1-1", "6.8.10.arch1-1", -1);
	vercmp("6.8.arch1-1", "6.8.1.arch1-1", -1);
	vercmp("6.9rc1-1", "6.9-1", -1);
	vercmp("6.9rc7-1", "6.9rc10-1", -1);
	vercmp("20240101-1", "20240222-1", -1);
	/* where pacman's walk differs from librpm's */
	vercmp("6.9rc1-1", "6.9.arch1-1", -1);	/* shorter separator first */
	vercmp("1.0..1", "1.0.1", 1);
	vercmp("1.0~rc1", "1.0", 1);		/* '~' is a separator to pacman */
	vercmp("1.0a", "1.0", -1);
	vercmp("1.0", "1.0.", -1);
	vercmp("1.001", "1.1", 0);
	vercmp("1.0a1", "1.0", -1);
	vercmp("2.0", "1.a", 1);
	vercmp("1.a", "1.1", -1);		/* digits are newer than letters */
}

/* The package name: the directory's last segment, decoded. */
static void test_segments(void)
{
	segment("https://archive.archlinux.org/packages/l/linux/", "linux");
	segment("https://archive.archlinux.org/packages/l/linux", "linux");
	segment("https://archive.archlinux.org/packages/g/gtk%2B/", "gtk+");
	segment("https://archive.archlinux.org/packages/l/linux/?C=M;O=D", "linux");
	segment("https://archive.archlinux.org/", NULL);
	segment("https://archive.archlinux.org/a%2Fb/", NULL);
	segment("https://archive.archlinux.org/a%0Ab/", NULL);
	segment("https://archive.archlinux.org/%2E%2E/", NULL);
	segment("not a url", NULL);
}

/* Recognising a package directory. */
static void test_recognise(void)
{
	static const char *const signed_page[] = {
		"linux-6.8.1.arch1-1-x86_64.pkg.tar.zst",
		"linux-6.8.1.arch1-1-x86_64.pkg.tar.zst.sig",
		"linux-6.8.2.arch1-1-x86_64.pkg.tar.zst",
		"linux-6.8.2.arch1-1-x86_64.pkg.tar.zst.sig",
		NULL,
	};
	static const char *const unsigned_page[] = {
		"linux-6.8.1.arch1-1-x86_64.pkg.tar.zst",
		"linux-6.8.2.arch1-1-x86_64.pkg.tar.zst",
		"linux-6.8.2.arch1-1-x86_64.pkg.tar.zst.sig",
		NULL,
	};
	static const char *const other_page[] = {"v6.8/", "v6.9/", "linux-6.8.tar.xz", NULL};
	static const char *const sig_dirs[] = {
		"a-1-1-x86_64.pkg.tar.zst", "a-1-1-x86_64.pkg.tar.zst.sig/",
		"a-2-1-x86_64.pkg.tar.zst", "a-2-1-x86_64.pkg.tar.zst.sig/", NULL,
	};
	const char *url = "http://127.0.0.1:8080/packages/l/linux/";
	ab_listing *l;

	l = nginx_page(signed_page, url, "1234");
	tap_ok(l && ab_archpkg_recognise(l) == 2, "two signed packages: sure");
	ab_listing_free(l);
	l = nginx_page(unsigned_page, url, "1234");
	tap_ok(l && ab_archpkg_recognise(l) == 1, "two packages, one signed: maybe");
	ab_listing_free(l);
	l = nginx_page(other_page, url, "1234");
	tap_ok(l && ab_archpkg_recognise(l) == 0, "a mainline page: no");
	ab_listing_free(l);
	l = nginx_page(sig_dirs, url, "1234");
	tap_ok(l && ab_archpkg_recognise(l) == 1, "a .sig that is a directory is no signature");
	ab_listing_free(l);
	tap_ok(ab_archpkg_recognise(NULL) == 0, "no listing: no");

	l = nginx_page(signed_page, url, "1234");
	if (l) {
		ab_listing_names names;
		const ab_listing_entry *e;

		ab_listing_names_init(&names, l);
		e = ab_listing_names_find(&names, "linux-6.8.2.arch1-1-x86_64.pkg.tar.zst.sig");
		tap_ok(e && !strcmp(e->url, "http://127.0.0.1:8080/packages/l/linux/"
					   "linux-6.8.2.arch1-1-x86_64.pkg.tar.zst.sig"),
		       "a name looked up gives its entry's url");
		tap_ok(!ab_listing_names_find(&names, "linux"), "a name not there: none");
		ab_listing_names_free(&names);
		ab_listing_free(l);
	}
}

int main(void)
{
	test_names();
	test_vercmp();
	test_segments();
	test_recognise();
	return tap_done();
}
