/* test-listing.c - directory listing pages (src/farms/listing.c): each
 * server's format, cut down from pages the real servers wrote (the whole
 * pages are read in tests/listings.sh); links that leave the directory;
 * hostile names; duplicates; the caps; pages that are not listings and
 * listings that are empty. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "farms/listing.h"
#include "base/util.h"
#include "tap.h"

#define DIR_URL "http://farm.example:8080/mainline/"

static ab_listing *parse(const char *page, const char *url, ab_error *err)
{
	ab_error_clear(err);
	return ab_listing_parse(page, strlen(page), url, err);
}

static const ab_listing_entry *find(const ab_listing *l, const char *name)
{
	size_t i;

	for (i = 0; l && i < l->n; i++)
		if (!strcmp(l->entries[i].name, name))
			return &l->entries[i];
	return NULL;
}

/* name, d/f, size, url; mtime checked apart */
static void expect(const ab_listing *l, const char *what, const char *name, bool dir, int64_t size,
		   const char *url)
{
	const ab_listing_entry *e = find(l, name);

	tap_ok(e && e->is_dir == dir && e->size == size && !strcmp(e->url, url),
	       "%s: %s is a %s of size %lld at %s (got %s %lld %s)", what, name, dir ? "directory" : "file",
	       (long long)size, url, e ? (e->is_dir ? "dir" : "file") : "-", e ? (long long)e->size : 0LL,
	       e ? e->url : "nothing");
}

/* 2026-12-06 02:34 UTC */
#define T0234 1796524440LL

static const char apache_plain[] =
	"<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.01//EN\">\n<html><head><title>Index of /mainline</title></head>\n"
	"<body><h1>Index of /mainline</h1>\n<ul><li><a href=\"/\"> Parent Directory</a></li>\n"
	"<li><a href=\"R&amp;D.txt\"> R&amp;D.txt</a></li>\n"
	"<li><a href=\"caf%c3%a9.txt\"> caf\xc3\xa9.txt</a></li>\n"
	"<li><a href=\"v6.8-rc1/\"> v6.8-rc1/</a></li>\n</ul></body></html>\n";

static const char apache_fancy[] =
	"<html><head><title>Index of /mainline</title></head><body>\n<h1>Index of /mainline</h1>\n"
	"<pre>      <a href=\"?C=N;O=D\">Name</a>                    <a href=\"?C=M;O=A\">Last modified</a>      "
	"<a href=\"?C=S;O=A\">Size</a>  <a href=\"?C=D;O=A\">Description</a><hr>      "
	"<a href=\"/\">Parent Directory</a>                             -   \n"
	"      <a href=\"big.bin\">big.bin</a>                 2026-12-06 02:34  4.9K  \n"
	"      <a href=\"linux-6.8.1.arch1-1-x86_64.pkg.tar.zst\">linux-6.8.1.arch1-1-..&gt;</a> 2026-12-06 02:34  123   \n"
	"      <a href=\"v6.8/\">v6.8/</a>                   2026-12-06 02:34    -   \n"
	"<hr></pre>\n</body></html>\n";

static const char apache_table[] =
	"<html><head><title>Index of /mainline</title></head><body><h1>Index of /mainline</h1>\n<table>\n"
	"<tr><th valign=\"top\">&nbsp;</th><th><a href=\"?C=N;O=D\">Name</a></th><th><a href=\"?C=M;O=A\">Last modified</a></th></tr>\n"
	"<tr><td valign=\"top\">&nbsp;</td><td><a href=\"a%20file%20with%20space.txt\">a file with space.txt</a>  </td>"
	"<td align=\"right\">2026-12-06 02:34  </td><td align=\"right\">  1 </td><td>&nbsp;</td></tr>\n"
	"<tr><td valign=\"top\">&nbsp;</td><td><a href=\"v6.8/\">v6.8/</a>  </td><td align=\"right\">2026-12-06 02:34  </td>"
	"<td align=\"right\">  - </td><td>&nbsp;</td></tr>\n</table>\n</body></html>\n";

