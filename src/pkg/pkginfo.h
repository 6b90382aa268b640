/* pkginfo.h - what a package says about itself (name, version, commit),
 * whatever its format, and how two versions of one package compare.
 *
 * Owns the ab_pkg_info record filled by rpmpkg.c and deb.c, the rules
 * that find a commit in a VCS tag or a version string, and the choice of
 * comparison (librpm's for RPMs, Debian's for .debs). No I/O.
 */
#ifndef AB_PKGINFO_H
#define AB_PKGINFO_H

#include <stdint.h>

typedef enum ab_pkg_kind { AB_PKG_RPM, AB_PKG_DEB } ab_pkg_kind;

typedef struct ab_pkg_info {
	ab_pkg_kind kind;
	char *name;
	char *epoch;		/* NULL when the package has none */
	char *version;		/* deb: the whole version without epoch */
	char *release;		/* rpm only; NULL for debs */
	char *arch;
	int64_t buildtime;	/* seconds since 1970, -1 when unknown */
	char *vcs;		/* rpm VCS tag, NULL when absent */
	char *commit;		/* from vcs or a git<hex> part, NULL when none */
} ab_pkg_info;

void ab_pkg_info_free(ab_pkg_info *info);

/* "VERSION-RELEASE" for RPMs, the version (with "E:" when there is an
 * epoch) for debs: what an index build id is made of. Caller frees. */
char *ab_pkg_evr(const ab_pkg_info *info);

/* A commit id found in a VCS tag ("git+https://host/x.git#HEX", a URL
 * ending in /commit/HEX, or bare HEX) or in a version or release string
 * ("0.rc8.20240101git3f4d1b5c", "1.2+git20240101.3f4d1b5"): the hex run
 * of 7 to 64 digits, lowercased. NULL when there is none. Caller frees. */
char *ab_pkg_commit_from_vcs(const char *vcs);
char *ab_pkg_commit_from_version(const char *version);

/* Orders two packages of one kind by version: RPMs by epoch:version-
 * release with rpmvercmp semantics (a missing epoch is 0), debs by
 * Debian's rules. <0, 0, >0. */
int ab_pkg_vercmp(const ab_pkg_info *a, const ab_pkg_info *b);

#endif
