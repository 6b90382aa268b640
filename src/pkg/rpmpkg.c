/* rpmpkg.c - see rpmpkg.h. */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <rpm/header.h>
#include <rpm/rpmcli.h>
#include <rpm/rpmkeyring.h>
#include <rpm/rpmlib.h>
#include <rpm/rpmlog.h>
#include <rpm/rpmmacro.h>
#include <rpm/rpmpgp.h>
#include <rpm/rpmtag.h>
#include <rpm/rpmts.h>
#include <rpm/rpmdb.h>
#include "base/i18n.h"
#include "pkg/rpmpkg.h"
#include "base/util.h"

struct ab_rpm_keyring {
	rpmKeyring keys;
	size_t count;		/* primary keys read */
	char **armored;		/* each key's armored block, for the install
				 * helper (ab_rpm_install as a normal user) */
};

/* ---- rpm's log, captured instead of printed ---- */

static ab_buf captured;

static int capture_log(rpmlogRec rec, rpmlogCallbackData data)
{
	(void)data;
	ab_buf_puts(&captured, rpmlogRecMessage(rec));
	return 0;	/* handled: rpm prints nothing itself */
}

static void capture_begin(void)
{
	ab_buf_free(&captured);
	rpmlogSetCallback(capture_log, NULL);
}

static char *capture_end(void)
{
	return ab_buf_steal(&captured);
}

static int initialized;

int ab_rpm_init(ab_error *err)
{
	if (initialized)
		return 0;
	capture_begin();
	if (rpmReadConfigFiles(NULL, NULL) != 0) {
		char *log = capture_end();

		ab_error_set(err, AB_EXIT_FAILURE, _("cannot read rpm's configuration: %s"),
			     *log ? log : _("no reason given"));
		free(log);
		return -1;
	}
	free(capture_end());
	rpmlogSetCallback(capture_log, NULL);
	initialized = 1;
	return 0;
}

void ab_rpm_cleanup(void)
{
	if (!initialized)
		return;
	rpmFreeMacros(NULL);
	rpmFreeRpmrc();
	rpmlogSetCallback(NULL, NULL);
	ab_buf_free(&captured);
	initialized = 0;
}

/* ---- keyring ---- */

#define ARMOR_BEGIN "-----BEGIN PGP PUBLIC KEY BLOCK-----"

/* Adds one armored block (text up to its END line) to kr. */
static int add_armored(ab_rpm_keyring *kr, const char *block, const char *file, ab_error *err)
{
	uint8_t *pkt = NULL;
	size_t pktlen = 0;
	rpmPubkey key;
	rpmPubkey *subkeys;
	int nsub = 0, i;

	if (pgpParsePkts(block, &pkt, &pktlen) != PGPARMOR_PUBKEY) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: not an ASCII-armored OpenPGP public key"), file);
		free(pkt);
		return -1;
	}
	key = rpmPubkeyNew(pkt, pktlen);
	free(pkt);
	if (!key) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: rpm cannot use this public key"), file);
		return -1;
	}
	if (rpmKeyringAddKey(kr->keys, key) < 0) {
		rpmPubkeyFree(key);
		ab_error_set(err, AB_EXIT_USAGE, _("%s: rpm cannot use this public key"), file);
		return -1;
	}
	kr->armored = ab_xrealloc(kr->armored, (kr->count + 2) * sizeof *kr->armored);
	kr->armored[kr->count] = ab_xstrdup(block);
	kr->armored[kr->count + 1] = NULL;
	subkeys = rpmGetSubkeys(key, &nsub);
	for (i = 0; i < nsub; i++) {
		rpmKeyringAddKey(kr->keys, subkeys[i]);
		rpmPubkeyFree(subkeys[i]);
	}
	free(subkeys);
	rpmPubkeyFree(key);
	kr->count++;
	return 0;
}

