/* cmd_bisect.h - the bisection command of the front end.
 *
 * Owns a whole run from the command line's point of view: loads the
 * index, resolves --good/--bad, wires the library's callbacks to the
 * terminal (progress, prompt) and prints the report. Returns the exit
 * status; main.c only parses options into this struct.
 */
#ifndef AB_CMD_BISECT_H
#define AB_CMD_BISECT_H

typedef struct ab_cli {
	const char *index;
	const char *good, *bad;
	const char *probe;
	double timeout;
	int timeout_skip;
	int find_fix;
	int json;
	int jobs;
	int no_prefetch;
	int keep_roots;
	int quiet;
	const char *cache_dir;
	const char *work_dir;
	const char *cacert;
	double net_timeout;
	const char *report_file;
	const char *keyrings[32];	/* --keyring, repeatable */
	size_t nkeyrings;
	const char *package;	/* --package: --index is a yum repository */
	int install_rpm;	/* --install rpm */
	long long cache_size;	/* --cache-size in bytes; 0 = the default */
} ab_cli;

int ab_cmd_bisect(const ab_cli *cli);

#endif
