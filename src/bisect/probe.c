/* probe.c - see probe.h. */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sched.h>
#include <sys/mount.h>
#endif
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "base/escape.h"
#include "base/i18n.h"
#include "index/index.h"
#include "bisect/probe.h"
#include "base/util.h"

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

extern char **environ;

/* Words the shell runs itself: no file is needed for them. */
static int shell_word(const char *w)
{
	static const char *const words[] = {
		"!", ".", ":", "[", "alias", "break", "case", "cd", "command", "continue",
		"echo", "eval", "exec", "exit", "export", "false", "for", "getopts",
		"if", "kill", "printf", "pwd", "read", "readonly", "return", "set",
		"shift", "test", "times", "trap", "true", "type", "ulimit", "umask",
		"unset", "until", "wait", "while", "{", "(",
	};
	size_t i;

	for (i = 0; i < sizeof words / sizeof words[0]; i++)
		if (!strcmp(w, words[i]))
			return 1;
	return 0;
}

/* The command's first word when the command starts with a plain one
 * (no quotes, expansions or assignments), else NULL. Caller frees. */
static char *first_word(const char *command)
{
	const char *p = command, *q;

	while (*p == ' ' || *p == '\t')
		p++;
	for (q = p; *q && *q != ' ' && *q != '\t' && *q != ';' && *q != '&' && *q != '|' &&
		    *q != '\n'; q++)
		if (strchr("'\"\\$`=<>(){}*?[~#", *q))
			return NULL;
	return q > p ? ab_xstrndup(p, (size_t)(q - p)) : NULL;
}

/* Whether name is an executable file in one of $PATH's directories. */
static int on_path(const char *name)
{
	const char *path = getenv("PATH"), *p, *colon;
	int found = 0;

	for (p = path ? path : "/usr/bin:/bin"; !found; p = colon + 1) {
		char *dir, *file;

		colon = strchr(p, ':');
		dir = colon ? ab_xstrndup(p, (size_t)(colon - p)) : ab_xstrdup(p);
		file = ab_path_join(*dir ? dir : ".", name);
		found = access(file, X_OK) == 0;
		free(dir);
		free(file);
		if (!colon)
			break;
	}
	return found;
}

/* A line of a multi-line command (after the first) that starts with a
 * word no shell would run: "--token-file" on the line after "lava-boot
 * --lava URL", when --probe '...' was broken over lines without a
 * backslash. Its number (from 1) and word in *w, or 0. */
static int stray_line(const char *command, char **w)
{
	const char *p = command;
	int line = 1;

	while ((p = strchr(p, '\n'))) {
		int joined = p > command && p[-1] == '\\';	/* sh joins "\<newline>" */

		p++;
		line++;		/* as the user sees the lines */
		if (joined)
			continue;
		*w = first_word(p);
		if (*w && (*w)[0] == '-' && !on_path(*w))
			return line;
		free(*w);
		*w = NULL;
	}
	return 0;
}

/* command with its first word w replaced by the file there, quoted for
 * the /bin/sh that runs the probe (the directory may hold a space), or
 * NULL when there is no such file, or it takes bash's $'...' to say. */
static char *meant_command(const char *command, const char *w, const char *cwd)
{
	char *there, *q, *fixed;

	if (!cwd)
		return NULL;
	there = ab_path_join(cwd, w + 2 * !strncmp(w, "./", 2));
	q = ab_shell_quote(there);
	if (q[0] == '$' || access(there, F_OK) != 0) {
		free(q);
		free(there);
		return NULL;
	}
	free(there);
	fixed = ab_xasprintf("%s%s", q, strstr(command, w) + strlen(w));
	free(q);
	return fixed;
}

