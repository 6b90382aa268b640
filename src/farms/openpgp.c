/* openpgp.c - OpenPGP signatures checked with GPGME in a private GnuPG
 * home that holds the --keyring keys and nothing else (see openpgp.h).
 *
 * Trust: the home is made for this run and only the keyrings the user
 * named (or the distribution keyring the layout names) are imported into
 * it, so naming a keyring is the statement of trust. gpg.conf says
 * "trust-model always" and a signature counts when its status is
 * GPG_ERR_NO_ERROR, whatever its web-of-trust validity: there is no
 * ultimately trusted key in the home to give any key a validity, and
 * setting ownertrust on every imported key would say the same thing in
 * a slower way. What gpg reports about the key itself (revoked,
 * expired, wrong usage) and a FILE-revoked list beside a keyring still
 * refuse it. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <pthread.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gpgme.h>

#include "farms/openpgp.h"
#include "base/i18n.h"
#include "base/rmtree.h"
#include "base/util.h"

extern char **environ;

/* A keyring bigger than this is not a keyring (archlinux.gpg: 1.7 MB). */
#define KEYRING_MAX ((size_t)64 << 20)
#define ARCH_KEYRING "/usr/share/keyrings/archlinux.gpg"
#define FEDORA_KEYS "/usr/share/distribution-gpg-keys/fedora/RPM-GPG-KEY-fedora-*-primary"

/* No network (no dirmngr, no key retrieval) and no agent started for a
 * home that only verifies; trust as the comment at the top says. */
static const char gpg_conf[] =
	"# written by artbisect: a home that only verifies signatures\n"
	"no-autostart\n"
	"disable-dirmngr\n"
	"no-auto-key-retrieve\n"
	"trust-model always\n";

struct ab_pgp {
	pthread_mutex_t lock;
	char *home;
	gpgme_ctx_t ctx;	/* verifying */
	gpgme_ctx_t kctx;	/* key look-ups while a verify result is read */
	char **revoked;		/* upper-case fingerprints from FILE-revoked */
	size_t nrevoked;
	char *default_keys;	/* the keyrings taken without --keyring, or NULL */
};

static pthread_once_t gpgme_once = PTHREAD_ONCE_INIT;

static void gpgme_init(void)
{
	gpgme_check_version(NULL);
}

static const char *tmp_dir(void)
{
	const char *t = getenv("TMPDIR");

	return t && *t == '/' ? t : "/tmp";
}

/* gpgconf --homedir HOME WHAT [ARG]; waits for it; its output goes
 * nowhere. */
static void gpgconf_run(const char *home, const char *what, const char *arg)
{
	const char *gpgconf = gpgme_get_dirinfo("gpgconf-name");
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	char *argv[] = { (char *)"gpgconf", (char *)"--homedir", (char *)home, (char *)what,
			 (char *)arg, NULL };
	pid_t pid;
	int st;

	if (!gpgconf || *gpgconf != '/' || access(gpgconf, X_OK) != 0)
		return;
	if (posix_spawn_file_actions_init(&fa) != 0)
		return;
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	ab_spawnattr_pipe_default(&attr);
	if (posix_spawn(&pid, gpgconf, &fa, &attr, argv, environ) == 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
}

/* Stops what gpg may have started for home (nothing, with no-autostart,
 * unless the user's own setup started an agent there), then removes the
 * socket directory gpg makes for a home of its own under
 * /run/user/UID/gnupg (d.HASH) when the user has that directory, as a
 * logged-in user does: it would be left there after every run. */
static void kill_daemons(const char *home)
{
	gpgconf_run(home, "--kill", "all");
	gpgconf_run(home, "--remove-socketdir", NULL);
}

static int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wbx");
	int rc = 0;

	if (!f)
		return -1;
	if (len && fwrite(data, 1, len, f) != len)
		rc = -1;
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

/* A fresh home under $TMPDIR with our gpg.conf. NULL with err. */
static char *make_home(ab_error *err)
{
	char *home = ab_xasprintf("%s/artbisect-gpg.XXXXXX", tmp_dir()), *conf;
	int e;

	if (!mkdtemp(home)) {
		e = errno;
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot make a private GnuPG home in %s: %s"),
			     tmp_dir(), strerror(e));
		free(home);
		return NULL;
	}
	conf = ab_path_join(home, "gpg.conf");
	if (write_file(conf, gpg_conf, sizeof gpg_conf - 1) < 0) {
		e = errno;
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot write %s: %s"), conf, strerror(e));
		free(conf);
		ab_remove_tree(home);
		free(home);
		return NULL;
	}
	free(conf);
	return home;
}

