/* test-koji.c - the pure parts of the "koji" farm layout
 * (src/farms/pkgnames.c): build ids, rpm order of versions and
 * releases, the range of version directories read, RPM file names and
 * subpackages, and recognising a package's top directory. */
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

static void split(const char *id, const char *v, const char *r)
{
	char *gv, *gr;
	bool ok = ab_koji_split_id(id, &gv, &gr);

	if (v)
		tap_ok(ok && !strcmp(gv, v) && !strcmp(gr, r), "id %s: version %s, release %s", id, v, r);
	else
		tap_ok(!ok && !gv && !gr, "id %s: does not parse", id ? id : "(null)");
	free(gv);
	free(gr);
}

static void order(const char *v1, const char *r1, const char *v2, const char *r2, int want)
{
	int got = ab_koji_vr_cmp(v1, r1, v2, r2), back = ab_koji_vr_cmp(v2, r2, v1, r1);

	tap_ok(got == want && back == -want, "%s-%s vs %s-%s: %d (got %d)", v1, r1, v2, r2, want, got);
}

static void range(const char *v, const char *good, const char *bad, bool want)
{
	tap_ok(ab_koji_version_in_range(v, good, bad) == want, "version %s %s %s..%s", v,
	       want ? "read for" : "skipped for", good ? good : "(none)", bad ? bad : "(none)");
}

static void rpmfile(const char *file, const char *n, const char *v, const char *r, const char *a)
{
	ab_rpmfile f;
	bool ok = ab_rpmfile_parse(file, &f);

	if (n)
		tap_ok(ok && !strcmp(f.name, n) && !strcmp(f.version, v) && !strcmp(f.release, r) &&
			       !strcmp(f.arch, a),
		       "%s: %s %s %s %s", file, n, v, r, a);
	else
		tap_ok(!ok && !f.name, "%s: not an RPM file name", file);
	ab_rpmfile_free(&f);
}

/* version-release split, ordered, and the range a koji layout reads. */
static void test_versions(void)
{
	split("6.8.1-300.fc40", "6.8.1", "300.fc40");
	split("6.9.0-0.rc1.20240320git3f4d1b5c.17.fc41", "6.9.0", "0.rc1.20240320git3f4d1b5c.17.fc41");
	split("6.8.1", NULL, NULL);
	split("6.8.1-300-fc40", NULL, NULL);
	split("-300.fc40", NULL, NULL);
	split("6.8.1-", NULL, NULL);
	split("6.8 1-300", NULL, NULL);
	split("3f4d1b5c", NULL, NULL);
	split(NULL, NULL, NULL);

	order("6.8.1", "300.fc40", "6.8.2", "300.fc40", -1);
	order("6.8.9", "300.fc40", "6.8.10", "100.fc40", -1);
	order("6.8.1", "300.fc40", "6.8.1", "301.fc40", -1);
	order("6.8.1", "300.fc40", "6.8.1", "300.fc40", 0);
	order("6.9.0", "0.rc1.17.fc41", "6.9.0", "0.rc2.20.fc41", -1);
	order("6.9.0", "0.rc7.62.fc41", "6.9.0", "61.fc41", -1);
	order("6.9.0", "61.fc41", "6.9.1", "0.rc1.1.fc41", -1);
	order("6.9.0~rc1", "1.fc41", "6.9.0", "1.fc41", -1);
	order("6.8.1", "9.fc40", "6.8.1", "10.fc40", -1);

	range("6.8.5", "6.8.1-300.fc40", "6.8.9-200.fc40", true);
	range("6.8.1", "6.8.1-300.fc40", "6.8.9-200.fc40", true);
	range("6.8.9", "6.8.1-300.fc40", "6.8.9-200.fc40", true);
	range("6.8.10", "6.8.1-300.fc40", "6.8.9-200.fc40", false);
	range("6.7.12", "6.8.1-300.fc40", "6.8.9-200.fc40", false);
	range("6.8.5", "6.8.9-200.fc40", "6.8.1-300.fc40", true);	/* either order */
	range("6.9.0", "6.8.9-200.fc40", "6.8.1-300.fc40", false);
	range("6.9.0", NULL, "6.8.1-300.fc40", true);
	range("6.9.0", "6.8.9-200.fc40", NULL, true);
	range("6.9.0", "3f4d1b5c", "6.8.1-300.fc40", true);	/* a commit: read all */
	range("5.0", NULL, NULL, true);
}

