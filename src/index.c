/* index.c - see index.h.
 *
 * jansson parses the document; this file walks the tree it builds,
 * checks it against CONTRACT.md section 1, and copies out what index.h
 * holds. Each build's JSON is dropped as soon as it is copied, so that
 * the index grows into the memory the tree gives back. Owns the lookup
 * tables behind ab_index_find (ids hashed, commits sorted). Never opens a
 * file or a connection and never prints.
 *
 * What is accepted is what jansson accepts with JSON_REJECT_DUPLICATES:
 * RFC 8259 JSON, UTF-8 checked, no \u0000 in any string, no key twice in
 * any object (which of two "sha256" would win is not a question to leave
 * open), nesting no deeper than jansson's limit (2048 in 2.14), numbers
 * jansson can hold (64-bit integers, finite doubles) even where they are
 * ignored. A leading UTF-8 byte order mark is skipped. Keys artbisect does not know are ignored: that
 * is the forward compatibility CONTRACT.md section 1 asks for.
 *
 * A syntax error is named by line and column, as jansson gives them; any
 * other refusal by its place, as in builds[12].artifacts[0].sha256.
 *
 * Failed builds: their "artifacts", if any, are dropped unread
 * (nartifacts is 0). A farm that could not finish a build may well list
 * half-made artifacts without a sha256, and a failed build is never
 * downloaded, so refusing the whole index over it would help nobody.
 */
#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/random.h>
#include <unistd.h>
#include <curl/curl.h>
#include <jansson.h>
#include "i18n.h"
#include "arena.h"
#include "escape.h"
#include "index.h"
#include "util.h"

#define MAX_INDEX_BYTES ((size_t)1 << 30)	/* 1 GiB: jansson needs about 8 times that */
#define MIN_PREFIX 7
/* Ids longer than this are not looked at for "did you mean". */
#define NEAR_LEN_MAX 128
/* The longest string field (an URL with a long query fits). */
#define MAX_FIELD 65536
#define CLIP 200		/* longest piece of the document quoted back */

/* The id table keeps positions in 32 bits; a build takes at least 2 bytes. */
_Static_assert(MAX_INDEX_BYTES / 2 < UINT32_MAX, "build positions must fit in 32 bits");

static const char format_name[] = "artbisect-index";

/* ---------------------------------------------------------------------
 * Small helpers
 */

