/* bisect_prepare.c - getting one build ready for its probe: its root's
 * name, downloading and verifying its artifacts within the cache cap,
 * installing or unpacking them into a fresh root, and the early unpack
 * a prefetched build gets in the background. Internal to the
 * bisection (bisect_steps.h); never prints: notices go through the
 * callbacks. */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "bisect/bisect.h"
#include "bisect/bisect_steps.h"
#include "engine/flaky.h"
#include "base/i18n.h"
#include "net/prefetch.h"
#include "bisect/probe.h"
#include "pkg/rpmpkg.h"
#include "pkg/unpack.h"
#include "base/rmtree.h"
#include "base/util.h"

/* A root's name: the build's position, which keeps it unique, and the
 * start of its id, so that a person can tell the roots apart. An id may
 * be thousands of bytes long; a file name may not pass 255 (with the
 * suffixes of an early unpack added). */
#define ROOT_ID_MAX 64

char *bisect_root_path(const ab_bisect *b, size_t idx)
{
	char *safe = ab_safe_name(b->index->builds[idx].id);
	char *rel;

	if (strlen(safe) > ROOT_ID_MAX)
		safe[ROOT_ID_MAX] = '\0';
	rel = ab_xasprintf("roots/%zu-%s", idx, safe);
	char *path = ab_path_join(b->opt.work_dir, rel);
	free(safe);
	free(rel);
	return path;
}

/* ---- early unpack ----
 * A build that prefetch brought in is unpacked at once, in the worker's
 * thread, into ROOT@early (by way of ROOT@early-tmp, renamed when whole),
 * so that the step that needs it only renames it. RPMs are checked by
 * librpm first, as bisect_prepare() does (which checks them again before it
 * takes the early root). Not with --install rpm: that is a transaction.
 * The '@' is never in a root's own name (ab_safe_name). */

static const char early_suffix[] = "@early";

static int early_allowed(const ab_bisect *b)
{
	return !b->opt.install_rpm;
}

/* An early root takes disk the running probe may need: only with room to
 * spare, eight times the build's download and at least 64 MiB. */
static int room_for_early(const ab_bisect *b, const ab_fetch_item *items, size_t n)
{
	struct statvfs vfs;
	struct stat st;
	uint64_t need = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (stat(items[i].path, &st) == 0)
			need += (uint64_t)st.st_size;
	need *= 8;
	if (need < ((uint64_t)64 << 20))
		need = (uint64_t)64 << 20;
	return statvfs(b->opt.work_dir, &vfs) == 0 &&
	       (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize >= need;
}

void bisect_early_unpack(void *ud, size_t key, const ab_fetch_item *items, size_t n,
			 const volatile sig_atomic_t *cancel)
{
	const ab_bisect *b = ud;
	const ab_build *bd = &b->index->builds[key];
	char *root = bisect_root_path(b, key);
	char *done = ab_xasprintf("%s%s", root, early_suffix);
	char *tmp = ab_xasprintf("%s%s-tmp", root, early_suffix);
	size_t i;
	int ok = 1;

	if (!early_allowed(b) || n != bd->nartifacts || !room_for_early(b, items, n))
		goto out;
	/* Nothing librpm refuses is unpacked, early or not. */
	for (i = 0; i < n; i++) {
		char *why = NULL;
		ab_error err = {0};
		ab_rpm_rc v;

		if (bd->artifacts[i].type != AB_ART_RPM)
			continue;
		v = ab_rpm_verify(items[i].path, b->opt.keyring, &why, &err);
		free(why);
		ab_error_clear(&err);
		if (v != AB_RPM_OK || ab_cancelled(cancel))
			goto out;
	}
	ab_remove_tree(done);
	if (ab_remove_tree(tmp) < 0 || ab_mkdir_p(tmp) < 0)
		goto out;
	for (i = 0; i < n && ok && !ab_cancelled(cancel); i++) {
		char *why = NULL;
		ab_error err = {0};

		/* A refusal or a local failure is left for the step itself
		 * to meet again and report. */
		if (ab_unpack_cancellable(items[i].path, bd->artifacts[i].type,
					  bd->artifacts[i].filename, tmp, cancel, &why, &err) != AB_UNPACK_OK)
			ok = 0;
		free(why);
		ab_error_clear(&err);
	}
	if (!ok || ab_cancelled(cancel) || rename(tmp, done) < 0)
		ab_remove_tree(tmp);
out:
	free(root);
	free(done);
	free(tmp);
}

/* Removes every early root but those of builds keys[0..nkeys): the
 * verdicts made them useless. Their workers are gone or kept. */
void bisect_early_sweep(const ab_bisect *b, const size_t *keys, size_t nkeys)
{
	char *dir = ab_path_join(b->opt.work_dir, "roots");
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *end, *path;
		size_t idx, k;
		int kept = 0;

		if (!strchr(e->d_name, '@') || !strstr(e->d_name, early_suffix))
			continue;
		idx = strtoul(e->d_name, &end, 10);
		for (k = 0; k < nkeys && end != e->d_name && *end == '-'; k++)
			if (keys[k] == idx)
				kept = 1;
		if (kept)
			continue;
		path = ab_path_join(dir, e->d_name);
		ab_remove_tree(path);
		free(path);
	}
	if (d)
		closedir(d);
	free(dir);
}

