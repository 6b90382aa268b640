/* unpack-fixture.h - the sandbox of test-unpack and test-rmtree, and
 * archives made to order in it. Owns the sandbox's paths; never judges a
 * result (the tests do, each with its own TAP counter). */
#ifndef AB_TEST_UNPACK_FIXTURE_H
#define AB_TEST_UNPACK_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* SANDBOX/root is unpacked into; SANDBOX/outside must never change;
 * SANDBOX/archives holds what build() writes. */
extern char *sandbox, *root, *outside, *arcdir;

enum { F = 'f', D = 'd', L = 'l', H = 'h', C = 'c', B = 'b', P = 'p', S = 's' };

struct ent {
	const char *name;
	char type;		/* F file, D dir, L symlink, H hard link, C/B device, P fifo, S sparse */
	int perm;
	const char *data;	/* file contents, or symlink / hard link target */
	int64_t size;		/* F without data: this many pseudo-random bytes; S: declared size */
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

bool fixture_open(const char *name);
void fixture_close(void);

/* n pseudo-random bytes, the same each time. */
unsigned char *noise(size_t n);
/* Writes ARCDIR/file (*out: its path); 1 when done, 0 when this
 * libarchive cannot write that format or filter, -1 on failure. */
int build(const char *file, const char *format, const char *filter,
	  const struct ent *ents, size_t n, char **out);
/* ARCDIR/file holding these bytes. */
char *write_bytes(const char *file, const void *data, size_t len);

/* Everything in the sandbox but the root, with /etc/passwd's state. */
char *snapshot(void);
void fresh_root(void);
char *in_root(const char *rel);
bool one_clean_line(const char *s);
bool exists_in(const char *dir, const char *rel);
mode_t mode_of(const char *rel);
char *file_text(const char *rel);

#endif
