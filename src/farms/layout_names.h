/* layout_names.h - the pure half of the farm layouts mainline.c and
 * sumtree.c: reading the names a farm publishes (Ubuntu mainline version
 * directories and package file names, the artifact files of a sums
 * tree) and putting them in order, as docs/farms.md describes.
 *
 * Owns only what it returns. Never fetches, never prints and never
 * builds a path: every name here came from a farm and is hostile, so it
 * is parsed strictly and anything that does not parse is left out.
 */
#ifndef AB_FARMS_LAYOUT_NAMES_H
#define AB_FARMS_LAYOUT_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* Natural order: runs of digits compare as numbers ("v2" < "v10",
 * "1.9" < "1.10"), other bytes as bytes; names equal but for leading
 * zeros ("1" and "01") are told apart, fewer zeros first, so that only
 * equal names compare 0. ab_farm_natural_cmp is this. */
int ab_layout_natural_cmp(const char *a, const char *b);

/* ---- Ubuntu mainline ---- */

/* A version directory's name: "v" X.Y[.Z[.W]] [-rcN], numbers in
 * decimal without leading zeros. */
typedef struct ab_mainline_ver {
	unsigned long num[4];	/* missing parts are 0 */
	int ncomp;		/* 2 to 4, as written */
	unsigned long rc;	/* N of -rcN; 0 for a release */
} ab_mainline_ver;

/* Whether name (without the trailing '/') is a version directory;
 * anything else (daily, drm-tip, v5.10.1-hirsute, v6.09) is not. */
bool ab_mainline_dir_parse(const char *name, ab_mainline_ver *v);
/* Kernel order: release candidates before their release (v6.9-rc7 <
 * v6.9 < v6.9.1 < v6.10-rc1); v6.9 and v6.9.0 compare equal. */
int ab_mainline_ver_cmp(const ab_mainline_ver *a, const ab_mainline_ver *b);
/* "6.9.0-rc1", "6.9.1", "2.6.32.71": the version as uname -r starts it.
 * Returns buf. */
const char *ab_mainline_ver_string(const ab_mainline_ver *v, char *buf, size_t size);

typedef enum ab_mainline_kind {
	AB_MLDEB_IMAGE,			/* linux-image-ABI-FLAVOUR */
	AB_MLDEB_IMAGE_UNSIGNED,	/* linux-image-unsigned-ABI-FLAVOUR */
	AB_MLDEB_IMAGE_EXTRA,		/* linux-image-extra-ABI-FLAVOUR (before 4.15) */
	AB_MLDEB_MODULES,		/* linux-modules-ABI-FLAVOUR */
	AB_MLDEB_MODULES_EXTRA,		/* linux-modules-extra-ABI-FLAVOUR */
	AB_MLDEB_HEADERS,		/* linux-headers-ABI[-FLAVOUR] */
} ab_mainline_kind;

/* One package file name, PACKAGE_VERSION_ARCH.deb, as pointers into it. */
typedef struct ab_mainline_deb {
	ab_mainline_kind kind;
	const char *abi;	/* "6.8.0-060800", "4.6.0-040600rc1" */
	size_t abi_len;
	const char *flavour;	/* "generic", "generic-64k"; length 0 for the
				 * headers of all flavours */
	size_t flavour_len;
	const char *version;	/* "6.8.0-060800.202403102237" */
	size_t version_len;
	const char *arch;	/* "amd64", "all" */
	size_t arch_len;
} ab_mainline_deb;

/* Whether name is a mainline kernel package's file name. */
bool ab_mainline_deb_parse(const char *name, ab_mainline_deb *d);

/* The packages of one kernel for one architecture and flavour, in
 * install order: linux-modules, the image (unsigned when both are
 * there), linux-modules-extra, linux-image-extra. */
#define AB_MAINLINE_MAX_PICK 4
typedef struct ab_mainline_picked {
	size_t idx[AB_MAINLINE_MAX_PICK];	/* into the names given */
	size_t n;
} ab_mainline_picked;

/* The Debian name of an architecture --arch may give the other way
 * (x86_64 -> amd64, aarch64 -> arm64, ppc64le -> ppc64el, i686 ->
 * i386); any other as it is. */
const char *ab_mainline_arch(const char *arch);

/* Picks from names (a build directory's files) the image for arch and
 * flavour, the newest when the directory holds several builds of it,
 * and the modules packages of the same version; never headers. 0 with
 * out; -1 when there is no image for them, with the flavours that have
 * one for arch written to flavours as "generic, lowlatency" ("" when
 * none). */
int ab_mainline_pick(const char *const *names, size_t n, const char *arch, const char *flavour,
		     ab_mainline_picked *out, char *flavours, size_t flavours_size);

/* ---- sums trees ---- */

/* Whether name is a checksum list of a whole directory: SHA256SUMS in
 * any case. */
bool ab_sumtree_is_list(const char *name);
/* Whether name is a FILE.sha256 beside a file (the length of FILE in
 * *stem_len). */
bool ab_sumtree_is_lone(const char *name, size_t *stem_len);

/* The build an artifact file belongs to: name without its archive
 * suffix (ab_artifact_type_guess) and without its architecture and
 * system words ("app-1.2-x86_64.tar.gz" -> "app-1.2", as do
 * "app-1.2-linux-amd64.tar.gz" and "app_1.2_all.deb"). NULL when the
 * type is unknown. *fits says whether the file is for arch (any name of
 * it: amd64 and x86_64 are one): it names arch, or no architecture, or
 * noarch/all/any; not when it names another one, another system
 * (windows, darwin...) or is sources (src, source). Caller frees. */
char *ab_sumtree_key(const char *name, const char *arch, bool *fits);

/* "x86_64, aarch64": the architectures the artifact files among names
 * are for, each as its first file writes it, into buf. How many. */
size_t ab_sumtree_arches(const char *const *names, size_t n, char *buf, size_t size);

/* Artifact files grouped into builds by ab_sumtree_key, keeping only
 * the files that fit arch; groups in natural order of their keys, each
 * group's files in natural order of their names. */
typedef struct ab_sumtree_group {
	char *key;
	size_t *files;		/* indices into the names given */
	size_t nfiles;
} ab_sumtree_group;
ab_sumtree_group *ab_sumtree_group_names(const char *const *names, size_t n, const char *arch,
					 size_t *ngroups);
void ab_sumtree_groups_free(ab_sumtree_group *g, size_t n);

#endif
