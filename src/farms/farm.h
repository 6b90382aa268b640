/* farm.h - a farm: the place builds come from, behind one interface.
 *
 * A farm lists its builds in order, oldest first (an ab_index whose
 * builds may not have their artifacts yet), and resolves one build's
 * artifacts and their roots of trust when the bisection first needs it
 * (ab_index_resolve). Index v1 and yum repositories are farms whose
 * builds come resolved; the layouts of real farms read directory
 * listings and resolve lazily, one file each:
 *
 *   farms/mainline.c  kernel.ubuntu.com/mainline: vX.Y[.Z][-rcN]/ARCH/
 *   farms/archive.c   the Arch Linux Archive: NAME-VER-REL-ARCH.pkg.tar.*
 *   farms/koji.c      Koji: NAME/VERSION/RELEASE/ARCH/NAME-...rpm
 *   farms/sumtree.c   any tree of builds with SHA256SUMS or FILE.sha256
 *
 * Owns the farm's listings, checksum lists and signatures, read through
 * the fetch engine and kept in the cache with their validators. Never
 * prints; transfers report through the fetch callbacks. A layout never
 * fetches by itself: it asks farm.c for listings, texts and verified
 * files (the services below), so that every rule about remote content
 * (http/https only, sizes, time caps, signatures) is applied once.
 *
 * A farm whose URL is file:// is a tree on the local disk: its listings
 * are read from the directories themselves (listing_dir.c), its texts
 * and artifacts through the fetch engine's file:// reading, and nothing
 * it reads may lie outside its top directory once links are resolved.
 * Everything else (layouts, order, checks, the snapshot) is the same.
 */
#ifndef AB_FARMS_FARM_H
#define AB_FARMS_FARM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "net/cache.h"
#include "base/error.h"
#include "net/fetch.h"
#include "index/index.h"
#include "farms/listing.h"
#include "farms/sums.h"

typedef struct ab_farm ab_farm;

typedef struct ab_farm_options {
	const char *url;		/* the --index argument as an absolute URL
					 * (http, https, or file:// of a directory) */
	const char *layout;		/* --farm: "mainline", "arch", "koji",
					 * "sums"; NULL: recognised from the top
					 * listing */
	const char *arch;		/* --arch; NULL: the host's, named the
					 * farm's way (ab_farm_host_arch) */
	const char *flavour;		/* --flavour (mainline); NULL: "generic" */
	const char *const *packages;	/* --package: koji's subpackages to
					 * take, the Arch package's name */
	size_t npackages;
	const char *const *keyrings;	/* --keyring: OpenPGP keys, any format
					 * gpg imports */
	size_t nkeyrings;
	bool allow_unverified;		/* --allow-unverified */
	const char *good, *bad;		/* the range asked for, when known: a
					 * layout that needs a listing per version
					 * (koji) reads only those in between */
	const ab_fetch_options *fetch;
	const ab_fetch_callbacks *cb;
	ab_cache *cache;		/* listings and artifacts */
	const struct ab_rpm_keyring *rpm_keyring;	/* --keyring as librpm
					 * reads it, for AB_CHECK_RPM; NULL: none */
	const char *top_page;		/* the top listing's bytes when the caller
					 * has them already (NULL: fetched) */
	size_t top_len;
} ab_farm_options;

/* What a layout hands back for one build. At most AB_FARM_MAX_ARTS
 * artifacts, in install order. */
#define AB_FARM_MAX_ARTS 16
typedef struct ab_farm_art {
	char *url;		/* absolute, http(s) or file:// (malloc'd) */
	char sha256[65];	/* lowercase hex: from a checksum list, or of
				 * the bytes ab_farm_fetch_verified checked */
	int64_t size;		/* -1 when unknown */
} ab_farm_art;

typedef struct ab_farm_resolved {
	ab_farm_art arts[AB_FARM_MAX_ARTS];
	size_t n;
	ab_trust trust;		/* the weakest of its artifacts' */
	bool failed;		/* with 1: the farm says it could not make
				 * this build (a status file, no image for the
				 * arch): a failed build, not an unavailable one */
	char miss[96];		/* with 1: the option and value nothing of
				 * the build matched ("--flavour lowlatncy")
				 * while it has files for others; "" otherwise */
	char there[200];	/* with miss: what it has, "flavours there:
				 * generic, lowlatency" */
} ab_farm_resolved;

