/* index_find.c - looking builds up: the id hash table (SipHash-1-3,
 * filled by index.c and index_pieces.c as builds are read), the commits
 * sorted for prefix search, ab_index_find and its "did you mean"
 * suggestions.
 *
 * Owns struct ab_index_lookup's contents; never reads the document,
 * never checks a field and never prints (a failed look-up goes into
 * ab_error).
 */
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/random.h>
#include <unistd.h>
#include "base/i18n.h"
#include "index/index_internal.h"
#include "base/util.h"

#define MIN_PREFIX 7
/* Ids longer than this are not looked at for "did you mean". */
#define NEAR_LEN_MAX 128

/* ---------------------------------------------------------------------
 * Lookup: ids in an open-addressing hash table (SipHash-1-3 with a key
 * drawn per index, so that crafted ids cannot force collisions), commits
 * in an array sorted case-insensitively.
 */

struct commit_ent {
	uint64_t key;		/* first 8 bytes, lowercased, big-endian */
	const char *commit;
	size_t pos;
};

#define HI32 0xffffffff00000000ULL

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND do { \
	v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32); \
	v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2; \
	v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0; \
	v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32); \
} while (0)

uint64_t index_siphash13(const char *data, size_t len, uint64_t k0, uint64_t k1)
{
	const unsigned char *in = (const unsigned char *)data;
	uint64_t v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1;
	uint64_t v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
	uint64_t m, b = (uint64_t)len << 56;
	size_t left = len & 7, i;
	const unsigned char *stop = in + (len - left);

	for (; in != stop; in += 8) {
		m = 0;
		for (i = 0; i < 8; i++)
			m |= (uint64_t)in[i] << (8 * i);
		v3 ^= m;
		SIPROUND;
		v0 ^= m;
	}
	for (i = 0; i < left; i++)
		b |= (uint64_t)in[i] << (8 * i);
	v3 ^= b;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

/* Looks id up in the table: its position, or -1 with *slot the free slot
 * it would take and *tag what to put there besides the position. */
ssize_t index_id_probe(const struct ab_index_lookup *L, const ab_build *builds, const char *id,
		       size_t *slot, uint64_t *tag)
{
	uint64_t h = index_siphash13(id, strlen(id), L->k0, L->k1);
	size_t i;

	*tag = h & HI32;
	for (i = (size_t)h & L->mask; L->slots[i]; i = (i + 1) & L->mask) {
		if ((L->slots[i] & HI32) == *tag) {
			size_t pos = (size_t)(L->slots[i] & ~HI32) - 1;
			if (!strcmp(builds[pos].id, id))
				return (ssize_t)pos;
		}
	}
	*slot = i;
	return -1;
}

static int commit_cmp(const void *pa, const void *pb)
{
	const struct commit_ent *a = pa, *b = pb;
	const unsigned char *x, *y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	/* Equal keys: both strings are at least 8 bytes long or equal. */
	if (strlen(a->commit) >= 8) {
		for (x = (const unsigned char *)a->commit + 8,
		     y = (const unsigned char *)b->commit + 8; *x && lc(*x) == lc(*y); x++, y++)
			;
		if (lc(*x) != lc(*y))
			return lc(*x) < lc(*y) ? -1 : 1;
	}
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Sorts by key with a stable LSD radix sort (qsort on a million entries
 * costs a good part of the parse), then puts the rare runs of equal keys
 * in full order with commit_cmp. */
static void sort_commits(struct commit_ent *v, size_t n)
{
	struct commit_ent *tmp, *src = v, *dst;
	size_t count[256], i, run;
	int shift;

	if (n < 2)
		return;
	tmp = ab_xmalloc(n * sizeof *tmp);
	dst = tmp;
	for (shift = 0; shift < 64; shift += 8) {
		size_t sum = 0;

		memset(count, 0, sizeof count);
		for (i = 0; i < n; i++)
			count[(src[i].key >> shift) & 0xff]++;
		if (count[(src[0].key >> shift) & 0xff] == n)
			continue;	/* every key has the same byte here */
		for (i = 0; i < 256; i++) {
			size_t c = count[i];
			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[(src[i].key >> shift) & 0xff]++] = src[i];
		dst = src;
		src = src == v ? tmp : v;
	}
	if (src != v)
		memcpy(v, src, n * sizeof *v);
	free(tmp);
	for (i = 0; i < n; i = run) {
		for (run = i + 1; run < n && v[run].key == v[i].key; run++)
			;
		if (run - i > 1)
			qsort(v + i, run - i, sizeof *v, commit_cmp);
	}
}

/* Compares the first n characters of commit with prefix, ignoring case;
 * 0 when commit starts with prefix. */
static int prefix_cmp(const char *commit, const char *prefix, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char a = lc((unsigned char)commit[i]), b = lc((unsigned char)prefix[i]);
		if (a != b)
			return a < b ? -1 : 1;
	}
	return 0;
}

struct ab_index_lookup *index_lookup_new(size_t nbuilds)
{
	struct ab_index_lookup *L = ab_xcalloc(1, sizeof *L);
	size_t cap = 16;

	while (cap < 2 * nbuilds)
		cap *= 2;
	L->slots = ab_xcalloc_big(cap, sizeof *L->slots);
	L->mask = cap - 1;
	pthread_mutex_init(&L->sort_lock, NULL);
	if (getentropy(&L->k0, sizeof L->k0) < 0 || getentropy(&L->k1, sizeof L->k1) < 0) {
		L->k0 = (uint64_t)(uintptr_t)L ^ ((uint64_t)getpid() << 32);
		L->k1 = (uint64_t)(ab_now() * 1e9);
	}
	return L;
}

void index_lookup_free(struct ab_index_lookup *L)
{
	if (!L)
		return;
	free(L->slots);
	free(L->commits);
	pthread_mutex_destroy(&L->sort_lock);
	free(L);
}

static void commit_entry(struct commit_ent *e, const char *c, size_t pos)
{
	size_t j, n = strlen(c);

	e->key = 0;
	for (j = 0; j < 8; j++)
		e->key = e->key << 8 | (j < n ? lc((unsigned char)c[j]) : 0);
	e->commit = c;
	e->pos = pos;
}

static ssize_t find_id(const ab_index *idx, const char *name)
{
	const struct ab_index_lookup *L = idx->lookup;
	uint64_t tag;
	size_t i;

	if (L)
		return index_id_probe(L, idx->builds, name, &i, &tag);
	for (i = 0; i < idx->nbuilds; i++)
		if (idx->builds[i].id && !strcmp(idx->builds[i].id, name))
			return (ssize_t)i;
	return -1;
}

/* Finds the range [*lo, *hi) of sorted commits starting with prefix
 * (noting and sorting them first, once). */
static void find_prefix(const ab_index *idx, const char *prefix, size_t *lo, size_t *hi)
{
	struct ab_index_lookup *L = idx->lookup;	/* the order is a cache */
	size_t n = strlen(prefix), a, b, i;

	pthread_mutex_lock(&L->sort_lock);
	if (!L->sorted) {
		L->commits = ab_xmalloc_big((idx->nbuilds ? idx->nbuilds : 1) * sizeof *L->commits);
		for (i = 0; i < idx->nbuilds; i++) {
			const char *c = idx->builds[i].commit;

			if (c && strlen(c) >= MIN_PREFIX)
				commit_entry(&L->commits[L->ncommits++], c, i);
		}
		sort_commits(L->commits, L->ncommits);
		L->sorted = 1;
	}
	pthread_mutex_unlock(&L->sort_lock);
	a = 0;
	b = L->ncommits;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (prefix_cmp(L->commits[m].commit, prefix, n) < 0)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	b = L->ncommits;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (prefix_cmp(L->commits[m].commit, prefix, n) <= 0)
			a = m + 1;
		else
			b = m;
	}
	*hi = a;
}

