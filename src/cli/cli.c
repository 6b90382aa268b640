/* cli.c - see cli.h. */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cli/cli.h"
#include "base/error.h"
#include "base/i18n.h"
#include "cli/progress.h"
#include "base/util.h"

enum {
	OPT_INDEX = 256, OPT_GOOD, OPT_BAD, OPT_PROBE, OPT_TIMEOUT, OPT_TIMEOUT_VERDICT,
	OPT_FIND_FIX, OPT_JSON, OPT_JOBS, OPT_CACHE_DIR, OPT_WORK_DIR, OPT_NO_PREFETCH,
	OPT_KEEP_ROOTS, OPT_CACERT, OPT_NET_TIMEOUT, OPT_REPORT, OPT_QUIET, OPT_HELP,
	OPT_VERSION, OPT_KEYRING, OPT_PACKAGE, OPT_INSTALL, OPT_CACHE_SIZE, OPT_LAUNCH,
	OPT_MAX_UNPACKED, OPT_SYSTEM_ROOT, OPT_REBOOT, OPT_CHECK_BOUNDS,
	OPT_FARM, OPT_ARCH, OPT_FLAVOUR, OPT_ALLOW_UNVERIFIED,
	OPT_FLAKY, OPT_CONFIDENCE, OPT_MAX_PROBES, OPT_RATE_BEFORE, OPT_RATE_AFTER, OPT_CONFIRM,
	OPT_RETRY_DELAY,
};

#define M(c) (1u << (c))
/* Which subcommands take an option. */
#define M_DEFINE (M(AB_CMD_BISECT) | M(AB_CMD_START))
#define M_RUNS (M_DEFINE | M(AB_CMD_RUN))
#define M_PREPARES (M_RUNS | M(AB_CMD_GOOD) | M(AB_CMD_BAD) | M(AB_CMD_SKIP) | M(AB_CMD_REPLAY))
#define M_REPORTS M_PREPARES
#define M_SESSION (M_PREPARES | M(AB_CMD_STATUS) | M(AB_CMD_LOG) | M(AB_CMD_RESET))
#define M_ALL 0xffffu

typedef struct opt_def {
	const char *name;
	int has_arg;
	int id;
	unsigned cmds;
	int config;		/* may come from the config file and ARTBISECT_* */
} opt_def;

static const opt_def defs[] = {
	{ "index", 1, OPT_INDEX, M_DEFINE, 0 },
	{ "good", 1, OPT_GOOD, M_DEFINE, 0 },
	{ "bad", 1, OPT_BAD, M_DEFINE, 0 },
	{ "find-fix", 0, OPT_FIND_FIX, M_DEFINE, 0 },
	{ "package", 1, OPT_PACKAGE, M_DEFINE, 0 },
	{ "farm", 1, OPT_FARM, M_DEFINE, 0 },
	{ "arch", 1, OPT_ARCH, M_DEFINE, 0 },
	{ "flavour", 1, OPT_FLAVOUR, M_DEFINE, 0 },
	{ "allow-unverified", 0, OPT_ALLOW_UNVERIFIED, M_DEFINE, 0 },
	{ "keyring", 1, OPT_KEYRING, M_DEFINE, 1 },
	{ "install", 1, OPT_INSTALL, M_DEFINE, 0 },
	{ "system-root", 1, OPT_SYSTEM_ROOT, M_DEFINE, 0 },
	{ "reboot", 0, OPT_REBOOT, M(AB_CMD_RUN), 0 },
	{ "probe", 1, OPT_PROBE, M_RUNS, 0 },
	{ "launch", 1, OPT_LAUNCH, M_RUNS, 0 },
	{ "timeout", 1, OPT_TIMEOUT, M_RUNS, 1 },
	{ "timeout-verdict", 1, OPT_TIMEOUT_VERDICT, M_RUNS, 1 },
	{ "jobs", 1, OPT_JOBS, M_RUNS, 1 },
	{ "check-bounds", 0, OPT_CHECK_BOUNDS, M_RUNS, 1 },
	{ "flaky", 0, OPT_FLAKY, M_RUNS, 1 },
	{ "confidence", 1, OPT_CONFIDENCE, M_RUNS, 1 },
	{ "max-probes", 1, OPT_MAX_PROBES, M_RUNS, 1 },
	{ "fail-rate-before", 1, OPT_RATE_BEFORE, M_RUNS, 1 },
	{ "fail-rate-after", 1, OPT_RATE_AFTER, M_RUNS, 1 },
	{ "confirm", 1, OPT_CONFIRM, M_RUNS, 1 },
	{ "no-prefetch", 0, OPT_NO_PREFETCH, M_RUNS, 1 },
	{ "cache-dir", 1, OPT_CACHE_DIR, M_SESSION, 1 },
	{ "cache-size", 1, OPT_CACHE_SIZE, M_PREPARES, 1 },
	{ "cacert", 1, OPT_CACERT, M_PREPARES, 1 },
	{ "net-timeout", 1, OPT_NET_TIMEOUT, M_PREPARES, 1 },
	{ "retry-delay", 1, OPT_RETRY_DELAY, M_PREPARES, 1 },
	{ "keep-roots", 0, OPT_KEEP_ROOTS, M_PREPARES, 1 },
	{ "max-unpacked", 1, OPT_MAX_UNPACKED, M_PREPARES, 1 },
	{ "work-dir", 1, OPT_WORK_DIR, M_SESSION, 1 },
	{ "json", 0, OPT_JSON, M_REPORTS | M(AB_CMD_STATUS), 0 },
	{ "report", 1, OPT_REPORT, M_REPORTS, 0 },
	{ "quiet", 0, OPT_QUIET, M_REPORTS, 0 },
	{ "help", 0, OPT_HELP, M_ALL, 0 },
	{ "version", 0, OPT_VERSION, M_ALL, 0 },
};
#define NDEFS (sizeof defs / sizeof defs[0])

