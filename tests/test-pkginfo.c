/* test-pkginfo.c - package version ordering (rpm's rules through librpm,
 * Debian's through debver.c) and commits found in VCS tags and versions. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "pkg/pkginfo.h"
#include "tap.h"

static int rpm_cmp(const char *e1, const char *v1, const char *r1,
		   const char *e2, const char *v2, const char *r2)
{
	ab_pkg_info a = { .kind = AB_PKG_RPM, .epoch = (char *)e1, .version = (char *)v1,
			  .release = (char *)r1 };
	ab_pkg_info b = { .kind = AB_PKG_RPM, .epoch = (char *)e2, .version = (char *)v2,
			  .release = (char *)r2 };
	int c = ab_pkg_vercmp(&a, &b);

	return c < 0 ? -1 : c > 0;
}

int main(void)
{
	static const struct {
		const char *e1, *v1, *r1, *e2, *v2, *r2;
		int want;
	} rpm[] = {
		{ NULL, "1.2.3", "1", NULL, "1.2.10", "1", -1 },
		{ NULL, "1.0~rc1", "1", NULL, "1.0", "1", -1 },
		{ NULL, "1.0~rc1", "1", NULL, "1.0~rc2", "1", -1 },
		{ NULL, "1.0", "1", NULL, "1.0^git1", "1", -1 },
		{ NULL, "1.0^git1", "1", NULL, "1.0.1", "1", -1 },
		{ NULL, "1.0~rc1^git1", "1", NULL, "1.0~rc1", "1", 1 },
		{ NULL, "1.0", "1", NULL, "1.0a", "1", -1 },
		{ NULL, "2", "1", NULL, "2.0", "1", -1 },
		{ NULL, "1.01", "1", NULL, "1.1", "1", 0 },
		{ "1", "1.0", "1", NULL, "9.9", "1", 1 },
		{ "0", "1.0", "1", NULL, "1.0", "1", 0 },
		{ "2", "0.1", "1", "1", "5.0", "1", 1 },
		{ NULL, "6.8.0", "0.rc3.31", NULL, "6.8.0", "1", -1 },
		{ NULL, "6.8.0", "0.rc3.31", NULL, "6.8.0", "0.rc10.31", -1 },
		{ NULL, "1.0", "1.fc39", NULL, "1.0", "1.fc40", -1 },
		{ NULL, "1.0", "9", NULL, "1.0", "10", -1 },
		{ NULL, "5.14.0", "362.el9", NULL, "5.14.0", "362.8.1.el9_3", -1 },
	};
	static const struct { const char *vcs, *want; } vcs[] = {
		{ "git+https://src.example.org/rpms/kernel.git#3f4d1b5c2a9e8f7d6c5b4a392817161514131211",
		  "3f4d1b5c2a9e8f7d6c5b4a392817161514131211" },
		{ "https://github.com/o/r/commit/ABCDEF1234567", "abcdef1234567" },
		{ "3f4d1b5", "3f4d1b5" },
		{ "git+https://host/repo.git", NULL },
		{ "https://host/repo.git#main", NULL },
		{ "", NULL },
	};
	static const struct { const char *v, *want; } ver[] = {
		{ "0.rc8.20080627git3f4d1b5c.1", "3f4d1b5c" },
		{ "1.20240101git818e015f", "818e015f" },
		{ "1.0+git20240101.3f4d1b5-1", "3f4d1b5" },
		{ "2.1~git.abc1234", "abc1234" },
		{ "1.0.1", NULL },
		{ "0.1.git20240101", NULL },
		{ "1.fc40", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof rpm / sizeof rpm[0]; i++)
		tap_ok(rpm_cmp(rpm[i].e1, rpm[i].v1, rpm[i].r1, rpm[i].e2, rpm[i].v2, rpm[i].r2) ==
		       rpm[i].want &&
		       rpm_cmp(rpm[i].e2, rpm[i].v2, rpm[i].r2, rpm[i].e1, rpm[i].v1, rpm[i].r1) ==
		       -rpm[i].want,
		       "rpm: %s%s%s-%s %s %s%s%s-%s", rpm[i].e1 ? rpm[i].e1 : "", rpm[i].e1 ? ":" : "",
		       rpm[i].v1, rpm[i].r1, rpm[i].want < 0 ? "<" : rpm[i].want ? ">" : "==",
		       rpm[i].e2 ? rpm[i].e2 : "", rpm[i].e2 ? ":" : "", rpm[i].v2, rpm[i].r2);
	/* An empty version (a hostile primary.xml): no crash, first. */
	tap_ok(rpm_cmp(NULL, "", "1", NULL, "1.0", "1") < 0 && rpm_cmp(NULL, "1.0", "1", NULL, "", "1") > 0 &&
		       rpm_cmp(NULL, "", NULL, "0", "", "") == 0 && rpm_cmp(NULL, NULL, NULL, NULL, "1", "1") < 0,
	       "rpm: an empty or missing version sorts before every real one, and no crash");
	{
		ab_pkg_info a = { .kind = AB_PKG_DEB, .version = "1.0~rc1-1" };
		ab_pkg_info b = { .kind = AB_PKG_DEB, .version = "1.0-1" };
		ab_pkg_info c = { .kind = AB_PKG_DEB, .epoch = "1", .version = "0.1-1" };

		tap_ok(ab_pkg_vercmp(&a, &b) < 0 && ab_pkg_vercmp(&b, &c) < 0,
		       "deb: 1.0~rc1-1 < 1.0-1 < 1:0.1-1");
	}
	for (i = 0; i < sizeof vcs / sizeof vcs[0]; i++) {
		char *got = ab_pkg_commit_from_vcs(vcs[i].vcs);

		tap_ok(vcs[i].want ? got && !strcmp(got, vcs[i].want) : !got,
		       "vcs '%s' -> %s", vcs[i].vcs, got ? got : "none");
		free(got);
	}
	for (i = 0; i < sizeof ver / sizeof ver[0]; i++) {
		char *got = ab_pkg_commit_from_version(ver[i].v);

		tap_ok(ver[i].want ? got && !strcmp(got, ver[i].want) : !got,
		       "version '%s' -> %s", ver[i].v, got ? got : "none");
		free(got);
	}
	{
		ab_pkg_info r = { .kind = AB_PKG_RPM, .version = "1.0", .release = "2.fc40" };
		ab_pkg_info d = { .kind = AB_PKG_DEB, .epoch = "2", .version = "1.0-1" };
		char *er = ab_pkg_evr(&r), *ed = ab_pkg_evr(&d);

		tap_ok(!strcmp(er, "1.0-2.fc40") && !strcmp(ed, "2:1.0-1"), "evr: %s, %s", er, ed);
		free(er);
		free(ed);
	}
	return tap_done();
}
