/* cache.c - see cache.h. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/file.h>
#include <sys/statvfs.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>
#include "net/cache.h"
#include "base/digest.h"
#include "base/i18n.h"
#include "base/util.h"

struct ab_cache {
	char *dir;
	char *entries;		/* DIR/sha256 */
	char *tmp;		/* DIR/tmp */
	char *meta;		/* DIR/meta: the URL each entry came from */
	char *unsynced;		/* DIR/unsynced: entries not yet fsynced */
	char *pages;		/* DIR/pages: pages kept with their validators */
	char boot_id[40];	/* this boot's id; "" when unknown */
};

/* The kernel's id for this boot: an entry written without fsync is
 * safe to trust only while it is the same (a crash means a new boot). */
static void read_boot_id(char out[40])
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
	size_t n = 0;

	out[0] = '\0';
	if (!f)
		return;
	if (fgets(out, 40, f))
		n = strcspn(out, "\n");
	out[n] = '\0';
	fclose(f);
	if (n < 16)
		out[0] = '\0';
}

static int ensure_dir(const char *path, ab_error *err)
{
	if (ab_mkdir_p(path) < 0 || access(path, W_OK | X_OK) < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cache directory %s is not writable: %s"),
			     path, strerror(errno));
		return -1;
	}
	return 0;
}

ab_cache *ab_cache_open_to_read(const char *dir)
{
	ab_cache *c = ab_xcalloc(1, sizeof *c);

	c->dir = ab_xstrdup(dir);
	c->entries = ab_path_join(dir, "sha256");
	c->tmp = ab_path_join(dir, "tmp");
	c->meta = ab_path_join(dir, "meta");
	c->unsynced = ab_path_join(dir, "unsynced");
	c->pages = ab_path_join(dir, "pages");
	read_boot_id(c->boot_id);
	return c;
}

ab_cache *ab_cache_open(const char *dir, ab_error *err)
{
	ab_cache *c = ab_cache_open_to_read(dir);

	if (ensure_dir(c->entries, err) < 0 || ensure_dir(c->tmp, err) < 0 ||
	    ensure_dir(c->meta, err) < 0 || ensure_dir(c->unsynced, err) < 0 ||
	    ensure_dir(c->pages, err) < 0) {
		ab_cache_close(c);
		return NULL;
	}
	return c;
}

void ab_cache_close(ab_cache *c)
{
	if (!c)
		return;
	free(c->dir);
	free(c->entries);
	free(c->tmp);
	free(c->meta);
	free(c->unsynced);
	free(c->pages);
	free(c);
}

const char *ab_cache_dir(const ab_cache *c)
{
	return c->dir;
}

char *ab_cache_entry_path(const ab_cache *c, const char *sha256)
{
	return ab_xasprintf("%s/%s", c->entries, sha256);
}

/* (A file whose digest is not known beforehand has none to look up.) */
bool ab_cache_has(const ab_cache *c, const char *sha256)
{
	char *p;
	struct stat st;
	bool has;

	if (!sha256)
		return false;
	p = ab_cache_entry_path(c, sha256);
	has = stat(p, &st) == 0 && S_ISREG(st.st_mode);
	free(p);
	return has;
}

static char *marker_path(const ab_cache *c, const char *sha256)
{
	return ab_xasprintf("%s/%s", c->unsynced, sha256);
}

/* 1 when sha256's entry may not be on disk whole: it has a marker that
 * does not name this boot. 0 when it is synced or written in this boot. */
static int written_before_crash(const ab_cache *c, const char *sha256)
{
	char *p = marker_path(c, sha256), *data = NULL;
	size_t len = 0;
	ab_error err = {0};
	int rc;

	if (access(p, F_OK) < 0 && errno == ENOENT) {
		free(p);
		return 0;
	}
	/* After a crash the marker may be there but empty: not this boot. */
	rc = ab_read_file(p, 256, &data, &len, &err) < 0 || !c->boot_id[0] ||
	     len != strlen(c->boot_id) || memcmp(data, c->boot_id, len) != 0;
	free(data);
	free(p);
	return rc;
}

bool ab_cache_check(const ab_cache *c, const char *sha256)
{
	char *p, *m, got[65];
	ab_error err = {0};
	int fd;

	if (!ab_cache_has(c, sha256))
		return false;
	if (!written_before_crash(c, sha256))
		return true;
	/* Written without fsync before a reboot: the bytes on disk are only
	 * trusted once they match again; then they are made durable. */
	p = ab_cache_entry_path(c, sha256);
	m = marker_path(c, sha256);
	if (ab_sha256_file(p, got, &err) < 0 || strcmp(got, sha256) != 0) {
		ab_error_clear(&err);
		unlink(p);
		unlink(m);
		free(p);
		free(m);
		return false;
	}
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && fsync(fd) == 0)
		unlink(m);
	if (fd >= 0)
		close(fd);
	free(p);
	free(m);
	return true;
}