static inline unsigned char lc(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

static inline int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static inline int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = lc(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

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
 * NUL and control bytes made '_'; NULL when it is empty, "." or "..". */
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

struct url_base {
	CURLU *base;
	char *dir;		/* base URL with "x" resolved, minus the "x" */
	size_t dirlen;
	int remote;		/* the index is served over http(s) */
};

static int url_base_init(struct url_base *ub, const char *source_url, const char **why)
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

static void url_base_free(struct url_base *ub)
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
static int url_resolve(const struct url_base *ub, ab_arena *arena, const char *ref, size_t n,
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

/* ---------------------------------------------------------------------
 * Lookup: ids in an open-addressing hash table (SipHash-1-3 with a key
 * drawn per index, so that crafted ids cannot force collisions), commits
 * in an array sorted case-insensitively.
 */

struct commit_ent {
	uint64_t key;		/* first 8 bytes, lowercased, big-endian */
	const char *commit;
	size_t pos;
};

struct ab_index_lookup {
	uint64_t *slots;	/* hash high half << 32 | position + 1; 0 = empty */
	size_t mask;
	uint64_t k0, k1;
	struct commit_ent *commits;
	size_t ncommits;
	/* Commits are noted and sorted the first time a name is looked up as
	 * one: a run that names builds by id (most do) never pays for it. */
	pthread_mutex_t sort_lock;
	int sorted;
};

#define HI32 0xffffffff00000000ULL

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND do { \
	v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32); \
	v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2; \
	v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0; \
	v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32); \
} while (0)

static uint64_t siphash13(const char *data, size_t len, uint64_t k0, uint64_t k1)
{
	const unsigned char *in = (const unsigned char *)data;
	uint64_t v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1;
	uint64_t v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
	uint64_t m, b = (uint64_t)len << 56;
	size_t left = len & 7, i;
	const unsigned char *stop = in + (len - left);

	for (; in != stop; in += 8) {
		m = 0;
		for (i = 0; i < 8; i++)
			m |= (uint64_t)in[i] << (8 * i);
		v3 ^= m;
		SIPROUND;
		v0 ^= m;
	}
	for (i = 0; i < left; i++)
		b |= (uint64_t)in[i] << (8 * i);
	v3 ^= b;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

/* Looks id up in the table: its position, or -1 with *slot the free slot
 * it would take and *tag what to put there besides the position. */
static ssize_t id_probe(const struct ab_index_lookup *L, const ab_build *builds, const char *id,
			size_t *slot, uint64_t *tag)
{
	uint64_t h = siphash13(id, strlen(id), L->k0, L->k1);
	size_t i;

	*tag = h & HI32;
	for (i = (size_t)h & L->mask; L->slots[i]; i = (i + 1) & L->mask) {
		if ((L->slots[i] & HI32) == *tag) {
			size_t pos = (size_t)(L->slots[i] & ~HI32) - 1;
			if (!strcmp(builds[pos].id, id))
				return (ssize_t)pos;
		}
	}
	*slot = i;
	return -1;
}

static int commit_cmp(const void *pa, const void *pb)
{
	const struct commit_ent *a = pa, *b = pb;
	const unsigned char *x, *y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	/* Equal keys: both strings are at least 8 bytes long or equal. */
	if (strlen(a->commit) >= 8) {
		for (x = (const unsigned char *)a->commit + 8,
		     y = (const unsigned char *)b->commit + 8; *x && lc(*x) == lc(*y); x++, y++)
			;
		if (lc(*x) != lc(*y))
			return lc(*x) < lc(*y) ? -1 : 1;
	}
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Sorts by key with a stable LSD radix sort (qsort on a million entries
 * costs a good part of the parse), then puts the rare runs of equal keys
 * in full order with commit_cmp. */
static void sort_commits(struct commit_ent *v, size_t n)
{
	struct commit_ent *tmp, *src = v, *dst;
	size_t count[256], i, run;
	int shift;

	if (n < 2)
		return;
	tmp = ab_xmalloc(n * sizeof *tmp);
	dst = tmp;
	for (shift = 0; shift < 64; shift += 8) {
		size_t sum = 0;

		memset(count, 0, sizeof count);
		for (i = 0; i < n; i++)
			count[(src[i].key >> shift) & 0xff]++;
		if (count[(src[0].key >> shift) & 0xff] == n)
			continue;	/* every key has the same byte here */
		for (i = 0; i < 256; i++) {
			size_t c = count[i];
			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[(src[i].key >> shift) & 0xff]++] = src[i];
		dst = src;
		src = src == v ? tmp : v;
	}
	if (src != v)
		memcpy(v, src, n * sizeof *v);
	free(tmp);
	for (i = 0; i < n; i = run) {
		for (run = i + 1; run < n && v[run].key == v[i].key; run++)
			;
		if (run - i > 1)
			qsort(v + i, run - i, sizeof *v, commit_cmp);
	}
}

/* Compares the first n characters of commit with prefix, ignoring case;
 * 0 when commit starts with prefix. */
static int prefix_cmp(const char *commit, const char *prefix, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char a = lc((unsigned char)commit[i]), b = lc((unsigned char)prefix[i]);
		if (a != b)
			return a < b ? -1 : 1;
	}
	return 0;
}

static struct ab_index_lookup *lookup_new(size_t nbuilds)
{
	struct ab_index_lookup *L = ab_xcalloc(1, sizeof *L);
	size_t cap = 16;

	while (cap < 2 * nbuilds)
		cap *= 2;
	L->slots = ab_xcalloc_big(cap, sizeof *L->slots);
	L->mask = cap - 1;
	pthread_mutex_init(&L->sort_lock, NULL);
	if (getentropy(&L->k0, sizeof L->k0) < 0 || getentropy(&L->k1, sizeof L->k1) < 0) {
		L->k0 = (uint64_t)(uintptr_t)L ^ ((uint64_t)getpid() << 32);
		L->k1 = (uint64_t)(ab_now() * 1e9);
	}
	return L;
}

static void lookup_free(struct ab_index_lookup *L)
{
	if (!L)
		return;
	free(L->slots);
	free(L->commits);
	pthread_mutex_destroy(&L->sort_lock);
	free(L);
}

static void commit_entry(struct commit_ent *e, const char *c, size_t pos)
{
	size_t j, n = strlen(c);

	e->key = 0;
	for (j = 0; j < 8; j++)
		e->key = e->key << 8 | (j < n ? lc((unsigned char)c[j]) : 0);
	e->commit = c;
	e->pos = pos;
}

static ssize_t find_id(const ab_index *idx, const char *name)
{
	const struct ab_index_lookup *L = idx->lookup;
	uint64_t tag;
	size_t i;

	if (L)
		return id_probe(L, idx->builds, name, &i, &tag);
	for (i = 0; i < idx->nbuilds; i++)
		if (idx->builds[i].id && !strcmp(idx->builds[i].id, name))
			return (ssize_t)i;
	return -1;
}

/* Finds the range [*lo, *hi) of sorted commits starting with prefix
 * (noting and sorting them first, once). */
static void find_prefix(const ab_index *idx, const char *prefix, size_t *lo, size_t *hi)
{
	struct ab_index_lookup *L = idx->lookup;	/* the order is a cache */
	size_t n = strlen(prefix), a, b, i;

	pthread_mutex_lock(&L->sort_lock);
	if (!L->sorted) {
		L->commits = ab_xmalloc_big((idx->nbuilds ? idx->nbuilds : 1) * sizeof *L->commits);
		for (i = 0; i < idx->nbuilds; i++) {
			const char *c = idx->builds[i].commit;

			if (c && strlen(c) >= MIN_PREFIX)
				commit_entry(&L->commits[L->ncommits++], c, i);
		}
		sort_commits(L->commits, L->ncommits);
		L->sorted = 1;
	}
	pthread_mutex_unlock(&L->sort_lock);
	a = 0;
	b = L->ncommits;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (prefix_cmp(L->commits[m].commit, prefix, n) < 0)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	b = L->ncommits;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (prefix_cmp(L->commits[m].commit, prefix, n) <= 0)
			a = m + 1;
		else
			b = m;
	}
	*hi = a;
}

static int all_hex(const char *s)
{
	for (; *s; s++)
		if (hexval((unsigned char)*s) < 0)
			return 0;
	return 1;
}

/* Edit distance (insert, delete, replace, swap of neighbours) between
 * a and b, or more than max when it is: typos in --good and --bad. */
static size_t edit_distance(const char *a, size_t na, const char *b, size_t nb, size_t max)
{
	size_t rows[3][NEAR_LEN_MAX + 1], *p2 = rows[0], *p1 = rows[1], *cur = rows[2], i, j;

	if ((na > nb ? na - nb : nb - na) > max || na > NEAR_LEN_MAX || nb > NEAR_LEN_MAX)
		return max + 1;
	for (j = 0; j <= nb; j++)
		p1[j] = j;
	for (i = 1; i <= na; i++) {
		size_t best = cur[0] = i;

		for (j = 1; j <= nb; j++) {
			size_t d = p1[j - 1] + (a[i - 1] != b[j - 1]);

			if (p1[j] + 1 < d)
				d = p1[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    p2[j - 2] + 1 < d)
				d = p2[j - 2] + 1;
			cur[j] = d;
			if (d < best)
				best = d;
		}
		if (best > max)
			return max + 1;
		{
			size_t *t = p2;
			p2 = p1;
			p1 = cur;
			cur = t;
		}
	}
	return p1[nb];
}

/* ", did you mean X?" (or "one of X, Y, Z") for the ids nearest to
 * name, as git does for a mistyped command; "" when none is near. */
static void nearest_ids(const ab_index *idx, const char *name, char *out, size_t size)
{
	size_t n = strlen(name), max = n <= 4 ? 1 : 2, best = max + 1, found = 0, i;
	const char *hit[3];
	int len;

	out[0] = '\0';
	for (i = 0; i < idx->nbuilds; i++) {
		const char *id = idx->builds[i].id;
		size_t d = edit_distance(name, n, id, strlen(id), best < max ? best : max);

		if (d > max || d > best)
			continue;
		if (d < best) {
			best = d;
			found = 0;
		}
		if (found < 3)
			hit[found++] = id;
	}
	if (!found)
		return;
	len = found == 1 ? snprintf(out, size, _("; did you mean %s?"), hit[0])
		: found == 2 ? snprintf(out, size, _("; did you mean one of %s, %s?"), hit[0], hit[1])
		: snprintf(out, size, _("; did you mean one of %s, %s, %s?"), hit[0], hit[1], hit[2]);
	if (len < 0)
		out[0] = '\0';
}

ssize_t ab_index_find(const ab_index *idx, const char *name, ab_error *err)
{
	const struct ab_index_lookup *L = idx->lookup;
	const char *label = idx->label ? idx->label : "index";
	size_t n, lo = 0, hi = 0;
	ssize_t pos;

	if (!name || !*name) {
		ab_error_set(err, AB_EXIT_USAGE, _("empty build name"));
		return -1;
	}
	pos = find_id(idx, name);
	if (pos >= 0)
		return pos;
	n = strlen(name);
	if (L)
		find_prefix(idx, name, &lo, &hi);
	if (n >= MIN_PREFIX) {
		if (hi - lo == 1)
			return (ssize_t)L->commits[lo].pos;
		if (hi - lo == 2) {
			ab_error_set(err, AB_EXIT_USAGE,
				     _("'%s' is ambiguous: commits of builds %s and %s start with it"),
				     name, idx->builds[L->commits[lo].pos].id,
				     idx->builds[L->commits[lo + 1].pos].id);
			return -1;
		}
		if (hi - lo > 2) {
			ab_error_set(err, AB_EXIT_USAGE,
				     _("'%s' is ambiguous: commits of builds %s, %s and %zu more start with it"),
				     name, idx->builds[L->commits[lo].pos].id,
				     idx->builds[L->commits[lo + 1].pos].id, hi - lo - 2);
			return -1;
		}
		if (!L) {
			/* No lookup tables (an index not made by ab_index_parse):
			 * look at every commit. */
			size_t i, hits = 0;
			for (i = 0; i < idx->nbuilds; i++) {
				const char *c = idx->builds[i].commit;
				if (c && strlen(c) >= n && !prefix_cmp(c, name, n)) {
					pos = (ssize_t)i;
					hits++;
				}
			}
			if (hits == 1)
				return pos;
			if (hits > 1) {
				ab_error_set(err, AB_EXIT_USAGE,
					     _("'%s' is ambiguous: commits of %zu builds start with it"),
					     name, hits);
				return -1;
			}
		}
	}
	{
		char near[3 * NEAR_LEN_MAX + 64];

		nearest_ids(idx, name, near, sizeof near);
		if (n < MIN_PREFIX && (hi > lo || all_hex(name)))
			ab_error_set(err, AB_EXIT_USAGE,
				     _("unknown build '%s' (not an id or commit in %s; commit prefixes need at least %d characters)%s"),
				     name, label, MIN_PREFIX, near);
		else
			ab_error_set(err, AB_EXIT_USAGE, _("unknown build '%s' (not an id or commit in %s)%s"),
				     name, label, near);
	}
	return -1;
}

/* ---------------------------------------------------------------------
 * Reading the tree
 */

/* A big builds array is cut into this many pieces of about equal bytes,
 * taken by the reading threads one after another: a thread on a slower
 * core (a busy host's virtual CPU) then reads fewer of them, and the
 * last piece, read by one thread while the others have finished, is
 * short. */
#define MAX_PIECES 64

/* How the builds array of a big index is cut for the reading threads.
 * CUTS_GUESSED: at places that look like boundaries between builds,
 * proven by the reading itself (each piece must end where the next one
 * starts), so that nothing goes over the whole array before jansson
 * does. CUTS_SCANNED: by a scan of the array (the guesses were wrong).
 * ONE_READER: one thread reads every build in order (a small index, or
 * a fault to name exactly as one reader finds it). */
enum cut_mode { CUTS_GUESSED = 1, CUTS_SCANNED, ONE_READER };

struct parser {
	const char *label;
	ab_error *err;
	ab_index *idx;
	struct url_base ub;
	ab_arena *arena;	/* where builds' strings go: this thread's */
	/* The object being read, for messages: spelt out only on failure. */
	enum { AT_TOP, AT_VCS, AT_BUILD, AT_ARTIFACT } at;
	size_t build, art;
	/* The builds array, read one build at a time (see load_top). */
	const char *doc;	/* the whole document, after any BOM */
	size_t doclen;
	int bom;
	size_t builds_at;	/* offset of its '[', or 0 when not streamed */
	size_t builds_end;	/* just past its ']' */
	size_t builds_count;	/* when scanned */
	enum cut_mode mode;
	/* Pieces of the builds array for several threads: piece k starts at
	 * offset piece_at[k], just after a comma of the array (piece 0 just
	 * after its '['). npieces 0: one thread reads them all. */
	size_t npieces;
	size_t piece_at[MAX_PIECES];
	/* Set when a failure should be read again another way: the mode to
	 * read the whole document in (0 when the failure stands). */
	enum cut_mode retry;
	int cuts_guessed;
	int farm;		/* a farm's build list: builds with a farm_ref may
				 * come without artifacts (unresolved) */
};

/* From this many builds on, several threads read the builds array. */
#define PARALLEL_MIN_BUILDS 4096
/* At most this many threads read it. */
#define MAX_READERS 8

/* Refuses the index, naming the place: P->at, then key (may be NULL).
 * Messages quote the document: its control characters (a line break, an
 * escape sequence from a hostile index) must not reach the terminal. */
static int fail(struct parser *P, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct parser *P, const char *key, const char *fmt, ...)
{
	char reason[900], place[128] = "", *s;
	int n = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof reason, fmt, ap);
	va_end(ap);
	if (P->at == AT_VCS)
		n = snprintf(place, sizeof place, "vcs");
	else if (P->at == AT_BUILD)
		n = snprintf(place, sizeof place, "builds[%zu]", P->build);
	else if (P->at == AT_ARTIFACT)
		n = snprintf(place, sizeof place, "builds[%zu].artifacts[%zu]", P->build, P->art);
	if (key)
		snprintf(place + n, sizeof place - (size_t)n, "%s%s", n ? "." : "", key);
	if (*place)
		ab_error_set(P->err, AB_EXIT_USAGE, "%s: %s: %s", P->label, place, reason);
	else
		ab_error_set(P->err, AB_EXIT_USAGE, "%s: %s", P->label, reason);
	if (P->err)
		for (s = P->err->msg; *s; s++)
			if ((unsigned char)*s < 0x20 || *s == 0x7f)
				*s = '?';
	return -1;
}

