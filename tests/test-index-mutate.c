/* test-index-mutate.c - index documents with bytes inserted, deleted
 * and replaced: each is parsed into an index that holds together or
 * refused in one line, never a crash (the sanitizer build runs this
 * too); a big document mutated near the places it is cut gives several
 * threads what it gives one. */
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
#include "rng.h"
#include "tap.h"

/* Mutated documents, bytes inserted, deleted and replaced anywhere: each
 * must give an index that holds together or one line with AB_EXIT_USAGE,
 * and never crash (the sanitizer build of this test means it). */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	return xorshift64s(&rng);
}

static const char *const seeds[] = {
	HEAD "\"name\":\"n\",\"vcs\":{\"type\":\"git\",\"compare_url\":\"https://g/{old}..{new}\"},\"builds\":["
	"{\"id\":\"a\",\"commit\":\"0123456789\",\"date\":\"d\",\"version\":\"v\",\"artifacts\":[{\"url\":\"rpms/x.rpm\","
	"\"sha256\":\"" SHA_A "\",\"size\":12,\"type\":\"rpm\",\"name\":\"k\"}]},"
	"{\"id\":\"b\",\"status\":\"failed\",\"artifacts\":[{}]}," BUILD("c") "]}",
	"{\"x\":[1,-2.5e+3,0,true,false,null,{\"c\":\"d\\n\\u00e9\\ud83d\\ude00\"}],\"format\":\"artbisect-index\","
	"\"version\":1,\"builds\":[{\"id\":\"caf\\u00e9\",\"status\":\"ok\",\"artifacts\":["
	"{\"url\":\"../a b/y.tar.gz\",\"sha256\":\"" SHA_B "\"},{\"url\":\"https://o/x.zip\",\"sha256\":\"" SHA_A "\"},"
	"{\"url\":\"//h/x.deb\",\"sha256\":\"" SHA_A "\"},{\"url\":\"dl?id=3\",\"sha256\":\"" SHA_A "\",\"type\":\"file\"}]}]}",
	"\xef\xbb\xbf{\n \"format\": \"artbisect-index\",\n \"version\": 1,\n \"builds\": [\n  "
	BUILD("1") ",\n  " BUILD("2") ",\n  {\"id\": \"3\", \"commit\": \"abcdefabcdef\", \"artifacts\": ["
	ART("k+1~x@y,z;a=b.rpm") "]}\n ]\n}\n",
};

static const char *const pieces[] = {
	"\"", "\\", "\\u", "\\ud800", "\\udc00", "\\u0000", "{", "}", "[", "]", ",", ":", "0", "-",
	".", "e", "+", "1", "tru", "nul", " ", "\t", "\n", "\x01", "\x7f", "\xc3", "\xa9", "\xed\xa0\x80",
	"\xf4\x90\x80\x80", "\xc0\x80", "\xe2\x82", "\xff", "\\/", "\\x", "\"a\":", "\"\":1", "00", "-0",
	"1e999", "99999999999999999999", "\"id\":\"a\",", "\"status\":\"failed\",", "\"artifacts\":[],",
	"\"url\":\"ftp://h/x\",", "\"sha256\":\"" SHA_B "\",", "\"type\":\"zip\",", "\"size\":-1,",
	"..", "%2F", "/", "file:", "{}", "[]", "\"x.bin\"", "\"\"",
};

/* What a refusal must look like, or what must hold in an accepted index;
 * NULL when all is well. */
static const char *check_result(const ab_index *idx, const ab_error *err)
{
	size_t i, j;
	const char *s;

	if (!idx) {
		if (err->code != AB_EXIT_USAGE)
			return "refused with another exit status";
		if (strncmp(err->msg, "index.json: ", 12))
			return "refused without the label";
		for (s = err->msg; *s; s++)
			if ((unsigned char)*s < 0x20 || *s == 0x7f)
				return "refused with a control character in the message";
		return NULL;
	}
	if (!idx->nbuilds)
		return "accepted without builds";
	for (i = 0; i < idx->nbuilds; i++) {
		const ab_build *b = &idx->builds[i];
		ab_error e;

		if (!b->id || !*b->id || ab_index_find(idx, b->id, &e) != (ssize_t)i)
			return "accepted a build that cannot be found by its id";
		if (b->failed ? b->nartifacts != 0 : b->nartifacts == 0)
			return "accepted a build with the wrong number of artifacts";
		for (j = 0; j < b->nartifacts; j++) {
			const ab_artifact *a = &b->artifacts[j];
			if (!a->url || !a->filename || !*a->filename || strlen(a->sha256) != 64 ||
			    strncmp(a->url, "http", 4) || a->size < -1)
				return "accepted an artifact that does not hold together";
		}
	}
	return NULL;
}