static void drop_home(char *home)
{
	if (!home)
		return;
	kill_daemons(home);
	ab_remove_tree(home);
	free(home);
}

static gpgme_ctx_t new_ctx(const char *home, ab_error *err)
{
	gpgme_ctx_t ctx;
	gpgme_error_t e;

	if ((e = gpgme_new(&ctx))) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot start GPGME: %s"), gpgme_strerror(e));
		return NULL;
	}
	if ((e = gpgme_set_protocol(ctx, GPGME_PROTOCOL_OpenPGP)) ||
	    (e = gpgme_ctx_set_engine_info(ctx, GPGME_PROTOCOL_OpenPGP, NULL, home))) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot use GnuPG in %s: %s"), home,
			     gpgme_strerror(e));
		gpgme_release(ctx);
		return NULL;
	}
	gpgme_set_offline(ctx, 1);
	return ctx;
}

static bool is_keybox(const char *data, size_t len)
{
	/* The first blob of a keybox: length, type 1, version 1, flags,
	 * then the magic. */
	return len >= 12 && data[4] == 1 && memcmp(data + 8, "KBXf", 4) == 0;
}

/* The public keys of a keybox, exported armoured-or-not by a gpg run on
 * a copy of it in a home of its own (gpg --import takes no keybox, and
 * pointing gpg at the file itself would leave lock files beside it). 0
 * with *out, -1 with err. */
static int export_keybox(const char *file, const char *data, size_t len, gpgme_data_t *out,
			 ab_error *err)
{
	char *home, *kbx;
	gpgme_ctx_t ctx;
	gpgme_error_t e;
	int rc = -1;

	if (!(home = make_home(err)))
		return -1;
	kbx = ab_path_join(home, "pubring.kbx");
	if (write_file(kbx, data, len) < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot write %s: %s"), kbx, strerror(errno));
		goto out;
	}
	if (!(ctx = new_ctx(home, err)))
		goto out;
	if ((e = gpgme_data_new(out))) {
		ab_error_set(err, AB_EXIT_FAILURE, "%s: %s", file, gpgme_strerror(e));
	} else if ((e = gpgme_op_export(ctx, NULL, 0, *out))) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: cannot read the keys of this keybox: %s"),
			     file, gpgme_strerror(e));
		gpgme_data_release(*out);
		*out = NULL;
	} else {
		gpgme_data_seek(*out, 0, SEEK_SET);
		rc = 0;
	}
	gpgme_release(ctx);
out:
	free(kbx);
	drop_home(home);
	return rc;
}