static const char *const command_names[AB_CMD_COUNT] = {
	"", "start", "good", "bad", "skip", "run", "status", "log", "replay", "reset",
};

int ab_cli_command(const char *word)
{
	int i;

	for (i = 1; i < AB_CMD_COUNT; i++)
		if (!strcmp(word, command_names[i]))
			return i;
	return -1;
}

int ab_cli_find_word(int argc, char **argv, const char *const *valued)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		size_t k;

		if (!strcmp(a, "--"))
			return 0;
		if (a[0] != '-' || !a[1])
			return i;
		if (a[1] != '-' || strchr(a, '='))
			continue;
		/* "--work-dir DIR": the next word is the value, not a command. */
		for (k = 0; k < NDEFS; k++)
			if (!strcmp(a + 2, defs[k].name) && defs[k].has_arg)
				i++;
		for (k = 0; valued && valued[k]; k++)
			if (!strcmp(a + 2, valued[k]))
				i++;
	}
	return 0;
}

int ab_cli_find_command(int argc, char **argv)
{
	int i = ab_cli_find_word(argc, argv, NULL);

	return i > 0 && ab_cli_command(argv[i]) > 0 ? i : 0;
}

const char *ab_cli_command_name(ab_cmd cmd)
{
	return cmd == AB_CMD_BISECT ? "artbisect" : command_names[cmd];
}

static const opt_def *find_def(int id)
{
	size_t i;

	for (i = 0; i < NDEFS; i++)
		if (defs[i].id == id)
			return &defs[i];
	return NULL;
}

static const char *keep(ab_cli *cli, const char *s)
{
	cli->owned = ab_xrealloc(cli->owned, (cli->nowned + 1) * sizeof *cli->owned);
	return cli->owned[cli->nowned++] = ab_xstrdup(s);
}

/* path made absolute against the directory artbisect was started in,
 * or NULL when it is already (or cannot be). A session outlives that
 * directory (`artbisect good` may be typed anywhere), and the paths it
 * stores and prints must mean the same there. */
char *ab_cli_absolute_path(const char *path)
{
	char *cwd, *abs;

	if (!path || !*path || path[0] == '/' || !(cwd = getcwd(NULL, 0)))
		return NULL;
	abs = ab_path_join(cwd, path);
	free(cwd);
	return abs;
}

static const char *absolute(ab_cli *cli, const char *path)
{
	char *abs = ab_cli_absolute_path(path);
	const char *kept;

	if (!abs)
		return path;
	kept = keep(cli, abs);
	free(abs);
	return kept;
}

static int parse_seconds(const char *arg, double *out)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v >= 0) || v > 1e9)
		return -1;
	*out = v;
	return 0;
}

/* Yes/no for flags given in the config file or environment. */
static int parse_bool(const char *arg, int *out)
{
	if (!arg || !strcmp(arg, "") || !strcmp(arg, "1") || !strcasecmp(arg, "yes") ||
	    !strcasecmp(arg, "true") || !strcasecmp(arg, "on"))
		*out = 1;
	else if (!strcmp(arg, "0") || !strcasecmp(arg, "no") || !strcasecmp(arg, "false") ||
		 !strcasecmp(arg, "off"))
		*out = 0;
	else
		return -1;
	return 0;
}

/* The option helpers below each handle one group of options: 1 when id
 * was theirs and is set, 0 when it is not theirs, -1 with the reason in
 * why. */

