/* rmtree.h - removes a directory tree: scratch roots, the roots of a
 * session.
 *
 * Owns the one way artbisect deletes a tree a probe has had in its
 * hands: rm -rf that never leaves the tree's own mount (as
 * rm --one-file-system, with a bind mount of the same file system
 * counted as another mount too), never follows a symlink, makes 0555
 * directories writable first, and walks iteratively: four descriptors
 * and a stack on the heap, whatever the depth. What it cannot remove (a
 * mount point, a file it may not unlink) stays where it is and is named.
 * Never prints.
 */
#ifndef AB_RMTREE_H
#define AB_RMTREE_H

#include "base/error.h"

/* Removes path and everything under it. 0 when nothing of it is left
 * (or there was nothing); -1 with errno (EBUSY for a mount) and err
 * (exit 3) when something could not be removed: one line, "cannot
 * remove PATH: another file system is mounted there", naming the first
 * place and counting the others. A path that is itself a mount point
 * (not on its parent's mount) is left whole. err may be NULL. */
int ab_remove_tree_err(const char *path, ab_error *err);
/* The same without the message. */
int ab_remove_tree(const char *path);

#endif
