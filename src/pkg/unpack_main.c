/* unpack_main.c - artbisect-unpack, the program that extracts one
 * artifact into a scratch root for artbisect (see unpack.c).
 *
 * The same extraction artbisect can run as itself; this program is
 * linked with libarchive alone, so it starts in a third of the time
 * (no libcurl, librpm, jansson or libxml2 to load), once per artifact.
 * Never run by hand: its arguments are unpack.c's private protocol.
 */
#include "config.h"
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/i18n.h"
#include "pkg/unpack.h"

int main(int argc, char **argv)
{
	const char *dir = getenv("ARTBISECT_LOCALEDIR");

	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");
	bindtextdomain(PACKAGE, dir && *dir ? dir : LOCALEDIR);
	textdomain(PACKAGE);
	if (argc > 1 && !strcmp(argv[1], AB_UNPACK_HELPER_ARG))
		return ab_unpack_helper_main(argc, argv);
	fprintf(stderr, _("%s: this program is run by artbisect, not by hand\n"), argv[0]);
	return 2;
}
