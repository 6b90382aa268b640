/* listing-dump.c - for tests/listings.sh: parses a saved listing page
 * and prints what artbisect reads from it, one entry a line:
 *   NAME<TAB>d|f<TAB>SIZE<TAB>MTIME<TAB>URL
 * after a first line "format: NAME", and "dropped: N refused: N" last.
 * A refused page prints its message on stderr and exits with its code.
 * Usage: listing-dump PAGE-FILE PAGE-URL */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "farms/listing.h"
#include "base/util.h"

int main(int argc, char **argv)
{
	ab_error err = {0};
	ab_listing *l;
	char *data = NULL, why[512];
	size_t len, i;

	if (argc != 3) {
		fprintf(stderr, "usage: listing-dump PAGE-FILE PAGE-URL\n");
		return 2;
	}
	if (ab_read_file(argv[1], AB_LISTING_MAX_BYTES + 1, &data, &len, &err) < 0 ||
	    !(l = ab_listing_parse(data, len, argv[2], &err))) {
		fprintf(stderr, "%s\n", err.msg);
		free(data);
		return err.code ? err.code : 3;
	}
	printf("format: %s\n", ab_listing_format_name(l->format));
	for (i = 0; i < l->n; i++)
		printf("%s\t%c\t%" PRId64 "\t%" PRId64 "\t%s\n", l->entries[i].name,
		       l->entries[i].is_dir ? 'd' : 'f', l->entries[i].size, l->entries[i].mtime,
		       l->entries[i].url);
	if (l->n == 0)
		printf("empty: %s\n", ab_listing_empty_reason(l, why, sizeof why));
	printf("dropped: %zu refused: %zu%s%s\n", l->dropped, l->refused, l->refused ? " " : "",
	       l->refused_why);
	ab_listing_free(l);
	free(data);
	return 0;
}
