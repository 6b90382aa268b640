/* unpack.c - see unpack.h: the entry point, the caps, plain files, and
 * the small helpers the unpack modules share (unpack_private.h).
 *
 * Archives go to a helper process (unpack_helper.c) that extracts
 * them with every check (unpack_archive.c). A "file" artifact is
 * copied here to root/filename with mode 0755, so that a single
 * downloaded binary can be run by a probe as it is.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/i18n.h"
#include "pkg/unpack_private.h"
#include "base/util.h"

/* Default cap on the bytes one artifact may unpack to. */
#define DEFAULT_MAX_UNPACKED ((uint64_t)16 << 30)
/* Default cap on the entries of one artifact: a kernel's modules
 * package has ~6,000, a whole distribution tree a few hundred thousand. */
#define DEFAULT_MAX_ENTRIES 1000000UL
/* Longest rendering of a name inside a reason, in bytes. */
#define SHOWN_MAX 400

/* ---- rendering foreign text on one line ---- */

/* Appends s so that it stays one printable line: controls, invalid UTF-8,
 * backslash and quote are escaped (\n, \t, \xHH, \u202E...); the result
 * is cut, with "...", past SHOWN_MAX bytes. */
static void render(ab_buf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), start = b->len, i = 0;

	while (i < n) {
		char tmp[16];
		uint32_t c;
		size_t len = ab_utf8_len(s + i, n - i, &c);

		if (len == 0) {
			snprintf(tmp, sizeof tmp, "\\x%02x", s[i]);
			len = 1;
		} else if (c == '\n') {
			strcpy(tmp, "\\n");
		} else if (c == '\t') {
			strcpy(tmp, "\\t");
		} else if (c == '\r') {
			strcpy(tmp, "\\r");
		} else if (c == '\\' || c == '\'') {
			snprintf(tmp, sizeof tmp, "\\%c", (char)c);
		} else if (ab_hidden_cp(c)) {
			if (c < 0x100)
				snprintf(tmp, sizeof tmp, "\\x%02" PRIx32, c);
			else
				snprintf(tmp, sizeof tmp, "\\u%04" PRIX32, c);
		} else {
			memcpy(tmp, s + i, len);
			tmp[len] = '\0';
		}
		if (b->len - start + strlen(tmp) > SHOWN_MAX) {
			ab_buf_puts(b, "...");
			return;
		}
		ab_buf_puts(b, tmp);
		i += len;
	}
}

char *ab_unpack_shown(const char *s)
{
	ab_buf b = {0};

	ab_buf_puts(&b, "");
	render(&b, s ? s : "");
	return ab_buf_steal(&b);
}

bool ab_unpack_local_errno(int e)
{
	switch (e) {
	case ENOSPC:
#ifdef EDQUOT
	case EDQUOT:
#endif
	case EROFS:
	case EIO:
	case EFBIG:
	case ENOMEM:
	case EMFILE:
	case ENFILE:
		return true;
	default:
		return false;
	}
}

int ab_unpack_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* ---- plain files ---- */

static ab_unpack_rc copy_file(int src, const char *path, const char *filename,
			      const char *root, uint64_t max, const struct stat *sst,
			      char **text, ab_error *err)
{
	char buf[65536];
	int rfd, fd = -1, e = 0;
	char *s;

	if (!*filename || strchr(filename, '/') || !strcmp(filename, ".") ||
	    !strcmp(filename, "..")) {
		s = ab_unpack_shown(filename);
		*text = ab_xasprintf(_("unsafe file name '%s'"), s);
		free(s);
		return AB_UNPACK_REFUSED;
	}
	if ((uint64_t)sst->st_size > max) {
		s = ab_unpack_shown(filename);
		*text = ab_xasprintf(_("unpacked size exceeds %" PRIu64 " bytes at entry '%s'"),
				     max, s);
		free(s);
		return AB_UNPACK_REFUSED;
	}
	rfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0) {
		e = errno;
		goto fail;
	}
	/* Whatever is there already (a symlink of an earlier artifact, say)
	 * is replaced, never written through. */
	fd = openat(rfd, filename, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0755);
	if (fd < 0 && errno == EEXIST && unlinkat(rfd, filename, 0) == 0)
		fd = openat(rfd, filename, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0755);
	if (fd < 0) {
		e = errno;
		close(rfd);
		if (ab_unpack_local_errno(e))
			goto fail;
		s = ab_unpack_shown(filename);
		*text = ab_xasprintf(_("cannot create '%s': %s"), s, strerror(e));
		free(s);
		return AB_UNPACK_REFUSED;
	}
	close(rfd);
	for (;;) {
		ssize_t n = read(src, buf, sizeof buf);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			goto fail;
		}
		if (n == 0)
			break;
		if (ab_unpack_write_all(fd, buf, (size_t)n) < 0) {
			e = errno;
			goto fail;
		}
	}
	if (fchmod(fd, 0755) < 0 || close(fd) < 0) {
		e = errno;
		fd = -1;
		goto fail;
	}
	return AB_UNPACK_OK;
