/* unpack.c - see unpack.h.
 *
 * Archives are extracted by a helper process, artbisect-unpack or this
 * program started afresh (see spawn_helper), that chdir()s into the root:
 * archive_write_disk resolves every path against the process-wide current
 * directory, so the parent's cwd is never touched and several unpacks may
 * run at once. The helper sends back one result (rc, exit code, text)
 * through a pipe and leaves with _exit().
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
 * A "file" artifact is copied to root/filename with mode 0755, so that a
 * single downloaded binary can be run by a probe as it is.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <archive.h>
#include <archive_entry.h>

#include "escape.h"
#include "i18n.h"
#include "unpack.h"
#include "util.h"

/* Default cap on the bytes one artifact may unpack to. */
#define DEFAULT_MAX_UNPACKED ((uint64_t)16 << 30)
/* What every entry costs against that cap besides its data: an inode
 * and a name take at least a block. 300,000 empty directories are 1.2 GB
 * of metadata, not nothing. */
#define ENTRY_COST 4096
/* Default cap on the entries of one artifact: a kernel's modules
 * package has ~6,000, a whole distribution tree a few hundred thousand. */
#define DEFAULT_MAX_ENTRIES 1000000UL
/* The deepest an entry may be, in path components: real trees stay
 * under 30, PATH_MAX allows ~2,000 of one letter, and every tool that
 * walks a tree by recursion (ours did) has a limit of its own. */
#define MAX_DEPTH 512
/* Longest rendering of a name inside a reason, in bytes. */
#define SHOWN_MAX 400

#ifdef O_PATH
#define DIR_WALK_FLAGS (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#else
#define DIR_WALK_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#endif

/* ---- rendering foreign text on one line ---- */

/* Characters a terminal or a reader would not show as themselves: C0 and
 * C1 controls, DEL, line and paragraph separators, bidi overrides. */
static bool hidden_cp(uint32_t c)
{
	return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) ||
	       c == 0x2028 || c == 0x2029 ||
	       (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/* Appends s so that it stays one printable line: controls, invalid UTF-8,
 * backslash and quote are escaped (\n, \t, \xHH, \u202E...); the result
 * is cut, with "...", past SHOWN_MAX bytes. */
static void render(ab_buf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), start = b->len, i = 0;

	while (i < n) {
		char tmp[16];
		uint32_t c;
		size_t len = ab_utf8_len(s + i, n - i, &c);

		if (len == 0) {
			snprintf(tmp, sizeof tmp, "\\x%02x", s[i]);
			len = 1;
		} else if (c == '\n') {
			strcpy(tmp, "\\n");
		} else if (c == '\t') {
			strcpy(tmp, "\\t");
		} else if (c == '\r') {
			strcpy(tmp, "\\r");
		} else if (c == '\\' || c == '\'') {
			snprintf(tmp, sizeof tmp, "\\%c", (char)c);
		} else if (hidden_cp(c)) {
			if (c < 0x100)
				snprintf(tmp, sizeof tmp, "\\x%02" PRIx32, c);
			else
				snprintf(tmp, sizeof tmp, "\\u%04" PRIX32, c);
		} else {
			memcpy(tmp, s + i, len);
			tmp[len] = '\0';
		}
		if (b->len - start + strlen(tmp) > SHOWN_MAX) {
			ab_buf_puts(b, "...");
			return;
		}
		ab_buf_puts(b, tmp);
		i += len;
	}
}

/* A one-line, quoted-safe copy of a name or a library message. */
static char *shown(const char *s)
{
	ab_buf b = {0};

	ab_buf_puts(&b, "");
	render(&b, s ? s : "");
	return ab_buf_steal(&b);
}

/* ---- extraction (runs in the child) ---- */

/* The caps on one artifact. */
struct limits {
	uint64_t bytes;		/* ARTBISECT_MAX_UNPACKED */
	unsigned long entries;	/* ARTBISECT_MAX_ENTRIES */
};

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