static const char *kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return _("an object");
	case JSON_ARRAY:
		return _("an array");
	case JSON_STRING:
		return _("a string");
	case JSON_INTEGER:
		return _("a number");
	case JSON_REAL:
		return _("a number with a fraction or exponent");
	case JSON_TRUE:
	case JSON_FALSE:
		return _("a boolean");
	case JSON_NULL:
		break;
	}
	return _("null");
}

static int type_error(struct parser *P, const char *key, const json_t *v, const char *expected)
{
	return fail(P, key, _("expected %s, found %s"), expected, kind(v));
}

/* The string member key of o: 1 with *s and *n set, 0 when there is
 * none, -1 (refused) when it is not a string. */
static int get_str(struct parser *P, const json_t *o, const char *key, const char **s, size_t *n)
{
	const json_t *v = json_object_get(o, key);

	*s = NULL;
	*n = 0;
	if (!v)
		return 0;
	if (!json_is_string(v))
		return type_error(P, key, v, _("a string"));
	*s = json_string_value(v);
	*n = json_string_length(v);
	/* No field of an index needs more; a bigger one is an attack on
	 * memory or on the terminal, not data. */
	if (*n > MAX_FIELD)
		return fail(P, key, _("longer than %d bytes"), MAX_FIELD);
	if (memchr(*s, '\0', *n))
		return fail(P, key, _("must not contain NUL characters"));
	return 1;
}

/* An optional string the index keeps: *out stays NULL when absent. */
static int dup_str(struct parser *P, ab_arena *arena, const json_t *o, const char *key, char **out)
{
	const char *s;
	size_t n;
	int r = get_str(P, o, key, &s, &n);

	if (r > 0)
		*out = ab_arena_strndup(arena, s, n);
	return r < 0 ? -1 : 0;
}

/* Each byte as a lowercase hex digit, 0 when it is none. */
static char hex_lower[256];

static void hex_lower_init(void)
{
	int c;

	for (c = 0; c < 256; c++)
		hex_lower[c] = hexval((unsigned char)c) >= 0 ? (char)lc((unsigned char)c) : 0;
}

/* Checks 64 hex digits and copies them lowercased. Without a branch per
 * digit: random digits defeat the branch predictor, and a million
 * artifacts made the branchy loop 6 % of a big index's load. */
static int hex64(const char *s, char *out)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	int i, bad = 0;

	pthread_once(&once, hex_lower_init);
	for (i = 0; i < 64; i++) {
		char h = hex_lower[(unsigned char)s[i]];

		bad |= !h;
		out[i] = h;
	}
	out[64] = '\0';
	return !bad;
}

static int read_artifact(struct parser *P, const json_t *o, ab_artifact *a)
{
	static const char *const types[] = { "tar", "zip", "rpm", "deb", "file" };
	static const ab_artifact_type type_vals[] = {
		AB_ART_TAR, AB_ART_ZIP, AB_ART_RPM, AB_ART_DEB, AB_ART_FILE
	};
	const json_t *v;
	const char *s;
	size_t n, i;
	int r, named;
	char why[1024];

	a->size = -1;
	if (!json_is_object(o))
		return type_error(P, NULL, o, _("an object"));

	if ((r = get_str(P, o, "url", &s, &n)) <= 0)
		return r < 0 ? -1 : fail(P, "url", _("missing"));
	if (!n)
		return fail(P, "url", _("must not be empty"));
	if (url_resolve(&P->ub, P->arena, s, n, &a->url, &a->filename, &named, why, sizeof why) < 0)
		return fail(P, "url", "%s", why);

	if ((r = get_str(P, o, "sha256", &s, &n)) <= 0)
		return r < 0 ? -1 : fail(P, "sha256", _("missing"));
	if (n != 64 || !hex64(s, a->sha256))
		return fail(P, "sha256", _("expected 64 hex digits"));

	if ((v = json_object_get(o, "size"))) {
		if (!json_is_integer(v))
			return type_error(P, "size", v, _("a non-negative integer"));
		if (json_integer_value(v) < 0)
			return fail(P, "size", _("expected a non-negative integer, found %lld"),
				    (long long)json_integer_value(v));
		a->size = json_integer_value(v);
	}

	if ((r = get_str(P, o, "type", &s, &n)) < 0)
		return -1;
	if (r) {
		for (i = 0; i < 5 && strcmp(s, types[i]); i++)
			;
		if (i == 5)
			return fail(P, "type", _("unknown type '%.*s' (expected rpm, deb, tar, zip or file)"),
				    CLIP, s);
		a->type = type_vals[i];
	} else if (!named) {
		return fail(P, "type", _("cannot guess the type of '%.*s' (no file name); set \"type\" (rpm, deb, tar, zip or file)"),
			    CLIP, a->url);
	} else if (ab_artifact_type_guess(a->filename, &a->type, NULL) < 0) {
		return fail(P, "type", _("cannot guess the type from '%.*s'; set \"type\" (rpm, deb, tar, zip or file)"),
			    CLIP, a->filename);
	}

	return dup_str(P, P->arena, o, "name", &a->name);
}

/* Reads builds[pos] from o into b. Its id goes into the look-up table
 * afterwards, in document order (index_ids, or place_piece for builds
 * read by several threads). */
