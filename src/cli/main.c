/* main.c - picks the subcommand, parses the command line, dispatches. */
#include "config.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/cmd_bisect.h"
#include "cli/cmd_cache.h"
#include "cli/cmd_complete.h"
#include "cli/cmd_index.h"
#include "base/error.h"
#include "base/i18n.h"
#include "cli/progress.h"
#include "pkg/rpmpkg.h"
#include "pkg/unpack.h"
#include "base/util.h"

typedef int (*command_fn)(ab_cli *cli, int argc, char **argv);

static const command_fn commands[AB_CMD_COUNT] = {
	[AB_CMD_BISECT] = ab_cmd_bisect,
	[AB_CMD_START] = ab_cmd_start,
	[AB_CMD_GOOD] = ab_cmd_verdict,
	[AB_CMD_BAD] = ab_cmd_verdict,
	[AB_CMD_SKIP] = ab_cmd_verdict,
	[AB_CMD_RUN] = ab_cmd_run,
	[AB_CMD_STATUS] = ab_cmd_status,
	[AB_CMD_LOG] = ab_cmd_log,
	[AB_CMD_REPLAY] = ab_cmd_replay,
	[AB_CMD_RESET] = ab_cmd_reset,
};

/* The command's own argv: its name (argv[pos]), then every other word. */
static char **command_argv(int argc, char **argv, int pos)
{
	char **v = ab_xcalloc((size_t)argc + 1, sizeof *v);
	int i, n = 0;

	v[n++] = argv[pos];
	for (i = 1; i < argc; i++)
		if (i != pos)
			v[n++] = argv[i];
	return v;
}

/* index and cache parse their own options: "artbisect --output FILE
 * index DIR" works as "artbisect index --output FILE DIR". -1: neither. */
static int run_tool_command(int argc, char **argv)
{
	/* Their options with a value that the session commands lack. */
	static const char *const valued[] = { "output", "name", "base-url", "older-than", NULL };
	int pos = ab_cli_find_word(argc, argv, valued), rc;
	char **v;

	if (pos == 0 || (strcmp(argv[pos], "index") && strcmp(argv[pos], "cache")))
		return -1;
	v = command_argv(argc, argv, pos);
	rc = !strcmp(argv[pos], "index") ? ab_cmd_index(argc - 1, v) : ab_cmd_cache(argc - 1, v);
	free(v);
	return rc;
}

/* rc, or 3 when what went to standard output was lost (a full disk, a
 * closed pipe): an answer nobody got is not an answer. */
static int finish_output(int rc)
{
	int e = fflush(stdout) != 0 ? errno : ferror(stdout) ? EIO : 0;

	if (!e)
		return rc;
	ab_message(_("cannot write to standard output: %s"), strerror(e));
	return rc == 0 || rc == 1 ? AB_EXIT_FAILURE : rc;
}

/* `artbisect help [COMMAND [WORD...]]`: what `artbisect COMMAND --help
 * [WORD...]` prints, for index and cache too; an unknown COMMAND is bad
 * usage, as `artbisect COMMAND` would be. */
static int help_command(int argc, char **argv)
{
	int c = argc > 2 && strcmp(argv[2], "help") ? ab_cli_command(argv[2]) : 0;
	char **v;
	int i, rc;

	if (argc > 2 && (!strcmp(argv[2], "index") || !strcmp(argv[2], "cache"))) {
		/* argv[2], "--help", then the words after it ("help index URL"). */
		v = ab_xcalloc((size_t)argc, sizeof *v);
		v[0] = argv[2];
		v[1] = "--help";
		for (i = 3; i < argc; i++)
			v[i - 1] = argv[i];
		rc = !strcmp(argv[2], "index") ? ab_cmd_index(argc - 1, v) : ab_cmd_cache(argc - 1, v);
		free(v);
		return rc;
	}
	if (c < 0) {
		ab_message(_("unknown command '%s' (see artbisect --help)"), argv[2]);
		return AB_EXIT_USAGE;
	}
	ab_cli_usage((ab_cmd)c, stdout);
	return 0;
}

int main(int argc, char **argv)
{
	ab_cli cli;
	ab_cmd cmd = AB_CMD_BISECT;
	char **cmd_argv = NULL;
	int rc, pos;

	setlocale(LC_ALL, "");
	/* Numbers on the command line, in configs, sessions and JSON are
	 * written the C way ("1.5") whatever the language. */
	setlocale(LC_NUMERIC, "C");
	{
		/* For running from the build tree and for relocated installs. */
		const char *dir = getenv("ARTBISECT_LOCALEDIR");
		bindtextdomain(PACKAGE, dir && *dir ? dir : LOCALEDIR);
	}
	textdomain(PACKAGE);

	if (argc > 1 && !strcmp(argv[1], AB_UNPACK_HELPER_ARG))
		return ab_unpack_helper_main(argc, argv);
	if (argc > 1 && !strcmp(argv[1], AB_RPM_HELPER_ARG))
		return ab_rpm_install_helper_main(argc, argv);
	/* A reader that went away (a log pipe, gpg dying) must not kill a
	 * run in the middle of a probe: a write then fails with EPIPE, and
	 * standard output is checked at the end. Children get the default
	 * back (probe.c, prompt.c, sysinstall.c, openpgp.c; rpm does it for
	 * scriptlets). */
	signal(SIGPIPE, SIG_IGN);
	if ((rc = run_tool_command(argc, argv)) >= 0)
		return finish_output(rc);
	if (argc > 1 && !strcmp(argv[1], "__complete-ids"))
		return ab_cmd_complete_ids(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "help"))
		return finish_output(help_command(argc, argv));
	pos = ab_cli_find_command(argc, argv);
	if (pos > 0) {
		cmd = (ab_cmd)ab_cli_command(argv[pos]);
		argv = cmd_argv = command_argv(argc, argv, pos);
		argc--;
	} else if (argc > 1 && argv[1][0] != '-') {
		ab_message(_("unknown command '%s' (see artbisect --help)"), argv[1]);
		return AB_EXIT_USAGE;
	}
	if (ab_cli_init(&cli, cmd) < 0) {
		ab_cli_free(&cli);
		free(cmd_argv);
		return AB_EXIT_USAGE;
	}
	rc = ab_cli_parse(&cli, argc, argv, AB_SRC_ARGS, NULL);
	if (rc != 0) {
		ab_cli_free(&cli);
		free(cmd_argv);
		return rc > 0 ? finish_output(0) : AB_EXIT_USAGE;
	}
	if (cmd == AB_CMD_BISECT && !cli.index) {
		ab_message(_("--index URL is required (see artbisect --help)"));
		ab_cli_free(&cli);
		free(cmd_argv);
		return AB_EXIT_USAGE;
	}
	rc = commands[cmd](&cli, argc, argv);
	ab_cli_free(&cli);
	free(cmd_argv);
	return finish_output(rc);
}
