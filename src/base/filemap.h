/* filemap.h - a big local file read in place, without copying it.
 *
 * Owns a read-only mapping of one file and the SIGBUS handler that keeps
 * a file cut short under the mapping (a farm truncating its index while
 * it is read) from killing the program: the pages past the cut read as
 * zeros and the map then says it changed. Maps only what it can watch:
 * a regular file on a local disk file system, not written in the last
 * moments. Never prints; callers read the file another way when
 * ab_filemap_open says no.
 */
#ifndef AB_FILEMAP_H
#define AB_FILEMAP_H

#include <stddef.h>

typedef struct ab_filemap ab_filemap;

/* path mapped, or NULL (errno set) when it cannot or should not be: not
 * a regular file, smaller than min or larger than max bytes, on a file
 * system not known to be local, or modified so recently that a change
 * made now could keep its time stamps. */
ab_filemap *ab_filemap_open(const char *path, size_t min, size_t max);
const char *ab_filemap_data(const ab_filemap *m);
size_t ab_filemap_len(const ab_filemap *m);
/* Whether the file may no longer hold what the mapping showed when it
 * was opened: cut short under it, or written since (its size, change
 * or modification time moved). A file replaced by rename is unchanged:
 * the map holds the old one. */
int ab_filemap_changed(const ab_filemap *m);
void ab_filemap_close(ab_filemap *m);

#endif
