/* repodata.c - see repodata.h. */
#include "config.h"
#include <archive.h>
#include <limits.h>
#include <archive_entry.h>
#include <curl/curl.h>
#include <jansson.h>
#include <libxml/xmlreader.h>
#include <rpm/rpmpgp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <time.h>
#include "base/i18n.h"
#include "pkg/pkginfo.h"
#include "farms/repodata.h"
#include "base/util.h"

#define REPOMD_MAX ((size_t)16 << 20)
#define PRIMARY_MAX ((size_t)1 << 30)		/* compressed */
#define PRIMARY_OPEN_MAX ((size_t)INT_MAX)	/* uncompressed: libxml2 takes an int */

typedef struct pkg {
	char *name, *arch, *epoch, *ver, *rel;
	char *sum_type, *sum;
	char *href, *xml_base;
	long long size, buildtime;
} pkg;

static void pkg_free(pkg *p)
{
	free(p->name);
	free(p->arch);
	free(p->epoch);
	free(p->ver);
	free(p->rel);
	free(p->sum_type);
	free(p->sum);
	free(p->href);
	free(p->xml_base);
	memset(p, 0, sizeof *p);
}

/* libxml2's messages, kept for our own one-line error instead of being
 * printed. */
static char xml_msg[512];

static void on_xml_error(void *ctx, const xmlError *e)
{
	(void)ctx;
	if (e && e->message && !xml_msg[0]) {
		size_t n;

		snprintf(xml_msg, sizeof xml_msg, _("line %d: %s"), e->line, e->message);
		n = strlen(xml_msg);
		while (n && (xml_msg[n - 1] == '\n' || xml_msg[n - 1] == ' '))
			xml_msg[--n] = '\0';
	}
}

static void xml_setup(void)
{
	static int done;

	if (!done) {
		xmlInitParser();
		done = 1;
	}
	xml_msg[0] = '\0';
	xmlSetStructuredErrorFunc(NULL, (xmlStructuredErrorFunc)on_xml_error);
}

/* Parser options for untrusted metadata: no network, no external DTD,
 * no entity substitution. */
#define XML_OPTIONS (XML_PARSE_NONET | XML_PARSE_NOWARNING | XML_PARSE_NOERROR | XML_PARSE_NOCDATA)

/* Repository metadata never needs a DTD; one is refused before libxml2
 * sees it, so that no entity is ever declared, let alone expanded. A
 * DOCTYPE can only come before the root element, near the start. */
static int has_doctype(const char *data, size_t len)
{
	size_t n = len < 65536 ? len : 65536, i;

	for (i = 0; i + 9 <= n; i++)
		if (data[i] == '<' && !strncasecmp(data + i, "<!DOCTYPE", 9))
			return 1;
	return 0;
}

static char *attr(xmlTextReaderPtr r, const char *name)
{
	xmlChar *v = xmlTextReaderGetAttribute(r, (const xmlChar *)name);
	char *s = v ? ab_xstrdup((const char *)v) : NULL;

	xmlFree(v);
	return s;
}

static char *text_of(xmlTextReaderPtr r)
{
	xmlChar *v = xmlTextReaderReadString(r);
	char *s = ab_xstrdup(v ? (const char *)v : "");

	xmlFree(v);
	return s;
}

/* Hex digest of data by the repodata checksum type name, or NULL when
 * the type is not one rpm knows. */
static char *digest_hex(const char *type, const void *data, size_t len)
{
	static const struct { const char *name; int algo; } algos[] = {
		{ "sha256", PGPHASHALGO_SHA256 }, { "sha512", PGPHASHALGO_SHA512 },
		{ "sha384", PGPHASHALGO_SHA384 }, { "sha224", PGPHASHALGO_SHA224 },
		{ "sha1", PGPHASHALGO_SHA1 }, { "sha", PGPHASHALGO_SHA1 },
		{ "md5", PGPHASHALGO_MD5 },
	};
	size_t i;

	for (i = 0; i < sizeof algos / sizeof algos[0]; i++) {
		if (!strcmp(type, algos[i].name)) {
			DIGEST_CTX ctx = rpmDigestInit(algos[i].algo, RPMDIGEST_NONE);
			char *hex = NULL, *out;

			rpmDigestUpdate(ctx, data, len);
			rpmDigestFinal(ctx, (void **)&hex, NULL, 1);
			out = ab_xstrdup(hex);
			free(hex);
			return out;
		}
	}
	return NULL;
}