/* Errors that come from this machine, not from the archive. */
static bool local_errno(int e)
{
	switch (e) {
	case ENOSPC:
#ifdef EDQUOT
	case EDQUOT:
#endif
	case EROFS:
	case EIO:
	case EFBIG:
	case ENOMEM:
	case EMFILE:
	case ENFILE:
		return true;
	default:
		return false;
	}
}

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
	char *n = shown(name);
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

/* shown(s), kept in c until the next call. */
static const char *shown_tmp(struct ctx *c, const char *s)
{
	free(c->scratch);
	c->scratch = shown(s);
	return c->scratch;
}

/* A failure reported by the disk writer while handling entry name. */
static ab_unpack_rc write_failure(struct ctx *c, const char *name)
{
	int e = archive_errno(c->out);
	char *n, *m;
	ab_unpack_rc rc;

	if (local_errno(e))
		return local_failure(c, e);
	n = shown(name);
	m = shown(archive_error_string(c->out));
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
	m = shown(archive_error_string(c->in));
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
	if (local_errno(e))
		return local_failure(c, e);
	return refuse_entry(c, name, strerror(e));
}

/* Adds n bytes to the running total; refuses past the cap. */
static ab_unpack_rc count(struct ctx *c, const char *name, uint64_t n)
{
	char *s, *t;

	if (n > c->max || c->total > c->max - n) {
		s = shown(name);
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
		s = shown(name);
		t = ab_xasprintf(_("more than %lu entries at entry '%s'"), c->max_entries, s);
		free(s);
		return refuse(c, t);
	}
	if (c->total > c->max || c->max - c->total < ENTRY_COST) {
		s = shown(name);
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
			char *s = shown(name);
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

/* Checks one entry, rewrites it into its safe form and writes it. */
static ab_unpack_rc do_entry(struct ctx *c, struct archive_entry *e)
{
	const char *hl = archive_entry_hardlink(e);
	mode_t type = archive_entry_filetype(e);
	bool hardlink = hl != NULL;
	bool symlink_entry = type == AE_IFLNK && !hardlink;
	char *name, *path = NULL, *target = NULL, *link = NULL;
	struct stat st;
	bool exists;
	uint64_t declared = 0;
	ab_unpack_rc rc = AB_UNPACK_OK;
	int r;

	/* A copy: the entry's own strings change when it is rewritten. */
	name = ab_xstrdup(archive_entry_pathname(e));
	if (!name)
		name = ab_xstrdup(archive_entry_pathname_utf8(e));
	if (!name)
		return refuse(c, ab_xstrdup(_("unsafe entry: its name cannot be read")));
	rc = count_entry(c, name);
	if (rc != AB_UNPACK_OK)
		goto out;

	switch (normalize(name, &path)) {
	case PATH_EMPTY:
		rc = refuse_entry(c, name, _("empty name"));
		goto out;
	case PATH_DOTDOT:
		rc = refuse_entry(c, name, _("path leaves the root"));
		goto out;
	case PATH_ABSOLUTE:
		rc = refuse_entry(c, name, _("absolute path"));
		goto out;
	case PATH_ROOT:
		/* "./" or "/": the root itself, which is ours. */
		if (type != AE_IFDIR || hardlink)
			rc = refuse_entry(c, name, _("names the root but is not a directory"));
		goto out;
	case PATH_OK:
		break;
	}
	if (depth_of(path) > MAX_DEPTH) {
		rc = refuse_entryf(c, name, _("more than %d directories deep"), MAX_DEPTH);
		goto out;
	}

	if (type == AE_IFCHR || type == AE_IFBLK) {
		rc = refuse_entry(c, name, _("device node"));
		goto out;
	}
	if (type == AE_IFIFO || type == AE_IFSOCK)
		goto out;	/* skipped: a scratch root has no use for them */
	if (!hardlink && type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK) {
		rc = refuse_entry(c, name, _("unsupported entry type"));
		goto out;
	}

	if (hardlink) {
		switch (normalize(hl, &target)) {
		case PATH_EMPTY:
		case PATH_ROOT:
			rc = refuse_entryf(c, name, _("hard link to the root '%s'"),
					   shown_tmp(c, hl));
			goto out;
		case PATH_DOTDOT:
			rc = refuse_entryf(c, name, _("hard link target '%s' leaves the root"),
					   shown_tmp(c, hl));
			goto out;
		case PATH_ABSOLUTE:
			rc = refuse_entryf(c, name, _("hard link target '%s' is absolute"),
					   shown_tmp(c, hl));
			goto out;
		case PATH_OK:
			break;
		}
		r = find_symlink(c, target, true, &link, &st, &exists);
		if (r < 0) {
			rc = walk_failure(c, name, errno);
			goto out;
		}
		if (r > 0 && !strcmp(link, target)) {
			rc = refuse_entryf(c, name, _("hard link target '%s' is a symlink"),
					   shown_tmp(c, hl));
			goto out;
		}
		if (r > 0) {
			rc = refuse_entryf(c, name, _("hard link target goes through symlink '%s'"),
					   shown_tmp(c, link));
			goto out;
		}
		if (!exists || !S_ISREG(st.st_mode)) {
			rc = refuse_entryf(c, name,
					   _("hard link target '%s' is not a regular file in the root"),
					   shown_tmp(c, hl));
			goto out;
		}
	}

	/* Nothing is written through an existing symlink. A symlink entry
	 * may replace a symlink (nothing goes through it), not a directory:
	 * libarchive fixes directory modes and times up at close. */
	r = find_symlink(c, path, true, &link, &st, &exists);
	if (r < 0) {
		rc = walk_failure(c, name, errno);
		goto out;
	}
	if (r > 0 && !(symlink_entry && !strcmp(link, path))) {
		rc = refuse_entryf(c, name, _("writes through symlink '%s'"),
				   shown_tmp(c, link));
		goto out;
	}
	if (symlink_entry && r == 0 && exists && S_ISDIR(st.st_mode)) {
		rc = refuse_entry(c, name, _("symlink replaces a directory"));
		goto out;
	}

	if (hardlink || type == AE_IFREG) {
		if (archive_entry_size_is_set(e) && archive_entry_size(e) > 0)
			declared = (uint64_t)archive_entry_size(e);
		rc = count(c, name, declared);
		if (rc != AB_UNPACK_OK)
			goto out;
	}

	/* The safe form: clean relative names, 0777 bits only (directories
	 * stay readable and searchable by their owner), no metadata that
	 * could grant anything. */
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

	/* What this entry writes may change the cached directory or the
	 * way to it: a link, or anything at or above it, and the walks
	 * start from the root again. */
	if (hardlink || symlink_entry || dir_cache_under(c, path))
		dir_cache_drop(c);

	if (archive_write_header(c->out, e) < ARCHIVE_WARN) {
		rc = write_failure(c, name);
		goto out;
	}
	if (hardlink || type == AE_IFREG) {
		rc = copy_data(c, name, declared);
		if (rc != AB_UNPACK_OK)
			goto out;
	}
	if (archive_write_finish_entry(c->out) < ARCHIVE_WARN)
		rc = write_failure(c, name);
out:
	free(name);
	free(path);
	free(target);
	free(link);
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

		if (local_errno(en))
			return local_failure(c, en);
		m = shown(archive_error_string(c->out));
		rc = refuse(c, ab_xasprintf(_("cannot finish unpacking: %s"), m));
		free(m);
		return rc;
	}
	return AB_UNPACK_OK;
}

/* ---- child and parent ---- */

struct wire {
	int32_t rc;
	int32_t code;
	uint32_t len;
};

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The extraction itself, in the helper process: src is the artifact,
 * wfd the pipe for the one result. Never returns. */
static void child(pid_t parent, int wfd, int src, ab_artifact_type type, const char *path,
		  const char *root, const struct limits *lim)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
	struct ctx c = { .path = path, .root = root, .max = lim->bytes,
			 .max_entries = lim->entries, .dir_fd = -1 };
	struct wire w;
	ab_unpack_rc rc;
	struct sigaction sa;
	sigset_t set;
	size_t i;

	/* The parent's handlers mean nothing here: a handled signal stops
	 * the child (the parent then reports it); an ignored one stays
	 * ignored. */
	sigemptyset(&set);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		sigaddset(&set, sigs[i]);
		if (sigaction(sigs[i], NULL, &sa) == 0 &&
		    ((sa.sa_flags & SA_SIGINFO) || sa.sa_handler != SIG_IGN))
			signal(sigs[i], SIG_DFL);
	}
	sigprocmask(SIG_UNBLOCK, &set, NULL);
