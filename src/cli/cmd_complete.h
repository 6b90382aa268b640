/* cmd_complete.h - `artbisect __complete-ids`: build ids for the shell
 * completion (data/completion/).
 *
 * Owns listing the ids that start with a prefix, one per line, from the
 * session's index snapshot in the work directory or, without a session,
 * from a local --index file. Never touches the network and never prints
 * a message: a completion that has nothing to offer prints nothing and
 * exits 0. Not meant for people; not in --help.
 */
#ifndef AB_CMD_COMPLETE_H
#define AB_CMD_COMPLETE_H

/* argv[0] is "__complete-ids"; then [--work-dir DIR] [--index PATH]
 * [PREFIX]. */
int ab_cmd_complete_ids(int argc, char **argv);

#endif