ab_rpm_keyring *ab_rpm_keyring_load(const char *const *files, size_t n, ab_error *err)
{
	ab_rpm_keyring *kr = ab_xcalloc(1, sizeof *kr);
	size_t i;

	if (ab_rpm_init(err) < 0) {
		free(kr);
		return NULL;
	}
	kr->keys = rpmKeyringNew();
	for (i = 0; i < n; i++) {
		char *data = NULL, *p;
		size_t len, before = kr->count;
		ab_error rerr = {0};

		if (ab_read_file(files[i], 1 << 20, &data, &len, &rerr) < 0) {
			ab_error_set(err, AB_EXIT_USAGE, "--keyring: %s", rerr.msg);
			goto fail;
		}
		if (strlen(data) != len) {
			ab_error_set(err, AB_EXIT_USAGE,
				     _("%s: not an ASCII-armored OpenPGP public key"), files[i]);
			free(data);
			goto fail;
		}
		/* A file may hold several keys, one armored block each. */
		for (p = strstr(data, ARMOR_BEGIN); p; p = strstr(p + 1, ARMOR_BEGIN)) {
			char *next = strstr(p + 1, ARMOR_BEGIN);
			char *block = next ? ab_xstrndup(p, (size_t)(next - p)) : ab_xstrdup(p);
			int r = add_armored(kr, block, files[i], err);

			free(block);
			if (r < 0) {
				free(data);
				goto fail;
			}
		}
		free(data);
		if (kr->count == before) {
			ab_error_set(err, AB_EXIT_USAGE,
				     _("%s: not an ASCII-armored OpenPGP public key"), files[i]);
			goto fail;
		}
	}
	return kr;
fail:
	ab_rpm_keyring_free(kr);
	return NULL;
}

void ab_rpm_keyring_free(ab_rpm_keyring *kr)
{
	if (!kr)
		return;
	rpmKeyringFree(kr->keys);
	for (size_t i = 0; kr->armored && kr->armored[i]; i++)
		free(kr->armored[i]);
	free(kr->armored);
	free(kr);
}

/* A transaction that never loads rpm's own keyring: without one set,
 * reading a package opens the database at %_dbpath for its keys, and
 * Debian's points at ~/.rpmdb, which it makes for a normal user. The
 * keys that count are set after this (or none: signatures unchecked). */
static rpmts new_ts(void)
{
	rpmts ts = rpmtsCreate();
	rpmKeyring none = rpmKeyringNew();

	rpmtsSetKeyring(ts, none);
	rpmKeyringFree(none);
	return ts;
}

/* ---- reading ---- */

static FD_t open_package(const char *path, char **reason, ab_error *err)
{
	FD_t fd;

	*reason = NULL;
	if (ab_rpm_init(err) < 0)
		return NULL;
	fd = Fopen(path, "r.ufdio");

	if (!fd || Ferror(fd)) {
		int e = errno;

		if (fd)
			Fclose(fd);
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot read %s: %s"), path,
			     strerror(e ? e : EIO));
		return NULL;
	}
	return fd;
}

static char *tag_string(Header h, rpmTagVal tag)
{
	const char *s = headerGetString(h, tag);

	return s && *s ? ab_xstrdup(s) : NULL;
}

/* Removes the trailing newline rpm puts at the end of a message. */
static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

/* The text after "PATH: " in an rpm message, as one line. */
static char *rpm_message(char *log, const char *path)
{
	char *p = log, *nl;
	size_t n = strlen(path);

	if (!strncmp(p, path, n) && p[n] == ':')
		p += n + 1;
	while (*p == ' ')
		p++;
	nl = strchr(p, '\n');
	if (nl)
		*nl = '\0';
	chomp(p);
	return ab_xstrdup(*p ? p : _("no reason given"));
}

