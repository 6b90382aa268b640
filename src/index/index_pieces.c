/* index_pieces.c - reading the builds array without building the whole
 * document's tree: the top level member by member (index_load_top), the
 * builds one at a time by one thread (index_read_all_builds), or a big
 * array cut into pieces read on every core (index_read_in_pieces), with
 * the scanner that finds or checks the cuts and jansson's per-thread
 * scratch memory. Also the cap on reading threads (ab_index_set_threads).
 *
 * Checks no field itself (index_read_build in index.c does) and names no
 * fault itself beyond handing jansson's to index.c; never opens a file or
 * a connection and never prints.
 */
#include "config.h"
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>
#include <jansson.h>
#include "base/arena.h"
#include "index/index_internal.h"
#include "base/util.h"

/* ---------------------------------------------------------------------
 * Streaming: jansson would build the whole document (8 times its size
 * for a big index) before a single build is checked. Instead the top
 * level is read member by member and each build is handed to jansson on
 * its own and freed once read. A big builds array is cut at guessed
 * boundaries and read by every core, piece by piece; a small one is
 * skipped by a scanner that counts its elements, then read by one
 * thread. Any doubt about the structure falls back to one json_loadb of
 * the whole, for its message.
 */

/* From this many builds on, several threads read the builds array. */
#define PARALLEL_MIN_BUILDS 4096
/* At most this many threads read it. */
#define MAX_READERS 8

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static size_t skip_ws(const char *d, size_t len, size_t pos)
{
	while (pos < len && is_ws(d[pos]))
		pos++;
	return pos;
}

static int thread_cap;	/* ab_index_set_threads */

void ab_index_set_threads(int n)
{
	__atomic_store_n(&thread_cap, n, __ATOMIC_RELAXED);
}

/* How many threads may read a big index. */
static long load_threads(void)
{
	int cap = __atomic_load_n(&thread_cap, __ATOMIC_RELAXED);

	return cap > 0 ? cap : sysconf(_SC_NPROCESSORS_ONLN);
}

/* The array scanner's state: where it is, how deep (the array's own
 * level is 1), the commas of the array seen and whether it holds
 * anything at all. */
struct scan_state {
	size_t pos, depth, commas;
	int content;
};

enum { SCAN_STOP, SCAN_CLOSED, SCAN_COMMA, SCAN_BAD };

/* Runs the scanner over d from st->pos while pos < stop. SCAN_CLOSED:
 * the array closed (st->pos just past its bracket); SCAN_COMMA: a comma
 * of the array at or after cut (st->pos just past it); SCAN_STOP at
 * stop; SCAN_BAD when the text is not shaped like an array. */
static int scan_run(struct scan_state *st, const char *d, size_t len, size_t stop, size_t cut)
{
	size_t pos = st->pos, depth = st->depth;
	int rc = SCAN_STOP;

	for (; pos < stop; pos++) {
		char c = d[pos];

		if (c == '"') {
			/* The closing quote: the next one after an even run of
			 * backslashes (memchr is many times faster than a loop
			 * over bytes, and most of an index is strings). */
			for (;;) {
				const char *q = memchr(d + pos + 1, '"', len - pos - 1);
				size_t bs = 0;

				if (!q) {
					rc = SCAN_BAD;
					goto out;
				}
				pos = (size_t)(q - d);
				while (d[pos - 1 - bs] == '\\')
					bs++;
				if (!(bs & 1))
					break;
			}
			if (depth == 1)
				st->content = 1;
			continue;
		}
		if (c == '[' || c == '{') {
			if (depth == 1)
				st->content = 1;
			depth++;
		} else if (c == ']' || c == '}') {
			if (depth == 0) {
				rc = SCAN_BAD;
				goto out;
			}
			if (--depth == 0) {
				pos++;
				rc = SCAN_CLOSED;
				goto out;
			}
		} else if (c == ',' && depth == 1) {
			st->commas++;
			if (pos >= cut) {
				pos++;
				rc = SCAN_COMMA;
				goto out;
			}
		} else if (depth == 1 && !is_ws(c)) {
			st->content = 1;
		}
	}
out:
	st->pos = pos;
	st->depth = depth;
	return rc;
}