static const char nginx_html[] =
	"<html>\n<head><title>Index of /mainline/</title></head>\n<body>\n<h1>Index of /mainline/</h1><hr><pre>"
	"<a href=\"../\">../</a>\n"
	"<a href=\"v6.8/\">v6.8/</a>                                              06-Dec-2026 02:34                   -\n"
	"<a href=\"R%26D.txt\">R&amp;D.txt</a>                                            06-Dec-2026 02:34                   1\n"
	"<a href=\"big.bin\">big.bin</a>                                            06-Dec-2026 02:34                5000\n"
	"</pre><hr></body>\n</html>\n";

static const char nginx_json[] =
	"[\n{ \"name\":\"sub dir\", \"type\":\"directory\", \"mtime\":\"Sun, 06 Dec 2026 02:34:55 GMT\" },\n"
	"{ \"name\":\"q?x.txt\", \"type\":\"file\", \"mtime\":\"Sun, 06 Dec 2026 02:34:55 GMT\", \"size\":1 },\n"
	"{ \"name\":\"big.bin\", \"type\":\"file\", \"mtime\":\"Sun, 06 Dec 2026 02:34:55 GMT\", \"size\":5000 },\n"
	"{ \"name\":\"sock\", \"type\":\"other\", \"mtime\":\"Sun, 06 Dec 2026 02:34:55 GMT\" }\n]";

static const char lighttpd[] =
	"<!DOCTYPE html>\n<html>\n<head>\n<title>Index of /mainline/</title>\n</head>\n<body>\n<h2>Index of /mainline/</h2>\n"
	"<div class=\"list\">\n<table summary=\"Directory Listing\" cellpadding=\"0\" cellspacing=\"0\">\n"
	"<thead><tr><th class=\"n\">Name</th><th class=\"m\">Last Modified</th><th class=\"s\">Size</th><th class=\"t\">Type</th></tr></thead>\n<tbody>\n"
	"<tr class=\"d\"><td class=\"n\"><a href=\"../\">..</a>/</td><td class=\"m\">&nbsp;</td><td class=\"s\">- &nbsp;</td><td class=\"t\">Directory</td></tr>\n"
	"<tr class=\"d\"><td class=\"n\"><a href=\"v6.8/\">v6.8</a>/</td><td class=\"m\">2026-Dec-06 02:34:55</td><td class=\"s\">- &nbsp;</td><td class=\"t\">Directory</td></tr>\n"
	"<tr><td class=\"n\"><a href=\"%3Cb%3E.txt\">&#x3C;b&#x3E;.txt</a></td><td class=\"m\">2026-Dec-06 02:34:55</td><td class=\"s\">0.1K</td><td class=\"t\">application/octet-stream</td></tr>\n"
	"</tbody>\n</table>\n</div>\n<div class=\"foot\">lighttpd/1.4.69</div>\n</body>\n</html>\n";

