/* test-mainline.c - the names of the Ubuntu mainline farm
 * (src/farms/layout_names.c): version directories (which names are
 * builds, their kernel order, the version each stands for) and the
 * packages resolve takes from a build directory (image, modules, extra;
 * the flavour's, the architecture's, the newest build's; never headers),
 * on real file names from kernel.ubuntu.com/mainline. No network. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "farms/layout_names.h"
#include "base/util.h"
#include "tap.h"

#define N_OF(a) (sizeof (a) / sizeof (a)[0])

/* name fit for a TAP line: control characters as '?' */
static const char *shown(const char *name, char *buf, size_t size)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < size; i++)
		buf[i] = (unsigned char)name[i] < 0x20 || name[i] == 0x7f ? '?' : name[i];
	buf[i] = '\0';
	return buf;
}

static void dir_names(void)
{
	static const char *const good[] = {
		"v2.6.32", "v2.6.32.71", "v3.0", "v4.15.18", "v5.7-rc7", "v6.8", "v6.9-rc1",
		"v6.9.1", "v6.10-rc1", "v5.10.1-rc1", "v10.0", "v0.1",
	};
	static const char *const junk[] = {
		"", "v", "v6", "v6.", "v.6", "6.8", "V6.8", "v6.8/", "v6.8 ", " v6.8", "v6..8",
		"v6.8.", "v6.09", "v06.8", "v6.8-rc", "v6.8-rc0", "v6.8-rc01", "v6.8-rc1x",
		"v6.8-RC1", "v6.8rc1", "v6.8-rc1-rc2", "v5.10.1-hirsute", "v2.6.35-rc1-maverick",
		"v4.15.18-bionic", "v1.2.3.4.5", "v6.8-1", "v6.8~rc1", "v6.8_1", "daily",
		"drm-tip", "drm-intel-next", "v6.8\n", "v1234567.0", "v6.8.0.0.0", "v-6.8",
		"v6.8-rc1234567",
	};
	ab_mainline_ver v;
	char b[64];
	size_t i;

	for (i = 0; i < sizeof good / sizeof good[0]; i++)
		tap_ok(ab_mainline_dir_parse(good[i], &v), "a version directory: \"%s\"", good[i]);
	for (i = 0; i < sizeof junk / sizeof junk[0]; i++)
		tap_ok(!ab_mainline_dir_parse(junk[i], &v), "not a version directory: \"%s\"",
		       shown(junk[i], b, sizeof b));

	tap_ok(ab_mainline_dir_parse("v6.9-rc1", &v) && v.ncomp == 2 && v.num[0] == 6 && v.num[1] == 9 &&
	       v.num[2] == 0 && v.rc == 1, "v6.9-rc1: 6, 9, rc 1");
	tap_ok(ab_mainline_dir_parse("v2.6.32.71", &v) && v.ncomp == 4 && v.num[3] == 71 && v.rc == 0,
	       "v2.6.32.71: four parts");
}

static const char *ver_string(const char *dir, char *buf, size_t size)
{
	ab_mainline_ver v;

	if (!ab_mainline_dir_parse(dir, &v))
		return "(junk)";
	return ab_mainline_ver_string(&v, buf, size);
}

static void versions(void)
{
	static const struct {
		const char *dir, *version;
	} t[] = {
		{ "v6.9-rc1", "6.9.0-rc1" }, { "v6.9", "6.9.0" }, { "v6.9.1", "6.9.1" },
		{ "v5.10.1-rc1", "5.10.1-rc1" }, { "v2.6.32.71", "2.6.32.71" }, { "v3.0", "3.0.0" },
	};
	char buf[64];
	size_t i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++)
		tap_ok(!strcmp(ver_string(t[i].dir, buf, sizeof buf), t[i].version), "%s stands for %s (%s)",
		       t[i].dir, t[i].version, buf);
}

static int cmp_names(const void *a, const void *b)
{
	ab_mainline_ver x, y;

	ab_mainline_dir_parse(*(const char *const *)a, &x);
	ab_mainline_dir_parse(*(const char *const *)b, &y);
	return ab_mainline_ver_cmp(&x, &y);
}