static int all_hex(const char *s)
{
	for (; *s; s++)
		if (hexval((unsigned char)*s) < 0)
			return 0;
	return 1;
}

/* Edit distance (insert, delete, replace, swap of neighbours) between
 * a and b, or more than max when it is: typos in --good and --bad. */
static size_t edit_distance(const char *a, size_t na, const char *b, size_t nb, size_t max)
{
	size_t rows[3][NEAR_LEN_MAX + 1], *p2 = rows[0], *p1 = rows[1], *cur = rows[2], i, j;

	if ((na > nb ? na - nb : nb - na) > max || na > NEAR_LEN_MAX || nb > NEAR_LEN_MAX)
		return max + 1;
	for (j = 0; j <= nb; j++)
		p1[j] = j;
	for (i = 1; i <= na; i++) {
		size_t best = cur[0] = i;

		for (j = 1; j <= nb; j++) {
			size_t d = p1[j - 1] + (a[i - 1] != b[j - 1]);

			if (p1[j] + 1 < d)
				d = p1[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    p2[j - 2] + 1 < d)
				d = p2[j - 2] + 1;
			cur[j] = d;
			if (d < best)
				best = d;
		}
		if (best > max)
			return max + 1;
		{
			size_t *t = p2;
			p2 = p1;
			p1 = cur;
			cur = t;
		}
	}
	return p1[nb];
}

/* ", did you mean X?" (or "one of X, Y, Z") for the ids nearest to
 * name, as git does for a mistyped command; "" when none is near. */
