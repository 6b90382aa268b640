/* cache.c - see cache.h. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cache.h"
#include "i18n.h"
#include "util.h"

struct ab_cache {
	char *dir;
	char *entries;		/* DIR/sha256 */
	char *tmp;		/* DIR/tmp */
};

static int ensure_dir(const char *path, ab_error *err)
{
	if (ab_mkdir_p(path) < 0 || access(path, W_OK | X_OK) < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cache directory %s is not writable: %s"),
			     path, strerror(errno));
		return -1;
	}
	return 0;
}

ab_cache *ab_cache_open(const char *dir, ab_error *err)
{
	ab_cache *c = ab_xcalloc(1, sizeof *c);

	c->dir = ab_xstrdup(dir);
	c->entries = ab_path_join(dir, "sha256");
	c->tmp = ab_path_join(dir, "tmp");
	if (ensure_dir(c->entries, err) < 0 || ensure_dir(c->tmp, err) < 0) {
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

bool ab_cache_has(const ab_cache *c, const char *sha256)
{
	char *p = ab_cache_entry_path(c, sha256);
	struct stat st;
	bool has = stat(p, &st) == 0 && S_ISREG(st.st_mode);
	free(p);
	return has;
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

int ab_cache_commit(const ab_cache *c, int fd, const char *tmp_path,
		    const char *sha256, ab_error *err)
{
	char *dest = ab_cache_entry_path(c, sha256);
	int rc = 0;

	/* Entries are read-only: nothing should ever change a verified file. */
	if (fchmod(fd, 0444) < 0 || fsync(fd) < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot write %s: %s"), tmp_path, strerror(errno));
		rc = -1;
	}
	if (close(fd) < 0 && rc == 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot write %s: %s"), tmp_path, strerror(errno));
		rc = -1;
	}
	if (rc == 0 && rename(tmp_path, dest) < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot move %s to %s: %s"),
			     tmp_path, dest, strerror(errno));
		rc = -1;
	}
	if (rc < 0)
		unlink(tmp_path);
	else
		fsync_dir(c->entries);
	free(dest);
	return rc;
}