/* Removes a root a probe or a person has had; what cannot be removed
 * (a file system still mounted in it) is left and said. */
void bisect_remove_root(const ab_bisect_callbacks *cb, const char *root)
{
	ab_error e = {0};

	if (ab_remove_tree_err(root, &e) < 0 && cb->fetch.notice)
		cb->fetch.notice(cb->fetch.ud, e.msg);
}

/* The fetch list for build bd: its artifacts with their mirrors. */
static ab_fetch_item *fetch_items_new(const ab_bisect *b, const ab_build *bd)
{
	size_t i, nitems = bd->nartifacts;
	ab_fetch_item *items = ab_xcalloc(nitems ? nitems : 1, sizeof *items);

	for (i = 0; i < nitems; i++) {
		items[i].url = bd->artifacts[i].url;
		items[i].mirrors = ab_index_mirror_urls(b->index, &bd->artifacts[i], &items[i].nmirrors);
		items[i].sha256 = bd->artifacts[i].sha256;
		items[i].size = bd->artifacts[i].size;
	}
	return items;
}

static void fetch_items_free(ab_fetch_item *items, size_t nitems)
{
	size_t i;

	for (i = 0; i < nitems; i++) {
		free(items[i].path);
		free(items[i].reason);
		ab_index_urls_free((char **)items[i].mirrors, items[i].nmirrors);
	}
	free(items);
}

/* Make room first: the cap holds while this build comes in, and a
 * small disk is not filled by entries that are no longer needed. The
 * sizes are the index's word: an artifact it says is larger than the
 * cap evicts nothing (the download refuses it, ab_fetch_artifacts). */
static void cache_room_for(const ab_bisect *b, ab_cache *cache, const ab_build *bd)
{
	const char **keep;
	int64_t incoming = 0;
	size_t i;

	if (b->opt.cache_size < 0)
		return;
	for (i = 0; i < bd->nartifacts; i++) {
		int64_t sz = bd->artifacts[i].size;

		if (sz > b->opt.cache_size)
			return;
		if (sz > 0 && !ab_cache_has(cache, bd->artifacts[i].sha256))
			incoming = sz < b->opt.cache_size - incoming ? incoming + sz : b->opt.cache_size;
	}
	keep = ab_xcalloc(bd->nartifacts, sizeof *keep);
	for (i = 0; i < bd->nartifacts; i++)
		keep[i] = bd->artifacts[i].sha256;
	ab_cache_evict(cache, b->opt.cache_size - incoming, keep, bd->nartifacts);
	free(keep);
}

