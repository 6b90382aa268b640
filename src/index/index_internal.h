/* index_internal.h - private to the index modules (index.c, index_url.c,
 * index_find.c, index_pieces.c); nothing else includes it. Holds what they
 * share: the limits on a document, the character helpers, the resolved
 * index URL (struct url_base), the look-up tables (struct ab_index_lookup),
 * the parser's state (struct parser) and the functions each module gives
 * the others. The public API stays in index.h.
 *
 * Holds no state of its own and never prints.
 */
#ifndef AB_INDEX_INTERNAL_H
#define AB_INDEX_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <curl/curl.h>
#include <jansson.h>
#include "base/arena.h"
#include "base/error.h"
#include "index/index.h"

#define MAX_INDEX_BYTES ((size_t)1 << 30)	/* 1 GiB: jansson needs about 8 times that */
#define CLIP 200		/* longest piece of the document quoted back */

/* The id table keeps positions in 32 bits; a build takes at least 2 bytes. */
_Static_assert(MAX_INDEX_BYTES / 2 < UINT32_MAX, "build positions must fit in 32 bits");

/* ---------------------------------------------------------------------
 * Small helpers
 */

static inline unsigned char lc(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

static inline int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static inline int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = lc(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* ---------------------------------------------------------------------
 * index_url.c: URLs
 */

/* The index URL that artifact and mirror URLs resolve against. */
struct url_base {
	CURLU *base;
	char *dir;		/* base URL with "x" resolved, minus the "x" */
	size_t dirlen;
	int remote;		/* the index is served over http(s) */
};

int index_url_base_init(struct url_base *ub, const char *source_url, const char **why);
void index_url_base_free(struct url_base *ub);
/* Resolves ref (n bytes) against the index URL: *url and *filename in
 * arena (malloc'd when arena is NULL), *named when the URL gave the file
 * name. On failure returns -1 with a reason in why. */
int index_url_resolve(const struct url_base *ub, ab_arena *arena, const char *ref, size_t n,
		      char **url, char **filename, int *named, char *why, size_t whylen);

/* ---------------------------------------------------------------------
 * index_find.c: the look-up tables
 */

struct commit_ent;

struct ab_index_lookup {
	uint64_t *slots;	/* hash high half << 32 | position + 1; 0 = empty */
	size_t mask;
	uint64_t k0, k1;
	struct commit_ent *commits;
	size_t ncommits;
	/* Commits are noted and sorted the first time a name is looked up as
	 * one: a run that names builds by id (most do) never pays for it. */
	pthread_mutex_t sort_lock;
	int sorted;
};

/* A table for nbuilds ids, with a fresh SipHash key; free with
 * index_lookup_free. */
struct ab_index_lookup *index_lookup_new(size_t nbuilds);
void index_lookup_free(struct ab_index_lookup *L);
/* SipHash-1-3 of data under the key k0, k1. */
uint64_t index_siphash13(const char *data, size_t len, uint64_t k0, uint64_t k1);
/* Looks id up in the table: its position, or -1 with *slot the free slot
 * it would take and *tag what to put there besides the position. */
ssize_t index_id_probe(const struct ab_index_lookup *L, const ab_build *builds, const char *id,
		       size_t *slot, uint64_t *tag);
/* Puts build pos's id (hash h) in the table. -1 when the id is there
 * already. */
int index_id_insert(struct ab_index_lookup *L, const ab_build *builds, size_t pos, uint64_t h);
/* Room in the table for n ids, at most 0.7 of its slots full; the ids of
 * builds [0, have) are moved over when it grows. */
void index_lookup_reserve(struct ab_index_lookup *L, const ab_build *builds, size_t have, size_t n);

/* ---------------------------------------------------------------------
 * The parser's state, shared by index.c and index_pieces.c
 */

/* A big builds array is cut into this many pieces of about equal bytes,
 * taken by the reading threads one after another: a thread on a slower
 * core (a busy host's virtual CPU) then reads fewer of them, and the
 * last piece, read by one thread while the others have finished, is
 * short. */
#define MAX_PIECES 64

/* How the builds array of a big index is cut for the reading threads.
 * CUTS_GUESSED: at places that look like boundaries between builds,
 * proven by the reading itself (each piece must end where the next one
 * starts), so that nothing goes over the whole array before jansson
 * does. CUTS_SCANNED: by a scan of the array (the guesses were wrong).
 * ONE_READER: one thread reads every build in order (a small index, or
 * a fault to name exactly as one reader finds it). */
enum cut_mode { CUTS_GUESSED = 1, CUTS_SCANNED, ONE_READER };

struct parser {
	const char *label;
	ab_error *err;
	ab_index *idx;
	struct url_base ub;
	ab_arena *arena;	/* where builds' strings go: this thread's */
	/* The object being read, for messages: spelt out only on failure. */
	enum { AT_TOP, AT_VCS, AT_BUILD, AT_ARTIFACT } at;
	size_t build, art;
	/* The builds array, read one build at a time (see index_load_top). */
	const char *doc;	/* the whole document, after any BOM */
	size_t doclen;
	int bom;
	size_t builds_at;	/* offset of its '[', or 0 when not streamed */
	size_t builds_end;	/* just past its ']' */
	size_t builds_count;	/* when scanned */
	enum cut_mode mode;
	/* Pieces of the builds array for several threads: piece k starts at
	 * offset piece_at[k], just after a comma of the array (piece 0 just
	 * after its '['). npieces 0: one thread reads them all. */
	size_t npieces;
	size_t piece_at[MAX_PIECES];
	/* Set when a failure should be read again another way: the mode to
	 * read the whole document in (0 when the failure stands). */
	enum cut_mode retry;
	int cuts_guessed;
	int farm;		/* a farm's build list: builds with a farm_ref may
				 * come without artifacts (unresolved) */
};

/* index.c: reads builds[pos] from o into b (0, or -1 with P->err). */
int index_read_build(struct parser *P, const json_t *o, ab_build *b, size_t pos);
/* index.c: jansson's message, with the line and column it gives. */
void index_syntax_error(struct parser *P, json_error_t *je, int bom);
/* index.c: the builds array is not what the scanner took it for; jansson
 * reads the whole document to say where. Always -1. */
int index_structure_error(struct parser *P);

/* index_pieces.c: the top-level object without its builds array (when
 * that is an array: its place and size go to P). NULL with *fallback set
 * when the document should rather be read whole; NULL alone after an
 * error. */
json_t *index_load_top(struct parser *P, int *fallback);
/* index_pieces.c: one thread reads every build in order; *bad is the
 * build it failed on. */
int index_read_all_builds(struct parser *P, size_t *bad);
/* index_pieces.c: reads the builds array in P's pieces on every core. 0,
 * or -1 with P->retry: how to read the document again. */
int index_read_in_pieces(struct parser *P);

#endif
