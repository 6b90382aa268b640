/* test-sumtree.c - the names of a sums tree (src/farms/layout_names.c):
 * natural order (digit runs as numbers, a total order), which names are
 * checksum lists, the build a file belongs to (archive suffix and
 * architecture words taken off, files of other architectures, systems
 * and sources left out) and the grouping of a directory's files into
 * builds in natural order. No network. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "farms/farm.h"
#include "farms/layout_names.h"
#include "base/util.h"
#include "tap.h"

#define N_OF(a) (sizeof (a) / sizeof (a)[0])

static int sign(int c)
{
	return c < 0 ? -1 : c > 0;
}

static void natural(void)
{
	static const struct {
		const char *a, *b;
		int want;
	} t[] = {
		{ "v2", "v10", -1 }, { "1.9", "1.10", -1 }, { "1.10", "1.9", 1 }, { "a", "a", 0 },
		{ "", "", 0 }, { "", "a", -1 }, { "a", "", 1 }, { "app-1.2", "app-1.2.1", -1 },
		{ "2024-01-09", "2024-01-10", -1 }, { "nightly-99", "nightly-100", -1 },
		{ "1", "01", -1 }, { "01", "1", 1 }, { "a01b2", "a1b02", 1 }, { "a1b02", "a01b2", -1 },
		{ "x0", "x00", -1 }, { "00", "0", 1 }, { "9", "a", -1 }, { "B", "a", -1 },
		{ "18446744073709551616", "18446744073709551615", 1 },
		{ "99999999999999999999999999", "100000000000000000000000000", -1 },
		{ "r007", "r8", -1 }, { "\xc3\xa9", "e", 1 }, { "build 2", "build 10", -1 },
	};
	/* a sorted list, to check the order is total and consistent */
	static const char *const sorted[] = {
		"", "0", "00", "1", "01", "001", "1.0", "1.0.1", "1.1", "1.2", "1.9", "1.10", "1.10a",
		"2", "10", "100", "a", "a0", "a1", "a01", "a2", "a10", "b",
	};
	size_t i, j, bad = 0;

	for (i = 0; i < N_OF(t); i++)
		tap_ok(sign(ab_layout_natural_cmp(t[i].a, t[i].b)) == t[i].want, "natural: \"%s\" %s \"%s\"", t[i].a,
		       t[i].want < 0 ? "<" : t[i].want ? ">" : "==", t[i].b);
	for (i = 0; i < N_OF(sorted); i++)
		for (j = 0; j < N_OF(sorted); j++)
			if (sign(ab_layout_natural_cmp(sorted[i], sorted[j])) != (i < j ? -1 : i > j))
				bad++, tap_diag("\"%s\" vs \"%s\"", sorted[i], sorted[j]);
	tap_ok(!bad, "natural order is total: %zu names, every pair both ways", N_OF(sorted));
	for (bad = 0, i = 0; i < N_OF(t); i++)
		if (sign(ab_farm_natural_cmp(t[i].a, t[i].b)) != t[i].want)
			bad++;
	tap_ok(!bad, "ab_farm_natural_cmp (farm.h) is this order");
}

static void list_names(void)
{
	size_t stem = 0;

	tap_ok(ab_sumtree_is_list("SHA256SUMS") && ab_sumtree_is_list("sha256sums"), "SHA256SUMS in any case");
	tap_ok(!ab_sumtree_is_list("SHA256SUMS.asc") && !ab_sumtree_is_list("SHA256SUM") &&
	       !ab_sumtree_is_list("xSHA256SUMS") && !ab_sumtree_is_list(""), "nothing else is the list");
	tap_ok(ab_sumtree_is_lone("app.tar.gz.sha256", &stem) && stem == 10, "FILE.sha256, FILE's length");
	tap_ok(!ab_sumtree_is_lone(".sha256", &stem) && !ab_sumtree_is_lone("app.sha256.asc", &stem) &&
	       !ab_sumtree_is_lone("app.SHA256", &stem) && !ab_sumtree_is_lone("app.sha512", &stem),
	       "not a FILE.sha256: .sha256 alone, its signature, other cases and digests");
}

