/* fuzz-repodata.c - libFuzzer target: the repomd.xml and primary.xml
 * parsers of repodata.c, without any fetch. The input is the bytes of
 * repomd.xml, a NUL byte, then the bytes of the decompressed primary
 * (the whole input is repomd.xml when there is no NUL). Every input must
 * come back as an index or as an error with exit 2; never a crash, a
 * leak or undefined behaviour (run under ASan/UBSan). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "farms/repodata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const urls[] = {
		"http://repo.example.org/fedora/x86_64/", "file:///srv/repo",
	};
	const uint8_t *nul = memchr(data, '\0', size);
	size_t md_len = nul ? (size_t)(nul - data) : size;
	const char *primary = nul ? (const char *)nul + 1 : "";
	size_t primary_len = nul ? size - md_len - 1 : 0;
	ab_error err = {0};
	ab_index *idx;

	/* The length's parity picks the repository URL: locations resolve,
	 * and the http-only rule applies, differently under each. */
	idx = ab_repodata_parse((const char *)data, md_len, primary, primary_len,
				urls[size & 1], "app", &err);
	if (idx)
		ab_index_free(idx);
	else if (err.code != AB_EXIT_USAGE || !err.msg[0])
		abort();	/* a refusal must be exit 2 with a reason */
	return 0;
}
