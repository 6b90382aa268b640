/* debver.c - see debver.h. (stub: being written) */
#include "config.h"
#include <string.h>
#include "debver.h"

int ab_debver_valid(const char *s, const char **why) { (void)s; (void)why; return 1; }
int ab_debver_cmp(const char *a, const char *b) { return strcmp(a, b); }
