/* repodata.c - see repodata.h. (stub: being written) */
#include "config.h"
#include "repodata.h"

ab_index *ab_repodata_load(const char *url, const char *package,
			   const ab_fetch_options *fopt, ab_error *err)
{ (void)url; (void)package; (void)fopt; ab_error_set(err, AB_EXIT_USAGE, "--package: not implemented yet"); return NULL; }
