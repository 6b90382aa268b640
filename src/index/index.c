/* index.c - see index.h.
 *
 * jansson parses the document; this file walks the tree it builds,
 * checks it against CONTRACT.md section 1, and copies out what index.h
 * holds. Each build's JSON is dropped as soon as it is copied, so that
 * the index grows into the memory the tree gives back. Owns the checks
 * of every field, the messages that refuse an index, and the public
 * entry points (ab_index_parse, ab_index_free, ab_index_resolve...).
 * The rest is split by job (index_internal.h holds what they share):
 * URLs and artifact types in index_url.c, the look-up tables behind
 * ab_index_find (ids hashed, commits sorted) in index_find.c, reading
 * the builds array streamed and on several threads in index_pieces.c.
 * Never opens a file or a connection and never prints.
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
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <jansson.h>
#include "base/i18n.h"
#include "base/arena.h"
#include "base/escape.h"
#include "index/index_internal.h"
#include "base/util.h"

/* The longest string field (an URL with a long query fits). */
#define MAX_FIELD 65536

static const char format_name[] = "artbisect-index";

/* ---------------------------------------------------------------------
 * Reading the tree
 */

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
	if (index_url_resolve(&P->ub, P->arena, s, n, &a->url, &a->filename, &named, why, sizeof why) < 0)
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
int index_read_build(struct parser *P, const json_t *o, ab_build *b, size_t pos)
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
	 * artifacts were checked. */
	if ((r = get_str(P, o, "farm_ref", &s, &n)) < 0)
		return -1;
	if (r && ab_has_control(s, n))
		return fail(P, "farm_ref", _("must not contain control characters"));
	if (r)
		b->farm_ref = ab_arena_strndup(P->arena, s, n);
	if ((r = get_str(P, o, "farm_trust", &s, &n)) < 0)
		return -1;
	/* "signed" only from a farm's own snapshot: elsewhere it is a
	 * claim nobody here checked ("unverified" is kept: it warns). */
	if (r && !strcmp(s, "signed"))
		b->trust = P->farm ? AB_TRUST_SIGNED : AB_TRUST_DIGEST;
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

/* The builds array is not what the scanner took it for (a missing
 * comma, say): jansson reads the whole document to say where. */
int index_structure_error(struct parser *P)
{
	json_error_t je;
	json_t *v = json_loadb(P->doc, P->doclen, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);

	P->at = AT_TOP;
	if (!v) {
		index_syntax_error(P, &je, P->bom);
	} else {
		json_decref(v);
		fail(P, "builds", _("cannot be read as an array of builds"));
	}
	return -1;
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
		other = index_id_probe(L, P->idx->builds, b->id, &slot, &tag);
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

/* format and version first: a version 2 index gets the version
 * message, not one about a build this one cannot understand. */
static int read_format(struct parser *P, const json_t *root)
{
	const json_t *v;
	const char *s;
	size_t n;
	int r;

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
	return 0;
}

/* The optional vcs object. */
static int read_vcs(struct parser *P, const json_t *root)
{
	ab_index *idx = P->idx;
	const json_t *v;

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
	return 0;
}

/* Mirror m, e, resolved into idx->mirrors[m]. */
static int read_mirror(struct parser *P, const json_t *e, size_t m)
{
	ab_index *idx = P->idx;
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
		if (index_url_resolve(&P->ub, NULL, ms, ml, &url, &fname, &named, why, sizeof why) < 0)
			return fail(P, key, "%s", why);
		idx->mirrors[m] = url;
	} else {
		/* A base directory, whether or not it ends in '/'. */
		char *withslash = ab_xasprintf("%.*s/", (int)ml, ms);
		int rr = index_url_resolve(&P->ub, NULL, withslash, ml + 1, &url, &fname, &named, why, sizeof why);

		free(withslash);
		if (rr < 0)
			return fail(P, key, "%s", why);
		idx->mirrors[m] = url;
	}
	free(fname);
	return 0;
}

/* Mirrors: other base directories holding the same files. */
static int read_mirrors(struct parser *P, const json_t *root)
{
	ab_index *idx = P->idx;
	const json_t *v;

	if ((v = json_object_get(root, "mirrors"))) {
		size_t m;

		if (!json_is_array(v))
			return type_error(P, "mirrors", v, _("an array of URLs"));
		idx->nmirrors = json_array_size(v);
		idx->mirrors = ab_xcalloc(idx->nmirrors ? idx->nmirrors : 1, sizeof *idx->mirrors);
		for (m = 0; m < idx->nmirrors; m++)
			if (read_mirror(P, json_array_get(v, m), m) < 0)
				return -1;
	}
	return 0;
}

/* The builds, from the tree or, when the scanner found where they are,
 * streamed (on several threads when there are pieces). */
static int read_builds(struct parser *P, json_t *root)
{
	ab_index *idx = P->idx;
	json_t *builds;
	size_t n, i;
	int r;

	if (P->builds_at) {
		size_t bad = 0;

		if (P->npieces >= 2)
			return index_read_in_pieces(P);
		n = P->builds_count;
		if (!n)
			return fail(P, "builds", _("empty (an index needs at least one build)"));
		idx->builds = ab_xcalloc_big(n, sizeof *idx->builds);
		idx->nbuilds = n;
		idx->lookup = index_lookup_new(n);
		r = index_read_all_builds(P, &bad);
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
	idx->lookup = index_lookup_new(n);
	for (i = 0; i < n; i++) {
		if (index_read_build(P, json_array_get(builds, i), &idx->builds[i], i) < 0)
			break;
		/* Hand this build's JSON back to malloc for the next ones. */
		json_array_set(builds, i, json_null());
	}
	return finish_builds(P, i);
}

static int read_index(struct parser *P, json_t *root)
{
	ab_index *idx = P->idx;

	if (!json_is_object(root))
		return fail(P, NULL, _("the top level must be a JSON object, found %s"), kind(root));
	if (read_format(P, root) < 0)
		return -1;
	if (dup_str(P, NULL, root, "name", &idx->name) < 0 ||
	    dup_str(P, NULL, root, "project", &idx->project) < 0 ||
	    dup_str(P, NULL, root, "arch", &idx->arch) < 0)
		return -1;
	if (read_vcs(P, root) < 0 || read_mirrors(P, root) < 0)
		return -1;
	return read_builds(P, root);
}

/* jansson's message, with the line and column it gives. */
void index_syntax_error(struct parser *P, json_error_t *je, int bom)
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
	index_lookup_free(idx->lookup);
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
	if (!source_url || index_url_base_init(&P.ub, source_url, &why) < 0) {
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

		root = index_load_top(&P, &whole);
		if (!root && whole) {
			root = json_loadb(data, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
			if (!root)
				index_syntax_error(&P, &je, bom);
		}
	}
	if (root && read_index(&P, root) == 0)
		rc = 0;
	/* Anything after a guessed builds array may have been misread. */
	if (rc < 0)
		*retry = P.retry ? P.retry : P.cuts_guessed ? CUTS_SCANNED : 0;
out:
	json_decref(root);
	index_url_base_free(&P.ub);
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
