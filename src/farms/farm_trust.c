/* farm_trust.c - see farm.h: what a farm's builds are checked with
 * (checksum lists, their signatures, detached signatures, RPM
 * signatures) and the verified download that checks them. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/digest.h"
#include "farms/farm.h"
#include "farms/farm_priv.h"
#include "farms/listing.h"
#include "farms/names.h"
#include "farms/openpgp.h"
#include "base/i18n.h"
#include "pkg/rpmpkg.h"
#include "base/util.h"

/* ---- trust ---- */

static bool is_clearsigned(const char *data, size_t len)
{
	static const char head[] = "-----BEGIN PGP SIGNED MESSAGE-----";

	return len >= sizeof head - 1 && !memcmp(data, head, sizeof head - 1);
}

/* A signature or a keyring that gpg could not read while the run was
 * being interrupted proves nothing: the terminal's Ctrl-C reached that
 * gpg too. 1 with err (exit 4) when so, 0 otherwise. */
int ab_farm_interrupted(const ab_farm *f, ab_error *err)
{
	if (!f->o.fetch || !ab_cancelled(f->o.fetch->cancel))
		return 0;
	ab_error_set(err, AB_EXIT_ABORTED, "%s", _("interrupted"));
	return 1;
}

/* Set when a build could not be had because a check failed (a
 * signature, a digest, no key to check with), as opposed to the farm
 * lacking it: ab_farm_export tells the two apart by it. Per thread, as
 * a build is resolved in the thread that asks for it. */
static _Thread_local bool check_failed;

void ab_farm_check_clear(void)
{
	check_failed = false;
}

bool ab_farm_check_failed(void)
{
	return check_failed;
}

int ab_farm_sums(ab_farm *f, const char *sums_url, const char *const *sig_urls,
		 size_t nsig, const char *lone_name, ab_sums **out, ab_trust *trust, char **why,
		 ab_error *err)
{
	char *data = NULL, *sig = NULL, *plain = NULL;
	size_t len = 0, siglen = 0, plain_len = 0, i;
	const char *sig_url = NULL;
	ab_error e = {0};
	int rc;

	*out = NULL;
	*why = NULL;
	*trust = AB_TRUST_DIGEST;
	rc = ab_farm_text(f, sums_url, AB_SUMS_MAX_BYTES, &data, &len, err);
	if (rc == 1) {
		*why = ab_xasprintf(_("%s: no checksum list (HTTP 404)"), sums_url);
		return 1;
	}
	if (rc < 0)
		return -1;
	if (is_clearsigned(data, len)) {
		check_failed = true;	/* until it is checked */
		if (!f->pgp) {
			*why = ab_xasprintf(_("%s is clear-signed and no keyring was given to check it: pass --keyring FILE"),
					    sums_url);
			goto fail;
		}
		if (ab_pgp_verify_clearsigned(f->pgp, data, len, sums_url, &plain, &plain_len, why) != 0)
			goto fail;
		check_failed = false;
		free(data);
		data = plain;
		len = plain_len;
		*trust = AB_TRUST_SIGNED;
	} else if (f->pgp) {
		for (i = 0; i < nsig && !sig; i++) {
			rc = ab_farm_text(f, sig_urls[i], SIG_MAX_BYTES, &sig, &siglen, err);
			if (rc < 0)
				goto error;
			if (rc == 0)
				sig_url = sig_urls[i];
		}
		check_failed = true;	/* until it is checked */
		if (!sig && nsig) {
			*why = ab_xasprintf(_("%s has no signature (looked for %s) and --keyring asks for one"),
					    sums_url, sig_urls[0]);
			goto fail;
		}
		if (!sig) {	/* the listing shows none of the names */
			*why = ab_xasprintf(_("%s has no signature beside it (%s.asc, .gpg or .sig) and --keyring asks for one"),
					    sums_url, sums_url);
			goto fail;
		}
		if (ab_pgp_verify(f->pgp, data, len, sig, siglen, sig_url, NULL, 0, why) != 0)
			goto fail;
		check_failed = false;
		*trust = AB_TRUST_SIGNED;
	}
	*out = ab_sums_parse(data, len, sums_url, lone_name, &e);
	if (!*out) {
		*why = ab_xstrdup(e.msg);
		goto fail;
	}
	free(data);
	free(sig);
	return 0;
fail:
	free(data);
	free(sig);
	if (ab_farm_interrupted(f, err)) {
		free(*why);
		*why = NULL;
		return -1;
	}
	return 1;
error:
	free(data);
	free(sig);
	return -1;
}