static int read_build(struct parser *P, const json_t *o, ab_build *b, size_t pos)
{
	const json_t *arts;
	const char *s;
	size_t n, i;
	int r;

	P->at = AT_BUILD;
	P->build = pos;
	if (!json_is_object(o))
		return type_error(P, NULL, o, _("an object"));

	if ((r = get_str(P, o, "id", &s, &n)) <= 0)
		return r < 0 ? -1 : fail(P, "id", _("missing"));
	if (!n)
		return fail(P, "id", _("must not be empty"));
	if (ab_has_control(s, n))
		return fail(P, "id", _("must not contain control characters"));
	b->id = ab_arena_strndup(P->arena, s, n);

	if ((r = get_str(P, o, "commit", &s, &n)) < 0)
		return -1;
	if (ab_has_control(s, n))
		return fail(P, "commit", _("must not contain control characters"));
	/* An empty commit is no commit: {old}/{new} then use the id. Nor is
	 * one that is not a git object name: it would reach the git
	 * commands the report prints and the compare URL; the front end
	 * warns (ab_index_dropped_commits). */
	if (n && ab_is_object_name(s, n))
		b->commit = ab_arena_strndup(P->arena, s, n);
	else if (n)
		b->commit_dropped = 1;
	if (dup_str(P, P->arena, o, "date", &b->date) < 0 ||
	    dup_str(P, P->arena, o, "version", &b->version) < 0)
		return -1;
	b->position = -1;
	{
		/* How many commits the history had at this build (git rev-list
		 * --count): the report then says how many lie between. */
		json_t *v = json_object_get(o, "position");

		if (v && !json_is_integer(v))
			return type_error(P, "position", v, _("a non-negative integer"));
		if (v && json_integer_value(v) < 0)
			return fail(P, "position", _("expected a non-negative integer, found %lld"),
				    (long long)json_integer_value(v));
		if (v)
			b->position = (long long)json_integer_value(v);
	}

	/* What a farm keeps of a build (farms/farm.h) and how far its
	 * artifacts were checked; other readers ignore both. */
	if ((r = get_str(P, o, "farm_ref", &s, &n)) < 0)
		return -1;
	if (r && ab_has_control(s, n))
		return fail(P, "farm_ref", _("must not contain control characters"));
	if (r)
		b->farm_ref = ab_arena_strndup(P->arena, s, n);
	if ((r = get_str(P, o, "farm_trust", &s, &n)) < 0)
		return -1;
	if (r && !strcmp(s, "signed"))
		b->trust = AB_TRUST_SIGNED;
	else if (r && !strcmp(s, "unverified"))
		b->trust = AB_TRUST_UNVERIFIED;
	else if (r && strcmp(s, "digest"))
		return fail(P, "farm_trust", _("expected \"signed\", \"digest\" or \"unverified\", found \"%.*s\""),
			    CLIP, s);

	if ((r = get_str(P, o, "status", &s, &n)) < 0)
		return -1;
	if (r && !strcmp(s, "failed")) {
		b->failed = 1;
		return 0;
	}
	if (r && strcmp(s, "ok"))
		return fail(P, "status", _("expected \"ok\" or \"failed\", found \"%.*s\""), CLIP, s);

	arts = json_object_get(o, "artifacts");
	if (P->farm && b->farm_ref && (!arts || (json_is_array(arts) && !json_array_size(arts)))) {
		b->unresolved = 1;
		return 0;
	}
	if (!arts)
		return fail(P, "artifacts", _("missing (a build with status \"ok\" needs at least one artifact)"));
	if (!json_is_array(arts))
		return type_error(P, "artifacts", arts, _("an array"));
	n = json_array_size(arts);
	if (!n)
		return fail(P, "artifacts", _("empty (a build with status \"ok\" needs at least one artifact)"));
	b->artifacts = ab_arena_calloc(P->arena, n * sizeof *b->artifacts);
	b->nartifacts = n;
	for (i = 0; i < n; i++) {
		P->at = AT_ARTIFACT;
		P->art = i;
		if (read_artifact(P, json_array_get(arts, i), &b->artifacts[i]) < 0)
			return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------------
 * Streaming: jansson would build the whole document (8 times its size
 * for a big index) before a single build is checked. Instead the top
 * level is read member by member and each build is handed to jansson on
 * its own and freed once read. A big builds array is cut at guessed
 * boundaries and read by every core, piece by piece; a small one is
 * skipped by a scanner that counts its elements, then read by one
 * thread. Any doubt about the structure falls back to one json_loadb of
 * the whole, for its message.
 */

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static size_t skip_ws(const char *d, size_t len, size_t pos)
{
	while (pos < len && is_ws(d[pos]))
		pos++;
	return pos;
}

static int thread_cap;	/* ab_index_set_threads */

void ab_index_set_threads(int n)
{
	__atomic_store_n(&thread_cap, n, __ATOMIC_RELAXED);
}

/* How many threads may read a big index. */
static long load_threads(void)
{
	int cap = __atomic_load_n(&thread_cap, __ATOMIC_RELAXED);

	return cap > 0 ? cap : sysconf(_SC_NPROCESSORS_ONLN);
}

/* The array scanner's state: where it is, how deep (the array's own
 * level is 1), the commas of the array seen and whether it holds
 * anything at all. */
struct scan_state {
	size_t pos, depth, commas;
	int content;
};

enum { SCAN_STOP, SCAN_CLOSED, SCAN_COMMA, SCAN_BAD };

/* Runs the scanner over d from st->pos while pos < stop. SCAN_CLOSED:
 * the array closed (st->pos just past its bracket); SCAN_COMMA: a comma
 * of the array at or after cut (st->pos just past it); SCAN_STOP at
 * stop; SCAN_BAD when the text is not shaped like an array. */
static int scan_run(struct scan_state *st, const char *d, size_t len, size_t stop, size_t cut)
{
	size_t pos = st->pos, depth = st->depth;
	int rc = SCAN_STOP;

	for (; pos < stop; pos++) {
		char c = d[pos];

		if (c == '"') {
			/* The closing quote: the next one after an even run of
			 * backslashes (memchr is many times faster than a loop
			 * over bytes, and most of an index is strings). */
			for (;;) {
				const char *q = memchr(d + pos + 1, '"', len - pos - 1);
				size_t bs = 0;

				if (!q) {
					rc = SCAN_BAD;
					goto out;
				}
				pos = (size_t)(q - d);
				while (d[pos - 1 - bs] == '\\')
					bs++;
				if (!(bs & 1))
					break;
			}
			if (depth == 1)
				st->content = 1;
			continue;
		}
		if (c == '[' || c == '{') {
			if (depth == 1)
				st->content = 1;
			depth++;
		} else if (c == ']' || c == '}') {
			if (depth == 0) {
				rc = SCAN_BAD;
				goto out;
			}
			if (--depth == 0) {
				pos++;
				rc = SCAN_CLOSED;
				goto out;
			}
		} else if (c == ',' && depth == 1) {
			st->commas++;
			if (pos >= cut) {
				pos++;
				rc = SCAN_COMMA;
				goto out;
			}
		} else if (depth == 1 && !is_ws(c)) {
			st->content = 1;
		}
	}
out:
	st->pos = pos;
	st->depth = depth;
	return rc;
}

#define GUESS_TRIES 16
#define GUESS_LOOK ((size_t)64 << 10)

/* A likely place just after a comma between two builds, at or after
 * from and before limit: '}' ',' and then the text the first build
 * starts with up to its first key (sig: {"id", say), and nothing after
 * it that closes the array before the next comma at its level. 0 when
 * there is none. Only a guess: the piece before it must end there. */
static size_t guess_cut(const char *d, size_t len, size_t from, size_t limit, const char *sig,
			size_t siglen)
{
	size_t pos = from;
	int tries = 0;

	/* A few tries, each looking a little way: in a document unlike a
	 * farm's the cut is given up rather than paid for. */
	while (pos < limit && tries < GUESS_TRIES) {
		const char *q = memchr(d + pos, ',', limit - pos);
		struct scan_state st = { 0, 1, 0, 0 };
		size_t c, a, b;
		int r;

		if (!q)
			return 0;
		c = (size_t)(q - d);
		pos = c + 1;
		for (a = c; a > from && is_ws(d[a - 1]); a--)
			;
		b = skip_ws(d, len, c + 1);
		if (a == from || d[a - 1] != '}' || len - b < siglen || memcmp(d + b, sig, siglen))
			continue;
		tries++;
		st.pos = c + 1;
		r = scan_run(&st, d, len, len - st.pos > GUESS_LOOK ? st.pos + GUESS_LOOK : len, 0);
		if (r == SCAN_COMMA)
			return c + 1;
	}
	return 0;
}

/* Below this many bytes the builds array is not cut at guesses. */
#define GUESS_MIN_BYTES ((size_t)1 << 20)
#define GUESS_WINDOW ((size_t)1 << 20)

/* Cuts the builds array, whose '[' is at pos, at guessed boundaries
 * between builds near every MAX_PIECES-th of the document, and finds
 * where it ends by scanning only its last piece. Nothing is proven
 * here: each piece's reader must end where the next piece starts (and
 * the last at the array's end), or the document is read again with
 * CUTS_SCANNED. -1 when there are no two pieces to make. */
static int guess_cuts(struct parser *P, const char *d, size_t len, size_t pos)
{
	struct scan_state st = { 0, 1, 0, 0 };
	const char *sig, *q;
	size_t k, cut, n = 0, siglen;

	if (len - pos < GUESS_MIN_BYTES || load_threads() < 2)
		return -1;
	/* What the first build starts with, to its first key. */
	sig = d + skip_ws(d, len, pos + 1);
	q = sig + 1 < d + len && sig[0] == '{' ? d + skip_ws(d, len, (size_t)(sig - d) + 1) : NULL;
	if (!q || q >= d + len || *q != '"' || !(q = memchr(q + 1, '"', (size_t)(d + len - q - 1))) ||
	    memchr(sig, '\\', (size_t)(q - sig)) || q - sig >= 64)
		return -1;
	siglen = (size_t)(q - sig) + 1;
	P->piece_at[n++] = pos + 1;
	for (k = 1; k < MAX_PIECES; k++) {
		size_t at = k * (len / MAX_PIECES);

		if (at <= P->piece_at[n - 1])
			continue;
		cut = guess_cut(d, len, at, at + GUESS_WINDOW < len ? at + GUESS_WINDOW : len, sig, siglen);
		if (cut > P->piece_at[n - 1])
			P->piece_at[n++] = cut;
	}
	if (n < 2)
		return -1;
	st.pos = P->piece_at[n - 1];
	if (scan_run(&st, d, len, len, SIZE_MAX) != SCAN_CLOSED)
		return -1;
	P->builds_end = st.pos;
	P->npieces = n;
	return 0;
}

/* From the '[' at pos: the offset just past the matching ']' in *end
 * and the number of elements in *count. P's pieces: the array cut at
 * the first elements that start after each MAX_PIECES-th of the
 * document. -1 when the text is not shaped like an array (jansson will
 * say how). */
static int scan_array(struct parser *P, const char *d, size_t len, size_t pos, size_t *end,
		      size_t *count)
{
	struct scan_state st = { pos + 1, 1, 0, 0 };
	size_t cut = 1;

	P->npieces = 1;
	P->piece_at[0] = pos + 1;
	for (;;) {
		size_t at = cut < MAX_PIECES ? cut * (len / MAX_PIECES) : SIZE_MAX;

		switch (scan_run(&st, d, len, len, at)) {
		case SCAN_COMMA:
			P->piece_at[P->npieces++] = st.pos;
			while (cut < MAX_PIECES && st.pos - 1 >= cut * (len / MAX_PIECES))
				cut++;
			break;
		case SCAN_CLOSED:
			*end = st.pos;
			*count = st.content ? st.commas + 1 : 0;
			return 0;
		default:
			return -1;
		}
	}
}

/* Where offset off lies, as jansson counts: line from 1, column in code
 * points. */
static void place_of(const char *d, size_t off, int *line, int *col)
{
	size_t i;

	*line = 1;
	*col = 0;
	for (i = 0; i < off; i++) {
		if (d[i] == '\n') {
			(*line)++;
			*col = 0;
		} else if (((unsigned char)d[i] & 0xc0) != 0x80) {
			(*col)++;
		}
	}
}

static void syntax_error(struct parser *P, json_error_t *je, int bom);

/* One JSON value at pos, through jansson; *next is the offset after it.
 * On a syntax error, the error names the place in the whole document. */
static json_t *load_piece(struct parser *P, size_t pos, size_t *next)
{
	json_error_t je;
	json_t *v = json_loadb(P->doc + pos, P->doclen - pos,
			       JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK, &je);

	if (!v) {
		int line, col;

		P->at = AT_TOP;	/* a syntax error has no field to name */
		place_of(P->doc, pos, &line, &col);
		if (je.line <= 1) {
			je.line = line;
			je.column += col;
		} else {
			je.line += line - 1;
		}
		syntax_error(P, &je, P->bom);
		return NULL;
	}
	*next = pos + (size_t)je.position;
	return v;
}

/* Reads the top-level object without its builds array (when that is an
 * array: its place and size go to P). NULL with *fallback set when the
 * document should rather be read whole; NULL alone after an error. */
static json_t *load_top(struct parser *P, int *fallback)
{
	const char *d = P->doc;
	size_t len = P->doclen, pos = skip_ws(d, len, 0);
	json_t *top;

	*fallback = 0;
	if (pos >= len || d[pos] != '{') {
		*fallback = 1;
		return NULL;
	}
	top = json_object();
	pos = skip_ws(d, len, pos + 1);
	if (pos < len && d[pos] == '}') {
		pos++;
		goto end;
	}
	for (;;) {
		json_t *key, *val;
		size_t next;
		const char *k;

		if (pos >= len || d[pos] != '"')
			goto whole;
		key = load_piece(P, pos, &next);
		if (!key)
			goto fail;
		k = json_string_value(key);
		pos = skip_ws(d, len, next);
		if (pos >= len || d[pos] != ':' || json_object_get(top, k) ||
		    (!strcmp(k, "builds") && P->builds_at)) {
			json_decref(key);
			goto whole;	/* jansson names the fault, duplicates included */
		}
		pos = skip_ws(d, len, pos + 1);
		if (!strcmp(k, "builds") && pos < len && d[pos] == '[') {
			size_t end, count;

			if (P->mode == CUTS_GUESSED && guess_cuts(P, d, len, pos) == 0) {
				P->cuts_guessed = 1;
				end = P->builds_end;
			} else if (scan_array(P, d, len, pos, &end, &count) < 0) {
				json_decref(key);
				goto whole;
			} else {
				P->builds_count = count;
				if (P->mode == ONE_READER || count < PARALLEL_MIN_BUILDS || P->npieces < 2 ||
				    load_threads() < 2)
					P->npieces = 0;
			}
			P->builds_at = pos;
			P->builds_end = end;
			next = end;
		} else {
			val = load_piece(P, pos, &next);
			if (!val) {
				json_decref(key);
				goto fail;
			}
			json_object_set_new(top, k, val);
		}
		json_decref(key);
		pos = skip_ws(d, len, next);
		if (pos < len && d[pos] == ',') {
			pos = skip_ws(d, len, pos + 1);
			continue;
		}
		if (pos < len && d[pos] == '}') {
			pos++;
			break;
		}
		goto whole;
	}
end:
	if (skip_ws(d, len, pos) != len)
		goto whole;
	return top;
whole:
	*fallback = 1;
fail:
	json_decref(top);
	P->builds_at = 0;
	P->npieces = 0;
	return NULL;
}

/* The builds array is not what the scanner took it for (a missing
 * comma, say): jansson reads the whole document to say where. */
static int structure_error(struct parser *P)
{
	json_error_t je;
	json_t *v = json_loadb(P->doc, P->doclen, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);

	P->at = AT_TOP;
	if (!v) {
		syntax_error(P, &je, P->bom);
	} else {
		json_decref(v);
		fail(P, "builds", _("cannot be read as an array of builds"));
	}
	return -1;
}

/* jansson's memory while a thread reads builds. Each build's values are
 * freed as soon as it is read, so a buffer that is simply rewound after
 * every build serves them: malloc and free for the thirty-odd values of
 * each build were a good part of the reading time. A build too big for
 * the buffer, and everything outside read_builds_range, gets malloc. */
#define SCRATCH_BYTES ((size_t)256 << 10)

struct scratch {
	char *next, *end;
	max_align_t base[];
};

static _Thread_local struct scratch *tl_scratch;

static void *scratch_malloc(size_t n)
{
	struct scratch *s = tl_scratch;
	size_t want = (n + 15) & ~(size_t)15;

	if (s && want >= n && want <= (size_t)(s->end - s->next)) {
		void *p = s->next;

		s->next += want;
		return p;
	}
	return malloc(n);
}

static void scratch_free(void *p)
{
	struct scratch *s = tl_scratch;

	if (s && (char *)p >= (char *)s->base && (char *)p < s->end)
		return;
	free(p);
}

static void scratch_install(void)
{
	json_set_alloc_funcs(scratch_malloc, scratch_free);
}

/* Gives this thread's jansson a scratch buffer (see scratch_malloc). */
static struct scratch *scratch_begin(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct scratch *s = ab_xmalloc(sizeof *s + SCRATCH_BYTES);

	/* Either function serves any pointer, so installing them while
	 * another thread uses jansson is harmless. */
	pthread_once(&once, scratch_install);
	s->end = (char *)s->base + SCRATCH_BYTES;
	tl_scratch = s;
	return s;
}

static void scratch_end(struct scratch *s)
{
	tl_scratch = NULL;
	free(s);
}

/* One thread reads every build in order; *bad is the build it failed
 * on. */
static int read_all_builds(struct parser *P, size_t *bad)
{
	struct scratch *s = scratch_begin();
	size_t i, next, n = P->idx->nbuilds, pos = P->builds_at + 1;
	int rc = -1;

	for (i = 0; i < n; i++) {
		json_t *b;
		int r;

		s->next = (char *)s->base;
		pos = skip_ws(P->doc, P->doclen, pos);
		b = load_piece(P, pos, &next);
		if (!b) {
			*bad = i;
			goto out;
		}
		r = read_build(P, b, &P->idx->builds[i], i);
		json_decref(b);
		if (r < 0) {
			*bad = i;
			goto out;
		}
		/* A comma after every build but the last, which ends the array. */
		pos = skip_ws(P->doc, P->doclen, next);
		if (pos >= P->doclen || P->doc[pos] != (i + 1 < n ? ',' : ']')) {
			*bad = i;
			tl_scratch = NULL;	/* jansson reads the whole with malloc */
			structure_error(P);
			goto out;
		}
		pos++;
	}
	rc = 0;
out:
	scratch_end(s);
	return rc;
}

/* The look-up tables for builds [0, upto), in document order. */
static int index_ids(struct parser *P, size_t upto)
{
	struct ab_index_lookup *L = P->idx->lookup;
	size_t i, slot;
	ssize_t other;
	uint64_t tag;

	for (i = 0; i < upto; i++) {
		ab_build *b = &P->idx->builds[i];

		if (!b->id)
			continue;
		other = id_probe(L, P->idx->builds, b->id, &slot, &tag);
		if (other >= 0) {
			P->at = AT_BUILD;
			P->build = i;
			return fail(P, "id", _("duplicate id '%.*s' (also builds[%zd])"), CLIP, b->id,
				    other);
		}
		L->slots[slot] = tag | (uint64_t)(i + 1);
	}
	return 0;
}

/* Reading stopped at build first_bad (nbuilds when every build was read
 * well): the ids up to it go into the look-up tables. A duplicate id
 * there is the fault named, as when ids were checked the moment they
 * were read; otherwise the fault already in P->err stands. */
static int finish_builds(struct parser *P, size_t first_bad)
{
	size_t n = P->idx->nbuilds;

	if (index_ids(P, first_bad < n ? first_bad + 1 : n) < 0 || first_bad < n)
		return -1;
	return 0;
}

/* Puts build pos's id (hash h) in the table. -1 when the id is there
 * already. */
static int id_insert(struct ab_index_lookup *L, const ab_build *builds, size_t pos, uint64_t h)
{
	uint64_t tag = h & HI32;
	size_t i;

	for (i = (size_t)h & L->mask; L->slots[i]; i = (i + 1) & L->mask)
		if ((L->slots[i] & HI32) == tag &&
		    !strcmp(builds[(size_t)(L->slots[i] & ~HI32) - 1].id, builds[pos].id))
			return -1;
	L->slots[i] = tag | (uint64_t)(pos + 1);
	return 0;
}

/* Room in the table for n ids, at most 0.7 of its slots full; the ids of
 * builds [0, have) are moved over when it grows. */
static void lookup_reserve(struct ab_index_lookup *L, const ab_build *builds, size_t have, size_t n)
{
	size_t cap = L->mask + 1, i;

	if (n * 10 <= cap * 7)
		return;
	while (cap * 5 < n * 8)
		cap *= 2;
	free(L->slots);
	L->slots = ab_xcalloc_big(cap, sizeof *L->slots);
	L->mask = cap - 1;
	for (i = 0; i < have; i++)
		id_insert(L, builds, i, siphash13(builds[i].id, strlen(builds[i].id), L->k0, L->k1));
}

/* Several threads read a big builds array, a piece at a time, each
 * piece's builds kept aside until every piece before it is in the
 * index; then they are put there (their number was not known before)
 * and their ids noted, in document order. A piece whose reading did not
 * end where the next one starts (a wrong guess) or that holds a fault
 * stops everything: the document is read again (ab_index_parse). */
enum piece_state { PIECE_READING, PIECE_READ, PIECE_MISPLACED, PIECE_BAD };

struct piece {
	enum piece_state state;
	size_t n, cap;
	ab_build *builds;
	uint64_t *hashes;	/* of their ids, for the table */
};

/* What the reading threads share. */
struct reading {
	struct piece *pieces;
	size_t next_piece;	/* atomic: the next piece nobody took */
	int stop;		/* atomic: the document is read again */
	pthread_mutex_t lock;	/* the rest, the index's builds and table */
	size_t placed;		/* pieces [0, placed) are in the index */
	size_t cap;		/* builds the index has room for */
	enum cut_mode retry;
};

/* Reads piece k: its state. */
static enum piece_state read_piece(struct parser *P, struct scratch *s, struct reading *rd, size_t k)
{
	struct piece *pc = &rd->pieces[k];
	const struct ab_index_lookup *L = P->idx->lookup;
	const char *d = P->doc;
	size_t len = P->doclen, pos = P->piece_at[k], next;
	size_t stop = k + 1 < P->npieces ? skip_ws(d, len, P->piece_at[k + 1]) : SIZE_MAX;

	while (!__atomic_load_n(&rd->stop, __ATOMIC_RELAXED)) {
		ab_build *b;
		json_t *v;
		int r;

		if (pc->n == pc->cap) {
			pc->cap = pc->cap ? 2 * pc->cap : 1024;
			pc->builds = ab_xrealloc(pc->builds, pc->cap * sizeof *pc->builds);
			pc->hashes = ab_xrealloc(pc->hashes, pc->cap * sizeof *pc->hashes);
		}
		b = memset(&pc->builds[pc->n], 0, sizeof *b);
		s->next = (char *)s->base;
		pos = skip_ws(d, len, pos);
		v = load_piece(P, pos, &next);
		if (!v)
			return PIECE_BAD;
		/* Its place is not known yet: a fault is named when the
		 * document is read again by one thread. */
		r = read_build(P, v, b, pc->n);
		json_decref(v);
		if (r < 0)
			return PIECE_BAD;
		pc->hashes[pc->n++] = siphash13(b->id, strlen(b->id), L->k0, L->k1);
		pos = skip_ws(d, len, next);
		if (pos < len && d[pos] == ',') {
			pos = skip_ws(d, len, pos + 1);
			if (pos < stop)
				continue;
			return pos == stop ? PIECE_READ : PIECE_MISPLACED;
		}
		if (pos < len && d[pos] == ']')
			return stop == SIZE_MAX && pos + 1 == P->builds_end ? PIECE_READ : PIECE_MISPLACED;
		return PIECE_BAD;
	}
	return PIECE_MISPLACED;	/* stopped: the state no longer matters */
}

/* Puts a read piece's builds at the end of the index. -1 on an id the
 * index has already. */
static int place_piece(struct parser *P, struct reading *rd, const struct piece *pc)
{
	ab_index *idx = P->idx;
	struct ab_index_lookup *L = idx->lookup;
	size_t base = idx->nbuilds, j;

	if (base + pc->n > rd->cap) {
		size_t want = rd->cap + rd->cap / 2;

		if (!base) {
			/* As many builds as the first piece's density gives the
			 * whole array: the table is made for them at once. */
			double bytes = (double)(P->piece_at[1] - P->piece_at[0]);
			size_t est = (size_t)((double)pc->n * (double)(P->builds_end - P->piece_at[0]) / bytes);

			lookup_reserve(L, idx->builds, 0, est);
			want = est + est / 16 + 64;
		}
		if (want < base + pc->n)
			want = base + pc->n;
		if (!idx->builds)
			idx->builds = ab_xcalloc_big(want, sizeof *idx->builds);
		else
			idx->builds = ab_xrealloc(idx->builds, want * sizeof *idx->builds);
		rd->cap = want;
	}
	memcpy(idx->builds + base, pc->builds, pc->n * sizeof *pc->builds);
	lookup_reserve(L, idx->builds, base, base + pc->n);
	for (j = 0; j < pc->n; j++) {
		/* Each slot is a cache miss in a table of megabytes: fetched a
		 * few ids ahead. */
		if (j + 8 < pc->n)
			__builtin_prefetch(&L->slots[(size_t)pc->hashes[j + 8] & L->mask], 1);
		if (id_insert(L, idx->builds, base + j, pc->hashes[j]) < 0)
			return -1;
	}
	idx->nbuilds = base + pc->n;
	return 0;
}

/* With rd->lock held: places every piece that is read and next in
 * document order. */
static void place_ready(struct parser *P, struct reading *rd)
{
	while (rd->placed < P->npieces && !rd->retry) {
		struct piece *pc = &rd->pieces[rd->placed];

		if (pc->state == PIECE_READING)
			return;
		/* Every piece before this one ended where the next began, so
		 * this one started at a build: an end elsewhere is a wrong
		 * guess (or a fault a scan names), anything else a fault
		 * one reader names. */
		if (pc->state == PIECE_MISPLACED && P->cuts_guessed)
			rd->retry = CUTS_SCANNED;
		else if (pc->state != PIECE_READ || place_piece(P, rd, pc) < 0)
			rd->retry = ONE_READER;
		if (rd->retry) {
			__atomic_store_n(&rd->stop, 1, __ATOMIC_RELAXED);
			return;
		}
		free(pc->builds);
		free(pc->hashes);
		pc->builds = NULL;
		pc->hashes = NULL;
		rd->placed++;
	}
}

/* One reading thread: its own parser copy (place, error) and arena. */
struct reader {
	struct parser P;
	ab_arena arena;
	struct reading *rd;
	pthread_t thread;
};

static void *read_pieces(void *arg)
{
	struct reader *r = arg;
	struct parser *P = &r->P;
	struct reading *rd = r->rd;
	struct scratch *s = scratch_begin();
	ab_error err = {0};
	size_t k;

	P->err = &err;	/* any fault is named by a reading again */
	while (!__atomic_load_n(&rd->stop, __ATOMIC_RELAXED) &&
	       (k = __atomic_fetch_add(&rd->next_piece, 1, __ATOMIC_RELAXED)) < P->npieces) {
		enum piece_state state = read_piece(P, s, rd, k);

		pthread_mutex_lock(&rd->lock);
		rd->pieces[k].state = state;
		place_ready(P, rd);
		pthread_mutex_unlock(&rd->lock);
	}
	scratch_end(s);
	return NULL;
}

/* Reads the builds array in P's pieces on every core (jansson's parsing
 * is most of the time). 0, or -1 with P->retry: how to read the
 * document again, for the exact builds or the exact fault. */
static int read_in_pieces(struct parser *P)
{
	ab_index *idx = P->idx;
	struct reading rd;
	struct reader readers[MAX_READERS];
	long cpus = load_threads();
	int nreaders, started, i;
	size_t k;

	nreaders = (int)(cpus < MAX_READERS ? cpus : MAX_READERS);
	if ((size_t)nreaders > P->npieces)
		nreaders = (int)P->npieces;
	memset(&rd, 0, sizeof rd);
	rd.pieces = ab_xcalloc(P->npieces, sizeof *rd.pieces);
	pthread_mutex_init(&rd.lock, NULL);
	idx->lookup = lookup_new(0);
	idx->read_pieces = P->npieces;
	idx->cuts_guessed = P->cuts_guessed;
	memset(readers, 0, sizeof readers);
	for (i = 0; i < nreaders; i++) {
		readers[i].P = *P;
		readers[i].P.arena = &readers[i].arena;
		readers[i].rd = &rd;
	}
	/* This thread is reader 0; a thread that cannot be started only
	 * means fewer readers. */
	for (started = 1; started < nreaders; started++)
		if (pthread_create(&readers[started].thread, NULL, read_pieces, &readers[started]) != 0)
			break;
	read_pieces(&readers[0]);
	for (i = 0; i < nreaders; i++) {
		if (i > 0 && i < started)
			pthread_join(readers[i].thread, NULL);
		ab_arena_merge(P->arena, &readers[i].arena);
	}
	for (k = 0; k < P->npieces; k++) {
		free(rd.pieces[k].builds);
		free(rd.pieces[k].hashes);
	}
	free(rd.pieces);
	pthread_mutex_destroy(&rd.lock);
	if (rd.placed == P->npieces)
		return 0;
	P->retry = rd.retry ? rd.retry : ONE_READER;
	return -1;
}

static int read_index(struct parser *P, json_t *root)
{
	ab_index *idx = P->idx;
	const json_t *v;
	json_t *builds;
	const char *s;
	size_t n, i;
	int r;

	if (!json_is_object(root))
		return fail(P, NULL, _("the top level must be a JSON object, found %s"), kind(root));

	/* format and version first: a version 2 index gets the version
	 * message, not one about a build this one cannot understand. */
	if ((r = get_str(P, root, "format", &s, &n)) <= 0)
		return r < 0 ? -1 : fail(P, "format", _("missing (expected \"%s\")"), format_name);
	if (strcmp(s, format_name))
		return fail(P, "format", _("expected \"%s\", found \"%.*s\""), format_name, CLIP, s);
	v = json_object_get(root, "version");
	if (!v)
		return fail(P, "version", _("missing"));
	if (!json_is_integer(v))
		return type_error(P, "version", v, _("an integer"));
	if (json_integer_value(v) != 1)
		return fail(P, "version", _("unsupported index version %lld; this artbisect reads version 1"),
			    (long long)json_integer_value(v));

	if (dup_str(P, NULL, root, "name", &idx->name) < 0 ||
	    dup_str(P, NULL, root, "project", &idx->project) < 0 ||
	    dup_str(P, NULL, root, "arch", &idx->arch) < 0)
		return -1;
	if ((v = json_object_get(root, "vcs"))) {
		if (!json_is_object(v))
			return type_error(P, "vcs", v, _("an object"));
		P->at = AT_VCS;
		if (dup_str(P, NULL, v, "type", &idx->vcs_type) < 0 ||
		    dup_str(P, NULL, v, "url", &idx->vcs_url) < 0 ||
		    dup_str(P, NULL, v, "compare_url", &idx->compare_url) < 0)
			return -1;
		P->at = AT_TOP;
	}

	/* Mirrors: other base directories holding the same files. */
	if ((v = json_object_get(root, "mirrors"))) {
		size_t m;

		if (!json_is_array(v))
			return type_error(P, "mirrors", v, _("an array of URLs"));
		idx->nmirrors = json_array_size(v);
		idx->mirrors = ab_xcalloc(idx->nmirrors ? idx->nmirrors : 1, sizeof *idx->mirrors);
		for (m = 0; m < idx->nmirrors; m++) {
			const json_t *e = json_array_get(v, m);
			char key[32], why[1024], *url = NULL, *fname = NULL;
			const char *ms;
			size_t ml;
			int named;

			snprintf(key, sizeof key, "mirrors[%zu]", m);
			if (!json_is_string(e))
				return type_error(P, key, e, _("a URL string"));
			ms = json_string_value(e);
			ml = json_string_length(e);
			if (!ml || memchr(ms, '\0', ml))
				return fail(P, key, _("expected a URL"));
			if (ms[ml - 1] == '/') {
				if (url_resolve(&P->ub, NULL, ms, ml, &url, &fname, &named, why, sizeof why) < 0)
					return fail(P, key, "%s", why);
				idx->mirrors[m] = url;
			} else {
				/* A base directory, whether or not it ends in '/'. */
				char *withslash = ab_xasprintf("%.*s/", (int)ml, ms);
				int rr = url_resolve(&P->ub, NULL, withslash, ml + 1, &url, &fname, &named, why, sizeof why);

				free(withslash);
				if (rr < 0)
					return fail(P, key, "%s", why);
				idx->mirrors[m] = url;
			}
			free(fname);
		}
	}

	if (P->builds_at) {
		size_t bad = 0;

		if (P->npieces >= 2)
			return read_in_pieces(P);
		n = P->builds_count;
		if (!n)
			return fail(P, "builds", _("empty (an index needs at least one build)"));
		idx->builds = ab_xcalloc_big(n, sizeof *idx->builds);
		idx->nbuilds = n;
		idx->lookup = lookup_new(n);
		r = read_all_builds(P, &bad);
		return finish_builds(P, r < 0 ? bad : n);
	}
	builds = json_object_get(root, "builds");
	if (!builds)
		return fail(P, "builds", _("missing"));
	if (!json_is_array(builds))
		return type_error(P, "builds", builds, _("an array"));
	n = json_array_size(builds);
	if (!n)
		return fail(P, "builds", _("empty (an index needs at least one build)"));
	idx->builds = ab_xcalloc_big(n, sizeof *idx->builds);
	idx->nbuilds = n;
	idx->lookup = lookup_new(n);
	for (i = 0; i < n; i++) {
		if (read_build(P, json_array_get(builds, i), &idx->builds[i], i) < 0)
			break;
		/* Hand this build's JSON back to malloc for the next ones. */
		json_array_set(builds, i, json_null());
	}
	return finish_builds(P, i);
}

/* jansson's message, with the line and column it gives. */
static void syntax_error(struct parser *P, json_error_t *je, int bom)
{
	static const char flag[] = " without JSON_ALLOW_NUL";
	char *s = strstr(je->text, flag);

	if (json_error_code(je) == json_error_out_of_memory) {
		ab_error_set(P->err, AB_EXIT_FAILURE, _("%s: out of memory reading it"), P->label);
		return;
	}
	/* Users need not know jansson's flags. */
	if (s)
		memmove(s, s + sizeof flag - 1, strlen(s + sizeof flag - 1) + 1);
	fail(P, NULL, _("invalid JSON at line %d, column %d: %s"), je->line,
	     je->column + (bom && je->line == 1), je->text);
}

/* ---------------------------------------------------------------------
 * The rest of the API
 */

/* Characters of a commit or id put into compare_url as they are; anything
 * else is percent-encoded so that it cannot change the URL's structure. */
static int compare_plain(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c))
		return 1;
	return c && strchr("-._~:@!$'()*,;/", c) != NULL;
}