static ab_rpm_rc read_info_unlocked(const char *path, ab_pkg_info *info, char **reason,
			   ab_error *err)
{
	rpmts ts;
	FD_t fd;
	Header h = NULL;
	rpmRC rc;
	char *log;

	memset(info, 0, sizeof *info);
	fd = open_package(path, reason, err);
	if (!fd)
		return AB_RPM_ERROR;
	ts = new_ts();
	/* Facts only: signatures are ab_rpm_verify's business. */
	rpmtsSetVSFlags(ts, RPMVSF_MASK_NOSIGNATURES | RPMVSF_MASK_NOPAYLOAD);
	capture_begin();
	rc = rpmReadPackageFile(ts, fd, path, &h);
	log = capture_end();
	Fclose(fd);
	rpmtsFree(ts);
	if (rc != RPMRC_OK && rc != RPMRC_NOKEY && rc != RPMRC_NOTTRUSTED) {
		if (rc == RPMRC_NOTFOUND)
			*reason = ab_xstrdup(_("not an RPM package"));
		else {
			char *m = rpm_message(log, path);

			*reason = ab_xasprintf(_("damaged RPM header: %s"), m);
			free(m);
		}
		headerFree(h);
		free(log);
		return AB_RPM_REFUSED;
	}
	free(log);
	info->kind = AB_PKG_RPM;
	info->name = tag_string(h, RPMTAG_NAME);
	info->version = tag_string(h, RPMTAG_VERSION);
	info->release = tag_string(h, RPMTAG_RELEASE);
	info->arch = tag_string(h, RPMTAG_ARCH);
	if (headerIsEntry(h, RPMTAG_EPOCH))
		info->epoch = headerGetAsString(h, RPMTAG_EPOCH);
	info->buildtime = headerIsEntry(h, RPMTAG_BUILDTIME)
		? (int64_t)headerGetNumber(h, RPMTAG_BUILDTIME) : -1;
	info->vcs = tag_string(h, RPMTAG_VCS);
	info->commit = ab_pkg_commit_from_vcs(info->vcs);
	if (!info->commit)
		info->commit = ab_pkg_commit_from_version(info->release);
	if (!info->commit)
		info->commit = ab_pkg_commit_from_version(info->version);
	headerFree(h);
	if (!info->name || !info->version || !info->release) {
		ab_pkg_info_free(info);
		*reason = ab_xstrdup(_("damaged RPM header: no name, version or release"));
		return AB_RPM_REFUSED;
	}
	return AB_RPM_OK;
}

/* ---- verifying ---- */

/* One line of rpm's verbose signature check, "    WHAT: RESULT", turned
 * into words for the report; NULL when the line says OK. */
static char *failure_words(const char *line)
{
	const char *colon = strrchr(line, ':');
	const char *what, *res, *kid;
	char *out;

	while (*line == ' ')
		line++;
	/* "BAD (Expected X != Y)" holds colons of its own: cut at " BAD". */
	res = strstr(line, ": BAD");
	if (!res)
		res = colon;
	if (!res)
		return NULL;
	what = line;
	res += 1;
	while (*res == ' ')
		res++;
	if (!strncmp(res, "OK", 2))
		return NULL;
	kid = strstr(line, "key ID ");
	if (!strncmp(res, "NOKEY", 5) && kid)
		return ab_xasprintf(_("signed by unknown key %.*s (NOKEY)"),
				    (int)strspn(kid + 7, "0123456789abcdefABCDEF"), kid + 7);
	if (!strncmp(res, "NOTTRUSTED", 10) && kid)
		return ab_xasprintf(_("signed by untrusted key %.*s (NOTTRUSTED)"),
				    (int)strspn(kid + 7, "0123456789abcdefABCDEF"), kid + 7);
	if (!strncmp(res, "BAD", 3)) {
		/* "Payload SHA256 digest" -> "payload SHA256 digest BAD" */
		out = ab_xasprintf("%.*s BAD", (int)(res - 2 - what), what);
		if (out[0] && isupper((unsigned char)out[0]) && !isupper((unsigned char)out[1]))
			out[0] = (char)tolower((unsigned char)out[0]);
		return out;
	}
	if (!strncmp(res, "NOTFOUND", 8))
		return ab_xasprintf("%.*s missing", (int)(res - 2 - what), what);
	return ab_xstrdup(line);
}

