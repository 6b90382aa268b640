/* unpack_archive.c - the checked extraction of one archive, in the
 * helper process (unpack_helper.c starts it; unpack.h says what is
 * refused and why).
 *
 * Every entry is checked before libarchive sees it, and libarchive's own
 * SECURE_* checks stay on underneath as a second line. Refused, for the
 * whole artifact: ".." anywhere in a path or hard-link target, absolute
 * paths and targets, device nodes, anything written through a symlink
 * that already exists in the root (a symlink entry itself may point
 * anywhere: it is only data), hard links to anything but a regular file
 * already in the root, a symlink replacing a directory, damaged archives
 * more unpacked bytes than the cap (each entry costs ENTRY_COST besides
 * its data), more entries than their cap, and entries more than
 * MAX_DEPTH components deep. FIFOs and sockets are skipped.
 * Modes keep only their 0777 bits (no setuid, setgid or sticky); no
 * chown, no ACLs, no extended attributes, no file flags.
 *
 * Never prints, never downloads, never runs in the parent: archive_write_disk
 * resolves paths against the process-wide current directory, which only
 * the helper changes.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "base/i18n.h"
#include "pkg/unpack_private.h"
#include "base/util.h"

/* What every entry costs against that cap besides its data: an inode
 * and a name take at least a block. 300,000 empty directories are 1.2 GB
 * of metadata, not nothing. */
#define ENTRY_COST 4096
/* The deepest an entry may be, in path components: real trees stay
 * under 30, PATH_MAX allows ~2,000 of one letter, and every tool that
 * walks a tree by recursion (ours did) has a limit of its own. */
#define MAX_DEPTH 512

#ifdef O_PATH
#define DIR_WALK_FLAGS (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#else
#define DIR_WALK_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#endif

struct ctx {
	struct archive *in, *out;
	struct archive *outer;	/* a .deb's ar container; in reads its data member */
	char *outer_buf;
	const char *path, *root;
	uint64_t max, total;
	unsigned long entries, max_entries;
	char *text;		/* the reason (REFUSED) or the message (ERROR) */
	char *scratch;		/* see shown_tmp */
	int code;		/* exit status for ERROR */
	/* The directory the last walk ended in, every component of it
	 * found a real directory: entries in the same directory (most of
	 * an archive) start there instead of at the root. Only this
	 * process writes in the root, so it stays true until an entry
	 * writes at it or above it, or writes a link (dir_cache_drop). */
	char *dir_path;		/* relative to the root, "" for the root */
	size_t dir_len;
	int dir_fd;		/* -1: none */
};


static ab_unpack_rc local_failure(struct ctx *c, int e)
{
	free(c->text);
	c->text = ab_xasprintf(_("cannot unpack %s into %s: %s"), c->path, c->root, strerror(e));
	c->code = AB_EXIT_FAILURE;
	return AB_UNPACK_ERROR;
}

/* Takes over text. */
static ab_unpack_rc refuse(struct ctx *c, char *text)
{
	free(c->text);
	c->text = text;
	return AB_UNPACK_REFUSED;
}

/* "unsafe entry 'NAME': WHY" with NAME rendered. */
static ab_unpack_rc refuse_entry(struct ctx *c, const char *name, const char *why)
{
	char *n = ab_unpack_shown(name);
	char *t = ab_xasprintf(_("unsafe entry '%s': %s"), n, why);

	free(n);
	return refuse(c, t);
}

