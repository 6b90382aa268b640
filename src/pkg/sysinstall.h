/* sysinstall.h - a candidate kernel on the real machine (--install system).
 *
 * Owns installing a build's kernel packages into the system root (an rpm
 * transaction through librpm, dpkg for .debs), making that kernel the
 * default for the next boot only (bootctl set-oneshot, grub2-reboot or
 * grub-reboot, whichever the system has), and removing what was
 * installed. Never makes a candidate the permanent default, never
 * removes the kernel that is running. Never prints: results and reasons
 * go back to the caller.
 */
#ifndef AB_SYSINSTALL_H
#define AB_SYSINSTALL_H

#include <stddef.h>
#include "base/error.h"
#include "index/index.h"

struct ab_rpm_keyring;

/* The `uname -r` a kernel build will have, guessed from its package file
 * names (kernel-core-6.8.5-301.fc40.x86_64.rpm -> 6.8.5-301.fc40.x86_64;
 * linux-image-6.1.0-13-amd64_6.1.55-1_amd64.deb -> 6.1.0-13-amd64), or
 * NULL: for reports, before anything is downloaded. Installing reads it
 * off the packages themselves. Caller frees. */
char *ab_kernel_release(const ab_build *bd);

/* Installs the build's packages (paths, verified files in the cache)
 * into sysroot. 0 with *installed (what removing them takes, read off
 * the packages themselves: rpm NEVRAs or .deb package names,
 * space-separated) and *release (the uname -r of the kernel package
 * among them, or NULL); 1 with *reason when the packages were refused
 * (one whose name rpm or dpkg would not take, too); -1 with err. */
int ab_sys_install(const ab_build *bd, const char *const *paths, size_t n, const char *sysroot,
		   const struct ab_rpm_keyring *kr, char **installed, char **release,
		   char **reason, ab_error *err);

/* Makes kernel release the default for the next boot only. 0 with *how
 * (the command run), 1 with *how saying what to do by hand when no boot
 * loader tool is found, -1 with err when the tool failed. */
int ab_sys_oneshot(const char *sysroot, const char *release, char **how, ab_error *err);

/* Removes packages (names as ab_sys_install gave them) of type
 * AB_ART_RPM or AB_ART_DEB from sysroot. 0, or -1 with err. */
int ab_sys_remove(const char *sysroot, ab_artifact_type type, const char *names, ab_error *err);

/* The release of the kernel running the system: uname -r for "/", the
 * contents of DIR/proc/sys/kernel/osrelease for another root. NULL when
 * unknown. Caller frees. */
char *ab_sys_running_release(const char *sysroot);

/* Reboots the machine (systemctl reboot, or reboot). 0, or -1 with err. */
int ab_sys_reboot(ab_error *err);

#endif
