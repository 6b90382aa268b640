/* cmd_ctx.h - what the bisection commands share (front end only): the
 * context of one command (cli, index or farm, session, cache, the
 * bisection) and the steps every command takes with it. cmd_bisect.c
 * owns opening, running and reporting; cmd_load.c reading the index
 * (a file, a URL, a directory, a yum repository, a real farm, or the
 * session's snapshot); cmd_session.c the step-by-step commands (start,
 * good/bad/skip, replay, status, log, reset). Never used by the library.
 */
#ifndef AB_CMD_CTX_H
#define AB_CMD_CTX_H

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "bisect/bisect.h"
#include "net/cache.h"
#include "cli/cmd_bisect.h"
#include "cli/cmd_cache.h"
#include "base/digest.h"
#include "base/escape.h"
#include "net/fetch.h"
#include "base/filemap.h"
#include "base/i18n.h"
#include "index/index.h"
#include "farms/indexgen.h"
#include "bisect/probe.h"
#include "cli/progress.h"
#include "cli/prompt.h"
#include "farms/repodata.h"
#include "farms/farm.h"
#include "bisect/report.h"
#include "bisect/report_html.h"
#include "pkg/rpmpkg.h"
#include "bisect/session.h"
#include "pkg/sysinstall.h"
#include "base/rmtree.h"
#include "base/util.h"

/* The JSON on standard output: non-ASCII as \uXXXX, so that a C1
 * control in a string (U+009B is CSI to some terminals) is no raw byte
 * on a terminal; the values stay exactly the index's. Reals with 15
 * digits: seconds rounded to the millisecond read 0.03, not
 * 0.029999999999999999. */
#define AB_JSON_OUT (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(15))

/* The largest index document we read (a 1M-build index is ~300 MB). */
#define INDEX_MAX_BYTES ((size_t)1 << 30)
/* Smaller local indexes are copied: mapping saves nothing there. */
#define MAP_MIN_BYTES ((size_t)1 << 20)

/* Set by SIGINT and SIGTERM: every wait looks at it. */
extern volatile sig_atomic_t cmd_interrupted;

typedef struct ctx {
	ab_cli *cli;
	int argc;
	char **argv;
	ab_progress prog;
	ab_prompt prompt;
	ab_fetch_options fopt;
	ab_error err;
	ab_index *idx;
	const char *index_bytes;	/* the document, for a new session's snapshot: */
	size_t index_len;
	char *index_buf;		/* in memory */
	ab_filemap *index_map;		/* or a local file read in place */
	ab_pending_write *snapshot;	/* being written while the run begins */
	int snapshot_failed;	/* then the session is never written */
	ab_rpm_keyring *keyring;
	int rpm_ready;
	ab_cache *cache;
	ab_bisect *b;
	char *cache_dir, *work_dir;
	ab_session *sess;
	int lock_fd;
	size_t current;		/* the build waiting for a verdict */
	int has_current;
	ab_farm *farm;		/* a real farm read from its listings: it owns
				 * idx and resolves builds as they come */
	size_t farm_saved;	/* builds resolved when its snapshot was saved */
	ab_error keyring_err;	/* --keyring as librpm could not read it */
	char *hints;		/* lines ctx_fail prints after err: commands */
} ctx;

/* cmd_bisect.c: a command's context from its start to its end. */
void ctx_begin(ctx *c, ab_cli *cli, int argc, char **argv);
void ctx_settings(ctx *c);	/* fetch options, directories, prompt */
void ctx_end(ctx *c);
int ctx_fail(ctx *c);		/* prints c->err, gives its exit status */
/* ctx_fail for a command whose bisection was set up but that cannot go
 * on (a cache that cannot be written, exit 3): with --json the report
 * object, "aborted", is printed too. */
int ctx_fail_setup(ctx *c);
/* After a Ctrl-C while a session was being opened (status is exit 4):
 * the command as typed, which goes on with the session there or starts
 * again (word: "start", or NULL). */
void ctx_say_interrupted(const ctx *c, int status, const char *word);
/* "artbisect WORD" with --work-dir when it is not the default. */
char *ctx_hint_command(const ctx *c, const char *word);
int ctx_resolve(ctx *c, const char *good, const char *bad, size_t *good_idx, size_t *bad_idx);
int ctx_make_bisect(ctx *c, size_t good_idx, size_t bad_idx);
int ctx_open_cache(ctx *c);
int ctx_session_cli(ctx *c);	/* the saved session's settings, then argv */
int ctx_lock(ctx *c);
void ctx_save(ctx *c);		/* the session (and a farm's snapshot) on disk */
void ctx_callbacks(ctx *c, ab_bisect_callbacks *cb);
int ctx_report(ctx *c);		/* prints the report, gives the exit status */
int ctx_open_new(ctx *c, size_t *good_idx, size_t *bad_idx);
int ctx_open_saved(ctx *c, int lock, int need_cache);
/* The session in the work directory, or NULL with err (when there is
 * none: the command that starts one there). */
ab_session *ctx_load_session(ctx *c);
int ctx_run(ctx *c);

/* cmd_load.c: the index, and the session's snapshot of it. */
int ctx_rpm(ctx *c);		/* librpm, and --keyring as it reads it */
int ctx_load_index(ctx *c);	/* the command line's --index */
int ctx_load_session_index(ctx *c);	/* the index the session started with */
void ctx_start_snapshot(ctx *c);
int ctx_keep_snapshot(ctx *c, ab_error *err);
void ctx_drop_snapshot(ctx *c);
void ctx_drop_index_bytes(ctx *c);
void ctx_drop_index(ctx *c);	/* the index, or the farm that owns it */

#endif