/* Decompresses gz, xz, zst, bz2 (or nothing) with libarchive. */
static int decompress(const char *label, const char *data, size_t len, ab_buf *out,
		      ab_error *err)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	char chunk[65536];
	la_ssize_t n;
	int rc = -1;

	archive_read_support_filter_all(a);
	archive_read_support_format_raw(a);
	if (archive_read_open_memory(a, data, len) != ARCHIVE_OK ||
	    archive_read_next_header(a, &e) != ARCHIVE_OK) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: cannot decompress: %s"), label,
			     archive_error_string(a) ? archive_error_string(a) : "?");
		goto out;
	}
	while ((n = archive_read_data(a, chunk, sizeof chunk)) > 0) {
		if (out->len + (size_t)n > PRIMARY_OPEN_MAX) {
			ab_error_set(err, AB_EXIT_USAGE, _("%s: larger than %zu bytes uncompressed"),
				     label, PRIMARY_OPEN_MAX);
			goto out;
		}
		ab_buf_append(out, chunk, (size_t)n);
	}
	if (n < 0) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: cannot decompress: %s"), label,
			     archive_error_string(a) ? archive_error_string(a) : "?");
		goto out;
	}
	rc = 0;
out:
	archive_read_free(a);
	return rc;
}

/* What repomd.xml says of the primary metadata. */
struct primary_ref {
	char *href, *sum_type, *sum;
};

static int read_repomd(const char *data, size_t len, struct primary_ref *ref, ab_error *err)
{
	xmlTextReaderPtr r;
	int in_primary = 0, ret, seen_root = 0;

	if (has_doctype(data, len)) {
		ab_error_set(err, AB_EXIT_USAGE, _("repomd.xml: a DOCTYPE is not allowed in repository metadata"));
		return -1;
	}
	xml_setup();
	r = xmlReaderForMemory(data, (int)len, "repomd.xml", NULL, XML_OPTIONS);
	if (!r) {
		ab_error_set(err, AB_EXIT_USAGE, _("repomd.xml: not XML"));
		return -1;
	}
	while ((ret = xmlTextReaderRead(r)) == 1) {
		int type = xmlTextReaderNodeType(r);
		const char *name = (const char *)xmlTextReaderConstLocalName(r);

		if (type == XML_READER_TYPE_DOCUMENT_TYPE) {
			ab_error_set(err, AB_EXIT_USAGE, _("repomd.xml: a DOCTYPE is not allowed in repository metadata"));
			xmlFreeTextReader(r);
			return -1;
		}
		if (type != XML_READER_TYPE_ELEMENT && type != XML_READER_TYPE_END_ELEMENT)
			continue;
		if (type == XML_READER_TYPE_ELEMENT && !seen_root) {
			seen_root = 1;
			if (strcmp(name, "repomd")) {
				ab_error_set(err, AB_EXIT_USAGE, _("repomd.xml: the document is <%s>, not <repomd>"), name);
				xmlFreeTextReader(r);
				return -1;
			}
		}
		if (!strcmp(name, "data")) {
			if (type == XML_READER_TYPE_END_ELEMENT) {
				in_primary = 0;
			} else {
				char *t = attr(r, "type");
				in_primary = t && !strcmp(t, "primary") && !ref->href;
				free(t);
			}
			continue;
		}
		if (!in_primary || type != XML_READER_TYPE_ELEMENT)
			continue;
		/* The first of each counts (a repeated one leaked before). */
		if (!strcmp(name, "location") && !ref->href)
			ref->href = attr(r, "href");
		else if (!strcmp(name, "checksum") && !ref->sum) {
			free(ref->sum_type);
			ref->sum_type = attr(r, "type");
			ref->sum = text_of(r);
		}
	}
	xmlFreeTextReader(r);
	if (ret < 0) {
		ab_error_set(err, AB_EXIT_USAGE, _("repomd.xml: not valid XML: %s"),
			     xml_msg[0] ? xml_msg : "?");
		return -1;
	}
	if (!ref->href) {
		ab_error_set(err, AB_EXIT_USAGE, _("repomd.xml: no primary metadata listed"));
		return -1;
	}
	if (!ref->sum || !ref->sum_type) {
		ab_error_set(err, AB_EXIT_USAGE, _("repomd.xml: the primary metadata has no checksum"));
		return -1;
	}
	return 0;
}