#ifdef __linux__
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
#endif
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
	w.rc = rc;
	w.code = c.code;
	w.len = c.text ? (uint32_t)strlen(c.text) : 0;
	if (write_all(wfd, &w, sizeof w) < 0 || (w.len && write_all(wfd, c.text, w.len) < 0))
		_exit(1);
	_exit(0);
}

/* The helper's file descriptors: the artifact and the result pipe. */
enum { HELPER_SRC_FD = 3, HELPER_RESULT_FD = 4 };

int ab_unpack_helper_main(int argc, char **argv)
{
	long long parent, type;
	unsigned long long max, entries;
	struct limits lim;
	char *end;

	/* argv: AB_UNPACK_HELPER_ARG PARENT TYPE MAX ENTRIES PATH ROOT */
	if (argc != 8 || strcmp(argv[1], AB_UNPACK_HELPER_ARG) != 0)
		return 2;
	errno = 0;
	parent = strtoll(argv[2], &end, 10);
	if (errno || *end)
		return 2;
	type = strtoll(argv[3], &end, 10);
	if (errno || *end)
		return 2;
	max = strtoull(argv[4], &end, 10);
	if (errno || *end)
		return 2;
	entries = strtoull(argv[5], &end, 10);
	if (errno || *end || entries > ULONG_MAX)
		return 2;
	lim.bytes = (uint64_t)max;
	lim.entries = (unsigned long)entries;
	child((pid_t)parent, HELPER_RESULT_FD, HELPER_SRC_FD, (ab_artifact_type)type,
	      argv[6], argv[7], &lim);
	return 1;	/* not reached */
}

