/* unpack_helper.c - the helper process archives are extracted in.
 *
 * Archives are extracted by a helper process, artbisect-unpack or this
 * program started afresh (see spawn_helper), that chdir()s into the root:
 * archive_write_disk resolves every path against the process-wide current
 * directory, so the parent's cwd is never touched and several unpacks may
 * run at once. The helper sends back one result (rc, exit code, text)
 * through a pipe and leaves with _exit(). Owns starting, cancelling and
 * reaping it; the extraction itself is unpack_archive.c's.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "base/i18n.h"
#include "pkg/unpack_private.h"
#include "base/util.h"

struct wire {
	int32_t rc;
	int32_t code;
	uint32_t len;
};

/* The extraction itself, in the helper process: src is the artifact,
 * wfd the pipe for the one result. Never returns. */
static void child(pid_t parent, int wfd, int src, ab_artifact_type type, const char *path,
		  const char *root, const struct ab_unpack_limits *lim)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
	struct wire w;
	ab_unpack_rc rc;
	struct sigaction sa;
	sigset_t set;
	char *text;
	int code;
	size_t i;

	/* The parent's handlers mean nothing here: a handled signal stops
	 * the child (the parent then reports it); an ignored one stays
	 * ignored. */
	sigemptyset(&set);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		sigaddset(&set, sigs[i]);
		if (sigaction(sigs[i], NULL, &sa) == 0 &&
		    ((sa.sa_flags & SA_SIGINFO) || sa.sa_handler != SIG_IGN))
			signal(sigs[i], SIG_DFL);
	}
	sigprocmask(SIG_UNBLOCK, &set, NULL);
#ifdef __linux__
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
#endif
	rc = ab_unpack_archive_here(src, type, path, root, lim, &code, &text);
	w.rc = rc;
	w.code = code;
	w.len = text ? (uint32_t)strlen(text) : 0;
	if (ab_unpack_write_all(wfd, &w, sizeof w) < 0 || (w.len && ab_unpack_write_all(wfd, text, w.len) < 0))
		_exit(1);
	_exit(0);
}

/* The helper's file descriptors: the artifact and the result pipe. */
enum { HELPER_SRC_FD = 3, HELPER_RESULT_FD = 4 };

int ab_unpack_helper_main(int argc, char **argv)
{
	long long parent, type;
	unsigned long long max, entries;
	struct ab_unpack_limits lim;
	char *end;

	/* argv: AB_UNPACK_HELPER_ARG PARENT TYPE MAX ENTRIES PATH ROOT */
	if (argc != 8 || strcmp(argv[1], AB_UNPACK_HELPER_ARG) != 0)
		return 2;
	errno = 0;
	parent = strtoll(argv[2], &end, 10);
	if (errno || *end)
		return 2;
	type = strtoll(argv[3], &end, 10);
	if (errno || *end)
		return 2;
	max = strtoull(argv[4], &end, 10);
	if (errno || *end)
		return 2;
	entries = strtoull(argv[5], &end, 10);
	if (errno || *end || entries > ULONG_MAX)
		return 2;
	lim.bytes = (uint64_t)max;
	lim.entries = (unsigned long)entries;
	child((pid_t)parent, HELPER_RESULT_FD, HELPER_SRC_FD, (ab_artifact_type)type,
	      argv[6], argv[7], &lim);
	return 1;	/* not reached */
}

/* The lean helper that belongs to the running program, in exe (which
 * holds the program's own path): artbisect-unpack beside it (the build
 * tree, or an install that keeps both in one directory), or in
 * PKGLIBEXECDIR when the program is the one installed in BINDIR. Not
 * when the program's file was replaced or removed since it started (an
 * upgrade: the helper may be another version's). 0 when there is none. */
static int lean_helper(const char *exe, char *out, size_t size)
{
	const char *slash = strrchr(exe, '/');
	size_t n = strlen(exe), dlen;
	static const char deleted[] = " (deleted)";

	if (!slash || (n >= sizeof deleted - 1 && !strcmp(exe + n - (sizeof deleted - 1), deleted)))
		return 0;
	dlen = (size_t)(slash - exe);
	if ((size_t)snprintf(out, size, "%.*s/artbisect-unpack", (int)dlen, exe) < size &&
	    access(out, X_OK) == 0)
		return 1;
#if defined(BINDIR) && defined(PKGLIBEXECDIR)
	if (strlen(BINDIR) == dlen && !strncmp(exe, BINDIR, dlen) &&
	    (size_t)snprintf(out, size, "%s/artbisect-unpack", PKGLIBEXECDIR) < size &&
	    access(out, X_OK) == 0)
		return 1;
#endif
	return 0;
}

/* Starts the helper: artbisect-unpack, or else this very program,
 * executed afresh through /proc/self/exe. A fork() of a process with
 * threads (prefetch and multisection run some) may copy a lock another
 * thread held, in the allocator, in gettext or in a sanitizer's runtime,
 * and the child would wait on it for ever; a new program has no such
 * locks. Returns the pid, or -1 when it cannot be started (no /proc). */
