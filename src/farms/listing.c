/* listing.c - directory listing pages into entries (see listing.h).
 *
 * Names come from the links, never from the link text: Apache cuts long
 * names short in its text ("linux-6.8.1.arch1-1-..>"), and the link is
 * what a later download will fetch. A link counts only if, resolved
 * against the page URL, it names one thing directly inside the page's
 * directory; everything else (parent, sort links, other hosts, other
 * schemes, deeper paths) is dropped without being looked at again. */
#include "config.h"

#include <curl/curl.h>
#include <jansson.h>
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "farms/listing.h"
#include "farms/names.h"
#include "base/i18n.h"
#include "base/util.h"

struct ctx {
	const char *url;	/* the page URL, for messages */
	CURLU *base;		/* the page URL, parsed */
	char *dir;		/* the page's directory as a URL prefix */
	size_t dirlen;
	ab_listing *l;
	size_t cap, links;
	bool is_listing;	/* an "Index of" title or heading was seen */
	bool lighttpd, table, pre, sortlinks, ul;
	ab_error *err;
};

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* %XX decoded; a '%' not followed by two hex digits stays as it is. */
static char *pct_decode(const char *s, size_t n, size_t *outlen)
{
	char *out = ab_xmalloc(n + 1);
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
			out[o++] = (char)(hexval(s[i + 1]) << 4 | hexval(s[i + 2]));
			i += 2;
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
	*outlen = o;
	return out;
}

const char *ab_listing_bad_name(const char *name, size_t len)
{
	if (len == 0)
		return N_("the name is empty");
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return N_("the name is \".\" or \"..\"");
	if (memchr(name, '\0', len))
		return N_("the name holds a NUL byte");
	if (memchr(name, '/', len))
		return N_("the name holds a '/'");
	if (ab_has_control(name, len))
		return N_("the name holds a control character");
	if (!ab_farm_utf8_valid(name, len))
		return N_("the name is not valid UTF-8");
	return NULL;
}

static void refuse(struct ctx *c, const char *what, const char *why)
{
	char q[128];

	if (!c->l->refused++)
		snprintf(c->l->refused_why, sizeof c->l->refused_why, _("entry \"%s\": %s"),
			 ab_farm_quote(what, strlen(what), q, sizeof q), _(why));
}

/* ---------------------------------------------------------------------
 * Dates and sizes
 */

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static int month_of(const char *s, size_t n)
{
	static const char names[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	int m;

	if (n != 3)
		return 0;
	for (m = 0; m < 12; m++)
		if (!strncmp(names + 3 * m, s, 3))
			return m + 1;
	return 0;
}

/* A run of n decimal digits (n from 1 to 18); -1 otherwise. */
static int64_t digits(const char *s, size_t n)
{
	int64_t v = 0;
	size_t i;

	if (n == 0 || n > 18)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static int64_t make_time(int64_t y, int64_t mo, int64_t d, int64_t h, int64_t mi, int64_t s)
{
	if (y < 1970 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > 31 ||
	    h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 60)
		return -1;
	return days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + s;
}

/* "2026-12-06" (Apache), "06-Dec-2026" (nginx), "2026-Dec-06" (lighttpd)
 * and "02:34" or "02:34:55"; -1 when they are none of these. */
static int64_t parse_date(const char *date, size_t dn, const char *tm, size_t tn)
{
	const char *p1 = memchr(date, '-', dn), *p2;
	int64_t a, b, cc, y, mo, d, h, mi, s = 0;

	if (!p1 || !(p2 = memchr(p1 + 1, '-', dn - (size_t)(p1 + 1 - date))))
		return -1;
	a = digits(date, (size_t)(p1 - date));
	cc = digits(p2 + 1, dn - (size_t)(p2 + 1 - date));
	b = digits(p1 + 1, (size_t)(p2 - p1 - 1));
	if (b < 0)
		b = month_of(p1 + 1, (size_t)(p2 - p1 - 1));
	if (p1 - date == 4)
		y = a, mo = b, d = cc;
	else
		d = a, mo = b, y = cc;
	if (tn != 5 && tn != 8)
		return -1;
	h = digits(tm, 2);
	mi = digits(tm + 3, 2);
	if (tm[2] != ':' || (tn == 8 && (tm[5] != ':' || (s = digits(tm + 6, 2)) < 0)))
		return -1;
	return make_time(y, mo, d, h, mi, s);
}

/* The columns after a link: "DATE TIME SIZE ...", blanks being spaces,
 * tabs, line breaks or no-break spaces. Sizes with a unit ("4.9K") are
 * rounded by the server: only plain byte counts are kept. */
static void parse_details(const char *s, int64_t *size, int64_t *mtime)
{
	const char *tok[3];
	size_t len[3], n = 0;

	while (*s && n < 3) {
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') {
			s++;
			continue;
		}
		if ((unsigned char)s[0] == 0xc2 && (unsigned char)s[1] == 0xa0) {
			s += 2;
			continue;
		}
		tok[n] = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\r' &&
		       !((unsigned char)s[0] == 0xc2 && (unsigned char)s[1] == 0xa0))
			s++;
		len[n] = (size_t)(s - tok[n]);
		n++;
	}
	if (n >= 2)
		*mtime = parse_date(tok[0], len[0], tok[1], len[1]);
	if (n == 3 && *mtime >= 0)
		*size = digits(tok[2], len[2]);
}

