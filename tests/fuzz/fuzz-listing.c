/* fuzz-listing.c - libFuzzer target: a directory listing page
 * (src/farms/listing.c) on any bytes. Every input must come back as a
 * listing whose entries keep the promises of listing.h, or as an error
 * with exit 2; never a crash, a leak or undefined behaviour. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "farms/listing.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const urls[] = {
		"http://farm.example/mainline/", "https://farm.example:8443/a%20b/index.html?C=M;O=A",
	};
	const char *url = urls[size ? data[0] & 1 : 0];
	ab_error err = {0};
	ab_listing *l = ab_listing_parse((const char *)data, size, url, &err);
	char why[512];
	size_t i;

	if (!l) {
		if (err.code != AB_EXIT_USAGE || !err.msg[0] || strchr(err.msg, '\n'))
			abort();	/* a refusal is exit 2 with a one-line reason */
		return 0;
	}
	for (i = 0; i < l->n; i++) {
		const ab_listing_entry *e = &l->entries[i];
		size_t k;

		if (!e->name[0] || strchr(e->name, '/') || !strcmp(e->name, ".") || !strcmp(e->name, ".."))
			abort();
		for (k = 0; e->name[k]; k++)
			if ((unsigned char)e->name[k] < 0x20 || e->name[k] == 0x7f)
				abort();
		/* the entry stays in the page's directory */
		if (strncmp(e->url, "http://farm.example/mainline/", 29) &&
		    strncmp(e->url, "https://farm.example:8443/a%20b/", 32))
			abort();
	}
	if (l->n == 0)
		(void)ab_listing_empty_reason(l, why, sizeof why);
	ab_listing_free(l);
	return 0;
}