/* The lean helper that belongs to the running program, in exe (which
 * holds the program's own path): artbisect-unpack beside it (the build
 * tree, or an install that keeps both in one directory), or in
 * PKGLIBEXECDIR when the program is the one installed in BINDIR. Not
 * when the program's file was replaced or removed since it started (an
 * upgrade: the helper may be another version's). 0 when there is none. */
static int lean_helper(const char *exe, char *out, size_t size)
{
	const char *slash = strrchr(exe, '/');
	size_t n = strlen(exe), dlen;
	static const char deleted[] = " (deleted)";

	if (!slash || (n >= sizeof deleted - 1 && !strcmp(exe + n - (sizeof deleted - 1), deleted)))
		return 0;
	dlen = (size_t)(slash - exe);
	if ((size_t)snprintf(out, size, "%.*s/artbisect-unpack", (int)dlen, exe) < size &&
	    access(out, X_OK) == 0)
		return 1;
#if defined(BINDIR) && defined(PKGLIBEXECDIR)
	if (strlen(BINDIR) == dlen && !strncmp(exe, BINDIR, dlen) &&
	    (size_t)snprintf(out, size, "%s/artbisect-unpack", PKGLIBEXECDIR) < size &&
	    access(out, X_OK) == 0)
		return 1;
#endif
	return 0;
}

