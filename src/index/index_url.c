/* index_url.c - the index's URLs and file names: which schemes it takes,
 * percent decoding, the label of an index, the URL of a --index argument,
 * the local path of a file:// URL, resolving artifact and mirror URLs
 * against the index URL (index_url_resolve, for index.c), and artifact
 * types by file name.
 *
 * Works on strings with libcurl's URL API; never reads the document,
 * never looks a build up, never opens a file or a connection and never
 * prints.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <curl/curl.h>
#include "base/i18n.h"
#include "base/arena.h"
#include "index/index_internal.h"
#include "base/util.h"

static int strcase_eq(const char *a, const char *b)
{
	while (*a && lc((unsigned char)*a) == lc((unsigned char)*b))
		a++, b++;
	return *a == '\0' && *b == '\0';
}

/* Length of the URL scheme at the start of s (RFC 3986: ALPHA *( ALPHA /
 * DIGIT / "+" / "-" / "." ) ":"), without the colon; 0 when there is none. */
static size_t scheme_len(const char *s)
{
	size_t i;

	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return 0;
	for (i = 1; s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == ':')
			return i;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      is_digit(c) || c == '+' || c == '-' || c == '.'))
			return 0;
	}
	return 0;
}

static int scheme_supported(const char *s, size_t n)
{
	static const char *const ok[] = { "http", "https", "file" };
	size_t i, j;

	for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		if (strlen(ok[i]) != n)
			continue;
		for (j = 0; j < n && lc((unsigned char)s[j]) == (unsigned char)ok[i][j]; j++)
			;
		if (j == n)
			return 1;
	}
	return 0;
}

/* Percent-decodes s[0..n); invalid escapes stay as they are. */
static char *percent_decode(const char *s, size_t n, size_t *outlen)
{
	char *out = ab_xmalloc(n + 1), *o = out;
	size_t i;
	int h, l;

	for (i = 0; i < n; i++) {
		if (s[i] == '%' && n - i > 2 && (h = hexval((unsigned char)s[i + 1])) >= 0 &&
		    (l = hexval((unsigned char)s[i + 2])) >= 0) {
			*o++ = (char)(h * 16 + l);
			i += 2;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	*outlen = (size_t)(o - out);
	return out;
}

/* The last segment of the URL path path[0..n), percent-decoded, with '/',
 * NUL and control bytes (C1 ones in UTF-8 too: U+009B starts a terminal
 * sequence as ESC [ does) made '_'; NULL when it is empty, "." or "..". */
static char *last_segment(const char *path, size_t n)
{
	const char *seg = path, *s;
	size_t len, i;
	char *name;

	for (s = path; s < path + n; s++)
		if (*s == '/')
			seg = s + 1;
	name = percent_decode(seg, (size_t)(path + n - seg), &len);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];
		if (c == '/' || c < 0x20 || c == 0x7f)
			name[i] = '_';
		else if (c == 0xc2 && i + 1 < len && (unsigned char)name[i + 1] >= 0x80 &&
			 (unsigned char)name[i + 1] <= 0x9f)
			name[i] = name[i + 1] = '_';
	}
	if (!strcmp(name, "") || !strcmp(name, ".") || !strcmp(name, "..")) {
		free(name);
		return NULL;
	}
	return name;
}

/* Characters kept as they are in a URL path: RFC 3986 unreserved,
 * sub-delims, ':', '@' and '/'. */
static int path_char_plain(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c))
		return 1;
	return c && strchr("-._~/!$&'()*+,;=:@", c) != NULL;
}

/* ---------------------------------------------------------------------
 * Public URL helpers
 */

char *ab_index_label(const char *url)
{
	const char *p, *q;
	size_t sl;
	char *label;

	if (!url)
		return ab_xstrdup("index");
	p = url;
	sl = scheme_len(url);
	if (sl && !strncmp(url + sl, "://", 3)) {
		p = url + sl + 3;
		while (*p && *p != '/' && *p != '?' && *p != '#')
			p++;
	}
	for (q = p; *q && *q != '?' && *q != '#'; q++)
		;
	label = last_segment(p, (size_t)(q - p));
	return label ? label : ab_xstrdup("index");
}