/* What is bisected: the index or farm, the range, the packages. */
static int set_range_option(ab_cli *cli, int id, const char *arg, int flag, char *why,
			    size_t whylen)
{
	switch (id) {
	case OPT_INDEX: cli->index = arg; break;
	case OPT_GOOD: cli->good = arg; break;
	case OPT_BAD: cli->bad = arg; break;
	case OPT_FIND_FIX: cli->find_fix = flag; break;
	case OPT_PACKAGE:
		if (cli->npackages == AB_CLI_MAX_PACKAGES) {
			snprintf(why, whylen, _("at most %d packages"), AB_CLI_MAX_PACKAGES);
			return -1;
		}
		cli->packages[cli->npackages++] = arg;
		cli->package = cli->packages[0];
		break;
	case OPT_FARM:
		if (strcmp(arg, "mainline") && strcmp(arg, "arch") && strcmp(arg, "koji") &&
		    strcmp(arg, "sums")) {
			snprintf(why, whylen, _("expected mainline, arch, koji or sums, got '%s'"), arg);
			return -1;
		}
		cli->farm = arg;
		break;
	case OPT_ARCH: cli->arch = arg; break;
	case OPT_FLAVOUR: cli->flavour = arg; break;
	default: return 0;
	}
	return 1;
}

/* Trust and installation: keyrings, --install, the system root. */
static int set_install_option(ab_cli *cli, int id, const char *arg, ab_source src, int flag,
			      char *why, size_t whylen)
{
	switch (id) {
	case OPT_ALLOW_UNVERIFIED: cli->allow_unverified = flag; break;
	case OPT_KEYRING:
		/* A list from a later source replaces the earlier one. */
		if (src > cli->keyring_source) {
			cli->nkeyrings = 0;
			cli->keyring_source = src;
		}
		if (cli->nkeyrings == AB_CLI_MAX_KEYRINGS) {
			snprintf(why, whylen, _("at most %d files"), AB_CLI_MAX_KEYRINGS);
			return -1;
		}
		/* Keys are read much later, where only "--keyring" can be
		 * named: a setting's file is checked here, where its line is
		 * known. */
		if (src == AB_SRC_CONFIG || src == AB_SRC_ENV) {
			FILE *f = fopen(arg, "r");

			if (!f) {
				snprintf(why, whylen, _("%s: cannot open: %s"), arg, strerror(errno));
				return -1;
			}
			fclose(f);
		}
		cli->keyrings[cli->nkeyrings++] = absolute(cli, arg);
		break;
	case OPT_INSTALL:
		if (!strcmp(arg, "rpm"))
			cli->install_rpm = 1;
		else if (!strcmp(arg, "system"))
			cli->install_system = 1;
		else {
			snprintf(why, whylen, _("expected 'rpm' or 'system', got '%s'"), arg);
			return -1;
		}
		break;
	case OPT_REBOOT: cli->reboot = flag; break;
	case OPT_SYSTEM_ROOT:
		if (arg[0] != '/') {
			snprintf(why, whylen, _("expected an absolute path, got '%s'"), arg);
			return -1;
		}
		cli->system_root = absolute(cli, arg);
		break;
	default: return 0;
	}
	return 1;
}

/* How probes run: the probe, its time limit, how many at once. */
static int set_probe_option(ab_cli *cli, int id, const char *arg, int flag, char *why,
			    size_t whylen)
{
	switch (id) {
	case OPT_PROBE: cli->probe = arg; break;
	case OPT_LAUNCH: cli->launch = arg; break;
	case OPT_TIMEOUT:
		if (parse_seconds(arg, &cli->timeout) < 0) {
			snprintf(why, whylen, _("expected a number of seconds, got '%s'"), arg);
			return -1;
		}
		break;
	case OPT_TIMEOUT_VERDICT:
		if (!strcmp(arg, "skip"))
			cli->timeout_skip = 1;
		else if (!strcmp(arg, "bad"))
			cli->timeout_skip = 0;
		else {
			snprintf(why, whylen, _("expected 'bad' or 'skip', got '%s'"), arg);
			return -1;
		}
		break;
	case OPT_JOBS: {
		char *end;
		long n = strtol(arg, &end, 10);
		if (end == arg || *end || n < 1 || n > 64) {
			snprintf(why, whylen, _("expected a number from 1 to 64, got '%s'"), arg);
			return -1;
		}
		cli->jobs = (int)n;
		break;
	}
	case OPT_CHECK_BOUNDS: cli->check_bounds = flag; break;
	default: return 0;
	}
	return 1;
}

