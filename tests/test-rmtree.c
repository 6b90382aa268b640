/* test-rmtree.c - ab_remove_tree (src/base/rmtree.c), which empties the
 * scratch root between builds: a tree far deeper than the stack and the
 * descriptors allow, a symlink out of the tree, and mounts inside it or
 * on it, which it must leave whole and name. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "unpack-fixture.h"
#include "base/rmtree.h"
#include "base/util.h"

/* Makes a chain of depth directories "d" under dir, a file every
 * thousand levels, by descriptors (the path is far past PATH_MAX). */
static bool make_deep(const char *dir, int depth)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY), i;

	for (i = 0; i < depth && fd >= 0; i++) {
		int nfd;

		if (i % 1000 == 0)
			close(openat(fd, "f", O_WRONLY | O_CREAT, 0644));
		if (mkdirat(fd, "d", i == 100 ? 0555 : 0755) < 0)
			break;
		nfd = openat(fd, "d", O_RDONLY | O_DIRECTORY);
		close(fd);
		fd = nfd;
	}
	if (fd >= 0)
		close(fd);
	return i == depth;
}

static bool write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	return f && fputs(text, f) >= 0 && fclose(f) == 0;
}

static void test_remove_tree(void)
{
	char *tree = ab_path_join(sandbox, "tree"), *host = ab_path_join(sandbox, "host");
	char *p, *q;
	ab_error err = {0};
	struct stat st;
	pid_t pid;
	int status = -1, r, e;

	/* 30,000 levels under a 2 MB stack and 64 descriptors. */
	mkdir(tree, 0755);
	tap_ok(make_deep(tree, 30000), "a 30,000-deep tree is made");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct rlimit stack = { 2 << 20, 2 << 20 }, files = { 64, 64 };

		setrlimit(RLIMIT_STACK, &stack);
		setrlimit(RLIMIT_NOFILE, &files);
		_exit(ab_remove_tree_err(tree, &err) == 0 ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0 && lstat(tree, &st) < 0,
	       "30,000 levels: removed under a 2 MB stack and 64 descriptors (status %d)", status);
	ab_remove_tree(tree);

	/* A symlink out of the tree is removed, never followed. */
	mkdir(tree, 0755);
	mkdir(host, 0755);
	p = ab_path_join(host, "keep");
	write_file(p, "keep\n");
	q = ab_path_join(tree, "link");
	tap_ok(symlink(host, q) == 0 && ab_remove_tree_err(tree, &err) == 0 &&
	       lstat(tree, &st) < 0 && lstat(p, &st) == 0, "a symlink to a directory outside: not followed");
	free(q);

	/* Mounts: a bind mount of the same file system (same st_dev) and
	 * a tmpfs, inside the tree; then the tree itself a mount point. */
	mkdir(tree, 0755);
	q = ab_path_join(tree, "a");
	mkdir(q, 0755);
	free(q);
	q = ab_path_join(tree, "a/m");
	mkdir(q, 0755);
	if (geteuid() != 0 || mount(host, q, NULL, MS_BIND, NULL) < 0) {
		tap_skip(geteuid() != 0 ? "not root" : strerror(errno),
			 "a mount point inside the tree is not crossed");
		free(q);
		ab_remove_tree(tree);
		goto out;
	}
	ab_error_clear(&err);
	errno = 0;
	r = ab_remove_tree_err(tree, &err);
	e = errno;
	tap_ok(r < 0 && e == EBUSY, "a bind mount inside: the removal fails (%s)", strerror(e));
	tap_ok(strstr(err.msg, "tree/a/m: another file system is mounted there") && one_clean_line(err.msg),
	       "a bind mount inside: the message names it (%s)", err.msg);
	tap_ok(lstat(p, &st) == 0, "a bind mount inside: the host directory's file is there");
	umount2(q, MNT_DETACH);
	free(q);
	q = ab_path_join(tree, "a/t");
	mkdir(q, 0755);
	if (mount("none", q, "tmpfs", 0, NULL) == 0) {
		char *in = ab_path_join(q, "inside");

		write_file(in, "x");
		ab_error_clear(&err);
		tap_ok(ab_remove_tree_err(tree, &err) < 0 && lstat(in, &st) == 0 &&
		       strstr(err.msg, "tree/a/t: another file system"),
		       "a tmpfs inside: left, named (%s)", err.msg);
		umount2(q, MNT_DETACH);
		free(in);
	} else
		tap_skip(strerror(errno), "a tmpfs inside: left, named");
	free(q);
	tap_ok(ab_remove_tree(tree) == 0 && lstat(tree, &st) < 0, "after the umount the tree goes");
	mkdir(tree, 0755);
	if (mount(host, tree, NULL, MS_BIND, NULL) == 0) {
		ab_error_clear(&err);
		tap_ok(ab_remove_tree_err(tree, &err) < 0 && lstat(p, &st) == 0 &&
		       strstr(err.msg, "tree: another file system is mounted there"),
		       "a tree that is a mount point is left whole (%s)", err.msg);
		umount2(tree, MNT_DETACH);
	} else
		tap_skip(strerror(errno), "a tree that is a mount point is left whole");
	ab_remove_tree(tree);
out:
	free(p);
	free(tree);
	free(host);
}

int main(void)
{
	if (!fixture_open("test-rmtree"))
		return 1;
	test_remove_tree();
	fixture_close();
	return tap_done();
}