/* The same with WHY formatted; quoted names in it go through shown_tmp. */
static ab_unpack_rc refuse_entryf(struct ctx *c, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static ab_unpack_rc refuse_entryf(struct ctx *c, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *why;
	int n;
	ab_unpack_rc rc;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	why = ab_xmalloc(n > 0 ? (size_t)n + 1 : 1);
	why[0] = '\0';
	va_start(ap, fmt);
	if (n > 0)
		vsnprintf(why, (size_t)n + 1, fmt, ap);
	va_end(ap);
	rc = refuse_entry(c, name, why);
	free(why);
	return rc;
}

/* ab_unpack_shown(s), kept in c until the next call. */
static const char *shown_tmp(struct ctx *c, const char *s)
{
	free(c->scratch);
	c->scratch = ab_unpack_shown(s);
	return c->scratch;
}

/* A failure reported by the disk writer while handling entry name. */
static ab_unpack_rc write_failure(struct ctx *c, const char *name)
{
	int e = archive_errno(c->out);
	char *n, *m;
	ab_unpack_rc rc;

	if (ab_unpack_local_errno(e))
		return local_failure(c, e);
	n = ab_unpack_shown(name);
	m = ab_unpack_shown(archive_error_string(c->out));
	rc = refuse(c, ab_xasprintf(_("cannot create entry '%s': %s"), n, m));
	free(n);
	free(m);
	return rc;
}

/* A failure reported by the reader. */
static ab_unpack_rc read_failure(struct ctx *c, bool opening)
{
	int e = archive_errno(c->in);
	char *m;
	ab_unpack_rc rc;

	if (e == EIO || e == ENOMEM)
		return local_failure(c, e);
	m = ab_unpack_shown(archive_error_string(c->in));
	if (opening)
		rc = refuse(c, ab_xasprintf(_("not an archive libarchive can read: %s"), m));
	else
		rc = refuse(c, ab_xasprintf(_("damaged archive: %s"), m));
	free(m);
	return rc;
}

enum path_kind { PATH_OK, PATH_ROOT, PATH_EMPTY, PATH_ABSOLUTE, PATH_DOTDOT };

/* Checks a path from an archive and gives it back without "." and empty
 * components ("./a//b/" is "a/b"). "/", "./" and the like are the root. */
static enum path_kind normalize(const char *name, char **out)
{
	ab_buf b = {0};
	const char *p = name;
	bool absolute = name[0] == '/';

	*out = NULL;
	if (!*name)
		return PATH_EMPTY;
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			ab_buf_free(&b);
			return PATH_DOTDOT;
		}
		if (n && !(n == 1 && p[0] == '.')) {
			if (b.len)
				ab_buf_puts(&b, "/");
			ab_buf_append(&b, p, n);
		}
		p += n;
		if (*p == '/')
			p++;
	}
	if (!b.len) {
		ab_buf_free(&b);
		return PATH_ROOT;
	}
	if (absolute) {
		ab_buf_free(&b);
		return PATH_ABSOLUTE;
	}
	*out = ab_buf_steal(&b);
	return PATH_OK;
}

static void dir_cache_drop(struct ctx *c)
{
	if (c->dir_fd >= 0)
		close(c->dir_fd);
	c->dir_fd = -1;
	free(c->dir_path);
	c->dir_path = NULL;
}

/* Whether path is the cached directory or one of the directories on
 * the way to it. */
static bool dir_cache_under(const struct ctx *c, const char *path)
{
	size_t n = strlen(path);

	return c->dir_fd >= 0 && n <= c->dir_len && !memcmp(c->dir_path, path, n) &&
	       (c->dir_path[n] == '\0' || c->dir_path[n] == '/');
}

/* Walks path (normalized, relative to the cwd, which is the root) one
 * component at a time, never following a symlink. Returns 1 with *link
 * set to the prefix that is an existing symlink (the last component
 * counts only with check_last), 0 when there is none, -1 with errno.
 * On 0, *last_st holds the last component's lstat when it exists (then
 * *exists is true); the walk stops early where nothing exists. A walk
 * that reaches the last component's directory leaves it in c's cache. */
static int find_symlink(struct ctx *c, const char *path, bool check_last, char **link,
			struct stat *last_st, bool *exists)
{
	const char *p = path, *base = strrchr(path, '/');
	size_t parent_len = base ? (size_t)(base - path) : 0;
	bool owned = true;	/* dfd is the walk's own, not the cache's */
	int dfd, e;

