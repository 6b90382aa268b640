/* index.c - see index.h.
 *
 * The index is read by a small strict JSON reader of its own rather than
 * by jansson: jansson builds a whole DOM first, which for a 1,000,000-build
 * index (270 MB) took 7 to 10 s and 2 GB (3.7 s even one build at a time),
 * against about 1 s and 370 MB here. The reader walks the document once,
 * keeps only what index.h holds, and names the place of every refusal
 * (JSON path, and line and column for syntax). The test suite checks it
 * against jansson on mutated documents.
 *
 * What the reader accepts is RFC 8259 JSON, as jansson does by default:
 * UTF-8 checked everywhere (no overlong forms, no surrogates), no control
 * characters in strings, \u escapes with proper surrogate pairs, strict
 * number grammar, nothing after the top-level object but white space.
 * Deliberate differences: a leading UTF-8 byte order mark is skipped;
 * nesting deeper than MAX_DEPTH is refused; \u0000 is refused in the
 * strings artbisect reads (with the place named) and allowed in values it
 * ignores; numbers are not range-checked where they are ignored.
 *
 * Keys artbisect reads may appear only once per object (which of two
 * "sha256" would win is not a question to leave open). Keys it does not
 * know are skipped, duplicates included: that is the forward
 * compatibility CONTRACT.md section 1 asks for.
 *
 * Failed builds: their "artifacts", if any, are checked for JSON syntax
 * only and then dropped (nartifacts is 0). A farm that could not finish a
 * build may well list half-made artifacts without a sha256, and a failed
 * build is never downloaded, so refusing the whole index over it would
 * help nobody.
 */
#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include <curl/curl.h>
#include "i18n.h"
#include "index.h"
#include "util.h"

#define MAX_DEPTH 512
#define MAX_INDEX_BYTES ((size_t)2 << 30)	/* 2 GiB */
#define MIN_PREFIX 7
#define MAX_FRAMES 8
#define CLIP 200		/* longest piece of the document quoted back */

static const char format_name[] = "artbisect-index";

/* ---------------------------------------------------------------------
 * Small helpers
 */

/* Character classes: C_HEX a hex digit; C_URL kept as is in a simple
 * relative URL (RFC 3986 unreserved, sub-delims, '@' and '/'; not ':',
 * which could start a scheme, nor '%', '?', '#' or what libcurl encodes);
 * C_JSON needs no escaping in a JSON string and is ASCII. */
enum { C_HEX = 1, C_URL = 2, C_JSON = 4 };
static const unsigned char ctab[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	4, 6, 0, 4, 6, 4, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 4, 6, 4, 6, 4, 4,
	6, 7, 7, 7, 7, 7, 7, 6, 6, 6, 6, 6, 6, 6, 6, 6,
	6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 4, 0, 4, 4, 6,
	4, 7, 7, 7, 7, 7, 7, 6, 6, 6, 6, 6, 6, 6, 6, 6,
	6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 4, 4, 4, 6, 4,
};

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

/* ---------------------------------------------------------------------
 * An arena for the per-build strings and artifact arrays: a million
 * builds make seven million small allocations otherwise, and malloc's
 * headers and rounding add a third to the memory.
 */

struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	char data[];		/* at offset 24: 8-aligned */
};

struct arena {
	struct arena_block *head;
	size_t next_size;
};

#define ARENA_FIRST ((size_t)64 << 10)
#define ARENA_MAX ((size_t)8 << 20)

static void *arena_alloc(struct arena *A, size_t n, size_t align)
{
	struct arena_block *b = A->head;
	size_t off, size;

	if (b) {
		off = (b->used + align - 1) & ~(align - 1);
		if (off <= b->cap && n <= b->cap - off) {
			b->used = off + n;
			return b->data + off;
		}
	}
	size = A->next_size ? A->next_size : ARENA_FIRST;
	if (size < ARENA_MAX)
		A->next_size = 2 * size;
	if (size < n)
		size = n;
	b = ab_xmalloc(sizeof *b + size);
	b->next = A->head;
	b->cap = size;
	b->used = n;
	A->head = b;
	return b->data;
}

static char *arena_strndup(struct arena *A, const char *s, size_t n)
{
	char *p = arena_alloc(A, n + 1, 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static void arena_free(struct arena *A)
{
	while (A->head) {
		struct arena_block *b = A->head;
		A->head = b->next;
		free(b);
	}
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

/* Characters kept as they are in a file:// URL made from a path. */
static int path_char_plain(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c))
		return 1;
	return c && strchr("-._~/!$&'()*+,;=:@", c) != NULL;
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

	memset(ub, 0, sizeof *ub);
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

/* A relative reference that resolving only appends to the base directory:
 * plain characters, no leading '/', no "." or ".." segment. */
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
		if (!(ctab[(unsigned char)s[i]] & C_URL))
			return 0;
	}
	return 1;
}

/* Resolves ref[0..n) against the index URL. On failure returns -1 with a
 * reason in why (n bytes). */