static void order(void)
{
	/* kernel order, oldest first */
	static const char *const want[] = {
		"v2.6.32", "v2.6.32.9", "v2.6.32.10", "v2.6.32.71", "v2.6.33-rc1", "v2.6.33",
		"v3.0-rc1", "v3.0", "v3.0.1", "v3.2", "v3.10", "v4.15.18", "v5.6.17", "v5.7-rc7",
		"v5.7", "v5.10", "v5.10.1-rc1", "v5.10.1", "v5.10.10", "v6.9-rc1", "v6.9-rc2",
		"v6.9-rc7", "v6.9-rc10", "v6.9", "v6.9.1", "v6.9.2", "v6.9.10", "v6.10-rc1",
		"v6.10", "v10.0-rc1",
	};
	const size_t n = sizeof want / sizeof want[0];
	const char **got = ab_xmalloc(n * sizeof *got);
	ab_mainline_ver a, b;
	size_t i, bad = 0;

	/* reversed, then sorted */
	for (i = 0; i < n; i++)
		got[i] = want[n - 1 - i];
	qsort(got, n, sizeof *got, cmp_names);
	for (i = 0; i < n; i++)
		if (strcmp(got[i], want[i])) {
			tap_diag("position %zu: %s, expected %s", i, got[i], want[i]);
			bad++;
		}
	tap_ok(!bad, "%zu version directories sorted into kernel order", n);
	for (i = 0; i + 1 < n; i++) {
		ab_mainline_dir_parse(want[i], &a);
		ab_mainline_dir_parse(want[i + 1], &b);
		if (ab_mainline_ver_cmp(&a, &b) >= 0 || ab_mainline_ver_cmp(&b, &a) <= 0)
			bad++;
	}
	tap_ok(!bad, "each strictly before the next, both ways round");
	ab_mainline_dir_parse("v6.9", &a);
	ab_mainline_dir_parse("v6.9.0", &b);
	tap_ok(ab_mainline_ver_cmp(&a, &b) == 0, "v6.9 and v6.9.0 are one version");
	ab_mainline_dir_parse("v6.9-rc9", &a);
	ab_mainline_dir_parse("v6.9-rc10", &b);
	tap_ok(ab_mainline_ver_cmp(&a, &b) < 0, "rc9 before rc10 (numbers, not text)");
	free(got);
}

#define STAMP "6.8.0-060800.202403102237"
#define IMG "linux-image-unsigned-6.8.0-060800-generic_" STAMP "_amd64.deb"
#define MOD "linux-modules-6.8.0-060800-generic_" STAMP "_amd64.deb"
#define HDR "linux-headers-6.8.0-060800-generic_" STAMP "_amd64.deb"
#define HDRALL "linux-headers-6.8.0-060800_" STAMP "_all.deb"
#define IMGLL "linux-image-unsigned-6.8.0-060800-lowlatency_" STAMP "_amd64.deb"
#define MODLL "linux-modules-6.8.0-060800-lowlatency_" STAMP "_amd64.deb"
#define IMGA "linux-image-unsigned-6.8.0-060800-generic_" STAMP "_arm64.deb"
#define MODA "linux-modules-6.8.0-060800-generic_" STAMP "_arm64.deb"
#define IMG64K "linux-image-unsigned-6.8.0-060800-generic-64k_" STAMP "_arm64.deb"
#define MOD64K "linux-modules-6.8.0-060800-generic-64k_" STAMP "_arm64.deb"

static bool span(const char *s, size_t n, const char *want)
{
	return s && strlen(want) == n && !memcmp(s, want, n);
}