static void formats(void)
{
	ab_error err;
	ab_listing *l;

	l = parse(apache_plain, DIR_URL, &err);
	tap_ok(l && l->format == AB_LISTING_APACHE_LIST && l->n == 3 && l->dropped == 1,
	       "apache plain list: 3 entries, the parent link dropped (%s)", l ? "" : err.msg);
	expect(l, "apache plain", "R&D.txt", false, -1, DIR_URL "R&D.txt");
	expect(l, "apache plain", "caf\xc3\xa9.txt", false, -1, DIR_URL "caf%c3%a9.txt");
	expect(l, "apache plain", "v6.8-rc1", true, -1, DIR_URL "v6.8-rc1/");
	tap_ok(l && l->entries[0].mtime == -1, "apache plain: no dates");
	ab_listing_free(l);

	l = parse(apache_fancy, DIR_URL, &err);
	tap_ok(l && l->format == AB_LISTING_APACHE_FANCY && l->n == 3 && l->dropped == 5,
	       "apache FancyIndexing: 3 entries, 4 sort links and the parent dropped");
	expect(l, "apache fancy", "big.bin", false, -1, DIR_URL "big.bin");	/* "4.9K" is rounded */
	expect(l, "apache fancy", "linux-6.8.1.arch1-1-x86_64.pkg.tar.zst", false, 123,
	       DIR_URL "linux-6.8.1.arch1-1-x86_64.pkg.tar.zst");
	expect(l, "apache fancy", "v6.8", true, -1, DIR_URL "v6.8/");
	tap_ok(l && l->n && l->entries[1].mtime == T0234, "apache fancy: the date, read as UTC");
	ab_listing_free(l);

	l = parse(apache_table, DIR_URL, &err);
	tap_ok(l && l->format == AB_LISTING_APACHE_TABLE && l->n == 2, "apache HTMLTable: 2 entries");
	expect(l, "apache table", "a file with space.txt", false, 1, DIR_URL "a%20file%20with%20space.txt");
	expect(l, "apache table", "v6.8", true, -1, DIR_URL "v6.8/");
	tap_ok(l && l->n && l->entries[0].mtime == T0234, "apache table: the date");
	ab_listing_free(l);

	l = parse(nginx_html, DIR_URL, &err);
	tap_ok(l && l->format == AB_LISTING_NGINX_HTML && l->n == 3 && l->dropped == 1,
	       "nginx HTML: 3 entries, ../ dropped");
	expect(l, "nginx html", "big.bin", false, 5000, DIR_URL "big.bin");
	expect(l, "nginx html", "R&D.txt", false, 1, DIR_URL "R%26D.txt");
	expect(l, "nginx html", "v6.8", true, -1, DIR_URL "v6.8/");
	tap_ok(l && l->n && l->entries[2].mtime == T0234, "nginx html: the date");
	ab_listing_free(l);

	l = parse(nginx_json, DIR_URL, &err);
	tap_ok(l && l->format == AB_LISTING_NGINX_JSON && l->n == 3 && l->dropped == 1,
	       "nginx JSON: 3 entries, the socket ('other') dropped (%s)", l ? "" : err.msg);
	expect(l, "nginx json", "sub dir", true, -1, DIR_URL "sub%20dir/");
	expect(l, "nginx json", "q?x.txt", false, 1, DIR_URL "q%3Fx.txt");
	expect(l, "nginx json", "big.bin", false, 5000, DIR_URL "big.bin");
	tap_ok(l && l->n && l->entries[0].mtime == T0234 + 55, "nginx json: the date to the second");
	ab_listing_free(l);

	l = parse(lighttpd, DIR_URL, &err);
	tap_ok(l && l->format == AB_LISTING_LIGHTTPD && l->n == 2 && l->dropped == 1, "lighttpd: 2 entries");
	expect(l, "lighttpd", "v6.8", true, -1, DIR_URL "v6.8/");
	expect(l, "lighttpd", "<b>.txt", false, -1, DIR_URL "%3Cb%3E.txt");	/* "0.1K" */
	tap_ok(l && l->n && l->entries[0].mtime == T0234 + 55, "lighttpd: the date");
	ab_listing_free(l);
}

#define HEAD "<html><head><title>Index of /mainline/</title></head><body><pre>"
#define TAIL "</pre></body></html>"
#define A(h) "<a href=\"" h "\">x</a>\n"

static void hostile_links(void)
{
	static const char page[] = HEAD A("../") A("?C=N;O=D") A("?C=M;O=A") A("#top") A("./")
		A("http://other.example/mainline/x") A("//other.example/mainline/y") A("/elsewhere/z")
		A("/mainline/../etc/passwd") A("https://farm.example:8080/mainline/tls")
		A("http://user@farm.example:8080/mainline/cred") A("javascript:alert(1)")
		A("JavaScript:alert(1)") A("file:///etc/passwd") A("ftp://farm.example/mainline/f")
		A("mailto:root@example.org") A("data:text/html,x") A("v6.8/amd64/deeper.deb") A("x?y=1")
		A("/mainline/absolute-ok") A("http://farm.example:8080/mainline/full-ok") A("plain-ok") TAIL;
	ab_error err;
	ab_listing *l = parse(page, DIR_URL, &err);

	tap_ok(l && l->n == 3 && l->refused == 0, "hostile links: only the 3 links into the directory are entries");
	tap_ok(l && l->dropped == 19, "hostile links: the 19 others are dropped (got %zu)", l ? l->dropped : 0);
	expect(l, "hostile", "absolute-ok", false, -1, DIR_URL "absolute-ok");
	expect(l, "hostile", "full-ok", false, -1, DIR_URL "full-ok");
	expect(l, "hostile", "plain-ok", false, -1, DIR_URL "plain-ok");
	ab_listing_free(l);
}