/* How a download of unknown digest is checked before it becomes a
 * cache entry (the fetch engine's check hook). */
typedef struct verify_ctx {
	ab_farm *f;
	ab_farm_check check;
	const char *sig;	/* the detached signature, or NULL */
	size_t siglen;
	const char *url;
	ab_trust trust;		/* out */
	bool refused;		/* out: the check said no */
} verify_ctx;

static int verify_download(void *ud, const char *path, const char *sha256, char **why)
{
	verify_ctx *v = ud;
	char *reason = NULL;
	ab_error e = {0};
	int fd, rc;

	(void)sha256;
	if (v->check == AB_CHECK_DETACHED_SIG) {
		if (!v->sig) {
			v->trust = AB_TRUST_UNVERIFIED;
			return 0;
		}
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			*why = ab_xasprintf("%s: %s", path, strerror(errno));
			return 1;
		}
		rc = ab_pgp_verify_fd(v->f->pgp, fd, v->sig, v->siglen, v->url, NULL, 0, why);
		close(fd);
		v->trust = AB_TRUST_SIGNED;
		v->refused = rc != 0;
		return rc;
	}
	switch (ab_rpm_verify(path, v->f->o.rpm_keyring, &reason, &e)) {
	case AB_RPM_OK:
		v->trust = v->f->o.rpm_keyring ? AB_TRUST_SIGNED : AB_TRUST_DIGEST;
		return 0;
	case AB_RPM_REFUSED:
		*why = ab_xstrdup(reason ? reason : "?");
		break;
	default:
		*why = ab_xstrdup(e.msg);
	}
	free(reason);
	v->refused = true;
	return 1;
}

int ab_farm_fetch_verified(ab_farm *f, const char *url, int64_t size, ab_farm_check check,
			   const char *sig_url, char sha256[65], ab_trust *trust, char **why,
			   ab_error *err)
{
	static const ab_fetch_callbacks quiet = { NULL, NULL, NULL };
	char *sig = NULL;
	size_t siglen = 0;
	verify_ctx v = { f, check, NULL, 0, url, AB_TRUST_DIGEST, false };
	ab_fetch_item it;
	int rc;

	*why = NULL;
	sha256[0] = 0;
	*trust = AB_TRUST_DIGEST;
	if (!f->o.cache) {
		ab_error_set(err, AB_EXIT_FAILURE, "%s", _("no cache to download into"));
		return -1;
	}
	if (f->root && ab_listing_local_inside(f->root, url, why))
		return 1;
	if (check == AB_CHECK_DETACHED_SIG && !sig_url && !f->o.allow_unverified) {
		*why = ab_xasprintf(_("%s has no signature beside it"), url);
		check_failed = true;
		return 1;
	}
	if (check == AB_CHECK_DETACHED_SIG && sig_url && !f->pgp && !f->o.allow_unverified) {
		check_failed = true;
		*why = ab_xasprintf(_("%s: nothing to check it against: pass --keyring FILE with the farm's signing keys, or --allow-unverified"),
				    url);
		return 1;
	}
	if (check == AB_CHECK_DETACHED_SIG && sig_url && f->pgp) {
		rc = ab_farm_text(f, sig_url, SIG_MAX_BYTES, &sig, &siglen, err);
		if (rc == 1)
			*why = ab_xasprintf(_("%s: not found (HTTP 404)"), sig_url);
		if (rc != 0)
			return rc;
		v.sig = sig;
		v.siglen = siglen;
	}
	memset(&it, 0, sizeof it);
	it.url = url;
	it.size = size;
	it.check = verify_download;
	it.check_ud = &v;
	rc = ab_fetch_artifacts(f->o.cache, f->o.fetch, f->o.cb ? f->o.cb : &quiet, &it, 1, err);
	if (rc == 0 && it.status == AB_FETCH_OK) {
		memcpy(sha256, it.got_sha256, 65);
		*trust = v.trust;
	} else if (rc == 0) {
		/* a signature's reason names the URL already */
		if (it.reason && !strncmp(it.reason, url, strlen(url)))
			*why = ab_xstrdup(it.reason);
		else
			*why = ab_xasprintf("%s: %s", url, it.reason ? it.reason : "?");
		check_failed = v.refused;
		rc = 1;
	}
	free(it.path);
	free(it.reason);
	free(sig);
	return rc;
}