static void deb_names(void)
{
	static const char *const junk[] = {
		"CHECKSUMS", "CHECKSUMS.gpg", "status", "HEADER.html", "linux.deb", ".deb",
		"linux-image-unsigned-6.8.0-060800-generic_" STAMP "_amd64.deb.sig",
		"linux-image-unsigned-6.8.0-060800-generic_" STAMP ".deb",
		"linux-image-unsigned-6.8.0-060800-generic_" STAMP "_amd64_x.deb",
		"linux-image-unsigned-6.8.0-060800-generic__amd64.deb",
		"linux-image-unsigned-6.8.0-060800-generic_" STAMP "_.deb",
		"linux-image-unsigned-6.8.0-060800-generic_" STAMP "_AMD64.deb",
		"linux-image-unsigned-6.8.0-060800_" STAMP "_amd64.deb",
		"linux-image-unsigned-6.8.0-060800-_" STAMP "_amd64.deb",
		"linux-image-unsigned-6.8.0-060800-generic-_" STAMP "_amd64.deb",
		"linux-image-unsigned-6.8.0-060800-Generic_" STAMP "_amd64.deb",
		"linux-image-unsigned-generic_" STAMP "_amd64.deb",
		"linux-image-unsigned-6.8.0-generic_" STAMP "_amd64.deb",
		"linux-image-unsigned-6.8.0-060800-gen eric_" STAMP "_amd64.deb",
		"linux-image-unsigned-6.8.0-060800-generic_6.8 0_amd64.deb",
		"linux-firmware_1.0_all.deb", "linux-libc-dev_6.8.0-060800." "1_amd64.deb",
		"linux-image-unsigned-6.8.0-060800-generic_" STAMP "_amd64.DEB",
	};
	ab_mainline_deb d;
	char b[160];
	size_t i;

	tap_ok(ab_mainline_deb_parse(IMG, &d) && d.kind == AB_MLDEB_IMAGE_UNSIGNED &&
	       span(d.abi, d.abi_len, "6.8.0-060800") && span(d.flavour, d.flavour_len, "generic") &&
	       span(d.version, d.version_len, STAMP) && span(d.arch, d.arch_len, "amd64"),
	       "linux-image-unsigned: abi, flavour, version, arch");
	tap_ok(ab_mainline_deb_parse(MOD, &d) && d.kind == AB_MLDEB_MODULES &&
	       span(d.flavour, d.flavour_len, "generic"), "linux-modules");
	tap_ok(ab_mainline_deb_parse(HDRALL, &d) && d.kind == AB_MLDEB_HEADERS && d.flavour_len == 0 &&
	       span(d.arch, d.arch_len, "all"), "the common headers (_all): no flavour");
	tap_ok(ab_mainline_deb_parse(HDR, &d) && d.kind == AB_MLDEB_HEADERS &&
	       span(d.flavour, d.flavour_len, "generic"), "the flavour's headers");
	tap_ok(ab_mainline_deb_parse(IMG64K, &d) && span(d.flavour, d.flavour_len, "generic-64k") &&
	       span(d.arch, d.arch_len, "arm64"), "arm64 generic-64k: a flavour with a '-'");
	tap_ok(ab_mainline_deb_parse("linux-image-unsigned-6.9.0-060900rc1-generic_6.9.0-060900rc1.202403242130_amd64.deb",
				     &d) && span(d.abi, d.abi_len, "6.9.0-060900rc1") &&
	       span(d.flavour, d.flavour_len, "generic"), "a release candidate's ABI (060900rc1)");
	tap_ok(ab_mainline_deb_parse("linux-image-4.15.18-041518-generic_4.15.18-041518.201804190330_amd64.deb", &d) &&
	       d.kind == AB_MLDEB_IMAGE, "an older signed image (4.15.18)");
	tap_ok(ab_mainline_deb_parse("linux-image-extra-3.4.75-030475-generic_3.4.75-030475.201312201255_amd64.deb", &d) &&
	       d.kind == AB_MLDEB_IMAGE_EXTRA && span(d.flavour, d.flavour_len, "generic"),
	       "linux-image-extra is not an image");
	tap_ok(ab_mainline_deb_parse("linux-modules-extra-6.8.0-060800-generic_" STAMP "_amd64.deb", &d) &&
	       d.kind == AB_MLDEB_MODULES_EXTRA, "linux-modules-extra is not linux-modules");
	tap_ok(ab_mainline_deb_parse("linux-image-unsigned-6.4.3-060403-generic-lpae_6.4.3-060403.202307110536_armhf.deb", &d) &&
	       span(d.flavour, d.flavour_len, "generic-lpae") && span(d.arch, d.arch_len, "armhf"),
	       "armhf generic-lpae");
	for (i = 0; i < sizeof junk / sizeof junk[0]; i++)
		tap_ok(!ab_mainline_deb_parse(junk[i], &d), "not a kernel package: \"%s\"",
		       shown(junk[i], b, sizeof b));
}

/* The names picked, joined by ' ', into buf; "-1 (flavours)" when none. */
static const char *pick(const char *const *names, size_t n, const char *arch, const char *flavour,
			char *buf, size_t size)
{
	ab_mainline_picked p;
	char fl[160];
	size_t i, o = 0;

	if (ab_mainline_pick(names, n, arch, flavour, &p, fl, sizeof fl) < 0) {
		snprintf(buf, size, "-1 (%s)", fl);
		return buf;
	}
	buf[0] = '\0';
	for (i = 0; i < p.n && o < size; i++)
		o += (size_t)snprintf(buf + o, size - o, "%s%s", i ? " " : "", names[p.idx[i]]);
	return buf;
}