#define GUESS_TRIES 16
#define GUESS_LOOK ((size_t)64 << 10)

/* A likely place just after a comma between two builds, at or after
 * from and before limit: '}' ',' and then the text the first build
 * starts with up to its first key (sig: {"id", say), and nothing after
 * it that closes the array before the next comma at its level. 0 when
 * there is none. Only a guess: the piece before it must end there. */
static size_t guess_cut(const char *d, size_t len, size_t from, size_t limit, const char *sig,
			size_t siglen)
{
	size_t pos = from;
	int tries = 0;

	/* A few tries, each looking a little way: in a document unlike a
	 * farm's the cut is given up rather than paid for. */
	while (pos < limit && tries < GUESS_TRIES) {
		const char *q = memchr(d + pos, ',', limit - pos);
		struct scan_state st = { 0, 1, 0, 0 };
		size_t c, a, b;
		int r;

		if (!q)
			return 0;
		c = (size_t)(q - d);
		pos = c + 1;
		for (a = c; a > from && is_ws(d[a - 1]); a--)
			;
		b = skip_ws(d, len, c + 1);
		if (a == from || d[a - 1] != '}' || len - b < siglen || memcmp(d + b, sig, siglen))
			continue;
		tries++;
		st.pos = c + 1;
		r = scan_run(&st, d, len, len - st.pos > GUESS_LOOK ? st.pos + GUESS_LOOK : len, 0);
		if (r == SCAN_COMMA)
			return c + 1;
	}
	return 0;
}

/* Below this many bytes the builds array is not cut at guesses. */
#define GUESS_MIN_BYTES ((size_t)1 << 20)
#define GUESS_WINDOW ((size_t)1 << 20)

/* Cuts the builds array, whose '[' is at pos, at guessed boundaries
 * between builds near every MAX_PIECES-th of the document, and finds
 * where it ends by scanning only its last piece. Nothing is proven
 * here: each piece's reader must end where the next piece starts (and
 * the last at the array's end), or the document is read again with
 * CUTS_SCANNED. -1 when there are no two pieces to make. */
static int guess_cuts(struct parser *P, const char *d, size_t len, size_t pos)
{
	struct scan_state st = { 0, 1, 0, 0 };
	const char *sig, *q;
	size_t k, cut, n = 0, siglen;

	if (len - pos < GUESS_MIN_BYTES || load_threads() < 2)
		return -1;
	/* What the first build starts with, to its first key. */
	sig = d + skip_ws(d, len, pos + 1);
	q = sig + 1 < d + len && sig[0] == '{' ? d + skip_ws(d, len, (size_t)(sig - d) + 1) : NULL;
	if (!q || q >= d + len || *q != '"' || !(q = memchr(q + 1, '"', (size_t)(d + len - q - 1))) ||
	    memchr(sig, '\\', (size_t)(q - sig)) || q - sig >= 64)
		return -1;
	siglen = (size_t)(q - sig) + 1;
	P->piece_at[n++] = pos + 1;
	for (k = 1; k < MAX_PIECES; k++) {
		size_t at = k * (len / MAX_PIECES);

		if (at <= P->piece_at[n - 1])
			continue;
		cut = guess_cut(d, len, at, at + GUESS_WINDOW < len ? at + GUESS_WINDOW : len, sig, siglen);
		if (cut > P->piece_at[n - 1])
			P->piece_at[n++] = cut;
	}
	if (n < 2)
		return -1;
	st.pos = P->piece_at[n - 1];
	if (scan_run(&st, d, len, len, SIZE_MAX) != SCAN_CLOSED)
		return -1;
	P->builds_end = st.pos;
	P->npieces = n;
	return 0;
}

/* From the '[' at pos: the offset just past the matching ']' in *end
 * and the number of elements in *count. P's pieces: the array cut at
 * the first elements that start after each MAX_PIECES-th of the
 * document. -1 when the text is not shaped like an array (jansson will
 * say how). */