static char *normalize_url(const char *url, unsigned flags, CURLUcode *rcp)
{
	CURLU *h = curl_url();
	char *out = NULL, *ret = NULL;
	CURLUcode rc;

	if (!h)
		abort();
	rc = curl_url_set(h, CURLUPART_URL, url, flags);
	if (!rc)
		rc = curl_url_get(h, CURLUPART_URL, &out, 0);
	if (!rc) {
		ret = ab_xstrdup(out);
		curl_free(out);
	}
	curl_url_cleanup(h);
	*rcp = rc;
	return ret;
}

/* curl refuses to decode a %00, so the path is whole. */
char *ab_index_local_path(const char *url)
{
	CURLU *h = curl_url();
	char *host = NULL, *path = NULL, *ret = NULL;

	if (!h)
		abort();
	if (url && !strncmp(url, "file://", 7) &&
	    !curl_url_set(h, CURLUPART_URL, url, 0) &&
	    (curl_url_get(h, CURLUPART_HOST, &host, 0) == CURLUE_NO_HOST || (host && (!*host ||
	     strcase_eq(host, "localhost")))) &&
	    !curl_url_get(h, CURLUPART_PATH, &path, CURLU_URLDECODE) && path[0] == '/')
		ret = ab_xstrdup(path);
	curl_free(host);
	curl_free(path);
	curl_url_cleanup(h);
	return ret;
}

char *ab_index_source_url(const char *arg, ab_error *err)
{
	size_t sl;
	char *path, *url, *slash;
	const char *base;
	ab_buf b = {0};
	CURLUcode rc;
	const unsigned char *s;

	if (!arg || !*arg) {
		ab_error_set(err, AB_EXIT_USAGE, _("the index location is empty"));
		return NULL;
	}
	sl = scheme_len(arg);
	if (sl && !strncmp(arg + sl, "://", 3)) {
		if (!scheme_supported(arg, sl)) {
			ab_error_set(err, AB_EXIT_USAGE,
				     _("'%s': unsupported index URL scheme '%.*s' (use http://, https://, file:// or a local path)"),
				     arg, (int)sl, arg);
			return NULL;
		}
		url = normalize_url(arg, CURLU_ALLOW_SPACE | CURLU_URLENCODE, &rc);
		if (!url)
			ab_error_set(err, AB_EXIT_USAGE, _("'%s': not a valid URL: %s"),
				     arg, curl_url_strerror(rc));
		return url;
	}

	/* A local path: make it absolute. The directory goes through
	 * realpath() so that ".." means what the file system says; the last
	 * component is kept as given (a symlinked index.json keeps its name,
	 * and relative artifact URLs resolve next to it, as over http). */
	if (arg[0] == '/') {
		path = ab_xstrdup(arg);
	} else {
		char *cwd = getcwd(NULL, 0);
		if (!cwd) {
			ab_error_set(err, AB_EXIT_FAILURE,
				     _("'%s': cannot find the current directory: %s"),
				     arg, strerror(errno));
			return NULL;
		}
		path = ab_path_join(cwd, arg);
		free(cwd);
	}
	slash = strrchr(path, '/');
	base = slash + 1;
	if (*base && strcmp(base, ".") && strcmp(base, "..")) {
		char *dir = slash == path ? ab_xstrdup("/") : ab_xstrndup(path, (size_t)(slash - path));
		char *real = realpath(dir, NULL);
		if (real) {
			char *joined = ab_path_join(real, base);
			free(real);
			free(path);
			path = joined;
		}
		free(dir);
	} else {
		char *real = realpath(path, NULL);
		if (real) {
			free(path);
			path = real;
		}
	}
	ab_buf_puts(&b, "file://");
	for (s = (const unsigned char *)path; *s; s++) {
		if (path_char_plain(*s))
			ab_buf_append(&b, s, 1);
		else
			ab_buf_printf(&b, "%%%02X", *s);
	}
	free(path);
	url = normalize_url(b.data, 0, &rc);
	if (!url)
		ab_error_set(err, AB_EXIT_USAGE, _("'%s': cannot make a file:// URL of it: %s"),
			     arg, curl_url_strerror(rc));
	ab_buf_free(&b);
	return url;
}