static int import_file(ab_pgp *p, const char *file, ab_error *err)
{
	char *data = NULL;
	size_t len = 0;
	gpgme_data_t d = NULL;
	gpgme_import_result_t r;
	gpgme_error_t e;
	ab_error rerr = {0};
	int rc = -1;

	if (ab_read_file(file, KEYRING_MAX, &data, &len, &rerr) < 0) {
		ab_error_set(err, AB_EXIT_USAGE, _("cannot read the keyring: %s"), rerr.msg);
		return -1;
	}
	if (len == 0) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: no OpenPGP public key in it (empty file)"),
			     file);
		goto out;
	}
	if (is_keybox(data, len)) {
		if (export_keybox(file, data, len, &d, err) < 0)
			goto out;
	} else if ((e = gpgme_data_new_from_mem(&d, data, len, 0))) {
		ab_error_set(err, AB_EXIT_FAILURE, "%s: %s", file, gpgme_strerror(e));
		goto out;
	}
	e = gpgme_op_import(p->ctx, d);
	r = e ? NULL : gpgme_op_import_result(p->ctx);
	if (!r || r->imported + r->unchanged == 0) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: no OpenPGP public key in it%s%s"), file,
			     e ? ": " : "", e ? gpgme_strerror(e) : "");
		goto out;
	}
	rc = 0;
out:
	gpgme_data_release(d);
	free(data);
	return rc;
}

static bool is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789abcdefABCDEF", s[i]))
			return false;
	return true;
}

/* FILE.gpg with FILE-revoked beside it: one fingerprint a line, the keys
 * pacman-key --populate disables. */
static void read_revoked(ab_pgp *p, const char *file)
{
	size_t fl = strlen(file), len, i;
	char *path, *data = NULL, *line, *save = NULL;

	if (fl < 5 || strcmp(file + fl - 4, ".gpg") != 0)
		return;
	path = ab_xasprintf("%.*s-revoked", (int)(fl - 4), file);
	if (ab_read_file(path, KEYRING_MAX, &data, &len, NULL) < 0) {
		free(path);
		return;
	}
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t n = strcspn(line, ": \t\r");

		if ((n != 40 && n != 64) || !is_hex(line, n))
			continue;
		p->revoked = ab_xrealloc(p->revoked, (p->nrevoked + 1) * sizeof *p->revoked);
		p->revoked[p->nrevoked] = ab_xstrndup(line, n);
		for (i = 0; i < n; i++)
			if (line[i] >= 'a' && line[i] <= 'f')
				p->revoked[p->nrevoked][i] = (char)(line[i] - 'a' + 'A');
		p->nrevoked++;
	}
	free(data);
	free(path);
}

ab_pgp *ab_pgp_open(const char *const *files, size_t n, ab_error *err)
{
	ab_pgp *p;
	gpgme_error_t e;
	size_t i;

	pthread_once(&gpgme_once, gpgme_init);
	if ((e = gpgme_engine_check_version(GPGME_PROTOCOL_OpenPGP))) {
		ab_error_set(err, AB_EXIT_FAILURE,
			     _("cannot check OpenPGP signatures: GnuPG (gpg) cannot be run (%s); install gnupg"),
			     gpgme_strerror(e));
		return NULL;
	}
	p = ab_xcalloc(1, sizeof *p);
	pthread_mutex_init(&p->lock, NULL);
	if (!(p->home = make_home(err)) || !(p->ctx = new_ctx(p->home, err)) ||
	    !(p->kctx = new_ctx(p->home, err)))
		goto fail;
	for (i = 0; i < n; i++) {
		if (import_file(p, files[i], err) < 0)
			goto fail;
		read_revoked(p, files[i]);
	}
	return p;
fail:
	ab_pgp_close(p);
	return NULL;
}

