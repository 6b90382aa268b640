/* unpack-fixture.c - the sandbox the unpack and tree-removal tests work
 * in, and the archives they unpack, written here with libarchive's
 * writer. Reports only through tap_diag: the results are the tests'. */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "base/rmtree.h"
#include "base/util.h"
#include "tap.h"
#include "unpack-fixture.h"

char *sandbox, *root, *outside, *arcdir;

unsigned char *noise(size_t n)
{
	unsigned char *p = ab_xmalloc(n ? n : 1);
	uint32_t x = 2463534242u;
	size_t i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (unsigned char)x;
	}
	return p;
}

/* Writes ARCDIR/file; 1 when done, 0 when this libarchive cannot write
 * that format or filter (the caller skips), -1 on failure. */
int build(const char *file, const char *format, const char *filter,
	  const struct ent *ents, size_t n, char **out)
{
	struct archive *a = archive_write_new();
	char *path = ab_path_join(arcdir, file);
	size_t i;
	int rc = 1;

	*out = path;
	if (archive_write_set_format_by_name(a, format) != ARCHIVE_OK) {
		archive_write_free(a);
		return 0;
	}
	if (filter && archive_write_add_filter_by_name(a, filter) != ARCHIVE_OK) {
		archive_write_free(a);
		return 0;
	}
	if (archive_write_open_filename(a, path) != ARCHIVE_OK) {
		tap_diag("open %s: %s", path, archive_error_string(a));
		archive_write_free(a);
		return -1;
	}
	for (i = 0; i < n; i++) {
		const struct ent *x = &ents[i];
		struct archive_entry *e = archive_entry_new();
		unsigned char *buf = NULL;
		size_t len = 0;

		archive_entry_set_pathname(e, x->name);
		archive_entry_set_perm(e, (mode_t)x->perm);
		archive_entry_set_mtime(e, 1600000000, 0);
		/* Our own ids: libarchive keeps setuid and setgid bits of
		 * entries owned by the extracting user. */
		archive_entry_set_uid(e, getuid());
		archive_entry_set_gid(e, getgid());
		switch (x->type) {
		case F:
			archive_entry_set_filetype(e, AE_IFREG);
			if (x->data) {
				len = strlen(x->data);
				buf = (unsigned char *)ab_xstrdup(x->data);
			} else {
				len = (size_t)x->size;
				buf = noise(len);
			}
			archive_entry_set_size(e, (la_int64_t)len);
			break;
		case S:
			archive_entry_set_filetype(e, AE_IFREG);
			archive_entry_set_size(e, x->size);
			archive_entry_sparse_add_entry(e, 0, 512);
			len = 512;
			buf = noise(len);
			break;
		case D:
			archive_entry_set_filetype(e, AE_IFDIR);
			break;
		case L:
			archive_entry_set_filetype(e, AE_IFLNK);
			archive_entry_set_symlink(e, x->data);
			break;
		case H:
			archive_entry_set_filetype(e, AE_IFREG);
			archive_entry_set_hardlink(e, x->data);
			archive_entry_set_size(e, 0);
			break;
		case C:
		case B:
			archive_entry_set_filetype(e, x->type == C ? AE_IFCHR : AE_IFBLK);
			archive_entry_set_rdev(e, makedev(1, 3));
			break;
		case P:
			archive_entry_set_filetype(e, AE_IFIFO);
			break;
		}
		if (archive_write_header(a, e) < ARCHIVE_WARN) {
			tap_diag("header %s: %s", x->name, archive_error_string(a));
			rc = -1;
		} else if (len && archive_write_data(a, buf, len) != (la_ssize_t)len) {
			tap_diag("data %s: %s", x->name, archive_error_string(a));
			rc = -1;
		}
		free(buf);
		archive_entry_free(e);
	}
	if (archive_write_close(a) != ARCHIVE_OK) {
		tap_diag("close %s: %s", path, archive_error_string(a));
		rc = -1;
	}
	archive_write_free(a);
	return rc;
}