static void nearest_ids(const ab_index *idx, const char *name, char *out, size_t size)
{
	size_t n = strlen(name), max = n <= 4 ? 1 : 2, best = max + 1, found = 0, i;
	const char *hit[3];
	int len;

	out[0] = '\0';
	for (i = 0; i < idx->nbuilds; i++) {
		const char *id = idx->builds[i].id;
		size_t d = edit_distance(name, n, id, strlen(id), best < max ? best : max);

		if (d > max || d > best)
			continue;
		if (d < best) {
			best = d;
			found = 0;
		}
		if (found < 3)
			hit[found++] = id;
	}
	if (!found)
		return;
	len = found == 1 ? snprintf(out, size, _("; did you mean %s?"), hit[0])
		: found == 2 ? snprintf(out, size, _("; did you mean one of %s, %s?"), hit[0], hit[1])
		: snprintf(out, size, _("; did you mean one of %s, %s, %s?"), hit[0], hit[1], hit[2]);
	if (len < 0)
		out[0] = '\0';
}

ssize_t ab_index_find(const ab_index *idx, const char *name, ab_error *err)
{
	const struct ab_index_lookup *L = idx->lookup;
	const char *label = idx->label ? idx->label : "index";
	size_t n, lo = 0, hi = 0;
	ssize_t pos;

	if (!name || !*name) {
		ab_error_set(err, AB_EXIT_USAGE, _("empty build name"));
		return -1;
	}
	pos = find_id(idx, name);
	if (pos >= 0)
		return pos;
	n = strlen(name);
	if (L)
		find_prefix(idx, name, &lo, &hi);
	if (n >= MIN_PREFIX) {
		if (hi - lo == 1)
			return (ssize_t)L->commits[lo].pos;
		if (hi - lo == 2) {
			ab_error_set(err, AB_EXIT_USAGE,
				     _("'%s' is ambiguous: commits of builds %s and %s start with it"),
				     name, idx->builds[L->commits[lo].pos].id,
				     idx->builds[L->commits[lo + 1].pos].id);
			return -1;
		}
		if (hi - lo > 2) {
			ab_error_set(err, AB_EXIT_USAGE,
				     _("'%s' is ambiguous: commits of builds %s, %s and %zu more start with it"),
				     name, idx->builds[L->commits[lo].pos].id,
				     idx->builds[L->commits[lo + 1].pos].id, hi - lo - 2);
			return -1;
		}
		if (!L) {
			/* No lookup tables (an index not made by ab_index_parse):
			 * look at every commit. */
			size_t i, hits = 0;
			for (i = 0; i < idx->nbuilds; i++) {
				const char *c = idx->builds[i].commit;
				if (c && strlen(c) >= n && !prefix_cmp(c, name, n)) {
					pos = (ssize_t)i;
					hits++;
				}
			}
			if (hits == 1)
				return pos;
			if (hits > 1) {
				ab_error_set(err, AB_EXIT_USAGE,
					     _("'%s' is ambiguous: commits of %zu builds start with it"),
					     name, hits);
				return -1;
			}
		}
	}
	{
		char near[3 * NEAR_LEN_MAX + 64];

		nearest_ids(idx, name, near, sizeof near);
		if (n < MIN_PREFIX && (hi > lo || all_hex(name)))
			ab_error_set(err, AB_EXIT_USAGE,
				     _("unknown build '%s' (not an id or commit in %s; commit prefixes need at least %d characters)%s"),
				     name, label, MIN_PREFIX, near);
		else
			ab_error_set(err, AB_EXIT_USAGE, _("unknown build '%s' (not an id or commit in %s)%s"),
				     name, label, near);
	}
	return -1;
}

/* Puts build pos's id (hash h) in the table. -1 when the id is there
 * already. */
int index_id_insert(struct ab_index_lookup *L, const ab_build *builds, size_t pos, uint64_t h)
{
	uint64_t tag = h & HI32;
	size_t i;

	for (i = (size_t)h & L->mask; L->slots[i]; i = (i + 1) & L->mask)
		if ((L->slots[i] & HI32) == tag &&
		    !strcmp(builds[(size_t)(L->slots[i] & ~HI32) - 1].id, builds[pos].id))
			return -1;
	L->slots[i] = tag | (uint64_t)(pos + 1);
	return 0;
}

/* Room in the table for n ids, at most 0.7 of its slots full; the ids of
 * builds [0, have) are moved over when it grows. */
void index_lookup_reserve(struct ab_index_lookup *L, const ab_build *builds, size_t have, size_t n)
{
	size_t cap = L->mask + 1, i;

	if (n * 10 <= cap * 7)
		return;
	while (cap * 5 < n * 8)
		cap *= 2;
	free(L->slots);
	L->slots = ab_xcalloc_big(cap, sizeof *L->slots);
	L->mask = cap - 1;
	for (i = 0; i < have; i++)
		index_id_insert(L, builds, i, index_siphash13(builds[i].id, strlen(builds[i].id), L->k0, L->k1));
}