/* rpm's verbose report of a failed check, condensed to one line: the
 * distinct failures joined with "; ". Items rpm did not find are left
 * out (old packages lack newer digests, and rpm itself decides whether
 * that matters), except that under a keyring a package with no
 * signature at all is "not signed". */
static char *condense(char *log, int want_signature)
{
	ab_buf out = {0};
	char *line, *save = NULL;
	int signed_ok = 0, signature_failed = 0;

	for (line = strtok_r(log, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int is_sig = strstr(line, "ignature") != NULL;
		char *w;

		if (line[0] != ' ')
			continue;	/* "PATH:" and summary lines */
		if (strstr(line, ": NOTFOUND"))
			continue;
		w = failure_words(line);
		if (!w) {
			if (is_sig)
				signed_ok = 1;
			continue;
		}
		if (is_sig)
			signature_failed = 1;
		if (!out.len || !strstr(out.data, w)) {
			if (out.len)
				ab_buf_puts(&out, "; ");
			ab_buf_puts(&out, w);
		}
		free(w);
	}
	if (want_signature && !signed_ok && !signature_failed) {
		if (out.len)
			ab_buf_puts(&out, "; ");
		ab_buf_puts(&out, _("not signed"));
	}
	if (!out.len)
		ab_buf_puts(&out, _("digests or signatures NOT OK"));
	return ab_buf_steal(&out);
}

static ab_rpm_rc verify_unlocked(const char *path, const ab_rpm_keyring *kr, char **reason,
			ab_error *err)
{
	struct rpmQVKArguments_s qva;
	rpmts ts;
	FD_t fd;
	int rc, verbosity;
	char *log;

	fd = open_package(path, reason, err);
	if (!fd)
		return AB_RPM_ERROR;
	ts = new_ts();
	if (kr) {
		rpmtsSetKeyring(ts, kr->keys);
		rpmtsSetVfyLevel(ts, RPMSIG_SIGNATURE_TYPE | RPMSIG_DIGEST_TYPE);
		rpmtsSetVfyFlags(ts, 0);
	} else {
		/* No keys given: digests must match, signatures are not
		 * looked at (nobody said whose to trust). */
		rpmtsSetVfyLevel(ts, RPMSIG_DIGEST_TYPE);
		rpmtsSetVfyFlags(ts, RPMVSF_MASK_NOSIGNATURES);
	}
	memset(&qva, 0, sizeof qva);
	verbosity = rpmlogSetMask(0);
	rpmlogSetMask(verbosity);
	/* The verbose form gives one line per digest and signature. */
	rpmSetVerbosity(RPMLOG_INFO);
	capture_begin();
	rc = rpmVerifySignatures(&qva, ts, fd, path);
	log = capture_end();
	rpmlogSetMask(verbosity);
	Fclose(fd);
	rpmtsFree(ts);
	if (rc != 0) {
		if (!strstr(log, "\n    "))
			*reason = ab_xstrdup(_("not an RPM package"));
		else
			*reason = condense(log, kr != NULL);
		free(log);
		return AB_RPM_REFUSED;
	}
	free(log);
	return AB_RPM_OK;
}

/* ---- installing ---- */

struct install_ctx {
	FD_t fd;
};

static void *install_notify(const void *h, const rpmCallbackType what, const rpm_loff_t amount,
			    const rpm_loff_t total, fnpyKey key, rpmCallbackData data)
{
	struct install_ctx *c = data;

	(void)h;
	(void)amount;
	(void)total;
	switch (what) {
	case RPMCALLBACK_INST_OPEN_FILE:
		c->fd = Fopen((const char *)key, "r.ufdio");
		if (c->fd && Ferror(c->fd)) {
			Fclose(c->fd);
			c->fd = NULL;
		}
		return c->fd;
	case RPMCALLBACK_INST_CLOSE_FILE:
		if (c->fd)
			Fclose(c->fd);
		c->fd = NULL;
		break;
	default:
		break;
	}
	return NULL;
}

/* The scratch root made and named by its absolute path, which rpm needs
 * as its root; NULL with err. */
static char *make_scratch_root(const char *root, ab_error *err)
{
	char *absroot;

	if (ab_mkdir_p(root) < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot make scratch root %s: %s"), root,
			     strerror(errno));
		return NULL;
	}
	absroot = realpath(root, NULL);
	if (!absroot) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot make scratch root %s: %s"), root,
			     strerror(errno));
		return NULL;
	}
	return absroot;
}