/* The flaky model's settings. */
static int set_flaky_option(ab_cli *cli, int id, const char *arg, int flag, char *why,
			    size_t whylen)
{
	switch (id) {
	case OPT_FLAKY: cli->flaky = flag; break;
	case OPT_CONFIDENCE:
	case OPT_RATE_BEFORE:
	case OPT_RATE_AFTER: {
		char *end;
		double x = strtod(arg, &end);
		int conf = id == OPT_CONFIDENCE;

		/* A confidence of 1 is never reached; a rate may be 0 or 1. */
		if (end == arg || *end || !(conf ? x > 0.5 && x < 1 : x >= 0 && x <= 1)) {
			snprintf(why, whylen, conf ? _("expected a probability above 0.5 and below 1, such as 0.95, got '%s'")
						   : _("expected a rate from 0 to 1, such as 0.3, got '%s'"), arg);
			return -1;
		}
		if (conf)
			cli->confidence = x;
		else if (id == OPT_RATE_BEFORE)
			cli->fail_rate_before = x;
		else
			cli->fail_rate_after = x;
		break;
	}
	case OPT_MAX_PROBES:
	case OPT_CONFIRM: {
		char *end;
		long n = strtol(arg, &end, 10);

		if (end == arg || *end || n < (id == OPT_CONFIRM ? 0 : 1) || n > 100000) {
			snprintf(why, whylen, _("expected a whole number from %d to 100000, got '%s'"),
				 id == OPT_CONFIRM ? 0 : 1, arg);
			return -1;
		}
		if (id == OPT_CONFIRM)
			cli->confirm = (unsigned)n;
		else
			cli->max_probes = (unsigned)n;
		break;
	}
	default: return 0;
	}
	return 1;
}

/* Downloads and disk: the cache, the work directory, the network. */
static int set_storage_option(ab_cli *cli, int id, const char *arg, int flag, char *why,
			      size_t whylen)
{
	switch (id) {
	case OPT_NET_TIMEOUT:
		if (parse_seconds(arg, &cli->net_timeout) < 0) {
			snprintf(why, whylen, _("expected a number of seconds, got '%s'"), arg);
			return -1;
		}
		break;
	case OPT_RETRY_DELAY:
		if (parse_seconds(arg, &cli->retry_delay) < 0 || cli->retry_delay > 3600) {
			snprintf(why, whylen, _("expected a number of seconds up to 3600, got '%s'"), arg);
			return -1;
		}
		cli->retry_delay_set = 1;
		break;
	case OPT_CACHE_DIR: cli->cache_dir = absolute(cli, arg); break;
	case OPT_WORK_DIR: cli->work_dir = absolute(cli, arg); break;
	case OPT_NO_PREFETCH: cli->no_prefetch = flag; break;
	case OPT_KEEP_ROOTS: cli->keep_roots = flag; break;
	case OPT_CACERT: cli->cacert = absolute(cli, arg); break;
	case OPT_CACHE_SIZE:
		if (ab_parse_size(arg, &cli->cache_size) < 0 || cli->cache_size <= 0) {
			snprintf(why, whylen, _("expected a size such as 500M or 20G, got '%s'"), arg);
			return -1;
		}
		break;
	case OPT_MAX_UNPACKED:
		if (ab_parse_size(arg, &cli->max_unpacked) < 0 || cli->max_unpacked <= 0) {
			snprintf(why, whylen, _("expected a size such as 500M or 20G, got '%s'"), arg);
			return -1;
		}
		break;
	default: return 0;
	}
	return 1;
}

/* The report: JSON or text, where, how quiet. */
static int set_output_option(ab_cli *cli, int id, const char *arg, int flag)
{
	switch (id) {
	case OPT_JSON: cli->json = flag; break;
	case OPT_REPORT: cli->report_file = arg; break;
	case OPT_QUIET: cli->quiet = flag; break;
	default: return 0;
	}
	return 1;
}

/* Applies one option; -1 with the reason in why. arg is kept as is, so
 * it must live as long as cli (copy it first if it does not). */
static int set_option(ab_cli *cli, int id, const char *arg, ab_source src, char *why,
		      size_t whylen)
{
	int flag = 1, rc;

	if (!find_def(id)->has_arg && src != AB_SRC_ARGS && src != AB_SRC_SESSION &&
	    parse_bool(arg, &flag) < 0) {
		snprintf(why, whylen, _("expected yes or no, got '%s'"), arg);
		return -1;
	}
	if ((rc = set_range_option(cli, id, arg, flag, why, whylen)) != 0 ||
	    (rc = set_install_option(cli, id, arg, src, flag, why, whylen)) != 0 ||
	    (rc = set_probe_option(cli, id, arg, flag, why, whylen)) != 0 ||
	    (rc = set_flaky_option(cli, id, arg, flag, why, whylen)) != 0 ||
	    (rc = set_storage_option(cli, id, arg, flag, why, whylen)) != 0)
		return rc < 0 ? -1 : 0;
	set_output_option(cli, id, arg, flag);
	return 0;
}