static void put_ref(ab_buf *b, const ab_build *build)
{
	const unsigned char *s = (const unsigned char *)(build->commit ? build->commit : build->id);

	for (; *s; s++) {
		if (compare_plain(*s))
			ab_buf_append(b, s, 1);
		else
			ab_buf_printf(b, "%%%02X", *s);
	}
}

size_t ab_index_dropped_commits(const ab_index *idx, size_t *first)
{
	size_t i, n = 0;

	for (i = 0; i < idx->nbuilds; i++)
		if (idx->builds[i].commit_dropped && n++ == 0 && first)
			*first = i;
	return n;
}

char *ab_index_compare_url(const ab_index *idx, size_t old_pos, size_t new_pos)
{
	const char *s;
	ab_buf b = {0};

	if (!idx->compare_url || old_pos >= idx->nbuilds || new_pos >= idx->nbuilds)
		return NULL;
	for (s = idx->compare_url; *s; ) {
		if (!strncmp(s, "{old}", 5)) {
			put_ref(&b, &idx->builds[old_pos]);
			s += 5;
		} else if (!strncmp(s, "{new}", 5)) {
			put_ref(&b, &idx->builds[new_pos]);
			s += 5;
		} else {
			const char *brace = strchr(s + 1, '{');
			size_t n = brace ? (size_t)(brace - s) : strlen(s);
			ab_buf_append(&b, s, n);
			s += n;
		}
	}
	return ab_buf_steal(&b);
}

