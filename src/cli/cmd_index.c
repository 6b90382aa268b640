/* cmd_index.c - see cmd_index.h. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/cmd_index.h"
#include "cli/cmd_index_farm.h"
#include "base/digest.h"
#include "base/error.h"
#include "base/i18n.h"
#include "farms/indexgen.h"
#include "cli/progress.h"
#include "pkg/rpmpkg.h"
#include "base/util.h"

static void usage(FILE *out)
{
	fputs(_("Usage: artbisect index [--output FILE] [--name TEXT] [--base-url URL] [--package NAME]... PATH...\n"
		"       artbisect index [--output FILE] [farm options] URL   (see artbisect index --help URL)\n"
		"Write an artifact index for the packages and archives in PATHs, or for\n"
		"the real farm at URL (Ubuntu mainline, the Arch Linux Archive, Koji,\n"
		"SHA256SUMS trees).\n"
		"\n"
		"  PATH                    a file or a directory (searched recursively) holding\n"
		"                          .rpm, .deb, .tar.*, .zip artifacts\n"
		"  --output FILE           write the index to FILE (atomically); artifact URLs\n"
		"                          are relative to its directory (default: standard\n"
		"                          output, URLs relative to the current directory)\n"
		"  --name TEXT             the index's name\n"
		"  --base-url URL          artifact URLs are URL and the path under PATH\n"
		"                          (whatever the directory of --output)\n"
		"  --package NAME          take only the packages named NAME (repeatable); needed\n"
		"                          when PATHs hold packages of several projects\n"
		"  --help\n"
		"\n"
		"Packages are ordered by version comparison (rpm's or Debian's) and grouped\n"
		"into one build per version; archives keep the natural order of their names.\n"), out);
}

/* Whether an operand (not an option's value) is an http(s) URL, or is
 * the word URL beside --help, as the usage line says to type it. */
static int has_url_operand(int argc, char **argv)
{
	static const char *const with_value[] = {
		"--output", "--name", "--base-url", "--package", "--farm", "--arch", "--flavour",
		"--good", "--bad", "--keyring", "--cache-dir", "--cacert",
	};
	int i, help = 0, url_word = 0;
	size_t k;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--"))
			return i + 1 < argc && (!strncmp(argv[i + 1], "http://", 7) ||
						!strncmp(argv[i + 1], "https://", 8));
		if (a[0] == '-') {
			help |= !strcmp(a, "--help");
			for (k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
				if (!strcmp(a, with_value[k]))
					i++;
			continue;
		}
		if (!strncmp(a, "http://", 7) || !strncmp(a, "https://", 8))
			return 1;
		url_word |= !strcmp(a, "URL");
	}
	return help && url_word;
}

int ab_cmd_index(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "name", required_argument, NULL, 'n' },
		{ "base-url", required_argument, NULL, 'b' },
		{ "package", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	ab_indexgen_options opt;
	const char **packages = ab_xcalloc((size_t)argc, sizeof *packages);
	ab_error err = {0};
	char *text;
	int c, status = 0;

	/* A farm's URL as the operand: the farm's own options. */
	if (has_url_operand(argc, argv)) {
		free(packages);
		return ab_cmd_index_farm(argc, argv);
	}
	memset(&opt, 0, sizeof opt);
	opt.packages = packages;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case 'o': opt.output = optarg; break;
		case 'n': opt.name = optarg; break;
		case 'p': packages[opt.npackages++] = optarg; break;
		case 'b':
			if (strncmp(optarg, "http://", 7) && strncmp(optarg, "https://", 8) &&
			    strncmp(optarg, "file://", 7)) {
				ab_message(_("--base-url: expected an http://, https:// or file:// URL, got '%s'"),
					   optarg);
				free(packages);
				return AB_EXIT_USAGE;
			}
			opt.base_url = optarg;
			break;
		case 'h':
			usage(stdout);
			free(packages);
			return 0;
		case ':':
			ab_message(_("%s needs a value"), argv[optind - 1]);
			free(packages);
			return AB_EXIT_USAGE;
		default:
			ab_message(_("unknown option '%s' (see artbisect index --help)"), argv[optind - 1]);
			free(packages);
			return AB_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		ab_message(_("artbisect index needs at least one PATH (see artbisect index --help)"));
		free(packages);
		return AB_EXIT_USAGE;
	}
	ab_digest_init();
	text = ab_indexgen((const char *const *)argv + optind, (size_t)(argc - optind), &opt, &err);
	free(packages);
	if (!text) {
		ab_message("%s", err.msg);
		ab_rpm_cleanup();
		return err.code ? err.code : AB_EXIT_FAILURE;
	}
	if (opt.output) {
		if (ab_write_output(opt.output, text, strlen(text), 0644, &err) < 0) {
			ab_message("%s", err.msg);
			status = err.code;
		}
	} else if (fputs(text, stdout) < 0 || fflush(stdout) != 0) {
		ab_message(_("cannot write the index: %s"), strerror(errno));
		status = AB_EXIT_FAILURE;
	}
	free(text);
	ab_rpm_cleanup();
	return status;
}