/* "key = value" lines; '#' starts a comment; a flag may stand alone. */
static int read_config(ab_cli *cli)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	const char *named = getenv("ARTBISECT_CONFIG");
	char *path, line[4096];
	unsigned lineno = 0;
	FILE *f = NULL;
	int rc = 0;
	ab_cli scratch;

	memset(&scratch, 0, sizeof scratch);
	if (named && !*named)
		return 0;	/* set empty: no config file at all */
	if (named) {
		/* A file named on purpose must be there. */
		if (!(f = fopen(named, "r"))) {
			ab_message(_("ARTBISECT_CONFIG: cannot read %s: %s"), named, strerror(errno));
			return -1;
		}
		path = ab_xstrdup(named);
	} else if (xdg && xdg[0] == '/')
		path = ab_xasprintf("%s/artbisect/config", xdg);
	else if (home && *home)
		path = ab_xasprintf("%s/.config/artbisect/config", home);
	else
		return 0;
	if (!f && !(f = fopen(path, "r"))) {
		if (errno != ENOENT) {
			ab_message(_("cannot read the configuration file %s: %s"), path, strerror(errno));
			rc = -1;
		}
		free(path);
		return rc;
	}
	while (rc == 0 && fgets(line, sizeof line, f)) {
		char *key, *val = NULL, *eq, *end, why[256];
		size_t i;

		lineno++;
		line[strcspn(line, "#\r\n")] = '\0';
		for (key = line; isspace((unsigned char)*key); key++)
			;
		if (!*key)
			continue;
		eq = strchr(key, '=');
		if (eq) {
			*eq = '\0';
			for (val = eq + 1; isspace((unsigned char)*val); val++)
				;
			for (end = val + strlen(val); end > val && isspace((unsigned char)end[-1]); end--)
				;
			*end = '\0';
		}
		for (end = key + strlen(key); end > key && isspace((unsigned char)end[-1]); end--)
			;
		*end = '\0';
		for (i = 0; i < NDEFS; i++)
			if (defs[i].config && !strcmp(defs[i].name, key))
				break;
		if (i == NDEFS) {
			ab_message(_("%s, line %u: unknown setting '%s'"), path, lineno, key);
			rc = -1;
		} else if (defs[i].has_arg && (!val || !*val)) {
			ab_message(_("%s, line %u: '%s' needs a value"), path, lineno, key);
			rc = -1;
		} else if (set_option(defs[i].cmds & M(cli->cmd) ? cli : &scratch, defs[i].id,
				      val ? keep(cli, val) : NULL, AB_SRC_CONFIG, why, sizeof why) < 0) {
			/* (A default for other subcommands is checked all the same.) */
			ab_message(_("%s, line %u: %s: %s"), path, lineno, key, why);
			rc = -1;
		}
	}
	fclose(f);
	free(path);
	return rc;
}

/* ARTBISECT_JOBS=4 and so on, for the settings the config file takes. */
static int read_environment(ab_cli *cli)
{
	ab_cli scratch;
	size_t i;

	memset(&scratch, 0, sizeof scratch);
	for (i = 0; i < NDEFS; i++) {
		char var[64], why[256], *p;
		const char *val;

		if (!defs[i].config)
			continue;
		snprintf(var, sizeof var, "ARTBISECT_%s", defs[i].name);
		for (p = var; *p; p++)
			*p = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
		val = getenv(var);
		if (!val)
			continue;
		if (defs[i].id == OPT_KEYRING) {
			/* A colon-separated list, as PATH is. */
			char *copy = ab_xstrdup(val), *save = NULL, *tok;
			int rc = 0;

			for (tok = strtok_r(copy, ":", &save); tok && rc == 0;
			     tok = strtok_r(NULL, ":", &save))
				rc = set_option(defs[i].cmds & M(cli->cmd) ? cli : &scratch,
						OPT_KEYRING, keep(cli, tok), AB_SRC_ENV, why, sizeof why);
			free(copy);
			if (rc < 0) {
				ab_message("%s: %s", var, why);
				return -1;
			}
			continue;
		}
		if (set_option(defs[i].cmds & M(cli->cmd) ? cli : &scratch, defs[i].id,
			       keep(cli, val), AB_SRC_ENV, why, sizeof why) < 0) {
			ab_message("%s: %s", var, why);
			return -1;
		}
	}
	return 0;
}

int ab_cli_init(ab_cli *cli, ab_cmd cmd)
{
	memset(cli, 0, sizeof *cli);
	cli->cmd = cmd;
	cli->jobs = 1;
	cli->fail_rate_before = cli->fail_rate_after = -1;	/* learned */
	if (read_config(cli) < 0 || read_environment(cli) < 0)
		return -1;
	return 0;
}

void ab_cli_free(ab_cli *cli)
{
	size_t i;

	for (i = 0; i < cli->nowned; i++)
		free(cli->owned[i]);
	free(cli->owned);
	cli->owned = NULL;
	cli->nowned = 0;
}

/* Whether the report could not be written where --report says: known
 * before anything is downloaded, not after the whole bisection. */
static int report_unwritable(const char *path, char *why, size_t n)
{
	struct stat st;
	char *dir, *slash;
	int bad = 0;

	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			snprintf(why, n, _("%s is a directory"), path);
		else if (access(path, W_OK) != 0)
			snprintf(why, n, _("cannot write %s: %s"), path, strerror(errno));
		else
			return 0;
		return 1;
	}
	dir = ab_xstrdup(path);
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else
		slash[slash == dir] = '\0';	/* "/r.md": the root */
	if (stat(dir, &st) != 0)
		bad = errno;
	else if (!S_ISDIR(st.st_mode))
		bad = ENOTDIR;
	else if (access(dir, W_OK) != 0)
		bad = errno;
	if (bad)
		snprintf(why, n, _("cannot write in %s: %s"), dir, strerror(bad));
	free(dir);
	return bad != 0;
}