/* ---------------------------------------------------------------------
 * Links
 */

/* Resolves href; adds it as an entry when it names one thing directly in
 * the page's directory. 0, or -1 when the page holds too many entries. */
static int add_link(struct ctx *c, const char *href, int64_t size, int64_t mtime)
{
	CURLU *h = curl_url_dup(c->base);
	char *url = NULL, *name, *seg;
	size_t seglen, namelen;
	const char *why;
	bool is_dir;
	ab_listing_entry *e;

	if (!h)
		return 0;
	if (curl_url_set(h, CURLUPART_URL, href, CURLU_URLENCODE) != CURLUE_OK ||
	    curl_url_get(h, CURLUPART_URL, &url, 0) != CURLUE_OK ||
	    strncmp(url, c->dir, c->dirlen) != 0) {
		c->l->dropped++;
		goto out;
	}
	seg = url + c->dirlen;
	seglen = strcspn(seg, "/?#");
	is_dir = seg[seglen] == '/';
	if (seglen == 0 || seg[seglen + is_dir] != '\0') {
		c->l->dropped++;	/* the directory itself, or a query, or deeper */
		goto out;
	}
	name = pct_decode(seg, seglen, &namelen);
	if ((why = ab_listing_bad_name(name, namelen))) {
		free(name);
		refuse(c, href, why);
		goto out;
	}
	if (c->l->n >= AB_LISTING_MAX_ENTRIES) {
		free(name);
		curl_free(url);
		curl_url_cleanup(h);
		ab_error_set(c->err, AB_EXIT_USAGE, _("%s: more than %u entries in one directory listing; refused"),
			     c->url, AB_LISTING_MAX_ENTRIES);
		return -1;
	}
	if (c->l->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->l->entries = ab_xrealloc(c->l->entries, c->cap * sizeof *c->l->entries);
	}
	e = &c->l->entries[c->l->n++];
	e->name = name;
	e->is_dir = is_dir;
	e->url = ab_xstrdup(url);
	e->size = is_dir ? -1 : size;
	e->mtime = mtime;
out:
	curl_free(url);
	curl_url_cleanup(h);
	return 0;
}

static bool is_element(const xmlNode *n, const char *name)
{
	return n && n->type == XML_ELEMENT_NODE && !xmlStrcasecmp(n->name, (const xmlChar *)name);
}

/* The text that follows a link in its row: the next cells when the link
 * sits in a table cell, else the text after it up to the line's end. */
static char *link_details(const xmlNode *a)
{
	const xmlNode *n;
	ab_buf b = {0};
	xmlChar *t;

	if (is_element(a->parent, "td")) {
		for (n = a->parent->next; n; n = n->next) {
			if (!is_element(n, "td"))
				continue;
			if ((t = xmlNodeGetContent(n))) {
				ab_buf_puts(&b, (const char *)t);
				xmlFree(t);
			}
			ab_buf_puts(&b, " ");
		}
		return ab_buf_steal(&b);
	}
	for (n = a->next; n && n->type == XML_TEXT_NODE; n = n->next) {
		const char *s = (const char *)n->content, *nl;

		if (!s)
			continue;
		nl = strchr(s, '\n');
		ab_buf_append(&b, s, nl ? (size_t)(nl - s) : strlen(s));
		if (nl)
			break;
	}
	return ab_buf_steal(&b);
}

