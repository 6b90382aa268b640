/* jansson-floor.c - how long jansson alone takes to parse the builds of a
 * bench index, on as many threads as artbisect's loader uses: the floor
 * for any loader built on jansson (artbisect hands jansson each build of
 * a big index separately, with the same flags, in pieces on every core).
 *
 *   jansson-floor INDEX.json    prints the best of three, in seconds
 *
 * Bench code: it finds builds by the text bench.sh writes
 * ('{"id": ' starts each one), not by parsing JSON.
 */
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 8
#define SCRATCH ((size_t)1 << 20)

static const char *doc;
static size_t doclen, nbuilds, *starts;
static int nthreads;

/* The allocator artbisect gives jansson: a bump arena per thread,
 * reset after each build. */
static _Thread_local char *scratch, *next;

static void *bump_malloc(size_t n)
{
	size_t want = (n + 15) & ~(size_t)15;

	if (scratch && next + want <= scratch + SCRATCH) {
		void *p = next;
		next += want;
		return p;
	}
	return malloc(n);
}

static void bump_free(void *p)
{
	if (scratch && (char *)p >= scratch && (char *)p < scratch + SCRATCH)
		return;
	free(p);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *parse_range(void *arg)
{
	size_t k = (size_t)arg, i;
	size_t from = k * nbuilds / (size_t)nthreads, to = (k + 1) * nbuilds / (size_t)nthreads;
	json_error_t je;

	scratch = malloc(SCRATCH);
	for (i = from; i < to; i++) {
		json_t *v;

		next = scratch;
		v = json_loadb(doc + starts[i], doclen - starts[i],
			       JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK, &je);
		if (!v) {
			fprintf(stderr, "jansson-floor: build %zu: %s\n", i, je.text);
			exit(1);
		}
		json_decref(v);
	}
	free(scratch);
	scratch = NULL;
	return NULL;
}

int main(int argc, char **argv)
{
	FILE *f;
	long n;
	const char *p;
	size_t cap = 1024;
	double best = 1e9;
	int r, t;
	char *buf;

	if (argc != 2 || !(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: jansson-floor INDEX.json\n");
		return 2;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		return 1;
	fclose(f);
	buf[n] = '\0';
	doc = buf;
	doclen = (size_t)n;
	starts = malloc(cap * sizeof *starts);
	for (p = strstr(doc, "{\"id\": "); p; p = strstr(p + 1, "{\"id\": ")) {
		if (nbuilds == cap)
			starts = realloc(starts, (cap *= 2) * sizeof *starts);
		starts[nbuilds++] = (size_t)(p - doc);
	}
	/* artbisect reads with one thread per core, up to 8. */
	nthreads = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (nthreads < 1)
		nthreads = 1;
	if (nthreads > MAX_THREADS)
		nthreads = MAX_THREADS;
	json_set_alloc_funcs(bump_malloc, bump_free);
	for (r = 0; r < 3; r++) {
		pthread_t th[MAX_THREADS];
		double t0 = now(), dt;

		for (t = 1; t < nthreads; t++)
			pthread_create(&th[t], NULL, parse_range, (void *)(size_t)t);
		parse_range((void *)0);
		for (t = 1; t < nthreads; t++)
			pthread_join(th[t], NULL);
		dt = now() - t0;
		if (dt < best)
			best = dt;
	}
	printf("%.2f %zu %d\n", best, nbuilds, nthreads);
	return 0;
}
