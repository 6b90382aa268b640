/* names.c - checks on names read from farms (see names.h), and the
 * host's architecture as a farm names it (farm.h). */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "base/escape.h"
#include "farms/farm.h"
#include "farms/names.h"

bool ab_farm_utf8_valid(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, k;
	uint32_t cp;

	for (; i < n; i += k)
		if (!(k = ab_utf8_len(s + i, n - i, &cp)))
			return false;
	return true;
}

const char *ab_farm_quote(const char *s, size_t n, char *buf, size_t size)
{
	size_t i = 0, o = 0, k;

	if (!size)
		return buf;
	while (i < n && o < 100) {
		uint32_t cp;

		k = ab_utf8_len((const unsigned char *)s + i, n - i, &cp);
		if (k > 1) {
			if (o + k >= size)
				break;	/* never half a character */
			while (k--)
				buf[o++] = s[i++];
			continue;
		}
		if (o + 1 >= size)
			break;
		/* control bytes (a line break, an escape sequence) and bytes
		 * that are not UTF-8 never reach a terminal */
		buf[o++] = k != 1 || (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
		i++;
	}
	buf[o] = '\0';
	return buf;
}

static struct utsname host;

static void read_host(void)
{
	if (uname(&host) < 0)
		snprintf(host.machine, sizeof host.machine, "x86_64");
}

const char *ab_farm_host_arch(const char *style)
{
	static const struct { const char *uname, *deb; } names[] = {
		{ "x86_64", "amd64" }, { "aarch64", "arm64" }, { "armv7l", "armhf" },
		{ "i686", "i386" }, { "i586", "i386" }, { "ppc64le", "ppc64el" },
	};
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	size_t i;

	pthread_once(&once, read_host);
	if (style && !strcmp(style, "deb"))
		for (i = 0; i < sizeof names / sizeof names[0]; i++)
			if (!strcmp(host.machine, names[i].uname))
				return names[i].deb;
	return host.machine;
}