typedef struct pkgs {
	pkg *v;
	size_t n, cap;
	size_t total;		/* packages of any name */
	char *others[8];	/* a few other names, for the message */
	size_t nothers;
	int more_names;		/* more distinct names than others[] holds */
} pkgs;

static void note_other(pkgs *ps, const char *name)
{
	size_t i;

	for (i = 0; i < ps->nothers; i++)
		if (!strcmp(ps->others[i], name))
			return;
	if (ps->nothers == sizeof ps->others / sizeof ps->others[0]) {
		ps->more_names = 1;
		return;
	}
	ps->others[ps->nothers++] = ab_xstrdup(name);
}

/* Streams primary.xml, keeping the packages called package. */
static int read_primary(const char *label, const char *data, size_t len, const char *package,
			pkgs *ps, ab_error *err)
{
	xmlTextReaderPtr r;
	pkg cur;
	int in_pkg = 0, ret, pkg_depth = 0;

	memset(&cur, 0, sizeof cur);
	if (has_doctype(data, len)) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: a DOCTYPE is not allowed in repository metadata"), label);
		return -1;
	}
	if (len > INT_MAX) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: larger than %d bytes uncompressed"), label, INT_MAX);
		return -1;
	}
	xml_setup();
	r = xmlReaderForMemory(data, (int)len, label, NULL, XML_OPTIONS | XML_PARSE_HUGE);
	if (!r) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: not XML"), label);
		return -1;
	}
	while ((ret = xmlTextReaderRead(r)) == 1) {
		int type = xmlTextReaderNodeType(r), depth = xmlTextReaderDepth(r);
		const char *name = (const char *)xmlTextReaderConstLocalName(r);

		if (type == XML_READER_TYPE_DOCUMENT_TYPE) {
			ab_error_set(err, AB_EXIT_USAGE, _("%s: a DOCTYPE is not allowed in repository metadata"), label);
			goto fail;
		}
		if (!strcmp(name, "package") && depth == 1) {
			if (type == XML_READER_TYPE_ELEMENT && !xmlTextReaderIsEmptyElement(r)) {
				char *t = attr(r, "type");

				in_pkg = !t || !strcmp(t, "rpm");
				pkg_depth = depth;
				free(t);
				pkg_free(&cur);
			} else if (type == XML_READER_TYPE_END_ELEMENT && in_pkg) {
				in_pkg = 0;
				ps->total++;
				if (cur.name && !strcmp(cur.name, package)) {
					if (ps->n == ps->cap) {
						ps->cap = ps->cap ? 2 * ps->cap : 64;
						ps->v = ab_xrealloc(ps->v, ps->cap * sizeof *ps->v);
					}
					ps->v[ps->n++] = cur;
					memset(&cur, 0, sizeof cur);
				} else {
					if (cur.name)
						note_other(ps, cur.name);
					pkg_free(&cur);
				}
			}
			continue;
		}
		if (!in_pkg || type != XML_READER_TYPE_ELEMENT || depth != pkg_depth + 1)
			continue;
		if (!strcmp(name, "name") && !cur.name)
			cur.name = text_of(r);
		else if (!strcmp(name, "arch") && !cur.arch)
			cur.arch = text_of(r);
		else if (!strcmp(name, "version") && !cur.ver && !cur.rel && !cur.epoch) {
			cur.epoch = attr(r, "epoch");
			cur.ver = attr(r, "ver");
			cur.rel = attr(r, "rel");
		} else if (!strcmp(name, "checksum") && !cur.sum) {
			free(cur.sum_type);
			cur.sum_type = attr(r, "type");
			cur.sum = text_of(r);
		} else if (!strcmp(name, "location") && !cur.href && !cur.xml_base) {
			cur.href = attr(r, "href");
			cur.xml_base = attr(r, "xml:base");
			if (!cur.xml_base)
				cur.xml_base = attr(r, "base");
		} else if (!strcmp(name, "size")) {
			char *s = attr(r, "package");
			cur.size = s ? atoll(s) : -1;
			free(s);
		} else if (!strcmp(name, "time")) {
			char *s = attr(r, "build");
			cur.buildtime = s ? atoll(s) : -1;
			free(s);
		}
	}
	if (ret < 0) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: not valid XML: %s"), label,
			     xml_msg[0] ? xml_msg : "?");
		goto fail;
	}
	xmlFreeTextReader(r);
	pkg_free(&cur);
	return 0;