static void keys(void)
{
	static const struct {
		const char *name, *arch, *key;
		bool fits;
	} t[] = {
		{ "app-1.2.3-x86_64.tar.gz", "x86_64", "app-1.2.3", true },
		{ "app-1.2.3-x86_64.tar.gz", "amd64", "app-1.2.3", true },
		{ "app-1.2.3-amd64.tar.gz", "x86_64", "app-1.2.3", true },
		{ "app-1.2.3-aarch64.tar.gz", "x86_64", "app-1.2.3", false },
		{ "app-1.2.3-arm64.tar.gz", "aarch64", "app-1.2.3", true },
		{ "app-1.2.3.tar.gz", "x86_64", "app-1.2.3", true },
		{ "app-1.2.3.tar.zst", "x86_64", "app-1.2.3", true },
		{ "app-1.2.3.zip", "x86_64", "app-1.2.3", true },
		{ "app_1.2.3_amd64.deb", "x86_64", "app_1.2.3", true },
		{ "app_1.2.3_all.deb", "x86_64", "app_1.2.3", true },
		{ "app-1.2.3-1.x86_64.rpm", "x86_64", "app-1.2.3-1", true },
		{ "app-1.2.3-1.noarch.rpm", "aarch64", "app-1.2.3-1", true },
		{ "app-1.2.3-1.src.rpm", "x86_64", "app-1.2.3-1", false },
		{ "app-1.2.3-linux-amd64.tar.gz", "x86_64", "app-1.2.3", true },
		{ "app-1.2.3-x86_64-unknown-linux-gnu.tar.xz", "x86_64", "app-1.2.3", true },
		{ "app-1.2.3-windows-amd64.zip", "x86_64", "app-1.2.3", false },
		{ "app-1.2.3-darwin-arm64.tar.gz", "aarch64", "app-1.2.3", false },
		{ "app-1.2.3-source.tar.gz", "x86_64", "app-1.2.3", false },
		{ "app-1.2.3-i686.tar.gz", "x86_64", "app-1.2.3", false },
		{ "app-1.2.3-x86.tar.gz", "x86_64", "app-1.2.3", false },
		{ "app-1.2.3-X86_64.TAR.GZ", "x86_64", "app-1.2.3", true },
		{ "x86_64-app-1.2.3.tar.gz", "x86_64", "app-1.2.3", true },
		{ "amd64.tar.gz", "x86_64", "amd64", true },
		{ "app-1.2.3-mips64el.tar.gz", "mips64el", "app-1.2.3", true },
		{ "app-1.2.3-mips64el.tar.gz", "x86_64", "app-1.2.3-mips64el", true },
		{ "app-allx-1.0.tar.gz", "x86_64", "app-allx-1.0", true },
		{ "app-x86_64v3-1.0.tar.gz", "x86_64", "app-x86_64v3-1.0", true },
		{ "nightly-20240501.tar.gz", "x86_64", "nightly-20240501", true },
	};
	static const char *const none[] = {
		"SHA256SUMS", "app.tar.gz.sha256", "app.tar.gz.asc", "app.iso", "README", ".tar.gz", "app.sig",
	};
	size_t i;

	for (i = 0; i < N_OF(t); i++) {
		bool fits = !t[i].fits;
		char *k = ab_sumtree_key(t[i].name, t[i].arch, &fits);

		tap_ok(k && !strcmp(k, t[i].key) && fits == t[i].fits, "%s for %s: build \"%s\", %s (got \"%s\", %s)",
		       t[i].name, t[i].arch, t[i].key, t[i].fits ? "fits" : "does not fit", k ? k : "(null)",
		       fits ? "fits" : "does not fit");
		free(k);
	}
	for (i = 0; i < N_OF(none); i++) {
		bool fits = true;
		char *k = ab_sumtree_key(none[i], "x86_64", &fits);

		tap_ok(!k && !fits, "no artifact type, no build: \"%s\"", none[i]);
		free(k);
	}
}

/* The architectures a build's files are for, for the message that
 * names them when --arch matches none. */
static void arches(void)
{
	static const char *const names[] = {
		"app-1.2-x86_64.tar.gz", "app-1.2-linux-AMD64.zip", "app-1.2-aarch64.tar.gz",
		"app_1.2_all.deb", "app-1.2-src.tar.gz", "SHA256SUMS", "app-1.2-x86.tar.gz",
		"app-1.2-x86_64.tar.gz.asc", "notes-arm64.txt",
	};
	char buf[64];

	tap_ok(ab_sumtree_arches(names, N_OF(names), buf, sizeof buf) == 3 &&
		       !strcmp(buf, "x86_64, aarch64, x86"),
	       "arches: each architecture once, as its first file writes it, no neutral words: \"%s\"", buf);
	tap_ok(ab_sumtree_arches(names, 2, buf, 10) == 1 && !strcmp(buf, "x86_64"),
	       "arches: what does not fit the buffer is left out: \"%s\"", buf);
	tap_ok(ab_sumtree_arches(names + 3, 1, buf, sizeof buf) == 0 && !buf[0],
	       "arches: a file for any architecture names none");
}

