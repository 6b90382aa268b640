/* test-index-big.c - big indexes, read in pieces by several threads
 * (src/index/index.c): 100,000 builds found by id and commit; faults in
 * either half named as one thread would name them; and the guesses at
 * build boundaries where the document is cut, in documents shaped to
 * fool them. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index/index.h"
#include "base/util.h"
#include "index-docs.h"
#include "tap.h"

static void test_big(void)
{
	const size_t n = 100000;
	ab_buf b = {0};
	ab_error err;
	ab_index *idx;
	size_t i, found = 0, by_commit = 0;
	double t;

	ab_buf_puts(&b, HEAD "\"builds\":[\n");
	for (i = 0; i < n; i++)
		ab_buf_printf(&b, "%s{\"id\":\"b%06zu\",\"commit\":\"%016zx%024zx\",\"artifacts\":"
			      "[{\"url\":\"rpms/k-%zu.rpm\",\"sha256\":\"" SHA_A "\",\"size\":%zu}]}\n",
			      i ? "," : "", i, i * 2654435761u % 1000003u, i, i, i);
	ab_buf_puts(&b, "]}");
	t = ab_now();
	idx = ab_index_parse(b.data, b.len, HTTP_URL, &err);
	t = ab_now() - t;
	tap_ok(idx && idx->nbuilds == n, "100,000 builds parse (%.3f s)%s%s", t, idx ? "" : ": ", idx ? "" : err.msg);
	tap_ok_if(sysconf(_SC_NPROCESSORS_ONLN) >= 2, "one core: read in one piece",
		  idx && idx->cuts_guessed && idx->read_pieces >= 8,
		  "100,000 builds: cut at guessed boundaries, read in %zu pieces",
		  idx ? idx->read_pieces : 0);
	if (idx) {
		for (i = 0; i < n; i++) {
			char id[24];
			snprintf(id, sizeof id, "b%06zu", i);
			if (ab_index_find(idx, id, &err) == (ssize_t)i)
				found++;
		}
		tap_ok(found == n, "every id found at its position (%zu of %zu)", found, n);
		for (i = 0; i < n; i += 997) {
			char prefix[24];
			snprintf(prefix, sizeof prefix, "%016zx", i * 2654435761u % 1000003u);
			if (ab_index_find(idx, prefix, &err) == (ssize_t)i)
				by_commit++;
		}
		tap_ok(by_commit == (n + 996) / 997, "commit prefixes found (%zu)", by_commit);
		tap_ok(!strcmp(idx->builds[n - 1].artifacts[0].url, "http://h:1/farm/rpms/k-99999.rpm") &&
		       idx->builds[n - 1].artifacts[0].size == 99999, "last build's artifact");
	}
	ab_index_free(idx);
	ab_buf_free(&b);
}


/* A big index is read by two threads, a half each: the faults they find
 * must be named as one thread would, first in document order, a
 * duplicate id as soon as its build is read. */
struct swap {
	size_t at;
	const char *json;	/* the build at that position, instead */
};

static ab_index *big_with(size_t n, const struct swap *sw, size_t nsw, ab_error *err)
{
	ab_buf b = {0};
	ab_index *idx;
	size_t i, k;

	ab_buf_puts(&b, HEAD "\"builds\":[\n");
	for (i = 0; i < n; i++) {
		const char *own = NULL;

		for (k = 0; k < nsw; k++)
			if (sw[k].at == i)
				own = sw[k].json;
		if (i)
			ab_buf_puts(&b, ",");
		if (own)
			ab_buf_puts(&b, own);
		else
			ab_buf_printf(&b, "{\"id\":\"b%06zu\",\"commit\":\"%040zx\",\"artifacts\":[" ART("x.rpm") "]}", i, i + 1);
		ab_buf_puts(&b, "\n");
	}
	ab_buf_puts(&b, "]}");
	ab_error_clear(err);
	idx = ab_index_parse(b.data, b.len, HTTP_URL, err);
	ab_buf_free(&b);
	return idx;
}

static void big_fault(const char *label, const struct swap *sw, size_t nsw, const char *want)
{
	ab_error err;
	ab_index *idx = big_with(10000, sw, nsw, &err);

	tap_ok(!idx && err.code == AB_EXIT_USAGE && strstr(err.msg, want),
	       "10,000 builds, %s: %s", label, idx ? "accepted" : err.msg);
	ab_index_free(idx);
}