int ab_cache_tmp_open(const ab_cache *c, char **tmp_path, ab_error *err)
{
	char *path = ab_xasprintf("%s/dl-XXXXXX", c->tmp);
	int fd = mkostemp(path, O_CLOEXEC);

	if (fd < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot create a file in %s: %s"),
			     c->tmp, strerror(errno));
		free(path);
		return -1;
	}
	*tmp_path = path;
	return fd;
}

int ab_cache_part_open(const ab_cache *c, const char *sha256, char **part_path,
		       long long *have)
{
	char *path = ab_xasprintf("%s/%s.part", c->tmp, sha256);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	struct stat st;

	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0 || fstat(fd, &st) < 0 ||
	    !S_ISREG(st.st_mode) || lseek(fd, 0, SEEK_END) < 0) {
		if (fd >= 0)
			close(fd);
		free(path);
		return -1;
	}
	*part_path = path;
	*have = (long long)st.st_size;
	return fd;
}

static void fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* Notes that sha256's entry is about to appear without an fsync: a
 * marker naming this boot, itself on disk before the entry's rename.
 * -1 when it cannot be made (the caller then fsyncs as before). */
static int mark_unsynced(const ab_cache *c, const char *sha256)
{
	char *m = marker_path(c, sha256);
	size_t n = strlen(c->boot_id);
	int fd = -1, rc = -1;

	if (n)
		fd = open(m, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0) {
		rc = write(fd, c->boot_id, n) == (ssize_t)n ? 0 : -1;
		if (close(fd) < 0)
			rc = -1;
		if (rc == 0)
			fsync_dir(c->unsynced);
		else
			unlink(m);
	}
	free(m);
	return rc;
}

int ab_cache_commit(const ab_cache *c, int fd, const char *tmp_path,
		    const char *sha256, ab_error *err)
{
	char *dest = ab_cache_entry_path(c, sha256);
	int rc = 0, synced = 0;

	/* Entries are read-only: nothing should ever change a verified file.
	 * The bytes are not fsynced here (the page cache holds what was
	 * verified, and a caller waits for no disk): the marker makes a
	 * run after a crash check them again. */
	if (fchmod(fd, 0444) < 0) {
		rc = -1;
	} else if (mark_unsynced(c, sha256) < 0) {
		synced = 1;	/* no marker: the old way, fsync first */
		if (fsync(fd) < 0)
			rc = -1;
	}
	if (rc < 0)
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot write %s: %s"), tmp_path, strerror(errno));
	if (close(fd) < 0 && rc == 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot write %s: %s"), tmp_path, strerror(errno));
		rc = -1;
	}
	if (rc == 0 && rename(tmp_path, dest) < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot move %s to %s: %s"),
			     tmp_path, dest, strerror(errno));
		rc = -1;
	}
	if (rc < 0) {
		unlink(tmp_path);
		if (!synced) {
			char *m = marker_path(c, sha256);
			unlink(m);
			free(m);
		}
	} else if (synced) {
		fsync_dir(c->entries);
	}
	free(dest);
	return rc;
}

void ab_cache_touch(const ab_cache *c, const char *sha256)
{
	char *p;

	if (!sha256)
		return;
	p = ab_cache_entry_path(c, sha256);

	utimensat(AT_FDCWD, p, NULL, 0);	/* both times to now */
	free(p);
}

void ab_cache_note_url(const ab_cache *c, const char *sha256, const char *url)
{
	char *p, *tmp;
	FILE *f;

	if (!sha256 || !url)
		return;
	p = ab_xasprintf("%s/%s", c->meta, sha256);
	tmp = ab_xasprintf("%s.tmp", p);
	f = fopen(tmp, "w");

	/* Only a convenience for listings: failures are ignored. */
	if (f) {
		int bad = fprintf(f, "%s\n", url) < 0;

		if (fclose(f) != 0 || bad || rename(tmp, p) < 0)
			unlink(tmp);
	}
	free(tmp);
	free(p);
}