/* The command as it is typed ("artbisect", "artbisect run"), for hints
 * that are pasted. */
static const char *typed_name(ab_cmd cmd, char *buf, size_t n)
{
	if (cmd == AB_CMD_BISECT)
		snprintf(buf, n, "artbisect");
	else
		snprintf(buf, n, "artbisect %s", command_names[cmd]);
	return buf;
}

/* The first command whose options include one in mask cmds. */
static ab_cmd first_taker(unsigned cmds)
{
	int i;

	for (i = 0; i < AB_CMD_COUNT; i++)
		if (cmds & M(i))
			return (ab_cmd)i;
	return AB_CMD_BISECT;
}

int ab_cli_parse(ab_cli *cli, int argc, char **argv, ab_source src, const char *from)
{
	struct option longopts[NDEFS + 1];
	size_t i;
	int c, nops = 0;
	char prefix[512], typed[32], taker[32];

	if (from)
		snprintf(prefix, sizeof prefix, "%s: ", from);
	else
		prefix[0] = '\0';
	for (i = 0; i < NDEFS; i++) {
		longopts[i].name = defs[i].name;
		longopts[i].has_arg = defs[i].has_arg ? required_argument : no_argument;
		longopts[i].flag = NULL;
		longopts[i].val = defs[i].id;
	}
	memset(&longopts[NDEFS], 0, sizeof longopts[NDEFS]);
	optind = 0;		/* GNU: start afresh, this may be the second parse */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		const opt_def *d = find_def(c);
		char why[256];

		if (c == ':') {
			ab_message(_("%s%s needs a value"), prefix, argv[optind - 1]);
			return -1;
		}
		if (!d) {
			ab_message(_("%sunknown option '%s' (see %s --help)"), prefix, argv[optind - 1],
				   typed_name(cli->cmd, typed, sizeof typed));
			return -1;
		}
		if (!(d->cmds & M(cli->cmd))) {
			ab_message(_("%s'%s' does not take --%s (see %s --help)"), prefix,
				   typed_name(cli->cmd, typed, sizeof typed), d->name,
				   typed_name(first_taker(d->cmds), taker, sizeof taker));
			return -1;
		}
		if (c == OPT_HELP) {
			ab_cli_usage(cli->cmd, stdout);
			return 1;
		}
		if (c == OPT_VERSION) {
			printf("artbisect %s\n", PACKAGE_VERSION);
			return 1;
		}
		if (set_option(cli, c, optarg, src, why, sizeof why) < 0) {
			ab_message("%s--%s: %s", prefix, d->name, why);
			return -1;
		}
	}
	/* Operands: good|bad|skip [ID], replay FILE. */
	for (; optind < argc; optind++, nops++) {
		const char *arg = argv[optind];
		int takes = cli->cmd == AB_CMD_GOOD || cli->cmd == AB_CMD_BAD ||
			    cli->cmd == AB_CMD_SKIP || cli->cmd == AB_CMD_REPLAY;

		if (!takes || nops > 0) {
			ab_message(_("%sunexpected argument '%s' (see %s --help)"), prefix, arg,
				   typed_name(cli->cmd, typed, sizeof typed));
			return -1;
		}
		if (cli->cmd == AB_CMD_REPLAY)
			cli->replay_file = arg;
		else
			cli->verdict_id = arg;
	}
	if (cli->cmd == AB_CMD_REPLAY && !cli->replay_file) {
		ab_message(_("replay needs the file that 'artbisect log' wrote"));
		return -1;
	}
	if (cli->cmd == AB_CMD_START && !cli->index && src == AB_SRC_ARGS) {
		ab_message(_("%s--index URL is required (see artbisect start --help)"), prefix);
		return -1;
	}
	if (src == AB_SRC_ARGS && cli->report_file) {
		char why[512];

		if (report_unwritable(cli->report_file, why, sizeof why)) {
			ab_message("%s--report: %s", prefix, why);
			return -1;
		}
	}
	return 0;
}