static int scan_array(struct parser *P, const char *d, size_t len, size_t pos, size_t *end,
		      size_t *count)
{
	struct scan_state st = { pos + 1, 1, 0, 0 };
	size_t cut = 1;

	P->npieces = 1;
	P->piece_at[0] = pos + 1;
	for (;;) {
		size_t at = cut < MAX_PIECES ? cut * (len / MAX_PIECES) : SIZE_MAX;

		switch (scan_run(&st, d, len, len, at)) {
		case SCAN_COMMA:
			P->piece_at[P->npieces++] = st.pos;
			while (cut < MAX_PIECES && st.pos - 1 >= cut * (len / MAX_PIECES))
				cut++;
			break;
		case SCAN_CLOSED:
			*end = st.pos;
			*count = st.content ? st.commas + 1 : 0;
			return 0;
		default:
			return -1;
		}
	}
}

/* Where offset off lies, as jansson counts: line from 1, column in code
 * points. */
static void place_of(const char *d, size_t off, int *line, int *col)
{
	size_t i;

	*line = 1;
	*col = 0;
	for (i = 0; i < off; i++) {
		if (d[i] == '\n') {
			(*line)++;
			*col = 0;
		} else if (((unsigned char)d[i] & 0xc0) != 0x80) {
			(*col)++;
		}
	}
}

/* One JSON value at pos, through jansson; *next is the offset after it.
 * On a syntax error, the error names the place in the whole document. */
static json_t *load_piece(struct parser *P, size_t pos, size_t *next)
{
	json_error_t je;
	json_t *v = json_loadb(P->doc + pos, P->doclen - pos,
			       JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK, &je);

	if (!v) {
		int line, col;

		P->at = AT_TOP;	/* a syntax error has no field to name */
		place_of(P->doc, pos, &line, &col);
		if (je.line <= 1) {
			je.line = line;
			je.column += col;
		} else {
			je.line += line - 1;
		}
		index_syntax_error(P, &je, P->bom);
		return NULL;
	}
	*next = pos + (size_t)je.position;
	return v;
}

/* Reads the top-level object without its builds array (when that is an
 * array: its place and size go to P). NULL with *fallback set when the
 * document should rather be read whole; NULL alone after an error. */
json_t *index_load_top(struct parser *P, int *fallback)
{
	const char *d = P->doc;
	size_t len = P->doclen, pos = skip_ws(d, len, 0);
	json_t *top;

	*fallback = 0;
	if (pos >= len || d[pos] != '{') {
		*fallback = 1;
		return NULL;
	}
	top = json_object();
	pos = skip_ws(d, len, pos + 1);
	if (pos < len && d[pos] == '}') {
		pos++;
		goto end;
	}
	for (;;) {
		json_t *key, *val;
		size_t next;
		const char *k;

		if (pos >= len || d[pos] != '"')
			goto whole;
		key = load_piece(P, pos, &next);
		if (!key)
			goto fail;
		k = json_string_value(key);
		pos = skip_ws(d, len, next);
		if (pos >= len || d[pos] != ':' || json_object_get(top, k) ||
		    (!strcmp(k, "builds") && P->builds_at)) {
			json_decref(key);
			goto whole;	/* jansson names the fault, duplicates included */
		}
		pos = skip_ws(d, len, pos + 1);
		if (!strcmp(k, "builds") && pos < len && d[pos] == '[') {
			size_t end, count;

			if (P->mode == CUTS_GUESSED && guess_cuts(P, d, len, pos) == 0) {
				P->cuts_guessed = 1;
				end = P->builds_end;
			} else if (scan_array(P, d, len, pos, &end, &count) < 0) {
				json_decref(key);
				goto whole;
			} else {
				P->builds_count = count;
				if (P->mode == ONE_READER || count < PARALLEL_MIN_BUILDS || P->npieces < 2 ||
				    load_threads() < 2)
					P->npieces = 0;
			}
			P->builds_at = pos;
			P->builds_end = end;
			next = end;
		} else {
			val = load_piece(P, pos, &next);
			if (!val) {
				json_decref(key);
				goto fail;
			}
			json_object_set_new(top, k, val);
		}
		json_decref(key);
		pos = skip_ws(d, len, next);
		if (pos < len && d[pos] == ',') {
			pos = skip_ws(d, len, pos + 1);
			continue;
		}
		if (pos < len && d[pos] == '}') {
			pos++;
			break;
		}
		goto whole;
	}
end:
	if (skip_ws(d, len, pos) != len)
		goto whole;
	return top;
whole:
	*fallback = 1;
fail:
	json_decref(top);
	P->builds_at = 0;
	P->npieces = 0;
	return NULL;
}

