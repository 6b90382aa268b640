/* pkgnames.h - the pure parts of the "arch" and "koji" farm layouts
 * (farms/archive.c, farms/koji.c): reading package file names and
 * directory names, ordering versions, and telling whether a listing
 * looks like either layout.
 *
 * Owns nothing but the small records it hands back. Never fetches,
 * never prints; compares with librpm's rpmvercmp. Every name it reads
 * comes from a farm and is hostile: parsing refuses what does not fit
 * rather than guessing.
 */
#ifndef AB_FARMS_PKGNAMES_H
#define AB_FARMS_PKGNAMES_H

#include <stdbool.h>
#include "farms/listing.h"

/* ---- Arch Linux packages: NAME-[EPOCH:]VERSION-REL-ARCH.pkg.tar.EXT ---- */

/* Compression, best first: with two files of one version, the lower wins. */
typedef enum ab_archpkg_comp {
	AB_ARCHPKG_ZST = 0,
	AB_ARCHPKG_XZ,
	AB_ARCHPKG_GZ,
} ab_archpkg_comp;

typedef struct ab_archpkg {
	char *name;		/* may hold '-': linux-lts */
	char *epoch;		/* NULL when none or 0 */
	char *version;		/* without the epoch */
	char *rel;		/* pkgrel: 1, 2.1 */
	char *arch;		/* x86_64, any */
	char *evr;		/* "E:VERSION-REL" (no "E:" when the epoch is
				 * 0): the build's id */
	ab_archpkg_comp comp;
} ab_archpkg;

/* Parses a package file name (not its .sig) from the right: ARCH, REL,
 * VERSION, the rest is NAME. false (out zeroed) for anything else. */
bool ab_archpkg_parse(const char *file, ab_archpkg *out);
void ab_archpkg_free(ab_archpkg *p);

/* pacman's alpm_pkg_vercmp on "[E:]V[-R]" strings: epochs numerically,
 * then versions, then releases when both have one. pacman's own copy of
 * rpmvercmp walks segments differently from librpm's (separators of
 * unequal length decide; a letter part where the other version ends
 * sorts first: 1.0rc < 1.0, librpm says the opposite; '~' is a plain
 * separator): that walk is pacman's, each pair of segments is compared
 * by librpm's rpmvercmp. <0, 0, >0. */
int ab_alpm_vercmp(const char *a, const char *b);

/* How sure a listing is an Arch Linux Archive package directory: 2 when
 * at least two entries are packages with their .sig beside them, 1 when
 * at least two are packages, else 0. */
int ab_archpkg_recognise(const ab_listing *l);

/* ---- Koji: packages/NAME/VERSION/RELEASE/ARCH/NAME-VERSION-RELEASE.ARCH.rpm ---- */

/* Splits a build id "VERSION-RELEASE" (exactly one '-', both parts
 * non-empty) into malloc'd parts. false when it does not parse. */
bool ab_koji_split_id(const char *id, char **version, char **release);
/* rpm order of version, then release (rpmvercmp). */
int ab_koji_vr_cmp(const char *v1, const char *r1, const char *v2, const char *r2);
/* Whether a version directory may hold builds between good and bad
 * (build ids, either order): its version is within theirs, inclusive.
 * true when either is NULL or does not parse: then every version is
 * read. */
bool ab_koji_version_in_range(const char *version, const char *good, const char *bad);
/* Whether a directory name may be a Koji version or release: not empty,
 * no '-', printable ASCII without spaces. */
bool ab_koji_name_ok(const char *s);

typedef struct ab_rpmfile {
	char *name, *version, *release, *arch;
} ab_rpmfile;

/* Parses NAME-VERSION-RELEASE.ARCH.rpm from the right. false (out
 * zeroed) for anything else. */
bool ab_rpmfile_parse(const char *file, ab_rpmfile *out);
void ab_rpmfile_free(ab_rpmfile *f);
/* Whether file is subpackage sub of build version-release for arch:
 * "kernel-core-6.8.1-300.fc40.x86_64.rpm" is "kernel-core", never
 * "kernel". */
bool ab_rpmfile_is(const char *file, const char *sub, const char *version, const char *release,
		   const char *arch);

/* How sure a top listing at url is a Koji package directory: 2 when
 * url's path ends in /packages/NAME/ and every entry is a directory
 * whose name starts with a digit, 1 for such entries elsewhere, else 0. */
int ab_koji_recognise(const ab_listing *top, const char *url);

/* ---- both ---- */

/* A listing's entries by name, for lookups in a page of thousands. */
typedef struct ab_listing_names {
	const ab_listing_entry **v;
	size_t n;
} ab_listing_names;
void ab_listing_names_init(ab_listing_names *s, const ab_listing *l);
/* The entry of that exact name, or NULL. */
const ab_listing_entry *ab_listing_names_find(const ab_listing_names *s, const char *name);
void ab_listing_names_free(ab_listing_names *s);

/* The last segment of url's path, percent-decoded (".../l/linux/" ->
 * "linux"), or NULL when there is none or it is not a fit name (a '/'
 * or control byte once decoded). Caller frees. */
char *ab_farm_url_last_segment(const char *url);

#endif
