/* listing.h - one HTTP directory listing page, parsed into its entries:
 * Apache mod_autoindex (plain list, FancyIndexing, HTMLTable), nginx
 * autoindex (HTML and `autoindex_format json`) and lighttpd
 * mod_dirlisting, as docs/farms.md describes.
 *
 * Owns the parsed listing. Parses bytes handed to it with the page's URL
 * (libxml2's HTML parser, jansson for nginx JSON) and resolves links with
 * libcurl's URL API; never opens a file or a connection, never follows a
 * link and never prints. Links that leave the page's directory are
 * dropped; entries whose names are hostile are refused one by one and
 * counted. A page that is refused as a whole gets an ab_error naming the
 * URL, with exit status AB_EXIT_USAGE.
 *
 * A farm on the local disk (a file:// directory) has no pages: listing_dir.c
 * makes the same ab_listing from the directory itself (ab_listing_read_dir),
 * with the same rules for names; it opens directories, never a connection.
 */
#ifndef AB_FARMS_LISTING_H
#define AB_FARMS_LISTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/error.h"

/* A longer page is refused unread: fetch at most this many bytes. */
#define AB_LISTING_MAX_BYTES (32u << 20)
/* A page with more entries is refused (a farm directory holds far fewer). */
#define AB_LISTING_MAX_ENTRIES 100000u
/* A page with more links of any kind is refused before they are resolved. */
#define AB_LISTING_MAX_LINKS (2u * AB_LISTING_MAX_ENTRIES)

typedef enum ab_listing_format {
	AB_LISTING_APACHE_LIST,		/* mod_autoindex, no FancyIndexing */
	AB_LISTING_APACHE_FANCY,	/* FancyIndexing: a <pre> with sort links */
	AB_LISTING_APACHE_TABLE,	/* FancyIndexing HTMLTable */
	AB_LISTING_NGINX_HTML,		/* autoindex: a <pre> */
	AB_LISTING_NGINX_JSON,		/* autoindex_format json */
	AB_LISTING_LIGHTTPD,		/* mod_dirlisting's table */
	AB_LISTING_OTHER,		/* an "Index of" page of another shape */
	AB_LISTING_LOCAL,		/* a local directory, read by listing_dir.c */
} ab_listing_format;

typedef struct ab_listing_entry {
	char *name;	/* decoded, the entry's own name: no '/', no control
			 * character, valid UTF-8, never "." or ".." */
	bool is_dir;
	char *url;	/* absolute, in the page's directory (ends in '/' for
			 * a directory) */
	int64_t size;	/* bytes, when the page says exactly; else -1 */
	int64_t mtime;	/* seconds since the epoch, read as UTC; else -1 */
} ab_listing_entry;

typedef struct ab_listing {
	ab_listing_entry *entries;	/* in page order */
	size_t n;
	ab_listing_format format;
	size_t dropped;		/* links that leave the directory: parent,
				 * sort links, other hosts, other schemes */
	size_t refused;		/* entries refused for their names */
	char refused_why[256];	/* the first refusal, for a warning; "" if none */
} ab_listing;

/* Parses len bytes of the page served at page_url, the URL after any
 * redirect (http or https; its directory is everything up to the last
 * '/' of its path). NULL with err set (AB_EXIT_USAGE, the message names
 * page_url) when the page is too large, is not a directory listing at
 * all or holds more than AB_LISTING_MAX_ENTRIES entries. A listing with
 * no entries is not an error: n is 0 and ab_listing_empty_reason says
 * why in words. */
ab_listing *ab_listing_parse(const char *data, size_t len, const char *page_url, ab_error *err);
void ab_listing_free(ab_listing *l);

/* Why a decoded name cannot be an entry (untranslated: pass it to _()),
 * or NULL when it can: empty, "." or "..", a NUL, a '/', a control
 * character, not UTF-8. */
const char *ab_listing_bad_name(const char *name, size_t len);

/* The listing of the local directory dir_url (a file:// URL ending in
 * '/') inside the tree whose real path is root (realpath(3) of the
 * farm's top directory): one entry per file or directory, by name, its
 * is_dir, size and mtime from fstatat without following links. A
 * symbolic link is followed only when its target stays inside root;
 * one that leaves the tree, dangles or names no file or directory is
 * dropped. Names are refused as in a page. NULL with err (AB_EXIT_USAGE,
 * the message naming the path) when the directory cannot be read, with
 * *missing set when it does not exist; dir_url itself may not lead out
 * of root. Never prints. */
ab_listing *ab_listing_read_dir(const char *root, const char *dir_url, bool *missing,
				ab_error *err);
/* ab_listing_read_dir for each of urls: out[i], or NULL with why[i]
 * (malloc'd) and missing[i]. Returns how many were read. */
size_t ab_listing_read_dirs(const char *root, const char *const *urls, size_t n,
			    ab_listing **out, bool *missing, char **why);
/* The real path of the local directory url (file://), the root of a
 * local farm: NULL with err (may be NULL) naming the path when it cannot
 * be resolved; lenient, the path as it is instead (a resumed session's
 * tree that went away: reading it says so). Caller frees. */
char *ab_listing_local_root(const char *url, bool lenient, ab_error *err);
/* Whether the local file url (file://) lies inside root once its links
 * are resolved: 0 yes (or it does not exist: reading it says so), 1 no
 * with *why (malloc'd, naming the path). */
int ab_listing_local_inside(const char *root, const char *url, char **why);

/* "apache FancyIndexing", "nginx JSON", ... (translated). */
const char *ab_listing_format_name(ab_listing_format f);
/* For a listing with n == 0, a phrase to follow "URL: " in a one-line
 * message, e.g. "an empty directory listing (nginx HTML)". Returns buf. */
const char *ab_listing_empty_reason(const ab_listing *l, char *buf, size_t size);

#endif