/* What the transaction checks of each package: signatures and digests
 * with keys, digests alone without. */
static void set_install_checks(rpmts ts, const ab_rpm_keyring *kr)
{
	if (kr) {
		rpmtsSetKeyring(ts, kr->keys);
		rpmtsSetVfyLevel(ts, RPMSIG_SIGNATURE_TYPE | RPMSIG_DIGEST_TYPE);
	} else {
		rpmtsSetVfyLevel(ts, RPMSIG_DIGEST_TYPE);
		rpmtsSetVSFlags(ts, RPMVSF_MASK_NOSIGNATURES);
		rpmtsSetVfyFlags(ts, RPMVSF_MASK_NOSIGNATURES);
	}
}

/* Reads the package at path and adds it to the transaction. */
static ab_rpm_rc add_install_element(rpmts ts, const char *path, const ab_rpm_keyring *kr,
				     char **reason, ab_error *err)
{
	FD_t fd = Fopen(path, "r.ufdio");
	Header h = NULL;
	rpmRC r;
	int rc;

	if (!fd || Ferror(fd)) {
		if (fd)
			Fclose(fd);
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot read %s: %s"), path,
			     strerror(errno));
		return AB_RPM_ERROR;
	}
	r = rpmReadPackageFile(ts, fd, path, &h);
	Fclose(fd);
	if (r != RPMRC_OK && !(r == RPMRC_NOKEY && !kr)) {
		char *log = capture_end();

		*reason = rpm_message(log, path);
		free(log);
		headerFree(h);
		return AB_RPM_REFUSED;
	}
	/* No rpmtsCheck: the scratch root holds no dependencies. */
	rc = rpmtsAddInstallElement(ts, h, (fnpyKey)path, 0, NULL);
	headerFree(h);
	if (rc != 0) {
		*reason = ab_xasprintf(_("rpm refused to add %s to the transaction"), path);
		return AB_RPM_REFUSED;
	}
	return AB_RPM_OK;
}

/* Why a transaction failed, on one line: its problems, or else the last
 * thing rpm said. */
static char *transaction_failure(rpmts ts)
{
	ab_buf why = {0};
	rpmps ps = rpmtsProblems(ts);
	char *log, *nl, *reason;

	if (ps && rpmpsNumProblems(ps) > 0) {
		rpmpsi psi = rpmpsInitIterator(ps);
		rpmProblem p;

		while ((p = rpmpsiNext(psi))) {
			char *s = rpmProblemString(p);

			if (why.len)
				ab_buf_puts(&why, "; ");
			ab_buf_puts(&why, s);
			free(s);
		}
		rpmpsFreeIterator(psi);
	}
	rpmpsFree(ps);
	log = capture_end();
	if (!why.len) {
		/* The last thing rpm said, on one line. */
		chomp(log);
		nl = strrchr(log, '\n');
		ab_buf_puts(&why, *log ? (nl ? nl + 1 : log) : _("no reason given"));
	}
	reason = ab_xasprintf(_("rpm transaction failed: %s"), why.data);
	ab_buf_free(&why);
	free(log);
	return reason;
}