typedef struct ab_farm_layout {
	const char *name;	/* "mainline", ... as --farm names it */
	/* Whether the top listing at o->url looks like this layout: 2 sure,
	 * 1 maybe, 0 no. Pure. */
	int (*recognise)(const ab_listing *top, const ab_farm_options *o);
	/* Appends the builds, oldest first, to builds (a JSON array) as
	 * index v1 build objects: "id" (required, unique), "version",
	 * "commit", "date", "status": "failed" for a build the farm says
	 * failed, and "farm_ref": a string the layout's resolve reads back
	 * (the build's directory URL, say). A build with no artifacts yet
	 * has "artifacts": [] or none; one the listing already resolves
	 * fully may carry them. 0, or -1 with err. */
	int (*list)(ab_farm *f, const ab_listing *top, json_t *builds, ab_error *err);
	/* The artifacts of one build (bd->farm_ref, bd->id, bd->version as
	 * list wrote them). 0 with out filled; 1 with *why (malloc'd) when
	 * the build is unavailable (its directory vanished, its checksum list
	 * names no image, a signature fails); -1 with err when nothing can
	 * go on (disk full, interrupted: exit 4). */
	int (*resolve)(ab_farm *f, const ab_build *bd, ab_farm_resolved *out, char **why,
		       ab_error *err);
	/* Whether build bd has files for --arch (and --flavour), from its
	 * listings alone, nothing downloaded: 0 yes, 1 no or cannot tell
	 * (out->miss set when it has files for other values), -1 with err.
	 * farm.c asks it of the range's ends when a build misses and none
	 * matched yet: a value no end has either is a slip (exit 2). NULL:
	 * the layout's options are checked when it lists. */
	int (*match)(ab_farm *f, const ab_build *bd, ab_farm_resolved *out, ab_error *err);
} ab_farm_layout;

extern const ab_farm_layout ab_farm_mainline, ab_farm_archive, ab_farm_koji, ab_farm_sumtree;

/* Opens the farm at o->url (options copied): reads its top listing,
 * recognises the layout (or takes o->layout) and lists the builds. NULL
 * with err (exit 2 naming the URL) when it is no farm artbisect reads. */
ab_farm *ab_farm_open(const ab_farm_options *o, ab_error *err);
/* The layout the local directory at o->url (file://) surely is, from
 * its listing (a recogniser's score of 2), or NULL: a directory that
 * may be a farm is not taken for one (it is read as `artbisect index
 * DIR` reads it). Reads nothing but that directory; never fails. */
const char *ab_farm_local_layout(const ab_farm_options *o);
/* The farm a session snapshot describes, without reading any listing:
 * idx is the snapshot's index (its "farm" object names the layout). */
ab_farm *ab_farm_resume(const ab_farm_options *o, const char *snapshot, size_t len,
			ab_error *err);
void ab_farm_free(ab_farm *f);
/* The farm's builds; resolved lazily through idx->resolver. Owned by
 * the farm. */
ab_index *ab_farm_index(ab_farm *f);
/* The index v1 document of what is known now (resolved builds with
 * their artifacts, the others by farm_ref), for the session's snapshot
 * and for `artbisect index URL`. Caller frees. */
char *ab_farm_snapshot(ab_farm *f);
/* Whether a session's index snapshot is a farm's (ab_farm_snapshot). */
bool ab_farm_is_snapshot(const char *data, size_t len);
/* "mainline", "arch", "koji" or "sums". */
const char *ab_farm_layout_name(const ab_farm *f);
/* Whether signatures are checked with keys a Debian package installed
 * (no --keyring was given). */
bool ab_farm_keys_default(const ab_farm *f);
/* Resolves every build and gives the index v1 document of the farm
 * (`artbisect index URL`): sha256s from what was verified, builds that
 * cannot be resolved as "status": "failed" with the reason in
 * "farm_note". each (may be NULL) hears of every build and what became
 * of it (the caller decides what an index of failures is worth). NULL with err
 * when nothing can go on. Caller frees. */
typedef enum ab_farm_outcome {
	AB_FARM_RESOLVED,	/* its artifacts are known */
	AB_FARM_FAILED,		/* the farm marks it failed or lacks it */
	AB_FARM_UNVERIFIED,	/* a check failed: a signature, a digest, no
				 * key to check with */
} ab_farm_outcome;
/* why: NULL for a resolved build, else the reason (its farm_note). */
typedef void (*ab_farm_progress_fn)(void *ud, size_t i, size_t n, const char *id, const char *why,
				    ab_farm_outcome what);
