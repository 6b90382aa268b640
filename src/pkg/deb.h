/* deb.h - Debian packages (.deb) read with libarchive, no dpkg needed.
 *
 * Owns reading the ar container and the control member: package name,
 * version and architecture. Unpacking the data member is unpack.c's job
 * (with the same secure rules as any archive). Never prints.
 */
#ifndef AB_DEB_H
#define AB_DEB_H

#include "base/error.h"
#include "pkg/pkginfo.h"

typedef enum ab_deb_rc {
	AB_DEB_OK = 0,
	AB_DEB_REFUSED,		/* not a .deb, or its control is damaged: reason */
	AB_DEB_ERROR,		/* local failure: err */
} ab_deb_rc;

/* Fills info (kind AB_PKG_DEB): name from Package, epoch and version
 * from Version, arch from Architecture, commit from a git<hex> part of
 * the version or a commit field in control when there is one. */
ab_deb_rc ab_deb_read_info(const char *path, ab_pkg_info *info, char **reason,
			   ab_error *err);

#endif
