/* unpack_private.h - what the three unpack modules share; private to
 * unpack.c (the entry point and plain files), unpack_archive.c
 * (the checked extraction of one archive) and unpack_helper.c (the
 * helper process it runs in). Nothing else includes it.
 */
#ifndef AB_UNPACK_PRIVATE_H
#define AB_UNPACK_PRIVATE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "index/index.h"
#include "pkg/unpack.h"

/* The caps on one artifact. */
struct ab_unpack_limits {
	uint64_t bytes;		/* ARTBISECT_MAX_UNPACKED */
	unsigned long entries;	/* ARTBISECT_MAX_ENTRIES */
};

/* A one-line, quoted-safe copy of a name or a library message (controls,
 * invalid UTF-8, backslash and quote escaped; cut past 400 bytes). */
char *ab_unpack_shown(const char *s);
/* Errors that come from this machine (disk full...), not from the archive. */
bool ab_unpack_local_errno(int e);
/* write(2) until done; -1 with errno on failure. */
int ab_unpack_write_all(int fd, const void *data, size_t len);

/* In the helper process: changes into root and extracts the archive src
 * (path names it in messages) with every check. *code gets the exit
 * status for AB_UNPACK_ERROR, *text the reason or message (or NULL). */
ab_unpack_rc ab_unpack_archive_here(int src, ab_artifact_type type, const char *path,
				    const char *root, const struct ab_unpack_limits *lim,
				    int *code, char **text);

/* In the parent: runs ab_unpack_archive_here in a helper process and
 * reads back its result; stopped when *cancel turns non-zero. On REFUSED
 * *text gets the reason. */
ab_unpack_rc ab_unpack_in_helper(int src, ab_artifact_type type, const char *path,
				 const char *root, const struct ab_unpack_limits *lim,
				 const volatile sig_atomic_t *cancel, char **text, ab_error *err);

#endif
