/* cmd_index_farm.c - `artbisect index URL`: a real farm written as an
 * index v1 (see cmd_index_farm.h). */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "net/cache.h"
#include "cli/cli.h"
#include "cli/cmd_cache.h"
#include "cli/cmd_index_farm.h"
#include "base/digest.h"
#include "base/error.h"
#include "base/escape.h"
#include "farms/farm.h"
#include "net/fetch.h"
#include "base/i18n.h"
#include "cli/progress.h"
#include "pkg/rpmpkg.h"
#include "base/util.h"

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

/* The progress lines, and what became of the builds. */
typedef struct progress {
	int quiet;
	size_t resolved, unverified;
	char *first_why, *first_unverified;	/* the first reasons */
} progress;

static void on_build(void *ud, size_t i, size_t n, const char *id, const char *why,
		     ab_farm_outcome what)
{
	progress *p = ud;
	char *eid, *ewhy;

	p->resolved += what == AB_FARM_RESOLVED;
	p->unverified += what == AB_FARM_UNVERIFIED;
	if (why && !p->first_why)
		p->first_why = ab_xstrdup(why);
	if (why && what == AB_FARM_UNVERIFIED && !p->first_unverified)
		p->first_unverified = ab_xstrdup(why);

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

/* What the command line asks for. */
typedef struct args {
	const char *packages[MAX_LIST], *keyrings[MAX_LIST];
	const char *output, *cache_dir;
	ab_farm_options o;
	ab_fetch_options fopt;
	progress prog;
} args;

/* Reads the options into a: 0, or the exit status + 1 to return (0
 * after --help). */
static int parse_args(int argc, char **argv, args *a)
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
	ab_farm_options *o = &a->o;
	int c;

	ab_fetch_options_default(&a->fopt);
	a->fopt.http_only = 1;
	o->packages = a->packages;
	o->keyrings = a->keyrings;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case 'o': a->output = optarg; break;
		case 'f': o->layout = optarg; break;
		case 'a': o->arch = optarg; break;
		case 'v': o->flavour = optarg; break;
		case 'g': o->good = optarg; break;
		case 'b': o->bad = optarg; break;
		case 'u': o->allow_unverified = true; break;
		case 'c': a->cache_dir = optarg; break;
		case 'C': a->fopt.cacert = optarg; break;
		case 'q': a->prog.quiet = 1; break;
		case 'p':
		case 'k':
			if ((c == 'p' ? o->npackages : o->nkeyrings) == MAX_LIST) {
				ab_message(_("%s: at most %d"), argv[optind - 1], MAX_LIST);
				return AB_EXIT_USAGE + 1;
			}
			if (c == 'p')
				a->packages[o->npackages++] = optarg;
			else
				a->keyrings[o->nkeyrings++] = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case ':':
			ab_message(_("%s needs a value"), argv[optind - 1]);
			return AB_EXIT_USAGE + 1;
		default:
			ab_message(_("unknown option '%s' (see artbisect index --help)"), argv[optind - 1]);
			return AB_EXIT_USAGE + 1;
		}
	}
	if (optind != argc - 1) {
		ab_message(_("artbisect index takes one farm URL (see artbisect index --help)"));
		return AB_EXIT_USAGE + 1;
	}
	o->url = argv[optind];
	o->fetch = &a->fopt;
	return 0;
}

int ab_cmd_index_farm(int argc, char **argv)
{
	args a;
	ab_cli settings;
	ab_farm_options *o = &a.o;
	ab_rpm_keyring *rkr = NULL;
	ab_cache *cache = NULL;
	ab_farm *farm = NULL;
	ab_error err = {0}, kerr = {0};
	char *text = NULL, *cache_dir = NULL;
	int status;

	memset(&a, 0, sizeof a);
	status = parse_args(argc, argv, &a);
	if (status)
		return status - 1;
	/* cache-dir and cacert from the config file or ARTBISECT_*, as for
	 * a run, unless given here. */
	if (ab_cli_init(&settings, AB_CMD_START) < 0) {
		ab_cli_free(&settings);
		return AB_EXIT_USAGE;
	}
	if (!a.cache_dir)
		a.cache_dir = settings.cache_dir;
	if (!a.fopt.cacert)
		a.fopt.cacert = settings.cacert;
	ab_digest_init();
	if (ab_rpm_init(&err) < 0)
		goto fail;
	if (o->nkeyrings)
		rkr = ab_rpm_keyring_load(a.keyrings, o->nkeyrings, &kerr);	/* armored ones only */
	o->rpm_keyring = rkr;
	cache_dir = a.cache_dir ? ab_xstrdup(a.cache_dir) : ab_default_cache_dir();
	cache = ab_cache_open(cache_dir, &err);
	if (!cache)
		goto fail;
	o->cache = cache;
	farm = ab_farm_open(o, &err);
	if (!farm)
		goto fail;
	if (o->nkeyrings && !rkr && !strcmp(ab_farm_layout_name(farm), "koji")) {
		err = kerr;
		goto fail;
	}
	text = ab_farm_export(farm, on_build, &a.prog, &err);
	if (!text)
		goto fail;
	/* An index of failed builds only would bisect to "failed to build". */
	if (!a.prog.resolved) {
		ab_error_set(&err, AB_EXIT_FAILURE, _("%s: no build could be resolved, no index written; the first reason: %s"),
			     o->url, a.prog.first_why ? a.prog.first_why : "?");
		goto fail;
	}
	if (a.prog.unverified)
		ab_message(ngettext("warning: %zu build failed its check (marked failed in the index): %s",
				    "warning: %zu builds failed their check (marked failed in the index); the first: %s",
				    a.prog.unverified),
			   a.prog.unverified, a.prog.first_unverified);
	if (a.output) {
		if (ab_write_output(a.output, text, strlen(text), 0644, &err) < 0)
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
	free(a.prog.first_why);
	free(a.prog.first_unverified);
	free(text);
	ab_farm_free(farm);
	ab_cache_close(cache);
	free(cache_dir);
	ab_rpm_keyring_free(rkr);
	ab_rpm_cleanup();
	ab_cli_free(&settings);
	return status;
}
