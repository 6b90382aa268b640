/* arena.h - memory for many small pieces that live and die together.
 *
 * Owns big chunks handed out piece by piece and freed only all at once:
 * the million strings of a big index cost neither malloc's overhead per
 * piece nor a million free() calls. An arena is used by one thread at a
 * time; ab_arena_merge moves one thread's chunks into another's arena.
 * A NULL arena means plain malloc (the caller then frees each piece).
 * Never prints; runs out of memory the way ab_xmalloc does.
 */
#ifndef AB_ARENA_H
#define AB_ARENA_H

#include <stddef.h>

typedef struct ab_arena {
	struct ab_arena_chunk *chunks;	/* newest first */
	char *next;			/* free space in the newest chunk */
	size_t left;
} ab_arena;

/* n bytes aligned for any type, zeroed. */
void *ab_arena_calloc(ab_arena *a, size_t n);
/* A NUL-terminated copy of s[0..n). */
char *ab_arena_strndup(ab_arena *a, const char *s, size_t n);
/* A NUL-terminated s[0..n) followed by t[0..m). */
char *ab_arena_concat(ab_arena *a, const char *s, size_t n, const char *t, size_t m);
/* Moves every piece of from into into; from is empty afterwards. */
void ab_arena_merge(ab_arena *into, ab_arena *from);
/* Frees every piece; the arena is empty and usable again. */
void ab_arena_clear(ab_arena *a);

#endif
