/* cli.h - the command line, the configuration file and ARTBISECT_*
 * variables, turned into one ab_cli.
 *
 * Owns the option table (which options each subcommand takes), the
 * order in which settings win (config file < environment < saved
 * session < command line), per-subcommand --help, and writing the
 * options of a session back as arguments (cli_argv.c). Front end:
 * prints its messages with ab_message; never runs a bisection.
 */
#ifndef AB_CLI_H
#define AB_CLI_H

#include <stddef.h>
#include <stdio.h>

typedef enum ab_cmd {
	AB_CMD_BISECT,		/* artbisect --index URL ... */
	AB_CMD_START,
	AB_CMD_GOOD,
	AB_CMD_BAD,
	AB_CMD_SKIP,
	AB_CMD_RUN,
	AB_CMD_STATUS,
	AB_CMD_LOG,
	AB_CMD_REPLAY,
	AB_CMD_RESET,
	AB_CMD_COUNT,
} ab_cmd;

/* Where a setting came from; a later source wins over an earlier one. */
typedef enum ab_source { AB_SRC_CONFIG, AB_SRC_ENV, AB_SRC_SESSION, AB_SRC_ARGS } ab_source;

#define AB_CLI_MAX_KEYRINGS 32
#define AB_CLI_MAX_PACKAGES 32

typedef struct ab_cli {
	ab_cmd cmd;
	const char *index;
	const char *good, *bad;
	const char *probe;
	const char *launch;	/* run before asking the person, and on "retry" */
	double timeout;
	int timeout_skip;
	int find_fix;
	int json;
	int jobs;
	int no_prefetch;
	int check_bounds;	/* --check-bounds: probe the ends first */
	int flaky;		/* --flaky */
	double confidence;	/* --confidence; 0: the default */
	unsigned max_probes;	/* --max-probes; 0: none */
	double fail_rate_before, fail_rate_after;	/* < 0: learned */
	unsigned confirm;	/* --confirm N */
	int keep_roots;
	int quiet;
	const char *cache_dir;
	const char *work_dir;
	const char *cacert;
	double net_timeout;
	double retry_delay;	/* --retry-delay, when retry_delay_set */
	int retry_delay_set;
	const char *report_file;
	const char *keyrings[AB_CLI_MAX_KEYRINGS];	/* --keyring, repeatable */
	size_t nkeyrings;
	ab_source keyring_source;	/* a later source replaces the list */
	const char *package;	/* the first --package: a yum repository's package */
	const char *packages[AB_CLI_MAX_PACKAGES];	/* --package, repeatable (koji) */
	size_t npackages;
	const char *farm;	/* --farm mainline|arch|koji|sums */
	const char *arch;	/* --arch: a farm's architecture */
	const char *flavour;	/* --flavour: mainline's kernel flavour */
	int allow_unverified;	/* --allow-unverified */
	int install_rpm;	/* --install rpm */
	int install_system;	/* --install system: candidates go on this machine */
	const char *system_root;	/* --system-root, default "/" */
	int reboot;		/* run --reboot: unattended kernel testing */
	long long cache_size;	/* --cache-size in bytes; 0 = the default */
	long long max_unpacked;	/* --max-unpacked in bytes; 0 = the default */
	const char *verdict_id;	/* good|bad|skip ID */
	const char *replay_file;	/* replay FILE */
	/* Copies of strings read from the config file or the environment. */
	char **owned;
	size_t nowned;
} ab_cli;

/* Defaults (jobs 1), then the config file and ARTBISECT_* variables.
 * -1 after a message when one of them is wrong. */
int ab_cli_init(ab_cli *cli, ab_cmd cmd);
void ab_cli_free(ab_cli *cli);

/* Parses options and operands for cli->cmd from argv[0..argc) (argv[0]
 * is the command's name and skipped). Returns -1 after a message on bad
 * usage, 1 after printing --help or --version, 0 otherwise. from names
 * the arguments' origin in messages (NULL for the command line). */
int ab_cli_parse(ab_cli *cli, int argc, char **argv, ab_source src, const char *from);

/* The options that define a session (index, range, probe, keys...),
 * as arguments for `artbisect start`; NULL-terminated, free with
 * ab_cli_argv_free. --good and --bad are written as the given ids. */
char **ab_cli_session_argv(const ab_cli *cli, const char *good_id, const char *bad_id);
/* path made absolute against the directory artbisect was started in,
 * or NULL when it is already (or cannot be). Caller frees. */
char *ab_cli_absolute_path(const char *path);
void ab_cli_argv_free(char **argv);

/* Where the first word that is neither an option nor an option's value
 * is in argv, or 0. valued names more options that take a value (those
 * of index and cache, without "--"), NULL-terminated; may be NULL. */
int ab_cli_find_word(int argc, char **argv, const char *const *valued);
/* Where the subcommand word is in argv (options may come before it, as
 * in "artbisect --work-dir DIR status"), or 0 when there is none. */
int ab_cli_find_command(int argc, char **argv);
/* The subcommand named by word, or -1. */
int ab_cli_command(const char *word);
const char *ab_cli_command_name(ab_cmd cmd);
void ab_cli_usage(ab_cmd cmd, FILE *out);

#endif