static int url_resolve(const struct url_base *ub, struct arena *A, const char *ref, size_t n,
		       char **url, char **filename, int *named, char *why, size_t whylen)
{
	CURLU *h;
	CURLUcode rc;
	char *tmp, *out = NULL, *scheme = NULL, *path = NULL, *fname;
	size_t sl;
	int ret = -1;

	if (ub->dir && url_is_simple(ref, n)) {
		char *u = arena_alloc(A, ub->dirlen + n + 1, 1);
		memcpy(u, ub->dir, ub->dirlen);
		memcpy(u + ub->dirlen, ref, n);
		u[ub->dirlen + n] = '\0';
		*url = u;
		/* No '%' and no dot segment: the last segment is the name, and
		 * the URL ends with it. */
		for (sl = n; sl > 0 && ref[sl - 1] != '/'; sl--)
			;
		*named = sl < n;
		*filename = *named ? u + ub->dirlen + sl : arena_strndup(A, "artifact", 8);
		return 0;
	}

	tmp = ab_xstrndup(ref, n);
	sl = scheme_len(tmp);
	if (sl && !scheme_supported(tmp, sl)) {
		snprintf(why, whylen, _("unsupported URL scheme '%.*s' (use http, https or file)"),
			 (int)(sl > CLIP ? CLIP : sl), tmp);
		free(tmp);
		return -1;
	}
	h = curl_url_dup(ub->base);
	if (!h)
		abort();
	rc = curl_url_set(h, CURLUPART_URL, tmp, CURLU_ALLOW_SPACE | CURLU_URLENCODE);
	if (rc) {
		snprintf(why, whylen, _("cannot resolve '%.*s' against the index URL: %s"),
			 CLIP, tmp, curl_url_strerror(rc));
		goto out;
	}
	rc = curl_url_get(h, CURLUPART_SCHEME, &scheme, 0);
	if (!rc)
		rc = curl_url_get(h, CURLUPART_URL, &out, 0);
	if (!rc)
		rc = curl_url_get(h, CURLUPART_PATH, &path, 0);
	if (rc) {
		snprintf(why, whylen, _("cannot resolve '%.*s' against the index URL: %s"),
			 CLIP, tmp, curl_url_strerror(rc));
		goto out;
	}
	if (!scheme_supported(scheme, strlen(scheme))) {
		snprintf(why, whylen, _("unsupported URL scheme '%.*s' (use http, https or file)"),
			 CLIP, scheme);
		goto out;
	}
	if (ub->remote && strcase_eq(scheme, "file")) {
		snprintf(why, whylen, _("'%.*s': file:// URLs are not allowed in an index served over http or https"),
			 CLIP, tmp);
		goto out;
	}
	*url = arena_strndup(A, out, strlen(out));
	fname = last_segment(path, strlen(path));
	*named = fname != NULL;
	*filename = fname ? arena_strndup(A, fname, strlen(fname)) : arena_strndup(A, "artifact", 8);
	free(fname);
	ret = 0;
out:
	curl_free(scheme);
	curl_free(out);
	curl_free(path);
	curl_url_cleanup(h);
	free(tmp);
	return ret;
}

static int guess_type(const char *filename, ab_artifact_type *t)
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
	struct arena arena;	/* the builds' strings and artifact arrays */
};

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

/* ---------------------------------------------------------------------
 * The JSON reader
 */

struct frame {
	const char *key;	/* member name, or NULL for an array element */
	size_t klen;
	size_t idx;
};

struct parser {
	const unsigned char *doc, *p, *end;
	const char *label;
	ab_error *err;
	struct frame path[MAX_FRAMES];
	int npath;
	ab_buf kbuf;		/* the last member name read */
	ab_buf sbuf;		/* the last string value with escapes */
	struct url_base ub;
	struct arena *arena;	/* idx->lookup's */
	ab_index *idx;
	size_t capbuilds;
	uint64_t *hashes;	/* the ids' hashes, by position */
	size_t capcommits;
	ab_artifact *arts;	/* the artifacts of the build being read */
	size_t narts, caparts;
};

/* Notes a commit of at least MIN_PREFIX characters for prefix lookups. */
static void add_commit(struct parser *P, const char *c, size_t n, size_t pos)
{
	struct ab_index_lookup *L = P->idx->lookup;
	struct commit_ent *e;
	uint64_t key = 0;
	size_t j;

	if (L->ncommits == P->capcommits) {
		P->capcommits = P->capcommits ? 2 * P->capcommits : 1024;
		L->commits = ab_xrealloc(L->commits, P->capcommits * sizeof *L->commits);
	}
	for (j = 0; j < 8; j++)
		key = key << 8 | (j < n ? lc((unsigned char)c[j]) : 0);
	e = &L->commits[L->ncommits++];
	e->key = key;
	e->commit = c;
	e->pos = pos;
}

static void push_key(struct parser *P, const char *key, size_t klen)
{
	if (P->npath < MAX_FRAMES) {
		P->path[P->npath].key = key;
		P->path[P->npath].klen = klen;
	}
	P->npath++;
}

static void push_name(struct parser *P, const char *key)
{
	push_key(P, key, strlen(key));
}

static void push_idx(struct parser *P, size_t i)
{
	if (P->npath < MAX_FRAMES) {
		P->path[P->npath].key = NULL;
		P->path[P->npath].idx = i;
	}
	P->npath++;
}

static void pop(struct parser *P)
{
	P->npath--;
}

static void fail(struct parser *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct parser *P, const char *fmt, ...)
{
	char reason[900];
	ab_buf path = {0};
	va_list ap;
	int i;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof reason, fmt, ap);
	va_end(ap);
	for (i = 0; i < P->npath && i < MAX_FRAMES; i++) {
		const struct frame *f = &P->path[i];
		if (f->key) {
			if (i)
				ab_buf_puts(&path, ".");
			ab_buf_append(&path, f->key, f->klen > 64 ? 64 : f->klen);
		} else {
			ab_buf_printf(&path, "[%zu]", f->idx);
		}
	}
	if (path.len)
		ab_error_set(P->err, AB_EXIT_USAGE, "%s: %s: %s", P->label, path.data, reason);
	else
		ab_error_set(P->err, AB_EXIT_USAGE, "%s: %s", P->label, reason);
	ab_buf_free(&path);
}

/* A syntax error at byte at: says where, as line and column (counted in
 * characters from 1, as jansson does). */
