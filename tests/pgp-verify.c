/* pgp-verify.c - for tests/openpgp.sh: checks a signature with
 * farms/openpgp.c and prints the verdict.
 *   pgp-verify KEYRING... -- DATAFILE SIGFILE   detached signature;
 *                                                 the data read into memory
 *   pgp-verify --fd KEYRING... -- DATAFILE SIGFILE   the same, the data
 *                                                 read from a descriptor
 *   pgp-verify --clearsigned KEYRING... -- FILE  prints "OK" and then
 *                                                 the signed text alone
 *   pgp-verify --count KEYRING...                prints "keys: N"
 * Prints "OK FINGERPRINT" (exit 0) or "BAD: WHY" (exit 1); a keyring
 * refused at open prints its message on stderr and exits with its code. */
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "farms/openpgp.h"
#include "util.h"

static int usage(void)
{
	fprintf(stderr, "usage: pgp-verify [--fd|--clearsigned] KEYRING... -- DATAFILE [SIGFILE]\n"
			"       pgp-verify --count KEYRING...\n");
	return 2;
}

int main(int argc, char **argv)
{
	ab_error err = {0};
	ab_pgp *p;
	char *data = NULL, *sig = NULL, *why = NULL, *plain = NULL, signer[128] = "";
	size_t len = 0, siglen = 0, plain_len = 0, nk;
	int i = 1, first, rc, fd;
	const char *mode = "";

	/* GPGME writes to gpg through pipes: a gpg that dies early must not
	 * kill us with SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	if (argc > 1 && strncmp(argv[1], "--", 2) == 0 && argv[1][2])
		mode = argv[i++];
	first = i;
	while (i < argc && strcmp(argv[i], "--") != 0)
		i++;
	nk = (size_t)(i - first);
	if (strcmp(mode, "--count") == 0) {
		if (!(p = ab_pgp_open((const char *const *)argv + first, nk, &err))) {
			fprintf(stderr, "%s\n", err.msg);
			return err.code;
		}
		printf("keys: %zu\n", ab_pgp_key_count(p));
		ab_pgp_close(p);
		return 0;
	}
	if (i >= argc)
		return usage();
	i++;
	if (strcmp(mode, "--clearsigned") == 0 ? argc - i != 1 : argc - i != 2)
		return usage();
	if (!(p = ab_pgp_open((const char *const *)argv + first, nk, &err))) {
		fprintf(stderr, "%s\n", err.msg);
		return err.code;
	}
	if (strcmp(mode, "--clearsigned") == 0) {
		if (ab_read_file(argv[i], 1 << 24, &data, &len, &err) < 0) {
			fprintf(stderr, "%s\n", err.msg);
			ab_pgp_close(p);
			return err.code;
		}
		rc = ab_pgp_verify_clearsigned(p, data, len, argv[i], &plain, &plain_len, &why);
		if (rc == 0) {
			printf("OK\n");
			fwrite(plain, 1, plain_len, stdout);
		}
	} else {
		if (ab_read_file(argv[i + 1], 1 << 24, &sig, &siglen, &err) < 0) {
			fprintf(stderr, "%s\n", err.msg);
			ab_pgp_close(p);
			return err.code;
		}
		if (strcmp(mode, "--fd") == 0) {
			if ((fd = open(argv[i], O_RDONLY)) < 0) {
				perror(argv[i]);
				ab_pgp_close(p);
				free(sig);
				return 2;
			}
			rc = ab_pgp_verify_fd(p, fd, sig, siglen, argv[i], signer, sizeof signer,
					      &why);
			close(fd);
		} else {
			if (ab_read_file(argv[i], 1 << 24, &data, &len, &err) < 0) {
				fprintf(stderr, "%s\n", err.msg);
				ab_pgp_close(p);
				free(sig);
				return err.code;
			}
			rc = ab_pgp_verify(p, data, len, sig, siglen, argv[i], signer, sizeof signer,
					   &why);
		}
		if (rc == 0)
			printf("OK %s\n", signer);
	}
	if (rc != 0)
		printf("BAD: %s\n", why);
	free(why);
	free(plain);
	free(data);
	free(sig);
	ab_pgp_close(p);
	return rc;
}