/* ---------------------------------------------------------------------
 * HTML
 */

static bool says_index_of(const xmlNode *n)
{
	xmlChar *t = xmlNodeGetContent(n);
	const char *s = (const char *)t;
	bool yes;

	if (!t)
		return false;
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	yes = !strncmp(s, "Index of ", 9);
	xmlFree(t);
	return yes;
}

static int on_anchor(struct ctx *c, const xmlNode *n)
{
	xmlChar *href = xmlGetProp(n, (const xmlChar *)"href");
	int64_t size = -1, mtime = -1;
	char *details;
	int rc;

	if (!href)
		return 0;
	if (++c->links > AB_LISTING_MAX_LINKS) {
		xmlFree(href);
		ab_error_set(c->err, AB_EXIT_USAGE, _("%s: more than %u links in one directory listing; refused"),
			     c->url, AB_LISTING_MAX_LINKS);
		return -1;
	}
	if (href[0] == '?' && href[1] == 'C' && href[2] == '=')
		c->sortlinks = true;	/* Apache's column headers */
	details = link_details(n);
	parse_details(details, &size, &mtime);
	free(details);
	rc = add_link(c, (const char *)href, size, mtime);
	xmlFree(href);
	return rc;
}

static int on_element(struct ctx *c, const xmlNode *n)
{
	xmlChar *v;

	if (is_element(n, "a"))
		return on_anchor(c, n);
	if (is_element(n, "title") || is_element(n, "h1") || is_element(n, "h2")) {
		if (!c->is_listing && says_index_of(n))
			c->is_listing = true;
	} else if (is_element(n, "table")) {
		c->table = true;
		if ((v = xmlGetProp(n, (const xmlChar *)"summary"))) {
			if (!strcmp((const char *)v, "Directory Listing"))
				c->lighttpd = true;
			xmlFree(v);
		}
	} else if (is_element(n, "pre")) {
		c->pre = true;
	} else if (is_element(n, "ul")) {
		c->ul = true;
	}
	return 0;
}

/* Document order without recursion: hostile pages nest deeply. */
static int walk(struct ctx *c, xmlNode *root)
{
	xmlNode *n = root;

	while (n) {
		if (n->type == XML_ELEMENT_NODE && on_element(c, n) < 0)
			return -1;
		if (n->children && n->type == XML_ELEMENT_NODE) {
			n = n->children;
			continue;
		}
		while (n && !n->next && n != root)
			n = n->parent;
		if (!n || n == root)
			break;
		n = n->next;
	}
	return 0;
}

static int parse_html(struct ctx *c, const char *data, size_t len)
{
	static const int opts = HTML_PARSE_NONET | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
				HTML_PARSE_RECOVER;
	htmlDocPtr doc = htmlReadMemory(data, (int)len, c->url, "UTF-8", opts);
	xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
	int rc = root ? walk(c, root) : 0;

	if (doc)
		xmlFreeDoc(doc);
	if (rc < 0)
		return -1;
	if (!c->is_listing) {
		ab_error_set(c->err, AB_EXIT_USAGE,
			     _("%s: not a directory listing (no \"Index of\" title or heading)"), c->url);
		return -1;
	}
	c->l->format = c->lighttpd ? AB_LISTING_LIGHTTPD : c->table ? AB_LISTING_APACHE_TABLE :
		       c->pre ? (c->sortlinks ? AB_LISTING_APACHE_FANCY : AB_LISTING_NGINX_HTML) :
		       c->ul ? AB_LISTING_APACHE_LIST : AB_LISTING_OTHER;
	return 0;
}

/* ---------------------------------------------------------------------
 * nginx JSON: [{"name": "x", "type": "file", "mtime": "...", "size": 1}]
 */

static int64_t parse_http_date(const char *s)
{
	char mon[4] = "";
	int d, y, h, mi, sec, n = 0;

	/* "Sun, 06 Dec 2026 02:34:55 GMT" */
	if (!s || sscanf(s, "%*3[A-Za-z], %2d %3[A-Za-z] %4d %2d:%2d:%2d GMT%n",
			 &d, mon, &y, &h, &mi, &sec, &n) != 6 || !n || s[n])
		return -1;
	return make_time(y, month_of(mon, strlen(mon)), d, h, mi, sec);
}