/* RPM file names: read, and matched to a build's package. */
static void test_file_names(void)
{
	rpmfile("kernel-core-6.8.1-300.fc40.x86_64.rpm", "kernel-core", "6.8.1", "300.fc40", "x86_64");
	rpmfile("kernel-6.8.1-300.fc40.x86_64.rpm", "kernel", "6.8.1", "300.fc40", "x86_64");
	rpmfile("kernel-6.8.1-300.fc40.src.rpm", "kernel", "6.8.1", "300.fc40", "src");
	rpmfile("kernel-doc-6.8.1-300.fc40.noarch.rpm", "kernel-doc", "6.8.1", "300.fc40", "noarch");
	rpmfile("kernel-debuginfo-common-x86_64-6.8.1-300.fc40.x86_64.rpm", "kernel-debuginfo-common-x86_64",
		"6.8.1", "300.fc40", "x86_64");
	rpmfile("kernel-6.9.0-0.rc1.20240320git3f4d1b5c.17.fc41.aarch64.rpm", "kernel", "6.9.0",
		"0.rc1.20240320git3f4d1b5c.17.fc41", "aarch64");
	rpmfile("kernel-6.8.1-300.fc40.x86_64.rpm.sig", NULL, NULL, NULL, NULL);
	rpmfile("kernel-6.8.1.x86_64.rpm", NULL, NULL, NULL, NULL);
	rpmfile("6.8.1-300.fc40.x86_64.rpm", NULL, NULL, NULL, NULL);
	rpmfile("kernel-6.8.1-300.fc40.rpm", "kernel", "6.8.1", "300", "fc40");	/* read from the right */
	rpmfile("kernel-6.8.1-300.fc40x86_64rpm", NULL, NULL, NULL, NULL);
	rpmfile("kernel-6.8.1-300.fc40..rpm", NULL, NULL, NULL, NULL);
	rpmfile(".rpm", NULL, NULL, NULL, NULL);
	rpmfile("kernel-6.8.1-300.fc40.x86 64.rpm", NULL, NULL, NULL, NULL);

	tap_ok(ab_rpmfile_is("kernel-core-6.8.1-300.fc40.x86_64.rpm", "kernel-core", "6.8.1", "300.fc40",
			     "x86_64"),
	       "kernel-core-6.8.1-300.fc40.x86_64.rpm is kernel-core");
	tap_ok(!ab_rpmfile_is("kernel-core-6.8.1-300.fc40.x86_64.rpm", "kernel", "6.8.1", "300.fc40",
			      "x86_64"),
	       "kernel-core-6.8.1-300.fc40.x86_64.rpm is not kernel");
	tap_ok(ab_rpmfile_is("kernel-6.8.1-300.fc40.x86_64.rpm", "kernel", "6.8.1", "300.fc40", "x86_64"),
	       "kernel-6.8.1-300.fc40.x86_64.rpm is kernel");
	tap_ok(!ab_rpmfile_is("kernel-6.8.1-300.fc40.x86_64.rpm", "kernel-core", "6.8.1", "300.fc40",
			      "x86_64"),
	       "kernel-6.8.1-300.fc40.x86_64.rpm is not kernel-core");
	tap_ok(!ab_rpmfile_is("kernel-6.8.1-300.fc40.aarch64.rpm", "kernel", "6.8.1", "300.fc40", "x86_64"),
	       "another arch is not ours");
	tap_ok(!ab_rpmfile_is("kernel-6.8.1-301.fc40.x86_64.rpm", "kernel", "6.8.1", "300.fc40", "x86_64"),
	       "another release is not this build's");
	tap_ok(!ab_rpmfile_is("kernel-6.8.1-300.fc40.src.rpm", "kernel", "6.8.1", "300.fc40", "x86_64"),
	       "the source RPM is not the package");
	tap_ok(ab_rpmfile_is("kernel-doc-6.8.1-300.fc40.noarch.rpm", "kernel-doc", "6.8.1", "300.fc40",
			     "noarch"),
	       "a noarch subpackage");
}

/* Recognising a koji packages/NAME/ directory, and the names in it. */
static void test_recognise(void)
{
	static const char *const versions[] = {"6.7.12/", "6.8.1/", "6.8.10/", NULL};
	static const char *const mixed[] = {"6.7.12/", "README", NULL};
	static const char *const named[] = {"v6.8/", "6.8.1/", NULL};
	ab_listing *l;

	l = nginx_page(versions, "https://kojipkgs.fedoraproject.org/packages/kernel/", "-");
	tap_ok(l && ab_koji_recognise(l, "https://kojipkgs.fedoraproject.org/packages/kernel/") == 2,
	       "packages/kernel/ with version directories: sure");
	tap_ok(l && ab_koji_recognise(l, "https://kojipkgs.fedoraproject.org/packages/kernel") == 2,
	       "the same without the last slash: sure");
	tap_ok(l && ab_koji_recognise(l, "http://127.0.0.1:8080/mirror/kernel/") == 1,
	       "version directories elsewhere: maybe");
	ab_listing_free(l);
	l = nginx_page(mixed, "http://127.0.0.1:8080/packages/kernel/", "-");
	tap_ok(l && ab_koji_recognise(l, "http://127.0.0.1:8080/packages/kernel/") == 0,
	       "a file among them: no");
	ab_listing_free(l);
	l = nginx_page(named, "http://127.0.0.1:8080/packages/kernel/", "-");
	tap_ok(l && ab_koji_recognise(l, "http://127.0.0.1:8080/packages/kernel/") == 0,
	       "a directory not starting with a digit: no");
	ab_listing_free(l);
	tap_ok(ab_koji_recognise(NULL, "http://x/packages/kernel/") == 0, "no listing: no");

	tap_ok(ab_koji_name_ok("300.fc40") && !ab_koji_name_ok("300-fc40") && !ab_koji_name_ok("") &&
		       !ab_koji_name_ok("a b") && !ab_koji_name_ok("\xc3\xa9"),
	       "directory names fit for a version or release");
}

int main(void)
{
	test_versions();
	test_file_names();
	test_recognise();
	return tap_done();
}