static int syntax(struct parser *P, const unsigned char *at, const char *what)
{
	const unsigned char *s, *line_start = P->doc;
	size_t line = 1, col = 1;

	if (at > P->end)
		at = P->end;
	for (s = P->doc; s < at; s++) {
		s = memchr(s, '\n', (size_t)(at - s));
		if (!s)
			break;
		line++;
		line_start = s + 1;
	}
	for (s = line_start; s < at; s++)
		if ((*s & 0xc0) != 0x80)
			col++;
	fail(P, _("invalid JSON at line %zu, column %zu: %s"), line, col, what);
	return -1;
}

static inline void skip_ws(struct parser *P)
{
	while (P->p < P->end && (*P->p == ' ' || *P->p == '\n' || *P->p == '\r' || *P->p == '\t'))
		P->p++;
}

static inline int json_plain(unsigned char c)
{
	return ctab[c] & C_JSON;
}

/* Whether any of the 8 bytes in v needs a closer look in a string: '"',
 * '\\', a control character or a non-ASCII byte. */
static inline int word_special(uint64_t v)
{
	const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	uint64_t q = v ^ (ones * '"'), b = v ^ (ones * '\\');

	return (((q - ones) & ~q) | ((b - ones) & ~b) | ((v - ones * 0x20) & ~v) | v) & high ? 1 : 0;
}

/* Length of the valid UTF-8 sequence at s (Unicode table 3-7), or 0. */
static size_t utf8_len(const unsigned char *s, const unsigned char *end)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if ((size_t)(end - s) < n)
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

static void put_utf8(ab_buf *b, uint32_t cp)
{
	unsigned char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (unsigned char)(0xc0 | (cp >> 6));
		u[1] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (unsigned char)(0xe0 | (cp >> 12));
		u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (unsigned char)(0xf0 | (cp >> 18));
		u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	ab_buf_append(b, u, n);
}

static int hex4(const unsigned char *s, const unsigned char *end, uint32_t *v)
{
	int i, h;

	if (end - s < 4)
		return -1;
	*v = 0;
	for (i = 0; i < 4; i++) {
		if ((h = hexval(s[i])) < 0)
			return -1;
		*v = *v * 16 + (uint32_t)h;
	}
	return 0;
}

/* Reads the string at P->p (a '"'). With out set, hands back its decoded
 * bytes: a pointer into the document when it has no escape, else into
 * buf; valid until the next string is read into buf. *nul is set when a
 * \u0000 was decoded. */