static ab_rpm_rc install_unlocked(const char *const *paths, size_t n, const char *root,
			 const ab_rpm_keyring *kr, char **reason, ab_error *err)
{
	struct install_ctx ctx = { NULL };
	rpmts ts = NULL;
	ab_rpm_rc ret = AB_RPM_OK;
	size_t i;
	char *absroot;

	*reason = NULL;
	if (ab_rpm_init(err) < 0)
		return AB_RPM_ERROR;
	if (geteuid() != 0 && access("/proc/self/ns/user", F_OK) != 0) {
		*reason = ab_xstrdup(_("installing RPMs needs root or user namespaces"));
		return AB_RPM_REFUSED;
	}
	absroot = make_scratch_root(root, err);
	if (!absroot)
		return AB_RPM_ERROR;
	/* The database lives inside the scratch root, never the system's
	 * (Debian points _dbpath at ~/.rpmdb otherwise). */
	rpmPushMacro(NULL, "_dbpath", NULL, "/var/lib/rpm", RMIL_CMDLINE);
	capture_begin();
	ts = rpmtsCreate();
	if (rpmtsSetRootDir(ts, absroot) != 0) {
		*reason = ab_xasprintf(_("rpm cannot use %s as its root"), absroot);
		ret = AB_RPM_REFUSED;
		goto out;
	}
	set_install_checks(ts, kr);
	rpmtsSetNotifyCallback(ts, install_notify, &ctx);
	for (i = 0; i < n; i++) {
		ret = add_install_element(ts, paths[i], kr, reason, err);
		if (ret != AB_RPM_OK)
			goto out;
	}
	rpmtsSetFlags(ts, RPMTRANS_FLAG_NONE);
	/* Older candidates go in beside newer ones, and a candidate tested
	 * again goes in again (rpm -i --oldpackage --replacepkgs): kernels
	 * install side by side. */
	if (rpmtsRun(ts, NULL, RPMPROB_FILTER_OLDPACKAGE | RPMPROB_FILTER_REPLACEPKG) != 0) {
		*reason = transaction_failure(ts);
		ret = AB_RPM_REFUSED;
	}
out:
	free(capture_end());
	if (ts)
		rpmtsFree(ts);
	rpmPopMacro(NULL, "_dbpath");
	free(absroot);
	return ret;
}

static ab_rpm_rc erase_unlocked(const char *const *names, size_t n, const char *root, char **reason,
		       ab_error *err)
{
	rpmts ts;
	size_t i;
	int found = 0;
	ab_rpm_rc ret = AB_RPM_OK;
	char *log;

	*reason = NULL;
	if (ab_rpm_init(err) < 0)
		return AB_RPM_ERROR;
	rpmPushMacro(NULL, "_dbpath", NULL, "/var/lib/rpm", RMIL_CMDLINE);
	capture_begin();
	ts = rpmtsCreate();
	if (rpmtsSetRootDir(ts, root) != 0) {
		*reason = ab_xasprintf(_("rpm cannot use %s as its root"), root);
		ret = AB_RPM_REFUSED;
		goto out;
	}
	{
		/* Exact matches only: a label lookup would take a bare NAME
		 * for every version of it. */
		rpmdbMatchIterator mi = rpmtsInitIterator(ts, RPMDBI_PACKAGES, NULL, 0);
		Header h;

		while ((h = rpmdbNextIterator(mi))) {
			char *nevra = headerGetAsString(h, RPMTAG_NEVRA), *nvr = headerGetAsString(h, RPMTAG_NVR);

			for (i = 0; i < n; i++) {
				if ((nevra && !strcmp(names[i], nevra)) || (nvr && !strcmp(names[i], nvr))) {
					rpmtsAddEraseElement(ts, h, -1);
					found++;
					break;
				}
			}
			free(nevra);
			free(nvr);
		}
		rpmdbFreeIterator(mi);
	}
	if (found && rpmtsRun(ts, NULL, RPMPROB_FILTER_NONE) != 0) {
		log = capture_end();
		chomp(log);
		*reason = ab_xasprintf(_("rpm transaction failed: %s"),
				       *log ? log : _("no reason given"));
		free(log);
		ret = AB_RPM_REFUSED;
	}
out:
	free(capture_end());
	rpmtsFree(ts);
	rpmPopMacro(NULL, "_dbpath");
	return ret;
}