static void test_big_faults(void)
{
	ab_error err;
	ab_index *idx;
	const char *dup10 = "{\"id\":\"b000010\",\"artifacts\":[" ART("x.rpm") "]}";
	const char *dup8000 = "{\"id\":\"b008000\",\"artifacts\":[" ART("x.rpm") "]}";
	const char *badstat = "{\"id\":\"zz\",\"status\":\"broken\"}";
	const char *dup10_badstat = "{\"id\":\"b000010\",\"status\":\"broken\"}";
	const char *broken = "{\"id\":\"yy\",}";

	idx = big_with(10000, NULL, 0, &err);
	tap_ok(idx && idx->nbuilds == 10000 && ab_index_find(idx, "b000000", &err) == 0 &&
	       ab_index_find(idx, "b009999", &err) == 9999 &&
	       ab_index_find(idx, "000000000000000000000000000000000000270f", &err) == 9998,
	       "10,000 builds: ids and commits of both halves found");
	ab_index_free(idx);
	/* Builds without a commit, or with one too short to look up, leave
	 * no gap in the table of commits the reading threads fill. */
	idx = big_with(10000, (struct swap[]){ { 3, "{\"id\":\"n3\",\"artifacts\":[" ART("x.rpm") "]}" },
					       { 6000, "{\"id\":\"n6000\",\"commit\":\"abc\",\"artifacts\":[" ART("x.rpm") "]}" },
					       { 9999, "{\"id\":\"n9999\",\"status\":\"failed\"}" } }, 3, &err);
	tap_ok(idx && ab_index_find(idx, "0000000000000000000000000000000000000005", &err) == 4 &&
	       ab_index_find(idx, "0000000000000000000000000000000000001770", &err) == 5999 &&
	       ab_index_find(idx, "0000000000000000000000000000000000001771", &err) < 0 &&
	       ab_index_find(idx, "0000000000000000000000000000000000001772", &err) == 6001 &&
	       ab_index_find(idx, "n6000", &err) == 6000 && ab_index_find(idx, "abc", &err) < 0 &&
	       ab_index_find(idx, "0000000000000000000000000000000000002710", &err) < 0 &&
	       ab_index_find(idx, "000000000000000000000000000000000000270f", &err) == 9998,
	       "10,000 builds, three without a commit to look up: the others' commits found");
	ab_index_free(idx);

	big_fault("an id of the first half again in the second",
		  (struct swap[]){ { 9000, dup10 } }, 1, "builds[9000].id: duplicate id 'b000010' (also builds[10])");
	big_fault("an id twice in the second half",
		  (struct swap[]){ { 9000, dup8000 } }, 1, "builds[9000].id: duplicate id 'b008000' (also builds[8000])");
	big_fault("a bad field before a duplicate id",
		  (struct swap[]){ { 9000, badstat }, { 9500, dup10 } }, 2, "builds[9000].status");
	big_fault("a duplicate id before a bad field",
		  (struct swap[]){ { 9000, dup10 }, { 9500, badstat } }, 2, "builds[9000].id: duplicate");
	big_fault("a duplicate id and a bad field in one build",
		  (struct swap[]){ { 9000, dup10_badstat } }, 1, "builds[9000].id: duplicate");
	big_fault("bad fields in both halves",
		  (struct swap[]){ { 100, badstat }, { 9000, badstat } }, 2, "builds[100].status");
	big_fault("a duplicate id in the first half, a bad field in the second",
		  (struct swap[]){ { 200, dup10 }, { 9000, badstat } }, 2, "builds[200].id: duplicate");
	big_fault("invalid JSON in the second half",
		  (struct swap[]){ { 9000, broken } }, 1, "invalid JSON at line 9002,");
	big_fault("invalid JSON in the first half, a bad field in the second",
		  (struct swap[]){ { 100, broken }, { 9000, badstat } }, 2, "invalid JSON at line 102,");
	big_fault("a missing comma in the second half",
		  (struct swap[]){ { 9000, "{\"id\":\"c1\",\"status\":\"failed\"}\n{\"id\":\"c2\",\"status\":\"failed\"}" } }, 1,
		  "invalid JSON at line 9003, column 1");
	big_fault("a missing comma in the first half",
		  (struct swap[]){ { 5, "{\"id\":\"c1\",\"status\":\"failed\"}\n{\"id\":\"c2\",\"status\":\"failed\"}" } }, 1,
		  "invalid JSON at line 8, column 1");
	big_fault("bad fields in four pieces of the middle",
		  (struct swap[]){ { 7000, badstat }, { 3100, badstat }, { 5200, badstat }, { 6100, dup10 } }, 4,
		  "builds[3100].status");

	{
		/* One build of 3000 artifacts (about 500 kB): more than the
		 * memory jansson gets per build while the index is read, so
		 * its values come from malloc and the scratch buffer both. */
		ab_buf big = {0};
		size_t i;

		ab_buf_puts(&big, "{\"id\":\"many\",\"commit\":\"feedfeedfeed\",\"artifacts\":[");
		for (i = 0; i < 3000; i++)
			ab_buf_printf(&big, "%s{\"url\":\"part-%04zu-of-many.tar.gz\",\"sha256\":\"" SHA_A "\",\"size\":%zu}",
				      i ? "," : "", i, i);
		ab_buf_puts(&big, "]}");
		idx = big_with(10000, (struct swap[]){ { 5000, big.data } }, 1, &err);
		tap_ok(idx && idx->builds[5000].nartifacts == 3000 &&
		       !strcmp(idx->builds[5000].artifacts[2999].filename, "part-2999-of-many.tar.gz") &&
		       idx->builds[5000].artifacts[1234].size == 1234 && ab_index_find(idx, "feedfeed", &err) == 5000 &&
		       ab_index_find(idx, "b009999", &err) == 9999,
		       "10,000 builds, one of them with 3000 artifacts: all read");
		ab_index_free(idx);
		ab_buf_free(&big);
	}
}