int ab_probe_cannot_run(const char *command, const char *root, const char *cwd, int status,
			char **why, char **fixed)
{
	char *w = first_word(command), *file = NULL, *meant, *q;
	const char *what;
	int missing = 1, line;

	*why = NULL;
	if (fixed)
		*fixed = NULL;
	if (status == 127 && (line = stray_line(command, &file))) {
		*why = ab_xasprintf(_("line %d of the command starts with '%s', which the shell "
				      "ran as a command of its own: a line break inside --probe ends "
				      "a command; end the line before it with a backslash, or write "
				      "the command on one line"), line, file);
		free(file);
		free(w);
		return 1;
	}
	if (!w || (status != 126 && status != 127) || shell_word(w) ||
	    (!strchr(w, '/') && on_path(w))) {
		free(w);
		return 0;
	}
	if (strchr(w, '/')) {
		file = w[0] == '/' ? ab_xstrdup(w) : ab_path_join(root, w);
		missing = access(file, F_OK) != 0;
		if (!missing && access(file, X_OK) == 0) {
			free(file);
			free(w);
			return 0;
		}
	}
	what = missing ? _("does not exist") : _("is not executable");
	meant = w[0] != '/' ? meant_command(command, w, cwd) : NULL;
	q = meant ? ab_shell_quote(meant) : NULL;
	/* With the path that was meant, when it is where artbisect started. */
	if (!file && meant)
		*why = ab_xasprintf(_("%s is not a command on $PATH; it is in %s, where artbisect was "
				      "started: give its absolute path, --probe %s"), w, cwd, q);
	else if (!file)
		*why = ab_xasprintf(_("%s is not a command on $PATH"), w);
	else if (meant)
		*why = ab_xasprintf(_("%s %s in the build's root, where the probe runs; it is in %s, "
				      "where artbisect was started: give its absolute path, --probe %s"),
				    w, what, cwd, q);
	else
		*why = ab_xasprintf(_("%s %s"), file, what);
	free(q);
	if (fixed)
		*fixed = meant;
	else
		free(meant);
	free(file);
	free(w);
	return 1;
}

/* The probe's environment, made before fork(): after fork() in a
 * process with threads (prefetch, multisection) the child may only make
 * async-signal-safe calls, and setenv() or malloc() is not one. */
static char **probe_env(const ab_probe_spec *s, const char *token)
{
	static const char *const ours[] = {
		"ARTBISECT_ROOT=", "ARTBISECT_BUILD=", "ARTBISECT_COMMIT=", "ARTBISECT_VERSION=",
		"ARTBISECT_ARTIFACTS=", "ARTBISECT_STEP=", "ARTBISECT_PROBE_ID=",
		"ARTBISECT_ARTIFACT_URLS=", "ARTBISECT_ARTIFACT_SHA256S=", "ARTBISECT_LINKS=",
	};
	ab_buf urls = {0}, shas = {0};
	size_t i, out;
	char **env = ab_env_without(ours, sizeof ours / sizeof ours[0], 10, &out);

	env[out++] = ab_xasprintf("ARTBISECT_ROOT=%s", s->root);
	env[out++] = ab_xasprintf("ARTBISECT_BUILD=%s", s->build_id);
	env[out++] = ab_xasprintf("ARTBISECT_COMMIT=%s", s->commit ? s->commit : "");
	env[out++] = ab_xasprintf("ARTBISECT_VERSION=%s", s->version ? s->version : "");
	env[out++] = ab_xasprintf("ARTBISECT_ARTIFACTS=%s", s->artifacts ? s->artifacts : "");
	env[out++] = ab_xasprintf("ARTBISECT_STEP=%u", s->step);
	/* Where the farm has them, for a lab that downloads what it boots
	 * (and checks the digests). One per line, in ARTBISECT_ARTIFACTS'
	 * order. */
	ab_buf_puts(&urls, "ARTBISECT_ARTIFACT_URLS=");
	ab_buf_puts(&shas, "ARTBISECT_ARTIFACT_SHA256S=");
	for (i = 0; i < s->narts; i++) {
		ab_buf_printf(&urls, "%s%s", i ? "\n" : "", s->arts[i].url);
		ab_buf_printf(&shas, "%s%s", i ? "\n" : "", s->arts[i].sha256);
	}
	env[out++] = ab_buf_steal(&urls);
	env[out++] = ab_buf_steal(&shas);
	if (s->links)
		env[out++] = ab_xasprintf("ARTBISECT_LINKS=%s.links", s->root);
	/* Marks every process of this step, daemons included. */
	env[out++] = ab_xasprintf("ARTBISECT_PROBE_ID=%s", token);
	env[out] = NULL;
	return env;
}

static void env_free(char **env)
{
	size_t i;

	for (i = 0; env[i]; i++)
		free(env[i]);
	free(env);
}

static void say(const char *a, const char *b)
{
	/* write(2) only: this runs in the child between fork and exec. */
	if (write(2, a, strlen(a)) < 0 || write(2, b, strlen(b)) < 0 || write(2, "\n", 1) < 0)
		return;
}

/* In the child, as root: a mount namespace of the probe's own, whose
 * mounts do not reach ours (MS_SLAVE: ours still reach it, as with
 * systemd's PrivateMounts). Whatever the probe mounts, in its root or
 * anywhere, goes when its last process does, timeout or not. Without
 * it (no privilege: then the probe cannot mount in ours either; a
 * kernel without namespaces) the probe runs as before, and the removal
 * of its root, which never leaves the root's mount, is the guard. */