static void build_clear(ab_build *b)
{
	size_t j;

	free(b->id);
	free(b->commit);
	free(b->date);
	free(b->version);
	free(b->farm_ref);
	for (j = 0; j < b->nartifacts; j++) {
		free(b->artifacts[j].url);
		free(b->artifacts[j].name);
		free(b->artifacts[j].filename);
	}
	free(b->artifacts);
	memset(b, 0, sizeof *b);
}

void ab_index_free(ab_index *idx)
{
	size_t i;

	if (!idx)
		return;
	if (idx->arena) {
		ab_arena_clear(idx->arena);
		free(idx->arena);
	} else {
		for (i = 0; i < idx->nbuilds; i++)
			build_clear(&idx->builds[i]);
	}
	free(idx->builds);
	free(idx->source_url);
	free(idx->label);
	free(idx->name);
	free(idx->project);
	free(idx->arch);
	free(idx->vcs_type);
	free(idx->vcs_url);
	free(idx->compare_url);
	free(idx->base_dir);
	ab_index_urls_free(idx->mirrors, idx->nmirrors);
	lookup_free(idx->lookup);
	free(idx);
}

char **ab_index_mirror_urls(const ab_index *idx, const ab_artifact *a, size_t *n)
{
	size_t bl = idx->base_dir ? strlen(idx->base_dir) : 0, m;
	char **v;

	*n = 0;
	if (!idx->nmirrors || !bl || strncmp(a->url, idx->base_dir, bl))
		return NULL;
	v = ab_xcalloc(idx->nmirrors, sizeof *v);
	for (m = 0; m < idx->nmirrors; m++)
		v[(*n)++] = ab_xasprintf("%s%s", idx->mirrors[m], a->url + bl);
	return v;
}

