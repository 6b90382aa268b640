/* index.h - the artifact index (CONTRACT.md section 1): parse, validate,
 * resolve artifact URLs, look builds up.
 *
 * Owns the in-memory index. Parses bytes handed to it (jansson) and
 * resolves relative URLs with libcurl's URL API; never opens a file or a
 * connection and never prints. Every refusal names its place, as in
 * "index.json: builds[12].artifacts[0].sha256: expected 64 hex digits",
 * with exit status AB_EXIT_USAGE.
 */
#ifndef AB_INDEX_H
#define AB_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "base/error.h"

typedef enum ab_artifact_type {
	AB_ART_TAR,
	AB_ART_ZIP,
	AB_ART_RPM,
	AB_ART_DEB,
	AB_ART_FILE,
} ab_artifact_type;

typedef struct ab_artifact {
	char *url;		/* absolute, resolved against the index URL */
	char sha256[65];	/* lowercase hex */
	int64_t size;		/* -1 when the index does not say */
	ab_artifact_type type;
	char *name;		/* optional, NULL when absent */
	char *filename;		/* last path segment of url, never empty; in a
				 * parsed index it may be the end of url itself */
} ab_artifact;

/* How far a build's artifacts were checked before they may be unpacked. */
typedef enum ab_trust {
	AB_TRUST_DIGEST = 0,	/* sha256 from the index or an unsigned checksum
				 * list: integrity, not authenticity */
	AB_TRUST_SIGNED,	/* a signature verified against a keyring */
	AB_TRUST_UNVERIFIED,	/* nothing to check (--allow-unverified) */
} ab_trust;

typedef struct ab_build {
	char *id;
	char *commit;		/* NULL when absent, likewise date and version */
	char *date;
	char *version;
	long long position;	/* commits in the history at this build, or -1 */
	int failed;		/* status "failed": never downloaded */
	char commit_dropped;	/* the index gave a commit that is not 7 to 64
				 * hex digits: commit is NULL instead */
	char unresolved;	/* a farm's build whose artifacts are not
				 * known yet: ab_index_resolve first */
	unsigned char trust;	/* an ab_trust ("farm_trust" in the index) */
	char *farm_ref;		/* the farm's own reference ("farm_ref"), or NULL */
	size_t nartifacts;
	ab_artifact *artifacts;
} ab_build;

typedef struct ab_index {
	char *source_url;	/* where it was loaded from, as a URL */
	char *label;		/* the name used in messages, e.g. index.json */
	char *name, *project, *arch;
	char *vcs_type, *vcs_url, *compare_url;
	char *base_dir;		/* the directory relative artifact URLs resolve in */
	char **mirrors;		/* "mirrors": other base directories, tried in turn */
	size_t nmirrors;
	size_t nbuilds;
	ab_build *builds;
	struct ab_index_lookup *lookup;	/* private: id hash and commit order */
	struct ab_arena *arena;	/* private: holds the builds' strings and
				 * artifacts; NULL in an index built by hand,
				 * whose pieces are each malloc'd */
	/* How the builds array was read, for tests and benchmarks: in how
	 * many pieces (0: by one thread), cut at guessed boundaries that
	 * the reading proved (cuts_guessed) or where a scan found them. */
	size_t read_pieces;
	int cuts_guessed;
	/* A farm that resolves builds lazily (farms/farm.h), or NULL. */
	int (*resolver)(void *farm, size_t pos, char **why, ab_error *err);
	void *farm;
} ab_index;

/* A big index is read by as many threads as there are cores (at most
 * 8); n > 0 caps them (1: one thread, no pieces), 0 undoes it. */
void ab_index_set_threads(int n);

/* Turns a command-line --index argument (path, file://, http://, https://)
 * into an absolute URL. A plain path becomes file:// of its absolute
 * form. NULL with err set when the scheme is not supported. */
char *ab_index_source_url(const char *arg, ab_error *err);
/* The local path a file:// URL names (host empty or localhost), NULL for
 * any other URL. */
char *ab_index_local_path(const char *url);

/* The name used in messages for an index at url: its last path segment. */
char *ab_index_label(const char *url);

/* Parses and validates an index document. source_url is the absolute URL
 * it came from (relative artifact URLs resolve against it; an index
 * served over http(s) may not point at file:// artifacts). */
ab_index *ab_index_parse(const char *data, size_t len, const char *source_url,
			 ab_error *err);
void ab_index_free(ab_index *idx);
/* The same for a farm's build list (farms/farm.c): builds with a
 * "farm_ref" may have no artifacts yet (unresolved). */
ab_index *ab_index_parse_farm(const char *data, size_t len, const char *source_url,
			      ab_error *err);

/* Makes sure build pos has its artifacts: a no-op for a resolved build;
 * for a farm's, asks the farm (listings, checksum lists, signatures).
 * 0; 1 with *why (malloc'd) when the build turns out unavailable; -1
 * with err. Safe from several threads. */
int ab_index_resolve(const ab_index *idx, size_t pos, char **why, ab_error *err);
/* The words for a trust level in reports ("signed", ...). */
const char *ab_trust_name(ab_trust t);

/* Finds a build by id, or by a unique commit prefix of at least 7
 * characters. Returns its position, or -1 with err set (unknown or
 * ambiguous name, exit status AB_EXIT_USAGE). O(1) for ids, O(log n) for
 * commit prefixes. */
ssize_t ab_index_find(const ab_index *idx, const char *name, ab_error *err);

/* How many builds had their commit dropped (not a hexadecimal object
 * name), and in *first the position of the first; 0 when none. */
size_t ab_index_dropped_commits(const ab_index *idx, size_t *first);

/* compare_url with {old} and {new} replaced by the builds' commits (or
 * ids); NULL when the index has no compare_url. Caller frees. */
char *ab_index_compare_url(const ab_index *idx, size_t old_pos, size_t new_pos);

/* The other places an artifact can be fetched from: for an artifact under
 * the index's directory, the same path under each mirror. *n of them
 * (0 when none), in the index's order; free with ab_index_urls_free. */
char **ab_index_mirror_urls(const ab_index *idx, const ab_artifact *a, size_t *n);
void ab_index_urls_free(char **urls, size_t n);

const char *ab_artifact_type_name(ab_artifact_type t);

/* The type a file name says (".rpm", ".tar.zst", ".zip"...), and the
 * length of that suffix; -1 when the name says nothing. */
int ab_artifact_type_guess(const char *filename, ab_artifact_type *t, size_t *suffix_len);

#endif
