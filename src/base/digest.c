/* digest.c - see digest.h. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rpm/rpmcrypto.h>
#include <rpm/rpmpgp.h>
#include "base/digest.h"
#include "base/i18n.h"

struct ab_sha256 {
	DIGEST_CTX ctx;
};

void ab_digest_init(void)
{
	static int done;
	if (!done) {
		rpmInitCrypto();
		done = 1;
	}
}

ab_sha256 *ab_sha256_new(void)
{
	ab_sha256 *h = malloc(sizeof *h);
	if (!h)
		abort();
	ab_digest_init();
	h->ctx = rpmDigestInit(PGPHASHALGO_SHA256, RPMDIGEST_NONE);
	if (!h->ctx)
		abort();
	return h;
}

void ab_sha256_update(ab_sha256 *h, const void *data, size_t len)
{
	rpmDigestUpdate(h->ctx, data, len);
}

void ab_sha256_final(ab_sha256 *h, char hex[65])
{
	char *s = NULL;
	rpmDigestFinal(h->ctx, (void **)&s, NULL, 1);
	strncpy(hex, s ? s : "", 64);
	hex[64] = '\0';
	free(s);
	free(h);
}

int ab_sha256_file(const char *path, char hex[65], ab_error *err)
{
	char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ab_sha256 *h;

	if (fd < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("%s: cannot open: %s"), path, strerror(errno));
		return -1;
	}
	h = ab_sha256_new();
	while ((n = read(fd, buf, sizeof buf)) > 0)
		ab_sha256_update(h, buf, (size_t)n);
	if (n < 0) {
		int e = errno;
		close(fd);
		ab_sha256_final(h, hex);
		ab_error_set(err, AB_EXIT_FAILURE, _("%s: read error: %s"), path, strerror(e));
		return -1;
	}
	close(fd);
	ab_sha256_final(h, hex);
	return 0;
}
