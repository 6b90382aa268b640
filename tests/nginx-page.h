/* nginx-page.h - a listing page as nginx's autoindex writes it, parsed,
 * for the C unit tests of the farm layouts. Never touches the network. */
#ifndef AB_NGINX_PAGE_H
#define AB_NGINX_PAGE_H

#include "farms/listing.h"
#include "base/util.h"
#include "tap.h"

/* The names (NULL-ended) as the page at url lists them, each with the
 * size column size ("-" for a folder); NULL, with a TAP comment, when
 * the parser refuses it. */
static ab_listing *nginx_page(const char *const *names, const char *url, const char *size)
	__attribute__((unused));
static ab_listing *nginx_page(const char *const *names, const char *url, const char *size)
{
	ab_buf b = {0};
	ab_error err = {0};
	ab_listing *l;
	size_t i;

	ab_buf_puts(&b, "<html><head><title>Index of /</title></head><body><h1>Index of /</h1><hr><pre>"
			"<a href=\"../\">../</a>\n");
	for (i = 0; names[i]; i++)
		ab_buf_printf(&b, "<a href=\"%s\">%s</a> 01-Jan-2024 00:00 %s\n", names[i], names[i],
			      size);
	ab_buf_puts(&b, "</pre><hr></body></html>\n");
	l = ab_listing_parse(b.data, b.len, url, &err);
	if (!l)
		tap_diag("listing: %s", err.msg);
	ab_buf_free(&b);
	return l;
}

#endif