/* Starts the helper: artbisect-unpack, or else this very program,
 * executed afresh through /proc/self/exe. A fork() of a process with
 * threads (prefetch and multisection run some) may copy a lock another
 * thread held, in the allocator, in gettext or in a sanitizer's runtime,
 * and the child would wait on it for ever; a new program has no such
 * locks. Returns the pid, or -1 when it cannot be started (no /proc). */
static pid_t spawn_helper(int src, int wfd, ab_artifact_type type, const char *path,
			  const char *root, const struct limits *lim)
{
	char parent[32], stype[16], smax[32], sentries[32];
	char *argv[9];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none;
	int hsrc, hwfd, rc;
	pid_t pid = -1;

	/* Out of the way of 3 and 4 first, so that neither dup2 below
	 * overwrites the other's source. */
	hsrc = fcntl(src, F_DUPFD_CLOEXEC, 10);
	hwfd = fcntl(wfd, F_DUPFD_CLOEXEC, 10);
	if (hsrc < 0 || hwfd < 0)
		goto out;
	snprintf(parent, sizeof parent, "%ld", (long)getpid());
	snprintf(stype, sizeof stype, "%d", (int)type);
	snprintf(smax, sizeof smax, "%" PRIu64, lim->bytes);
	snprintf(sentries, sizeof sentries, "%lu", lim->entries);
	argv[0] = (char *)"artbisect-unpack";
	argv[1] = (char *)AB_UNPACK_HELPER_ARG;
	argv[2] = parent;
	argv[3] = stype;
	argv[4] = smax;
	argv[5] = sentries;
	argv[6] = (char *)path;
	argv[7] = (char *)root;
	argv[8] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, hsrc, HELPER_SRC_FD);
	posix_spawn_file_actions_adddup2(&fa, hwfd, HELPER_RESULT_FD);
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	/* The path /proc/self/exe names rather than the link itself: under
	 * valgrind (which runs as another program) that is the one meant.
	 * After an upgrade replaced the file the link ends in " (deleted)",
	 * no such path exists, and the link itself is used. */
	rc = ENOENT;
	{
		char exe[4096], lean[4096 + 32];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

		if (n > 0) {
			exe[n] = '\0';
			if (lean_helper(exe, lean, sizeof lean))
				rc = posix_spawn(&pid, lean, &fa, &attr, argv, environ);
			if (rc != 0 && access(exe, X_OK) == 0)
				rc = posix_spawn(&pid, exe, &fa, &attr, argv, environ);
		}
	}
	if (rc != 0)
		rc = posix_spawn(&pid, "/proc/self/exe", &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		pid = -1;
out:
	if (hsrc >= 0)
		close(hsrc);
	if (hwfd >= 0)
		close(hwfd);
	return pid;
}

