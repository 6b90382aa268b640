/* cmd_index.h - `artbisect index`: the front end of indexgen.c.
 *
 * Owns the subcommand's options (--output, --name, --base-url, paths),
 * writing the index atomically to --output or to standard output, and
 * its messages. Returns the exit status. Never reads a package itself:
 * farms/indexgen.c does.
 */
#ifndef AB_CMD_INDEX_H
#define AB_CMD_INDEX_H

/* argv[0] is "index". */
int ab_cmd_index(int argc, char **argv);

#endif
