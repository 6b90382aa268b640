/* pkginfo.c - see pkginfo.h. */
#include "config.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <rpm/rpmver.h>
#include <rpm/rpmlib.h>
#include "pkg/debver.h"
#include "pkg/pkginfo.h"
#include "base/util.h"

void ab_pkg_info_free(ab_pkg_info *info)
{
	if (!info)
		return;
	free(info->name);
	free(info->epoch);
	free(info->version);
	free(info->release);
	free(info->arch);
	free(info->vcs);
	free(info->commit);
	memset(info, 0, sizeof *info);
}

char *ab_pkg_evr(const ab_pkg_info *info)
{
	if (info->kind == AB_PKG_RPM)
		return ab_xasprintf("%s-%s", info->version ? info->version : "",
				    info->release ? info->release : "");
	if (info->epoch && strcmp(info->epoch, "0"))
		return ab_xasprintf("%s:%s", info->epoch, info->version ? info->version : "");
	return ab_xstrdup(info->version ? info->version : "");
}

/* Length of the run of hex digits at s. */
static size_t hex_run(const char *s)
{
	size_t n = 0;

	while (isxdigit((unsigned char)s[n]))
		n++;
	return n;
}

static char *lower_copy(const char *s, size_t n)
{
	char *c = ab_xstrndup(s, n);
	size_t i;

	for (i = 0; i < n; i++)
		c[i] = (char)tolower((unsigned char)c[i]);
	return c;
}

/* A hex run of 7 to 64 digits at s that ends where the text ends or at a
 * separator, with at least one digit in it (a word like "deadbeef"
 * alone would not do, but a real short hash nearly always has one). */
static int commit_at(const char *s, size_t *len)
{
	size_t n = hex_run(s), i;
	int digit = 0;

	if (n < 7 || n > 64)
		return 0;
	if (s[n] && isalnum((unsigned char)s[n]))
		return 0;
	for (i = 0; i < n; i++)
		if (isdigit((unsigned char)s[i]))
			digit = 1;
	*len = n;
	return digit;
}

char *ab_pkg_commit_from_vcs(const char *vcs)
{
	const char *p;
	size_t n;

	if (!vcs || !*vcs)
		return NULL;
	/* git+https://host/repo.git#HEX, https://host/repo/commit/HEX, HEX */
	p = strrchr(vcs, '#');
	if (!p)
		p = strrchr(vcs, '/');
	p = p ? p + 1 : vcs;
	if (commit_at(p, &n) && !p[n])
		return lower_copy(p, n);
	return NULL;
}

char *ab_pkg_commit_from_version(const char *version)
{
	const char *p;
	size_t n;

	if (!version)
		return NULL;
	/* "git" followed by the hash, or by a date then a separator and the
	 * hash: 20240101git3f4d1b5c, git20240101.3f4d1b5, git.3f4d1b5 */
	for (p = strstr(version, "git"); p; p = strstr(p + 1, "git")) {
		const char *q = p + 3;

		if (*q == '.' || *q == '_' || *q == '-' || *q == '+' || *q == '~')
			q++;
		if (commit_at(q, &n) && !(n == 8 && strspn(q, "0123456789") == 8))
			return lower_copy(q, n);	/* not a date: a hash */
		while (isdigit((unsigned char)*q))
			q++;
		if (*q == '.' || *q == '_' || *q == '-' || *q == '+' || *q == '~') {
			q++;
			if (commit_at(q, &n))
				return lower_copy(q, n);
		}
	}
	return NULL;
}

int ab_pkg_vercmp(const ab_pkg_info *a, const ab_pkg_info *b)
{
	if (a->kind == AB_PKG_DEB && b->kind == AB_PKG_DEB) {
		char *x = ab_pkg_evr(a), *y = ab_pkg_evr(b);
		int r = ab_debver_cmp(x, y);

		free(x);
		free(y);
		return r;
	} else {
		rpmver va = rpmverNew(a->epoch, a->version ? a->version : "", a->release);
		rpmver vb = rpmverNew(b->epoch, b->version ? b->version : "", b->release);
		/* librpm makes no rpmver of an empty version (a hostile
		 * primary.xml's <version ver=""/>), and rpmverCmp does not take
		 * NULL: such a package sorts before every real one. */
		int r = va && vb ? rpmverCmp(va, vb) : (va != NULL) - (vb != NULL);

		rpmverFree(va);
		rpmverFree(vb);
		return r;
	}
}