static ab_unpack_rc run_child(int src, ab_artifact_type type, const char *path,
			      const char *root, const struct limits *lim,
			      const volatile sig_atomic_t *cancel,
			      char **text, ab_error *err)
{
	int fds[2], status, e;
	pid_t pid, w, self = getpid();
	ab_buf b = {0};
	struct wire hdr;
	ab_unpack_rc rc;

	if (pipe2(fds, O_CLOEXEC) < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot unpack %s into %s: %s"),
			     path, root, strerror(errno));
		return AB_UNPACK_ERROR;
	}
	pid = spawn_helper(src, fds[1], type, path, root, lim);
	if (pid < 0) {
		/* No /proc/self/exe (a chroot without /proc): fork, which
		 * is safe while no other thread runs. */
		pid = fork();
		if (pid == 0) {
			close(fds[0]);
			child(self, fds[1], src, type, path, root, lim);
			_exit(1);	/* not reached */
		}
	}
	if (pid < 0) {
		e = errno;
		close(fds[0]);
		close(fds[1]);
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot unpack %s into %s: %s"),
			     path, root, strerror(e));
		return AB_UNPACK_ERROR;
	}
	close(fds[1]);
	for (;;) {
		char chunk[4096];
		ssize_t n;

		if (cancel) {
			/* Looked at ten times a second; a cancelled unpack
			 * is killed, and its partial root is the caller's. */
			struct pollfd pfd = { .fd = fds[0], .events = POLLIN };

			if (ab_cancelled(cancel)) {
				kill(pid, SIGKILL);
				break;
			}
			if (poll(&pfd, 1, 100) == 0)
				continue;
		}
		n = read(fds[0], chunk, sizeof chunk);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		ab_buf_append(&b, chunk, (size_t)n);
	}
	close(fds[0]);
	while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (w < 0)
		status = 0;	/* reaped elsewhere: the message is all we have */

	if (ab_cancelled(cancel)) {
		ab_error_set(err, AB_EXIT_ABORTED, _("unpacking %s into %s was cancelled"), path, root);
		rc = AB_UNPACK_ERROR;
	} else if (w > 0 && WIFSIGNALED(status)) {
		ab_error_set(err, AB_EXIT_FAILURE, _("unpacking %s into %s was killed by signal %d"),
			     path, root, WTERMSIG(status));
		rc = AB_UNPACK_ERROR;
	} else if (b.len < sizeof hdr ||
		   (memcpy(&hdr, b.data, sizeof hdr), b.len != sizeof hdr + hdr.len) ||
		   (hdr.rc != AB_UNPACK_OK && hdr.rc != AB_UNPACK_REFUSED &&
		    hdr.rc != AB_UNPACK_ERROR)) {
		ab_error_set(err, AB_EXIT_FAILURE,
			     _("unpacking %s into %s failed without saying why"), path, root);
		rc = AB_UNPACK_ERROR;
	} else {
		rc = (ab_unpack_rc)hdr.rc;
		if (rc == AB_UNPACK_ERROR)
			ab_error_set(err, hdr.code ? hdr.code : AB_EXIT_FAILURE, "%.*s",
				     (int)hdr.len, b.data + sizeof hdr);
		else if (rc == AB_UNPACK_REFUSED)
			*text = ab_xstrndup(b.data + sizeof hdr, hdr.len);
	}
	ab_buf_free(&b);
	return rc;
}

/* ---- plain files ---- */

static ab_unpack_rc copy_file(int src, const char *path, const char *filename,
			      const char *root, uint64_t max, const struct stat *sst,
			      char **text, ab_error *err)
{
	char buf[65536];
	int rfd, fd = -1, e = 0;
	char *s;

	if (!*filename || strchr(filename, '/') || !strcmp(filename, ".") ||
	    !strcmp(filename, "..")) {
		s = shown(filename);
		*text = ab_xasprintf(_("unsafe file name '%s'"), s);
		free(s);
		return AB_UNPACK_REFUSED;
	}
	if ((uint64_t)sst->st_size > max) {
		s = shown(filename);
		*text = ab_xasprintf(_("unpacked size exceeds %" PRIu64 " bytes at entry '%s'"),
				     max, s);
		free(s);
		return AB_UNPACK_REFUSED;
	}
	rfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0) {
		e = errno;
		goto fail;
	}
	/* Whatever is there already (a symlink of an earlier artifact, say)
	 * is replaced, never written through. */
	fd = openat(rfd, filename, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0755);
	if (fd < 0 && errno == EEXIST && unlinkat(rfd, filename, 0) == 0)
		fd = openat(rfd, filename, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0755);
	if (fd < 0) {
		e = errno;
		close(rfd);
		if (local_errno(e))
			goto fail;
		s = shown(filename);
		*text = ab_xasprintf(_("cannot create '%s': %s"), s, strerror(e));
		free(s);
		return AB_UNPACK_REFUSED;
	}
	close(rfd);
	for (;;) {
		ssize_t n = read(src, buf, sizeof buf);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			goto fail;
		}
		if (n == 0)
			break;
		if (write_all(fd, buf, (size_t)n) < 0) {
			e = errno;
			goto fail;
		}
	}
	if (fchmod(fd, 0755) < 0 || close(fd) < 0) {
		e = errno;
		fd = -1;
		goto fail;
	}
	return AB_UNPACK_OK;