	*link = NULL;
	*exists = false;
	if (c->dir_fd >= 0 && parent_len >= c->dir_len &&
	    !memcmp(path, c->dir_path, c->dir_len) &&
	    (c->dir_len == 0 || parent_len == c->dir_len || path[c->dir_len] == '/')) {
		dfd = c->dir_fd;
		owned = false;
		p = path + c->dir_len + (c->dir_len ? 1 : 0);
	} else {
		dfd = open(".", DIR_WALK_FLAGS);
		if (dfd < 0)
			return -1;
	}
	for (;;) {
		const char *slash = strchr(p, '/');
		bool last = !slash;
		char *comp;
		struct stat st;
		int nfd;

		if (last) {
			/* Every directory on the way is a real one. */
			if (owned) {
				dir_cache_drop(c);
				c->dir_path = ab_xstrndup(path, parent_len);
				c->dir_len = parent_len;
				c->dir_fd = dfd;
				owned = false;
			}
			if (!check_last)
				break;
		}
		comp = last ? ab_xstrdup(p) : ab_xstrndup(p, (size_t)(slash - p));
		if (fstatat(dfd, comp, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			e = errno;
			free(comp);
			if (e == ENOENT)
				break;	/* nothing deeper exists either */
			if (owned)
				close(dfd);
			errno = e;
			return -1;
		}
		if (S_ISLNK(st.st_mode)) {
			free(comp);
			if (owned)
				close(dfd);
			*link = last ? ab_xstrdup(path) : ab_xstrndup(path, (size_t)(slash - path));
			return 1;
		}
		if (last) {
			free(comp);
			*last_st = st;
			*exists = true;
			break;
		}
		if (!S_ISDIR(st.st_mode)) {
			free(comp);
			break;	/* libarchive replaces it or fails the entry */
		}
		nfd = openat(dfd, comp, DIR_WALK_FLAGS);
		e = errno;
		free(comp);
		if (owned)
			close(dfd);
		if (nfd < 0) {
			errno = e;
			return -1;
		}
		dfd = nfd;
		owned = true;
		p = slash + 1;
	}
	if (owned)
		close(dfd);
	return 0;
}

/* A walk that failed for a reason of its own. */
static ab_unpack_rc walk_failure(struct ctx *c, const char *name, int e)
{
	if (ab_unpack_local_errno(e))
		return local_failure(c, e);
	return refuse_entry(c, name, strerror(e));
}

/* Adds n bytes to the running total; refuses past the cap. */
static ab_unpack_rc count(struct ctx *c, const char *name, uint64_t n)
{
	char *s, *t;

	if (n > c->max || c->total > c->max - n) {
		s = ab_unpack_shown(name);
		t = ab_xasprintf(_("unpacked size exceeds %" PRIu64 " bytes at entry '%s'"),
				 c->max, s);
		free(s);
		return refuse(c, t);
	}
	c->total += n;
	return AB_UNPACK_OK;
}

/* The entry's own cost, and its place in the number of entries. */
static ab_unpack_rc count_entry(struct ctx *c, const char *name)
{
	char *s, *t;

	if (c->entries > c->max_entries) {
		s = ab_unpack_shown(name);
		t = ab_xasprintf(_("more than %lu entries at entry '%s'"), c->max_entries, s);
		free(s);
		return refuse(c, t);
	}
	if (c->total > c->max || c->max - c->total < ENTRY_COST) {
		s = ab_unpack_shown(name);
		t = ab_xasprintf(_("unpacked size exceeds %" PRIu64 " bytes at entry '%s' "
				   "(every entry counts %d bytes besides its data)"),
				 c->max, s, ENTRY_COST);
		free(s);
		return refuse(c, t);
	}
	c->total += ENTRY_COST;
	return AB_UNPACK_OK;
}

/* Path components of a normalized path. */
static size_t depth_of(const char *path)
{
	size_t n = 1;

	for (; *path; path++)
		n += *path == '/';
	return n;
}

/* Copies the data of the current entry, counting what it really takes. */
static ab_unpack_rc copy_data(struct ctx *c, const char *name, uint64_t declared)
{
	uint64_t accounted = declared;

	for (;;) {
		const void *buf;
		size_t len;
		la_int64_t off;
		ab_unpack_rc rc;
		int r = archive_read_data_block(c->in, &buf, &len, &off);

		if (r == ARCHIVE_EOF)
			return AB_UNPACK_OK;
		if (r < ARCHIVE_WARN)
			return read_failure(c, false);
		if (off < 0 || (uint64_t)off + len < (uint64_t)off) {
			char *s = ab_unpack_shown(name);
			rc = refuse(c, ab_xasprintf(_("damaged archive: bad data offset in entry '%s'"), s));
			free(s);
			return rc;
		}
		if ((uint64_t)off + len > accounted) {
			rc = count(c, name, (uint64_t)off + len - accounted);
			if (rc != AB_UNPACK_OK)
				return rc;
			accounted = (uint64_t)off + len;
		}
		if (archive_write_data_block(c->out, buf, len, off) < ARCHIVE_OK)
			return write_failure(c, name);
	}
}

/* Normalizes the entry's name into *path and checks where it lands.
 * Sets *done when the entry names the root: there is nothing to write. */
static ab_unpack_rc check_entry_path(struct ctx *c, const char *name, mode_t type,
				     bool hardlink, char **path, bool *done)
{
	switch (normalize(name, path)) {
	case PATH_EMPTY:
		return refuse_entry(c, name, _("empty name"));
	case PATH_DOTDOT:
		return refuse_entry(c, name, _("path leaves the root"));
	case PATH_ABSOLUTE:
		return refuse_entry(c, name, _("absolute path"));
	case PATH_ROOT:
		/* "./" or "/": the root itself, which is ours. */
		*done = true;
		if (type != AE_IFDIR || hardlink)
			return refuse_entry(c, name, _("names the root but is not a directory"));
		return AB_UNPACK_OK;
	case PATH_OK:
		break;
	}
	if (depth_of(*path) > MAX_DEPTH)
		return refuse_entryf(c, name, _("more than %d directories deep"), MAX_DEPTH);
	return AB_UNPACK_OK;
}

/* Refuses the types a scratch root must not get; sets *done for the
 * ones it has no use for and skips. */
static ab_unpack_rc check_entry_type(struct ctx *c, const char *name, mode_t type,
				     bool hardlink, bool *done)
{
	if (type == AE_IFCHR || type == AE_IFBLK)
		return refuse_entry(c, name, _("device node"));
	if (type == AE_IFIFO || type == AE_IFSOCK) {
		*done = true;	/* skipped: a scratch root has no use for them */
		return AB_UNPACK_OK;
	}
	if (!hardlink && type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK)
		return refuse_entry(c, name, _("unsupported entry type"));
	return AB_UNPACK_OK;
}

/* A hard link may point only at a regular file already in the root,
 * reached without a symlink. Gives its normalized target in *target. */
static ab_unpack_rc check_hardlink(struct ctx *c, const char *name, const char *hl,
				   char **target)
{
	char *link = NULL;
	struct stat st;
	bool exists;
	ab_unpack_rc rc = AB_UNPACK_OK;
	int r;

	switch (normalize(hl, target)) {
	case PATH_EMPTY:
	case PATH_ROOT:
		return refuse_entryf(c, name, _("hard link to the root '%s'"),
				     shown_tmp(c, hl));
	case PATH_DOTDOT:
		return refuse_entryf(c, name, _("hard link target '%s' leaves the root"),
				     shown_tmp(c, hl));
	case PATH_ABSOLUTE:
		return refuse_entryf(c, name, _("hard link target '%s' is absolute"),
				     shown_tmp(c, hl));
	case PATH_OK:
		break;
	}
	r = find_symlink(c, *target, true, &link, &st, &exists);
	if (r < 0)
		return walk_failure(c, name, errno);
	if (r > 0 && !strcmp(link, *target))
		rc = refuse_entryf(c, name, _("hard link target '%s' is a symlink"),
				   shown_tmp(c, hl));
	else if (r > 0)
		rc = refuse_entryf(c, name, _("hard link target goes through symlink '%s'"),
				   shown_tmp(c, link));
	else if (!exists || !S_ISREG(st.st_mode))
		rc = refuse_entryf(c, name,
				   _("hard link target '%s' is not a regular file in the root"),
				   shown_tmp(c, hl));
	free(link);
	return rc;
}

/* Nothing is written through an existing symlink. A symlink entry
 * may replace a symlink (nothing goes through it), not a directory:
 * libarchive fixes directory modes and times up at close. */
static ab_unpack_rc check_write_path(struct ctx *c, const char *name, const char *path,
				     bool symlink_entry)
{
	char *link = NULL;
	struct stat st;
	bool exists;
	ab_unpack_rc rc = AB_UNPACK_OK;
	int r;

	r = find_symlink(c, path, true, &link, &st, &exists);
	if (r < 0)
		return walk_failure(c, name, errno);
	if (r > 0 && !(symlink_entry && !strcmp(link, path)))
		rc = refuse_entryf(c, name, _("writes through symlink '%s'"),
				   shown_tmp(c, link));
	else if (symlink_entry && r == 0 && exists && S_ISDIR(st.st_mode))
		rc = refuse_entry(c, name, _("symlink replaces a directory"));
	free(link);
	return rc;
}

/* The safe form: clean relative names, 0777 bits only (directories
 * stay readable and searchable by their owner), no metadata that
 * could grant anything. */
static void make_entry_safe(struct archive_entry *e, mode_t type, bool hardlink,
			    const char *path, const char *target)
{
	archive_entry_set_pathname(e, path);
	if (hardlink)
		archive_entry_set_hardlink(e, target);
	if (type == AE_IFDIR)
		archive_entry_set_perm(e, (archive_entry_perm(e) & 0777) | 0500);
	else
		archive_entry_set_perm(e, archive_entry_perm(e) & 0777);
	archive_entry_acl_clear(e);
	archive_entry_xattr_clear(e);
	archive_entry_set_fflags(e, 0, 0);
}

/* Writes the checked entry, with its data when it has some
 * (declared bytes of it already counted). */
static ab_unpack_rc write_entry(struct ctx *c, struct archive_entry *e, const char *name,
				bool has_data, uint64_t declared)
{
	ab_unpack_rc rc;

	if (archive_write_header(c->out, e) < ARCHIVE_WARN)
		return write_failure(c, name);
	if (has_data) {
		rc = copy_data(c, name, declared);
		if (rc != AB_UNPACK_OK)
			return rc;
	}
	if (archive_write_finish_entry(c->out) < ARCHIVE_WARN)
		return write_failure(c, name);
	return AB_UNPACK_OK;
}

/* Checks one entry, rewrites it into its safe form and writes it. */
static ab_unpack_rc do_entry(struct ctx *c, struct archive_entry *e)
{
	const char *hl = archive_entry_hardlink(e);
	mode_t type = archive_entry_filetype(e);
	bool hardlink = hl != NULL;
	bool symlink_entry = type == AE_IFLNK && !hardlink;
	char *name, *path = NULL, *target = NULL;
	bool done = false;
	uint64_t declared = 0;
	ab_unpack_rc rc = AB_UNPACK_OK;

	/* A copy: the entry's own strings change when it is rewritten. */
	name = ab_xstrdup(archive_entry_pathname(e));
	if (!name)
		name = ab_xstrdup(archive_entry_pathname_utf8(e));
	if (!name)
		return refuse(c, ab_xstrdup(_("unsafe entry: its name cannot be read")));
	rc = count_entry(c, name);
	if (rc != AB_UNPACK_OK)
		goto out;
	rc = check_entry_path(c, name, type, hardlink, &path, &done);
	if (rc != AB_UNPACK_OK || done)
		goto out;
	rc = check_entry_type(c, name, type, hardlink, &done);
	if (rc != AB_UNPACK_OK || done)
		goto out;
	if (hardlink) {
		rc = check_hardlink(c, name, hl, &target);
		if (rc != AB_UNPACK_OK)
			goto out;
	}
	rc = check_write_path(c, name, path, symlink_entry);
	if (rc != AB_UNPACK_OK)
		goto out;

	if (hardlink || type == AE_IFREG) {
		if (archive_entry_size_is_set(e) && archive_entry_size(e) > 0)
			declared = (uint64_t)archive_entry_size(e);
		rc = count(c, name, declared);
		if (rc != AB_UNPACK_OK)
			goto out;
	}
	make_entry_safe(e, type, hardlink, path, target);

	/* What this entry writes may change the cached directory or the
	 * way to it: a link, or anything at or above it, and the walks
	 * start from the root again. */
	if (hardlink || symlink_entry || dir_cache_under(c, path))
		dir_cache_drop(c);
	rc = write_entry(c, e, name, hardlink || type == AE_IFREG, declared);
out:
	free(name);
	free(path);
	free(target);
	return rc;
}

/* Feeds the inner reader of a .deb from the data member of the outer. */
static la_ssize_t outer_read(struct archive *a, void *ud, const void **buf)
{
	struct ctx *c = ud;
	la_ssize_t n = archive_read_data(c->outer, c->outer_buf, 65536);

	(void)a;
	*buf = c->outer_buf;
	if (n < 0)
		archive_set_error(a, archive_errno(c->outer), "%s",
				  archive_error_string(c->outer) ? archive_error_string(c->outer)
				  : "read error");
	return n;
}

/* A refusal about the .deb container, naming what is wrong. */
static ab_unpack_rc deb_refusal(struct ctx *c, const char *why)
{
	return refuse(c, ab_xasprintf(_("not a Debian package: %s"), why));
}

/* Opens c->in over the data.tar.* member of the .deb at fd. */
static ab_unpack_rc open_deb(struct ctx *c, int fd)
{
	struct archive_entry *e;
	bool first = true;
	int r;

	c->outer = archive_read_new();
	c->outer_buf = ab_xmalloc(65536);
	if (!c->outer)
		return local_failure(c, ENOMEM);
	archive_read_support_format_ar(c->outer);
	if (archive_read_open_fd(c->outer, fd, 65536) != ARCHIVE_OK)
		return deb_refusal(c, _("not an ar archive"));
	for (;;) {
		const char *name;

		r = archive_read_next_header(c->outer, &e);
		if (r == ARCHIVE_EOF)
			return deb_refusal(c, _("no data.tar member"));
		if (r < ARCHIVE_WARN) {
			if (first)
				return deb_refusal(c, _("not an ar archive"));
			return read_failure(c, false);
		}
		name = archive_entry_pathname(e);
		if (!name)
			name = "";
		if (first && strcmp(name, "debian-binary"))
			return deb_refusal(c, _("the first member is not debian-binary"));
		first = false;
		if (!strncmp(name, "data.tar", 8))
			break;
	}
	c->in = archive_read_new();
	if (!c->in)
		return local_failure(c, ENOMEM);
	archive_read_support_filter_all(c->in);
	archive_read_support_format_tar(c->in);
	if (archive_read_open(c->in, c, NULL, outer_read, NULL) != ARCHIVE_OK)
		return read_failure(c, true);
	return AB_UNPACK_OK;
}

static ab_unpack_rc extract(struct ctx *c, int fd, ab_artifact_type type)
{
	struct archive_entry *e;
	int r;
	ab_unpack_rc rc = AB_UNPACK_OK;

	c->out = archive_write_disk_new();
	if (!c->out)
		return local_failure(c, ENOMEM);
	archive_write_disk_set_options(c->out, ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_PERM |
				       ARCHIVE_EXTRACT_SECURE_SYMLINKS |
				       ARCHIVE_EXTRACT_SECURE_NODOTDOT |
				       ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS);
	/* No lookup of names in the passwd and group files: no OWNER. */

	if (type == AB_ART_DEB) {
		rc = open_deb(c, fd);
		if (rc != AB_UNPACK_OK)
			return rc;
	} else {
		c->in = archive_read_new();
		if (!c->in)
			return local_failure(c, ENOMEM);
		if (type == AB_ART_ZIP) {
			archive_read_support_format_zip(c->in);
		} else if (type == AB_ART_RPM) {
			/* Only after librpm checked the package's digests
			 * (and signature): the rpm filter skips lead and
			 * headers, cpio holds the files. */
			archive_read_support_filter_all(c->in);
			archive_read_support_format_cpio(c->in);
		} else {
			/* tar in any compression. Not format_all: its "empty"
			 * format takes an empty file as a valid archive, and it
			 * brings mtree (any text that parses), iso9660, rar, 7zip
			 * and more readers than a tar artifact needs. */
			archive_read_support_filter_all(c->in);
			archive_read_support_format_tar(c->in);	/* ustar, pax, gnu, v7 */
		}
		if (archive_read_open_fd(c->in, fd, 65536) != ARCHIVE_OK)
			return read_failure(c, true);
	}

	for (;;) {
		r = archive_read_next_header(c->in, &e);
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN)
			return read_failure(c, c->entries == 0);
		c->entries++;
		rc = do_entry(c, e);
		if (rc != AB_UNPACK_OK)
			return rc;
	}
	/* A package may own no files (a meta package); an archive may not. */
	if (c->entries == 0 && type != AB_ART_RPM && type != AB_ART_DEB)
		return refuse(c, ab_xstrdup(_("not an archive libarchive can read: it has no entries")));
	/* Directory modes and times are applied here. */
	if (archive_write_close(c->out) != ARCHIVE_OK) {
		int en = archive_errno(c->out);
		char *m;

		if (ab_unpack_local_errno(en))
			return local_failure(c, en);
		m = ab_unpack_shown(archive_error_string(c->out));
		rc = refuse(c, ab_xasprintf(_("cannot finish unpacking: %s"), m));
		free(m);
		return rc;
	}
	return AB_UNPACK_OK;
}


ab_unpack_rc ab_unpack_archive_here(int src, ab_artifact_type type, const char *path,
				    const char *root, const struct ab_unpack_limits *lim,
				    int *code, char **text)
{
	struct ctx c = { .path = path, .root = root, .max = lim->bytes,
			 .max_entries = lim->entries, .dir_fd = -1 };
	ab_unpack_rc rc;

	if (chdir(root) < 0)
		rc = local_failure(&c, errno);
	else
		rc = extract(&c, src, type);
	if (c.in)
		archive_read_free(c.in);
	if (c.outer)
		archive_read_free(c.outer);
	free(c.outer_buf);
	if (c.out) {
		/* archive_write_free would close: fix-ups of a refused
		 * archive are not wanted. */
		if (rc != AB_UNPACK_OK)
			archive_write_fail(c.out);
		archive_write_free(c.out);
	}
	free(c.scratch);
	dir_cache_drop(&c);
	*code = c.code;
	*text = c.text;
	return rc;
}
