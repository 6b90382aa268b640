/* test-deb.c - reading .deb control data with libarchive: real packages
 * made by dpkg-deb (gzip, xz, zstd), and files that are not packages. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pkg/deb.h"
#include "tap.h"
#include "base/util.h"

static char dir[] = "/tmp/test-deb.XXXXXX";

/* Builds DIR/name.deb with the given control text; 0 when dpkg-deb made it. */
static int make_deb(const char *name, const char *control, const char *z)
{
	char cmd[2048];
	FILE *f;

	snprintf(cmd, sizeof cmd, "rm -rf %s/root && mkdir -p %s/root/DEBIAN %s/root/usr/bin && "
		 "printf '#!/bin/sh\\n' > %s/root/usr/bin/app", dir, dir, dir, dir);
	if (system(cmd) != 0)
		return -1;
	snprintf(cmd, sizeof cmd, "%s/root/DEBIAN/control", dir);
	f = fopen(cmd, "w");
	if (!f)
		return -1;
	fputs(control, f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "dpkg-deb --build --root-owner-group -Z%s --nocheck %s/root %s/%s.deb >/dev/null 2>&1",
		 z, dir, dir, name);
	return system(cmd) == 0 ? 0 : -1;
}

static ab_deb_rc read_deb(const char *name, ab_pkg_info *info, char **reason)
{
	char path[512];
	ab_error err = {0};
	ab_deb_rc rc;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	*reason = NULL;
	rc = ab_deb_read_info(path, info, reason, &err);
	if (rc == AB_DEB_ERROR)
		tap_diag("%s: error %s", name, err.msg);
	return rc;
}

static const char *base = "Package: app\nArchitecture: all\nMaintainer: t <t@example.org>\n"
			  "Description: test\n continued line\n";

int main(void)
{
	static const char *const zs[] = { "gzip", "xz", "zstd" };
	char control[1024], *reason, cmd[1024];
	ab_pkg_info info;
	ab_deb_rc rc;
	size_t i;

	if (!mkdtemp(dir))
		return 1;
	if (system("dpkg-deb --version >/dev/null 2>&1") != 0) {
		printf("1..0 # SKIP dpkg-deb is not installed\n");
		return 0;
	}
	for (i = 0; i < 3; i++) {
		char name[32];

		snprintf(name, sizeof name, "z-%s", zs[i]);
		snprintf(control, sizeof control, "%sVersion: 1.0.%zu-1\n", base, i);
		tap_ok(make_deb(name, control, zs[i]) == 0, "dpkg-deb made a %s package", zs[i]);
		strcat(name, ".deb");
		rc = read_deb(name, &info, &reason);
		tap_ok(rc == AB_DEB_OK && info.kind == AB_PKG_DEB &&
		       !strcmp(info.name, "app") && info.arch && !strcmp(info.arch, "all") &&
		       !info.epoch && !info.release && info.version,
		       "%s: name app, arch all, version %s", zs[i], info.version ? info.version : "-");
		ab_pkg_info_free(&info);
		free(reason);
	}

	snprintf(control, sizeof control, "%sVersion: 2:1.0+git20240101.3f4d1b5c-1\n", base);
	make_deb("epoch", control, "xz");
	rc = read_deb("epoch.deb", &info, &reason);
	tap_ok(rc == AB_DEB_OK && info.epoch &&
	       !strcmp(info.epoch, "2") && !strcmp(info.version, "1.0+git20240101.3f4d1b5c-1"),
	       "epoch split off the version");
	tap_ok(info.commit && !strcmp(info.commit, "3f4d1b5c"), "commit from the version (%s)",
	       info.commit ? info.commit : "none");
	{
		char *evr = ab_pkg_evr(&info);
		tap_ok(!strcmp(evr, "2:1.0+git20240101.3f4d1b5c-1"), "evr keeps the epoch (%s)", evr);
		free(evr);
	}
	ab_pkg_info_free(&info);
	free(reason);

	make_deb("nover", "Package: app\nArchitecture: all\nMaintainer: t <t@e.org>\nDescription: x\n", "xz");
	rc = read_deb("nover.deb", &info, &reason);
	tap_ok(rc == AB_DEB_REFUSED && reason &&
	       !strcmp(reason, "control: no Version field"), "no Version: refused (%s)",
	       reason ? reason : "-");
	free(reason);

	snprintf(control, sizeof control, "%sVersion: 1.0_beta\n", base);
	make_deb("badver", control, "xz");
	rc = read_deb("badver.deb", &info, &reason);
	tap_ok(rc == AB_DEB_REFUSED && reason &&
	       strstr(reason, "control: Version:") && strstr(reason, "1.0_beta"),
	       "bad Version: refused naming it (%s)", reason ? reason : "-");
	free(reason);

	snprintf(cmd, sizeof cmd, "tar -C %s -cf %s/plain.deb root", dir, dir);
	tap_ok(system(cmd) == 0, "made a tar named .deb");
	rc = read_deb("plain.deb", &info, &reason);
	tap_ok(rc == AB_DEB_REFUSED && reason &&
	       !strcmp(reason, "not a Debian package: not an ar archive"),
	       "a tar: refused (%s)", reason ? reason : "-");
	free(reason);

	snprintf(cmd, sizeof cmd, "cd %s && ar rc notdeb.deb root/usr/bin/app", dir);
	if (system(cmd) == 0) {
		rc = read_deb("notdeb.deb", &info, &reason);
		tap_ok(rc == AB_DEB_REFUSED && reason &&
		       !strcmp(reason, "not a Debian package: no debian-binary member"),
		       "an ar without debian-binary: refused (%s)", reason ? reason : "-");
		free(reason);
	}

	snprintf(cmd, sizeof cmd, "head -c 200 %s/z-xz.deb > %s/short.deb", dir, dir);
	tap_ok(system(cmd) == 0, "made a truncated .deb");
	rc = read_deb("short.deb", &info, &reason);
	tap_ok(rc == AB_DEB_REFUSED && reason,
	       "truncated: refused (%s)", reason ? reason : "-");
	free(reason);

	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		tap_diag("cannot remove %s", dir);
	return tap_done();
}