fail:
	if (fd >= 0)
		close(fd);
	ab_error_set(err, AB_EXIT_FAILURE, _("cannot unpack %s into %s: %s"), path, root,
		     strerror(e));
	return AB_UNPACK_ERROR;
}

/* ---- entry point ---- */

/* A cap from the environment variable var, or dflt; -1 when the
 * variable is not a plain number. */
static int env_cap(const char *var, unsigned long long dflt, unsigned long long *max)
{
	const char *v = getenv(var);
	char *end;
	unsigned long long n;

	*max = dflt;
	if (!v || !*v)
		return 0;
	if (*v < '0' || *v > '9')
		return -1;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || *end)
		return -1;
	*max = n;
	return 0;
}

ab_unpack_rc ab_unpack(const char *path, ab_artifact_type type,
		       const char *filename, const char *root,
		       char **reason, ab_error *err)
{
	return ab_unpack_cancellable(path, type, filename, root, NULL, reason, err);
}

ab_unpack_rc ab_unpack_cancellable(const char *path, ab_artifact_type type,
				   const char *filename, const char *root,
				   const volatile sig_atomic_t *cancel,
				   char **reason, ab_error *err)
{
	struct stat st;
	struct limits lim;
	unsigned long long n;
	char *text = NULL;
	ab_unpack_rc rc;
	int src;

	if (reason)
		*reason = NULL;
	switch (type) {
	case AB_ART_RPM:
	case AB_ART_DEB:
	case AB_ART_TAR:
	case AB_ART_ZIP:
	case AB_ART_FILE:
		break;
	default:
		text = ab_xstrdup(_("unknown artifact type"));
		rc = AB_UNPACK_REFUSED;
		goto out;
	}
	if (env_cap("ARTBISECT_MAX_UNPACKED", DEFAULT_MAX_UNPACKED, &n) < 0) {
		ab_error_set(err, AB_EXIT_USAGE,
			     _("ARTBISECT_MAX_UNPACKED must be a number of bytes, not '%s'"),
			     getenv("ARTBISECT_MAX_UNPACKED"));
		return AB_UNPACK_ERROR;
	}
	lim.bytes = n;
	if (env_cap("ARTBISECT_MAX_ENTRIES", DEFAULT_MAX_ENTRIES, &n) < 0 || n > ULONG_MAX) {
		ab_error_set(err, AB_EXIT_USAGE,
			     _("ARTBISECT_MAX_ENTRIES must be a number of entries, not '%s'"),
			     getenv("ARTBISECT_MAX_ENTRIES"));
		return AB_UNPACK_ERROR;
	}
	lim.entries = (unsigned long)n;
	if (stat(root, &st) < 0 || (!S_ISDIR(st.st_mode) && (errno = ENOTDIR))) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot unpack into %s: %s"), root,
			     strerror(errno));
		return AB_UNPACK_ERROR;
	}
	/* Opened here, before the child changes directory: path may be
	 * relative. */
	src = open(path, O_RDONLY | O_CLOEXEC);
	if (src < 0 || fstat(src, &st) < 0 || (!S_ISREG(st.st_mode) && (errno = EINVAL))) {
		int e = errno;

		if (src >= 0)
			close(src);
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot read %s: %s"), path, strerror(e));
		return AB_UNPACK_ERROR;
	}
	if (type == AB_ART_FILE)
		rc = copy_file(src, path, filename, root, lim.bytes, &st, &text, err);
	else
		rc = run_child(src, type, path, root, &lim, cancel, &text, err);
	close(src);
out:
	if (reason && rc == AB_UNPACK_REFUSED)
		*reason = text;
	else
		free(text);
	return rc;
}
