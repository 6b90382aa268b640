/* deb.c - see deb.h. */
#include "config.h"
#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>
#include "pkg/deb.h"
#include "pkg/debver.h"
#include "base/i18n.h"
#include "base/util.h"

#define CONTROL_MAX (1 << 20)	/* a control file larger than this is not one */

struct nested {
	struct archive *outer;
	char buf[65536];
};

static la_ssize_t outer_read(struct archive *a, void *ud, const void **buf)
{
	struct nested *n = ud;
	la_ssize_t got = archive_read_data(n->outer, n->buf, sizeof n->buf);

	*buf = n->buf;
	if (got < 0)
		archive_set_error(a, archive_errno(n->outer), "%s",
				  archive_error_string(n->outer) ? archive_error_string(n->outer)
				  : "read error");
	return got;
}

/* The value of field name in an RFC 822 style stanza (continuation lines
 * joined with newlines), or NULL. Caller frees. */
static char *field(const char *text, const char *name)
{
	size_t n = strlen(name);
	const char *line = text;

	while (line && *line) {
		const char *nl = strchr(line, '\n');

		if (!strncasecmp(line, name, n) && line[n] == ':') {
			const char *v = line + n + 1, *end;
			ab_buf out = {0};

			while (*v == ' ' || *v == '\t')
				v++;
			end = nl ? nl : v + strlen(v);
			ab_buf_append(&out, v, (size_t)(end - v));
			/* Continuation lines start with a space or a tab. */
			while (nl && (nl[1] == ' ' || nl[1] == '\t')) {
				const char *next = strchr(nl + 1, '\n');

				end = next ? next : nl + 1 + strlen(nl + 1);
				ab_buf_puts(&out, "\n");
				ab_buf_append(&out, nl + 2, (size_t)(end - nl - 2));
				nl = next;
			}
			while (out.len && isspace((unsigned char)out.data[out.len - 1]))
				out.data[--out.len] = '\0';
			return ab_buf_steal(&out);
		}
		line = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/* Reads the control file out of the control.tar member now open in
 * outer. 0 with *text, or a reason. */
static int read_control(struct archive *outer, char **text, char **reason)
{
	struct nested *n = ab_xmalloc(sizeof *n);
	struct archive *in = archive_read_new();
	struct archive_entry *e;
	int r, rc = -1;

	n->outer = outer;
	archive_read_support_filter_all(in);
	archive_read_support_format_tar(in);
	if (archive_read_open(in, n, NULL, outer_read, NULL) != ARCHIVE_OK) {
		*reason = ab_xasprintf(_("control member: %s"), archive_error_string(in));
		goto out;
	}
	for (;;) {
		const char *name;

		r = archive_read_next_header(in, &e);
		if (r == ARCHIVE_EOF) {
			*reason = ab_xstrdup(_("control member has no control file"));
			goto out;
		}
		if (r < ARCHIVE_WARN) {
			*reason = ab_xasprintf(_("control member: %s"), archive_error_string(in));
			goto out;
		}
		name = archive_entry_pathname(e);
		if (name && (!strcmp(name, "./control") || !strcmp(name, "control")))
			break;
	}
	{
		ab_buf b = {0};
		char chunk[8192];
		la_ssize_t got;

		while ((got = archive_read_data(in, chunk, sizeof chunk)) > 0) {
			if (b.len + (size_t)got > CONTROL_MAX) {
				*reason = ab_xasprintf(_("control file is larger than %d bytes"),
						       CONTROL_MAX);
				ab_buf_free(&b);
				goto out;
			}
			ab_buf_append(&b, chunk, (size_t)got);
		}
		if (got < 0) {
			*reason = ab_xasprintf(_("control member: %s"), archive_error_string(in));
			ab_buf_free(&b);
			goto out;
		}
		if (!b.len || strlen(b.data) != b.len) {
			*reason = ab_xstrdup(_("control file is empty or not text"));
			ab_buf_free(&b);
			goto out;
		}
		*text = ab_buf_steal(&b);
		rc = 0;
	}
out:
	archive_read_free(in);
	free(n);
	return rc;
}

/* A field value as shown in a reason: one line, at most 60 bytes. */
static char *shown(const char *v)
{
	char *s = ab_xstrndup(v, 60);
	char *p;

	for (p = s; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
	return s;
}

/* Opens the ar archive at path: AB_DEB_OK, AB_DEB_ERROR with err when
 * the file cannot be read, AB_DEB_REFUSED with a reason when it is no ar
 * archive. */
static ab_deb_rc open_ar(struct archive *a, const char *path, char **reason, ab_error *err)
{
	archive_read_support_format_ar(a);
	if (archive_read_open_filename(a, path, 65536) != ARCHIVE_OK) {
		if (archive_errno(a) == ENOENT || archive_errno(a) == EACCES) {
			ab_error_set(err, AB_EXIT_FAILURE, _("cannot read %s: %s"), path,
				     archive_error_string(a));
			return AB_DEB_ERROR;
		}
		*reason = ab_xstrdup(_("not a Debian package: not an ar archive"));
		return AB_DEB_REFUSED;
	}
	return AB_DEB_OK;
}

/* The first member, now open in a, must be debian-binary saying 2.x. */
static int check_debian_binary(struct archive *a, const char *name, char **reason)
{
	char magic[16] = {0};

	if (strcmp(name, "debian-binary")) {
		*reason = ab_xstrdup(_("not a Debian package: no debian-binary member"));
		return -1;
	}
	if (archive_read_data(a, magic, sizeof magic - 1) < 2 ||
	    strncmp(magic, "2.", 2)) {
		*reason = ab_xstrdup(_("not a Debian package: debian-binary is not format 2.x"));
		return -1;
	}
	return 0;
}

/* Moves a to the control.tar member, checking debian-binary on the way;
 * -1 with a reason. */
static int find_control_member(struct archive *a, char **reason)
{
	struct archive_entry *e;
	bool first = true;
	int r;

	for (;;) {
		const char *name;

		r = archive_read_next_header(a, &e);
		if (r == ARCHIVE_EOF) {
			*reason = ab_xstrdup(first ? _("not a Debian package: not an ar archive")
					     : _("not a Debian package: no control member"));
			return -1;
		}
		if (r < ARCHIVE_WARN) {
			*reason = ab_xstrdup(first ? _("not a Debian package: not an ar archive")
					     : _("damaged Debian package: cannot read its members"));
			return -1;
		}
		name = archive_entry_pathname(e);
		if (!name)
			name = "";
		if (first) {
			first = false;
			if (check_debian_binary(a, name, reason) < 0)
				return -1;
			continue;
		}
		if (!strncmp(name, "control.tar", 11))
			return 0;
	}
}

/* What info needs from the control file; -1 with a reason (info then
 * partly filled, for the caller to free). */
static int info_from_control(const char *control, ab_pkg_info *info, char **reason)
{
	char *version;
	const char *why = NULL, *colon;
	int rc = -1;

	info->kind = AB_PKG_DEB;
	info->buildtime = -1;
	info->name = field(control, "Package");
	version = field(control, "Version");
	info->arch = field(control, "Architecture");
	if (!info->name || !*info->name) {
		*reason = ab_xstrdup(_("control: no Package field"));
		goto out;
	}
	if (!version || !*version) {
		*reason = ab_xstrdup(_("control: no Version field"));
		goto out;
	}
	if (!ab_debver_valid(version, &why)) {
		char *s = shown(version);

		*reason = ab_xasprintf(_("control: Version: %s: '%s'"), why, s);
		free(s);
		goto out;
	}
	colon = strchr(version, ':');
	if (colon) {
		info->epoch = ab_xstrndup(version, (size_t)(colon - version));
		info->version = ab_xstrdup(colon + 1);
	} else {
		info->version = ab_xstrdup(version);
	}
	info->commit = ab_pkg_commit_from_version(info->version);
	rc = 0;
out:
	free(version);
	return rc;
}

ab_deb_rc ab_deb_read_info(const char *path, ab_pkg_info *info, char **reason,
			   ab_error *err)
{
	struct archive *a = archive_read_new();
	char *control = NULL;
	ab_deb_rc rc;

	memset(info, 0, sizeof *info);
	*reason = NULL;
	rc = open_ar(a, path, reason, err);
	if (rc != AB_DEB_OK)
		goto out;
	rc = AB_DEB_REFUSED;
	if (find_control_member(a, reason) < 0 || read_control(a, &control, reason) < 0 ||
	    info_from_control(control, info, reason) < 0)
		goto out;
	rc = AB_DEB_OK;
out:
	if (rc != AB_DEB_OK)
		ab_pkg_info_free(info);
	free(control);
	archive_read_free(a);
	return rc;
}