char *ab_farm_export(ab_farm *f, ab_farm_progress_fn each, void *ud, ab_error *err);
/* The cache that verified downloads go to, once it is open, and the
 * fetch options of the run (which count the bytes downloaded); fetch
 * NULL keeps the options given at open. */
void ab_farm_set_cache(ab_farm *f, ab_cache *cache, const ab_fetch_options *fetch);
/* Whether the value of --arch or --flavour was found to be one no build
 * has (resolution then fails with exit 2, the message saying which). */
bool ab_farm_slipped(ab_farm *f);
/* How many builds were resolved so far (a snapshot is due when it moved). */
size_t ab_farm_resolved_count(const ab_farm *f);
/* Listing pages read so far: fetched anew, and revalidated unchanged. */
void ab_farm_pages_read(ab_farm *f, size_t *fetched, size_t *revalidated);

/* ---- services for layouts ---- */

const ab_farm_options *ab_farm_opts(const ab_farm *f);
/* The host's architecture as a farm names it: style "deb" (amd64,
 * arm64), "rpm" and "arch" (x86_64, aarch64). */
const char *ab_farm_host_arch(const char *style);

/* The listing at url (a directory URL ending in '/'), from the cache
 * when the server says it has not changed. NULL with *missing set when
 * the server says 404; NULL with err otherwise (the message names url). */
ab_listing *ab_farm_listing(ab_farm *f, const char *url, bool *missing, ab_error *err);
/* Several at once, concurrently: out[i] NULL when that one is missing
 * or cannot be read (why[i], malloc'd, says which). -1 with err only
 * for what stops everything (interrupted, disk full). */
int ab_farm_listings(ab_farm *f, const char *const *urls, size_t n, ab_listing **out,
		     char **why, ab_error *err);
/* A small text (a checksum list, a signature, a status file) of at most
 * max bytes: 0 with *data (NUL-terminated, caller frees), 1 when the
 * server says 404, -1 with err. */
int ab_farm_text(ab_farm *f, const char *url, size_t max, char **data, size_t *len,
		 ab_error *err);
/* A checksum list and its signature: fetches sums_url, then the first
 * of sig_urls the server has. With keyrings, the list must carry a
 * signature that verifies against them (trust SIGNED) or the build is
 * unavailable (1 with *why naming the URL and the key); without, the
 * list is taken as it is (trust DIGEST). 0 with *out, 1 with *why when
 * the list is missing or bad, -1 with err. */
int ab_farm_sums(ab_farm *f, const char *sums_url, const char *const *sig_urls,
		 size_t nsig, const char *lone_name, ab_sums **out, ab_trust *trust, char **why,
		 ab_error *err);
/* How a file with no digest known beforehand is checked. */
typedef enum ab_farm_check {
	AB_CHECK_DETACHED_SIG,	/* sig_url: an OpenPGP signature of the file */
	AB_CHECK_RPM,		/* the RPM's own digests (and signature, with
				 * keyrings) through librpm */
} ab_farm_check;
/* Downloads url into the cache, checks it as check says, and gives its
 * sha256 (and trust). Without keyrings a detached signature cannot be
 * checked: the build is refused (1, *why names the keyring to pass)
 * unless allow_unverified, then trust is UNVERIFIED. 0, 1 with *why
 * (unavailable), -1 with err. */
int ab_farm_fetch_verified(ab_farm *f, const char *url, int64_t size, ab_farm_check check,
			   const char *sig_url, char sha256[65], ab_trust *trust, char **why,
			   ab_error *err);

/* Sets a build object's "date" from a listing's time (seconds since
 * the epoch, UTC); nothing when mtime < 0. */
void ab_farm_set_date(json_t *build, int64_t mtime);

/* Appends a build named by a listing entry (a directory): id and
 * version its name, farm_ref its URL, date its time. */
void ab_farm_add_dir_build(json_t *builds, const ab_listing_entry *e);

/* Natural order of names ("v2" < "v10", "1.9" < "1.10"): for sums. */
int ab_farm_natural_cmp(const char *a, const char *b);

#endif
