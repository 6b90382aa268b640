/* rmtree.c - see rmtree.h.
 *
 * The walk holds one descriptor on the directory being emptied, one on
 * the tree's parent, and for a moment one for reading and one on the
 * way up: a 30,000-deep tree costs heap, not descriptors or stack. Each
 * directory is read once: files and empty directories go at once, the
 * names of the others are kept (in its frame, on the heap) and visited
 * in turn; going back up is openat(fd, "..") checked against the
 * parent's (st_dev, st_ino), or a walk down from the top again by name.
 *
 * Every directory the walk enters is checked to be on the tree's own
 * mount (the same st_dev and the same mount id, from statx or, on
 * kernels before 5.8, name_to_handle_at: a bind mount of the same file
 * system has the same st_dev). Only names
 * in such directories are unlinked, so nothing on another mount is ever
 * touched; the mount point itself is left, and named. A directory is
 * rmdir()ed before it is entered, and the kernel refuses that with EBUSY
 * for a mount point before it looks whether it is empty: a second guard
 * below the top that needs no mount id. (The top itself, without a
 * mount id, a kernel before 5.8 and a file system without handles, is
 * only told from its parent by st_dev.)
 */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "base/i18n.h"
#include "base/rmtree.h"
#include "base/util.h"

/* What the walk knows of a file. */
struct info {
	mode_t mode;
	dev_t dev;
	ino_t ino;
	uint64_t mnt;
	bool has_mnt;		/* mnt is the mount id */
};

typedef struct frame {
	char *name;		/* in its parent; NULL for the top */
	dev_t dev;
	ino_t ino;
	char **todo;		/* subdirectories not empty at the first look */
	size_t ntodo, cap;
	size_t left_before;	/* w->left when it was entered */
} frame;

typedef struct walk {
	const char *top;	/* the path as given, for messages */
	struct info mount;	/* the tree's own mount */
	frame *fr;
	size_t depth, cap;
	size_t left;		/* places that could not be removed */
	int first_errno;
	char *first;		/* "PATH: WHY" of the first of them */
} walk;

/* The errno values that stand for "another file system is mounted
 * there" and "it was replaced while we looked". */
#define WHY_MOUNT EBUSY
#define WHY_CHANGED ESTALE

/* The tree's parent is only named in *at() calls. */
#ifdef O_PATH
#define PARENT_FLAGS (O_PATH | O_DIRECTORY | O_CLOEXEC)
#else
#define PARENT_FLAGS (O_RDONLY | O_DIRECTORY | O_CLOEXEC)
#endif

/* The mount id of a kernel before statx gave it (Linux 5.8): the one
 * name_to_handle_at gives with the handle, where the file system has
 * handles (ext4, xfs, btrfs, tmpfs do). */
static void mount_id_at(int dfd, const char *name, int flags, struct info *in)
{
#if defined(__linux__) && defined(MAX_HANDLE_SZ)
	union {
		struct file_handle fh;
		char room[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} h;
	int id;

	h.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(dfd, name, &h.fh, &id, flags & AT_EMPTY_PATH) == 0 ||
	    errno == EOVERFLOW) {
		in->has_mnt = true;
		in->mnt = (uint64_t)(unsigned)id;
	}
#else
	(void)dfd;
	(void)name;
	(void)flags;
	(void)in;
#endif
}

static int info_at(int dfd, const char *name, struct info *in)
{
	struct stat st;
	int flags = AT_SYMLINK_NOFOLLOW | (*name ? 0 : AT_EMPTY_PATH);
#ifdef STATX_MNT_ID
	struct statx sx;

	if (statx(dfd, name, flags, STATX_TYPE | STATX_MODE | STATX_INO | STATX_MNT_ID, &sx) == 0) {
		in->mode = sx.stx_mode;
		in->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
		in->ino = sx.stx_ino;
		in->has_mnt = (sx.stx_mask & STATX_MNT_ID) != 0;
		in->mnt = sx.stx_mnt_id;
		if (!in->has_mnt && S_ISDIR(in->mode))
			mount_id_at(dfd, name, flags, in);
		return 0;
	}
	if (errno != ENOSYS)
		return -1;
#endif
	if (fstatat(dfd, name, &st, flags) < 0)
		return -1;
	in->mode = st.st_mode;
	in->dev = st.st_dev;
	in->ino = st.st_ino;
	in->has_mnt = false;
	in->mnt = 0;
	if (S_ISDIR(in->mode))
		mount_id_at(dfd, name, flags, in);
	return 0;
}

static bool same_mount(const struct info *a, const struct info *b)
{
	return a->dev == b->dev && (!a->has_mnt || !b->has_mnt || a->mnt == b->mnt);
}