/* ---- one caller at a time ----
 * librpm keeps process-wide state (the log callback captured above, the
 * verbosity, macros), and prefetch workers verify packages while the
 * main thread does: every entry point takes one lock. */

static pthread_mutex_t rpm_lock = PTHREAD_MUTEX_INITIALIZER;

ab_rpm_rc ab_rpm_read_info(const char *path, ab_pkg_info *info, char **reason, ab_error *err)
{
	ab_rpm_rc rc;

	pthread_mutex_lock(&rpm_lock);
	rc = read_info_unlocked(path, info, reason, err);
	pthread_mutex_unlock(&rpm_lock);
	return rc;
}

ab_rpm_rc ab_rpm_verify(const char *path, const ab_rpm_keyring *kr, char **reason, ab_error *err)
{
	ab_rpm_rc rc;

	pthread_mutex_lock(&rpm_lock);
	rc = verify_unlocked(path, kr, reason, err);
	pthread_mutex_unlock(&rpm_lock);
	return rc;
}

/* ---- the install helper: a normal user's transaction ---- */

/* As a normal user librpm moves the process that runs a transaction
 * into a user namespace of its own, where it is uid 0 for good: every
 * probe started after it would then run as "root" too. So that
 * transaction runs in a helper: this very program, executed afresh
 * (not a fork: another thread may hold a lock in the allocator or in
 * gettext at that moment; see unpack_helper.c). It sends back what
 * ab_rpm_install would have returned, on HELPER_RESULT_FD. */
enum { HELPER_RESULT_FD = 3 };

struct install_result {
	int rc;			/* an ab_rpm_rc */
	int code;		/* err->code */
	size_t reason_len;	/* then the reason's bytes, then err->msg's */
	size_t msg_len;
};

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

int ab_rpm_install_helper_main(int argc, char **argv)
{
	struct install_result r = { 0 };
	ab_rpm_keyring *kr = NULL;
	ab_error err = {0};
	char *why = NULL, *end;
	long nkeys;
	int i, first;

	/* argv: AB_RPM_HELPER_ARG ROOT NKEYS KEY... RPM... (NKEYS -1: no
	 * keyring, digests only) */
	if (argc < 5 || strcmp(argv[1], AB_RPM_HELPER_ARG) != 0)
		return 2;
	errno = 0;
	nkeys = strtol(argv[3], &end, 10);
	if (errno || *end || nkeys < -1 || nkeys > argc - 5)
		return 2;
	first = 4 + (nkeys > 0 ? (int)nkeys : 0);
	if (nkeys >= 0 && ab_rpm_init(&err) == 0) {
		kr = ab_xcalloc(1, sizeof *kr);
		kr->keys = rpmKeyringNew();
		for (i = 0; i < nkeys && !err.code; i++)
			add_armored(kr, argv[4 + i], "--keyring", &err);
	}
	if (!err.code)
		r.rc = install_unlocked((const char *const *)argv + first, (size_t)(argc - first), argv[2],
					kr, &why, &err);
	else
		r.rc = AB_RPM_ERROR;
	r.code = err.code;
	r.reason_len = why ? strlen(why) : 0;
	r.msg_len = strlen(err.msg);
	if (write_all(HELPER_RESULT_FD, &r, sizeof r) < 0 ||
	    write_all(HELPER_RESULT_FD, why ? why : "", r.reason_len) < 0 ||
	    write_all(HELPER_RESULT_FD, err.msg, r.msg_len) < 0)
		return 1;
	free(why);
	ab_rpm_keyring_free(kr);
	return 0;
}

/* Starts the helper with its arguments and its result on wfd; the pid,
 * or -1. Its standard output goes to standard error: what scriptlets
 * print must not land in a JSON report. */
