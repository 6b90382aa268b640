/* cmd_index_farm.h - `artbisect index URL`: a real farm (farms/farm.h)
 * resolved build by build and written as an index v1, so that a QA team
 * can publish a static, checked index of it. Front end: prints progress
 * and errors on standard error, the index on standard output or to
 * --output. Never parses a page or a package itself: farms/ does. */
#ifndef AB_CMD_INDEX_FARM_H
#define AB_CMD_INDEX_FARM_H

/* argv[0] is "index"; the operand is one http(s) URL. Returns the exit
 * status. */
int ab_cmd_index_farm(int argc, char **argv);

#endif