/* Appends a name, one printable line whatever bytes it holds. */
static void put_name(ab_buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch < 0x20 || ch == 0x7f || ch == '\\')
			ab_buf_printf(b, "\\x%02x", ch);
		else
			ab_buf_append(b, s, 1);
	}
}

/* Records that name (in the directory of the top frame; NULL, or any
 * name before the walk has a frame: that directory itself) was left,
 * and why (an errno value). */
static void left(walk *w, const char *name, int e)
{
	ab_buf b = {0};
	size_t i;

	if (w->left++ > 0)
		return;
	w->first_errno = e;
	put_name(&b, w->top);
	for (i = 1; i < w->depth; i++) {
		/* A path thousands of levels deep is shown by its ends. */
		if (i == 8 && w->depth > 24) {
			ab_buf_puts(&b, "/...");
			i = w->depth - 8;
		}
		ab_buf_puts(&b, "/");
		put_name(&b, w->fr[i].name);
	}
	if (name && w->depth) {
		ab_buf_puts(&b, "/");
		put_name(&b, name);
	}
	w->first = ab_xasprintf("%s: %s", b.data,
				e == WHY_MOUNT ? _("another file system is mounted there") :
				e == WHY_CHANGED ? _("it changed while it was being removed") :
				strerror(e));
	ab_buf_free(&b);
}

static void push(walk *w, const char *name, const struct info *in)
{
	frame *f;

	if (w->depth == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 64;
		w->fr = ab_xrealloc(w->fr, w->cap * sizeof *w->fr);
	}
	f = &w->fr[w->depth++];
	memset(f, 0, sizeof *f);
	f->name = ab_xstrdup(name);
	f->dev = in->dev;
	f->ino = in->ino;
	f->left_before = w->left;
}

static void pop(walk *w)
{
	frame *f = &w->fr[--w->depth];

	while (f->ntodo)
		free(f->todo[--f->ntodo]);
	free(f->todo);
	free(f->name);
}

static void add_todo(frame *f, const char *name)
{
	if (f->ntodo == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 16;
		f->todo = ab_xrealloc(f->todo, f->cap * sizeof *f->todo);
	}
	f->todo[f->ntodo++] = ab_xstrdup(name);
}

/* Opens directory name in dfd for the walk, made writable and
 * searchable (payloads may carry 0555 directories), when it is still
 * the directory *in was and on the tree's mount. -1 when it is not
 * (then it is recorded as left, unless it is gone). */
static int enter(walk *w, int dfd, const char *name, const struct info *in)
{
	struct info now;
	int fd;

	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == EACCES && fchmodat(dfd, name, (in->mode & 07777) | 0700, 0) == 0)
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			left(w, name, errno);
		return -1;
	}
	if (info_at(fd, "", &now) < 0 || !same_mount(&now, &w->mount)) {
		left(w, name, WHY_MOUNT);
		close(fd);
		return -1;
	}
	if (now.ino != in->ino) {
		left(w, name, WHY_CHANGED);
		close(fd);
		return -1;
	}
	if ((now.mode & 0700) != 0700)
		fchmod(fd, (now.mode & 07777) | 0700);
	return fd;
}

/* The first look at the directory of the top frame, open as fd: files
 * and empty directories go, the other directories are kept for later. */
static void scan(walk *w, int fd)
{
	frame *f = &w->fr[w->depth - 1];
	int rfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = rfd < 0 ? NULL : fdopendir(rfd);
	struct dirent *de;

	if (!d) {
		if (rfd >= 0)
			close(rfd);
		left(w, NULL, errno);
		return;
	}
	while ((de = readdir(d))) {
		const char *name = de->d_name;
		struct info in;

		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		if (info_at(fd, name, &in) < 0) {
			if (errno != ENOENT)
				left(w, name, errno);
			continue;
		}
		if (!S_ISDIR(in.mode)) {
			if (unlinkat(fd, name, 0) < 0 && errno != ENOENT)
				left(w, name, errno);
		} else if (!same_mount(&in, &w->mount)) {
			left(w, name, WHY_MOUNT);
		} else if (unlinkat(fd, name, AT_REMOVEDIR) < 0 && errno != ENOENT) {
			if (errno == ENOTEMPTY || errno == EEXIST)
				add_todo(f, name);
			else
				left(w, name, errno);
		}
	}
	closedir(d);
}

/* The directory of frame w->depth - 2, from fd (its child): through
 * "..", or from the top again when ".." is not it any more. */
