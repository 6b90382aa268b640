/* listing_dir.c - the listing of a farm's directory on the local disk
 * (listing.h, ab_listing_read_dir): the entries a web server's listing
 * of it would hold, read from the directory itself, so that a farm tree
 * copied to disk is read by the same layouts as one served over HTTP.
 *
 * Nothing leaves the farm's tree: a directory is opened by its real path
 * once that is found to lie inside the tree's, and a symbolic link in it
 * is an entry only when its target does too. Names are held to the rules
 * of listing.c. Never prints. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <curl/curl.h>

#include "farms/listing.h"
#include "farms/names.h"
#include "index/index.h"
#include "base/i18n.h"
#include "base/util.h"

/* Whether real (a real path) is root or below it. */
static bool inside(const char *root, const char *real)
{
	size_t n = strlen(root);

	if (n == 1 && root[0] == '/')
		return real[0] == '/';
	return !strncmp(real, root, n) && (real[n] == '\0' || real[n] == '/');
}

int ab_listing_local_inside(const char *root, const char *url, char **why)
{
	char *path = ab_index_local_path(url), *real;
	int rc = 0;

	*why = NULL;
	if (!path) {
		*why = ab_xasprintf(_("%s: not a local file"), url);
		return 1;
	}
	real = realpath(path, NULL);
	if (real && !inside(root, real)) {
		*why = ab_xasprintf(_("%s: a symbolic link that leaves the farm's directory %s; refused"),
				    path, root);
		rc = 1;
	}
	free(real);
	free(path);
	return rc;
}

/* name as a URL path segment (libcurl keeps RFC 3986's unreserved
 * characters), with a '/' after a directory's. */
static char *pct_encode(const char *name, bool slash)
{
	char *enc = curl_easy_escape(NULL, name, 0), *out;

	if (!enc)	/* only when out of memory, as ab_xmalloc */
		abort();
	out = ab_xasprintf("%s%s", enc, slash ? "/" : "");
	curl_free(enc);
	return out;
}

static void refuse(ab_listing *l, const char *name, const char *why)
{
	char q[128];

	if (!l->refused++)
		snprintf(l->refused_why, sizeof l->refused_why, _("entry \"%s\": %s"),
			 ab_farm_quote(name, strlen(name), q, sizeof q), _(why));
}

/* What entry name of the directory open at dfd (real path dir) is:
 * 1 with *st filled (a file or a directory, a link followed inside
 * root), 0 when it is no entry (a link out of the tree, a device). */
static int entry_stat(int dfd, const char *dir, const char *name, const char *root,
		      struct stat *st)
{
	char *p, *real;
	int ok;

	if (fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;	/* gone since it was read */
	if (S_ISLNK(st->st_mode)) {
		p = ab_path_join(dir, name);
		real = realpath(p, NULL);
		ok = real && inside(root, real) && stat(real, st) == 0;
		free(real);
		free(p);
		if (!ok)
			return 0;
	}
	return S_ISDIR(st->st_mode) || S_ISREG(st->st_mode);
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const ab_listing_entry *)a)->name, ((const ab_listing_entry *)b)->name);
}

/* The entries of the directory d (real path real) into l, by name. -1 with err
 * when there are too many. */
