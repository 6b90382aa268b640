/* cmd_index.c - see cmd_index.h. (stub: being written) */
#include "config.h"
#include "cmd_index.h"
#include "error.h"

int ab_cmd_index(int argc, char **argv) { (void)argc; (void)argv; return AB_EXIT_USAGE; }