static int up(walk *w, int fd, int pfd, const char *base)
{
	const frame *p = &w->fr[w->depth - 2];
	struct info in;
	int nfd = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	size_t i;

	if (nfd >= 0 && info_at(nfd, "", &in) == 0 && in.dev == p->dev && in.ino == p->ino)
		return nfd;
	if (nfd >= 0)
		close(nfd);
	nfd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	for (i = 0; nfd >= 0; i++) {
		int next;

		if (info_at(nfd, "", &in) < 0 || in.dev != w->fr[i].dev || in.ino != w->fr[i].ino)
			break;
		if (i == w->depth - 2)
			return nfd;
		next = openat(nfd, w->fr[i + 1].name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(nfd);
		nfd = next;
	}
	if (nfd >= 0)
		close(nfd);
	return -1;
}

/* Empties and removes directory base of pfd, open as fd, which is on
 * the tree's mount. Closes fd. */
static void remove_dir(walk *w, int pfd, const char *base, int fd, const struct info *top)
{
	push(w, NULL, top);
	scan(w, fd);
	while (w->depth > 0) {
		frame *f = &w->fr[w->depth - 1];

		if (f->ntodo) {
			char *name = f->todo[--f->ntodo];
			struct info in;
			int nfd = -1;

			if (info_at(fd, name, &in) < 0) {
				if (errno != ENOENT)
					left(w, name, errno);
			} else if (!S_ISDIR(in.mode)) {
				if (unlinkat(fd, name, 0) < 0 && errno != ENOENT)
					left(w, name, errno);
			} else if (!same_mount(&in, &w->mount)) {
				left(w, name, WHY_MOUNT);
			} else {
				nfd = enter(w, fd, name, &in);
			}
			if (nfd >= 0) {
				push(w, name, &in);
				close(fd);
				fd = nfd;
				scan(w, fd);
			}
			free(name);
			continue;
		}
		/* Empty, as far as it goes: out of it, and away with it. */
		if (w->depth == 1) {
			close(fd);
			if (unlinkat(pfd, base, AT_REMOVEDIR) < 0 && errno != ENOENT &&
			    w->left == f->left_before)
				left(w, NULL, errno);
			pop(w);
			return;
		}
		{
			int pfd2 = up(w, fd, pfd, base);

			close(fd);
			if (pfd2 < 0) {
				/* Moved away under us: what is left of it stays. */
				pop(w);
				left(w, NULL, WHY_CHANGED);
				while (w->depth)
					pop(w);
				return;
			}
			fd = pfd2;
			if (unlinkat(fd, f->name, AT_REMOVEDIR) < 0 && errno != ENOENT &&
			    w->left == f->left_before) {
				int e = errno;
				char *name = ab_xstrdup(f->name);

				pop(w);
				left(w, name, e);
				free(name);
			} else {
				pop(w);
			}
		}
	}
}

int ab_remove_tree_err(const char *path, ab_error *err)
{
	walk w = { .top = path };
	struct info in, parent;
	char *dir, *base, *slash;
	size_t n = strlen(path);
	int pfd, fd;

	/* "a/b/" is "a/b"; "/" and the like are refused. */
	while (n > 1 && path[n - 1] == '/')
		n--;
	dir = ab_xstrndup(path, n);
	slash = strrchr(dir, '/');
	if (slash) {
		base = slash + 1;
		*slash = '\0';
		pfd = open(slash == dir ? "/" : dir, PARENT_FLAGS);
	} else {
		base = dir;
		pfd = open(".", PARENT_FLAGS);
	}
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		errno = EINVAL;
		left(&w, NULL, EINVAL);
		goto out;
	}
	if (pfd < 0 || info_at(pfd, base, &in) < 0) {
		if (errno != ENOENT)
			left(&w, NULL, errno);
		goto out;
	}
	if (!S_ISDIR(in.mode)) {
		if (unlinkat(pfd, base, 0) < 0 && errno != ENOENT)
			left(&w, NULL, errno);
		goto out;
	}
	/* The tree's mount is its parent's: a scratch root that is itself
	 * a mount point is somebody else's file system. */
	if (info_at(pfd, "", &parent) < 0) {
		left(&w, NULL, errno);
		goto out;
	}
	if (!same_mount(&in, &parent)) {
		left(&w, NULL, WHY_MOUNT);
		goto out;
	}
	w.mount = in;
	fd = enter(&w, pfd, base, &in);
	if (fd >= 0)
		remove_dir(&w, pfd, base, fd, &in);
out:
	if (pfd >= 0)
		close(pfd);
	free(dir);
	free(w.fr);
	if (!w.left)
		return 0;
	if (w.left == 1)
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot remove %s"), w.first);
	else
		ab_error_set(err, AB_EXIT_FAILURE,
			     ngettext("cannot remove %s (and %zu more place)",
				      "cannot remove %s (and %zu more places)", w.left - 1),
			     w.first, w.left - 1);
	free(w.first);
	errno = w.first_errno;
	return -1;
}

int ab_remove_tree(const char *path)
{
	return ab_remove_tree_err(path, NULL);
}
