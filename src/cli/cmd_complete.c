/* cmd_complete.c - see cmd_complete.h. */
#include "config.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/cmd_bisect.h"
#include "cli/cmd_complete.h"
#include "index/index.h"
#include "bisect/session.h"
#include "base/util.h"

/* The index to take ids from: the session's snapshot when there is
 * one, else a local index file. NULL when neither is at hand. */
static ab_index *ids_source(const char *work_dir, const char *index_arg)
{
	ab_error err = {0};
	ab_session *s = ab_session_exists(work_dir) ? ab_session_load(work_dir, &err) : NULL;
	ab_index *idx = NULL;
	char *data = NULL, *url = NULL, *path = NULL;
	size_t len = 0;

	if (s && s->index_url && ab_session_load_index(work_dir, &data, &len, &err) == 0)
		idx = ab_index_parse(data, len, s->index_url, &err);
	free(data);
	data = NULL;
	ab_session_free(s);
	if (idx || !index_arg)
		return idx;
	/* Never the network: a completion must answer at once. */
	url = ab_index_source_url(index_arg, &err);
	path = url ? ab_index_local_path(url) : NULL;
	if (path && ab_read_file(path, (size_t)1 << 30, &data, &len, &err) == 0)
		idx = ab_index_parse(data, len, url, &err);
	free(data);
	free(path);
	free(url);
	return idx;
}

int ab_cmd_complete_ids(int argc, char **argv)
{
	static const struct option options[] = {
		{ "work-dir", required_argument, NULL, 'w' },
		{ "index", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	const char *work_arg = NULL, *index_arg = NULL, *prefix = "";
	char *work_dir;
	ab_index *idx;
	size_t i, n;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if (c == 'w')
			work_arg = optarg;
		else if (c == 'i')
			index_arg = optarg;
		else
			return AB_EXIT_USAGE;
	}
	if (optind < argc)
		prefix = argv[optind];
	if (work_arg) {
		work_dir = ab_xstrdup(work_arg);
	} else {
		/* work-dir in the config file or ARTBISECT_WORK_DIR, as the
		 * session commands take it (a bad setting: the default). */
		ab_cli settings;

		work_dir = ab_cli_init(&settings, AB_CMD_STATUS) == 0 && settings.work_dir
			   ? ab_xstrdup(settings.work_dir) : ab_default_work_dir();
		ab_cli_free(&settings);
	}
	idx = ids_source(work_dir, index_arg);
	free(work_dir);
	if (!idx)
		return 0;
	n = strlen(prefix);
	for (i = 0; i < idx->nbuilds; i++)
		if (!strncmp(idx->builds[i].id, prefix, n))
			printf("%s\n", idx->builds[i].id);
	ab_index_free(idx);
	return 0;
}