/* jansson's memory while a thread reads builds. Each build's values are
 * freed as soon as it is read, so a buffer that is simply rewound after
 * every build serves them: malloc and free for the thirty-odd values of
 * each build were a good part of the reading time. A build too big for
 * the buffer, and everything outside read_builds_range, gets malloc. */
#define SCRATCH_BYTES ((size_t)256 << 10)

struct scratch {
	char *next, *end;
	max_align_t base[];
};

static _Thread_local struct scratch *tl_scratch;

static void *scratch_malloc(size_t n)
{
	struct scratch *s = tl_scratch;
	size_t want = (n + 15) & ~(size_t)15;

	if (s && want >= n && want <= (size_t)(s->end - s->next)) {
		void *p = s->next;

		s->next += want;
		return p;
	}
	return malloc(n);
}

static void scratch_free(void *p)
{
	struct scratch *s = tl_scratch;

	if (s && (char *)p >= (char *)s->base && (char *)p < s->end)
		return;
	free(p);
}

static void scratch_install(void)
{
	json_set_alloc_funcs(scratch_malloc, scratch_free);
}

/* Gives this thread's jansson a scratch buffer (see scratch_malloc). */
static struct scratch *scratch_begin(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct scratch *s = ab_xmalloc(sizeof *s + SCRATCH_BYTES);

	/* Either function serves any pointer, so installing them while
	 * another thread uses jansson is harmless. */
	pthread_once(&once, scratch_install);
	s->end = (char *)s->base + SCRATCH_BYTES;
	tl_scratch = s;
	return s;
}

static void scratch_end(struct scratch *s)
{
	tl_scratch = NULL;
	free(s);
}

/* One thread reads every build in order; *bad is the build it failed
 * on. */
int index_read_all_builds(struct parser *P, size_t *bad)
{
	struct scratch *s = scratch_begin();
	size_t i, next, n = P->idx->nbuilds, pos = P->builds_at + 1;
	int rc = -1;

	for (i = 0; i < n; i++) {
		json_t *b;
		int r;

		s->next = (char *)s->base;
		pos = skip_ws(P->doc, P->doclen, pos);
		b = load_piece(P, pos, &next);
		if (!b) {
			*bad = i;
			goto out;
		}
		r = index_read_build(P, b, &P->idx->builds[i], i);
		json_decref(b);
		if (r < 0) {
			*bad = i;
			goto out;
		}
		/* A comma after every build but the last, which ends the array. */
		pos = skip_ws(P->doc, P->doclen, next);
		if (pos >= P->doclen || P->doc[pos] != (i + 1 < n ? ',' : ']')) {
			*bad = i;
			tl_scratch = NULL;	/* jansson reads the whole with malloc */
			index_structure_error(P);
			goto out;
		}
		pos++;
	}
	rc = 0;
out:
	scratch_end(s);
	return rc;
}

/* Several threads read a big builds array, a piece at a time, each
 * piece's builds kept aside until every piece before it is in the
 * index; then they are put there (their number was not known before)
 * and their ids noted, in document order. A piece whose reading did not
 * end where the next one starts (a wrong guess) or that holds a fault
 * stops everything: the document is read again (ab_index_parse). */
enum piece_state { PIECE_READING, PIECE_READ, PIECE_MISPLACED, PIECE_BAD };

struct piece {
	enum piece_state state;
	size_t n, cap;
	ab_build *builds;
	uint64_t *hashes;	/* of their ids, for the table */
};