void ab_index_urls_free(char **urls, size_t n)
{
	size_t i;

	for (i = 0; i < n && urls; i++)
		free(urls[i]);
	free(urls);
}

/* One reading of the document, the builds array cut as mode says. On a
 * failure *retry may name another mode to read it again in. */
static ab_index *parse_once(const char *data, size_t len, const char *source_url, ab_error *err,
			    enum cut_mode mode, enum cut_mode *retry, int farm)
{
	struct parser P = { 0 };
	ab_index *idx = ab_xcalloc(1, sizeof *idx);
	json_t *root = NULL;
	json_error_t je;
	const char *why = NULL;
	size_t i;
	int bom = 0, rc = -1;

	idx->source_url = ab_xstrdup(source_url ? source_url : "");
	idx->label = ab_index_label(source_url);
	idx->arena = ab_xcalloc(1, sizeof *idx->arena);
	P.arena = idx->arena;
	P.label = idx->label;
	P.err = err;
	P.idx = idx;
	P.mode = mode;
	P.farm = farm;
	if (!data)
		len = 0;

	if (len > MAX_INDEX_BYTES) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: larger than %zu bytes; refusing to read it"),
			     idx->label, MAX_INDEX_BYTES);
		goto out;
	}
	if (!source_url || url_base_init(&P.ub, source_url, &why) < 0) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: cannot use '%s' as the index URL: %s"),
			     idx->label, source_url ? source_url : "", why ? why : _("none given"));
		goto out;
	}
	idx->base_dir = ab_xstrdup(P.ub.dir);
	if (len >= 3 && !memcmp(data, "\xef\xbb\xbf", 3)) {
		data += 3;
		len -= 3;
		bom = 1;
	}
	for (i = 0; i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'); i++)
		;
	if (i == len) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: the document is empty; expected an artifact index (JSON, docs/index-format.md), a yum repository or a directory of builds"), idx->label);
		goto out;
	}
	P.doc = data;
	P.doclen = len;
	P.bom = bom;
	{
		int whole = 0;

		root = load_top(&P, &whole);
		if (!root && whole) {
			root = json_loadb(data, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
			if (!root)
				syntax_error(&P, &je, bom);
		}
	}
	if (root && read_index(&P, root) == 0)
		rc = 0;
	/* Anything after a guessed builds array may have been misread. */
	if (rc < 0)
		*retry = P.retry ? P.retry : P.cuts_guessed ? CUTS_SCANNED : 0;
out:
	json_decref(root);
	url_base_free(&P.ub);
	if (rc < 0) {
		ab_index_free(idx);
		return NULL;
	}
	return idx;
}