static int read_str(struct parser *P, ab_buf *buf, const char **out, size_t *outlen, int *nul)
{
	const unsigned char *start = P->p + 1, *s = start, *end = P->end;
	uint64_t w;

	while (end - s >= 8) {
		memcpy(&w, s, 8);
		if (word_special(w))
			break;
		s += 8;
	}
	while (s < end && json_plain(*s))
		s++;
	if (s < end && *s == '"') {
		if (out) {
			*out = (const char *)start;
			*outlen = (size_t)(s - start);
		}
		P->p = s + 1;
		return 0;
	}
	if (out) {
		buf->len = 0;
		ab_buf_append(buf, start, (size_t)(s - start));
	}
	for (;;) {
		const unsigned char *run;
		unsigned char c;

		if (s >= end)
			return syntax(P, P->p, _("string not terminated"));
		c = *s;
		if (c == '"')
			break;
		if (c < 0x20)
			return syntax(P, s, _("control character in a string (it must be escaped)"));
		if (c == '\\') {
			const unsigned char *esc = s;
			char ch;
			uint32_t cp, lo;

			if (++s >= end)
				return syntax(P, P->p, _("string not terminated"));
			switch (*s) {
			case '"': ch = '"'; break;
			case '\\': ch = '\\'; break;
			case '/': ch = '/'; break;
			case 'b': ch = '\b'; break;
			case 'f': ch = '\f'; break;
			case 'n': ch = '\n'; break;
			case 'r': ch = '\r'; break;
			case 't': ch = '\t'; break;
			case 'u':
				if (hex4(s + 1, end, &cp) < 0)
					return syntax(P, esc, _("invalid \\u escape"));
				s += 5;
				if (cp >= 0xd800 && cp <= 0xdbff) {
					if (end - s < 6 || s[0] != '\\' || s[1] != 'u' ||
					    hex4(s + 2, end, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff)
						return syntax(P, esc, _("invalid \\u escape (a lone UTF-16 surrogate)"));
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					s += 6;
				} else if (cp >= 0xdc00 && cp <= 0xdfff) {
					return syntax(P, esc, _("invalid \\u escape (a lone UTF-16 surrogate)"));
				}
				if (cp == 0 && nul)
					*nul = 1;
				if (out)
					put_utf8(buf, cp);
				continue;
			default:
				return syntax(P, esc, _("invalid escape in a string"));
			}
			if (out)
				ab_buf_append(buf, &ch, 1);
			s++;
			continue;
		}
		if (c >= 0x80) {
			size_t n = utf8_len(s, end);
			if (!n)
				return syntax(P, s, _("invalid UTF-8"));
			if (out)
				ab_buf_append(buf, s, n);
			s += n;
			continue;
		}
		for (run = s; s < end && json_plain(*s); s++)
			;
		if (out)
			ab_buf_append(buf, run, (size_t)(s - run));
	}
	P->p = s + 1;
	if (out) {
		*out = buf->data;
		*outlen = buf->len;
	}
	return 0;
}

/* Reads the number at P->p; *is_int when it has no fraction or exponent. */
static int read_num(struct parser *P, const char **tok, size_t *toklen, int *is_int)
{
	const unsigned char *s = P->p, *end = P->end;
	int integer = 1;

	if (s < end && *s == '-')
		s++;
	if (s >= end || !is_digit(*s))
		return syntax(P, P->p, _("invalid number"));
	if (*s == '0')
		s++;
	else
		while (s < end && is_digit(*s))
			s++;
	if (s < end && *s == '.') {
		integer = 0;
		if (++s >= end || !is_digit(*s))
			return syntax(P, P->p, _("invalid number"));
		while (s < end && is_digit(*s))
			s++;
	}
	if (s < end && (*s == 'e' || *s == 'E')) {
		integer = 0;
		s++;
		if (s < end && (*s == '+' || *s == '-'))
			s++;
		if (s >= end || !is_digit(*s))
			return syntax(P, P->p, _("invalid number"));
		while (s < end && is_digit(*s))
			s++;
	}
	if (tok) {
		*tok = (const char *)P->p;
		*toklen = (size_t)(s - P->p);
		*is_int = integer;
	}
	P->p = s;
	return 0;
}

static int read_literal(struct parser *P)
{
	static const char *const lits[] = { "true", "false", "null" };
	size_t i;

	for (i = 0; i < 3; i++) {
		size_t n = strlen(lits[i]);
		if ((size_t)(P->end - P->p) >= n && !memcmp(P->p, lits[i], n)) {
			P->p += n;
			return 0;
		}
	}
	return syntax(P, P->p, _("invalid literal (expected true, false or null)"));
}

/* What kind of value starts at P->p, for messages; NULL if none does. */
static const char *found(const struct parser *P)
{
	if (P->p >= P->end)
		return NULL;
	switch (*P->p) {
	case '"':
		return _("a string");
	case '{':
		return _("an object");
	case '[':
		return _("an array");
	case 't':
	case 'f':
		return _("a boolean");
	case 'n':
		return _("null");
	}
	if (*P->p == '-' || is_digit(*P->p))
		return _("a number");
	return NULL;
}

static int type_error(struct parser *P, const char *expected)
{
	const char *what = found(P);

	if (!what) {
		if (P->p >= P->end)
			return syntax(P, P->p, _("unexpected end of input"));
		return syntax(P, P->p, _("expected a value"));
	}
	fail(P, _("expected %s, found %s"), expected, what);
	return -1;
}

/* Object members: call with *first = 1 right after the '{'. Returns 1 at
 * a member (its name in *key when decode is set, P->p at the value), 0
 * after the closing '}', -1 on error. */
static int next_member(struct parser *P, int *first, int decode, const char **key, size_t *klen)
{
	int nul = 0;

	skip_ws(P);
	if (P->p >= P->end)
		return syntax(P, P->p, _("unexpected end of input (an object is not closed)"));
	if (*P->p == '}' && *first) {
		P->p++;
		return 0;
	}
	if (!*first) {
		if (*P->p == '}') {
			P->p++;
			return 0;
		}
		if (*P->p != ',')
			return syntax(P, P->p, _("expected ',' or '}'"));
		P->p++;
		skip_ws(P);
	}
	*first = 0;
	if (P->p >= P->end)
		return syntax(P, P->p, _("unexpected end of input (an object is not closed)"));
	if (*P->p != '"')
		return syntax(P, P->p, _("expected a member name in double quotes"));
	if (read_str(P, &P->kbuf, decode ? key : NULL, klen, &nul) < 0)
		return -1;
	skip_ws(P);
	if (P->p >= P->end || *P->p != ':')
		return syntax(P, P->p, _("expected ':'"));
	P->p++;
	skip_ws(P);
	return 1;
}

/* Array elements, likewise: 1 at an element, 0 after ']', -1 on error. */
static int next_elem(struct parser *P, int *first)
{
	skip_ws(P);
	if (P->p >= P->end)
		return syntax(P, P->p, _("unexpected end of input (an array is not closed)"));
	if (*first) {
		*first = 0;
		if (*P->p == ']') {
			P->p++;
			return 0;
		}
		return 1;
	}
	if (*P->p == ']') {
		P->p++;
		return 0;
	}
	if (*P->p != ',')
		return syntax(P, P->p, _("expected ',' or ']'"));
	P->p++;
	skip_ws(P);
	return 1;
}

/* Checks and skips any value; depth is how deep it sits. */
static int skip_value(struct parser *P, int depth)
{
	int first = 1, r;

	if (P->p >= P->end)
		return syntax(P, P->p, _("unexpected end of input"));
	switch (*P->p) {
	case '"':
		return read_str(P, NULL, NULL, NULL, NULL);
	case '{':
		if (depth >= MAX_DEPTH)
			return syntax(P, P->p, _("nested too deeply"));
		P->p++;
		while ((r = next_member(P, &first, 0, NULL, NULL)) > 0)
			if (skip_value(P, depth + 1) < 0)
				return -1;
		return r;
	case '[':
		if (depth >= MAX_DEPTH)
			return syntax(P, P->p, _("nested too deeply"));
		P->p++;
		while ((r = next_elem(P, &first)) > 0)
			if (skip_value(P, depth + 1) < 0)
				return -1;
		return r;
	case 't':
	case 'f':
	case 'n':
		return read_literal(P);
	}
	if (*P->p == '-' || is_digit(*P->p))
		return read_num(P, NULL, NULL, NULL);
	return syntax(P, P->p, _("expected a value"));
}

/* Skips the value of a member artbisect does not know. */
static int skip_unknown(struct parser *P, const char *key, size_t klen, int depth)
{
	int r;

	push_key(P, key, klen);
	r = skip_value(P, depth);
	pop(P);
	return r;
}

static int expect_string(struct parser *P, const char **s, size_t *len)
{
	int nul = 0;

	if (P->p >= P->end || *P->p != '"')
		return type_error(P, _("a string"));
	if (read_str(P, &P->sbuf, s, len, &nul) < 0)
		return -1;
	if (nul) {
		fail(P, _("must not contain \\u0000"));
		return -1;
	}
	return 0;
}

/* A string the index keeps: in the arena when it is a build's. */
static int dup_string(struct parser *P, char **out, int in_arena)
{
	const char *s;
	size_t len;

	if (expect_string(P, &s, &len) < 0)
		return -1;
	*out = in_arena ? arena_strndup(P->arena, s, len) : ab_xstrndup(s, len);
	return 0;
}

static int has_control(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 1;
	return 0;
}

struct key {
	const char *s;
	size_t n;
};
#define KEY(s) { s, sizeof s - 1 }

static int match_key(const char *k, size_t kl, const struct key *keys, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (keys[i].n == kl && k[0] == keys[i].s[0] && !memcmp(k, keys[i].s, kl))
			return i;
	return -1;
}

/* A member artbisect reads: pushes its name; refuses a second one. */
static int known_member(struct parser *P, const struct key *name, unsigned *seen, int which)
{
	push_key(P, name->s, name->n);
	if (*seen & (1u << which)) {
		fail(P, _("appears twice"));
		return -1;
	}
	*seen |= 1u << which;
	return 0;
}

static int missing(struct parser *P, const char *name, const char *why)
{
	push_name(P, name);
	if (why)
		fail(P, _("missing (%s)"), why);
	else
		fail(P, _("missing"));
	pop(P);
	return -1;
}

enum { A_URL, A_SHA256, A_SIZE, A_TYPE, A_NAME, A_N };
static const struct key artifact_keys[A_N] = {
	KEY("url"), KEY("sha256"), KEY("size"), KEY("type"), KEY("name")
};

/* Checks 64 hex digits and copies them lowercased (digits already have
 * the 0x20 bit, so or-ing it lowercases any hex digit). */
static int hex64(const char *s, char *out)
{
	unsigned ok = C_HEX;
	int i;

	for (i = 0; i < 64; i++) {
		unsigned char c = (unsigned char)s[i];
		ok &= ctab[c];
		out[i] = (char)(c | 0x20);
	}
	out[64] = '\0';
	return ok != 0;
}

static int read_size(struct parser *P, int64_t *size)
{
	const char *tok;
	size_t len, i;
	int is_int;
	uint64_t v = 0;

	if (P->p >= P->end || !(*P->p == '-' || is_digit(*P->p)))
		return type_error(P, _("a non-negative integer"));
	if (read_num(P, &tok, &len, &is_int) < 0)
		return -1;
	if (!is_int) {
		fail(P, _("expected a non-negative integer, found %.*s"),
		     (int)(len > CLIP ? CLIP : len), tok);
		return -1;
	}
	for (i = tok[0] == '-'; i < len; i++) {
		unsigned d = (unsigned)(tok[i] - '0');
		if (v > ((uint64_t)INT64_MAX - d) / 10) {
			fail(P, _("%.*s is too large"), (int)(len > CLIP ? CLIP : len), tok);
			return -1;
		}
		v = v * 10 + d;
	}
	if (tok[0] == '-' && v) {
		fail(P, _("expected a non-negative integer, found %.*s"),
		     (int)(len > CLIP ? CLIP : len), tok);
		return -1;
	}
	*size = (int64_t)v;
	return 0;
}

static int parse_artifact(struct parser *P, ab_artifact *a)
{
	static const char *const types[] = { "tar", "zip", "rpm", "deb", "file" };
	static const ab_artifact_type type_vals[] = {
		AB_ART_TAR, AB_ART_ZIP, AB_ART_RPM, AB_ART_DEB, AB_ART_FILE
	};
	unsigned seen = 0;
	int first = 1, r, which, i, named = 0;
	const char *k, *s;
	size_t kl, len;
	char why[1024];

	if (P->p >= P->end || *P->p != '{')
		return type_error(P, _("an object"));
	P->p++;
	while ((r = next_member(P, &first, 1, &k, &kl)) > 0) {
		which = match_key(k, kl, artifact_keys, A_N);
		if (which < 0) {
			if (skip_unknown(P, k, kl, 5) < 0)
				return -1;
			continue;
		}
		if (known_member(P, &artifact_keys[which], &seen, which) < 0)
			return -1;
		switch (which) {
		case A_URL:
			if (expect_string(P, &s, &len) < 0)
				return -1;
			if (!len) {
				fail(P, _("must not be empty"));
				return -1;
			}
			if (url_resolve(&P->ub, P->arena, s, len, &a->url, &a->filename, &named,
					why, sizeof why) < 0) {
				fail(P, "%s", why);
				return -1;
			}
			break;
		case A_SHA256:
			if (expect_string(P, &s, &len) < 0)
				return -1;
			if (len != 64 || !hex64(s, a->sha256)) {
				fail(P, _("expected 64 hex digits"));
				return -1;
			}
			break;
		case A_SIZE:
			if (read_size(P, &a->size) < 0)
				return -1;
			break;
		case A_TYPE:
			if (expect_string(P, &s, &len) < 0)
				return -1;
			for (i = 0; i < 5; i++)
				if (strlen(types[i]) == len && !memcmp(s, types[i], len))
					break;
			if (i == 5) {
				fail(P, _("unknown type '%.*s' (expected rpm, deb, tar, zip or file)"),
				     (int)(len > CLIP ? CLIP : len), s);
				return -1;
			}
			a->type = type_vals[i];
			break;
		case A_NAME:
			if (dup_string(P, &a->name, 1) < 0)
				return -1;
			break;
		}
		pop(P);
	}
	if (r < 0)
		return -1;
	if (!(seen & (1u << A_URL)))
		return missing(P, "url", NULL);
	if (!(seen & (1u << A_SHA256)))
		return missing(P, "sha256", NULL);
	if (!(seen & (1u << A_TYPE)) && (!named || guess_type(a->filename, &a->type) < 0)) {
		push_name(P, "type");
		if (named)
			fail(P, _("cannot guess the type from '%.*s'; set \"type\" (rpm, deb, tar, zip or file)"),
			     CLIP, a->filename);
		else
			fail(P, _("cannot guess the type of '%.*s' (no file name); set \"type\" (rpm, deb, tar, zip or file)"),
			     CLIP, a->url);
		pop(P);
		return -1;
	}
	return 0;
}

static int parse_artifacts(struct parser *P, ab_build *b)
{
	int first = 1, r;

	if (P->p >= P->end || *P->p != '[')
		return type_error(P, _("an array"));
	P->p++;
	P->narts = 0;
	while ((r = next_elem(P, &first)) > 0) {
		ab_artifact *a;

		if (P->narts == P->caparts) {
			P->caparts = P->caparts ? 2 * P->caparts : 8;
			P->arts = ab_xrealloc(P->arts, P->caparts * sizeof *P->arts);
		}
		a = &P->arts[P->narts++];
		memset(a, 0, sizeof *a);
		a->size = -1;
		push_idx(P, P->narts - 1);
		if (parse_artifact(P, a) < 0)
			return -1;
		pop(P);
	}
	if (r < 0)
		return -1;
	if (!P->narts) {
		fail(P, _("empty (a build with status \"ok\" needs at least one artifact)"));
		return -1;
	}
	b->artifacts = arena_alloc(P->arena, P->narts * sizeof *b->artifacts, 8);
	memcpy(b->artifacts, P->arts, P->narts * sizeof *b->artifacts);
	b->nartifacts = P->narts;
	P->narts = 0;
	return 0;
}

enum { B_ID, B_COMMIT, B_DATE, B_VERSION, B_STATUS, B_ARTIFACTS, B_N };
static const struct key build_keys[B_N] = {
	KEY("id"), KEY("commit"), KEY("date"), KEY("version"), KEY("status"), KEY("artifacts")
};

static int parse_build(struct parser *P, ab_build *b, size_t bi)
{
	const unsigned char *arts_at = NULL;
	unsigned seen = 0;
	int first = 1, r, which, arts_done = 0;
	const char *k, *s;
	size_t kl, len;

	if (P->p >= P->end || *P->p != '{')
		return type_error(P, _("an object"));
	P->p++;
	while ((r = next_member(P, &first, 1, &k, &kl)) > 0) {
		which = match_key(k, kl, build_keys, B_N);
		if (which < 0) {
			if (skip_unknown(P, k, kl, 3) < 0)
				return -1;
			continue;
		}
		if (known_member(P, &build_keys[which], &seen, which) < 0)
			return -1;
		switch (which) {
		case B_ID:
			if (expect_string(P, &s, &len) < 0)
				return -1;
			if (!len) {
				fail(P, _("must not be empty"));
				return -1;
			}
			if (has_control(s, len)) {
				fail(P, _("must not contain control characters"));
				return -1;
			}
			b->id = arena_strndup(P->arena, s, len);
			/* Hash it now, while it is in the cache. */
			P->hashes[bi] = siphash13(s, len, P->idx->lookup->k0, P->idx->lookup->k1);
			break;
		case B_COMMIT:
			if (expect_string(P, &s, &len) < 0)
				return -1;
			if (has_control(s, len)) {
				fail(P, _("must not contain control characters"));
				return -1;
			}
			/* An empty commit is no commit: {old}/{new} then use the id. */
			if (len) {
				b->commit = arena_strndup(P->arena, s, len);
				if (len >= MIN_PREFIX)
					add_commit(P, b->commit, len, bi);
			}
			break;
		case B_DATE:
			if (dup_string(P, &b->date, 1) < 0)
				return -1;
			break;
		case B_VERSION:
			if (dup_string(P, &b->version, 1) < 0)
				return -1;
			break;
		case B_STATUS:
			if (expect_string(P, &s, &len) < 0)
				return -1;
			if (len == 6 && !memcmp(s, "failed", 6)) {
				b->failed = 1;
			} else if (!(len == 2 && !memcmp(s, "ok", 2))) {
				fail(P, _("expected \"ok\" or \"failed\", found \"%.*s\""),
				     (int)(len > CLIP ? CLIP : len), s);
				return -1;
			}
			break;
		case B_ARTIFACTS:
			/* Whether they matter depends on "status", which may
			 * still come: then only check the syntax now and read
			 * them once the build is known to be ok. */
			if (seen & (1u << B_STATUS)) {
				if (b->failed) {
					if (skip_value(P, 3) < 0)
						return -1;
				} else {
					if (parse_artifacts(P, b) < 0)
						return -1;
					arts_done = 1;
				}
			} else {
				arts_at = P->p;
				if (skip_value(P, 3) < 0)
					return -1;
			}
			break;
		}
		pop(P);
	}
	if (r < 0)
		return -1;
	if (!b->id)
		return missing(P, "id", NULL);
	if (!b->failed && !arts_done) {
		const unsigned char *save = P->p;

		if (!arts_at)
			return missing(P, "artifacts", _("a build with status \"ok\" needs at least one artifact"));
		P->p = arts_at;
		push_name(P, "artifacts");
		if (parse_artifacts(P, b) < 0)
			return -1;
		pop(P);
		P->p = save;
	}
	return 0;
}

static int parse_builds(struct parser *P)
{
	ab_index *idx = P->idx;
	int first = 1, r;

	if (P->p >= P->end || *P->p != '[')
		return type_error(P, _("an array"));
	P->p++;
	while ((r = next_elem(P, &first)) > 0) {
		ab_build *b;

		if (idx->nbuilds == P->capbuilds) {
			if (P->capbuilds >= UINT32_MAX / 2) {
				fail(P, _("too many builds"));
				return -1;
			}
			P->capbuilds = P->capbuilds ? 2 * P->capbuilds : 1024;
			idx->builds = ab_xrealloc(idx->builds, P->capbuilds * sizeof *idx->builds);
			P->hashes = ab_xrealloc(P->hashes, P->capbuilds * sizeof *P->hashes);
		}
		b = &idx->builds[idx->nbuilds++];
		memset(b, 0, sizeof *b);
		push_idx(P, idx->nbuilds - 1);
		if (parse_build(P, b, idx->nbuilds - 1) < 0)
			return -1;
		pop(P);
	}
	if (r < 0)
		return -1;
	if (!idx->nbuilds) {
		fail(P, _("empty (an index needs at least one build)"));
		return -1;
	}
	return 0;
}

enum { V_TYPE, V_URL, V_COMPARE_URL, V_N };
static const struct key vcs_keys[V_N] = { KEY("type"), KEY("url"), KEY("compare_url") };

static int parse_vcs(struct parser *P)
{
	ab_index *idx = P->idx;
	char **dst[V_N] = { &idx->vcs_type, &idx->vcs_url, &idx->compare_url };
	unsigned seen = 0;
	int first = 1, r, which;
	const char *k;
	size_t kl;

	if (P->p >= P->end || *P->p != '{')
		return type_error(P, _("an object"));
	P->p++;
	while ((r = next_member(P, &first, 1, &k, &kl)) > 0) {
		which = match_key(k, kl, vcs_keys, V_N);
		if (which < 0) {
			if (skip_unknown(P, k, kl, 2) < 0)
				return -1;
			continue;
		}
		if (known_member(P, &vcs_keys[which], &seen, which) < 0)
			return -1;
		if (dup_string(P, dst[which], 0) < 0)
			return -1;
		pop(P);
	}
	return r;
}

enum { T_FORMAT, T_VERSION, T_NAME, T_PROJECT, T_ARCH, T_VCS, T_BUILDS, T_N };
static const struct key top_keys[T_N] = {
	KEY("format"), KEY("version"), KEY("name"), KEY("project"), KEY("arch"), KEY("vcs"),
	KEY("builds")
};

static int parse_top(struct parser *P)
{
	ab_index *idx = P->idx;
	const unsigned char *builds_at = NULL;
	unsigned seen = 0;
	int first = 1, r, which, builds_done = 0;
	const char *k, *s;
	size_t kl, len;
	int is_int;

	if (P->end - P->p >= 3 && P->p[0] == 0xef && P->p[1] == 0xbb && P->p[2] == 0xbf)
		P->p += 3;
	skip_ws(P);
	if (P->p >= P->end)
		return syntax(P, P->p, _("the document is empty"));
	if (*P->p != '{') {
		const char *what = found(P);
		if (!what)
			return syntax(P, P->p, _("expected a JSON object"));
		fail(P, _("the top level must be a JSON object, found %s"), what);
		return -1;
	}
	P->p++;
	while ((r = next_member(P, &first, 1, &k, &kl)) > 0) {
		which = match_key(k, kl, top_keys, T_N);
		if (which < 0) {
			if (skip_unknown(P, k, kl, 1) < 0)
				return -1;
			continue;
		}
		if (known_member(P, &top_keys[which], &seen, which) < 0)
			return -1;
		switch (which) {
		case T_FORMAT:
			if (expect_string(P, &s, &len) < 0)
				return -1;
			if (len != strlen(format_name) || memcmp(s, format_name, len)) {
				fail(P, _("expected \"%s\", found \"%.*s\""), format_name,
				     (int)(len > CLIP ? CLIP : len), s);
				return -1;
			}
			break;
		case T_VERSION:
			if (P->p >= P->end || !(*P->p == '-' || is_digit(*P->p)))
				return type_error(P, _("an integer"));
			if (read_num(P, &s, &len, &is_int) < 0)
				return -1;
			if (!is_int) {
				fail(P, _("expected an integer, found %.*s"),
				     (int)(len > CLIP ? CLIP : len), s);
				return -1;
			}
			if (len != 1 || s[0] != '1') {
				fail(P, _("unsupported index version %.*s; this artbisect reads version 1"),
				     (int)(len > CLIP ? CLIP : len), s);
				return -1;
			}
			break;
		case T_NAME:
			if (dup_string(P, &idx->name, 0) < 0)
				return -1;
			break;
		case T_PROJECT:
			if (dup_string(P, &idx->project, 0) < 0)
				return -1;
			break;
		case T_ARCH:
			if (dup_string(P, &idx->arch, 0) < 0)
				return -1;
			break;
		case T_VCS:
			if (parse_vcs(P) < 0)
				return -1;
			break;
		case T_BUILDS:
			/* Read the builds once "format" and "version" are known
			 * good; if they come later, check the syntax now and
			 * read the builds at the end, so that a version 2
			 * index gets the version message, not one about a
			 * build it cannot understand. */
			if ((seen & (1u << T_FORMAT)) && (seen & (1u << T_VERSION))) {
				if (parse_builds(P) < 0)
					return -1;
				builds_done = 1;
			} else {
				builds_at = P->p;
				if (skip_value(P, 1) < 0)
					return -1;
			}
			break;
		}
		pop(P);
	}
	if (r < 0)
		return -1;
	skip_ws(P);
	if (P->p < P->end)
		return syntax(P, P->p, _("unexpected data after the top-level object"));
	if (!(seen & (1u << T_FORMAT)))
		return missing(P, "format", _("expected \"artbisect-index\""));
	if (!(seen & (1u << T_VERSION)))
		return missing(P, "version", NULL);
	if (!(seen & (1u << T_BUILDS)))
		return missing(P, "builds", NULL);
	if (!builds_done) {
		P->p = builds_at;
		push_name(P, "builds");
		if (parse_builds(P) < 0)
			return -1;
		pop(P);
	}
	return 0;
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

static void lookup_free(struct ab_index_lookup *L)
{
	if (!L)
		return;
	free(L->slots);
	free(L->commits);
	arena_free(&L->arena);
	free(L);
}

static int build_lookup(struct parser *P)
{
	ab_index *idx = P->idx;
	struct ab_index_lookup *L = idx->lookup;
	size_t cap = 16, i;

	while (cap < 2 * idx->nbuilds)
		cap *= 2;
	L->slots = ab_xcalloc(cap, sizeof *L->slots);
	L->mask = cap - 1;
	for (i = 0; i < idx->nbuilds; i++) {
		const char *id = idx->builds[i].id;
		uint64_t h = P->hashes[i];
		uint64_t tag = h & 0xffffffff00000000ULL;
		size_t j = (size_t)h & L->mask;

		/* The slots are far apart in memory: ask for a later
		 * build's slot early so the cache misses overlap. */
		if (i + 16 < idx->nbuilds)
			__builtin_prefetch(&L->slots[(size_t)P->hashes[i + 16] & L->mask]);
		while (L->slots[j]) {
			if ((L->slots[j] & 0xffffffff00000000ULL) == tag) {
				size_t other = (size_t)(L->slots[j] & 0xffffffffULL) - 1;
				if (!strcmp(idx->builds[other].id, id)) {
					push_name(P, "builds");
					push_idx(P, i);
					push_name(P, "id");
					fail(P, _("duplicate id '%.*s' (also builds[%zu])"), CLIP, id, other);
					return -1;
				}
			}
			j = (j + 1) & L->mask;
		}
		L->slots[j] = tag | (uint64_t)(i + 1);
	}

	sort_commits(L->commits, L->ncommits);
	return 0;
}

static ssize_t find_id(const ab_index *idx, const char *name)
{
	const struct ab_index_lookup *L = idx->lookup;
	size_t i;

	if (!L || !L->slots) {
		for (i = 0; i < idx->nbuilds; i++)
			if (idx->builds[i].id && !strcmp(idx->builds[i].id, name))
				return (ssize_t)i;
		return -1;
	}
	{
		uint64_t h = siphash13(name, strlen(name), L->k0, L->k1);
		uint64_t tag = h & 0xffffffff00000000ULL;

		for (i = (size_t)h & L->mask; L->slots[i]; i = (i + 1) & L->mask) {
			if ((L->slots[i] & 0xffffffff00000000ULL) == tag) {
				size_t pos = (size_t)(L->slots[i] & 0xffffffffULL) - 1;
				if (!strcmp(idx->builds[pos].id, name))
					return (ssize_t)pos;
			}
		}
	}
	return -1;
}

/* Finds the range [*lo, *hi) of sorted commits starting with prefix. */
static void find_prefix(const struct ab_index_lookup *L, const char *prefix, size_t *lo, size_t *hi)
{
	size_t n = strlen(prefix), a, b;

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
	if (L && L->commits)
		find_prefix(L, name, &lo, &hi);
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
	} else if (hi > lo || all_hex(name)) {
		ab_error_set(err, AB_EXIT_USAGE,
			     _("unknown build '%s' (not an id or commit in %s; commit prefixes need at least %d characters)"),
			     name, label, MIN_PREFIX);
		return -1;
	}
	ab_error_set(err, AB_EXIT_USAGE, _("unknown build '%s' (not an id or commit in %s)"),
		     name, label);
	return -1;
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

void ab_index_free(ab_index *idx)
{
	size_t i, j;

	if (!idx)
		return;
	/* An index from ab_index_parse keeps the builds' strings and
	 * artifact arrays in the lookup's arena; one put together by other
	 * means (no lookup) owns each of them. */
	for (i = 0; !idx->lookup && i < idx->nbuilds; i++) {
		ab_build *b = &idx->builds[i];
		free(b->id);
		free(b->commit);
		free(b->date);
		free(b->version);
		for (j = 0; j < b->nartifacts; j++) {
			free(b->artifacts[j].url);
			free(b->artifacts[j].name);
			free(b->artifacts[j].filename);
		}
		free(b->artifacts);
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
	lookup_free(idx->lookup);
	free(idx);
}

ab_index *ab_index_parse(const char *data, size_t len, const char *source_url, ab_error *err)
{
	struct parser P;
	ab_index *idx;
	const char *why = NULL;
	uint64_t seed[2];
	int rc = -1;

	memset(&P, 0, sizeof P);
	idx = ab_xcalloc(1, sizeof *idx);
	idx->source_url = ab_xstrdup(source_url ? source_url : "");
	idx->label = ab_index_label(source_url);
	idx->lookup = ab_xcalloc(1, sizeof *idx->lookup);
	P.arena = &idx->lookup->arena;
	if (getentropy(seed, sizeof seed) < 0) {
		seed[0] = (uint64_t)(uintptr_t)idx ^ ((uint64_t)getpid() << 32);
		seed[1] = (uint64_t)(ab_now() * 1e9);
	}
	idx->lookup->k0 = seed[0];
	idx->lookup->k1 = seed[1];
	P.label = idx->label;
	P.err = err;
	P.idx = idx;
	P.doc = P.p = (const unsigned char *)(data ? data : "");
	P.end = P.doc + (data ? len : 0);

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
	if (parse_top(&P) < 0 || build_lookup(&P) < 0)
		goto out;
	if (P.capbuilds > idx->nbuilds)
		idx->builds = ab_xrealloc(idx->builds, idx->nbuilds * sizeof *idx->builds);
	rc = 0;
out:
	free(P.arts);
	free(P.hashes);
	ab_buf_free(&P.kbuf);
	ab_buf_free(&P.sbuf);
	url_base_free(&P.ub);
	if (rc < 0) {
		ab_index_free(idx);
		return NULL;
	}
	return idx;
}