static pid_t spawn_helper(int src, int wfd, ab_artifact_type type, const char *path,
			  const char *root, const struct ab_unpack_limits *lim)
{
	char parent[32], stype[16], smax[32], sentries[32];
	char *argv[9];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none;
	int hsrc, hwfd, rc;
	pid_t pid = -1;

	/* Out of the way of 3 and 4 first, so that neither dup2 below
	 * overwrites the other's source. */
	hsrc = fcntl(src, F_DUPFD_CLOEXEC, 10);
	hwfd = fcntl(wfd, F_DUPFD_CLOEXEC, 10);
	if (hsrc < 0 || hwfd < 0)
		goto out;
	snprintf(parent, sizeof parent, "%ld", (long)getpid());
	snprintf(stype, sizeof stype, "%d", (int)type);
	snprintf(smax, sizeof smax, "%" PRIu64, lim->bytes);
	snprintf(sentries, sizeof sentries, "%lu", lim->entries);
	argv[0] = (char *)"artbisect-unpack";
	argv[1] = (char *)AB_UNPACK_HELPER_ARG;
	argv[2] = parent;
	argv[3] = stype;
	argv[4] = smax;
	argv[5] = sentries;
	argv[6] = (char *)path;
	argv[7] = (char *)root;
	argv[8] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, hsrc, HELPER_SRC_FD);
	posix_spawn_file_actions_adddup2(&fa, hwfd, HELPER_RESULT_FD);
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	/* The lean helper beside this program, else this program itself. */
	rc = ENOENT;
	{
		char exe[4096], lean[4096 + 32];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

		if (n > 0) {
			exe[n] = '\0';
			if (lean_helper(exe, lean, sizeof lean))
				rc = posix_spawn(&pid, lean, &fa, &attr, argv, environ);
		}
	}
	if (rc != 0)
		rc = ab_spawn_self(&pid, &fa, &attr, argv);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		pid = -1;
out:
	if (hsrc >= 0)
		close(hsrc);
	if (hwfd >= 0)
		close(hwfd);
	return pid;
}

ab_unpack_rc ab_unpack_in_helper(int src, ab_artifact_type type, const char *path,
				 const char *root, const struct ab_unpack_limits *lim,
				 const volatile sig_atomic_t *cancel, char **text, ab_error *err)
{
	int fds[2], status, e;
	pid_t pid, w, self = getpid();
	ab_buf b = {0};
	struct wire hdr;
	ab_unpack_rc rc;

	if (pipe2(fds, O_CLOEXEC) < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot unpack %s into %s: %s"),
			     path, root, strerror(errno));
		return AB_UNPACK_ERROR;
	}
	pid = spawn_helper(src, fds[1], type, path, root, lim);
	if (pid < 0) {
		/* No /proc/self/exe (a chroot without /proc): fork, which
		 * is safe while no other thread runs. */
		pid = fork();
		if (pid == 0) {
			close(fds[0]);
			child(self, fds[1], src, type, path, root, lim);
			_exit(1);	/* not reached */
		}
	}
	if (pid < 0) {
		e = errno;
		close(fds[0]);
		close(fds[1]);
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot unpack %s into %s: %s"),
			     path, root, strerror(e));
		return AB_UNPACK_ERROR;
	}
	close(fds[1]);
	for (;;) {
		char chunk[4096];
		ssize_t n;

		if (cancel) {
			/* Looked at ten times a second; a cancelled unpack
			 * is killed, and its partial root is the caller's. */
			struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
			int ready;

			if (ab_cancelled(cancel)) {
				kill(pid, SIGKILL);
				break;
			}
			/* A signal (the Ctrl-C that sets cancel) is looked at
			 * now, not after a read that waits for the whole unpack. */
			ready = poll(&pfd, 1, 100);
			if (ready == 0 || (ready < 0 && errno == EINTR))
				continue;
		}
		n = read(fds[0], chunk, sizeof chunk);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		ab_buf_append(&b, chunk, (size_t)n);
	}
	close(fds[0]);
	while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (w < 0)
		status = 0;	/* reaped elsewhere: the message is all we have */

	if (ab_cancelled(cancel)) {
		ab_error_set(err, AB_EXIT_ABORTED, _("unpacking %s into %s was cancelled"), path, root);
		rc = AB_UNPACK_ERROR;
	} else if (w > 0 && WIFSIGNALED(status)) {
		ab_error_set(err, AB_EXIT_FAILURE, _("unpacking %s into %s was killed by signal %d"),
			     path, root, WTERMSIG(status));
		rc = AB_UNPACK_ERROR;
	} else if (b.len < sizeof hdr ||
		   (memcpy(&hdr, b.data, sizeof hdr), b.len != sizeof hdr + hdr.len) ||
		   (hdr.rc != AB_UNPACK_OK && hdr.rc != AB_UNPACK_REFUSED &&
		    hdr.rc != AB_UNPACK_ERROR)) {
		ab_error_set(err, AB_EXIT_FAILURE,
			     _("unpacking %s into %s failed without saying why"), path, root);
		rc = AB_UNPACK_ERROR;
	} else {
		rc = (ab_unpack_rc)hdr.rc;
		if (rc == AB_UNPACK_ERROR)
			ab_error_set(err, hdr.code ? hdr.code : AB_EXIT_FAILURE, "%.*s",
				     (int)hdr.len, b.data + sizeof hdr);
		else if (rc == AB_UNPACK_REFUSED)
			*text = ab_xstrndup(b.data + sizeof hdr, hdr.len);
	}
	ab_buf_free(&b);
	return rc;
}