static void hostile_names(void)
{
	static const char page[] = HEAD A("a%0Ab") A("a%2Fb") A("a%2fb/") A("%2e%2e/") A("%2E")
		A("nul%00x") A("esc%1b%5b2J") A("del%7f") A("bad-utf8-%ff") A("overlong-%c0%af")
		A("surrogate-%ed%a0%80") A("good%20one") TAIL;
	ab_error err;
	ab_listing *l = parse(page, DIR_URL, &err);

	tap_ok(l && l->n == 1 && l->refused == 11, "hostile names: 11 refused, 1 kept (%zu, %zu)",
	       l ? l->n : 0, l ? l->refused : 0);
	expect(l, "hostile names", "good one", false, -1, DIR_URL "good%20one");
	tap_ok(l && strstr(l->refused_why, "a%0Ab") && strstr(l->refused_why, "control character"),
	       "the first refusal is explained: %s", l ? l->refused_why : "");
	ab_listing_free(l);

	l = parse(HEAD A("a%2Fb") TAIL, DIR_URL, &err);
	tap_ok(l && l->n == 0 && strstr(l->refused_why, "'/'"), "%%2F: refused for its '/'");
	ab_listing_free(l);
	l = parse(HEAD A("%2e%2e/") TAIL, DIR_URL, &err);
	tap_ok(l && l->n == 0 && l->refused == 1 && strstr(l->refused_why, "\"..\""), "%%2e%%2e/: refused as \"..\"");
	ab_listing_free(l);

	/* nginx JSON names are not links: the same rules apply to them */
	l = parse("[{\"name\":\"../etc\",\"type\":\"directory\"},{\"name\":\"a\\nb\",\"type\":\"file\"},"
		  "{\"name\":\"..\",\"type\":\"directory\"},{\"name\":\"\\u001b[2J\",\"type\":\"file\"},"
		  "{\"name\":\"\",\"type\":\"file\"},7,{\"type\":\"file\"},{\"name\":\"ok\",\"type\":\"file\",\"size\":-4}]",
		  DIR_URL, &err);
	tap_ok(l && l->n == 1 && l->refused == 7, "nginx JSON: 7 hostile items refused, 1 kept (%zu, %zu)",
	       l ? l->n : 0, l ? l->refused : 0);
	expect(l, "json", "ok", false, -1, DIR_URL "ok");
	ab_listing_free(l);
	l = parse("[{\"name\":\"\\u001b[2J\",\"type\":\"file\"}]", DIR_URL, &err);
	tap_ok(l && l->refused == 1 && !strchr(l->refused_why, '\x1b') && strstr(l->refused_why, "?[2J"),
	       "an escape sequence is quoted as '?', never passed on: %s", l ? l->refused_why : "");
	ab_listing_free(l);
}

static void duplicates(void)
{
	ab_error err;
	ab_listing *l = parse(HEAD A("x") A("y/") A("x") A("x/") A("%78") TAIL, DIR_URL, &err);

	tap_ok(l && l->n == 2 && l->refused == 3 && !strcmp(l->entries[0].name, "x") && !l->entries[0].is_dir,
	       "a name listed twice keeps its first entry; the others are refused");
	tap_ok(l && strstr(l->refused_why, "listed twice"), "... and said so: %s", l ? l->refused_why : "");
	ab_listing_free(l);
}

static char *many_links(size_t n)
{
	ab_buf b = {0};
	size_t i;

	ab_buf_puts(&b, HEAD);
	for (i = 0; i < n; i++)
		ab_buf_printf(&b, "<a href=\"f%zu\">f%zu</a>\n", i, i);
	ab_buf_puts(&b, TAIL);
	return ab_buf_steal(&b);
}

