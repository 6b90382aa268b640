/* pgp-verify.c - for tests/openpgp.sh: checks a signature with
 * farms/openpgp.c and prints the verdict.
 *   pgp-verify KEYRING... -- DATAFILE SIGFILE   detached signature;
 *                                                 the data read into memory
 *   pgp-verify --fd KEYRING... -- DATAFILE SIGFILE   the same, the data
 *                                                 read from a descriptor
 *   pgp-verify --clearsigned KEYRING... -- FILE  prints "OK" and then
 *                                                 the signed text alone
 *   pgp-verify --threads KEYRING... -- DATAFILE SIGFILE   four threads
 *                                                 verify at once, through
 *                                                 memory and descriptors, on
 *                                                 one ab_pgp; "OK FPR" when
 *                                                 all twenty agree
 *   pgp-verify --count KEYRING...                prints "keys: N"
 *   pgp-verify --default LAYOUT                  ab_pgp_default_keyrings:
 *                                                 one a line, then "n: N"
 * Prints "OK FINGERPRINT" (exit 0) or "BAD: WHY" (exit 1); a keyring
 * refused at open prints its message on stderr and exits with its code. */
#include "config.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "farms/openpgp.h"
#include "base/util.h"

struct job {
	ab_pgp *p;
	const char *path, *data, *sig;
	size_t len, siglen;
	int rc;			/* 0: all good, 1: some refused, 2: errors */
	char signer[128], *why;
};

static void *verify_many(void *arg)
{
	struct job *j = arg;
	char signer[128], *why = NULL;
	int fd, i, rc;

	for (i = 0; i < 5; i++) {
		if (i % 2) {
			if ((fd = open(j->path, O_RDONLY)) < 0) {
				j->rc = 2;
				return NULL;
			}
			rc = ab_pgp_verify_fd(j->p, fd, j->sig, j->siglen, j->path, signer,
					      sizeof signer, &why);
			close(fd);
		} else {
			rc = ab_pgp_verify(j->p, j->data, j->len, j->sig, j->siglen, j->path, signer,
					   sizeof signer, &why);
		}
		if (rc != 0) {
			j->rc = 1;
			free(j->why);
			j->why = why;
			why = NULL;
		} else if (i == 0) {
			snprintf(j->signer, sizeof j->signer, "%s", signer);
		} else if (strcmp(signer, j->signer) != 0) {
			j->rc = 2;
		}
	}
	return NULL;
}

static int usage(void)
{
	fprintf(stderr, "usage: pgp-verify [--fd|--clearsigned] KEYRING... -- DATAFILE [SIGFILE]\n"
			"       pgp-verify --count KEYRING...\n"
			"       pgp-verify --default LAYOUT\n");
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
	if (strcmp(mode, "--default") == 0) {
		const char *const *k;

		if (argc != 3)
			return usage();
		k = ab_pgp_default_keyrings(argv[2], &nk);
		for (size_t j = 0; j < nk; j++)
			printf("%s\n", k[j]);
		printf("n: %zu\n", nk);
		return 0;
	}
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
		if (strcmp(mode, "--threads") == 0) {
			struct job jobs[4];
			pthread_t th[4];
			int t;

			if (ab_read_file(argv[i], 1 << 24, &data, &len, &err) < 0) {
				fprintf(stderr, "%s\n", err.msg);
				ab_pgp_close(p);
				free(sig);
				return err.code;
			}
			for (t = 0; t < 4; t++) {
				jobs[t] = (struct job){ .p = p, .path = argv[i], .data = data, .len = len,
							.sig = sig, .siglen = siglen };
				pthread_create(&th[t], NULL, verify_many, &jobs[t]);
			}
			rc = 0;
			for (t = 0; t < 4; t++) {
				pthread_join(th[t], NULL);
				if (jobs[t].rc > rc)
					rc = jobs[t].rc;
				if (jobs[t].rc == 0 && strcmp(jobs[t].signer, jobs[0].signer) != 0)
					rc = 2;
				if (jobs[t].why && !why)
					why = jobs[t].why;
				else
					free(jobs[t].why);
			}
			snprintf(signer, sizeof signer, "%s", jobs[0].signer);
			if (rc == 2) {
				printf("threads disagree: %s\n", why ? why : "");
				free(why);
				free(data);
				free(sig);
				ab_pgp_close(p);
				return 3;
			}
		} else if (strcmp(mode, "--fd") == 0) {
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