fail:
	xmlFreeTextReader(r);
	pkg_free(&cur);
	return -1;
}

static void to_info(const pkg *p, ab_pkg_info *info)
{
	memset(info, 0, sizeof *info);
	info->kind = AB_PKG_RPM;
	info->epoch = p->epoch;
	info->version = p->ver;
	info->release = p->rel;
}

static int cmp_pkg(const void *x, const void *y)
{
	const pkg *a = x, *b = y;
	ab_pkg_info ia, ib;

	to_info(a, &ia);
	to_info(b, &ib);
	return ab_pkg_vercmp(&ia, &ib);
}

static int is_epoch_zero(const char *e)
{
	return !e || !*e || !strcmp(e, "0");
}

/* The base URL: the --index argument as a URL ending in '/'. */
static char *base_url_of(const char *url, ab_error *err)
{
	char *u = ab_index_source_url(url, err), *b;

	if (!u)
		return NULL;
	if (u[strlen(u) - 1] == '/')
		return u;
	b = ab_xasprintf("%s/", u);
	free(u);
	return b;
}

static int is_http_url(const char *url)
{
	return !strncasecmp(url, "http://", 7) || !strncasecmp(url, "https://", 8);
}

/* href resolved against base by libcurl's URL parser (an absolute href,
 * "//host/x" and "/x" included), into *out. A remote repository's
 * metadata may name http and https URLs only: never a local file. -1
 * with why otherwise. */
static int resolve_url(const char *base, const char *href, int remote, char **out,
		       char *why, size_t whylen)
{
	CURLU *h = curl_url();
	char *scheme = NULL, *u = NULL;
	CURLUcode rc;
	int ret = -1;

	if (!h)
		abort();
	rc = curl_url_set(h, CURLUPART_URL, base, 0);
	if (!rc)
		rc = curl_url_set(h, CURLUPART_URL, href, CURLU_ALLOW_SPACE | CURLU_URLENCODE);
	if (!rc)
		rc = curl_url_get(h, CURLUPART_SCHEME, &scheme, 0);
	if (!rc)
		rc = curl_url_get(h, CURLUPART_URL, &u, 0);
	if (rc)
		snprintf(why, whylen, _("'%.200s': cannot resolve it against %s: %s"), href, base,
			 curl_url_strerror(rc));
	else if (remote && strcasecmp(scheme, "http") && strcasecmp(scheme, "https"))
		snprintf(why, whylen, _("'%.200s': not an http or https URL, in a repository served over http or https"),
			 href);
	else if (strcasecmp(scheme, "http") && strcasecmp(scheme, "https") && strcasecmp(scheme, "file"))
		snprintf(why, whylen, _("'%.200s': unsupported URL scheme '%.20s' (use http, https or file)"),
			 href, scheme);
	else {
		*out = ab_xstrdup(u);
		ret = 0;
	}
	curl_free(scheme);
	curl_free(u);
	curl_url_cleanup(h);
	return ret;
}

/* A package's URL: its href under its xml:base (a directory, with or
 * without its '/', itself resolved against base), or under base. */
static int package_url(const char *base, const pkg *p, int remote, char **out, char *why,
		       size_t whylen)
{
	char *dir = NULL, *slashed;
	int rc;

	if (!p->xml_base)
		return resolve_url(base, p->href, remote, out, why, whylen);
	slashed = *p->xml_base && p->xml_base[strlen(p->xml_base) - 1] == '/'
		? ab_xstrdup(p->xml_base) : ab_xasprintf("%s/", p->xml_base);
	rc = resolve_url(base, slashed, remote, &dir, why, whylen);
	free(slashed);
	if (rc == 0)
		rc = resolve_url(dir, p->href, remote, out, why, whylen);
	free(dir);
	return rc;
}