static void picking(void)
{
	/* v6.8/amd64/ as the farm lists it */
	static const char *const amd64[] = {
		"CHECKSUMS", "CHECKSUMS.gpg", HDR, HDRALL, "linux-headers-6.8.0-060800-lowlatency_" STAMP "_amd64.deb",
		IMG, IMGLL, MOD, MODLL, "status",
	};
	static const char *const arm64[] = {
		"CHECKSUMS", "CHECKSUMS.gpg", "linux-headers-6.8.0-060800-generic-64k_" STAMP "_arm64.deb",
		"linux-headers-6.8.0-060800-generic_" STAMP "_arm64.deb", HDRALL, IMGA, IMG64K, MODA, MOD64K,
		"status",
	};
	/* v4.15.18/: before per-architecture directories, all in one */
	static const char *const old[] = {
		"BUILT", "CHECKSUMS", "CHECKSUMS.gpg", "HEADER.html",
		"linux-headers-4.15.18-041518-generic_4.15.18-041518.201804190330_amd64.deb",
		"linux-headers-4.15.18-041518-generic_4.15.18-041518.201804190330_i386.deb",
		"linux-headers-4.15.18-041518_4.15.18-041518.201804190330_all.deb",
		"linux-image-4.15.18-041518-generic_4.15.18-041518.201804190330_amd64.deb",
		"linux-image-4.15.18-041518-generic_4.15.18-041518.201804190330_i386.deb",
		"linux-image-4.15.18-041518-lowlatency_4.15.18-041518.201804190330_amd64.deb",
	};
	/* v5.16/amd64/ held two builds of the same kernel */
	static const char *const twice[] = {
		"linux-image-unsigned-5.16.0-051600-generic_5.16.0-051600.202201092355_amd64.deb",
		"linux-modules-5.16.0-051600-generic_5.16.0-051600.202201092355_amd64.deb",
		"linux-image-unsigned-5.16.0-051600-generic_5.16.0-051600.202201091830_amd64.deb",
		"linux-modules-5.16.0-051600-generic_5.16.0-051600.202201091830_amd64.deb",
	};
	static const char *const extras[] = {
		"linux-modules-extra-6.8.0-060800-generic_" STAMP "_amd64.deb",
		"linux-image-extra-6.8.0-060800-generic_" STAMP "_amd64.deb", IMG, MOD,
		"linux-image-6.8.0-060800-generic_" STAMP "_amd64.deb",
		"linux-modules-extra-6.8.0-060800-lowlatency_" STAMP "_amd64.deb",
		"linux-modules-6.8.0-060800-generic_6.8.0-060800.202403100000_amd64.deb",
	};
	static const char *const hostile[] = {
		"linux-image-unsigned-6.8.0-060800-generic_" STAMP "_amd64.deb/../x",
		"linux-image-unsigned-6.8.0-060800-generic_" STAMP "_amd64.deb\n",
		"../linux-image-unsigned-6.8.0-060800-generic_" STAMP "_amd64.deb",
		"linux-image-unsigned-6.8.0-060800-generic\x1b[31m_" STAMP "_amd64.deb",
		"linux-image-unsigned-6.8.0-060800-\x1b[31mevil_" STAMP "_amd64.deb",
	};
	char buf[1024];

	tap_ok(!strcmp(pick(amd64, N_OF(amd64), "amd64", "generic", buf, sizeof buf), MOD " " IMG),
	       "amd64 generic: modules then image, no headers (%s)", buf);
	tap_ok(!strcmp(pick(amd64, N_OF(amd64), "amd64", "lowlatency", buf, sizeof buf), MODLL " " IMGLL),
	       "amd64 lowlatency (%s)", buf);
	tap_ok(!strcmp(pick(amd64, N_OF(amd64), "arm64", "generic", buf, sizeof buf), "-1 ()"),
	       "no arm64 package in amd64/: none, no flavours (%s)", buf);
	tap_ok(!strcmp(pick(amd64, N_OF(amd64), "amd64", "generic-64k", buf, sizeof buf), "-1 (generic, lowlatency)"),
	       "an unknown flavour: none, with the flavours there (%s)", buf);
	tap_ok(!strcmp(pick(amd64, N_OF(amd64), "amd64", "gener", buf, sizeof buf), "-1 (generic, lowlatency)"),
	       "a flavour is matched whole, not as a prefix (%s)", buf);
	tap_ok(!strcmp(pick(arm64, N_OF(arm64), "arm64", "generic", buf, sizeof buf), MODA " " IMGA),
	       "arm64 generic is not generic-64k (%s)", buf);
	tap_ok(!strcmp(pick(arm64, N_OF(arm64), "arm64", "generic-64k", buf, sizeof buf), MOD64K " " IMG64K),
	       "arm64 generic-64k (%s)", buf);
	tap_ok(!strcmp(pick(old, N_OF(old), "amd64", "generic", buf, sizeof buf),
		       "linux-image-4.15.18-041518-generic_4.15.18-041518.201804190330_amd64.deb"),
	       "4.15.18: the signed image alone, the amd64 one of a shared directory (%s)", buf);
	tap_ok(!strcmp(pick(old, N_OF(old), "i386", "generic", buf, sizeof buf),
		       "linux-image-4.15.18-041518-generic_4.15.18-041518.201804190330_i386.deb"),
	       "4.15.18 i386 (%s)", buf);
	tap_ok(!strcmp(pick(old, N_OF(old), "i386", "lowlatency", buf, sizeof buf), "-1 (generic)"),
	       "4.15.18 has no i386 lowlatency: generic is what there is (%s)", buf);
	tap_ok(!strcmp(pick(twice, N_OF(twice), "amd64", "generic", buf, sizeof buf), "linux-modules-5.16.0-051600-generic_5.16.0-051600.202201092355_amd64.deb "
		       "linux-image-unsigned-5.16.0-051600-generic_5.16.0-051600.202201092355_amd64.deb"),
	       "two builds of 5.16: the newest, with its own modules (%s)", buf);
	tap_ok(!strcmp(pick(twice + 2, 2, "amd64", "generic", buf, sizeof buf), "linux-modules-5.16.0-051600-generic_5.16.0-051600.202201091830_amd64.deb "
		       "linux-image-unsigned-5.16.0-051600-generic_5.16.0-051600.202201091830_amd64.deb"),
	       "the older build alone (%s)", buf);
	tap_ok(!strcmp(pick(extras, N_OF(extras), "amd64", "generic", buf, sizeof buf),
		       MOD " " IMG " linux-modules-extra-6.8.0-060800-generic_" STAMP "_amd64.deb "
		       "linux-image-extra-6.8.0-060800-generic_" STAMP "_amd64.deb"),
	       "unsigned image over signed; modules of the same build; extras after the image (%s)", buf);
	tap_ok(!strcmp(pick(hostile, N_OF(hostile), "amd64", "generic", buf, sizeof buf), "-1 ()"),
	       "names with '/', line breaks, escapes: none taken, none listed (%s)", buf);
	tap_ok(!strcmp(pick(NULL, 0, "amd64", "generic", buf, sizeof buf), "-1 ()"), "an empty directory");
}

