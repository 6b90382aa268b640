/* indexgen.c - see indexgen.h. (stub: being written) */
#include "config.h"
#include "indexgen.h"

char *ab_indexgen(const char *const *paths, size_t n, const ab_indexgen_options *opt,
		  ab_error *err)
{ (void)paths; (void)n; (void)opt; ab_error_set(err, AB_EXIT_USAGE, "not implemented yet"); return NULL; }