static void private_mounts(void)
{
#ifdef __linux__
	if (geteuid() != 0 || unshare(CLONE_NEWNS) < 0)
		return;
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
		mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
#endif
}

/* In the child: never returns; async-signal-safe calls only. */
static void exec_probe(const ab_probe_spec *s, char **env)
{
	struct sigaction dfl;
	char *argv[4];
	int fd;

	setpgid(0, 0);
	private_mounts();
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGINT, &dfl, NULL);
	sigaction(SIGTERM, &dfl, NULL);
	sigaction(SIGPIPE, &dfl, NULL);
	sigaction(SIGCHLD, &dfl, NULL);
	{
		/* Threads may have blocked signals; the probe gets none blocked. */
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
	}
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
		say("artbisect: cannot enter ", s->root);
		_exit(128);
	}
	argv[0] = (char *)"sh";
	argv[1] = (char *)"-c";
	argv[2] = (char *)s->command;
	argv[3] = NULL;
	execve("/bin/sh", argv, env);
	say("artbisect: cannot run ", "/bin/sh");
	_exit(127);
}

static void nap(void);

/* Whether process pid carries "ARTBISECT_PROBE_ID=token" in its
 * environment (readable for our own processes only, which they are):
 * 1 yes, 0 no, -1 cannot tell yet. A process in the middle of execve
 * shows an empty environment for a moment (its new memory is there,
 * the environment not yet); a kernel thread or a zombie shows one for
 * good, and has no executable. A live process that cleared its whole
 * environment costs each sweep its five rounds (50 ms), nothing more. */
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
	if (off == 0) {
		snprintf(path, sizeof path, "/proc/%s/exe", pid);
		return readlink(path, buf, sizeof buf) > 0 ? -1 : 0;
	}
	buf[off] = '\0';
	for (n = 0; n < off && !found; n += (ssize_t)strlen(buf + n) + 1)
		found = (size_t)(off - n) >= nlen && !memcmp(buf + n, needle, nlen);
	return found;
}

/* Kills what the probe of leader pid left running outside its process
 * group: a daemon that called setsid() keeps the step's token in its
 * environment. A few rounds, for processes forked or in execve while
 * we looked. */
static void sweep(const char *token)
{
	char needle[96];
	size_t nlen;
	int round;

	nlen = (size_t)snprintf(needle, sizeof needle, "ARTBISECT_PROBE_ID=%s", token) + 1;	/* with the NUL */
	for (round = 0; round < 5; round++) {
		DIR *d = opendir("/proc");
		struct dirent *e;
		int again = 0, t;

		if (!d)
			return;
		while ((e = readdir(d))) {
			if (e->d_name[0] < '1' || e->d_name[0] > '9' || atol(e->d_name) == (long)getpid())
				continue;
			t = has_token(e->d_name, needle, nlen);
			if (t > 0)
				kill((pid_t)atol(e->d_name), SIGKILL);
			again |= t != 0;
		}
		closedir(d);
		if (!again)
			return;
		nap();
	}
}

static void nap(void)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	nanosleep(&ts, NULL);
}

/* Whether a process of group pgid is still running. Its zombies do not
 * count: once the leader is gone, the probe's orphans are reaped by
 * init, which may take its time (seconds, on some VMs' inits), and
 * kill(-pgid, 0) finds a zombie as it finds the living. */
static int group_running(pid_t pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int running = 0;

	if (!d)
		return 1;
	while (!running && (e = readdir(d))) {
		char path[300], buf[512], *close_paren, state;
		long pgrp = 0;
		ssize_t n;
		int fd;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		/* "pid (comm) state ppid pgrp ...": comm may hold anything. */
		close_paren = strrchr(buf, ')');
		if (close_paren && sscanf(close_paren + 1, " %c %*d %ld", &state, &pgrp) == 2 &&
		    pgrp == (long)pgid && state != 'Z' && state != 'X')
			running = 1;
	}
	closedir(d);
	return running;
}

/* TERM to the group, KILL after grace (or at once when cancel is set
 * twice: a second Ctrl-C); reaps the leader. The grace is the whole
 * group's: a probe's trap (cancelling a lab job, say) may run on after
 * the shell that leads the group is gone. */