static void flavour_list(void)
{
	/* many flavours: cut short on a whole name, never past the buffer */
	enum { N = 40 };
	char *names[N], fl[48];
	ab_mainline_picked p;
	size_t i;

	for (i = 0; i < N; i++)
		names[i] = ab_xasprintf("linux-image-unsigned-6.8.0-060800-flavour%02zu_" STAMP "_amd64.deb", i);
	tap_ok(ab_mainline_pick((const char *const *)names, N, "amd64", "generic", &p, fl, sizeof fl) < 0 &&
	       strlen(fl) < sizeof fl && !strncmp(fl, "flavour00, flavour01, flavour02", 31) &&
	       strstr(fl, "...") != NULL, "40 flavours listed within the buffer (%s)", fl);
	for (i = 0; i < N; i++)
		free(names[i]);
}

static void arch_names(void)
{
	tap_ok(!strcmp(ab_mainline_arch("x86_64"), "amd64") && !strcmp(ab_mainline_arch("aarch64"), "arm64") &&
	       !strcmp(ab_mainline_arch("ppc64le"), "ppc64el") && !strcmp(ab_mainline_arch("i686"), "i386"),
	       "--arch x86_64, aarch64, ppc64le, i686: the Debian names");
	tap_ok(!strcmp(ab_mainline_arch("amd64"), "amd64") && !strcmp(ab_mainline_arch("riscv64"), "riscv64") &&
	       !strcmp(ab_mainline_arch("s390x"), "s390x") && !strcmp(ab_mainline_arch(""), ""),
	       "Debian names and unknown ones as they are");
}

int main(void)
{
	arch_names();
	dir_names();
	versions();
	order();
	deb_names();
	picking();
	flavour_list();
	return tap_done();
}
