/* rpmpkg.h - RPM packages through librpm: header facts, digest and
 * signature checks against a private keyring, and installing into a
 * scratch root with a real transaction.
 *
 * Owns everything librpm does for artbisect. Never touches the system's
 * rpm database or keyring, never unpacks (unpack.c does, after
 * ab_rpm_verify said yes) and never prints: rpm's own log lines are
 * captured and turned into reasons. Safe from any thread: the calls
 * below take turns.
 */
#ifndef AB_RPMPKG_H
#define AB_RPMPKG_H

#include <stddef.h>
#include "base/error.h"
#include "pkg/pkginfo.h"

/* Once per process, before any other call: reads rpm's configuration. */
int ab_rpm_init(ab_error *err);

/* At exit: frees rpm's configuration and macros (leak checkers then see
 * a clean process). No call may follow but ab_rpm_init. */
void ab_rpm_cleanup(void);

typedef struct ab_rpm_keyring ab_rpm_keyring;

/* Reads ASCII-armored OpenPGP public keys (as rpmkeys --import takes
 * them), subkeys included. NULL with err (exit 2) naming the file. */
ab_rpm_keyring *ab_rpm_keyring_load(const char *const *files, size_t n, ab_error *err);
void ab_rpm_keyring_free(ab_rpm_keyring *kr);

typedef enum ab_rpm_rc {
	AB_RPM_OK = 0,
	AB_RPM_REFUSED,		/* not an rpm, damaged, bad or missing signature: reason */
	AB_RPM_ERROR,		/* local failure: err */
} ab_rpm_rc;

/* Reads the header: name, epoch, version, release, arch, build time, VCS
 * tag and the commit found in it or in the release. Checks the header's
 * own digests, not the payload. */
ab_rpm_rc ab_rpm_read_info(const char *path, ab_pkg_info *info, char **reason,
			   ab_error *err);

/* Checks header and payload digests; with a keyring (not NULL) also
 * requires a signature that verifies against one of its keys. REFUSED
 * with a reason a person understands: "payload digest BAD", "signed by
 * unknown key 1964c5fc (NOKEY)", "not signed". */
ab_rpm_rc ab_rpm_verify(const char *path, const ab_rpm_keyring *kr, char **reason,
			ab_error *err);

/* The argument that makes a program that may install RPMs run as
 * ab_rpm_install's helper (its private protocol); every main() that
 * may install calls ab_rpm_install_helper_main when argv[1] is it. */
#define AB_RPM_HELPER_ARG "--internal-rpm-install-helper=" PACKAGE_VERSION
int ab_rpm_install_helper_main(int argc, char **argv);

/* Installs the packages into root (created if needed) with one rpm
 * transaction: its own database under root, no dependency check,
 * scriptlets run chrooted into root. Needs root or user namespaces:
 * REFUSED with that reason otherwise. */
ab_rpm_rc ab_rpm_install(const char *const *paths, size_t n, const char *root,
			 const ab_rpm_keyring *kr, char **reason, ab_error *err);

/* Erases the installed packages whose NAME-[EPOCH:]VERSION-RELEASE.ARCH
 * or NAME-VERSION-RELEASE is exactly one of names[] from the database in
 * root/var/lib/rpm; a bare NAME matches nothing. */
ab_rpm_rc ab_rpm_erase(const char *const *names, size_t n, const char *root, char **reason,
		       ab_error *err);

#endif
