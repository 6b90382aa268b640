/* rpmpkg.c - see rpmpkg.h. */
#include "config.h"
#include <stdlib.h>
#include "i18n.h"
#include "rpmpkg.h"
#include "util.h"

int ab_rpm_init(ab_error *err) { (void)err; return 0; }
ab_rpm_keyring *ab_rpm_keyring_load(const char *const *files, size_t n, ab_error *err)
{ (void)files; (void)n; ab_error_set(err, AB_EXIT_USAGE, "--keyring: not implemented yet"); return NULL; }
void ab_rpm_keyring_free(ab_rpm_keyring *kr) { (void)kr; }
ab_rpm_rc ab_rpm_read_info(const char *path, ab_pkg_info *info, char **reason, ab_error *err)
{ (void)path; (void)info; (void)err; *reason = ab_xstrdup("not implemented yet"); return AB_RPM_REFUSED; }
ab_rpm_rc ab_rpm_verify(const char *path, const ab_rpm_keyring *kr, char **reason, ab_error *err)
{ (void)path; (void)kr; (void)err; *reason = ab_xstrdup("not implemented yet"); return AB_RPM_REFUSED; }
ab_rpm_rc ab_rpm_install(const char *const *paths, size_t n, const char *root,
			 const ab_rpm_keyring *kr, char **reason, ab_error *err)
{ (void)paths; (void)n; (void)root; (void)kr; (void)err; *reason = ab_xstrdup("not implemented yet"); return AB_RPM_REFUSED; }
