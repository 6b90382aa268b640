/* openpgp.h - OpenPGP signatures of checksum lists and files, checked
 * with GPGME against the keyrings given with --keyring.
 *
 * Owns a private GnuPG home (made with mkdtemp under $TMPDIR) holding
 * only those keys, the GPGME contexts that use it, and its removal with
 * any agent started for it. Never touches the user's ~/.gnupg, never
 * fetches keys from the network (no dirmngr, no agent autostart), never
 * parses OpenPGP packets itself, never prints.
 */
#ifndef AB_FARMS_OPENPGP_H
#define AB_FARMS_OPENPGP_H

#include <stddef.h>
#include "base/error.h"

typedef struct ab_pgp ab_pgp;

/* Imports the keys of files[0..n) (armored or binary OpenPGP keyrings,
 * as `gpg --import` takes them, and GnuPG keybox files such as a
 * pubring.kbx) into a private GnuPG home. NULL with err (exit 2, the
 * message names the file) when a file cannot be read or holds no public
 * key; exit 3 when GnuPG cannot be run at all.
 * A FILE.gpg with a FILE-revoked beside it (the pacman-key layout of
 * /usr/share/keyrings/archlinux.gpg and archlinux-revoked) has the keys
 * that list names refused, as pacman-key --populate disables them.
 * The first open initialises GPGME, which sets SIGPIPE to SIG_IGN for the
 * whole process when it was SIG_DFL (so that a gpg that exits early
 * cannot kill it): a child that needs the default resets it, as the
 * probe's does. */
ab_pgp *ab_pgp_open(const char *const *files, size_t n, ab_error *err);

/* Verifies sig[0..siglen) (an armored or binary detached signature) over
 * data[0..len). 0 when at least one signature is good and made by a key
 * of the keyrings (signer gets its primary key's fingerprint, upper-case
 * hex, when signer_size > 0); 1 with *why (malloc'd, one line, starting
 * with label) when not: a bad signature (the data was altered), a key
 * not in the keyrings (named by key id or fingerprint), no signature at
 * all, a revoked or expired key. Thread-safe. */
int ab_pgp_verify(ab_pgp *p, const char *data, size_t len, const char *sig, size_t siglen,
		  const char *label, char *signer, size_t signer_size, char **why);
/* The same over the contents of an open file, read from offset 0 with
 * pread (the descriptor's own offset is left alone), streamed. */
int ab_pgp_verify_fd(ab_pgp *p, int fd, const char *sig, size_t siglen, const char *label,
		     char *signer, size_t signer_size, char **why);
/* A clear-signed text (-----BEGIN PGP SIGNED MESSAGE-----): 0 with the
 * signed text alone in *plain, *plain_len (malloc'd, NUL-terminated)
 * when at least one of its signatures is good, 1 with *why otherwise
 * (a text of several signed blocks included). */
int ab_pgp_verify_clearsigned(ab_pgp *p, const char *data, size_t len, const char *label,
			      char **plain, size_t *plain_len, char **why);
/* Says that the keys of p are not the user's --keyring but those taken
 * when none is given (files, "A, B"): a signature by a key not among
 * them is then said to be not in files, with how to pass the farm's. */
void ab_pgp_keys_default(ab_pgp *p, const char *files);
/* The number of public keys in the private home. */
size_t ab_pgp_key_count(ab_pgp *p);
/* Removes the private home, after stopping any gpg-agent or dirmngr
 * started for it (gpgconf --kill all). NULL is allowed. */
void ab_pgp_close(ab_pgp *p);

/* The keyrings Debian packages install for a farm layout that are on
 * this machine: "arch": /usr/share/keyrings/archlinux.gpg (package
 * archlinux-keyring); "koji": the Fedora primary keys of the package
 * distribution-gpg-keys (not in Debian 12, so usually none); others
 * none. *n set; the array and strings are static. */
const char *const *ab_pgp_default_keyrings(const char *layout, size_t *n);

#endif
