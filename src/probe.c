/* probe.c - see probe.h. */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "i18n.h"
#include "probe.h"
#include "util.h"

ab_probe_outcome ab_probe_outcome_of(int wstatus)
{
	int st;

	if (WIFSIGNALED(wstatus))
		return AB_PROBE_ABORT;
	st = WEXITSTATUS(wstatus);
	if (st == 0)
		return AB_PROBE_GOOD;
	if (st == 125)
		return AB_PROBE_SKIP;
	if (st >= 128)
		return AB_PROBE_ABORT;
	return AB_PROBE_BAD;
}

/* In the child: never returns. */
static void exec_probe(const ab_probe_spec *s)
{
	char stepbuf[32];
	int fd;

	setpgid(0, 0);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	/* In its own process group the probe is in the background of the
	 * terminal: reading it would stop the probe, so it reads nothing. */
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0) {
		dup2(fd, 0);
		if (fd > 2)
			close(fd);
	}
	if (s->stdout_to_stderr)
		dup2(2, 1);
	if (chdir(s->root) < 0) {
		fprintf(stderr, "artbisect: %s: %s\n", s->root, strerror(errno));
		_exit(128);
	}
	snprintf(stepbuf, sizeof stepbuf, "%u", s->step);
	{
		/* Marks every process of this step, daemons included. */
		char token[64];
		snprintf(token, sizeof token, "%ld-%ld", (long)getppid(), (long)getpid());
		setenv("ARTBISECT_PROBE_ID", token, 1);
	}
	setenv("ARTBISECT_ROOT", s->root, 1);
	setenv("ARTBISECT_BUILD", s->build_id, 1);
	setenv("ARTBISECT_COMMIT", s->commit ? s->commit : "", 1);
	setenv("ARTBISECT_VERSION", s->version ? s->version : "", 1);
	setenv("ARTBISECT_ARTIFACTS", s->artifacts ? s->artifacts : "", 1);
	setenv("ARTBISECT_STEP", stepbuf, 1);
	execl("/bin/sh", "sh", "-c", s->command, (char *)NULL);
	fprintf(stderr, "artbisect: /bin/sh: %s\n", strerror(errno));
	_exit(127);
}

static void nap(void);

/* Whether process pid carries "ARTBISECT_PROBE_ID=token" in its
 * environment (readable for our own processes only, which they are). */
static int has_token(const char *pid, const char *needle, size_t nlen)
{
	char path[64], buf[65536];
	ssize_t n, off = 0;
	int fd, found = 0;

	snprintf(path, sizeof path, "/proc/%s/environ", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while ((n = read(fd, buf + off, sizeof buf - 1 - (size_t)off)) > 0)
		off += n;
	close(fd);
	buf[off] = '\0';
	for (n = 0; n < off && !found; n += (ssize_t)strlen(buf + n) + 1)
		found = (size_t)(off - n) >= nlen && !memcmp(buf + n, needle, nlen);
	return found;
}

/* Kills what the probe of leader pid left running outside its process
 * group: a daemon that called setsid() keeps the step's token in its
 * environment. A few rounds, for processes forked while we looked. */
static void sweep(pid_t pid)
{
	char needle[96];
	size_t nlen;
	int round;

	nlen = (size_t)snprintf(needle, sizeof needle, "ARTBISECT_PROBE_ID=%ld-%ld",
				(long)getpid(), (long)pid) + 1;	/* with the NUL */
	for (round = 0; round < 5; round++) {
		DIR *d = opendir("/proc");
		struct dirent *e;
		int killed = 0;

		if (!d)
			return;
		while ((e = readdir(d))) {
			if (e->d_name[0] < '1' || e->d_name[0] > '9' || atol(e->d_name) == (long)getpid())
				continue;
			if (has_token(e->d_name, needle, nlen)) {
				kill((pid_t)atol(e->d_name), SIGKILL);
				killed++;
			}
		}
		closedir(d);
		if (!killed)
			return;
		nap();
	}
}

static void nap(void)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	nanosleep(&ts, NULL);
}

/* TERM to the group, KILL after grace; reaps the leader. */
static int stop_group(pid_t pid, double grace)
{
	double until = ab_now() + grace;
	int ws = 0;

	kill(-pid, SIGTERM);
	while (ab_now() < until) {
		pid_t r = waitpid(pid, &ws, WNOHANG);
		if (r == pid)
			goto reaped;
		if (r < 0 && errno != EINTR)
			return 0;
		nap();
	}
	kill(-pid, SIGKILL);
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
reaped:
	/* Whatever the probe left behind in its group, or outside it, goes too. */
	kill(-pid, SIGKILL);
	sweep(pid);
	return ws;
}

int ab_probe_run(const ab_probe_spec *s, ab_probe_result *res, ab_error *err)
{
	double start = ab_now();
	pid_t pid;
	int ws = 0;

	memset(res, 0, sizeof *res);
	res->status = -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot start the probe: %s"), strerror(errno));
		return -1;
	}
	if (pid == 0)
		exec_probe(s);
	setpgid(pid, pid);	/* either side may win the race; both set it */

	for (;;) {
		pid_t r = waitpid(pid, &ws, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			ab_error_set(err, AB_EXIT_FAILURE, _("lost the probe: %s"), strerror(errno));
			return -1;
		}
		if (s->cancel && *s->cancel) {
			stop_group(pid, s->grace);
			res->outcome = AB_PROBE_CANCELLED;
			res->seconds = ab_now() - start;
			return 0;
		}
		if (s->stop && *s->stop) {
			stop_group(pid, s->grace);
			res->outcome = AB_PROBE_STOPPED;
			res->seconds = ab_now() - start;
			return 0;
		}
		if (s->timeout > 0 && ab_now() - start >= s->timeout) {
			stop_group(pid, s->grace);
			res->outcome = AB_PROBE_TIMEOUT;
			res->seconds = ab_now() - start;
			return 0;
		}
		nap();
	}
	/* Daemons the probe forked, in its group or not, do not outlive the step. */
	kill(-pid, SIGKILL);
	sweep(pid);
	res->seconds = ab_now() - start;
	res->outcome = ab_probe_outcome_of(ws);
	if (WIFSIGNALED(ws))
		res->signal = WTERMSIG(ws);
	else
		res->status = WEXITSTATUS(ws);
	return 0;
}
