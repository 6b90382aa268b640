/* main.c - parses the command line and dispatches; nothing else. */
#include "config.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd_bisect.h"
#include "cmd_cache.h"
#include "cmd_index.h"
#include "util.h"
#include "error.h"
#include "i18n.h"
#include "progress.h"

enum {
	OPT_INDEX = 256, OPT_GOOD, OPT_BAD, OPT_PROBE, OPT_TIMEOUT, OPT_TIMEOUT_VERDICT,
	OPT_FIND_FIX, OPT_JSON, OPT_JOBS, OPT_CACHE_DIR, OPT_WORK_DIR, OPT_NO_PREFETCH,
	OPT_KEEP_ROOTS, OPT_CACERT, OPT_NET_TIMEOUT, OPT_REPORT, OPT_QUIET, OPT_HELP,
	OPT_VERSION, OPT_KEYRING, OPT_PACKAGE, OPT_INSTALL, OPT_CACHE_SIZE,
};

static const struct option options[] = {
	{ "index", required_argument, NULL, OPT_INDEX },
	{ "good", required_argument, NULL, OPT_GOOD },
	{ "bad", required_argument, NULL, OPT_BAD },
	{ "probe", required_argument, NULL, OPT_PROBE },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "timeout-verdict", required_argument, NULL, OPT_TIMEOUT_VERDICT },
	{ "find-fix", no_argument, NULL, OPT_FIND_FIX },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "jobs", required_argument, NULL, OPT_JOBS },
	{ "cache-dir", required_argument, NULL, OPT_CACHE_DIR },
	{ "work-dir", required_argument, NULL, OPT_WORK_DIR },
	{ "no-prefetch", no_argument, NULL, OPT_NO_PREFETCH },
	{ "keep-roots", no_argument, NULL, OPT_KEEP_ROOTS },
	{ "cacert", required_argument, NULL, OPT_CACERT },
	{ "net-timeout", required_argument, NULL, OPT_NET_TIMEOUT },
	{ "report", required_argument, NULL, OPT_REPORT },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "keyring", required_argument, NULL, OPT_KEYRING },
	{ "package", required_argument, NULL, OPT_PACKAGE },
	{ "install", required_argument, NULL, OPT_INSTALL },
	{ "cache-size", required_argument, NULL, OPT_CACHE_SIZE },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fputs(_("Usage: artbisect --index URL [options]\n"
		"Find the build that broke (or fixed) something, from prebuilt builds.\n"
		"\n"
		"  --index URL             the artifact index (path, file://, http://, https://)\n"
		"  --good ID               a build that works (default: the oldest)\n"
		"  --bad ID                a build that shows the problem (default: the newest)\n"
		"                          (an id, or 7+ characters of a commit)\n"
		"  --probe CMD             run CMD with /bin/sh in each build's root:\n"
		"                          exit 0 good, 1-124/126/127 bad, 125 skip, 128+ abort\n"
		"                          without it, you are asked at each step\n"
		"  --timeout S             a probe running longer than S seconds is killed\n"
		"  --timeout-verdict bad|skip  what a timed-out probe means (default: bad)\n"
		"  --find-fix              find the first good build after bad ones\n"
		"  --json                  print the JSON report on standard output\n"
		"  --report FILE           also write the text report to FILE\n"
		"  --jobs N                builds probed at once (default 1)\n"
		"  --cache-dir DIR         verified downloads (default $XDG_CACHE_HOME/artbisect)\n"
		"  --work-dir DIR          scratch roots (default $XDG_STATE_HOME/artbisect)\n"
		"  --cache-size SIZE       cap the cache (K, M, G suffixes; default a quarter\n"
		"                          of the space its file system could give it)\n"
		"  --keep-roots            keep each build's scratch root after its verdict\n"
		"  --no-prefetch           no background downloads\n"
		"  --keyring FILE          RPMs must be signed by a key in FILE (repeatable)\n"
		"  --package NAME          --index is a yum/dnf repository: bisect package NAME\n"
		"  --install rpm           install RPMs with an rpm transaction instead of\n"
		"                          unpacking them (runs scriptlets; needs root)\n"
		"  --cacert FILE           trust the CA certificates in FILE for https\n"
		"  --net-timeout S         give up on a connection that is silent for S seconds\n"
		"  --quiet                 only the report and errors\n"
		"  --help, --version\n"
		"\n"
		"Exit status: 0 found, 1 inconclusive, 2 bad usage or input,\n"
		"3 failure, 4 aborted.\n"
		"\n"
		"Other commands:\n"
		"  artbisect index [--output FILE] [--name TEXT] [--base-url URL] PATH...\n"
		"                          write an index for the packages and archives in PATHs\n"
		"  artbisect cache list|clean [--cache-dir DIR] [--older-than DAYS]\n"
		"                          show or empty the download cache\n"), out);
}