/* Moves package from to slot to (to <= from), leaving from empty: a
 * refusal half way through a pass frees every slot, and a package
 * then held by two slots was freed twice (found by fuzz-repodata). */
static void keep_pkg(pkgs *ps, size_t to, size_t from)
{
	if (to == from)
		return;
	ps->v[to] = ps->v[from];
	memset(&ps->v[from], 0, sizeof ps->v[from]);
}

/* The error for a repository without package: what it has instead
 * helps the user spell the name. */
static void no_such_package(const pkgs *ps, const char *package, ab_error *err)
{
	ab_buf names = {0};
	size_t i;

	for (i = 0; i < ps->nothers; i++)
		ab_buf_printf(&names, "%s%s", i ? ", " : "", ps->others[i]);
	ab_error_set(err, AB_EXIT_USAGE,
		     _("the repository has no package '%s' (its %zu packages are called %s%s)"),
		     package, ps->total, names.len ? names.data : "-",
		     ps->more_names ? ", ..." : "");
	ab_buf_free(&names);
}

/* Keeps the packages that are builds for this machine, each with what an
 * artifact needs; -1 with err on one that lacks it (ps->n then left as
 * it was, every slot dropped or moved empty, for the caller to free). */
static int keep_binary_builds(pkgs *ps, const char *machine, const char *label,
			      const char *package, ab_error *err)
{
	size_t i, kept = 0;
	int have_native = 0;

	/* Source packages are never builds; prefer this machine's arch and
	 * noarch when the repository has them. */
	for (i = 0; i < ps->n; i++)
		if (ps->v[i].arch && (!strcmp(ps->v[i].arch, machine) || !strcmp(ps->v[i].arch, "noarch")))
			have_native = 1;
	for (i = 0; i < ps->n; i++) {
		pkg *p = &ps->v[i];
		int drop = !p->arch || !strcmp(p->arch, "src") || !strcmp(p->arch, "nosrc") ||
			(have_native && strcmp(p->arch, machine) && strcmp(p->arch, "noarch"));

		if (drop) {
			pkg_free(p);
			continue;
		}
		if (!p->ver || !p->rel || !p->href || !p->sum) {
			ab_error_set(err, AB_EXIT_USAGE, _("%s: package %s has no version, location or checksum"),
				     label, package);
			return -1;
		}
		if (!p->sum_type || strcmp(p->sum_type, "sha256")) {
			ab_error_set(err, AB_EXIT_USAGE,
				     _("%s: package %s-%s-%s has a %s checksum; artbisect needs sha256 (createrepo_c --checksum sha256)"),
				     label, package, p->ver, p->rel, p->sum_type ? p->sum_type : "missing");
			return -1;
		}
		keep_pkg(ps, kept++, i);
	}
	ps->n = kept;
	return 0;
}

/* Sorts the builds by version and keeps one per version: the machine's
 * arch wins over noarch. */
static void keep_one_per_version(pkgs *ps, const char *machine)
{
	size_t i, kept = 0;

	qsort(ps->v, ps->n, sizeof *ps->v, cmp_pkg);
	for (i = 0; i < ps->n; i++) {
		if (kept && cmp_pkg(&ps->v[kept - 1], &ps->v[i]) == 0 &&
		    is_epoch_zero(ps->v[kept - 1].epoch) == is_epoch_zero(ps->v[i].epoch)) {
			if (!strcmp(ps->v[i].arch, machine)) {
				pkg_free(&ps->v[kept - 1]);
				keep_pkg(ps, kept - 1, i);
			} else {
				pkg_free(&ps->v[i]);
			}
			continue;
		}
		keep_pkg(ps, kept++, i);
	}
	ps->n = kept;
}

/* A build's date from the package's build time, when it has one. */
static void set_build_date(json_t *b, long long buildtime)
{
	if (buildtime > 0) {
		char d[32];
		time_t t = (time_t)buildtime;
		struct tm tm;

		if (gmtime_r(&t, &tm)) {
			strftime(d, sizeof d, "%Y-%m-%dT%H:%M:%SZ", &tm);
			json_object_set_new(b, "date", json_string(d));
		}
	}
}