static ab_index *parse(const char *data, size_t len, const char *source_url, ab_error *err,
			int farm)
{
	enum cut_mode mode = CUTS_GUESSED, retry = 0;
	ab_index *idx;

	while (!(idx = parse_once(data, len, source_url, err, mode, &retry, farm)) && retry > mode) {
		ab_error_clear(err);
		mode = retry;
		retry = 0;
	}
	return idx;
}

ab_index *ab_index_parse(const char *data, size_t len, const char *source_url, ab_error *err)
{
	return parse(data, len, source_url, err, 0);
}

ab_index *ab_index_parse_farm(const char *data, size_t len, const char *source_url,
			      ab_error *err)
{
	return parse(data, len, source_url, err, 1);
}

int ab_index_resolve(const ab_index *idx, size_t pos, char **why, ab_error *err)
{
	*why = NULL;
	if (pos >= idx->nbuilds || idx->builds[pos].failed)
		return 0;
	/* Set only once the farm filled the build in, under its lock. */
	if (!__atomic_load_n(&idx->builds[pos].unresolved, __ATOMIC_ACQUIRE) || !idx->resolver)
		return 0;
	return idx->resolver(idx->farm, pos, why, err);
}

const char *ab_trust_name(ab_trust t)
{
	switch (t) {
	case AB_TRUST_SIGNED: return "signed";
	case AB_TRUST_UNVERIFIED: return "unverified";
	default: return "digest";
	}
}
