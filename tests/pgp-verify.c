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

/* Four threads verify at once on one ab_pgp; 3 when they disagree
 * (said here), else what they all said, the signer or why. */
static int verify_threads(ab_pgp *p, const char *path, const char *data, size_t len,
			  const char *sig, size_t siglen, char *signer, size_t signer_size, char **why)
{
	struct job jobs[4];
	pthread_t th[4];
	int t, rc = 0;

	for (t = 0; t < 4; t++) {
		jobs[t] = (struct job){ .p = p, .path = path, .data = data, .len = len,
					.sig = sig, .siglen = siglen };
		pthread_create(&th[t], NULL, verify_many, &jobs[t]);
	}
	for (t = 0; t < 4; t++) {
		pthread_join(th[t], NULL);
		if (jobs[t].rc > rc)
			rc = jobs[t].rc;
		if (jobs[t].rc == 0 && strcmp(jobs[t].signer, jobs[0].signer) != 0)
			rc = 2;
		if (jobs[t].why && !*why)
			*why = jobs[t].why;
		else
			free(jobs[t].why);
	}
	snprintf(signer, signer_size, "%s", jobs[0].signer);
	if (rc == 2) {
		printf("threads disagree: %s\n", *why ? *why : "");
		return 3;
	}
	return rc;
}

/* A detached signature: the data from memory, from a descriptor
 * (--fd), or both from four threads (--threads). */
static int verify_detached(ab_pgp *p, const char *mode, const char *path, const char *sigpath)
{
	ab_error err = {0};
	char *data = NULL, *sig = NULL, *why = NULL, signer[128] = "";
	size_t len = 0, siglen = 0;
	int rc, fd;

	if (ab_read_file(sigpath, 1 << 24, &sig, &siglen, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return err.code;
	}
	if (strcmp(mode, "--fd") == 0) {
		if ((fd = open(path, O_RDONLY)) < 0) {
			perror(path);
			free(sig);
			return 2;
		}
		rc = ab_pgp_verify_fd(p, fd, sig, siglen, path, signer, sizeof signer, &why);
		close(fd);
	} else if (ab_read_file(path, 1 << 24, &data, &len, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		free(sig);
		return err.code;
	} else if (strcmp(mode, "--threads") == 0) {
		rc = verify_threads(p, path, data, len, sig, siglen, signer, sizeof signer, &why);
	} else {
		rc = ab_pgp_verify(p, data, len, sig, siglen, path, signer, sizeof signer, &why);
	}
	if (rc == 0)
		printf("OK %s\n", signer);
	else if (rc != 3)
		printf("BAD: %s\n", why);
	free(why);
	free(data);
	free(sig);
	return rc;
}

/* A clearsigned file: "OK" and the signed text alone. */
static int verify_clearsigned(ab_pgp *p, const char *path)
{
	ab_error err = {0};
	char *data = NULL, *plain = NULL, *why = NULL;
	size_t len = 0, plain_len = 0;
	int rc;

	if (ab_read_file(path, 1 << 24, &data, &len, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return err.code;
	}
	rc = ab_pgp_verify_clearsigned(p, data, len, path, &plain, &plain_len, &why);
	if (rc == 0) {
		printf("OK\n");
		fwrite(plain, 1, plain_len, stdout);
	} else {
		printf("BAD: %s\n", why);
	}
	free(why);
	free(plain);
	free(data);
	return rc;
}

static int list_default(const char *layout)
{
	size_t nk, j;
	const char *const *k = ab_pgp_default_keyrings(layout, &nk);

	for (j = 0; j < nk; j++)
		printf("%s\n", k[j]);
	printf("n: %zu\n", nk);
	return 0;
}

int main(int argc, char **argv)
{
	ab_error err = {0};
	ab_pgp *p;
	size_t nk;
	int i = 1, first, rc;
	const char *mode = "";

	/* GPGME writes to gpg through pipes: a gpg that dies early must not
	 * kill us with SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	if (argc > 1 && strncmp(argv[1], "--", 2) == 0 && argv[1][2])
		mode = argv[i++];
	if (strcmp(mode, "--default") == 0)
		return argc == 3 ? list_default(argv[2]) : usage();
	first = i;
	while (i < argc && strcmp(argv[i], "--") != 0)
		i++;
	nk = (size_t)(i - first);
	if (strcmp(mode, "--count") != 0) {
		if (i >= argc)
			return usage();
		i++;
		if (strcmp(mode, "--clearsigned") == 0 ? argc - i != 1 : argc - i != 2)
			return usage();
	}
	if (!(p = ab_pgp_open((const char *const *)argv + first, nk, &err))) {
		fprintf(stderr, "%s\n", err.msg);
		return err.code;
	}
	if (strcmp(mode, "--count") == 0) {
		printf("keys: %zu\n", ab_pgp_key_count(p));
		rc = 0;
	} else if (strcmp(mode, "--clearsigned") == 0) {
		rc = verify_clearsigned(p, argv[i]);
	} else {
		rc = verify_detached(p, mode, argv[i], argv[i + 1]);
	}
	ab_pgp_close(p);
	return rc;
}
