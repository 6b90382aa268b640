/* cmd_cache.h - `artbisect cache list|clean`: the front end of the
 * download cache's housekeeping (cache.c does the work).
 *
 * Owns the subcommand's options and its output. Returns the exit status.
 * Never touches the cache's files itself: net/cache.c does.
 */
#ifndef AB_CMD_CACHE_H
#define AB_CMD_CACHE_H

/* argv[0] is "cache". */
int ab_cmd_cache(int argc, char **argv);

/* $XDG_CACHE_HOME/artbisect (or ~/.cache/artbisect): the default cache. */
char *ab_default_cache_dir(void);

#endif