fail:
	if (fd >= 0)
		close(fd);
	ab_error_set(err, AB_EXIT_FAILURE, _("cannot unpack %s into %s: %s"), path, root,
		     strerror(e));
	return AB_UNPACK_ERROR;
}

/* ---- entry point ---- */

/* A cap from the environment variable var, or dflt; -1 when the
 * variable is not a plain number. */
static int env_cap(const char *var, unsigned long long dflt, unsigned long long *max)
{
	const char *v = getenv(var);
	char *end;
	unsigned long long n;

	*max = dflt;
	if (!v || !*v)
		return 0;
	if (*v < '0' || *v > '9')
		return -1;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || *end)
		return -1;
	*max = n;
	return 0;
}

ab_unpack_rc ab_unpack(const char *path, ab_artifact_type type,
		       const char *filename, const char *root,
		       char **reason, ab_error *err)
{
	return ab_unpack_cancellable(path, type, filename, root, NULL, reason, err);
}

ab_unpack_rc ab_unpack_cancellable(const char *path, ab_artifact_type type,
				   const char *filename, const char *root,
				   const volatile sig_atomic_t *cancel,
				   char **reason, ab_error *err)
{
	struct stat st;
	struct ab_unpack_limits lim;
	unsigned long long n;
	char *text = NULL;
	ab_unpack_rc rc;
	int src;

	if (reason)
		*reason = NULL;
	switch (type) {
	case AB_ART_RPM:
	case AB_ART_DEB:
	case AB_ART_TAR:
	case AB_ART_ZIP:
	case AB_ART_FILE:
		break;
	default:
		text = ab_xstrdup(_("unknown artifact type"));
		rc = AB_UNPACK_REFUSED;
		goto out;
	}
	if (env_cap("ARTBISECT_MAX_UNPACKED", DEFAULT_MAX_UNPACKED, &n) < 0) {
		ab_error_set(err, AB_EXIT_USAGE,
			     _("ARTBISECT_MAX_UNPACKED must be a number of bytes, not '%s'"),
			     getenv("ARTBISECT_MAX_UNPACKED"));
		return AB_UNPACK_ERROR;
	}
	lim.bytes = n;
	if (env_cap("ARTBISECT_MAX_ENTRIES", DEFAULT_MAX_ENTRIES, &n) < 0 || n > ULONG_MAX) {
		ab_error_set(err, AB_EXIT_USAGE,
			     _("ARTBISECT_MAX_ENTRIES must be a number of entries, not '%s'"),
			     getenv("ARTBISECT_MAX_ENTRIES"));
		return AB_UNPACK_ERROR;
	}
	lim.entries = (unsigned long)n;
	if (stat(root, &st) < 0 || (!S_ISDIR(st.st_mode) && (errno = ENOTDIR))) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot unpack into %s: %s"), root,
			     strerror(errno));
		return AB_UNPACK_ERROR;
	}
	/* Opened here, before the child changes directory: path may be
	 * relative. */
	src = open(path, O_RDONLY | O_CLOEXEC);
	if (src < 0 || fstat(src, &st) < 0 || (!S_ISREG(st.st_mode) && (errno = EINVAL))) {
		int e = errno;

		if (src >= 0)
			close(src);
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot read %s: %s"), path, strerror(e));
		return AB_UNPACK_ERROR;
	}
	if (type == AB_ART_FILE)
		rc = copy_file(src, path, filename, root, lim.bytes, &st, &text, err);
	else
		rc = ab_unpack_in_helper(src, type, path, root, &lim, cancel, &text, err);
	close(src);
out:
	if (reason && rc == AB_UNPACK_REFUSED)
		*reason = text;
	else
		free(text);
	return rc;
}