static int is_hex64(const char *s)
{
	size_t i;

	for (i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[64] == '\0';
}

static char *read_meta(const ab_cache *c, const char *sha256)
{
	char *p = ab_xasprintf("%s/%s", c->meta, sha256), *data = NULL;
	size_t len;
	ab_error err = {0};

	if (ab_read_file(p, 8192, &data, &len, &err) == 0) {
		while (len && (data[len - 1] == '\n' || data[len - 1] == '\r'))
			data[--len] = '\0';
	}
	free(p);
	return data;
}

static int by_use(const void *x, const void *y)
{
	const ab_cache_entry *a = x, *b = y;

	if (a->used != b->used)
		return a->used < b->used ? -1 : 1;
	return strcmp(a->sha256, b->sha256);
}

int ab_cache_list(const ab_cache *c, ab_cache_entry **out, size_t *n, ab_error *err)
{
	DIR *d = opendir(c->entries);
	struct dirent *de;
	ab_cache_entry *v = NULL;
	size_t cnt = 0, cap = 0;

	*out = NULL;
	*n = 0;
	if (!d) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot read %s: %s"), c->entries, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		struct stat st;
		char *p;

		if (!is_hex64(de->d_name))
			continue;
		p = ab_path_join(c->entries, de->d_name);
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
			if (cnt == cap) {
				cap = cap ? 2 * cap : 64;
				v = ab_xrealloc(v, cap * sizeof *v);
			}
			memcpy(v[cnt].sha256, de->d_name, 65);
			v[cnt].size = (int64_t)st.st_size;
			v[cnt].used = st.st_mtime;
			v[cnt].url = read_meta(c, de->d_name);
			cnt++;
		}
		free(p);
	}
	closedir(d);
	if (cnt)
		qsort(v, cnt, sizeof *v, by_use);
	*out = v;
	*n = cnt;
	return 0;
}

void ab_cache_entries_free(ab_cache_entry *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].url);
	free(v);
}

int64_t ab_cache_partial_bytes(const ab_cache *c)
{
	DIR *d = opendir(c->tmp);
	struct dirent *de;
	int64_t total = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		struct stat st;
		char *p;

		if (de->d_name[0] == '.')
			continue;
		p = ab_path_join(c->tmp, de->d_name);
		if (lstat(p, &st) == 0 && S_ISREG(st.st_mode))
			total += (int64_t)st.st_size;
		free(p);
	}
	closedir(d);
	return total;
}

static void remove_entry(const ab_cache *c, const char *sha256)
{
	char *p = ab_cache_entry_path(c, sha256);
	char *m = ab_xasprintf("%s/%s", c->meta, sha256);
	char *u = marker_path(c, sha256);

	unlink(p);
	unlink(m);
	unlink(u);
	free(p);
	free(m);
	free(u);
}

int64_t ab_cache_evict(const ab_cache *c, int64_t max, const char *const *keep, size_t nkeep)
{
	ab_cache_entry *v;
	size_t n, i, k;
	int64_t total = 0, freed = 0;
	ab_error err = {0};

	if (max < 0 || ab_cache_list(c, &v, &n, &err) < 0)
		return 0;
	for (i = 0; i < n; i++)
		total += v[i].size;
	for (i = 0; i < n && total > max; i++) {
		int kept = 0;

		for (k = 0; k < nkeep && !kept; k++)
			kept = keep[k] && !strcmp(keep[k], v[i].sha256);
		if (kept)
			continue;
		remove_entry(c, v[i].sha256);
		total -= v[i].size;
		freed += v[i].size;
	}
	ab_cache_entries_free(v, n);
	return freed;
}

/* Pages not read for older_than seconds (every one for 0), and what an
 * interrupted write left. */
static int64_t clean_pages(const ab_cache *c, time_t older_than, time_t now)
{
	DIR *d = opendir(c->pages);
	struct dirent *de;
	int64_t freed = 0;

	while (d && (de = readdir(d))) {
		struct stat st;
		char *p, *m;

		if (!strncmp(de->d_name, ".new-", 5)) {
			p = ab_path_join(c->pages, de->d_name);
			/* (One being written right now is young.) */
			if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) &&
			    (older_than > 0 || now - st.st_mtime > 3600) && unlink(p) == 0)
				freed += (int64_t)st.st_size;
			free(p);
			continue;
		}
		if (!is_hex64(de->d_name))
			continue;
		p = ab_path_join(c->pages, de->d_name);
		m = ab_xasprintf("%s.json", p);
		if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) &&
		    !(older_than > 0 && now - st.st_mtime < older_than)) {
			struct stat ms;

			if (lstat(m, &ms) == 0 && unlink(m) == 0)
				freed += (int64_t)ms.st_size;
			if (unlink(p) == 0)
				freed += (int64_t)st.st_size;
		}
		free(m);
		free(p);
	}
	if (d)
		closedir(d);
	/* Validators whose body is gone. */
	d = opendir(c->pages);
	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		struct stat st;
		char *p, *m;

		if (n != 69 || strcmp(de->d_name + 64, ".json"))
			continue;
		m = ab_path_join(c->pages, de->d_name);
		p = ab_xstrndup(m, strlen(m) - 5);
		if (lstat(p, &st) < 0 && errno == ENOENT && lstat(m, &st) == 0 && unlink(m) == 0)
			freed += (int64_t)st.st_size;
		free(p);
		free(m);
	}
	if (d)
		closedir(d);
	return freed;
}

