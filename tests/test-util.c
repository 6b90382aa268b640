/* test-util.c - the arena, big buffers and the background atomic write. */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/arena.h"
#include "base/util.h"
#include "tap.h"

static int aligned16(const void *p)
{
	return ((uintptr_t)p & 15) == 0;
}

/* Many small pieces, some big ones in between: every piece keeps what
 * was written into it, none overlaps another, all are aligned. */
static void test_arena_pieces(void)
{
	enum { N = 200000 };
	ab_arena a = {0};
	char **strs = calloc(N, sizeof *strs);
	unsigned char *big[8];
	int ok_align = 1, ok_text = 1, ok_zero = 1, ok_big = 1, i;
	char want[64];

	for (i = 0; i < N; i++) {
		int n = snprintf(want, sizeof want, "piece-%d-%.*s", i, i % 40, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");

		strs[i] = ab_arena_strndup(&a, want, (size_t)n);
		/* Strings are packed; other pieces stay aligned after them. */
		if (i % 7 == 0)
			ok_align &= aligned16(ab_arena_calloc(&a, 24));
		if (i % 25000 == 0) {
			/* Bigger than a quarter chunk: a chunk of its own. */
			unsigned char *p = ab_arena_calloc(&a, (size_t)3 << 20);
			size_t k;

			ok_align &= aligned16(p);
			for (k = 0; k < (size_t)3 << 20; k += 4096)
				ok_zero &= p[k] == 0;
			memset(p, i / 25000 + 1, (size_t)3 << 20);
			big[i / 25000] = p;
		}
	}
	for (i = 0; i < N; i++) {
		snprintf(want, sizeof want, "piece-%d-%.*s", i, i % 40, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
		ok_text &= !strcmp(strs[i], want);
	}
	for (i = 0; i < 8; i++)
		ok_big &= big[i][0] == i + 1 && big[i][((size_t)3 << 20) - 1] == i + 1;
	tap_ok(ok_align, "arena pieces are 16-byte aligned among packed strings");
	tap_ok(ok_text, "200,000 arena strings keep their text");
	tap_ok(ok_zero, "ab_arena_calloc gives zeroed memory");
	tap_ok(ok_big, "big pieces in chunks of their own keep their bytes");
	ab_arena_clear(&a);
	tap_ok(!a.chunks && !a.left, "a cleared arena is empty");
	strs[0] = ab_arena_strndup(&a, "again", 5);
	tap_ok(!strcmp(strs[0], "again"), "a cleared arena can be used again");
	strs[1] = ab_arena_concat(&a, "https://farm/builds/", 20, "b1.tar.gzXX", 9);
	tap_ok(!strcmp(strs[1], "https://farm/builds/b1.tar.gz"), "ab_arena_concat joins two pieces");
	ab_arena_clear(&a);
	free(strs);
}

/* One arena's pieces moved into another outlive the first's reuse. */
static void test_arena_merge(void)
{
	ab_arena into = {0}, from = {0}, empty = {0};
	char *a1 = ab_arena_strndup(&into, "first", 5);
	char *b1 = ab_arena_strndup(&from, "second", 6);
	char *a2, *b2;

	ab_arena_merge(&into, &from);
	tap_ok(!from.chunks && !from.left, "the merged arena is left empty");
	b2 = ab_arena_strndup(&from, "third", 5);
	a2 = ab_arena_strndup(&into, "fourth", 6);
	tap_ok(!strcmp(a1, "first") && !strcmp(b1, "second") && !strcmp(b2, "third") &&
	       !strcmp(a2, "fourth"), "pieces survive a merge and later use of both arenas");
	ab_arena_merge(&into, &empty);
	ab_arena_merge(&empty, &from);
	tap_ok(!strcmp(b2, "third") && empty.chunks && !from.chunks,
	       "merging into an empty arena hands over its chunks");
	ab_arena_clear(&into);
	ab_arena_clear(&empty);

	/* A NULL arena is plain malloc: the caller frees. */
	a1 = ab_arena_strndup(NULL, "heap", 4);
	b1 = ab_arena_calloc(NULL, 32);
	tap_ok(!strcmp(a1, "heap") && b1[0] == 0 && b1[31] == 0, "a NULL arena gives malloc'd pieces");
	free(a1);
	free(b1);
}

static void test_big_buffer(void)
{
	size_t n = (size_t)9 << 20;
	unsigned char *p = ab_xmalloc_big(n);
	ab_buf b = {0};

	memset(p, 0xab, n);
	p = ab_xrealloc(p, n * 2);
	tap_ok(p[0] == 0xab && p[n - 1] == 0xab, "a big buffer can be reallocated like any other");
	free(p);
	ab_buf_reserve(&b, (size_t)8 << 20);
	tap_ok(b.cap == (size_t)8 << 20 && b.len == 0, "ab_buf_reserve makes room without content");
	ab_buf_append(&b, "abc", 3);
	ab_buf_reserve(&b, 2);
	tap_ok(b.len == 3 && !strcmp(b.data, "abc") && b.cap == (size_t)8 << 20,
	       "a smaller reservation changes nothing");
	ab_buf_free(&b);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *d;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	d = malloc((size_t)n + 1);
	*len = fread(d, 1, (size_t)n, f);
	fclose(f);
	return d;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void test_pending_write(void)
{
	char dir[] = "/tmp/ab-test-util-XXXXXX", *path, *got;
	size_t n = (size_t)20 << 20, len = 0, i;
	char *data = malloc(n);
	ab_pending_write *w;
	ab_error err = {0};
	struct stat st;

	if (!mkdtemp(dir)) {
		tap_ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	for (i = 0; i < n; i++)
		data[i] = (char)('a' + i % 26);
	path = ab_path_join(dir, "snapshot");

	w = ab_write_begin(path, data, n, 0644);
	tap_ok(ab_write_finish(w, 1, &err) == 0, "a kept background write succeeds");
	got = slurp(path, &len);
	tap_ok(got && len == n && !memcmp(got, data, n), "the kept file holds every byte");
	tap_ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644, "the kept file has the mode asked for");
	tap_ok(count_entries(dir) == 1, "no temporary file is left beside it");
	free(got);

	/* A dropped write leaves the old file as it was. */
	memset(data, 'z', 100);
	w = ab_write_begin(path, data, n, 0644);
	ab_write_finish(w, 0, NULL);
	got = slurp(path, &len);
	tap_ok(got && len == n && got[0] == 'a', "a dropped write leaves the old file untouched");
	tap_ok(count_entries(dir) == 1, "a dropped write leaves no temporary file");
	free(got);
	tap_ok(ab_write_finish(NULL, 1, &err) == 0, "finishing no write is a no-op");

	/* A directory that is not there: the failure is said at finish. */
	free(path);
	path = ab_path_join(dir, "missing/snapshot");
	w = ab_write_begin(path, data, 10, 0644);
	tap_ok(ab_write_finish(w, 1, &err) < 0 && strstr(err.msg, "missing/snapshot") &&
	       strstr(err.msg, strerror(ENOENT)), "a write that cannot be made names the file and why: %s",
	       err.msg);

	free(path);
	path = ab_path_join(dir, "snapshot");
	unlink(path);
	rmdir(dir);
	free(path);
	free(data);
}

int main(void)
{
	test_arena_pieces();
	test_arena_merge();
	test_big_buffer();
	test_pending_write();
	return tap_done();
}
