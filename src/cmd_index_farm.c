/* cmd_index_farm.c - `artbisect index URL`: a real farm written as an
 * index v1 (see cmd_index_farm.h). */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cache.h"
#include "cmd_cache.h"
#include "cmd_index_farm.h"
#include "digest.h"
#include "error.h"
#include "escape.h"
#include "farms/farm.h"
#include "fetch.h"
#include "i18n.h"
#include "progress.h"
#include "rpmpkg.h"
#include "util.h"

#define MAX_LIST 32

static void usage(FILE *out)
{
	fputs(_("Usage: artbisect index [--output FILE] [farm options] URL\n"
		"Write an artifact index for a real farm: every build resolved, its sha256\n"
		"filled in from what was verified.\n"
		"\n"
		"  URL                     the farm's directory (http:// or https://): Ubuntu\n"
		"                          mainline, the Arch Linux Archive, Koji, SHA256SUMS\n"
		"  --output FILE           write the index to FILE (atomically; default: standard\n"
		"                          output)\n"
		"  --farm LAYOUT           mainline, arch, koji or sums (default: recognised)\n"
		"  --arch ARCH             the architecture, named the farm's way\n"
		"  --flavour NAME          the mainline kernel flavour (default generic)\n"
		"  --package NAME          Koji: a subpackage to take (repeatable)\n"
		"  --good ID, --bad ID     Koji: read only the versions between these\n"
		"  --keyring FILE          OpenPGP keys the farm signs with (repeatable)\n"
		"  --allow-unverified      take builds nothing can check (marked so)\n"
		"  --cache-dir DIR         where downloads are verified and kept\n"
		"  --cacert FILE           trust the CA certificates in FILE for https\n"
		"  --quiet                 no progress on standard error\n"), out);
}

typedef struct progress {
	int quiet;
} progress;

static void on_build(void *ud, size_t i, size_t n, const char *id, const char *why)
{
	progress *p = ud;
	char *eid, *ewhy;

	if (p->quiet && !why)
		return;
	eid = ab_esc_term(id);
	if (why) {
		ewhy = ab_esc_term(why);
		fprintf(stderr, _("[%zu/%zu] %s: failed: %s\n"), i + 1, n, eid, ewhy);
		free(ewhy);
	} else {
		fprintf(stderr, _("[%zu/%zu] %s\n"), i + 1, n, eid);
	}
	free(eid);
}

int ab_cmd_index_farm(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "farm", required_argument, NULL, 'f' },
		{ "arch", required_argument, NULL, 'a' },
		{ "flavour", required_argument, NULL, 'v' },
		{ "package", required_argument, NULL, 'p' },
		{ "good", required_argument, NULL, 'g' },
		{ "bad", required_argument, NULL, 'b' },
		{ "keyring", required_argument, NULL, 'k' },
		{ "allow-unverified", no_argument, NULL, 'u' },
		{ "cache-dir", required_argument, NULL, 'c' },
		{ "cacert", required_argument, NULL, 'C' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *packages[MAX_LIST], *keyrings[MAX_LIST], *output = NULL, *cache_arg = NULL;
	ab_farm_options o;
	ab_fetch_options fopt;
	ab_rpm_keyring *rkr = NULL;
	ab_cache *cache = NULL;
	ab_farm *farm = NULL;
	ab_error err = {0}, kerr = {0};
	progress prog = {0};
	char *text = NULL, *cache_dir = NULL;
	int c, status = 0;

	memset(&o, 0, sizeof o);
	ab_fetch_options_default(&fopt);
	fopt.http_only = 1;
	o.packages = packages;
	o.keyrings = keyrings;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case 'f': o.layout = optarg; break;
		case 'a': o.arch = optarg; break;
		case 'v': o.flavour = optarg; break;
		case 'g': o.good = optarg; break;
		case 'b': o.bad = optarg; break;
		case 'u': o.allow_unverified = true; break;
		case 'c': cache_arg = optarg; break;
		case 'C': fopt.cacert = optarg; break;
		case 'q': prog.quiet = 1; break;
		case 'p':
		case 'k':
			if ((c == 'p' ? o.npackages : o.nkeyrings) == MAX_LIST) {
				ab_message(_("%s: at most %d"), argv[optind - 1], MAX_LIST);
				return AB_EXIT_USAGE;
			}
			if (c == 'p')
				packages[o.npackages++] = optarg;
			else
				keyrings[o.nkeyrings++] = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			ab_message(_("%s needs a value"), argv[optind - 1]);
			return AB_EXIT_USAGE;
		default:
			ab_message(_("unknown option '%s' (see artbisect index --help)"), argv[optind - 1]);
			return AB_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		ab_message(_("artbisect index takes one farm URL (see artbisect index --help)"));
		return AB_EXIT_USAGE;
	}
	o.url = argv[optind];
	o.fetch = &fopt;
	ab_digest_init();
	if (ab_rpm_init(&err) < 0)
		goto fail;
	if (o.nkeyrings)
		rkr = ab_rpm_keyring_load(keyrings, o.nkeyrings, &kerr);	/* armored ones only */
	o.rpm_keyring = rkr;
	cache_dir = cache_arg ? ab_xstrdup(cache_arg) : ab_default_cache_dir();
	cache = ab_cache_open(cache_dir, &err);
	if (!cache)
		goto fail;
	o.cache = cache;
	farm = ab_farm_open(&o, &err);
	if (!farm)
		goto fail;
	if (o.nkeyrings && !rkr && !strcmp(ab_farm_layout_name(farm), "koji")) {
		err = kerr;
		goto fail;
	}
	text = ab_farm_export(farm, on_build, &prog, &err);
	if (!text)
		goto fail;
	if (output) {
		if (ab_write_atomic(output, text, strlen(text), 0644, &err) < 0)
			goto fail;
	} else if (fputs(text, stdout) < 0 || fputc('\n', stdout) < 0 || fflush(stdout) != 0) {
		ab_error_set(&err, AB_EXIT_FAILURE, _("cannot write the index: %s"), strerror(errno));
		goto fail;
	}
	goto out;
fail:
	ab_message("%s", err.msg);
	status = err.code ? err.code : AB_EXIT_FAILURE;
out:
	free(text);
	ab_farm_free(farm);
	ab_cache_close(cache);
	free(cache_dir);
	ab_rpm_keyring_free(rkr);
	ab_rpm_cleanup();
	return status;
}
