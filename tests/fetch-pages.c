/* fetch-pages.c - for tests/fetch-pages.sh: drives the fetch layer's
 * pages and files of unknown digest against a real server.
 *
 *   fetch-pages --cache DIR [--http-only] [--max BYTES] [--body-dir D] URL...
 *     ab_fetch_pages on the URLs; one line each:
 *       STATUS<TAB>REVALIDATED<TAB>LENGTH<TAB>EFFECTIVE-URL-or-WHY
 *     (STATUS ok, missing or failed), the body of the i-th in D/i, and
 *     last "counts: fetched N revalidated M".
 *   fetch-pages --cache DIR --file URL [--mirror URL]... [--check-cmd CMD | --min-size N]
 *     ab_fetch_artifacts on one item with sha256 NULL; CMD runs as
 *     sh -c CMD sh PATH SHA256 and accepts the file when it exits 0.
 *     Prints "ok<TAB>SHA256<TAB>PATH" or "unavailable<TAB>REASON".
 *
 * -1 from the call: its message on stderr, its exit code. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/cache.h"
#include "net/fetch.h"
#include "base/util.h"

static const char *check_cmd;
static long long min_size = -1;

static int check(void *ud, const char *path, const char *sha256, char **why)
{
	(void)ud;
	if (check_cmd) {
		pid_t pid = fork();
		int st;

		if (pid < 0) {
			*why = ab_xstrdup("fork failed");
			return 1;
		}
		if (pid == 0) {
			execl("/bin/sh", "sh", "-c", check_cmd, "sh", path, sha256, (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			*why = ab_xasprintf("the check command refused %s", sha256);
			return 1;
		}
		return 0;
	}
	if (min_size >= 0) {
		struct stat sb;

		if (stat(path, &sb) < 0 || (long long)sb.st_size <= min_size) {
			*why = ab_xasprintf("not more than %lld bytes", min_size);
			return 1;
		}
	}
	return 0;
}

static int write_body(const char *dir, size_t i, const ab_page *p)
{
	char *path = ab_xasprintf("%s/%zu", dir, i);
	FILE *f = fopen(path, "wb");
	int rc = f && fwrite(p->data, 1, p->len, f) == p->len ? 0 : -1;

	if (f && fclose(f) != 0)
		rc = -1;
	free(path);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "cache", required_argument, NULL, 'c' },
		{ "http-only", no_argument, NULL, 'h' },
		{ "max", required_argument, NULL, 'm' },
		{ "body-dir", required_argument, NULL, 'b' },
		{ "file", required_argument, NULL, 'f' },
		{ "check-cmd", required_argument, NULL, 'k' },
		{ "min-size", required_argument, NULL, 's' },
		{ "mirror", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cache_dir = NULL, *body_dir = NULL, *file_url = NULL;
	char *mirrors[8];
	size_t nmirrors = 0;
	size_t max = 1 << 20, i, n, fetched, revalidated;
	ab_fetch_options opt;
	ab_error err = {0};
	ab_cache *cache;
	int c, status = 0;

	ab_fetch_options_default(&opt);
	opt.backoff = 0.1;
	opt.stall_seconds = 10;
	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case 'c': cache_dir = optarg; break;
		case 'h': opt.http_only = 1; break;
		case 'm': max = (size_t)strtoull(optarg, NULL, 10); break;
		case 'b': body_dir = optarg; break;
		case 'f': file_url = optarg; break;
		case 'k': check_cmd = optarg; break;
		case 's': min_size = strtoll(optarg, NULL, 10); break;
		case 'r':
			if (nmirrors < 8)
				mirrors[nmirrors++] = optarg;
			break;
		default:
			fprintf(stderr, "usage: see tests/fetch-pages.c\n");
			return 2;
		}
	}
	if (!cache_dir || (!file_url && optind >= argc)) {
		fprintf(stderr, "usage: see tests/fetch-pages.c\n");
		return 2;
	}
	cache = ab_cache_open(cache_dir, &err);
	if (!cache) {
		fprintf(stderr, "%s\n", err.msg);
		return err.code;
	}
	if (file_url) {
		ab_fetch_item it;

		memset(&it, 0, sizeof it);
		it.url = file_url;
		it.mirrors = mirrors;
		it.nmirrors = nmirrors;
		it.sha256 = NULL;
		it.size = -1;
		it.check = check;
		if (ab_fetch_artifacts(cache, &opt, NULL, &it, 1, &err) < 0) {
			fprintf(stderr, "%s\n", err.msg);
			status = err.code;
		} else if (it.status == AB_FETCH_OK) {
			printf("ok\t%s\t%s\n", it.got_sha256, it.path);
		} else {
			printf("unavailable\t%s\n", it.reason ? it.reason : "?");
		}
		free(it.path);
		free(it.reason);
	} else {
		ab_page *pages;

		n = (size_t)(argc - optind);
		pages = ab_xcalloc(n, sizeof *pages);
		if (ab_fetch_pages(cache, &opt, (const char *const *)argv + optind, n, max, pages,
				   &err) < 0) {
			fprintf(stderr, "%s\n", err.msg);
			status = err.code;
		} else {
			for (i = 0; i < n; i++) {
				ab_page *p = &pages[i];
				static const char *const names[] = { "ok", "missing", "failed" };

				printf("%s\t%d\t%zu\t%s\n", names[p->status], p->revalidated, p->len,
				       p->status == AB_PAGE_OK ? p->url : p->why);
				if (p->status == AB_PAGE_OK && body_dir && write_body(body_dir, i, p) < 0)
					status = 3;
			}
			ab_fetch_page_counts(&fetched, &revalidated);
			printf("counts: fetched %zu revalidated %zu\n", fetched, revalidated);
		}
		for (i = 0; i < n; i++)
			ab_page_clear(&pages[i]);
		free(pages);
	}
	ab_cache_close(cache);
	return status;
}