static char *pct_encode(const char *s, size_t n, bool slash)
{
	static const char hex[] = "0123456789ABCDEF";
	char *out = ab_xmalloc(3 * n + 2), *o = out;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		    ch == '-' || ch == '.' || ch == '_' || ch == '~') {
			*o++ = (char)ch;
		} else {
			*o++ = '%';
			*o++ = hex[ch >> 4];
			*o++ = hex[ch & 15];
		}
	}
	if (slash)
		*o++ = '/';
	*o = '\0';
	return out;
}

static int json_item(struct ctx *c, const json_t *it, size_t i)
{
	const char *name = json_string_value(json_object_get(it, "name"));
	const char *type = json_string_value(json_object_get(it, "type"));
	json_t *size = json_object_get(it, "size");
	char what[32], *href;
	const char *why;
	bool dir;
	int rc;

	snprintf(what, sizeof what, "[%zu]", i);
	if (!name || !type) {
		refuse(c, what, N_("not an object with a \"name\" and a \"type\""));
		return 0;
	}
	dir = !strcmp(type, "directory");
	if (!dir && strcmp(type, "file")) {
		c->l->dropped++;	/* "other": a socket, a dangling link */
		return 0;
	}
	if ((why = ab_listing_bad_name(name, json_string_length(json_object_get(it, "name"))))) {
		refuse(c, name, why);
		return 0;
	}
	href = pct_encode(name, strlen(name), dir);
	rc = add_link(c, href, json_is_integer(size) && json_integer_value(size) >= 0 ?
			       (int64_t)json_integer_value(size) : -1,
		      parse_http_date(json_string_value(json_object_get(it, "mtime"))));
	free(href);
	return rc;
}

static int parse_json(struct ctx *c, const char *data, size_t len)
{
	json_error_t je;
	json_t *root = json_loadb(data, len, 0, &je), *it;
	size_t i;

	if (!root || !json_is_array(root)) {
		if (root)
			ab_error_set(c->err, AB_EXIT_USAGE,
				     _("%s: not a directory listing (JSON, but not an array of entries)"), c->url);
		else
			ab_error_set(c->err, AB_EXIT_USAGE,
				     _("%s: not a directory listing (invalid JSON at line %d, column %d)"),
				     c->url, je.line, je.column);
		json_decref(root);
		return -1;
	}
	if (json_array_size(root) > AB_LISTING_MAX_LINKS) {
		ab_error_set(c->err, AB_EXIT_USAGE, _("%s: more than %u links in one directory listing; refused"),
			     c->url, AB_LISTING_MAX_LINKS);
		json_decref(root);
		return -1;
	}
	json_array_foreach(root, i, it) {
		if (json_item(c, it, i) < 0) {
			json_decref(root);
			return -1;
		}
	}
	json_decref(root);
	c->l->format = AB_LISTING_NGINX_JSON;
	return 0;
}

/* ---------------------------------------------------------------------
 * The page
 */

static int cmp_name(const void *a, const void *b)
{
	const ab_listing_entry *x = *(ab_listing_entry *const *)a, *y = *(ab_listing_entry *const *)b;
	int d = strcmp(x->name, y->name);

	return d ? d : (x < y ? -1 : x > y);
}

/* A name listed twice keeps its first entry: the page is hostile or
 * broken, and which of the two is meant cannot be known. */
static void drop_duplicates(struct ctx *c)
{
	ab_listing *l = c->l;
	ab_listing_entry **v;
	size_t i, o;

	if (l->n < 2)
		return;
	v = ab_xmalloc(l->n * sizeof *v);
	for (i = 0; i < l->n; i++)
		v[i] = &l->entries[i];
	qsort(v, l->n, sizeof *v, cmp_name);
	for (i = 1; i < l->n; i++)
		if (!strcmp(v[i]->name, v[i - 1]->name)) {
			refuse(c, v[i]->name, N_("listed twice"));
			free(v[i]->url);
			v[i]->url = NULL;	/* marked for removal */
		}
	free(v);
	for (i = o = 0; i < l->n; i++) {
		if (l->entries[i].url)
			l->entries[o++] = l->entries[i];
		else
			free(l->entries[i].name);
	}
	l->n = o;
}

/* The page's directory: its URL without query or fragment, cut after
 * the last '/' of the path. */
