/* layout_names.c - the names farm layouts read, and their order (see
 * layout_names.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/debver.h"
#include "farms/layout_names.h"
#include "index/index.h"
#include "base/util.h"

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static unsigned char lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

int ab_layout_natural_cmp(const char *a, const char *b)
{
	const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
	int zeros = 0;	/* the first difference in leading zeros, for ties */

	while (*p && *q) {
		if (is_digit(*p) && is_digit(*q)) {
			size_t zp = 0, zq = 0, lp = 0, lq = 0;
			int c;

			while (p[zp] == '0' && is_digit(p[zp + 1]))
				zp++;
			while (q[zq] == '0' && is_digit(q[zq + 1]))
				zq++;
			p += zp, q += zq;
			while (is_digit(p[lp]))
				lp++;
			while (is_digit(q[lq]))
				lq++;
			/* without leading zeros a longer run is a larger number */
			if (lp != lq)
				return lp < lq ? -1 : 1;
			if ((c = memcmp(p, q, lp)))
				return c < 0 ? -1 : 1;
			if (!zeros && zp != zq)
				zeros = zp < zq ? -1 : 1;
			p += lp, q += lq;
			continue;
		}
		if (*p != *q)
			return *p < *q ? -1 : 1;
		p++, q++;
	}
	if (*p || *q)
		return *p ? 1 : -1;
	return zeros;
}

/* ---- Ubuntu mainline ---- */

/* A decimal number without a leading zero, at most 6 digits (no
 * version part is near that): its length, 0 when there is none. */
static size_t number(const char *s, unsigned long *out)
{
	size_t i = 0;
	unsigned long v = 0;

	while (is_digit((unsigned char)s[i]) && i < 7)
		v = v * 10 + (unsigned long)(s[i++] - '0');
	if (i == 0 || i > 6 || is_digit((unsigned char)s[i]) || (i > 1 && s[0] == '0'))
		return 0;
	*out = v;
	return i;
}

bool ab_mainline_dir_parse(const char *name, ab_mainline_ver *v)
{
	const char *s = name;
	size_t k;

	memset(v, 0, sizeof *v);
	if (*s++ != 'v')
		return false;
	for (;;) {
		if (v->ncomp == 4 || !(k = number(s, &v->num[v->ncomp])))
			return false;
		v->ncomp++;
		s += k;
		if (*s != '.')
			break;
		s++;
	}
	if (v->ncomp < 2)
		return false;
	if (!strncmp(s, "-rc", 3)) {
		if (!(k = number(s + 3, &v->rc)) || v->rc == 0)
			return false;
		s += 3 + k;
	}
	return *s == '\0';
}

int ab_mainline_ver_cmp(const ab_mainline_ver *a, const ab_mainline_ver *b)
{
	int i;

	for (i = 0; i < 4; i++)
		if (a->num[i] != b->num[i])
			return a->num[i] < b->num[i] ? -1 : 1;
	if (a->rc == b->rc)
		return 0;
	/* a release (rc 0) comes after all its release candidates */
	if (!a->rc || !b->rc)
		return a->rc ? -1 : 1;
	return a->rc < b->rc ? -1 : 1;
}

const char *ab_mainline_ver_string(const ab_mainline_ver *v, char *buf, size_t size)
{
	char rc[32] = "";

	if (v->rc)
		snprintf(rc, sizeof rc, "-rc%lu", v->rc);
	if (v->ncomp == 4)
		snprintf(buf, size, "%lu.%lu.%lu.%lu%s", v->num[0], v->num[1], v->num[2], v->num[3], rc);
	else
		snprintf(buf, size, "%lu.%lu.%lu%s", v->num[0], v->num[1], v->num[2], rc);
	return buf;
}

static size_t digits(const char *s)
{
	size_t i = 0;

	while (is_digit((unsigned char)s[i]))
		i++;
	return i;
}