/* Appends the build of ps->v[i] to builds; -1 with err when its
 * location does not resolve. */
static int add_build(json_t *builds, const pkgs *ps, size_t i, const char *base, int remote,
		     const char *label, const char *package, ab_error *err)
{
	const pkg *p = &ps->v[i];
	json_t *b = json_object(), *arts = json_array(), *a = json_object();
	char *vr = ab_xasprintf("%s-%s", p->ver, p->rel);
	char *commit = ab_pkg_commit_from_version(p->rel);
	char *aurl = NULL, why[512];
	int epoch_clash = (i > 0 && !strcmp(p->ver, ps->v[i - 1].ver) && !strcmp(p->rel, ps->v[i - 1].rel)) ||
		(i + 1 < ps->n && !strcmp(p->ver, ps->v[i + 1].ver) && !strcmp(p->rel, ps->v[i + 1].rel));
	char *id = epoch_clash ? ab_xasprintf("%s:%s", p->epoch ? p->epoch : "0", vr) : ab_xstrdup(vr);

	if (package_url(base, p, remote, &aurl, why, sizeof why) < 0) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: package %s-%s: location %s"), label, package, vr, why);
		json_decref(b);
		json_decref(arts);
		json_decref(a);
		free(vr);
		free(commit);
		free(id);
		return -1;
	}
	json_object_set_new(b, "id", json_string(id));
	if (commit)
		json_object_set_new(b, "commit", json_string(commit));
	set_build_date(b, p->buildtime);
	json_object_set_new(b, "version", json_string(id));
	json_object_set_new(a, "url", json_string(aurl));
	json_object_set_new(a, "sha256", json_string(p->sum));
	if (p->size >= 0)
		json_object_set_new(a, "size", json_integer(p->size));
	json_object_set_new(a, "type", json_string("rpm"));
	json_object_set_new(a, "name", json_string(package));
	json_array_append_new(arts, a);
	json_object_set_new(b, "artifacts", arts);
	json_array_append_new(builds, b);
	free(vr);
	free(commit);
	free(aurl);
	free(id);
	return 0;
}

/* The index of the builds of package in the decompressed primary
 * metadata, whose artifact URLs resolve against base; NULL with err
 * (exit 2). label names the primary in messages. */
static ab_index *index_of_primary(const char *base, const char *source_url, const char *label,
				  const char *open, size_t open_len, const char *package,
				  ab_error *err)
{
	size_t i;
	pkgs ps;
	struct utsname un;
	const char *machine = uname(&un) == 0 ? un.machine : "";
	int remote = is_http_url(base);
	ab_index *idx = NULL;
	json_t *root = NULL, *builds;
	char *dump = NULL, *name = NULL;

	memset(&ps, 0, sizeof ps);
	if (read_primary(label, open, open_len, package, &ps, err) < 0)
		goto out;

	if (ps.n == 0) {
		no_such_package(&ps, package, err);
		goto out;
	}
	if (keep_binary_builds(&ps, machine, label, package, err) < 0)
		goto out;
	keep_one_per_version(&ps, machine);
	if (ps.n < 2) {
		ab_error_set(err, AB_EXIT_USAGE,
			     _("the repository has only one version of '%s': nothing to bisect"), package);
		goto out;
	}

	root = json_object();
	json_object_set_new(root, "format", json_string("artbisect-index"));
	json_object_set_new(root, "version", json_integer(1));
	name = ab_xasprintf("%s from %s", package, base);
	json_object_set_new(root, "name", json_string(name));
	json_object_set_new(root, "project", json_string(package));
	builds = json_array();
	json_object_set_new(root, "builds", builds);
	for (i = 0; i < ps.n; i++)
		if (add_build(builds, &ps, i, base, remote, label, package, err) < 0)
			goto out;
	dump = json_dumps(root, JSON_COMPACT);
	idx = ab_index_parse(dump, strlen(dump), source_url, err);
out:
	json_decref(root);
	for (i = 0; i < ps.n; i++)
		pkg_free(&ps.v[i]);
	free(ps.v);
	for (i = 0; i < ps.nothers; i++)
		free(ps.others[i]);
	free(dump);
	free(name);
	return idx;
}

