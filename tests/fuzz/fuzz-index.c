/* fuzz-index.c - libFuzzer target: the index loader on any bytes.
 * Every input must come back as an index or as an error with exit 2;
 * never a crash, a leak or undefined behaviour (run under ASan/UBSan). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "index/index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const urls[] = {
		"http://farm.example.org/app/index.json", "file:///srv/farm/index.json",
	};
	ab_error err = {0};
	ab_index *idx;

	/* The first byte picks the index URL: relative artifact URLs and
	 * the file:// rule resolve differently under each. */
	idx = ab_index_parse((const char *)data, size, urls[size ? data[0] & 1 : 0], &err);
	if (idx) {
		size_t i;
		ab_error ferr = {0};

		for (i = 0; i < idx->nbuilds && i < 4; i++)
			(void)ab_index_find(idx, idx->builds[i].id, &ferr);
		free(ab_index_compare_url(idx, 0, idx->nbuilds - 1));
		ab_index_free(idx);
	} else if (err.code != AB_EXIT_USAGE || !err.msg[0]) {
		abort();	/* a refusal must be exit 2 with a reason */
	}
	return 0;
}
