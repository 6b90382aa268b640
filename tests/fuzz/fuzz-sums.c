/* fuzz-sums.c - libFuzzer target: a checksum file (src/farms/sums.c)
 * on any bytes. Every input must come back as pairs keeping the promises
 * of sums.h, or as an error with exit 2; never a crash, a leak or
 * undefined behaviour. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "farms/sums.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ab_error err = {0};
	/* The first byte decides whether a lone digest has a name. */
	ab_sums *s = ab_sums_parse((const char *)data, size, "SHA256SUMS",
				   size && (data[0] & 1) ? "linux.iso" : NULL, &err);
	size_t i, k;

	if (!s) {
		if (err.code != AB_EXIT_USAGE || !err.msg[0] || strchr(err.msg, '\n'))
			abort();	/* a refusal is exit 2 with a one-line reason */
		return 0;
	}
	for (i = 0; i < s->n; i++) {
		const char *n = s->items[i].name;

		if (!n[0] || n[0] == '/' || !strcmp(n, "..") || !strncmp(n, "../", 3) || strstr(n, "/../") ||
		    (strlen(n) >= 3 && !strcmp(n + strlen(n) - 3, "/..")) || strlen(s->items[i].sha256) != 64)
			abort();
		for (k = 0; n[k]; k++)
			if ((unsigned char)n[k] < 0x20 || n[k] == 0x7f)
				abort();
		if (ab_sums_find(s, n) != &s->items[i])
			abort();	/* each name once */
	}
	ab_sums_free(s);
	return 0;
}
