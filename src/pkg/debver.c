/* debver.c - see debver.h. The comparison is dpkg's verrevcmp, written
 * from Debian policy 5.6.12 and checked against dpkg --compare-versions
 * in tests/test-debver.c. */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "pkg/debver.h"
#include "base/i18n.h"

/* A Debian version cut into its parts; the pointers are into buf. */
struct parts {
	unsigned long epoch;
	const char *upstream, *revision;
	char buf[512];
	char *heap;
};

/* Policy's order of non-digit characters: '~' before the end, the end
 * before letters, letters before everything else. */
static int order(int c)
{
	if (isdigit(c))
		return 0;
	if (isalpha(c))
		return c;
	if (c == '~')
		return -1;
	if (c)
		return c + 256;
	return 0;
}

static int verrevcmp(const char *a, const char *b)
{
	while (*a || *b) {
		int first_diff = 0;

		while ((*a && !isdigit((unsigned char)*a)) || (*b && !isdigit((unsigned char)*b))) {
			int ac = order((unsigned char)*a), bc = order((unsigned char)*b);

			if (ac != bc)
				return ac - bc;
			a++;
			b++;
		}
		while (*a == '0')
			a++;
		while (*b == '0')
			b++;
		while (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			if (!first_diff)
				first_diff = *a - *b;
			a++;
			b++;
		}
		if (isdigit((unsigned char)*a))
			return 1;
		if (isdigit((unsigned char)*b))
			return -1;
		if (first_diff)
			return first_diff;
	}
	return 0;
}

/* Splits s; 0, or -1 with *why. Leading and trailing blanks are
 * ignored, as dpkg does. */
static int split(const char *s, struct parts *p, const char **why)
{
	const char *start = s, *end, *colon, *hyphen;
	size_t len;
	char *copy, *up;

	p->heap = NULL;
	while (*start == ' ' || *start == '\t')
		start++;
	end = start + strlen(start);
	while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	len = (size_t)(end - start);
	if (len == 0) {
		*why = N_("version string is empty");
		return -1;
	}
	if (len < sizeof p->buf) {
		copy = p->buf;
	} else {
		copy = p->heap = malloc(len + 1);
		if (!copy) {
			*why = N_("version string is too long");
			return -1;
		}
	}
	memcpy(copy, start, len);
	copy[len] = '\0';
	if (strpbrk(copy, " \t\n")) {
		*why = N_("version string has embedded spaces");
		goto fail;
	}
	colon = strchr(copy, ':');
	p->epoch = 0;
	up = copy;
	if (colon) {
		char *e;

		if (colon == copy) {
			*why = N_("epoch in version is empty");
			goto fail;
		}
		errno = 0;
		p->epoch = strtoul(copy, &e, 10);
		if (e != colon || !isdigit((unsigned char)copy[0])) {
			*why = N_("epoch in version is not a number");
			goto fail;
		}
		if (errno || p->epoch > 2147483647UL) {
			*why = N_("epoch in version is too big");
			goto fail;
		}
		up = (char *)colon + 1;
	}
	if (!*up) {
		*why = N_("nothing after colon in version number");
		goto fail;
	}
	hyphen = strrchr(up, '-');
	p->revision = "";
	if (hyphen) {
		*(char *)hyphen = '\0';
		p->revision = hyphen + 1;
		if (!*p->revision) {
			*why = N_("revision number is empty");
			goto fail;
		}
	}
	p->upstream = up;
	if (!*up) {
		*why = N_("upstream version is empty");
		goto fail;
	}
	return 0;
fail:
	free(p->heap);
	p->heap = NULL;
	return -1;
}

int ab_debver_valid(const char *s, const char **why)
{
	struct parts p;
	const char *c, *w = NULL;

	if (split(s, &p, &w) < 0) {
		if (why)
			*why = _(w);
		return 0;
	}
	/* dpkg only warns about these; a farm's index should be clean. */
	for (c = p.upstream; *c && !w; c++)
		if (!isalnum((unsigned char)*c) && !strchr(".-+~:", *c))
			w = N_("invalid character in version number");
	for (c = p.revision; *c && !w; c++)
		if (!isalnum((unsigned char)*c) && !strchr(".+~", *c))
			w = N_("invalid character in revision number");
	free(p.heap);
	if (w) {
		if (why)
			*why = _(w);
		return 0;
	}
	return 1;
}

int ab_debver_cmp(const char *a, const char *b)
{
	struct parts pa, pb;
	const char *why;
	int r;

	/* An unparsable version sorts before any valid one; two of them by
	 * their bytes. (Indexes refuse them before it comes to this.) */
	if (split(a, &pa, &why) < 0) {
		if (split(b, &pb, &why) < 0)
			return strcmp(a, b);
		free(pb.heap);
		return -1;
	}
	if (split(b, &pb, &why) < 0) {
		free(pa.heap);
		return 1;
	}
	if (pa.epoch != pb.epoch)
		r = pa.epoch < pb.epoch ? -1 : 1;
	else if ((r = verrevcmp(pa.upstream, pb.upstream)) == 0)
		r = verrevcmp(pa.revision, pb.revision);
	free(pa.heap);
	free(pb.heap);
	return r < 0 ? -1 : r > 0;
}