/* One help line per option, for the options cmd takes. */
static void option_help(ab_cmd cmd, FILE *out)
{
	static const struct { int id; const char *text; } help[] = {
		{ OPT_INDEX, N_("  --index URL             the artifact index (path, file://, http://, https://),\n"
				"                          a yum/dnf repository with --package, a directory\n"
				"                          of builds, or a farm's directory listing: Ubuntu\n"
				"                          mainline, the Arch Linux Archive, Koji, SHA256SUMS\n") },
		{ OPT_GOOD, N_("  --good ID               a build that works (default: the oldest);\n"
			       "                          an id, or 7+ characters of a commit\n") },
		{ OPT_BAD, N_("  --bad ID                a build that shows the problem (default: the newest)\n") },
		{ OPT_FIND_FIX, N_("  --find-fix              find the first good build after bad ones\n") },
		{ OPT_PACKAGE, N_("  --package NAME          a yum/dnf repository: bisect package NAME; a Koji\n"
				  "                          farm: take subpackage NAME (repeatable)\n") },
		{ OPT_FARM, N_("  --farm LAYOUT           read --index as mainline, arch, koji or sums\n"
			       "                          (default: recognised from its listing)\n") },
		{ OPT_ARCH, N_("  --arch ARCH             a farm's architecture, named its way (amd64,\n"
			       "                          x86_64; default: this machine's)\n") },
		{ OPT_FLAVOUR, N_("  --flavour NAME          the mainline kernel flavour (default generic)\n") },
		{ OPT_ALLOW_UNVERIFIED, N_("  --allow-unverified      take a farm's builds that nothing can check\n"
					   "                          (marked unverified in every report)\n") },
		{ OPT_KEYRING, N_("  --keyring FILE          OpenPGP keys: RPMs must be signed by one, and a\n"
				  "                          farm's checksum lists and packages too (repeatable)\n") },
		{ OPT_INSTALL, N_("  --install rpm           install RPMs with an rpm transaction instead of\n"
				  "                          unpacking them (runs scriptlets; needs root\n"
				  "                          or user namespaces)\n"
				  "  --install system        install each candidate kernel on this machine and\n"
				  "                          make it the default for the next boot only\n") },
		{ OPT_REBOOT, N_("  --reboot                with --install system: after judging the kernel that\n"
				 "                          runs and installing the next one, reboot into it\n") },
		{ OPT_SYSTEM_ROOT, N_("  --system-root DIR       with --install system: the system to install into\n"
				      "                          (default /)\n") },
		{ OPT_PROBE, N_("  --probe CMD             run CMD with /bin/sh in each build's root:\n"
				"                          exit 0 good, 1-124/126/127 bad, 125 skip, 128+ abort;\n"
				"                          without it, you are asked at each step\n") },
		{ OPT_LAUNCH, N_("  --launch CMD            when you are asked: run CMD in the build's root first\n"
				 "                          (and again on \"retry\"), e.g. the application\n") },
		{ OPT_TIMEOUT, N_("  --timeout S             a probe running longer than S seconds is killed\n") },
		{ OPT_TIMEOUT_VERDICT, N_("  --timeout-verdict bad|skip  what a timed-out probe means (default: bad)\n") },
		{ OPT_JOBS, N_("  --jobs N                builds probed at once (default 1)\n") },
		{ OPT_NO_PREFETCH, N_("  --no-prefetch           no background downloads\n") },
		{ OPT_CHECK_BOUNDS, N_("  --check-bounds          test the good and the bad end first (at once with\n"
				       "                          --jobs 2+); exit 1 if they are not what they were\n"
				       "                          given as (off by default)\n") },
		{ OPT_FLAKY, N_("  --flaky                 the problem shows only sometimes: weigh every run\n"
				"                          (Bayesian), run builds again, stop at --confidence\n"
				"                          (on by itself when verdicts contradict each other)\n") },
		{ OPT_CONFIDENCE, N_("  --confidence P          with --flaky: stop when one build holds P of the\n"
				     "                          probability (default 0.95; a little more while\n"
				     "                          the failure rates are uncertain)\n") },
		{ OPT_MAX_PROBES, N_("  --max-probes N          with --flaky: stop after N probe runs\n") },
		{ OPT_RATE_BEFORE, N_("  --fail-rate-before R    with --flaky: runs fail this often before the\n"
				      "                          culprit (default: learned from the runs)\n") },
		{ OPT_RATE_AFTER, N_("  --fail-rate-after R     with --flaky: runs fail this often from the culprit\n"
				     "                          on (default: learned from the runs)\n") },
		{ OPT_CONFIRM, N_("  --confirm N             run the first bad and the last good build N times\n"
				  "                          more; a run that disagrees goes on as --flaky\n") },
		{ OPT_CACHE_DIR, N_("  --cache-dir DIR         verified downloads (default $XDG_CACHE_HOME/artbisect)\n") },
		{ OPT_CACHE_SIZE, N_("  --cache-size SIZE       cap the cache (K, M, G suffixes; default a quarter\n"
				     "                          of the space its file system could give it)\n") },
		{ OPT_CACERT, N_("  --cacert FILE           trust the CA certificates in FILE for https\n") },
		{ OPT_NET_TIMEOUT, N_("  --net-timeout S         retry a transfer slower than 1 KiB/s for S seconds\n") },
		{ OPT_RETRY_DELAY, N_("  --retry-delay S         wait S seconds before the first retry of a transfer,\n"
				      "                          twice as long before each next one (default 1)\n") },
		{ OPT_KEEP_ROOTS, N_("  --keep-roots            keep each build's scratch root after its verdict\n") },
		{ OPT_MAX_UNPACKED, N_("  --max-unpacked SIZE     refuse an artifact that unpacks to more than SIZE\n"
				       "                          (default 16G; a guard against archive bombs)\n") },
		{ OPT_WORK_DIR, N_("  --work-dir DIR          the session and scratch roots\n"
				   "                          (default $XDG_STATE_HOME/artbisect)\n") },
		{ OPT_JSON, N_("  --json                  print the JSON report on standard output\n") },
		{ OPT_REPORT, N_("  --report FILE           also write the report to FILE: an HTML page when\n"
				     "                          FILE ends in .html or .htm, else Markdown\n") },
		{ OPT_QUIET, N_("  --quiet                 only the report and errors\n") },
	};
	size_t i;

	for (i = 0; i < sizeof help / sizeof help[0]; i++)
		if (find_def(help[i].id)->cmds & M(cmd))
			fputs(_(help[i].text), out);
	fputs(_("  --help, --version\n"), out);
}

