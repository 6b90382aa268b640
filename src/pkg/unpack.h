/* unpack.h - puts a verified artifact into a scratch root.
 *
 * Owns secure extraction with libarchive (tar in any compression it
 * reads, zip, cpio) and the copying of plain files. Refuses any entry
 * that would land outside the root: "..", absolute paths, writes through
 * symlinks, hard links out of the root, device nodes; archives past the
 * caps (bytes, every entry counting 4 KiB; entries, ARTBISECT_MAX_ENTRIES;
 * 512 path components deep). Drops setuid and
 * setgid bits and never changes ownership, even as root. Never prints,
 * never downloads, and never sees bytes that were not verified first.
 */
#ifndef AB_UNPACK_H
#define AB_UNPACK_H

#include <signal.h>
#include "base/error.h"
#include "index/index.h"

typedef enum ab_unpack_rc {
	AB_UNPACK_OK = 0,
	AB_UNPACK_REFUSED,	/* unsafe entry or damaged archive: *reason says */
	AB_UNPACK_ERROR,	/* local failure (disk full...): err says, exit 3 */
} ab_unpack_rc;

/* Unpacks (or copies, for AB_ART_FILE) the file at path into root, which
 * must exist. filename is the artifact's name, used for copied files.
 * On REFUSED *reason names the entry, e.g.
 * "unsafe entry '../../etc/passwd': path leaves the root"; caller frees. */
ab_unpack_rc ab_unpack(const char *path, ab_artifact_type type,
		       const char *filename, const char *root,
		       char **reason, ab_error *err);

/* The same, stopped (AB_UNPACK_ERROR, err->code AB_EXIT_ABORTED) within
 * a tenth of a second once *cancel turns non-zero; the root is then
 * partly filled, and the caller's to remove. */
ab_unpack_rc ab_unpack_cancellable(const char *path, ab_artifact_type type,
				   const char *filename, const char *root,
				   const volatile sig_atomic_t *cancel,
				   char **reason, ab_error *err);

/* The helper process that does the extraction is artbisect-unpack when
 * it is installed with this program (or sits beside it, in the build
 * tree), else this program executed again; either way with argv[1] ==
 * AB_UNPACK_HELPER_ARG: every main() that may unpack calls
 * ab_unpack_helper_main() first thing when it sees it. The version in
 * the argument keeps a helper of another build from taking the job. */
#define AB_UNPACK_HELPER_ARG "--internal-unpack-helper=" PACKAGE_VERSION
int ab_unpack_helper_main(int argc, char **argv);

#endif