/* What the reading threads share. */
struct reading {
	struct piece *pieces;
	size_t next_piece;	/* atomic: the next piece nobody took */
	int stop;		/* atomic: the document is read again */
	pthread_mutex_t lock;	/* the rest, the index's builds and table */
	size_t placed;		/* pieces [0, placed) are in the index */
	size_t cap;		/* builds the index has room for */
	enum cut_mode retry;
};

/* Reads piece k: its state. */
static enum piece_state read_piece(struct parser *P, struct scratch *s, struct reading *rd, size_t k)
{
	struct piece *pc = &rd->pieces[k];
	const struct ab_index_lookup *L = P->idx->lookup;
	const char *d = P->doc;
	size_t len = P->doclen, pos = P->piece_at[k], next;
	size_t stop = k + 1 < P->npieces ? skip_ws(d, len, P->piece_at[k + 1]) : SIZE_MAX;

	while (!__atomic_load_n(&rd->stop, __ATOMIC_RELAXED)) {
		ab_build *b;
		json_t *v;
		int r;

		if (pc->n == pc->cap) {
			pc->cap = pc->cap ? 2 * pc->cap : 1024;
			pc->builds = ab_xrealloc(pc->builds, pc->cap * sizeof *pc->builds);
			pc->hashes = ab_xrealloc(pc->hashes, pc->cap * sizeof *pc->hashes);
		}
		b = memset(&pc->builds[pc->n], 0, sizeof *b);
		s->next = (char *)s->base;
		pos = skip_ws(d, len, pos);
		v = load_piece(P, pos, &next);
		if (!v)
			return PIECE_BAD;
		/* Its place is not known yet: a fault is named when the
		 * document is read again by one thread. */
		r = index_read_build(P, v, b, pc->n);
		json_decref(v);
		if (r < 0)
			return PIECE_BAD;
		pc->hashes[pc->n++] = index_siphash13(b->id, strlen(b->id), L->k0, L->k1);
		pos = skip_ws(d, len, next);
		if (pos < len && d[pos] == ',') {
			pos = skip_ws(d, len, pos + 1);
			if (pos < stop)
				continue;
			return pos == stop ? PIECE_READ : PIECE_MISPLACED;
		}
		if (pos < len && d[pos] == ']')
			return stop == SIZE_MAX && pos + 1 == P->builds_end ? PIECE_READ : PIECE_MISPLACED;
		return PIECE_BAD;
	}
	return PIECE_MISPLACED;	/* stopped: the state no longer matters */
}

/* Puts a read piece's builds at the end of the index. -1 on an id the
 * index has already. */
static int place_piece(struct parser *P, struct reading *rd, const struct piece *pc)
{
	ab_index *idx = P->idx;
	struct ab_index_lookup *L = idx->lookup;
	size_t base = idx->nbuilds, j;

	if (base + pc->n > rd->cap) {
		size_t want = rd->cap + rd->cap / 2;

		if (!base) {
			/* As many builds as the first piece's density gives the
			 * whole array: the table is made for them at once. */
			double bytes = (double)(P->piece_at[1] - P->piece_at[0]);
			size_t est = (size_t)((double)pc->n * (double)(P->builds_end - P->piece_at[0]) / bytes);

			index_lookup_reserve(L, idx->builds, 0, est);
			want = est + est / 16 + 64;
		}
		if (want < base + pc->n)
			want = base + pc->n;
		if (!idx->builds)
			idx->builds = ab_xcalloc_big(want, sizeof *idx->builds);
		else
			idx->builds = ab_xrealloc(idx->builds, want * sizeof *idx->builds);
		rd->cap = want;
	}
	memcpy(idx->builds + base, pc->builds, pc->n * sizeof *pc->builds);
	index_lookup_reserve(L, idx->builds, base, base + pc->n);
	for (j = 0; j < pc->n; j++) {
		/* Each slot is a cache miss in a table of megabytes: fetched a
		 * few ids ahead. */
		if (j + 8 < pc->n)
			__builtin_prefetch(&L->slots[(size_t)pc->hashes[j + 8] & L->mask], 1);
		if (index_id_insert(L, idx->builds, base + j, pc->hashes[j]) < 0)
			return -1;
	}
	idx->nbuilds = base + pc->n;
	return 0;
}