static void caps(void)
{
	ab_error err;
	char *page = many_links(AB_LISTING_MAX_ENTRIES);
	ab_listing *l = parse(page, DIR_URL, &err);

	tap_ok(l && l->n == AB_LISTING_MAX_ENTRIES, "100,000 links: read");
	ab_listing_free(l);
	free(page);
	page = many_links(AB_LISTING_MAX_ENTRIES + 1);
	l = parse(page, DIR_URL, &err);
	tap_ok(!l && err.code == AB_EXIT_USAGE && strstr(err.msg, DIR_URL ": more than 100000 entries"),
	       "100,001 links: refused: %s", err.msg);
	ab_listing_free(l);
	free(page);

	ab_error_clear(&err);
	l = ab_listing_parse(HEAD TAIL, (size_t)AB_LISTING_MAX_BYTES + 1, DIR_URL, &err);
	tap_ok(!l && err.code == AB_EXIT_USAGE && strstr(err.msg, "larger than 32 MiB"),
	       "a page over 32 MiB is refused unread: %s", err.msg);
}

static void not_listings(void)
{
	static const struct {
		const char *page, *url, *want;
	} bad[] = {
		{ "<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1><a href=\"x\">x</a></body></html>",
		  DIR_URL, DIR_URL ": not a directory listing (no \"Index of\" title or heading)" },
		{ "", DIR_URL, DIR_URL ": not a directory listing (the page is empty)" },
		{ " \r\n", DIR_URL, "the page is empty" },
		{ "\x89PNG\r\n\x1a\n\0\0", DIR_URL, "no \"Index of\"" },
		{ "{\"name\":\"x\"}", DIR_URL, "no \"Index of\"" },
		{ "[{\"name\":\"x\",", DIR_URL, DIR_URL ": not a directory listing (invalid JSON at line 1" },
		{ "[1] [2]", DIR_URL, "invalid JSON" },
		{ HEAD TAIL, "file:///srv/farm/", "file:///srv/farm/: a directory listing must come from an http or https URL" },
		{ HEAD TAIL, "not a url", "must come from an http or https URL" },
		{ HEAD TAIL, "http://h/a\nb/", "http://h/a?b/: a directory listing must come" },
	};
	size_t i;

	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		ab_error err;
		ab_listing *l = parse(bad[i].page, bad[i].url, &err);

		tap_ok(!l && err.code == AB_EXIT_USAGE && strstr(err.msg, bad[i].want) && !strchr(err.msg, '\n'),
		       "not a listing %zu: %s", i, err.msg);
		ab_listing_free(l);
	}
}

static void empty_listings(void)
{
	ab_error err;
	char why[512];
	ab_listing *l = parse(HEAD A("../") TAIL, DIR_URL, &err);

	tap_ok(l && l->n == 0, "a listing of nothing but ../ is an empty listing, not an error");
	tap_ok(l && !strcmp(ab_listing_empty_reason(l, why, sizeof why), "an empty directory listing (nginx HTML)"),
	       "... and says so: %s", l ? why : err.msg);
	ab_listing_free(l);
	l = parse("[]", DIR_URL, &err);
	tap_ok(l && l->n == 0 && l->format == AB_LISTING_NGINX_JSON, "nginx JSON []: an empty listing");
	ab_listing_free(l);
	l = parse(HEAD A("a%0Ab") TAIL, DIR_URL, &err);
	tap_ok(l && l->n == 0 && strstr(ab_listing_empty_reason(l, why, sizeof why), "no usable entry: 1 refused"),
	       "a listing whose only entry is refused says why: %s", l ? why : "");
	ab_listing_free(l);
}

static void page_urls(void)
{
	ab_error err;
	ab_listing *l = parse(HEAD A("x") TAIL, "http://farm.example:8080/mainline/index.html?C=M;O=A#f", &err);

	expect(l, "page URL with a file, a query and a fragment", "x", false, -1, DIR_URL "x");
	ab_listing_free(l);
	l = parse(HEAD A("x") A("mainline/y") TAIL, "http://farm.example:8080/mainline", &err);
	tap_ok(l && l->n == 1 && !strcmp(l->entries[0].url, "http://farm.example:8080/x"),
	       "a page URL without a trailing '/' is a file in its parent, as in a browser");
	ab_listing_free(l);
}

int main(void)
{
	formats();
	hostile_links();
	hostile_names();
	duplicates();
	caps();
	not_listings();
	empty_listings();
	page_urls();
	return tap_done();
}