char *write_bytes(const char *file, const void *data, size_t len)
{
	char *path = ab_path_join(arcdir, file);
	FILE *f = fopen(path, "wb");

	if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f) != 0)
		tap_diag("cannot write %s", path);
	return path;
}

/* ---- watching the sandbox ---- */

static ab_buf snap;
static size_t root_len;

static int snap_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)flag;
	(void)ftw;
	if (!strncmp(p, root, root_len) && (p[root_len] == '\0' || p[root_len] == '/'))
		return 0;
	ab_buf_printf(&snap, "%s %o %lld %lu %lld.%09ld\n", p, (unsigned)st->st_mode,
		      (long long)st->st_size, (unsigned long)st->st_nlink,
		      (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
	return 0;
}

/* Everything in the sandbox but the root, with /etc/passwd's state. */
char *snapshot(void)
{
	struct stat st;

	root_len = strlen(root);
	if (nftw(sandbox, snap_one, 16, FTW_PHYS) < 0)
		ab_buf_puts(&snap, "nftw failed\n");
	if (lstat("/etc/passwd", &st) == 0)
		ab_buf_printf(&snap, "/etc/passwd %o %lld %lu %lld\n", (unsigned)st.st_mode,
			      (long long)st.st_size, (unsigned long)st.st_nlink,
			      (long long)st.st_mtim.tv_sec);
	return ab_buf_steal(&snap);
}

void fresh_root(void)
{
	if (ab_remove_tree(root) < 0 || mkdir(root, 0755) < 0)
		tap_diag("cannot reset %s: %s", root, strerror(errno));
}

char *in_root(const char *rel)
{
	return ab_path_join(root, rel);
}

bool one_clean_line(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

bool exists_in(const char *dir, const char *rel)
{
	struct stat st;
	char *p = ab_path_join(dir, rel);
	bool r = lstat(p, &st) == 0;

	free(p);
	return r;
}

mode_t mode_of(const char *rel)
{
	struct stat st;
	char *p = in_root(rel);
	mode_t m = lstat(p, &st) == 0 ? st.st_mode : 0;

	free(p);
	return m;
}

char *file_text(const char *rel)
{
	char *p = in_root(rel), *data = NULL;
	size_t len;

	if (ab_read_file(p, 1 << 20, &data, &len, NULL) < 0)
		data = NULL;
	free(p);
	return data;
}

/* TMPDIR/name.XXXXXX with root/, archives/ and outside/keep.txt, the
 * file no archive may reach. */
bool fixture_open(const char *name)
{
	const char *tmp = getenv("TMPDIR");
	char *tmpl = ab_xasprintf("%s/%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
	char *keep;
	FILE *f;
	bool ok;

	umask(022);
	if (!mkdtemp(tmpl)) {
		printf("Bail out! mkdtemp %s: %s\n", tmpl, strerror(errno));
		free(tmpl);
		return false;
	}
	sandbox = tmpl;
	root = ab_path_join(sandbox, "root");
	outside = ab_path_join(sandbox, "outside");
	arcdir = ab_path_join(sandbox, "archives");
	keep = ab_path_join(outside, "keep.txt");
	ok = mkdir(outside, 0755) == 0 && mkdir(arcdir, 0755) == 0 && mkdir(root, 0755) == 0 &&
	     (f = fopen(keep, "w")) && fputs("keep\n", f) >= 0 && fclose(f) == 0;
	if (!ok)
		printf("Bail out! sandbox %s: %s\n", sandbox, strerror(errno));
	else
		tap_diag("sandbox %s, uid %d", sandbox, (int)getuid());
	free(keep);
	return ok;
}

void fixture_close(void)
{
	if (ab_remove_tree(sandbox) < 0)
		tap_diag("cannot remove %s: %s", sandbox, strerror(errno));
	free(root);
	free(outside);
	free(arcdir);
	free(sandbox);
}
