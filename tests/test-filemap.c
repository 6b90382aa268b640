/* test-filemap.c - a local file read in place: what it maps, what it
 * refuses, and a file cut short or rewritten under the mapping. Real
 * files in a temporary directory, real truncation, a real SIGBUS. */
#include "config.h"
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/filemap.h"
#include "index/index.h"
#include "tap.h"
#include "base/rmtree.h"
#include "base/util.h"

#define MB ((size_t)1 << 20)

static char dir[] = "/tmp/ab-filemap.XXXXXX";

/* A file of n bytes, byte i = 'a' + i % 26; old: left alone for 150 ms
 * (a file written this instant is not mapped). */
static char *make_file(const char *name, size_t n, int old)
{
	char *path = ab_path_join(dir, name);
	char *buf = ab_xmalloc(n);
	FILE *f = fopen(path, "wb");
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = (char)('a' + i % 26);
	if (!f || fwrite(buf, 1, n, f) != n || fclose(f) != 0)
		abort();
	free(buf);
	if (old)
		usleep(150000);
	return path;
}

static int pattern_ok(const char *d, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		if (d[i] != (char)('a' + i % 26))
			return 0;
	return 1;
}

/* A map of a file that changes under it: cut short, written in place,
 * replaced by rename. */
static void test_changes(void)
{
	ab_filemap *m;
	char *p, *q;
	const char *d;
	size_t i;
	int zeros, fd;

	/* A plain file: mapped, every byte as written, unchanged. */
	p = make_file("plain", 2 * MB + 123, 1);
	m = ab_filemap_open(p, MB, 4 * MB);
	tap_ok(m != NULL, "a 2 MB file written 150 ms ago is mapped");
	if (!m) {
		free(p);
		return;
	}
	tap_ok(ab_filemap_len(m) == 2 * MB + 123, "its length");
	tap_ok(pattern_ok(ab_filemap_data(m), 0, 2 * MB + 123), "its bytes");
	tap_ok(!ab_filemap_changed(m), "not changed");

	/* Cut short under the mapping: reading past the cut neither kills
	 * the program nor shows old bytes, and the map says it changed. */
	if (truncate(p, MB + 10) != 0)
		abort();
	d = ab_filemap_data(m);
	zeros = 1;
	for (i = MB + 4096; i < 2 * MB + 123; i += 4096)
		if (d[i] != 0)
			zeros = 0;
	tap_ok(zeros, "cut short: the pages past the cut read as zeros");
	tap_ok(pattern_ok(d, 0, MB + 10), "cut short: the bytes before the cut are intact");
	tap_ok(ab_filemap_changed(m), "cut short: changed");
	ab_filemap_close(m);
	free(p);

	/* Written in place, size unchanged: changed. */
	p = make_file("inplace", 2 * MB, 1);
	m = ab_filemap_open(p, MB, 4 * MB);
	tap_ok(m != NULL, "in place: mapped");
	usleep(20000);
	fd = open(p, O_WRONLY);
	if (fd < 0 || pwrite(fd, "Z", 1, 100) != 1 || close(fd) != 0)
		abort();
	tap_ok(m && ab_filemap_changed(m), "a byte written in place: changed");
	ab_filemap_close(m);

	/* Replaced by rename (how farms should publish): the map keeps the
	 * old file, unchanged. */
	usleep(150000);
	m = ab_filemap_open(p, MB, 4 * MB);
	q = make_file("new", 3 * MB, 1);
	if (rename(q, p) != 0)
		abort();
	tap_ok(m && !ab_filemap_changed(m), "replaced by rename: the old file, unchanged");
	tap_ok(m && ab_filemap_len(m) == 2 * MB && ab_filemap_data(m)[100] == 'Z',
	       "replaced by rename: the old bytes");
	ab_filemap_close(m);
	free(q);
	free(p);
}

/* What is not mapped. */
static void test_not_mapped(void)
{
	char *p;

	p = make_file("small", MB - 1, 1);
	tap_ok(ab_filemap_open(p, MB, 4 * MB) == NULL, "smaller than the minimum: not mapped");
	free(p);
	p = make_file("big", 5 * MB, 1);
	tap_ok(ab_filemap_open(p, MB, 4 * MB) == NULL, "larger than the maximum: not mapped");
	free(p);
	p = make_file("fresh", 2 * MB, 0);
	tap_ok(ab_filemap_open(p, MB, 4 * MB) == NULL, "written a moment ago: not mapped");
	free(p);
	p = ab_path_join(dir, "fifo");
	if (mkfifo(p, 0600) != 0)
		abort();
	tap_ok(ab_filemap_open(p, 0, 4 * MB) == NULL, "a FIFO: not mapped, and no hang");
	free(p);
	tap_ok(ab_filemap_open(dir, 0, 4 * MB) == NULL, "a directory: not mapped");
	p = ab_path_join(dir, "missing");
	tap_ok(ab_filemap_open(p, 0, 4 * MB) == NULL, "a missing file: not mapped");
	free(p);
}

/* A SIGBUS outside every map is still fatal, the handler in place. */
static void test_sigbus(void)
{
	ab_filemap *m;
	char *p, *q;
	int status;
	pid_t pid;

	p = make_file("other", 2 * MB, 1);
	m = ab_filemap_open(p, MB, 4 * MB);	/* installs the handler */
	tap_ok(m != NULL, "SIGBUS case: a map, and so its handler, is in place");
	q = make_file("raw", 2 * MB, 1);
	pid = fork();
	if (pid == 0) {
		int rfd = open(q, O_RDONLY);
		volatile const char *r = mmap(NULL, 2 * MB, PROT_READ, MAP_PRIVATE, rfd, 0);

		if (r == MAP_FAILED || truncate(q, 0) != 0)
			_exit(3);
		_exit(r[MB] == 'x' ? 4 : 5);
	}
	waitpid(pid, &status, 0);
	tap_ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS,
	       "a SIGBUS outside the maps still ends the program");
	ab_filemap_close(m);
	free(q);
	free(p);
}

/* ab_index_local_path: file URLs only, decoded. */
static void test_local_path(void)
{
	char *p;

	p = ab_index_local_path("file:///tmp/a%20b/index.json");
	tap_ok(p && !strcmp(p, "/tmp/a b/index.json"), "file URL: decoded path (%s)", p ? p : "NULL");
	free(p);
	p = ab_index_local_path("file://localhost/srv/i.json");
	tap_ok(p && !strcmp(p, "/srv/i.json"), "file://localhost: the path");
	free(p);
	tap_ok(ab_index_local_path("file://otherhost/srv/i.json") == NULL, "another host: no path");
	tap_ok(ab_index_local_path("http://127.0.0.1/i.json") == NULL, "http: no path");
	tap_ok(ab_index_local_path("file:///tmp/a%00b") == NULL, "an encoded NUL: no path");
}

int main(void)
{
	if (!mkdtemp(dir))
		return 99;
	test_changes();
	test_not_mapped();
	test_sigbus();
	test_local_path();
	ab_remove_tree(dir);
	return tap_done();
}
