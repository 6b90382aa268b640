/* arena.c - see arena.h. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "base/arena.h"
#include "base/util.h"

/* Big enough for huge pages (ab_xmalloc_big) and for a million builds
 * to take only a hundred chunks. */
#define CHUNK_BYTES ((size_t)4 << 20)
#define ALIGN 16

struct ab_arena_chunk {
	struct ab_arena_chunk *next;
	max_align_t data[];
};

/* A piece of n bytes at the given alignment (a power of two, at most
 * ALIGN). Strings take alignment 1: at a million builds, rounding each
 * of their six strings up to 16 bytes cost 40 MB. */
static void *take(ab_arena *a, size_t n, size_t align, int zero)
{
	struct ab_arena_chunk *c;
	size_t want = n ? n : 1, pad = (size_t)(-(uintptr_t)a->next & (align - 1)), size;
	void *p;

	if (want + pad > a->left) {
		/* A piece bigger than a quarter chunk gets a chunk of its own,
		 * behind the current one, so the free space there stays usable. */
		int alone = want > CHUNK_BYTES / 4;

		size = alone ? want : CHUNK_BYTES - sizeof *c;
		c = ab_xmalloc_big(sizeof *c + size);
		if (alone && a->chunks) {
			c->next = a->chunks->next;
			a->chunks->next = c;
		} else {
			c->next = a->chunks;
			a->chunks = c;
			a->next = (char *)c->data;
			a->left = size;
		}
		if (alone) {
			if (zero)
				memset(c->data, 0, want);
			if (a->chunks == c) {
				a->next += want;
				a->left -= want;
			}
			return c->data;
		}
		pad = 0;	/* a chunk's data is aligned for any type */
	}
	p = a->next + pad;
	a->next += pad + want;
	a->left -= pad + want;
	if (zero)
		memset(p, 0, n);
	return p;
}

void *ab_arena_calloc(ab_arena *a, size_t n)
{
	return a ? take(a, n, ALIGN, 1) : ab_xcalloc(1, n);
}

char *ab_arena_strndup(ab_arena *a, const char *s, size_t n)
{
	char *p;

	if (!a)
		return ab_xstrndup(s, n);
	p = take(a, n + 1, 1, 0);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *ab_arena_concat(ab_arena *a, const char *s, size_t n, const char *t, size_t m)
{
	char *p = a ? take(a, n + m + 1, 1, 0) : ab_xmalloc(n + m + 1);

	memcpy(p, s, n);
	memcpy(p + n, t, m);
	p[n + m] = '\0';
	return p;
}

void ab_arena_merge(ab_arena *into, ab_arena *from)
{
	struct ab_arena_chunk *last = from->chunks;

	if (!last)
		return;
	/* from's chunks go behind into's newest, whose free space stays. */
	while (last->next)
		last = last->next;
	if (into->chunks) {
		last->next = into->chunks->next;
		into->chunks->next = from->chunks;
	} else {
		into->chunks = from->chunks;
		into->next = from->next;
		into->left = from->left;
	}
	memset(from, 0, sizeof *from);
}

void ab_arena_clear(ab_arena *a)
{
	struct ab_arena_chunk *c, *next;

	for (c = a->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	memset(a, 0, sizeof *a);
}