void ab_cli_usage(ab_cmd cmd, FILE *out)
{
	switch (cmd) {
	case AB_CMD_BISECT:
		fputs(_("Usage: artbisect --index URL [options]\n"
			"       artbisect COMMAND [options]    (see COMMAND --help)\n"
			"Find the build that broke (or fixed) something, from prebuilt builds.\n\n"), out);
		break;
	case AB_CMD_START:
		fputs(_("Usage: artbisect start --index URL [--good ID] [--bad ID] [options]\n"
			"Start a session for testing by hand (a kernel that needs a reboot, say):\n"
			"prepare the first build to test, say where it is, and exit.\n\n"), out);
		break;
	case AB_CMD_GOOD:
	case AB_CMD_BAD:
	case AB_CMD_SKIP:
		if (cmd == AB_CMD_SKIP)
			fputs(_("Usage: artbisect skip [ID] [options]\n"
				"Record that build ID (default: the build waiting for a verdict) cannot be\n"
				"tested, then prepare the next build to test and say which.\n\n"), out);
		else
			fprintf(out, _("Usage: artbisect %s [ID] [options]\n"
				       "Record that build ID (default: the build waiting for a verdict) is %s,\n"
				       "then prepare the next build to test and say which.\n\n"),
				command_names[cmd], command_names[cmd]);
		break;
	case AB_CMD_RUN:
		fputs(_("Usage: artbisect run [--probe CMD] [options]\n"
			"Continue the saved session until it ends, with a probe or by asking you.\n\n"), out);
		break;
	case AB_CMD_STATUS:
		fputs(_("Usage: artbisect status [--json] [--work-dir DIR]\n"
			"Say where the session stands.\n\n"), out);
		break;
	case AB_CMD_LOG:
		fputs(_("Usage: artbisect log [--work-dir DIR]\n"
			"Print the session as text that 'artbisect replay' reads back.\n\n"), out);
		break;
	case AB_CMD_REPLAY:
		fputs(_("Usage: artbisect replay FILE [options]\n"
			"Make the session that 'artbisect log' wrote to FILE again (replacing any\n"
			"session in the work directory), then prepare the next build.\n\n"), out);
		break;
	case AB_CMD_RESET:
		fputs(_("Usage: artbisect reset [--work-dir DIR]\n"
			"Remove the session and its scratch roots; the download cache stays.\n\n"), out);
		break;
	default:
		break;
	}
	option_help(cmd, out);
	if (cmd == AB_CMD_BISECT)
		fputs(_("\n"
			"Settings: $XDG_CONFIG_HOME/artbisect/config (\"jobs = 4\" lines) and\n"
			"ARTBISECT_JOBS-style variables give defaults; the command line wins.\n"
			"\n"
			"Exit status: 0 found, 1 inconclusive, 2 bad usage or input,\n"
			"3 failure, 4 aborted (the session is kept).\n"
			"\n"
			"Commands:\n"
			"  start        start a session for testing by hand\n"
			"  good|bad|skip [ID]  record a verdict, prepare the next build\n"
			"  run          continue the session with a probe or the prompt\n"
			"  status       where the session stands (--json)\n"
			"  log          the session as text; replay FILE makes it again\n"
			"  reset        remove the session (never the download cache)\n"
			"  index [--output FILE] [--name TEXT] [--base-url URL] PATH...\n"
			"               write an index for the packages and archives in PATHs\n"
			"  cache list|clean [--cache-dir DIR] [--older-than DAYS]\n"
			"               show or empty the download cache\n"), out);
	if (cmd == AB_CMD_BISECT)
		fputs(_("  help [COMMAND]  what COMMAND takes, as COMMAND --help\n"), out);
}