static void test_mutations(void)
{
	const int rounds = 20000;
	int i, accepted = 0, bad = 0;
	char first_bad[1400] = "";

	for (i = 0; i < rounds; i++) {
		const char *seed = seeds[rnd() % (sizeof seeds / sizeof seeds[0])];
		ab_buf v = {0};
		ab_error err;
		ab_index *idx;
		const char *why;
		int k, edits = 1 + (int)(rnd() % 3);

		ab_buf_puts(&v, seed);
		for (k = 0; k < edits; k++) {
			size_t at = (size_t)(rnd() % (v.len + 1));
			ab_buf out = {0};
			int op = (int)(rnd() % 3);
			const char *piece = pieces[rnd() % (sizeof pieces / sizeof pieces[0])];

			ab_buf_append(&out, v.data, at);
			if (op == 0)		/* insert */
				ab_buf_puts(&out, piece);
			else if (op == 1 && at < v.len)	/* delete a byte */
				at++;
			else if (at < v.len) {	/* replace a byte */
				ab_buf_puts(&out, piece);
				at++;
			}
			if (at < v.len)
				ab_buf_append(&out, v.data + at, v.len - at);
			ab_buf_free(&v);
			v = out;
			if (!v.data)
				ab_buf_puts(&v, "");
		}
		ab_error_clear(&err);
		idx = ab_index_parse(v.data, v.len, HTTP_URL, &err);
		accepted += idx != NULL;
		why = check_result(idx, &err);
		if (why && !bad++)
			snprintf(first_bad, sizeof first_bad, "%s (%.300s): %.900s", why,
				 idx ? "" : err.msg, v.data);
		ab_index_free(idx);
		ab_buf_free(&v);
	}
	tap_ok(!bad && accepted > rounds / 50 && accepted < rounds - rounds / 50,
	       "%d mutated documents parsed or refused in one line (%d accepted, %d wrong)",
	       rounds, accepted, bad);
	if (*first_bad)
		tap_diag("%s", first_bad);
}

/* Both results the same: refused with one message, or the same builds
 * in the same places. NULL when they are. */
static const char *same_result(const ab_index *a, const ab_error *ea, const ab_index *b,
			       const ab_error *eb)
{
	size_t i, j;

	if (!a || !b)
		return !a && !b && ea->code == eb->code && !strcmp(ea->msg, eb->msg) ? NULL
			: "one refused, the other not, or refused differently";
	if (a->nbuilds != b->nbuilds)
		return "different numbers of builds";
	for (i = 0; i < a->nbuilds; i++) {
		const ab_build *x = &a->builds[i], *y = &b->builds[i];

		if (strcmp(x->id, y->id) || x->nartifacts != y->nartifacts || x->failed != y->failed)
			return "a different build";
		for (j = 0; j < x->nartifacts; j++)
			if (strcmp(x->artifacts[j].url, y->artifacts[j].url) ||
			    strcmp(x->artifacts[j].sha256, y->artifacts[j].sha256))
				return "a different artifact";
	}
	return NULL;
}

/* A big document (read in pieces, cut at guesses) mutated near the
 * places it is cut and anywhere else: what several threads make of it
 * is what one thread makes of it. */
static void test_big_mutations(void)
{
	const int rounds = 120;
	ab_buf base = {0};
	size_t i;
	int r, bad = 0, refused = 0;
	char first_bad[600] = "";

	ab_buf_puts(&base, HEAD "\"builds\":[\n");
	for (i = 0; i < 8000; i++) {
		if (i)
			ab_buf_puts(&base, ",\n");
		if (i % 7 == 3)
			ab_buf_printf(&base, "{\"id\":\"m%zu\",\"artifacts\":[" ART("a.rpm") ", " ART("b.rpm") "]}", i);
		else
			ab_buf_printf(&base, "{\"id\":\"m%zu\",\"commit\":\"%040zx\",\"note\":\"}, {\\\"id\\\"\","
				      "\"artifacts\":[" ART("x.rpm") "]}", i, i);
	}
	ab_buf_puts(&base, "]}\n");
	for (r = 0; r < rounds; r++) {
		ab_buf v = {0};
		ab_index *one, *many;
		ab_error e1 = {0}, e2 = {0};
		const char *why;
		int k, edits = 1 + (int)(rnd() % 3);

		ab_buf_append(&v, base.data, base.len);
		for (k = 0; k < edits; k++) {
			/* Half the edits within 300 bytes after a cut's place. */
			size_t at = rnd() % 2 ? (size_t)(rnd() % v.len)
					      : (1 + rnd() % 63) * (v.len / 64) + (size_t)(rnd() % 300);
			const char *piece = pieces[rnd() % (sizeof pieces / sizeof pieces[0])];
			ab_buf out = {0};
			size_t drop;

			if (at >= v.len)
				at = v.len - 1;
			drop = (size_t)(rnd() % 2);	/* insert, or replace a byte */

			ab_buf_append(&out, v.data, at);
			ab_buf_puts(&out, piece);
			ab_buf_append(&out, v.data + at + drop, v.len - at - drop);
			ab_buf_free(&v);
			v = out;
		}
		ab_index_set_threads(1);
		one = ab_index_parse(v.data, v.len, HTTP_URL, &e1);
		ab_index_set_threads(0);
		many = ab_index_parse(v.data, v.len, HTTP_URL, &e2);
		refused += !many;
		why = same_result(one, &e1, many, &e2);
		if (!why)
			why = check_result(many, &e2);
		if (why && !bad++)
			snprintf(first_bad, sizeof first_bad, "%s: one thread: %.250s; several: %.250s", why,
				 one ? "accepted" : e1.msg, many ? "accepted" : e2.msg);
		ab_index_free(one);
		ab_index_free(many);
		ab_error_clear(&e1);
		ab_error_clear(&e2);
		ab_buf_free(&v);
	}
	ab_buf_free(&base);
	tap_ok(!bad && refused > 0 && refused < rounds,
	       "%d mutated big documents: several threads make of each what one does (%d refused, %d differ)",
	       rounds, refused, bad);
	if (*first_bad)
		tap_diag("%s", first_bad);
}

int main(void)
{
	test_big_mutations();
	test_mutations();
	return tap_done();
}