/* "6.8.0-060800" or "4.6.0-040600rc1" at s: its length, 0 if none. */
static size_t abi_len(const char *s)
{
	size_t i = 0, k;

	for (;;) {
		if (!(k = digits(s + i)))
			return 0;
		i += k;
		if (s[i] != '.')
			break;
		i++;
	}
	if (s[i] != '-' || !(k = digits(s + i + 1)))
		return 0;
	i += 1 + k;
	if (!strncmp(s + i, "rc", 2) && (k = digits(s + i + 2)))
		i += 2 + k;
	return i;
}

static bool flavour_char(char c)
{
	return (c >= 'a' && c <= 'z') || is_digit((unsigned char)c);
}

bool ab_mainline_deb_parse(const char *name, ab_mainline_deb *d)
{
	static const struct {
		const char *prefix;
		ab_mainline_kind kind;
	} prefixes[] = {	/* longest first: "linux-image-" starts three */
		{ "linux-image-unsigned-", AB_MLDEB_IMAGE_UNSIGNED },
		{ "linux-image-extra-", AB_MLDEB_IMAGE_EXTRA },
		{ "linux-image-", AB_MLDEB_IMAGE },
		{ "linux-modules-extra-", AB_MLDEB_MODULES_EXTRA },
		{ "linux-modules-", AB_MLDEB_MODULES },
		{ "linux-headers-", AB_MLDEB_HEADERS },
	};
	size_t n = strlen(name), i, k;
	const char *s, *u1, *u2, *end;

	memset(d, 0, sizeof *d);
	if (n < 4 || strcmp(name + n - 4, ".deb"))
		return false;
	end = name + n - 4;
	for (i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (!strncmp(name, prefixes[i].prefix, strlen(prefixes[i].prefix)))
			break;
	if (i == sizeof prefixes / sizeof prefixes[0])
		return false;
	d->kind = prefixes[i].kind;
	s = name + strlen(prefixes[i].prefix);
	if (!(k = abi_len(s)))
		return false;
	d->abi = s, d->abi_len = k;
	s += k;
	if (*s == '-') {
		d->flavour = ++s;
		while (flavour_char(*s) || (*s == '-' && flavour_char(s[1]) && s[-1] != '-'))
			s++;
		d->flavour_len = (size_t)(s - d->flavour);
		if (!d->flavour_len)
			return false;
	} else if (d->kind != AB_MLDEB_HEADERS) {
		return false;	/* only the common headers have no flavour */
	}
	/* then exactly "_VERSION_ARCH" */
	u1 = s;
	if (*u1 != '_' || !(u2 = memchr(u1 + 1, '_', (size_t)(end - u1 - 1))) || u2 == u1 + 1 ||
	    memchr(u2 + 1, '_', (size_t)(end - u2 - 1)) || u2 + 1 == end)
		return false;
	for (s = u1 + 1; s < u2; s++)
		if (!is_digit((unsigned char)*s) && !(*s >= 'a' && *s <= 'z') && !strchr(".+~:-", *s))
			return false;
	for (s = u2 + 1; s < end; s++)
		if (!flavour_char(*s))
			return false;
	d->version = u1 + 1, d->version_len = (size_t)(u2 - u1 - 1);
	d->arch = u2 + 1, d->arch_len = (size_t)(end - u2 - 1);
	return true;
}

static bool span_is(const char *s, size_t n, const char *want)
{
	return strlen(want) == n && !memcmp(s, want, n);
}

static bool same_span(const char *a, size_t an, const char *b, size_t bn)
{
	return an == bn && !memcmp(a, b, an);
}

/* Debian order of two package versions; natural order for any that is
 * not a Debian version (they all are, on a real farm). */
static int version_cmp(const ab_mainline_deb *a, const ab_mainline_deb *b)
{
	char *x = ab_xstrndup(a->version, a->version_len), *y = ab_xstrndup(b->version, b->version_len);
	int c = ab_debver_valid(x, NULL) && ab_debver_valid(y, NULL) ? ab_debver_cmp(x, y)
								    : ab_layout_natural_cmp(x, y);

	free(x);
	free(y);
	return c;
}

static int cmp_natural_ptr(const void *a, const void *b)
{
	return ab_layout_natural_cmp(*(char *const *)a, *(char *const *)b);
}

/* The flavours with an image for arch, "a, b", into buf. */
static void list_flavours(const ab_mainline_deb *d, size_t n, const char *arch, char *buf,
			  size_t size)
{
	char **fl = ab_xcalloc(n ? n : 1, sizeof *fl);
	size_t i, k = 0, o = 0;

	for (i = 0; i < n; i++)
		if ((d[i].kind == AB_MLDEB_IMAGE || d[i].kind == AB_MLDEB_IMAGE_UNSIGNED) &&
		    d[i].flavour && span_is(d[i].arch, d[i].arch_len, arch))
			fl[k++] = ab_xstrndup(d[i].flavour, d[i].flavour_len);
	qsort(fl, k, sizeof *fl, cmp_natural_ptr);
	if (size)
		buf[0] = '\0';
	for (i = 0; i < k; i++) {
		int w;

		if (i && !strcmp(fl[i], fl[i - 1]))
			continue;
		w = snprintf(buf + o, size - o, "%s%s", o ? ", " : "", fl[i]);
		if (w < 0 || (size_t)w >= size - o) {
			/* cut short on a whole name */
			if (size > o && size - o >= 4)
				snprintf(buf + o, size - o, "%s", o ? ",..." : "...");
			break;
		}
		o += (size_t)w;
	}
	for (i = 0; i < k; i++)
		free(fl[i]);
	free(fl);
}

const char *ab_mainline_arch(const char *arch)
{
	static const char *const alias[][2] = {
		{ "x86_64", "amd64" }, { "aarch64", "arm64" }, { "ppc64le", "ppc64el" },
		{ "i686", "i386" }, { "i586", "i386" }, { "armv7l", "armhf" }, { "armv7hl", "armhf" },
	};
	size_t i;

	for (i = 0; i < sizeof alias / sizeof alias[0]; i++)
		if (!strcmp(arch, alias[i][0]))
			return alias[i][1];
	return arch;
}

int ab_mainline_pick(const char *const *names, size_t n, const char *arch, const char *flavour,
		     ab_mainline_picked *out, char *flavours, size_t flavours_size)
{
	static const ab_mainline_kind after[] = { AB_MLDEB_MODULES_EXTRA, AB_MLDEB_IMAGE_EXTRA };
	ab_mainline_deb *d = ab_xcalloc(n ? n : 1, sizeof *d);
	bool *ok = ab_xcalloc(n ? n : 1, sizeof *ok);
	size_t i, j, image = (size_t)-1;

	memset(out, 0, sizeof *out);
	if (flavours_size)
		flavours[0] = '\0';
	for (i = 0; i < n; i++)
		ok[i] = ab_mainline_deb_parse(names[i], &d[i]) && d[i].flavour &&
			span_is(d[i].arch, d[i].arch_len, arch);
	for (i = 0; i < n; i++) {
		int c;

		if (!ok[i] || (d[i].kind != AB_MLDEB_IMAGE && d[i].kind != AB_MLDEB_IMAGE_UNSIGNED) ||
		    !span_is(d[i].flavour, d[i].flavour_len, flavour))
			continue;
		if (image == (size_t)-1) {
			image = i;
			continue;
		}
		/* the newest build; of one build, the unsigned image */
		c = version_cmp(&d[i], &d[image]);
		if (c > 0 || (c == 0 && d[i].kind == AB_MLDEB_IMAGE_UNSIGNED &&
			      d[image].kind == AB_MLDEB_IMAGE))
			image = i;
	}
	if (image == (size_t)-1) {
		list_flavours(d, n, arch, flavours, flavours_size);
		free(d);
		free(ok);
		return -1;
	}
	/* the same kernel's modules: same flavour and version */
	for (i = 0; i < n; i++)
		if (ok[i] && d[i].kind == AB_MLDEB_MODULES &&
		    same_span(d[i].flavour, d[i].flavour_len, d[image].flavour, d[image].flavour_len) &&
		    same_span(d[i].version, d[i].version_len, d[image].version, d[image].version_len)) {
			out->idx[out->n++] = i;
			break;
		}
	out->idx[out->n++] = image;
	for (j = 0; j < sizeof after / sizeof after[0]; j++)
		for (i = 0; i < n; i++)
			if (ok[i] && d[i].kind == after[j] &&
			    same_span(d[i].flavour, d[i].flavour_len, d[image].flavour, d[image].flavour_len) &&
			    same_span(d[i].version, d[i].version_len, d[image].version, d[image].version_len)) {
				out->idx[out->n++] = i;
				break;
			}
	free(d);
	free(ok);
	return 0;
}

/* ---- sums trees ---- */

bool ab_sumtree_is_list(const char *name)
{
	static const char want[] = "sha256sums";
	size_t i;

	for (i = 0; want[i]; i++)
		if (lower((unsigned char)name[i]) != (unsigned char)want[i])
			return false;
	return name[i] == '\0';
}

bool ab_sumtree_is_lone(const char *name, size_t *stem_len)
{
	size_t n = strlen(name);

	if (n <= 7 || strcmp(name + n - 7, ".sha256"))
		return false;
	if (stem_len)
		*stem_len = n - 7;
	return true;
}

enum { W_NEUTRAL = -1, W_OTHER = -2 };

/* Architecture and system words: the same group number names one
 * architecture. */
static const struct {
	const char *word;
	int group;
} arch_words[] = {
	{ "x86_64", 1 }, { "amd64", 1 }, { "x64", 1 }, { "x86-64", 1 },
	{ "aarch64", 2 }, { "arm64", 2 },
	{ "i386", 3 }, { "i586", 3 }, { "i686", 3 }, { "x86", 3 },
	{ "armhf", 4 }, { "armv7l", 4 }, { "armv7hl", 4 }, { "armv7", 4 },
	{ "ppc64le", 5 }, { "ppc64el", 5 },
	{ "ppc64", 6 },
	{ "s390x", 7 },
	{ "riscv64", 8 },
	{ "loong64", 9 }, { "loongarch64", 9 },
	{ "armel", 10 },
	{ "noarch", W_NEUTRAL }, { "all", W_NEUTRAL }, { "any", W_NEUTRAL },
	{ "linux", W_NEUTRAL }, { "gnu", W_NEUTRAL }, { "unknown", W_NEUTRAL },
	{ "windows", W_OTHER }, { "win32", W_OTHER }, { "win64", W_OTHER },
	{ "darwin", W_OTHER }, { "macos", W_OTHER }, { "osx", W_OTHER },
	{ "freebsd", W_OTHER }, { "openbsd", W_OTHER }, { "netbsd", W_OTHER },
	{ "android", W_OTHER },
	{ "src", W_OTHER }, { "source", W_OTHER }, { "sources", W_OTHER },
};

static bool is_sep(char c)
{
	return c == '-' || c == '_' || c == '.';
}

static bool word_at(const char *s, size_t n, const char *word, size_t *len)
{
	size_t i;

	for (i = 0; word[i]; i++)
		if (i >= n || lower((unsigned char)s[i]) != lower((unsigned char)word[i]))
			return false;
	if (i < n && !is_sep(s[i]))
		return false;
	/* "x86" is not the start of x86_64 (nor of x86_64v3) */
	if (!strcmp(word, "x86") && n - i >= 3 && (s[i] == '_' || s[i] == '-') && s[i + 1] == '6' &&
	    s[i + 2] == '4')
		return false;
	*len = i;
	return true;
}

/* The group of arch, or 0 when no word names it. */
static int arch_group(const char *arch)
{
	size_t i, len;

	for (i = 0; i < sizeof arch_words / sizeof arch_words[0]; i++)
		if (arch_words[i].group > 0 && word_at(arch, strlen(arch), arch_words[i].word, &len) &&
		    len == strlen(arch))
			return arch_words[i].group;
	return 0;
}

char *ab_sumtree_key(const char *name, const char *arch, bool *fits)
{
	ab_artifact_type type;
	size_t suffix, n, i, o = 0;
	int want = arch_group(arch);
	bool other = false;
	char *key;

	*fits = false;
	if (ab_artifact_type_guess(name, &type, &suffix) < 0)
		return NULL;
	n = strlen(name) - suffix;
	key = ab_xmalloc(n + 1);
	for (i = 0; i < n;) {
		size_t best = 0, len, w;
		int group = 0;

		if (i == 0 || is_sep(name[i - 1])) {
			/* an --arch no word names is a word of its own */
			if (!want && word_at(name + i, n - i, arch, &len) && len)
				best = len, group = 1;
			for (w = 0; w < sizeof arch_words / sizeof arch_words[0]; w++)
				if (word_at(name + i, n - i, arch_words[w].word, &len) && len > best)
					best = len, group = arch_words[w].group == want && want ? 1
							   : arch_words[w].group < 0 ? arch_words[w].group : 2;
		}
		if (!best) {
			key[o++] = name[i++];
			continue;
		}
		/* a word of another architecture or system: not ours */
		if (group == 2 || group == W_OTHER)
			other = true;
		/* drop the word with the separator before it (after it, first) */
		if (o > 0 && is_sep(key[o - 1]))
			o--;
		i += best;
		if (o == 0 && i < n && is_sep(name[i]))
			i++;
	}
	key[o] = '\0';
	if (!o) {
		/* nothing but words: the name is its own build */
		memcpy(key, name, n);
		key[n] = '\0';
	}
	*fits = !other;
	return key;
}

size_t ab_sumtree_arches(const char *const *names, size_t n, char *buf, size_t size)
{
	bool seen[16] = { false };
	size_t k = 0, o = 0, i, j, w, len, suffix;
	ab_artifact_type type;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		const char *name = names[i];
		size_t end;

		if (ab_artifact_type_guess(name, &type, &suffix) < 0)
			continue;
		end = strlen(name) - suffix;
		for (j = 0; j < end; j++) {
			if (j && !is_sep(name[j - 1]))
				continue;
			for (w = 0; w < sizeof arch_words / sizeof arch_words[0]; w++) {
				int g = arch_words[w].group;

				if (g <= 0 || seen[g] || !word_at(name + j, end - j, arch_words[w].word, &len))
					continue;
				seen[g] = true;
				if (o + len + 3 < size) {
					o += (size_t)snprintf(buf + o, size - o, "%s%.*s", k ? ", " : "",
							      (int)len, name + j);
					k++;
				}
			}
		}
	}
	return k;
}

