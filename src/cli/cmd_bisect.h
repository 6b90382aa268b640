/* cmd_bisect.h - the commands that drive a bisection from the front end.
 *
 * Owns a run from the command line's point of view: settings (cli.c),
 * loading the index (or the session's snapshot of it), resolving
 * --good/--bad, the saved session (session.c) and its lock, wiring the
 * library's callbacks to the terminal (progress, prompt), and printing
 * the report and the next step. One function per subcommand; each
 * returns the exit status. main.c only picks the function. Never
 * downloads, unpacks or runs a probe itself: bisect/ does, and reports
 * through the callbacks wired here.
 */
#ifndef AB_CMD_BISECT_H
#define AB_CMD_BISECT_H

#include "cli/cli.h"

/* argv as main got it; the first word (the subcommand) is argv[0]. */
int ab_cmd_bisect(ab_cli *cli, int argc, char **argv);	/* artbisect --index URL */
int ab_cmd_start(ab_cli *cli, int argc, char **argv);
int ab_cmd_verdict(ab_cli *cli, int argc, char **argv);	/* good, bad, skip */
int ab_cmd_run(ab_cli *cli, int argc, char **argv);
int ab_cmd_replay(ab_cli *cli, int argc, char **argv);
int ab_cmd_status(ab_cli *cli, int argc, char **argv);
int ab_cmd_log(ab_cli *cli, int argc, char **argv);
int ab_cmd_reset(ab_cli *cli, int argc, char **argv);

/* $XDG_STATE_HOME/artbisect (or ~/.local/state/artbisect): the default
 * work directory. */
char *ab_default_work_dir(void);

#endif