/* What repomd.xml is and says: the primary's reference and URL. */
static int read_repomd_at(const char *base, const char *data, size_t len,
			  struct primary_ref *ref, char **primary_url, ab_error *err)
{
	char why[512];

	if (read_repomd(data, len, ref, err) < 0)
		return -1;
	if (resolve_url(base, ref->href, is_http_url(base), primary_url, why, sizeof why) < 0) {
		ab_error_set(err, AB_EXIT_USAGE, _("repomd.xml: the primary metadata's location %s"), why);
		return -1;
	}
	return 0;
}

static void ref_free(struct primary_ref *ref)
{
	free(ref->href);
	free(ref->sum_type);
	free(ref->sum);
}

ab_index *ab_repodata_parse(const char *repomd, size_t repomd_len, const char *primary,
			    size_t primary_len, const char *url, const char *package,
			    ab_error *err)
{
	char *base = base_url_of(url, err), *repomd_url = NULL, *primary_url = NULL, *label = NULL;
	struct primary_ref ref = { NULL, NULL, NULL };
	ab_index *idx = NULL;

	if (!base)
		return NULL;
	repomd_url = ab_xasprintf("%srepodata/repomd.xml", base);
	if (read_repomd_at(base, repomd, repomd_len, &ref, &primary_url, err) == 0) {
		label = ab_index_label(primary_url);
		idx = index_of_primary(base, repomd_url, label, primary, primary_len, package, err);
	}
	ref_free(&ref);
	free(base);
	free(repomd_url);
	free(primary_url);
	free(label);
	xmlSetStructuredErrorFunc(NULL, NULL);
	return idx;
}

ab_index *ab_repodata_load(const char *url, const char *package,
			   const ab_fetch_options *fopt, ab_error *err)
{
	char *base = NULL, *repomd_url = NULL, *data = NULL, *primary_url = NULL, *got = NULL;
	char *label = NULL;
	size_t len = 0;
	struct primary_ref ref = { NULL, NULL, NULL };
	ab_buf open = {0};
	ab_index *idx = NULL;
	ab_fetch_options o = *fopt;

	base = base_url_of(url, err);
	if (!base)
		goto out;
	/* What a remote repository names stays on http and https. */
	if (is_http_url(base))
		o.http_only = 1;
	repomd_url = ab_xasprintf("%srepodata/repomd.xml", base);
	if (ab_fetch_to_memory(repomd_url, &o, REPOMD_MAX, &data, &len, err) < 0) {
		if (err->code != AB_EXIT_ABORTED) {
			char why[sizeof err->msg];

			snprintf(why, sizeof why, "%s", err->msg);
			ab_error_set(err, AB_EXIT_USAGE, _("no yum repository at %s (%s)"), base, why);
		}
		goto out;
	}
	if (read_repomd_at(base, data, len, &ref, &primary_url, err) < 0)
		goto out;
	free(data);
	data = NULL;

	label = ab_index_label(primary_url);
	if (ab_fetch_to_memory(primary_url, &o, PRIMARY_MAX, &data, &len, err) < 0) {
		if (err->code != AB_EXIT_ABORTED)
			err->code = AB_EXIT_USAGE;
		goto out;
	}
	got = digest_hex(ref.sum_type, data, len);
	if (!got) {
		ab_error_set(err, AB_EXIT_USAGE, _("repomd.xml: unknown checksum type '%s' for the primary metadata"),
			     ref.sum_type);
		goto out;
	}
	if (strcasecmp(got, ref.sum)) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: %s checksum mismatch: repomd.xml says %s, the file has %s"),
			     label, ref.sum_type, ref.sum, got);
		goto out;
	}
	if (decompress(label, data, len, &open, err) < 0)
		goto out;
	free(data);
	data = NULL;
	idx = index_of_primary(base, repomd_url, label, open.data, open.len, package, err);
out:
	ref_free(&ref);
	ab_buf_free(&open);
	free(base);
	free(repomd_url);
	free(primary_url);
	free(label);
	free(data);
	free(got);
	xmlSetStructuredErrorFunc(NULL, NULL);
	return idx;
}