void ab_pgp_close(ab_pgp *p)
{
	size_t i;

	if (!p)
		return;
	if (p->ctx)
		gpgme_release(p->ctx);
	if (p->kctx)
		gpgme_release(p->kctx);
	drop_home(p->home);
	for (i = 0; i < p->nrevoked; i++)
		free(p->revoked[i]);
	free(p->revoked);
	free(p->default_keys);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

void ab_pgp_keys_default(ab_pgp *p, const char *files)
{
	free(p->default_keys);
	p->default_keys = files ? ab_xstrdup(files) : NULL;
}

/* A signature by key fpr that none of p's keys made. */
static char *unknown_key(const ab_pgp *p, const char *label, const char *fpr)
{
	if (p->default_keys)
		return ab_xasprintf(_("%s: signed by a key not in %s (%s), the keys used when no --keyring is given: pass --keyring FILE with the farm's signing key"),
				    label, p->default_keys, fpr);
	return ab_xasprintf(_("%s: signed by a key not in --keyring (%s)"), label, fpr);
}

size_t ab_pgp_key_count(ab_pgp *p)
{
	gpgme_key_t key;
	size_t n = 0;

	pthread_mutex_lock(&p->lock);
	if (gpgme_op_keylist_start(p->kctx, NULL, 0) == 0) {
		while (gpgme_op_keylist_next(p->kctx, &key) == 0) {
			n++;
			gpgme_key_unref(key);
		}
		gpgme_op_keylist_end(p->kctx);
	}
	pthread_mutex_unlock(&p->lock);
	return n;
}

static bool in_revoked(const ab_pgp *p, const char *fpr)
{
	for (size_t i = 0; i < p->nrevoked; i++)
		if (strcasecmp(p->revoked[i], fpr) == 0)
			return true;
	return false;
}

/* Why one signature does not count, or NULL when it does. */
static char *sig_problem(const ab_pgp *p, const char *label, gpgme_signature_t s)
{
	const char *fpr = s->fpr ? s->fpr : "?";
	gpgme_err_code_t st = gpgme_err_code(s->status);
	unsigned bad = GPGME_SIGSUM_RED | GPGME_SIGSUM_KEY_REVOKED | GPGME_SIGSUM_KEY_EXPIRED |
		       GPGME_SIGSUM_SIG_EXPIRED | GPGME_SIGSUM_KEY_MISSING;

	if (st == GPG_ERR_NO_ERROR && !(s->summary & bad) && !s->wrong_key_usage)
		return NULL;
	if (st == GPG_ERR_NO_PUBKEY || (s->summary & GPGME_SIGSUM_KEY_MISSING))
		return unknown_key(p, label, fpr);
	if (st == GPG_ERR_BAD_SIGNATURE)
		return ab_xasprintf(_("%s: BAD signature by key %s: the data is not what was signed (altered, or another file)"),
				    label, fpr);
	if (st == GPG_ERR_CERT_REVOKED || (s->summary & GPGME_SIGSUM_KEY_REVOKED))
		return ab_xasprintf(_("%s: signed by key %s, which has been revoked"), label, fpr);
	if (st == GPG_ERR_KEY_EXPIRED || (s->summary & GPGME_SIGSUM_KEY_EXPIRED))
		return ab_xasprintf(_("%s: signed by key %s, which has expired"), label, fpr);
	if (st == GPG_ERR_SIG_EXPIRED || (s->summary & GPGME_SIGSUM_SIG_EXPIRED))
		return ab_xasprintf(_("%s: the signature by key %s has expired"), label, fpr);
	if (s->wrong_key_usage)
		return ab_xasprintf(_("%s: signed by key %s, which may not make signatures"), label,
				    fpr);
	return ab_xasprintf(_("%s: the signature by key %s cannot be checked: %s"), label, fpr,
			    gpgme_strerror(s->status));
}

/* Runs the verify (p->lock held) and judges its signatures: 0 when at
 * least one counts (every one, with all), 1 with *why. */
static int verify_locked(ab_pgp *p, gpgme_data_t sigd, gpgme_data_t text, gpgme_data_t plain,
			 bool all, const char *label, char *signer, size_t signer_size, char **why)
{
	gpgme_verify_result_t res;
	gpgme_signature_t s;
	gpgme_error_t e;
	gpgme_key_t key;
	char *first = NULL, *problem;
	size_t good = 0;

	*why = NULL;
	e = gpgme_op_verify(p->ctx, sigd, text, plain);
	if (e) {
		gpgme_err_code_t c = gpgme_err_code(e);

		res = gpgme_op_verify_result(p->ctx);
		if (c == GPG_ERR_NO_DATA)
			*why = ab_xasprintf(_("%s: not an OpenPGP signature"), label);
		else if (!res || !res->signatures)
			*why = ab_xasprintf(_("%s: not an OpenPGP signature (%s)"), label,
					    gpgme_strerror(e));
		else
			*why = ab_xasprintf(_("%s: the signature cannot be checked: %s"), label,
					    gpgme_strerror(e));
		return 1;
	}
	res = gpgme_op_verify_result(p->ctx);
	if (!res || !res->signatures) {
		*why = ab_xasprintf(_("%s: not an OpenPGP signature"), label);
		return 1;
	}
	for (s = res->signatures; s; s = s->next) {
		problem = sig_problem(p, label, s);
		/* The primary key, for the signer's name and the -revoked
		 * list: the signature may name a subkey. */
		if (!problem && gpgme_get_key(p->kctx, s->fpr, &key, 0) != 0)
			problem = unknown_key(p, label, s->fpr);
		else if (!problem) {
			if (!key->fpr || key->revoked || key->disabled || key->invalid || in_revoked(p, key->fpr))
				problem = ab_xasprintf(_("%s: signed by key %s, which has been revoked"),
						       label, key->fpr ? key->fpr : s->fpr);
			else if (good++ == 0 && signer_size > 0)
				snprintf(signer, signer_size, "%s", key->fpr);
			gpgme_key_unref(key);
		}
		if (problem && !first)
			first = problem;
		else
			free(problem);
	}
	if (good > 0 && (!all || !first)) {
		free(first);
		return 0;
	}
	if (signer_size > 0)
		signer[0] = '\0';
	*why = first ? first : ab_xasprintf(_("%s: not an OpenPGP signature"), label);
	return 1;
}

static const char *label_or(const char *label)
{
	return label ? label : "signature";
}

/* Checks the detached signature sig over the data td; td_err is the
 * error from making td, if any. Releases td. */
static int verify_detached(ab_pgp *p, gpgme_error_t td_err, gpgme_data_t td, const char *sig,
			   size_t siglen, const char *label, char *signer, size_t signer_size,
			   char **why)
{
	gpgme_data_t sd = NULL;
	int rc;

	label = label_or(label);
	/* GPGME takes no NULL buffer, even of no bytes. */
	if (td_err || gpgme_data_new_from_mem(&sd, sig ? sig : "", siglen, 0)) {
		gpgme_data_release(td);
		*why = ab_xasprintf(_("%s: not an OpenPGP signature"), label);
		return 1;
	}
	pthread_mutex_lock(&p->lock);
	rc = verify_locked(p, sd, td, NULL, false, label, signer, signer_size, why);
	pthread_mutex_unlock(&p->lock);
	gpgme_data_release(sd);
	gpgme_data_release(td);
	return rc;
}

int ab_pgp_verify(ab_pgp *p, const char *data, size_t len, const char *sig, size_t siglen,
		  const char *label, char *signer, size_t signer_size, char **why)
{
	gpgme_data_t td = NULL;
	gpgme_error_t e = gpgme_data_new_from_mem(&td, data ? data : "", len, 0);

	return verify_detached(p, e, td, sig, siglen, label, signer, signer_size, why);
}

/* The file behind a descriptor, read with pread from its own offset so
 * that the descriptor's is left as it was. */
struct fd_src {
	int fd;
	off_t off;
};

static ssize_t fd_src_read(void *h, void *buf, size_t size)
{
	struct fd_src *s = h;
	ssize_t n;

	do
		n = pread(s->fd, buf, size, s->off);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		s->off += n;
	return n;
}

static off_t fd_src_seek(void *h, off_t off, int whence)
{
	struct fd_src *s = h;
	struct stat st;

	switch (whence) {
	case SEEK_SET:
		break;
	case SEEK_CUR:
		off += s->off;
		break;
	case SEEK_END:
		if (fstat(s->fd, &st) < 0)
			return -1;
		off += st.st_size;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	if (off < 0) {
		errno = EINVAL;
		return -1;
	}
	return s->off = off;
}

int ab_pgp_verify_fd(ab_pgp *p, int fd, const char *sig, size_t siglen, const char *label,
		     char *signer, size_t signer_size, char **why)
{
	struct gpgme_data_cbs cbs = { .read = fd_src_read, .seek = fd_src_seek };
	struct fd_src src = { .fd = fd, .off = 0 };
	gpgme_data_t td = NULL;
	gpgme_error_t e = gpgme_data_new_from_cbs(&td, &cbs, &src);

	/* src lives until verify_detached has released td */
	return verify_detached(p, e, td, sig, siglen, label, signer, signer_size, why);
}

static bool has_clearsign_header(const char *data, size_t len)
{
	static const char hdr[] = "-----BEGIN PGP SIGNED MESSAGE-----";
	const size_t hl = sizeof hdr - 1;
	size_t i = 0;

	while (i + hl <= len) {
		if (memcmp(data + i, hdr, hl) == 0)
			return true;
		const char *nl = memchr(data + i, '\n', len - i);
		if (!nl)
			break;
		i = (size_t)(nl - data) + 1;
	}
	return false;
}

int ab_pgp_verify_clearsigned(ab_pgp *p, const char *data, size_t len, const char *label,
			      char **plain, size_t *plain_len, char **why)
{
	gpgme_data_t sd = NULL, pd = NULL;
	char *out;
	size_t n = 0;
	int rc;

	label = label_or(label);
	*plain = NULL;
	*plain_len = 0;
	if (!data || !has_clearsign_header(data, len)) {
		*why = ab_xasprintf(_("%s: not a clear-signed text (no -----BEGIN PGP SIGNED MESSAGE----- line)"),
				    label);
		return 1;
	}
	if (gpgme_data_new_from_mem(&sd, data, len, 0) || gpgme_data_new(&pd)) {
		gpgme_data_release(sd);
		*why = ab_xasprintf(_("%s: not an OpenPGP signature"), label);
		return 1;
	}
	pthread_mutex_lock(&p->lock);
	/* One good signature is enough, as for a detached one: Ubuntu's
	 * InRelease carries two, and a user may hold one of the keys. gpg
	 * itself refuses a text of several signed blocks ("multiple
	 * plaintexts"), so one good block never vouches for another. */
	rc = verify_locked(p, sd, NULL, pd, false, label, NULL, 0, why);
	pthread_mutex_unlock(&p->lock);
	gpgme_data_release(sd);
	out = gpgme_data_release_and_get_mem(pd, &n);
	if (rc == 0) {
		*plain = ab_xmalloc(n + 1);
		if (n)
			memcpy(*plain, out, n);
		(*plain)[n] = '\0';
		*plain_len = n;
	}
	gpgme_free(out);
	return rc;
}

static pthread_once_t fedora_once = PTHREAD_ONCE_INIT;
static glob_t fedora_glob;
static bool fedora_found;

static void find_fedora(void)
{
	fedora_found = glob(FEDORA_KEYS, 0, NULL, &fedora_glob) == 0;
}

const char *const *ab_pgp_default_keyrings(const char *layout, size_t *n)
{
	static const char *const arch[] = { ARCH_KEYRING };

	*n = 0;
	if (!layout)
		return NULL;
	if (strcmp(layout, "arch") == 0) {
		if (access(ARCH_KEYRING, R_OK) == 0)
			*n = 1;
		return arch;
	}
	if (strcmp(layout, "koji") == 0) {
		pthread_once(&fedora_once, find_fedora);
		if (!fedora_found)
			return NULL;
		*n = fedora_glob.gl_pathc;
		return (const char *const *)fedora_glob.gl_pathv;
	}
	return NULL;
}