int64_t ab_cache_clean(const ab_cache *c, time_t older_than)
{
	ab_cache_entry *v;
	size_t n, i;
	int64_t freed = 0;
	time_t now = time(NULL);
	ab_error err = {0};
	DIR *d;
	struct dirent *de;

	if (ab_cache_list(c, &v, &n, &err) == 0) {
		for (i = 0; i < n; i++) {
			if (older_than > 0 && now - v[i].used < older_than)
				continue;
			remove_entry(c, v[i].sha256);
			freed += v[i].size;
		}
		ab_cache_entries_free(v, n);
	}
	/* Partial downloads of any age: a later run starts them again. */
	d = opendir(c->tmp);
	while (d && (de = readdir(d))) {
		struct stat st;
		char *p;

		if (de->d_name[0] == '.')
			continue;
		p = ab_path_join(c->tmp, de->d_name);
		if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) && unlink(p) == 0)
			freed += (int64_t)st.st_size;
		free(p);
	}
	if (d)
		closedir(d);
	freed += clean_pages(c, older_than, now);
	/* Markers whose entry is gone (a crash between the two). */
	d = opendir(c->unsynced);
	while (d && (de = readdir(d))) {
		if (is_hex64(de->d_name) && !ab_cache_has(c, de->d_name)) {
			char *m = marker_path(c, de->d_name);
			unlink(m);
			free(m);
		}
	}
	if (d)
		closedir(d);
	return freed;
}

int64_t ab_cache_default_cap(const ab_cache *c)
{
	struct statvfs vfs;
	ab_cache_entry *v;
	size_t n, i;
	int64_t held = 0, cap;
	ab_error err = {0};

	if (ab_cache_list(c, &v, &n, &err) == 0) {
		for (i = 0; i < n; i++)
			held += v[i].size;
		ab_cache_entries_free(v, n);
	}
	if (statvfs(c->entries, &vfs) < 0)
		return (int64_t)1 << 32;
	cap = ((int64_t)vfs.f_bavail * (int64_t)vfs.f_frsize + held) / 4;
	return cap < AB_CACHE_CAP_FLOOR ? AB_CACHE_CAP_FLOOR : cap;
}

/* ---- pages ---- */

/* DIR/pages/<sha256 of url>: any URL, whatever its characters, is one
 * file name. */
static char *page_path(const ab_cache *c, const char *url)
{
	ab_sha256 *h = ab_sha256_new();
	char hex[65];

	ab_sha256_update(h, url, strlen(url));
	ab_sha256_final(h, hex);
	return ab_path_join(c->pages, hex);
}

void ab_cache_page_info_clear(ab_cache_page_info *info)
{
	free(info->etag);
	free(info->last_modified);
	free(info->effective_url);
	memset(info, 0, sizeof *info);
}

static char *json_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s && *s ? ab_xstrdup(s) : NULL;
}

/* The kept info of url: its JSON, or NULL when there is none that
 * belongs to url (a hash collision would be a wonder; a file written by
 * hand or half written is not). */
static json_t *page_meta(const ab_cache *c, const char *url)
{
	char *p = page_path(c, url), *m = ab_xasprintf("%s.json", p), *data = NULL;
	size_t len = 0;
	ab_error err = {0};
	json_t *o = NULL;

	if (ab_read_file(m, 65536, &data, &len, &err) == 0)
		o = json_loadb(data, len, 0, NULL);
	if (o && (!json_is_object(o) ||
		  !json_string_value(json_object_get(o, "url")) ||
		  strcmp(json_string_value(json_object_get(o, "url")), url) != 0 ||
		  !json_string_value(json_object_get(o, "sha256")) ||
		  !json_is_integer(json_object_get(o, "size")))) {
		json_decref(o);
		o = NULL;
	}
	free(data);
	free(m);
	free(p);
	return o;
}