/* With rd->lock held: places every piece that is read and next in
 * document order. */
static void place_ready(struct parser *P, struct reading *rd)
{
	while (rd->placed < P->npieces && !rd->retry) {
		struct piece *pc = &rd->pieces[rd->placed];

		if (pc->state == PIECE_READING)
			return;
		/* Every piece before this one ended where the next began, so
		 * this one started at a build: an end elsewhere is a wrong
		 * guess (or a fault a scan names), anything else a fault
		 * one reader names. */
		if (pc->state == PIECE_MISPLACED && P->cuts_guessed)
			rd->retry = CUTS_SCANNED;
		else if (pc->state != PIECE_READ || place_piece(P, rd, pc) < 0)
			rd->retry = ONE_READER;
		if (rd->retry) {
			__atomic_store_n(&rd->stop, 1, __ATOMIC_RELAXED);
			return;
		}
		free(pc->builds);
		free(pc->hashes);
		pc->builds = NULL;
		pc->hashes = NULL;
		rd->placed++;
	}
}

/* One reading thread: its own parser copy (place, error) and arena. */
struct reader {
	struct parser P;
	ab_arena arena;
	struct reading *rd;
	pthread_t thread;
};

static void *read_pieces(void *arg)
{
	struct reader *r = arg;
	struct parser *P = &r->P;
	struct reading *rd = r->rd;
	struct scratch *s = scratch_begin();
	ab_error err = {0};
	size_t k;

	P->err = &err;	/* any fault is named by a reading again */
	while (!__atomic_load_n(&rd->stop, __ATOMIC_RELAXED) &&
	       (k = __atomic_fetch_add(&rd->next_piece, 1, __ATOMIC_RELAXED)) < P->npieces) {
		enum piece_state state = read_piece(P, s, rd, k);

		pthread_mutex_lock(&rd->lock);
		rd->pieces[k].state = state;
		place_ready(P, rd);
		pthread_mutex_unlock(&rd->lock);
	}
	scratch_end(s);
	return NULL;
}

/* Reads the builds array in P's pieces on every core (jansson's parsing
 * is most of the time). 0, or -1 with P->retry: how to read the
 * document again, for the exact builds or the exact fault. */
int index_read_in_pieces(struct parser *P)
{
	ab_index *idx = P->idx;
	struct reading rd;
	struct reader readers[MAX_READERS];
	long cpus = load_threads();
	int nreaders, started, i;
	size_t k;

	nreaders = (int)(cpus < MAX_READERS ? cpus : MAX_READERS);
	if ((size_t)nreaders > P->npieces)
		nreaders = (int)P->npieces;
	memset(&rd, 0, sizeof rd);
	rd.pieces = ab_xcalloc(P->npieces, sizeof *rd.pieces);
	pthread_mutex_init(&rd.lock, NULL);
	idx->lookup = index_lookup_new(0);
	idx->read_pieces = P->npieces;
	idx->cuts_guessed = P->cuts_guessed;
	memset(readers, 0, sizeof readers);
	for (i = 0; i < nreaders; i++) {
		readers[i].P = *P;
		readers[i].P.arena = &readers[i].arena;
		readers[i].rd = &rd;
	}
	/* This thread is reader 0; a thread that cannot be started only
	 * means fewer readers. */
	for (started = 1; started < nreaders; started++)
		if (pthread_create(&readers[started].thread, NULL, read_pieces, &readers[started]) != 0)
			break;
	read_pieces(&readers[0]);
	for (i = 0; i < nreaders; i++) {
		if (i > 0 && i < started)
			pthread_join(readers[i].thread, NULL);
		ab_arena_merge(P->arena, &readers[i].arena);
	}
	for (k = 0; k < P->npieces; k++) {
		free(rd.pieces[k].builds);
		free(rd.pieces[k].hashes);
	}
	free(rd.pieces);
	pthread_mutex_destroy(&rd.lock);
	if (rd.placed == P->npieces)
		return 0;
	P->retry = rd.retry ? rd.retry : ONE_READER;
	return -1;
}