/* 20,000 builds (several MB) whose text is made by mk(i): the guesses
 * at the builds' boundaries where the array is cut, each proven (or
 * not) by the reading of the piece before it. */
static ab_index *shaped(void (*mk)(ab_buf *, size_t), ab_error *err)
{
	ab_buf b = {0};
	ab_index *idx;
	size_t i;

	ab_buf_puts(&b, HEAD "\"builds\":[");
	for (i = 0; i < 20000; i++) {
		if (i)
			ab_buf_puts(&b, ", ");
		mk(&b, i);
	}
	ab_buf_puts(&b, "], \"mirrors\": [\"http://m1/\", \"http://m2/\"]}");
	ab_error_clear(err);
	idx = ab_index_parse(b.data, b.len, HTTP_URL, err);
	ab_buf_free(&b);
	return idx;
}

/* Three artifacts a build: "}, {" between artifacts is no boundary. */
static void mk_three(ab_buf *b, size_t i)
{
	ab_buf_printf(b, "{\"id\":\"t%zu\",\"artifacts\":[" ART("a.rpm") ", " ART("b.rpm") ", "
		      "{\"url\":\"c-%zu.rpm\",\"sha256\":\"" SHA_A "\"}]}", i, i);
}

/* Strings full of what boundaries look like, escaped quotes included:
 * every guess may fall inside one. */
static void mk_tricky(ab_buf *b, size_t i)
{
	ab_buf_printf(b, "{\"id\":\"k%zu\",\"note\":\"}, {\\\"id\\\": \\\"x\\\"}, {}, {\\\\\", "
		      "\"artifacts\":[" ART("a.rpm") "]}", i);
}

/* Objects inside each build that start as builds do: guesses fall on
 * them, the scan finds out, and one thread scans the array. */
static void mk_nested(ab_buf *b, size_t i)
{
	ab_buf_printf(b, "{\"id\":\"n%zu\",\"deps\":[{\"id\":\"x\"}, {\"id\":\"y\"}, {\"id\":\"z\"}, "
		      "{\"id\":\"w\"}],\"artifacts\":[" ART("a.rpm") "]}", i);
}