static int read_entries(ab_listing *l, DIR *d, const char *real, const char *root,
			const char *dir_url, const char *path, ab_error *err)
{
	size_t cap = 0;
	struct dirent *de;
	struct stat st;
	const char *why;
	char *enc;

	for (;;) {
		const char *name;
		ab_listing_entry *e;

		errno = 0;
		if (!(de = readdir(d))) {
			if (!errno)
				break;
			ab_error_set(err, AB_EXIT_USAGE, "%s: %s", path, strerror(errno));
			return -1;
		}
		name = de->d_name;
		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		if ((why = ab_listing_bad_name(name, strlen(name)))) {
			refuse(l, name, why);
			continue;
		}
		if (!entry_stat(dirfd(d), real, name, root, &st)) {
			l->dropped++;
			continue;
		}
		if (l->n >= AB_LISTING_MAX_ENTRIES) {
			ab_error_set(err, AB_EXIT_USAGE, _("%s: more than %u entries in one directory; refused"),
				     path, AB_LISTING_MAX_ENTRIES);
			return -1;
		}
		if (l->n == cap) {
			cap = cap ? 2 * cap : 64;
			l->entries = ab_xrealloc(l->entries, cap * sizeof *l->entries);
		}
		e = &l->entries[l->n++];
		e->name = ab_xstrdup(name);
		e->is_dir = S_ISDIR(st.st_mode);
		enc = pct_encode(name, e->is_dir);
		e->url = ab_xasprintf("%s%s", dir_url, enc);
		free(enc);
		e->size = e->is_dir ? -1 : (int64_t)st.st_size;
		e->mtime = (int64_t)st.st_mtime;
	}
	if (l->n)
		qsort(l->entries, l->n, sizeof *l->entries, cmp_entry);
	return 0;
}

/* The real path of the directory path, inside root: NULL with err
 * (and *missing) otherwise. path is the decoded path, for messages. */
static char *real_dir(const char *root, const char *path, bool *missing, ab_error *err)
{
	char *real = realpath(path, NULL);
	struct stat st;

	if (!real) {
		*missing = errno == ENOENT || errno == ENOTDIR;
		ab_error_set(err, AB_EXIT_USAGE, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (!inside(root, real)) {
		ab_error_set(err, AB_EXIT_USAGE,
			     _("%s: a symbolic link that leaves the farm's directory %s; refused"), path, root);
	} else if (stat(real, &st) < 0) {
		ab_error_set(err, AB_EXIT_USAGE, "%s: %s", path, strerror(errno));
	} else if (!S_ISDIR(st.st_mode)) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: not a directory"), path);
	} else {
		return real;
	}
	free(real);
	return NULL;
}

ab_listing *ab_listing_read_dir(const char *root, const char *dir_url, bool *missing,
				ab_error *err)
{
	char *path = ab_index_local_path(dir_url), *real = NULL, *url;
	ab_listing *l = NULL;
	size_t n = strlen(dir_url);
	DIR *d = NULL;
	int fd;

	*missing = false;
	if (!path) {
		ab_error_set(err, AB_EXIT_USAGE, _("%s: not a local directory"), dir_url);
		return NULL;
	}
	if (!(real = real_dir(root, path, missing, err)))
		goto out;
	fd = open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		ab_error_set(err, AB_EXIT_USAGE, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	url = n && dir_url[n - 1] == '/' ? ab_xstrdup(dir_url) : ab_xasprintf("%s/", dir_url);
	l = ab_xcalloc(1, sizeof *l);
	l->format = AB_LISTING_LOCAL;
	if (read_entries(l, d, real, root, url, path, err) < 0) {
		ab_listing_free(l);
		l = NULL;
	}
	free(url);
	closedir(d);
out:
	free(real);
	free(path);
	return l;
}

size_t ab_listing_read_dirs(const char *root, const char *const *urls, size_t n,
			    ab_listing **out, bool *missing, char **why)
{
	size_t i, read = 0;

	for (i = 0; i < n; i++) {
		ab_error e = {0};

		if ((out[i] = ab_listing_read_dir(root, urls[i], &missing[i], &e)))
			read++;
		else
			why[i] = ab_xstrdup(e.msg);
	}
	return read;
}

char *ab_listing_local_root(const char *url, bool lenient, ab_error *err)
{
	char *path = ab_index_local_path(url), *root;

	if (!path) {
		if (err)
			ab_error_set(err, AB_EXIT_USAGE, _("%s: not a directory on this machine"), url);
		return NULL;
	}
	root = realpath(path, NULL);
	if (!root && lenient)
		return path;
	if (!root && err)
		ab_error_set(err, AB_EXIT_USAGE, "%s: %s", path, strerror(errno));
	free(path);
	return root;
}