static int parse_seconds(const char *opt, const char *arg, double *out)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v >= 0) || v > 1e9) {
		ab_message(_("%s: expected a number of seconds, got '%s'"), opt, arg);
		return -1;
	}
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	ab_cli cli;
	int c;

	setlocale(LC_ALL, "");
	bindtextdomain(PACKAGE, LOCALEDIR);
	textdomain(PACKAGE);

	if (argc > 1 && !strcmp(argv[1], "index"))
		return ab_cmd_index(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "cache"))
		return ab_cmd_cache(argc - 1, argv + 1);

	memset(&cli, 0, sizeof cli);
	cli.jobs = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case OPT_INDEX: cli.index = optarg; break;
		case OPT_GOOD: cli.good = optarg; break;
		case OPT_BAD: cli.bad = optarg; break;
		case OPT_PROBE: cli.probe = optarg; break;
		case OPT_TIMEOUT:
			if (parse_seconds("--timeout", optarg, &cli.timeout) < 0)
				return AB_EXIT_USAGE;
			break;
		case OPT_TIMEOUT_VERDICT:
			if (!strcmp(optarg, "skip"))
				cli.timeout_skip = 1;
			else if (strcmp(optarg, "bad")) {
				ab_message(_("--timeout-verdict: expected 'bad' or 'skip', got '%s'"), optarg);
				return AB_EXIT_USAGE;
			}
			break;
		case OPT_FIND_FIX: cli.find_fix = 1; break;
		case OPT_JSON: cli.json = 1; break;
		case OPT_JOBS: {
			char *end;
			long n = strtol(optarg, &end, 10);
			if (end == optarg || *end || n < 1 || n > 64) {
				ab_message(_("--jobs: expected a number from 1 to 64, got '%s'"), optarg);
				return AB_EXIT_USAGE;
			}
			cli.jobs = (int)n;
			break;
		}
		case OPT_CACHE_DIR: cli.cache_dir = optarg; break;
		case OPT_WORK_DIR: cli.work_dir = optarg; break;
		case OPT_NO_PREFETCH: cli.no_prefetch = 1; break;
		case OPT_KEEP_ROOTS: cli.keep_roots = 1; break;
		case OPT_CACERT: cli.cacert = optarg; break;
		case OPT_NET_TIMEOUT:
			if (parse_seconds("--net-timeout", optarg, &cli.net_timeout) < 0)
				return AB_EXIT_USAGE;
			break;
		case OPT_REPORT: cli.report_file = optarg; break;
		case OPT_KEYRING:
			if (cli.nkeyrings == sizeof cli.keyrings / sizeof cli.keyrings[0]) {
				ab_message(_("--keyring: at most %zu files"), cli.nkeyrings);
				return AB_EXIT_USAGE;
			}
			cli.keyrings[cli.nkeyrings++] = optarg;
			break;
		case OPT_PACKAGE: cli.package = optarg; break;
		case OPT_CACHE_SIZE:
			if (ab_parse_size(optarg, &cli.cache_size) < 0 || cli.cache_size <= 0) {
				ab_message(_("--cache-size: expected a size such as 500M or 20G, got '%s'"), optarg);
				return AB_EXIT_USAGE;
			}
			break;
		case OPT_INSTALL:
			if (strcmp(optarg, "rpm")) {
				ab_message(_("--install: expected 'rpm', got '%s'"), optarg);
				return AB_EXIT_USAGE;
			}
			cli.install_rpm = 1;
			break;
		case OPT_QUIET: cli.quiet = 1; break;
		case OPT_HELP:
			usage(stdout);
			return 0;
		case OPT_VERSION:
			printf("artbisect %s\n", PACKAGE_VERSION);
			return 0;
		case ':':
			ab_message(_("%s needs a value"), argv[optind - 1]);
			return AB_EXIT_USAGE;
		default:
			ab_message(_("unknown option '%s' (see artbisect --help)"), argv[optind - 1]);
			return AB_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		ab_message(_("unexpected argument '%s' (see artbisect --help)"), argv[optind]);
		return AB_EXIT_USAGE;
	}
	if (!cli.index) {
		ab_message(_("--index URL is required (see artbisect --help)"));
		return AB_EXIT_USAGE;
	}
	return ab_cmd_bisect(&cli);
}