/* Keep the cache under its cap; never evict what this build needs. */
static void cache_cap_keeping(const ab_bisect *b, ab_cache *cache, const ab_build *bd)
{
	const char **keep;
	size_t i;

	if (b->opt.cache_size < 0)
		return;
	keep = ab_xcalloc(bd->nartifacts, sizeof *keep);
	for (i = 0; i < bd->nartifacts; i++)
		keep[i] = bd->artifacts[i].sha256;
	ab_cache_evict(cache, b->opt.cache_size, keep, bd->nartifacts);
	free(keep);
}

/* Downloads build bd's artifacts into items. 0, 1 with *reason when
 * one is unavailable, -1 with err. */
static int download_build(ab_bisect *b, ab_cache *cache, const ab_bisect_callbacks *cb,
			  const ab_build *bd, ab_fetch_item *items, char **reason, ab_error *err)
{
	size_t i;

	if (ab_fetch_artifacts(cache, &b->opt.fetch, &cb->fetch, items, bd->nartifacts, err) < 0)
		return -1;
	for (i = 0; i < bd->nartifacts; i++) {
		if (items[i].status != AB_FETCH_OK) {
			/* the URL: a 404 says nothing without where it was */
			*reason = ab_xasprintf("%s: %s", bd->artifacts[i].url,
					       items[i].reason ? items[i].reason : "?");
			return 1;
		}
	}
	return 0;
}

/* librpm checks every package's digests (and, with --keyring, its
 * signature) before a byte of it is unpacked or installed. 0, 1 with
 * *reason when one is refused, -1 with err. */
static int verify_rpms(const ab_bisect *b, const ab_build *bd, const ab_fetch_item *items,
		       char **reason, ab_error *err)
{
	size_t i;

	for (i = 0; i < bd->nartifacts; i++) {
		char *why = NULL;
		ab_rpm_rc v;

		if (bd->artifacts[i].type != AB_ART_RPM)
			continue;
		v = ab_rpm_verify(items[i].path, b->opt.keyring, &why, err);
		if (v == AB_RPM_ERROR)
			return -1;
		if (v == AB_RPM_REFUSED) {
			*reason = ab_xasprintf("%s: %s", bd->artifacts[i].filename, why);
			free(why);
			return 1;
		}
	}
	return 0;
}

/* Readies root: the early root renamed to it (*unpacked set), or an
 * empty directory. 0, -1 with err. */
static int make_root(const ab_bisect *b, const char *root, int *unpacked, ab_error *err)
{
	if (b->prefetch && early_allowed(b)) {
		/* Unpacked while the last probe ran: the worker is done
		 * (ab_prefetch_wait in bisect_prepare), its root whole or absent. */
		char *early = ab_xasprintf("%s%s", root, early_suffix);

		*unpacked = ab_remove_tree(root) == 0 && rename(early, root) == 0;
		free(early);
	}
	if (!*unpacked && ab_remove_tree_err(root, err) < 0)
		return -1;	/* a file system mounted in it: never unpacked into */
	if (!*unpacked && ab_mkdir_p(root) < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot make scratch root %s: %s"),
			     root, strerror(errno));
		return -1;
	}
	return 0;
}

/* All RPMs of the build in one transaction, as dnf would. 0, 1 with
 * *reason when refused, -1 with err. */
static int install_rpms(const ab_bisect *b, const ab_build *bd, const ab_fetch_item *items,
			const char *root, char **reason, ab_error *err)
{
	const char **rpms = ab_xcalloc(bd->nartifacts, sizeof *rpms);
	size_t i, nrpms = 0;
	char *why = NULL;
	ab_rpm_rc v;

	for (i = 0; i < bd->nartifacts; i++)
		if (bd->artifacts[i].type == AB_ART_RPM)
			rpms[nrpms++] = items[i].path;
	v = nrpms ? ab_rpm_install(rpms, nrpms, root, b->opt.keyring, &why, err)
		: AB_RPM_OK;
	free(rpms);
	if (v == AB_RPM_ERROR)
		return -1;
	if (v == AB_RPM_REFUSED) {
		*reason = why;
		return 1;
	}
	return 0;
}

