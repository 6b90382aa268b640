/* digest.h - SHA-256 through librpm's rpmio digest API (no second crypto
 * library). Owns hashing only; knows nothing of files or the network. */
#ifndef AB_DIGEST_H
#define AB_DIGEST_H

#include <stddef.h>
#include "base/error.h"

typedef struct ab_sha256 ab_sha256;

/* rpmInitCrypto once per process; safe to call more than once. */
void ab_digest_init(void);
ab_sha256 *ab_sha256_new(void);
void ab_sha256_update(ab_sha256 *h, const void *data, size_t len);
/* Writes 64 lowercase hex digits and a NUL into hex; frees h. */
void ab_sha256_final(ab_sha256 *h, char hex[65]);
/* Hashes a whole file; 0, or -1 with err set. */
int ab_sha256_file(const char *path, char hex[65], ab_error *err);

#endif
