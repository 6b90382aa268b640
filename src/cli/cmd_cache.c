/* cmd_cache.c - see cmd_cache.h. */
#include "config.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "net/cache.h"
#include "cli/cli.h"
#include "cli/cmd_cache.h"
#include "base/error.h"
#include "base/escape.h"
#include "base/i18n.h"
#include "cli/progress.h"
#include "base/util.h"

char *ab_default_cache_dir(void)
{
	return ab_xdg_dir("XDG_CACHE_HOME", ".cache");
}

static void usage(FILE *out)
{
	fputs(_("Usage: artbisect cache list [--cache-dir DIR]\n"
		"       artbisect cache clean [--cache-dir DIR] [--older-than DAYS]\n"
		"Show or empty the cache of verified downloads.\n"
		"\n"
		"  list                    every entry, least recently used first: digest,\n"
		"                          size, last use and where it came from\n"
		"  clean                   remove every entry and partial download, or with\n"
		"                          --older-than only entries unused for DAYS days\n"
		"  --cache-dir DIR         the cache (default $XDG_CACHE_HOME/artbisect)\n"), out);
}

/* `cache list`: one line an entry, then the totals. The exit status. */
static int cache_list(ab_cache *cache, const char *dir)
{
	ab_error err = {0};
	ab_cache_entry *v;
	size_t n, i;
	long long total = 0;
	char buf[32], buf2[32];

	if (ab_cache_list(cache, &v, &n, &err) < 0) {
		ab_message("%s", err.msg);
		return err.code;
	}
	for (i = 0; i < n; i++) {
		char when[32];
		struct tm tm;

		localtime_r(&v[i].used, &tm);
		strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
		char *url = ab_esc_term(v[i].url ? v[i].url : "-");	/* the farm's */

		printf("%.12s  %10s  %s  %s\n", v[i].sha256, ab_format_size(v[i].size, buf), when, url);
		free(url);
		total += v[i].size;
	}
	printf(ngettext("%zu entry, %s in %s", "%zu entries, %s in %s", n), n,
	       ab_format_size(total, buf), dir);
	if (ab_cache_partial_bytes(cache) > 0)
		printf(_(" (and %s of partial downloads)"), ab_format_size(ab_cache_partial_bytes(cache), buf2));
	printf("\n");
	ab_cache_entries_free(v, n);
	return 0;
}

int ab_cmd_cache(int argc, char **argv)
{
	static const struct option options[] = {
		{ "cache-dir", required_argument, NULL, 'c' },
		{ "older-than", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir_arg = NULL, *action;
	double days = 0;
	ab_error err = {0};
	ab_cache *cache;
	char *dir, buf[32];
	int c, status = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case 'c': dir_arg = optarg; break;
		case 'o': {
			char *end;
			days = strtod(optarg, &end);
			if (end == optarg || *end || !(days > 0)) {
				ab_message(_("--older-than: expected a number of days, got '%s'"), optarg);
				return AB_EXIT_USAGE;
			}
			break;
		}
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			ab_message(_("%s needs a value"), argv[optind - 1]);
			return AB_EXIT_USAGE;
		default:
			ab_message(_("unknown option '%s' (see artbisect cache --help)"), argv[optind - 1]);
			return AB_EXIT_USAGE;
		}
	}
	if (optind >= argc || (strcmp(argv[optind], "list") && strcmp(argv[optind], "clean"))) {
		ab_message(_("artbisect cache needs 'list' or 'clean' (see artbisect cache --help)"));
		return AB_EXIT_USAGE;
	}
	if (optind + 1 < argc) {
		ab_message(_("unexpected argument '%s' (see artbisect cache --help)"), argv[optind + 1]);
		return AB_EXIT_USAGE;
	}
	action = argv[optind];
	if (dir_arg) {
		dir = ab_xstrdup(dir_arg);
	} else {
		/* The cache the runs use: cache-dir in the config file or
		 * ARTBISECT_CACHE_DIR, else the default. */
		ab_cli settings;

		if (ab_cli_init(&settings, AB_CMD_START) < 0) {
			ab_cli_free(&settings);
			return AB_EXIT_USAGE;
		}
		dir = settings.cache_dir ? ab_xstrdup(settings.cache_dir) : ab_default_cache_dir();
		ab_cli_free(&settings);
	}
	if (access(dir, F_OK) != 0) {
		/* nothing to list or clean; a mistyped --cache-dir makes nothing */
		char *d = ab_esc_term(dir);

		printf(_("There is no cache in %s.\n"), d);
		free(d);
		free(dir);
		return 0;
	}
	/* Listing writes nothing: a cache that is not ours can be listed. */
	cache = !strcmp(action, "list") ? ab_cache_open_to_read(dir) : ab_cache_open(dir, &err);
	if (!cache) {
		ab_message("%s", err.msg);
		free(dir);
		return err.code ? err.code : AB_EXIT_FAILURE;
	}
	if (!strcmp(action, "list")) {
		status = cache_list(cache, dir);
	} else {
		int64_t freed = ab_cache_clean(cache, (time_t)(days * 86400));

		printf(_("freed %s in %s\n"), ab_format_size(freed, buf), dir);
	}
	ab_cache_close(cache);
	free(dir);
	return status;
}