/* "key: a b | key: c", the groups as text. */
static char *groups_text(const char *const *names, size_t n, const char *arch)
{
	size_t ng = 0, i, j;
	ab_sumtree_group *g = ab_sumtree_group_names(names, n, arch, &ng);
	ab_buf b = { 0 };

	ab_buf_puts(&b, "");
	for (i = 0; i < ng; i++) {
		ab_buf_printf(&b, "%s%s:", i ? " | " : "", g[i].key);
		for (j = 0; j < g[i].nfiles; j++)
			ab_buf_printf(&b, " %s", names[g[i].files[j]]);
	}
	ab_sumtree_groups_free(g, ng);
	return ab_buf_steal(&b);
}

static void grouping(void)
{
	static const char *const nightly[] = {
		"SHA256SUMS", "SHA256SUMS.asc", "README.txt",
		"app-1.10-x86_64.tar.gz", "app-1.10-aarch64.tar.gz", "app-1.10-x86_64.tar.gz.sig",
		"app-1.9-x86_64.tar.gz", "app-1.9-aarch64.tar.gz", "app-1.9-data.zip",
		"app-1.2-x86_64.tar.gz", "app-1.2-windows-x86_64.zip", "app-1.2-source.tar.gz",
		"app-1.9-noarch.tar.gz",
	};
	static const char *const rpms[] = {
		"tool-2.0-1.x86_64.rpm", "tool-2.0-1.noarch.rpm", "tool-2.0-1.src.rpm",
		"tool-10.0-1.x86_64.rpm", "tool-2.0-1.aarch64.rpm", "tool-9.0-1.x86_64.rpm",
	};
	char *s;

	s = groups_text(nightly, N_OF(nightly), "x86_64");
	tap_ok(!strcmp(s, "app-1.2: app-1.2-x86_64.tar.gz | app-1.9: app-1.9-noarch.tar.gz app-1.9-x86_64.tar.gz"
		       " | app-1.9-data: app-1.9-data.zip | app-1.10: app-1.10-x86_64.tar.gz"),
	       "nightly/ for x86_64: natural order, other architectures, systems, sources and non-artifacts out (%s)", s);
	free(s);
	s = groups_text(nightly, N_OF(nightly), "arm64");
	tap_ok(!strcmp(s, "app-1.9: app-1.9-aarch64.tar.gz app-1.9-noarch.tar.gz | app-1.9-data: app-1.9-data.zip"
		       " | app-1.10: app-1.10-aarch64.tar.gz"),
	       "nightly/ for arm64 (aarch64 files; app-1.2 has none) (%s)", s);
	free(s);
	s = groups_text(rpms, N_OF(rpms), "x86_64");
	tap_ok(!strcmp(s, "tool-2.0-1: tool-2.0-1.noarch.rpm tool-2.0-1.x86_64.rpm | tool-9.0-1: tool-9.0-1.x86_64.rpm"
		       " | tool-10.0-1: tool-10.0-1.x86_64.rpm"),
	       "RPMs: one build per version-release, noarch with it, src.rpm out (%s)", s);
	free(s);
	s = groups_text(NULL, 0, "x86_64");
	tap_ok(!strcmp(s, ""), "no names, no builds");
	free(s);
}

static void many(void)
{
	/* every file its own build: groups stay as small as their files */
	enum { N = 20000 };
	char **names = ab_xmalloc(N * sizeof *names);
	size_t i, ng = 0, bad = 0;
	ab_sumtree_group *g;

	for (i = 0; i < N; i++)
		names[i] = ab_xasprintf("nightly-%zu-x86_64.tar.zst", N - i);
	g = ab_sumtree_group_names((const char *const *)names, N, "amd64", &ng);
	for (i = 0; i < ng; i++)
		if (g[i].nfiles != 1 || g[i].files[0] != N - 1 - i)
			bad++;
	tap_ok(ng == N && !bad, "%d builds of one file each, in natural order", N);
	ab_sumtree_groups_free(g, ng);
	for (i = 0; i < N; i++)
		free(names[i]);
	free(names);
}

int main(void)
{
	natural();
	list_names();
	keys();
	arches();
	grouping();
	many();
	return tap_done();
}
