/* test-unpack.c - ab_unpack against archives built here with libarchive's
 * writer (unpack-fixture.c): formats and filters, permissions, and every
 * kind of entry that tries to leave the root. Each case unpacks into
 * SANDBOX/root; an attack must be refused, name its entry, and leave the
 * rest of the sandbox and /etc/passwd exactly as they were. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libintl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "tap.h"
#include "unpack-fixture.h"
#include "pkg/unpack.h"
#include "base/rmtree.h"
#include "base/util.h"

/* ---- running cases ---- */

static ab_unpack_rc unpack(const char *path, ab_artifact_type type, const char *name,
			   char **reason, ab_error *err)
{
	ab_error_clear(err);
	return ab_unpack(path, type, name, root, reason, err);
}

/* Builds, unpacks and expects OK. Returns whether the case ran. */
static bool good(const char *label, const char *file, const char *format, const char *filter,
		 ab_artifact_type type, const struct ent *ents, size_t n)
{
	char *path, *reason = NULL, *before, *after;
	ab_error err = {0};
	ab_unpack_rc rc;
	int b = build(file, format, filter, ents, n, &path);

	if (b == 0) {
		tap_skip("libarchive here cannot write it", "%s: %s/%s unpacked, nothing changed outside",
			 label, format, filter);
		free(path);
		return false;
	}
	fresh_root();
	before = snapshot();
	rc = unpack(path, type, file, &reason, &err);
	after = snapshot();
	tap_ok(b == 1 && rc == AB_UNPACK_OK, "%s: unpacked (rc %d, %s%s)", label, rc,
	       reason ? reason : "", err.msg);
	tap_ok(!strcmp(before, after), "%s: nothing changed outside the root", label);
	free(before);
	free(after);
	free(reason);
	free(path);
	return true;
}

/* Unpacks path and expects REFUSED naming needle, nothing outside touched. */
static void refused_path(const char *label, const char *path, ab_artifact_type type,
			 const char *needle)
{
	char *reason = NULL, *before, *after;
	ab_error err = {0};
	ab_unpack_rc rc;

	fresh_root();
	before = snapshot();
	rc = unpack(path, type, "artifact", &reason, &err);
	after = snapshot();
	tap_ok(rc == AB_UNPACK_REFUSED, "%s: refused (rc %d)", label, rc);
	tap_ok(reason && strstr(reason, needle), "%s: reason mentions '%s'", label, needle);
	if (reason)
		tap_diag("reason: %s", reason);
	else if (err.msg[0])
		tap_diag("error: %s", err.msg);
	tap_ok(reason && one_clean_line(reason), "%s: reason is one clean line", label);
	tap_ok(!strcmp(before, after), "%s: nothing changed outside the root", label);
	free(before);
	free(after);
	free(reason);
}

static void attack(const char *label, const char *format, const struct ent *ents, size_t n,
		   const char *needle)
{
	char *path, *file = ab_xasprintf("attack-%d.%s", tap_n, format);
	bool zip = !strcmp(format, "zip");
	int b = build(file, format, zip ? NULL : "gzip", ents, n, &path);

	if (b != 1) {
		tap_ok(0, "%s: archive could not be built", label);
	} else {
		refused_path(label, path, zip ? AB_ART_ZIP : AB_ART_TAR, needle);
	}
	free(path);
	free(file);
}

static void test_normal(void)
{
	const struct ent ents[] = {
		{ "bin", D, 0755, NULL, 0 },
		{ "bin/tool", F, 0755, "#!/bin/sh\necho hi\n", 0 },
		{ "share/doc/readme", F, 0644, "hello\n", 0 },
		{ "lib", D, 0750, NULL, 0 },
		{ "lib/libx.so.1", F, 0644, NULL, 70000 },
		{ "lib/libx.so", L, 0777, "libx.so.1", 0 },
		{ "etc-link", L, 0777, "/etc/passwd", 0 },
		{ "lib/libx-hard", H, 0644, "lib/libx.so.1", 0 },
		{ "fifo", P, 0644, NULL, 0 },
	};
	static const char *formats[][3] = {
		{ "pax", "gzip", "tar.gz" },
		{ "pax", "xz", "tar.xz" },
		{ "pax", "zstd", "tar.zst" },
		{ "gnutar", "bzip2", "tar.bz2" },
		{ "ustar", NULL, "tar" },
		{ "gnutar", "lzip", "tar.lz" },
	};
	size_t i;

	for (i = 0; i < N(formats); i++) {
		char *file = ab_xasprintf("normal.%s", formats[i][2]);
		char buf[64];
		char *t;
		struct stat a, b;
		char *p1, *p2;
		ssize_t n;

		if (!good(formats[i][2], file, formats[i][0], formats[i][1], AB_ART_TAR, ents, N(ents))) {
			free(file);
			continue;
		}
		t = file_text("bin/tool");
		tap_ok(t && !strcmp(t, "#!/bin/sh\necho hi\n"), "%s: file contents", file);
		free(t);
		tap_ok((mode_of("bin/tool") & 07777) == 0755, "%s: exec bit kept", file);
		tap_ok((mode_of("share/doc/readme") & 07777) == 0644, "%s: 0644 kept", file);
		tap_ok(S_ISDIR(mode_of("share/doc")), "%s: implicit directories made", file);
		tap_ok((mode_of("lib") & 07777) == 0750, "%s: directory mode 0750", file);
		p1 = in_root("lib/libx.so");
		n = readlink(p1, buf, sizeof buf - 1);
		buf[n > 0 ? n : 0] = '\0';
		tap_ok(!strcmp(buf, "libx.so.1"), "%s: symlink made (%s)", file, buf);
		free(p1);
		p1 = in_root("etc-link");
		n = readlink(p1, buf, sizeof buf - 1);
		buf[n > 0 ? n : 0] = '\0';
		tap_ok(!strcmp(buf, "/etc/passwd"), "%s: absolute symlink kept as data", file);
		free(p1);
		p1 = in_root("lib/libx.so.1");
		p2 = in_root("lib/libx-hard");
		tap_ok(stat(p1, &a) == 0 && stat(p2, &b) == 0 && a.st_ino == b.st_ino &&
		       a.st_size == 70000, "%s: hard link inside the root", file);
		tap_ok(a.st_mtime == 1600000000, "%s: mtime restored", file);
		free(p1);
		free(p2);
		tap_ok(!exists_in(root, "fifo"), "%s: fifo skipped", file);
		free(file);
	}
}