/* One huge build in the middle of small ones. */
static void mk_one_huge(ab_buf *b, size_t i)
{
	size_t k;

	if (i != 10000) {
		ab_buf_printf(b, "{\"id\":\"h%zu\",\"artifacts\":[" ART("a.rpm") "]}", i);
		return;
	}
	ab_buf_printf(b, "{\"id\":\"h%zu\",\"artifacts\":[", i);
	for (k = 0; k < 30000; k++)
		ab_buf_printf(b, "%s{\"url\":\"p%zu.rpm\",\"sha256\":\"" SHA_A "\"}", k ? ", " : "", k);
	ab_buf_puts(b, "]}");
}

/* Big builds first, then small ones: the first piece's builds are far
 * fewer than its share, so the index and its table must grow as the
 * later pieces come in. */
static void mk_big_first(ab_buf *b, size_t i)
{
	size_t k;

	if (i >= 300) {
		ab_buf_printf(b, "{\"id\":\"s%zu\",\"artifacts\":[" ART("a.rpm") "]}", i);
		return;
	}
	ab_buf_printf(b, "{\"id\":\"s%zu\",\"artifacts\":[", i);
	for (k = 0; k < 40; k++)
		ab_buf_printf(b, "%s{\"url\":\"p%zu-%zu.rpm\",\"sha256\":\"" SHA_A "\"}", k ? ", " : "", i, k);
	ab_buf_puts(b, "]}");
}

static void test_guessed_cuts(void)
{
	int cores = sysconf(_SC_NPROCESSORS_ONLN) >= 2;
	ab_error err = {0};
	ab_index *idx;

	idx = shaped(mk_three, &err);
	tap_ok(idx && idx->nbuilds == 20000 && idx->builds[19999].nartifacts == 3 &&
	       !strcmp(idx->builds[12345].artifacts[2].filename, "c-12345.rpm") &&
	       ab_index_find(idx, "t15000", &err) == 15000 && idx->nmirrors == 2,
	       "three artifacts a build: every build read");
	tap_ok_if(cores, "one core: read in one piece",
		  idx && idx->cuts_guessed, "three artifacts a build: cut at guessed boundaries");
	ab_index_free(idx);

	idx = shaped(mk_tricky, &err);
	tap_ok(idx && idx->nbuilds == 20000 && ab_index_find(idx, "k19999", &err) == 19999 &&
	       ab_index_find(idx, "k7777", &err) == 7777,
	       "boundaries inside strings: every build read, each in its place%s%s",
	       idx ? "" : ": ", idx ? "" : err.msg);
	ab_index_free(idx);

	idx = shaped(mk_nested, &err);
	tap_ok(idx && idx->nbuilds == 20000 && ab_index_find(idx, "n19999", &err) == 19999 &&
	       ab_index_find(idx, "n4321", &err) == 4321,
	       "objects inside builds that look like builds: every build read");
	tap_ok_if(cores, "one core: read in one piece",
		  idx && !idx->cuts_guessed && idx->read_pieces >= 8,
		  "... cut where a scan found boundaries after the guesses failed, read in %zu pieces",
		  idx ? idx->read_pieces : 0);
	ab_index_free(idx);

	idx = shaped(mk_big_first, &err);
	{
		size_t i, found = 0;

		for (i = 0; idx && i < idx->nbuilds; i++) {
			char id[24];

			snprintf(id, sizeof id, "s%zu", i);
			found += ab_index_find(idx, id, &err) == (ssize_t)i;
		}
		tap_ok(idx && idx->nbuilds == 20000 && found == 20000 && idx->builds[299].nartifacts == 40 &&
		       !strcmp(idx->builds[299].artifacts[39].filename, "p299-39.rpm"),
		       "big builds first, small ones after: every build read and found (%zu)", found);
		tap_ok_if(cores, "one core: read in one piece",
			  idx && idx->cuts_guessed && idx->read_pieces >= 8,
			  "... cut at guesses, read in %zu pieces", idx ? idx->read_pieces : 0);
	}
	ab_index_free(idx);

	idx = shaped(mk_one_huge, &err);
	tap_ok(idx && idx->nbuilds == 20000 && idx->builds[10000].nartifacts == 30000 &&
	       ab_index_find(idx, "h10001", &err) == 10001 && ab_index_find(idx, "h19999", &err) == 19999,
	       "one build of 30,000 artifacts among small ones: every build read");
	ab_index_free(idx);
}

int main(void)
{
	test_big();
	test_big_faults();
	test_guessed_cuts();
	return tap_done();
}