static int stop_group(pid_t pid, double grace, const char *token,
		      const volatile sig_atomic_t *cancel)
{
	double until = ab_now() + grace;
	int ws = 0, reaped = 0;

	kill(-pid, SIGTERM);
	while (ab_now() < until) {
		if (!reaped) {
			pid_t r = waitpid(pid, &ws, WNOHANG);

			if (r == pid || (r < 0 && errno != EINTR))
				reaped = 1;
		}
		/* No process left in the group: done before the grace ends. */
		if (reaped && ((kill(-pid, 0) < 0 && errno == ESRCH) || !group_running(pid)))
			goto done;
		if (ab_cancelled_twice(cancel))
			break;
		nap();
	}
	kill(-pid, SIGKILL);
	while (!reaped && waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
done:
	/* Whatever the probe left behind in its group, or outside it, goes too. */
	kill(-pid, SIGKILL);
	sweep(token);
	return ws;
}

static int probe_run(const ab_probe_spec *s, ab_probe_result *res, ab_error *err);

/* A URL from a probe fit for a report: http(s), printable ASCII with
 * none of the characters that end a link in Markdown or HTML. */
static int link_url_ok(const char *u)
{
	if (strncmp(u, "http://", 7) && strncmp(u, "https://", 8))
		return 0;
	for (; *u; u++)
		if (*u <= ' ' || *u >= 0x7f || strchr("<>\"'`\\()[]{}|^", *u))
			return 0;
	return 1;
}

/* What the probe wrote to its links file: at most 8 "TEXT URL" lines
 * (the URL last), the text made printable; NULL when none. */
static char *read_links(const char *path)
{
	char buf[8192], *line, *save = NULL;
	ab_buf out = {0};
	struct stat st;
	ssize_t n = -1;
	/* The build's programs can write here too: a FIFO or a device put
	 * in the file's place must not block artbisect once the probe is
	 * gone (no --timeout runs then), so nothing but a plain file is read. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY), kept = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		n = read(fd, buf, sizeof buf - 1);
	close(fd);
	unlink(path);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line && kept < 8; line = strtok_r(NULL, "\n", &save)) {
		char *url = strrchr(line, ' '), *p;

		url = url ? url + 1 : line;
		if (!link_url_ok(url))
			continue;
		for (p = line; p < url; p++)
			if ((unsigned char)*p < ' ' || *p == 0x7f)
				*p = ' ';
		ab_buf_printf(&out, "%s%.*s%s%s", kept ? "\n" : "", (int)(url - line > 1 ? url - line - 1 : 0),
			      line, url > line ? " " : "", url);
		kept++;
	}
	return kept ? ab_buf_steal(&out) : (ab_buf_free(&out), NULL);
}

int ab_probe_run(const ab_probe_spec *s, ab_probe_result *res, ab_error *err)
{
	/* Beside the root, not in it: nothing of the build's own. */
	char *path = s->links ? ab_xasprintf("%s.links", s->root) : NULL;
	int rc;

	if (path)
		unlink(path);	/* an earlier run's */
	rc = probe_run(s, res, err);
	if (path)
		res->links = read_links(path);
	free(path);
	return rc;
}

static int probe_run(const ab_probe_spec *s, ab_probe_result *res, ab_error *err)
{
	static unsigned counter;
	double start = ab_now();
	char token[64], **env;
	pid_t pid;
	int ws = 0;

	memset(res, 0, sizeof *res);
	res->status = -1;
	snprintf(token, sizeof token, "%ld-%u", (long)getpid(),
		 __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
	env = probe_env(s, token);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("cannot start the probe: %s"), strerror(errno));
		env_free(env);
		return -1;
	}
	if (pid == 0)
		exec_probe(s, env);
	env_free(env);
	setpgid(pid, pid);	/* either side may win the race; both set it */

	for (;;) {
		pid_t r = waitpid(pid, &ws, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			ab_error_set(err, AB_EXIT_FAILURE, _("lost the probe: %s"), strerror(errno));
			return -1;
		}
		if (ab_cancelled(s->cancel)) {
			stop_group(pid, s->grace, token, s->cancel);
			res->outcome = AB_PROBE_CANCELLED;
			res->seconds = ab_now() - start;
			return 0;
		}
		if (ab_cancelled(s->stop)) {
			stop_group(pid, s->grace, token, s->cancel);
			res->outcome = AB_PROBE_STOPPED;
			res->seconds = ab_now() - start;
			return 0;
		}
		if (s->timeout > 0 && ab_now() - start >= s->timeout) {
			stop_group(pid, s->grace, token, s->cancel);
			res->outcome = AB_PROBE_TIMEOUT;
			res->seconds = ab_now() - start;
			return 0;
		}
		nap();
	}
	/* Daemons the probe forked, in its group or not, do not outlive the step. */
	kill(-pid, SIGKILL);
	sweep(token);
	res->seconds = ab_now() - start;
	res->outcome = ab_probe_outcome_of(ws);
	if (WIFSIGNALED(ws))
		res->signal = WTERMSIG(ws);
	else
		res->status = WEXITSTATUS(ws);
	return 0;
}
