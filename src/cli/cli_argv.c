/* cli_argv.c - see cli.h: the argv a session keeps, from which every
 * later command of it takes its settings. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "base/util.h"

static void push(char ***v, size_t *n, const char *s)
{
	*v = ab_xrealloc(*v, (*n + 2) * sizeof **v);
	(*v)[(*n)++] = ab_xstrdup(s);
	(*v)[*n] = NULL;
}

static void push_opt(char ***v, size_t *n, const char *name, const char *val)
{
	push(v, n, name);
	if (val)
		push(v, n, val);
}

/* Where downloads and roots go, and how the network is used. */
static void push_storage(const ab_cli *cli, char ***vp, size_t *np)
{
	char **v = *vp, num[64];
	size_t n = *np;

	if (cli->cache_dir)
		push_opt(&v, &n, "--cache-dir", cli->cache_dir);
	if (cli->cache_size > 0) {
		snprintf(num, sizeof num, "%lld", cli->cache_size);
		push_opt(&v, &n, "--cache-size", num);
	}
	if (cli->cacert)
		push_opt(&v, &n, "--cacert", cli->cacert);
	if (cli->net_timeout > 0) {
		snprintf(num, sizeof num, "%g", cli->net_timeout);
		push_opt(&v, &n, "--net-timeout", num);
	}
	if (cli->retry_delay_set) {
		snprintf(num, sizeof num, "%g", cli->retry_delay);
		push_opt(&v, &n, "--retry-delay", num);
	}
	if (cli->keep_roots)
		push_opt(&v, &n, "--keep-roots", NULL);
	if (cli->max_unpacked > 0) {
		snprintf(num, sizeof num, "%lld", cli->max_unpacked);
		push_opt(&v, &n, "--max-unpacked", num);
	}
	*vp = v;
	*np = n;
}

char **ab_cli_session_argv(const ab_cli *cli, const char *good_id, const char *bad_id)
{
	char **v = NULL, num[64], *abs;
	size_t n = 0, i;

	push(&v, &n, "start");
	/* A local index by its absolute path, a URL as it is. */
	abs = strstr(cli->index, "://") ? NULL : ab_cli_absolute_path(cli->index);
	push_opt(&v, &n, "--index", abs ? abs : cli->index);
	free(abs);
	for (i = 0; i < cli->npackages; i++)
		push_opt(&v, &n, "--package", cli->packages[i]);
	if (cli->farm)
		push_opt(&v, &n, "--farm", cli->farm);
	if (cli->arch)
		push_opt(&v, &n, "--arch", cli->arch);
	if (cli->flavour)
		push_opt(&v, &n, "--flavour", cli->flavour);
	if (cli->allow_unverified)
		push_opt(&v, &n, "--allow-unverified", NULL);
	push_opt(&v, &n, "--good", good_id);
	push_opt(&v, &n, "--bad", bad_id);
	if (cli->find_fix)
		push_opt(&v, &n, "--find-fix", NULL);
	for (i = 0; i < cli->nkeyrings; i++)
		push_opt(&v, &n, "--keyring", cli->keyrings[i]);
	if (cli->install_rpm)
		push_opt(&v, &n, "--install", "rpm");
	if (cli->install_system)
		push_opt(&v, &n, "--install", "system");
	if (cli->system_root)
		push_opt(&v, &n, "--system-root", cli->system_root);
	if (cli->probe)
		push_opt(&v, &n, "--probe", cli->probe);
	if (cli->launch)
		push_opt(&v, &n, "--launch", cli->launch);
	if (cli->timeout > 0) {
		snprintf(num, sizeof num, "%g", cli->timeout);
		push_opt(&v, &n, "--timeout", num);
	}
	if (cli->timeout_skip)
		push_opt(&v, &n, "--timeout-verdict", "skip");
	if (cli->jobs > 1) {
		snprintf(num, sizeof num, "%d", cli->jobs);
		push_opt(&v, &n, "--jobs", num);
	}
	if (cli->no_prefetch)
		push_opt(&v, &n, "--no-prefetch", NULL);
	if (cli->check_bounds)
		push_opt(&v, &n, "--check-bounds", NULL);
	if (cli->flaky)
		push_opt(&v, &n, "--flaky", NULL);
	if (cli->confidence > 0) {
		snprintf(num, sizeof num, "%g", cli->confidence);
		push_opt(&v, &n, "--confidence", num);
	}
	if (cli->max_probes) {
		snprintf(num, sizeof num, "%u", cli->max_probes);
		push_opt(&v, &n, "--max-probes", num);
	}
	if (cli->fail_rate_before >= 0) {
		snprintf(num, sizeof num, "%g", cli->fail_rate_before);
		push_opt(&v, &n, "--fail-rate-before", num);
	}
	if (cli->fail_rate_after >= 0) {
		snprintf(num, sizeof num, "%g", cli->fail_rate_after);
		push_opt(&v, &n, "--fail-rate-after", num);
	}
	if (cli->confirm) {
		snprintf(num, sizeof num, "%u", cli->confirm);
		push_opt(&v, &n, "--confirm", num);
	}
	if (cli->report_file) {
		/* Written by whichever command ends the search: `start
		 * --report FILE`, then good and bad by hand. */
		char *path = ab_cli_absolute_path(cli->report_file);

		push_opt(&v, &n, "--report", path ? path : cli->report_file);
		free(path);
	}
	push_storage(cli, &v, &n);
	return v;
}

void ab_cli_argv_free(char **argv)
{
	size_t i;

	if (!argv)
		return;
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