int ab_cache_page_get(const ab_cache *c, const char *url, ab_cache_page_info *info)
{
	json_t *o = page_meta(c, url);
	char *p;
	struct stat st;

	memset(info, 0, sizeof *info);
	if (!o)
		return -1;
	p = page_path(c, url);
	/* Validators without their body are of no use: a 304 could not be
	 * answered. */
	if (stat(p, &st) == 0 && S_ISREG(st.st_mode) &&
	    (json_int_t)st.st_size == json_integer_value(json_object_get(o, "size"))) {
		info->etag = json_str(o, "etag");
		info->last_modified = json_str(o, "last_modified");
		info->effective_url = json_str(o, "effective_url");
	}
	free(p);
	json_decref(o);
	if (!info->etag && !info->last_modified) {
		ab_cache_page_info_clear(info);
		return -1;
	}
	return 0;
}

int ab_cache_page_read(const ab_cache *c, const char *url, size_t max, char **data, size_t *len)
{
	json_t *o = page_meta(c, url);
	char *p, *d = NULL, got[65];
	size_t n = 0;
	ab_error err = {0};
	ab_sha256 *h;
	int rc = -1;

	*data = NULL;
	*len = 0;
	if (!o)
		return -1;
	p = page_path(c, url);
	if (ab_read_file(p, max, &d, &n, &err) == 0) {
		h = ab_sha256_new();
		ab_sha256_update(h, d, n);
		ab_sha256_final(h, got);
		if (!strcmp(got, json_string_value(json_object_get(o, "sha256")))) {
			utimensat(AT_FDCWD, p, NULL, 0);	/* used: `clean --older-than` keeps it */
			*data = d;
			*len = n;
			d = NULL;
			rc = 0;
		}
	}
	free(d);
	free(p);
	json_decref(o);
	return rc;
}

/* Writes len bytes to a fresh file in DIR/pages and renames it to dest. */
static int page_write(const ab_cache *c, const char *dest, const char *data, size_t len,
		      ab_error *err)
{
	char *tmp = ab_xasprintf("%s/.new-XXXXXX", c->pages);
	int fd = mkostemp(tmp, O_CLOEXEC), rc = 0;
	size_t off = 0;

	if (fd < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot create a file in %s: %s"),
			     c->pages, strerror(errno));
		free(tmp);
		return -1;
	}
	while (off < len && rc == 0) {
		ssize_t w = write(fd, data + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			rc = -1;
		else
			off += (size_t)w;
	}
	/* (mkostemp makes it 0600; the cache's other files are readable.) */
	if (rc == 0 && fchmod(fd, 0644) < 0)
		rc = -1;
	if (close(fd) < 0)
		rc = -1;
	if (rc == 0 && rename(tmp, dest) < 0)
		rc = -1;
	if (rc < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot write %s: %s"), dest, strerror(errno));
		unlink(tmp);
	}
	free(tmp);
	return rc;
}

int ab_cache_page_put(const ab_cache *c, const char *url, const ab_cache_page_info *info,
		      const char *data, size_t len, ab_error *err)
{
	char *p = page_path(c, url), *m = ab_xasprintf("%s.json", p), *doc;
	ab_sha256 *h = ab_sha256_new();
	char hex[65];
	json_t *o;
	int rc;

	ab_sha256_update(h, data, len);
	ab_sha256_final(h, hex);
	o = json_pack("{s:s, s:s, s:I}", "url", url, "sha256", hex, "size", (json_int_t)len);
	if (!o) {
		/* A URL JSON cannot hold (not UTF-8): that page is not kept. */
		ab_cache_page_forget(c, url);
		free(m);
		free(p);
		return 0;
	}
	/* (Validators JSON cannot hold are left out, as if not sent.) */
	if (info->etag)
		json_object_set_new(o, "etag", json_string(info->etag));
	if (info->last_modified)
		json_object_set_new(o, "last_modified", json_string(info->last_modified));
	if (info->effective_url)
		json_object_set_new(o, "effective_url", json_string(info->effective_url));
	doc = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (!doc)
		abort();	/* only out of memory */
	/* The body first: old validators with a new body only cost a 200. */
	rc = page_write(c, p, data, len, err);
	if (rc == 0)
		rc = page_write(c, m, doc, strlen(doc), err);
	if (rc < 0) {
		unlink(m);
		unlink(p);
	}
	free(doc);
	free(m);
	free(p);
	return rc;
}

void ab_cache_page_forget(const ab_cache *c, const char *url)
{
	char *p = page_path(c, url), *m = ab_xasprintf("%s.json", p);

	unlink(m);
	unlink(p);
	free(m);
	free(p);
}