struct keyed {
	char *key;
	const char *name;
	size_t idx;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int c = ab_layout_natural_cmp(x->key, y->key);

	return c ? c : ab_layout_natural_cmp(x->name, y->name);
}

ab_sumtree_group *ab_sumtree_group_names(const char *const *names, size_t n, const char *arch,
					 size_t *ngroups)
{
	struct keyed *k = ab_xcalloc(n ? n : 1, sizeof *k);
	ab_sumtree_group *g = NULL;
	size_t i, m = 0, ng = 0;

	for (i = 0; i < n; i++) {
		bool fits;
		char *key = ab_sumtree_key(names[i], arch, &fits);

		if (!key || !fits) {
			free(key);
			continue;
		}
		k[m].key = key, k[m].name = names[i], k[m].idx = i;
		m++;
	}
	qsort(k, m, sizeof *k, cmp_keyed);
	if (m)
		g = ab_xcalloc(m, sizeof *g);
	for (i = 0; i < m; i++) {
		if (!ng || strcmp(g[ng - 1].key, k[i].key)) {
			size_t run = 1;

			/* sorted: a group's files are one run */
			while (i + run < m && !strcmp(k[i + run].key, k[i].key))
				run++;
			g[ng].key = k[i].key;
			g[ng].files = ab_xcalloc(run, sizeof *g[ng].files);
			ng++;
		} else {
			free(k[i].key);
		}
		g[ng - 1].files[g[ng - 1].nfiles++] = k[i].idx;
	}
	free(k);
	*ngroups = ng;
	return g;
}

void ab_sumtree_groups_free(ab_sumtree_group *g, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(g[i].key);
		free(g[i].files);
	}
	free(g);
}