static pid_t spawn_install_helper(char **argv, int wfd)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none;
	pid_t pid = -1;
	int hwfd = fcntl(wfd, F_DUPFD_CLOEXEC, 10), rc;

	if (hwfd < 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, 2, 1);
	posix_spawn_file_actions_adddup2(&fa, hwfd, HELPER_RESULT_FD);
	ab_spawnattr_pipe_default(&attr);
	sigemptyset(&none);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	rc = ab_spawn_self(&pid, &fa, &attr, argv);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	close(hwfd);
	return rc == 0 ? pid : -1;
}

static ab_rpm_rc install_in_helper(const char *const *paths, size_t n, const char *root,
				   const ab_rpm_keyring *kr, char **reason, ab_error *err)
{
	struct install_result r = { 0 };
	size_t nkeys = kr ? kr->count : 0, i, k = 0;
	char **argv = ab_xcalloc(n + nkeys + 5, sizeof *argv), snkeys[32], chunk[4096];
	ab_buf got = {0};
	int fds[2], status = 0;
	ssize_t m;
	pid_t pid;

	*reason = NULL;
	snprintf(snkeys, sizeof snkeys, "%ld", kr ? (long)nkeys : -1L);
	argv[k++] = (char *)"artbisect";
	argv[k++] = (char *)AB_RPM_HELPER_ARG;
	argv[k++] = (char *)root;
	argv[k++] = snkeys;
	for (i = 0; i < nkeys; i++)
		argv[k++] = kr->armored[i];
	for (i = 0; i < n; i++)
		argv[k++] = (char *)paths[i];
	if (pipe2(fds, O_CLOEXEC) < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot start rpm's transaction: %s"), strerror(errno));
		free(argv);
		return AB_RPM_ERROR;
	}
	pid = spawn_install_helper(argv, fds[1]);
	free(argv);
	close(fds[1]);
	if (pid < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot start rpm's transaction: %s"),
			     _("this program cannot run itself (no /proc?)"));
		close(fds[0]);
		return AB_RPM_ERROR;
	}
	while ((m = read(fds[0], chunk, sizeof chunk)) != 0) {
		if (m < 0 && errno == EINTR)
			continue;
		if (m < 0)
			break;
		ab_buf_append(&got, chunk, (size_t)m);
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got.len < sizeof r) {
		ab_error_set(err, AB_EXIT_FAILURE, _("rpm's transaction ended without a result (%s)"),
			     WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : _("no output"));
		ab_buf_free(&got);
		return AB_RPM_ERROR;
	}
	memcpy(&r, got.data, sizeof r);
	if (got.len != sizeof r + r.reason_len + r.msg_len) {
		ab_error_set(err, AB_EXIT_FAILURE, "%s", _("rpm's transaction sent back a damaged result"));
		ab_buf_free(&got);
		return AB_RPM_ERROR;
	}
	if (r.reason_len)
		*reason = ab_xstrndup(got.data + sizeof r, r.reason_len);
	if (r.code || r.msg_len)
		ab_error_set(err, r.code, "%.*s", (int)r.msg_len, got.data + sizeof r + r.reason_len);
	ab_buf_free(&got);
	return (ab_rpm_rc)r.rc;
}

ab_rpm_rc ab_rpm_install(const char *const *paths, size_t n, const char *root, const ab_rpm_keyring *kr, char **reason, ab_error *err)
{
	ab_rpm_rc rc;

	pthread_mutex_lock(&rpm_lock);
	if (geteuid() == 0)
		rc = install_unlocked(paths, n, root, kr, reason, err);
	else
		rc = install_in_helper(paths, n, root, kr, reason, err);
	pthread_mutex_unlock(&rpm_lock);
	return rc;
}

ab_rpm_rc ab_rpm_erase(const char *const *names, size_t n, const char *root, char **reason, ab_error *err)
{
	ab_rpm_rc rc;

	pthread_mutex_lock(&rpm_lock);
	rc = erase_unlocked(names, n, root, reason, err);
	pthread_mutex_unlock(&rpm_lock);
	return rc;
}
