/* deb.c - see deb.h. (stub: being written) */
#include "config.h"
#include "deb.h"
#include "util.h"

ab_deb_rc ab_deb_read_info(const char *path, ab_pkg_info *info, char **reason, ab_error *err)
{ (void)path; (void)info; (void)err; *reason = ab_xstrdup("not implemented yet"); return AB_DEB_REFUSED; }
