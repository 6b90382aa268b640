/* probe.h - runs the probe command for one build (CONTRACT.md section 3).
 *
 * Owns the probe's process: /bin/sh -c in its own process group (and,
 * as root, its own mount namespace, so that its mounts die with it),
 * working directory the scratch root, the contract's environment, the
 * timeout (TERM to the whole group, KILL after a grace period), and the
 * mapping of its exit status to a verdict. The probe's output goes where the
 * caller says; nothing here prints.
 */
#ifndef AB_PROBE_H
#define AB_PROBE_H

#include <signal.h>
#include "base/error.h"

typedef struct ab_probe_spec {
	const char *command;
	const char *root;	/* working directory and ARTBISECT_ROOT */
	const char *build_id;
	const char *commit;	/* NULL becomes "" */
	const char *version;
	const char *artifacts;	/* absolute paths, one per line */
	const struct ab_artifact *arts;	/* the same artifacts as the farm has
				 * them (ARTBISECT_ARTIFACT_URLS, _SHA256S), or NULL */
	size_t narts;
	unsigned step;
	int links;		/* ARTBISECT_LINKS=ROOT.links: a file where the
				 * probe may name what it linked to (a lab job) */
	double timeout;		/* seconds; 0 = none */
	double grace;		/* seconds between TERM and KILL */
	int stdout_to_stderr;	/* keep stdout for the JSON report */
	volatile sig_atomic_t *cancel;	/* set by a signal handler: stop now */
	volatile sig_atomic_t *stop;	/* set when the verdict is no longer needed */
} ab_probe_spec;

typedef enum ab_probe_outcome {
	AB_PROBE_GOOD,		/* exit 0 */
	AB_PROBE_BAD,		/* 1..124, 126, 127 */
	AB_PROBE_SKIP,		/* 125 */
	AB_PROBE_ABORT,		/* 128 and above, or a signal */
	AB_PROBE_TIMEOUT,	/* did not finish in time; the group was killed */
	AB_PROBE_CANCELLED,	/* *cancel was set; the group was killed */
	AB_PROBE_STOPPED,	/* *stop was set; the group was killed, no verdict */
} ab_probe_outcome;

typedef struct ab_probe_result {
	ab_probe_outcome outcome;
	int status;		/* exit status, or -1 */
	int signal;		/* terminating signal, or 0 */
	double seconds;
	char *links;		/* what the probe wrote to $ARTBISECT_LINKS: "TEXT
				 * URL" lines, http(s) URLs only; NULL when none
				 * (caller frees) */
} ab_probe_result;

/* Maps a wait status to an outcome (exposed for tests). */
ab_probe_outcome ab_probe_outcome_of(int wstatus);

/* Whether a probe that exited 126 or 127 could not be run at all: its
 * program (the command's first word, when that is a plain word) is not
 * in root (a path: relative ones are taken from root, where the probe
 * runs), not on $PATH (a name that is no shell builtin), or is not
 * executable. 1 with *why (caller frees) saying what and, for a relative
 * path found in cwd instead, that it is there; 0 when the program is
 * there or the command is not a simple one (the run stops all the same,
 * contract section 4b, with a plainer message). Also 1 for a 127 from a command broken
 * over lines whose next line starts with an option ("--template ..."):
 * the shell ran that line as a command. Looks at files, never runs one.
 * *fixed (caller frees; may be NULL) gets the command with the program's
 * absolute path when it was found in cwd, else NULL. */
int ab_probe_cannot_run(const char *command, const char *root, const char *cwd, int status,
			char **why, char **fixed);

/* Runs the probe and waits for it. -1 with err (exit 3) when it could not
 * be started at all. */
int ab_probe_run(const ab_probe_spec *spec, ab_probe_result *res, ab_error *err);

#endif