static void test_zip(void)
{
	const struct ent ents[] = {
		{ "app/", D, 0755, NULL, 0 },
		{ "app/run", F, 0755, "run\n", 0 },
		{ "app/data.bin", F, 0644, NULL, 5000 },
		{ "app/link", L, 0777, "run", 0 },
	};
	char buf[64];
	char *p, *t;
	ssize_t n;

	if (!good("zip", "normal.zip", "zip", NULL, AB_ART_ZIP, ents, N(ents)))
		return;
	t = file_text("app/run");
	tap_ok(t && !strcmp(t, "run\n"), "zip: file contents");
	free(t);
	tap_ok((mode_of("app/run") & 07777) == 0755, "zip: exec bit kept");
	p = in_root("app/link");
	n = readlink(p, buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = '\0';
	tap_ok(!strcmp(buf, "run"), "zip: symlink made (%s)", buf);
	free(p);
}

/* Entries that move between directories, and links that replace links:
 * each lands where its name says. */
static void test_walks(void)
{
	/* Walks start from the directory of the entry before when they can:
	 * entries that move between directories, up and down, at the root. */
	const struct ent hops[] = {
		{ "a/1", F, 0644, "a1\n", 0 },
		{ "b/1", F, 0644, "b1\n", 0 },
		{ "a/2", F, 0644, "a2\n", 0 },
		{ "a/c/1", F, 0644, "ac1\n", 0 },
		{ "a/3", F, 0644, "a3\n", 0 },
		{ "top", F, 0644, "top\n", 0 },
		{ "b/d/e/1", F, 0644, "bde1\n", 0 },
		{ "a/c/2", F, 0644, "ac2\n", 0 },
		{ "a/c", D, 0755, NULL, 0 },
		{ "a/c/3", F, 0644, "ac3\n", 0 },
	};
	const struct ent relink[] = {
		{ "x", L, 0777, "a", 0 },
		{ "x", L, 0777, "b", 0 },
		{ "f", F, 0644, "f\n", 0 },
		{ "f", L, 0777, "x", 0 },
	};
	char buf[16], *p;
	ssize_t n;

	if (good("hops between directories", "hops.tar", "pax", NULL, AB_ART_TAR, hops, N(hops))) {
		const char *files[] = { "a/1", "b/1", "a/2", "a/c/1", "a/3", "top", "b/d/e/1",
					"a/c/2", "a/c/3" };
		size_t i, whole = 0;

		for (i = 0; i < N(files); i++)
			whole += S_ISREG(mode_of(files[i]));
		tap_ok(whole == N(files), "hops between directories: every file in its place (%zu)",
		       whole);
	}
	fresh_root();
	if (good("symlink over symlink", "relink.tar", "pax", NULL, AB_ART_TAR, relink, N(relink))) {
		p = in_root("x");
		n = readlink(p, buf, sizeof buf - 1);
		buf[n > 0 ? n : 0] = '\0';
		tap_ok(!strcmp(buf, "b"), "a symlink entry may replace a symlink (%s)", buf);
		free(p);
		tap_ok(S_ISLNK(mode_of("f")), "a symlink entry may replace a file");
	}
}

/* Modes, leading "./", and names no terminal should see: applied as the
 * archive says, but for the bits no artifact may set. */
static void test_modes(void)
{
	const struct ent dots[] = {
		{ "./", D, 0555, NULL, 0 },
		{ "/", D, 0500, NULL, 0 },
		{ "./a/", D, 0755, NULL, 0 },
		{ "./a/b", F, 0644, "b\n", 0 },
		{ ".//a/./c", F, 0644, "c\n", 0 },
		{ "./a/hard", H, 0644, "./a/b", 0 },
	};
	const struct ent ro[] = {
		{ "ro", D, 0555, NULL, 0 },
		{ "ro/a", F, 0444, "a\n", 0 },
		{ "ro/sub", D, 0555, NULL, 0 },
		{ "ro/sub/b", F, 0644, "b\n", 0 },
		{ "ro/sub/c", F, 0644, "c\n", 0 },
		{ "ro/zero", D, 0000, NULL, 0 },
		{ "ro/zero/d", F, 0644, "d\n", 0 },
	};
	const struct ent bits[] = {
		{ "suid", F, 04755, "x\n", 0 },
		{ "sgid", F, 02755, "x\n", 0 },
		{ "sticky", D, 01777, NULL, 0 },
		{ "sgiddir", D, 02775, NULL, 0 },
	};
	const struct ent odd[] = {
		{ "line1\nline2", F, 0644, "nl\n", 0 },
		{ "bad\xff\xfe", F, 0644, "bytes\n", 0 },
		{ "esc\x1b[31m", F, 0644, "esc\n", 0 },
	};
	struct stat st;

	if (good("leading ./", "dots.tar.gz", "pax", "gzip", AB_ART_TAR, dots, N(dots))) {
		tap_ok(stat(root, &st) == 0 && (st.st_mode & 07777) == 0755,
		       "leading ./: the root's own mode is left alone");
		tap_ok(S_ISREG(mode_of("a/b")) && S_ISREG(mode_of("a/c")) && S_ISREG(mode_of("a/hard")),
		       "leading ./: entries land under the root");
	}
	if (good("0555 dirs", "ro.tar.gz", "pax", "gzip", AB_ART_TAR, ro, N(ro))) {
		tap_ok((mode_of("ro") & 07777) == 0555 && (mode_of("ro/sub") & 07777) == 0555,
		       "0555 dirs: modes applied at the end (%o)", (unsigned)mode_of("ro"));
		tap_ok(S_ISREG(mode_of("ro/sub/c")) && S_ISREG(mode_of("ro/a")),
		       "0555 dirs: files inside were written");
		tap_ok((mode_of("ro/zero") & 07777) == 0500,
		       "0000 dir: owner can still read and search it (%o)",
		       (unsigned)(mode_of("ro/zero") & 07777));
		tap_ok(ab_remove_tree(root) == 0 && lstat(root, &st) < 0,
		       "0555 dirs: ab_remove_tree removes the root");
	}
	if (good("mode bits", "bits.tar", "pax", NULL, AB_ART_TAR, bits, N(bits))) {
		tap_ok((mode_of("suid") & 07777) == 0755, "setuid stripped (%o)",
		       (unsigned)(mode_of("suid") & 07777));
		tap_ok((mode_of("sgid") & 07777) == 0755, "setgid stripped (%o)",
		       (unsigned)(mode_of("sgid") & 07777));
		tap_ok((mode_of("sticky") & 07777) == 0777, "sticky stripped (%o)",
		       (unsigned)(mode_of("sticky") & 07777));
		tap_ok((mode_of("sgiddir") & 07777) == 0775, "setgid directory stripped (%o)",
		       (unsigned)(mode_of("sgiddir") & 07777));
	}
	if (good("odd names", "odd.tar.gz", "pax", "gzip", AB_ART_TAR, odd, N(odd))) {
		tap_ok(S_ISREG(mode_of("line1\nline2")), "a name with a newline is created as is");
		tap_ok(S_ISREG(mode_of("bad\xff\xfe")), "a name in invalid UTF-8 is created as is");
		tap_ok(S_ISREG(mode_of("esc\x1b[31m")), "a name with ESC is created as is");
	}
}

/* Entries whose own names leave the root, or would reach a terminal. */
static void test_path_attacks(void)
{
	char *abs_file = ab_path_join(outside, "abs-pwned");
	const struct ent dotdot[] = {
		{ "ok", F, 0644, "fine\n", 0 },
		{ "../outside/dotdot-pwned", F, 0644, "x\n", 0 },
	};
	const struct ent dotdot2[] = {
		{ "a/b/../../../outside/dotdot-pwned", F, 0644, "x\n", 0 },
	};
	const struct ent dotdot_dir[] = {
		{ "..", D, 0777, NULL, 0 },
	};
	const struct ent absolute[] = {
		{ abs_file, F, 0644, "x\n", 0 },
	};
	const struct ent abs_etc[] = {
		{ "/etc/artbisect-pwned", F, 0644, "x\n", 0 },
	};
	const struct ent nl[] = {
		{ "../evil\nname", F, 0644, "x\n", 0 },
	};
	const struct ent esc[] = {
		{ "../\x1b]0;pwned\x07", F, 0644, "x\n", 0 },
	};
	const struct ent zip_dotdot[] = {
		{ "../outside/zip-pwned", F, 0644, "x\n", 0 },
	};
	const struct ent zip_abs[] = {
		{ abs_file, F, 0644, "x\n", 0 },
	};
	char *p;

	attack("'..' path", "pax", dotdot, N(dotdot), "'../outside/dotdot-pwned': path leaves the root");
	tap_ok(!exists_in(outside, "dotdot-pwned"), "'..' path: nothing written outside");
	attack("'..' inside a path", "pax", dotdot2, N(dotdot2), "a/b/../../../outside/dotdot-pwned");
	attack("'..' directory", "gnutar", dotdot_dir, N(dotdot_dir), "path leaves the root");
	attack("absolute path", "pax", absolute, N(absolute), abs_file);
	attack("absolute /etc path", "ustar", abs_etc, N(abs_etc), "/etc/artbisect-pwned");
	tap_ok(access("/etc/artbisect-pwned", F_OK) < 0, "absolute /etc path: /etc untouched");
	attack("name with a newline", "pax", nl, N(nl), "'../evil\\nname'");
	attack("name with escapes", "pax", esc, N(esc), "\\x1b]0;pwned\\x07");
	attack("zip '..' path", "zip", zip_dotdot, N(zip_dotdot), "../outside/zip-pwned");
	attack("zip absolute path", "zip", zip_abs, N(zip_abs), abs_file);
	p = in_root("ok");
	/* partial or empty: either is the caller's to remove, so not a test */
	tap_diag("refusals leave partial roots for the caller to remove (%s)",
		 access(p, F_OK) == 0 ? "partial" : "empty");
	free(p);
	free(abs_file);
}

/* Symlinks that a later entry would write through or replace. */
static void test_symlink_attacks(void)
{
	char *abs_dir = ab_xstrdup(outside);
	char *abs_target = ab_path_join(outside, "target");
	const struct ent link_file[] = {
		{ "evil", L, 0777, abs_target, 0 },
		{ "evil", F, 0644, "through the link\n", 0 },
	};
	const struct ent link_file_rel[] = {
		{ "evil", L, 0777, "../outside/target", 0 },
		{ "evil", F, 0644, "through the link\n", 0 },
	};
	const struct ent link_dir[] = {
		{ "d", L, 0777, abs_dir, 0 },
		{ "d/pwned", F, 0644, "through the link\n", 0 },
	};
	const struct ent link_dir_rel[] = {
		{ "up", L, 0777, "..", 0 },
		{ "up/outside/pwned", F, 0644, "x\n", 0 },
	};
	const struct ent link_dir_mkdir[] = {
		{ "d", L, 0777, abs_dir, 0 },
		{ "d/newdir", D, 0777, NULL, 0 },
	};
	const struct ent link_over_dir[] = {
		{ "d", D, 0777, NULL, 0 },
		{ "d", L, 0777, abs_dir, 0 },
	};
	/* The directory the last walk ended in is trusted by the next one;
	 * whatever changes it or the way to it must make them look again. */
	const struct ent link_over_walked_dir[] = {
		{ "a/b/x", F, 0644, "x\n", 0 },
		{ "a/b", L, 0777, abs_dir, 0 },
		{ "a/b/pwned", F, 0644, "through the link\n", 0 },
	};
	const struct ent link_over_walked_file[] = {
		{ "a/b/x", F, 0644, "x\n", 0 },
		{ "a/b/c", F, 0644, "c\n", 0 },
		{ "a/b/c", L, 0777, abs_dir, 0 },
		{ "a/b/c/pwned", F, 0644, "through the link\n", 0 },
	};
	const struct ent link_beside_walked_dir[] = {
		{ "a/x", F, 0644, "x\n", 0 },
		{ "a/l", L, 0777, abs_dir, 0 },
		{ "a/x2", F, 0644, "x2\n", 0 },
		{ "a/l/pwned", F, 0644, "through the link\n", 0 },
	};

	attack("file through absolute symlink", "pax", link_file, N(link_file),
	       "'evil': writes through symlink 'evil'");
	tap_ok(!exists_in(outside, "target"), "file through symlink: outside target not created");
	attack("file through relative symlink", "pax", link_file_rel, N(link_file_rel), "'evil'");
	tap_ok(!exists_in(outside, "target"), "file through relative symlink: no outside target");
	attack("file through directory symlink", "pax", link_dir, N(link_dir),
	       "'d/pwned': writes through symlink 'd'");
	tap_ok(!exists_in(outside, "pwned"), "directory symlink: nothing written outside");
	attack("file through '..' symlink", "pax", link_dir_rel, N(link_dir_rel), "up/outside/pwned");
	attack("directory through symlink", "gnutar", link_dir_mkdir, N(link_dir_mkdir), "d/newdir");
	tap_ok(!exists_in(outside, "newdir"), "directory through symlink: nothing made outside");
	attack("symlink replacing a directory", "pax", link_over_dir, N(link_over_dir),
	       "symlink replaces a directory");
	attack("symlink over a walked directory", "pax", link_over_walked_dir,
	       N(link_over_walked_dir), "'a/b': symlink replaces a directory");
	attack("symlink over a file in a walked directory", "pax", link_over_walked_file,
	       N(link_over_walked_file), "'a/b/c/pwned': writes through symlink 'a/b/c'");
	attack("symlink beside a walked directory", "pax", link_beside_walked_dir,
	       N(link_beside_walked_dir), "'a/l/pwned': writes through symlink 'a/l'");
	tap_ok(!exists_in(outside, "pwned"), "walked directories: nothing written outside");
	free(abs_dir);
	free(abs_target);
}

/* Hard links to anything but a regular file already in the root, and
 * device nodes. */
static void test_hardlink_attacks(void)
{
	char *abs_dir = ab_xstrdup(outside);
	char *abs_keep = ab_path_join(outside, "keep.txt");
	const struct ent hard_passwd[] = {
		{ "hl", H, 0644, "/etc/passwd", 0 },
	};
	const struct ent hard_dotdot[] = {
		{ "hl2", H, 0644, "../outside/keep.txt", 0 },
	};
	const struct ent hard_via_link[] = {
		{ "l", L, 0777, abs_dir, 0 },
		{ "hl3", H, 0644, "l/keep.txt", 0 },
	};
	const struct ent hard_to_link[] = {
		{ "l", L, 0777, abs_keep, 0 },
		{ "hl4", H, 0644, "l", 0 },
	};
	const struct ent hard_to_dir[] = {
		{ "dir", D, 0755, NULL, 0 },
		{ "hl5", H, 0644, "dir", 0 },
	};
	const struct ent hard_missing[] = {
		{ "hl6", H, 0644, "nowhere", 0 },
	};
	const struct ent chr[] = {
		{ "dev/null", C, 0666, NULL, 0 },
	};
	const struct ent blk[] = {
		{ "dev/sda", B, 0660, NULL, 0 },
	};

	attack("hard link to /etc/passwd", "pax", hard_passwd, N(hard_passwd),
	       "'hl': hard link target '/etc/passwd' is absolute");
	attack("hard link to ../outside", "pax", hard_dotdot, N(hard_dotdot),
	       "'hl2': hard link target '../outside/keep.txt' leaves the root");
	attack("hard link through a symlink", "pax", hard_via_link, N(hard_via_link), "'hl3'");
	attack("hard link to a symlink", "pax", hard_to_link, N(hard_to_link),
	       "'hl4': hard link target 'l' is a symlink");
	attack("hard link to a directory", "pax", hard_to_dir, N(hard_to_dir),
	       "'hl5': hard link target 'dir' is not a regular file in the root");
	attack("hard link to nothing", "pax", hard_missing, N(hard_missing),
	       "'hl6': hard link target 'nowhere' is not a regular file");
	attack("char device", "pax", chr, N(chr), "'dev/null': device node");
	attack("block device", "ustar", blk, N(blk), "'dev/sda': device node");
	free(abs_dir);
	free(abs_keep);
}

static void test_damaged(void)
{
	const struct ent big[] = {
		{ "a", F, 0644, NULL, 200000 },
		{ "b", F, 0644, "b\n", 0 },
	};
	unsigned char *bytes;
	char *path, *data;
	size_t len;
	struct archive *a;

	if (build("big.tar.gz", "pax", "gzip", big, N(big), &path) == 1 &&
	    ab_read_file(path, 1 << 22, &data, &len, NULL) == 0) {
		char *cut = write_bytes("cut.tar.gz", data, len / 2);

		refused_path("truncated .tar.gz", cut, AB_ART_TAR, "damaged archive: ");
		free(cut);
		free(data);
	}
	free(path);
	if (build("big.tar", "ustar", NULL, big, N(big), &path) == 1 &&
	    ab_read_file(path, 1 << 22, &data, &len, NULL) == 0) {
		char *cut = write_bytes("cut.tar", data, 100000);

		refused_path("truncated .tar", cut, AB_ART_TAR, "damaged archive: ");
		free(cut);
		free(data);
	}
	free(path);

	bytes = noise(8192);
	path = write_bytes("random.tar", bytes, 8192);
	refused_path("random bytes as tar", path, AB_ART_TAR, "not an archive libarchive can read: ");
	free(path);
	path = write_bytes("random.zip", bytes, 8192);
	refused_path("random bytes as zip", path, AB_ART_ZIP, "not an archive libarchive can read: ");
	free(path);
	free(bytes);
	path = write_bytes("empty.tar", "", 0);
	refused_path("empty file as tar", path, AB_ART_TAR, "not an archive libarchive can read: ");
	free(path);
	path = write_bytes("empty.zip", "", 0);
	refused_path("empty file as zip", path, AB_ART_ZIP, "not an archive libarchive can read: ");
	free(path);
	path = write_bytes("zeros.tar", (char[1024]){0}, 1024);
	refused_path("tar with no entries", path, AB_ART_TAR, "no entries");
	free(path);
	path = write_bytes("plain.gz", "\x1f\x8b", 2);
	refused_path("two bytes of gzip", path, AB_ART_TAR, "");
	free(path);

	/* A compressed lone file, not a tar: no "raw" format. */
	a = archive_write_new();
	path = ab_path_join(arcdir, "raw.gz");
	archive_write_set_format_raw(a);
	archive_write_add_filter_gzip(a);
	if (archive_write_open_filename(a, path) == ARCHIVE_OK) {
		struct archive_entry *e = archive_entry_new();

		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_pathname(e, "x");
		archive_write_header(a, e);
		archive_write_data(a, "just some text\n", 15);
		archive_entry_free(e);
		archive_write_close(a);
		refused_path("gzip of a lone file as tar", path, AB_ART_TAR,
			     "not an archive libarchive can read: ");
	}
	archive_write_free(a);
	free(path);

	/* The wrong type. */
	if (build("really.zip", "zip", NULL, big + 1, 1, &path) == 1)
		refused_path("zip as tar", path, AB_ART_TAR, "not an archive libarchive can read: ");
	free(path);
	if (build("really.tar", "ustar", NULL, big + 1, 1, &path) == 1)
		refused_path("tar as zip", path, AB_ART_ZIP, "not an archive libarchive can read: ");
	free(path);
}

/* Empty directories cost against --max-unpacked; there is a cap on
 * entries; an entry deeper than 512 components is refused. */
static void test_entry_caps(void)
{
	struct ent dirs[40], deep[1], ok[1];
	char names[40][16], *long_name = ab_xmalloc(2 * 513 + 2), *ok_name = ab_xmalloc(2 * 512 + 2);
	char *path, *reason = NULL;
	ab_error err = {0};
	size_t i;

	for (i = 0; i < N(dirs); i++) {
		snprintf(names[i], sizeof names[i], "d%zu", i);
		dirs[i] = (struct ent){ names[i], D, 0755, NULL, 0 };
	}
	setenv("ARTBISECT_MAX_UNPACKED", "100000", 1);
	attack("empty directories count", "pax", dirs, N(dirs),
	       "unpacked size exceeds 100000 bytes at entry 'd24/'");
	unsetenv("ARTBISECT_MAX_UNPACKED");
	setenv("ARTBISECT_MAX_ENTRIES", "30", 1);
	attack("entry cap", "pax", dirs, N(dirs), "more than 30 entries at entry 'd30/'");
	setenv("ARTBISECT_MAX_ENTRIES", "40", 1);
	if (build("forty.tar", "pax", NULL, dirs, N(dirs), &path) == 1) {
		fresh_root();
		tap_ok(unpack(path, AB_ART_TAR, "forty.tar", &reason, &err) == AB_UNPACK_OK,
		       "entry cap: exactly at the cap is fine (%s)", reason ? reason : "");
		free(reason);
		reason = NULL;
	}
	free(path);
	setenv("ARTBISECT_MAX_ENTRIES", "-1", 1);
	path = write_bytes("small", "x", 1);
	tap_ok(unpack(path, AB_ART_FILE, "small", &reason, &err) == AB_UNPACK_ERROR &&
	       err.code == AB_EXIT_USAGE && strstr(err.msg, "ARTBISECT_MAX_ENTRIES"),
	       "a bad entry cap is a usage error (%s)", err.msg);
	free(path);
	unsetenv("ARTBISECT_MAX_ENTRIES");

	for (i = 0; i < 513; i++)
		memcpy(long_name + 2 * i, "a/", 2);
	strcpy(long_name + 2 * 512, "f");
	memcpy(ok_name, long_name, 2 * 511);
	strcpy(ok_name + 2 * 511, "f");
	deep[0] = (struct ent){ long_name, F, 0644, "x", 0 };
	ok[0] = (struct ent){ ok_name, F, 0644, "x", 0 };
	attack("513 components deep", "pax", deep, N(deep), "more than 512 directories deep");
	good("512 components deep", "deep512.tar", "pax", NULL, AB_ART_TAR, ok, N(ok));
	free(long_name);
	free(ok_name);
}

static void test_caps(void)
{
	const struct ent two[] = {
		{ "b1", F, 0644, NULL, 600 },
		{ "b2", F, 0644, NULL, 600 },
	};
	const struct ent sparse[] = {
		{ "hole", S, 0644, NULL, (int64_t)1 << 30 },
	};
	char *path, *reason = NULL;
	ab_error err = {0};
	ab_unpack_rc rc;
	int b;

	/* Each entry costs 4096 bytes besides its data. */
	setenv("ARTBISECT_MAX_UNPACKED", "9000", 1);
	attack("size cap", "pax", two, N(two), "unpacked size exceeds 9000 bytes at entry 'b2'");
	setenv("ARTBISECT_MAX_UNPACKED", "8000", 1);
	attack("size cap: entries cost a block", "pax", two, N(two),
	       "unpacked size exceeds 8000 bytes at entry 'b2' (every entry counts 4096 bytes");
	setenv("ARTBISECT_MAX_UNPACKED", "9392", 1);
	if (build("two.tar", "pax", NULL, two, N(two), &path) == 1) {
		fresh_root();
		rc = unpack(path, AB_ART_TAR, "two.tar", &reason, &err);
		tap_ok(rc == AB_UNPACK_OK, "size cap: exactly at the cap is fine (%s)",
		       reason ? reason : "");
		free(reason);
		reason = NULL;
	}
	free(path);
	setenv("ARTBISECT_MAX_UNPACKED", "1048576", 1);
	b = build("sparse.tar", "pax", NULL, sparse, N(sparse), &path);
	if (b == 1)
		attack("sparse bomb", "pax", sparse, N(sparse),
		       "unpacked size exceeds 1048576 bytes at entry 'hole'");
	free(path);
	setenv("ARTBISECT_MAX_UNPACKED", "10", 1);
	path = write_bytes("big-file", "0123456789abcdef", 16);
	fresh_root();
	rc = unpack(path, AB_ART_FILE, "big-file", &reason, &err);
	tap_ok(rc == AB_UNPACK_REFUSED && reason && strstr(reason, "exceeds 10 bytes"),
	       "size cap: file artifacts too (%s)", reason ? reason : "");
	free(reason);
	reason = NULL;
	free(path);
	setenv("ARTBISECT_MAX_UNPACKED", "10G", 1);
	path = write_bytes("small", "x", 1);
	rc = unpack(path, AB_ART_FILE, "small", &reason, &err);
	tap_ok(rc == AB_UNPACK_ERROR && err.code == AB_EXIT_USAGE &&
	       strstr(err.msg, "ARTBISECT_MAX_UNPACKED"), "a bad cap is a usage error (%s)", err.msg);
	free(path);
	unsetenv("ARTBISECT_MAX_UNPACKED");
	test_entry_caps();
}

static void test_files(void)
{
	static const char *bad[] = { "../x", "a/b", "..", ".", "", "/abs" };
	char *path, *reason = NULL, *t, *lnk, *target;
	ab_error err = {0};
	ab_unpack_rc rc;
	size_t i;

	path = write_bytes("tool-bin", "\x7f" "ELF fake\n", 10);
	fresh_root();
	rc = unpack(path, AB_ART_FILE, "tool", &reason, &err);
	tap_ok(rc == AB_UNPACK_OK, "file artifact copied (%s%s)", reason ? reason : "", err.msg);
	t = file_text("tool");
	tap_ok(t && !memcmp(t, "\x7f" "ELF fake\n", 10), "file artifact: same bytes");
	free(t);
	tap_ok((mode_of("tool") & 07777) == 0755, "file artifact: mode 0755 (%o)",
	       (unsigned)(mode_of("tool") & 07777));
	for (i = 0; i < N(bad); i++) {
		free(reason);
		reason = NULL;
		rc = unpack(path, AB_ART_FILE, bad[i], &reason, &err);
		tap_ok(rc == AB_UNPACK_REFUSED && reason && strstr(reason, "unsafe file name"),
		       "file artifact named '%s' refused (%s)", bad[i], reason ? reason : "");
	}
	/* An earlier artifact left a symlink under that name: replaced. */
	fresh_root();
	lnk = in_root("tool");
	target = ab_path_join(outside, "file-target");
	if (symlink(target, lnk) < 0)
		tap_diag("symlink: %s", strerror(errno));
	free(reason);
	reason = NULL;
	rc = unpack(path, AB_ART_FILE, "tool", &reason, &err);
	tap_ok(rc == AB_UNPACK_OK && S_ISREG(mode_of("tool")) && access(target, F_OK) < 0,
	       "file artifact replaces a symlink, never writes through it");
	free(lnk);
	free(target);
	free(reason);
	reason = NULL;
	free(path);
}

static void test_misc(void)
{
	const struct ent small[] = {
		{ "dir/f", F, 0644, "f\n", 0 },
	};
	const struct ent big[] = {
		{ "big", F, 0644, NULL, 1 << 20 },
	};
	char *path, *reason = NULL, cwd[4096], cwd2[4096], *missing;
	ab_error err = {0};
	ab_unpack_rc rc;
	struct rlimit old, lim;
	void (*prev)(int);

	/* Real packages are unpacked in the shell tests (rpm-packages.sh,
	 * deb farms); here only what is not a package at all. */
	if (build("notdeb.tar.gz", "pax", "gzip", small, N(small), &path) != 1)
		tap_diag("cannot build notdeb.tar");
	rc = unpack(path, AB_ART_DEB, "x.deb", &reason, &err);
	tap_ok(rc == AB_UNPACK_REFUSED && reason &&
	       !strcmp(reason, "not a Debian package: not an ar archive"),
	       "a tar given as deb: refused (%s)", reason ? reason : "-");
	free(reason);
	reason = NULL;
	rc = unpack(path, AB_ART_RPM, "x.rpm", &reason, &err);
	tap_ok(rc == AB_UNPACK_REFUSED && reason, "a tar given as rpm: refused (%s)",
	       reason ? reason : "-");
	free(reason);
	free(path);
	reason = NULL;

	rc = unpack("/nonexistent/x.tar", AB_ART_TAR, "x.tar", &reason, &err);
	tap_ok(rc == AB_UNPACK_ERROR && err.code == AB_EXIT_FAILURE && !reason,
	       "missing source: error (%s)", err.msg);
	if (build("small.tar.gz", "pax", "gzip", small, N(small), &path) != 1)
		tap_diag("cannot build small.tar.gz");
	missing = ab_path_join(sandbox, "no-such-root");
	ab_error_clear(&err);
	rc = ab_unpack(path, AB_ART_TAR, "small.tar.gz", missing, &reason, &err);
	tap_ok(rc == AB_UNPACK_ERROR && err.code == AB_EXIT_FAILURE && strstr(err.msg, missing),
	       "missing root: error (%s)", err.msg);
	free(missing);

	/* Relative paths, and the caller's cwd is never changed. */
	fresh_root();
	if (!getcwd(cwd, sizeof cwd) || chdir(sandbox) < 0) {
		tap_ok(0, "chdir to the sandbox");
	} else {
		rc = ab_unpack("archives/small.tar.gz", AB_ART_TAR, "small.tar.gz", "root",
			       &reason, &err);
		tap_ok(rc == AB_UNPACK_OK && S_ISREG(mode_of("dir/f")), "relative path and root work");
		tap_ok(getcwd(cwd2, sizeof cwd2) && !strcmp(cwd2, sandbox), "the cwd is unchanged");
		if (chdir(cwd) < 0)
			tap_diag("chdir back: %s", strerror(errno));
	}
	free(path);
	free(reason);
	reason = NULL;

	/* A local write failure: the file size limit stands in for a full
	 * disk. With SIGXFSZ ignored, writes fail with EFBIG; with it at its
	 * default the child dies of it. */
	if (build("big.tar", "pax", NULL, big, N(big), &path) == 1 && getrlimit(RLIMIT_FSIZE, &old) == 0) {
		lim = old;
		lim.rlim_cur = 65536;
		prev = signal(SIGXFSZ, SIG_IGN);
		fresh_root();
		setrlimit(RLIMIT_FSIZE, &lim);
		rc = unpack(path, AB_ART_TAR, "big.tar", &reason, &err);
		setrlimit(RLIMIT_FSIZE, &old);
		tap_ok(rc == AB_UNPACK_ERROR && err.code == AB_EXIT_FAILURE && strstr(err.msg, root) &&
		       strstr(err.msg, strerror(EFBIG)) && !reason,
		       "write failure: error naming the root (%s)", err.msg);
		free(reason);
		reason = NULL;
		signal(SIGXFSZ, SIG_DFL);
		fresh_root();
		setrlimit(RLIMIT_FSIZE, &lim);
		rc = unpack(path, AB_ART_TAR, "big.tar", &reason, &err);
		setrlimit(RLIMIT_FSIZE, &old);
		tap_ok(rc == AB_UNPACK_ERROR && strstr(err.msg, "signal"),
		       "child killed by a signal: error (%s)", err.msg);
		free(reason);
		reason = NULL;
		signal(SIGXFSZ, prev);
	}
	free(path);
}

/* ---- threads ---- */

static volatile int busy_stop;
static volatile int forks_seen;

static void count_fork(void)
{
	forks_seen++;
}

/* Keeps the allocator and gettext busy, as prefetch workers do. */
static void *busy(void *arg)
{
	(void)arg;
	while (!busy_stop) {
		char *p = ab_xasprintf("%s %d", dgettext("artbisect", "cannot read %s: %s"),
				       (int)busy_stop);
		free(p);
	}
	return NULL;
}

static void test_threads(void)
{
	const struct ent small[] = {
		{ "dir/f", F, 0644, "f\n", 0 },
	};
	pthread_t t[2];
	char *path = NULL, *reason = NULL;
	ab_error err = {0};
	int i, ok = 0, started = 0;

	/* The extraction runs in a new program, never in a fork() of this
	 * one: a fork copies locks other threads hold, and the child may
	 * wait on one of them for ever. */
	pthread_atfork(count_fork, NULL, NULL);
	if (build("threads.tar.gz", "pax", "gzip", small, N(small), &path) != 1)
		tap_diag("cannot build threads.tar.gz");
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, busy, NULL) == 0)
			started++;
	for (i = 0; i < 40; i++) {
		fresh_root();
		if (unpack(path, AB_ART_TAR, "threads.tar.gz", &reason, &err) == AB_UNPACK_OK &&
		    S_ISREG(mode_of("dir/f")))
			ok++;
		free(reason);
		reason = NULL;
	}
	busy_stop = 1;
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	tap_ok(started == 2 && ok == 40, "40 unpacks while two threads allocate: all done (%d)", ok);
	tap_ok(forks_seen == 0, "the unpacks never fork() the caller (%d forks)", forks_seen);
	{
		/* A cancelled unpack stops with AB_EXIT_ABORTED. */
		volatile sig_atomic_t stop = 1;
		ab_unpack_rc rc;

		fresh_root();
		ab_error_clear(&err);
		rc = ab_unpack_cancellable(path, AB_ART_TAR, "threads.tar.gz", root, &stop, &reason, &err);
		tap_ok(rc == AB_UNPACK_ERROR && err.code == AB_EXIT_ABORTED && strstr(err.msg, "cancelled"),
		       "a cancelled unpack stops, saying so (%s)", err.msg);
		free(reason);
		reason = NULL;
		stop = 0;
		fresh_root();
		rc = ab_unpack_cancellable(path, AB_ART_TAR, "threads.tar.gz", root, &stop, &reason, &err);
		tap_ok(rc == AB_UNPACK_OK && S_ISREG(mode_of("dir/f")), "one not cancelled runs to the end");
		free(reason);
		reason = NULL;
	}
	free(path);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], AB_UNPACK_HELPER_ARG))
		return ab_unpack_helper_main(argc, argv);
	if (!fixture_open("test-unpack"))
		return 1;
	test_normal();
	test_zip();
	test_walks();
	test_modes();
	test_path_attacks();
	test_symlink_attacks();
	test_hardlink_attacks();
	test_damaged();
	test_caps();
	test_files();
	test_misc();
	test_threads();
	fixture_close();
	return tap_done();
}