static int set_base(struct ctx *c, const char *page_url)
{
	CURLU *h;
	char *scheme = NULL, *u = NULL, *slash;
	int ok;

	c->base = curl_url();
	if (!c->base || curl_url_set(c->base, CURLUPART_URL, page_url, 0) != CURLUE_OK ||
	    curl_url_get(c->base, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    (strcmp(scheme, "http") && strcmp(scheme, "https"))) {
		curl_free(scheme);
		ab_error_set(c->err, AB_EXIT_USAGE, _("%s: a directory listing must come from an http or https URL"),
			     c->url);
		return -1;
	}
	curl_free(scheme);
	h = curl_url_dup(c->base);
	ok = h && curl_url_set(h, CURLUPART_QUERY, NULL, 0) == CURLUE_OK &&
	     curl_url_set(h, CURLUPART_FRAGMENT, NULL, 0) == CURLUE_OK &&
	     curl_url_get(h, CURLUPART_URL, &u, 0) == CURLUE_OK && (slash = strrchr(u, '/'));
	if (ok) {
		c->dirlen = (size_t)(slash + 1 - u);
		c->dir = ab_xstrndup(u, c->dirlen);
	}
	curl_free(u);
	curl_url_cleanup(h);
	if (!ok)
		ab_error_set(c->err, AB_EXIT_USAGE, _("%s: cannot take the URL apart"), c->url);
	return ok ? 0 : -1;
}

ab_listing *ab_listing_parse(const char *data, size_t len, const char *page_url, ab_error *err)
{
	struct ctx c = {0};
	char q[128];
	size_t i = 0;
	int rc;

	c.url = page_url ? ab_farm_quote(page_url, strlen(page_url), q, sizeof q) : "";
	c.err = err;
	if (len > AB_LISTING_MAX_BYTES) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: the listing page is larger than %u MiB; refused"),
			     c.url, AB_LISTING_MAX_BYTES >> 20);
		return NULL;
	}
	if (!page_url || set_base(&c, page_url) < 0) {
		if (!page_url)
			ab_error_set(err, AB_EXIT_USAGE, _("no URL for the directory listing"));
		curl_url_cleanup(c.base);
		return NULL;
	}
	c.l = ab_xcalloc(1, sizeof *c.l);
	if (len >= 3 && !memcmp(data, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'))
		i++;
	if (i == len) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: not a directory listing (the page is empty)"), c.url);
		rc = -1;
	} else {
		rc = data[i] == '[' ? parse_json(&c, data, len) : parse_html(&c, data, len);
	}
	curl_url_cleanup(c.base);
	free(c.dir);
	if (rc < 0) {
		ab_listing_free(c.l);
		return NULL;
	}
	drop_duplicates(&c);
	return c.l;
}

void ab_listing_free(ab_listing *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++) {
		free(l->entries[i].name);
		free(l->entries[i].url);
	}
	free(l->entries);
	free(l);
}

const char *ab_listing_format_name(ab_listing_format f)
{
	switch (f) {
	case AB_LISTING_APACHE_LIST: return _("Apache plain list");
	case AB_LISTING_APACHE_FANCY: return _("Apache FancyIndexing");
	case AB_LISTING_APACHE_TABLE: return _("Apache HTMLTable");
	case AB_LISTING_NGINX_HTML: return _("nginx HTML");
	case AB_LISTING_NGINX_JSON: return _("nginx JSON");
	case AB_LISTING_LIGHTTPD: return _("lighttpd");
	case AB_LISTING_LOCAL: return _("a local directory");
	case AB_LISTING_OTHER: break;
	}
	return _("an \"Index of\" page");
}

const char *ab_listing_empty_reason(const ab_listing *l, char *buf, size_t size)
{
	if (l->format == AB_LISTING_LOCAL && l->refused)
		snprintf(buf, size, _("a directory with no usable entry: %zu refused, the first: %s"),
			 l->refused, l->refused_why);
	else if (l->format == AB_LISTING_LOCAL && l->dropped)
		snprintf(buf, size, _("an empty directory but for %zu links that leave it or special files"),
			 l->dropped);
	else if (l->format == AB_LISTING_LOCAL)
		snprintf(buf, size, "%s", _("an empty directory"));
	else if (l->refused)
		snprintf(buf, size, _("a directory listing (%s) with no usable entry: %zu refused, the first: %s"),
			 ab_listing_format_name(l->format), l->refused, l->refused_why);
	else
		snprintf(buf, size, _("an empty directory listing (%s)"), ab_listing_format_name(l->format));
	return buf;
}