/* Unpacks what is not in root yet (not the early root's, not installed
 * RPMs) and lists every artifact's path in list. 0, 1 with *reason when
 * one is refused, -1 with err. A Ctrl-C stops it at once (exit 4): the
 * terminal's SIGINT reaches the unpack helper too, whose death by it
 * is then the interruption, not a failure. */
static int unpack_artifacts(const ab_bisect *b, const ab_build *bd, const ab_fetch_item *items,
			    const char *root, int unpacked, ab_buf *list, char **reason,
			    ab_error *err)
{
	size_t i;

	for (i = 0; i < bd->nartifacts; i++) {
		char *why = NULL;
		ab_unpack_rc u;

		if (unpacked || (b->opt.install_rpm && bd->artifacts[i].type == AB_ART_RPM))
			goto listed;
		u = ab_unpack_cancellable(items[i].path, bd->artifacts[i].type,
					  bd->artifacts[i].filename, root, b->opt.cancel, &why, err);
		if (u == AB_UNPACK_ERROR)
			return -1;
		if (u == AB_UNPACK_REFUSED) {
			*reason = ab_xasprintf("%s: %s", bd->artifacts[i].filename, why ? why : "?");
			free(why);
			return 1;
		}
listed:
		if (i)
			ab_buf_puts(list, "\n");
		ab_buf_puts(list, items[i].path);
	}
	return 0;
}

/* Downloads, verifies and unpacks one build. Returns 0 and *root when
 * ready, 1 with *reason when the build is unavailable, -1 with err. */
int bisect_prepare(ab_bisect *b, ab_cache *cache, const ab_bisect_callbacks *cb,
		   size_t idx, char **root, char **artifacts, char **reason, ab_error *err)
{
	const ab_build *bd = &b->index->builds[idx];
	ab_fetch_item *items = NULL;
	ab_buf list = {0};
	size_t nitems = 0;
	int rc = 0, unpacked = 0;	/* unpacked: the early root was taken */

	*root = NULL;
	*reason = NULL;
	/* A download running in the background is waited for; what it
	 * found unavailable is not tried again. */
	if (b->prefetch && ab_prefetch_wait(b->prefetch, idx, reason, &cb->fetch) == 1) {
		rc = 1;
		goto out;
	}
	/* A farm's build gets its artifacts now (its listing, checksum list
	 * and signatures), unless the prefetch did it. */
	rc = ab_index_resolve(b->index, idx, reason, err);
	if (rc != 0)
		goto out;
	nitems = bd->nartifacts;
	items = fetch_items_new(b, bd);
	cache_room_for(b, cache, bd);
	rc = download_build(b, cache, cb, bd, items, reason, err);
	if (rc != 0)
		goto out;
	cache_cap_keeping(b, cache, bd);
	rc = verify_rpms(b, bd, items, reason, err);
	if (rc != 0)
		goto out;
	*root = bisect_root_path(b, idx);
	rc = make_root(b, *root, &unpacked, err);
	if (rc != 0)
		goto out;
	if (b->opt.install_rpm) {
		rc = install_rpms(b, bd, items, *root, reason, err);
		if (rc != 0)
			goto out;
	}
	rc = unpack_artifacts(b, bd, items, *root, unpacked, &list, reason, err);
out:
	if (rc != 0 && ab_cancelled(b->opt.cancel) && (rc == 1 || err->code != AB_EXIT_ABORTED)) {
		/* Found unavailable, or failed, while a Ctrl-C stopped the
		 * run: a helper (gpg, an RPM scriptlet) may have died of that
		 * very signal. The build is tried again on resume; no verdict
		 * is recorded for it. */
		free(*reason);
		*reason = NULL;
		ab_error_set(err, AB_EXIT_ABORTED, "%s", _("interrupted"));
		rc = -1;
	}
	if (rc != 0 && *root) {
		ab_remove_tree(*root);
		free(*root);
		*root = NULL;
	}
	*artifacts = rc == 0 ? ab_buf_steal(&list) : NULL;
	ab_buf_free(&list);
	fetch_items_free(items, nitems);
	return rc;
}