const char *ab_artifact_type_name(ab_artifact_type t)
{
	switch (t) {
	case AB_ART_TAR:
		return "tar";
	case AB_ART_ZIP:
		return "zip";
	case AB_ART_RPM:
		return "rpm";
	case AB_ART_DEB:
		return "deb";
	case AB_ART_FILE:
		return "file";
	}
	return "?";
}

/* ---------------------------------------------------------------------
 * Artifact URLs
 */

int index_url_base_init(struct url_base *ub, const char *source_url, const char **why)
{
	CURLU *h;
	char *scheme = NULL, *x = NULL;
	CURLUcode rc;

	ub->base = curl_url();
	if (!ub->base)
		abort();
	rc = curl_url_set(ub->base, CURLUPART_URL, source_url, CURLU_ALLOW_SPACE | CURLU_URLENCODE);
	if (!rc)
		rc = curl_url_get(ub->base, CURLUPART_SCHEME, &scheme, 0);
	if (rc) {
		*why = curl_url_strerror(rc);
		return -1;
	}
	if (!scheme_supported(scheme, strlen(scheme))) {
		curl_free(scheme);
		*why = _("unsupported URL scheme");
		return -1;
	}
	ub->remote = lc((unsigned char)scheme[0]) == 'h';
	curl_free(scheme);

	/* The prefix every plain relative reference is appended to. */
	h = curl_url_dup(ub->base);
	if (!h)
		abort();
	if (!curl_url_set(h, CURLUPART_URL, "x", 0) &&
	    !curl_url_get(h, CURLUPART_URL, &x, 0)) {
		size_t n = strlen(x);
		if (n >= 2 && x[n - 1] == 'x' && x[n - 2] == '/') {
			ub->dir = ab_xstrndup(x, n - 1);
			ub->dirlen = n - 1;
		}
		curl_free(x);
	}
	curl_url_cleanup(h);
	return 0;
}

void index_url_base_free(struct url_base *ub)
{
	curl_url_cleanup(ub->base);
	free(ub->dir);
}

/* A relative reference that resolving only appends to the base directory
 * (so CURLU can be skipped, which matters a million times over): plain
 * path characters but ':' (it could start a scheme), no leading '/', no
 * "." or ".." segment. */
static int url_is_simple(const char *s, size_t n)
{
	size_t i, seg = 0;

	if (n == 0 || s[0] == '/')
		return 0;
	for (i = 0; i <= n; i++) {
		if (i == n || s[i] == '/') {
			size_t l = i - seg;
			if ((l == 1 && s[seg] == '.') ||
			    (l == 2 && s[seg] == '.' && s[seg + 1] == '.'))
				return 0;
			seg = i + 1;
			continue;
		}
		if (s[i] == ':' || !path_char_plain((unsigned char)s[i]))
			return 0;
	}
	return 1;
}

/* Resolves ref (n bytes) against the index URL. On failure returns -1
 * with a reason in why. */
int index_url_resolve(const struct url_base *ub, ab_arena *arena, const char *ref, size_t n,
		      char **url, char **filename, int *named, char *why, size_t whylen)
{
	CURLU *h;
	CURLUcode rc;
	char *out = NULL, *scheme = NULL, *path = NULL, *fname;
	size_t sl;
	int ret = -1;

	if (ub->dir && url_is_simple(ref, n)) {
		char *u = ab_arena_concat(arena, ub->dir, ub->dirlen, ref, n);

		*url = u;
		/* No '%' and no dot segment: the last segment is the name, the
		 * end of the URL itself (the arena frees both at once). */
		for (sl = n; sl > 0 && ref[sl - 1] != '/'; sl--)
			;
		*named = sl < n;
		*filename = *named ? u + ub->dirlen + sl : ab_arena_strndup(arena, "artifact", 8);
		return 0;
	}

	sl = scheme_len(ref);
	if (sl && !scheme_supported(ref, sl)) {
		snprintf(why, whylen, _("unsupported URL scheme '%.*s' (use http, https or file)"),
			 (int)(sl > CLIP ? CLIP : sl), ref);
		return -1;
	}
	h = curl_url_dup(ub->base);
	if (!h)
		abort();
	rc = curl_url_set(h, CURLUPART_URL, ref, CURLU_ALLOW_SPACE | CURLU_URLENCODE);
	if (!rc)
		rc = curl_url_get(h, CURLUPART_SCHEME, &scheme, 0);
	if (!rc)
		rc = curl_url_get(h, CURLUPART_URL, &out, 0);
	if (!rc)
		rc = curl_url_get(h, CURLUPART_PATH, &path, 0);
	if (rc) {
		snprintf(why, whylen, _("cannot resolve '%.*s' against the index URL: %s"),
			 CLIP, ref, curl_url_strerror(rc));
		goto out;
	}
	if (!scheme_supported(scheme, strlen(scheme))) {
		snprintf(why, whylen, _("unsupported URL scheme '%.*s' (use http, https or file)"),
			 CLIP, scheme);
		goto out;
	}
	if (ub->remote && strcase_eq(scheme, "file")) {
		snprintf(why, whylen, _("'%.*s': file:// URLs are not allowed in an index served over http or https"),
			 CLIP, ref);
		goto out;
	}
	*url = ab_arena_strndup(arena, out, strlen(out));
	fname = last_segment(path, strlen(path));
	*named = fname != NULL;
	*filename = ab_arena_strndup(arena, fname ? fname : "artifact", strlen(fname ? fname : "artifact"));
	free(fname);
	ret = 0;
out:
	curl_free(scheme);
	curl_free(out);
	curl_free(path);
	curl_url_cleanup(h);
	return ret;
}

int ab_artifact_type_guess(const char *filename, ab_artifact_type *t, size_t *suffix_len)
{
	static const struct {
		const char *suffix;
		ab_artifact_type type;
	} table[] = {
		{ ".rpm", AB_ART_RPM },
		{ ".deb", AB_ART_DEB }, { ".udeb", AB_ART_DEB }, { ".ddeb", AB_ART_DEB },
		{ ".zip", AB_ART_ZIP },
		{ ".tar", AB_ART_TAR }, { ".tar.gz", AB_ART_TAR }, { ".tgz", AB_ART_TAR },
		{ ".tar.xz", AB_ART_TAR }, { ".txz", AB_ART_TAR },
		{ ".tar.zst", AB_ART_TAR }, { ".tar.zstd", AB_ART_TAR }, { ".tzst", AB_ART_TAR },
		{ ".tar.bz2", AB_ART_TAR }, { ".tbz2", AB_ART_TAR }, { ".tbz", AB_ART_TAR },
		{ ".tar.lz4", AB_ART_TAR }, { ".tar.lzma", AB_ART_TAR }, { ".tar.lz", AB_ART_TAR },
		{ ".tar.z", AB_ART_TAR },
	};
	size_t n = strlen(filename), i;

	for (i = 0; i < sizeof table / sizeof table[0]; i++) {
		size_t sl = strlen(table[i].suffix);
		if (n > sl && strcase_eq(filename + n - sl, table[i].suffix)) {
			*t = table[i].type;
			if (suffix_len)
				*suffix_len = sl;
			return 0;
		}
	}
	return -1;
}
