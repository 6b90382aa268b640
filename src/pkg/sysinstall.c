/* sysinstall.c - see sysinstall.h. */
#include "config.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/i18n.h"
#include "base/escape.h"
#include "pkg/deb.h"
#include "pkg/rpmpkg.h"
#include "pkg/sysinstall.h"
#include "base/util.h"

extern char **environ;

char *ab_kernel_release(const ab_build *bd)
{
	static const char *const rpm_names[] = { "kernel-core-", "kernel-" };
	size_t i, k;

	for (i = 0; i < bd->nartifacts; i++) {
		const char *f = bd->artifacts[i].filename;
		size_t n = f ? strlen(f) : 0;

		if (!n)
			continue;
		if (bd->artifacts[i].type == AB_ART_RPM && n > 4 && !strcmp(f + n - 4, ".rpm")) {
			for (k = 0; k < sizeof rpm_names / sizeof rpm_names[0]; k++) {
				size_t p = strlen(rpm_names[k]);
				/* kernel-<digit>: not kernel-modules-..., kernel-devel-... */
				if (!strncmp(f, rpm_names[k], p) && isdigit((unsigned char)f[p]))
					return ab_xstrndup(f + p, n - 4 - p);
			}
		}
		if (bd->artifacts[i].type == AB_ART_DEB && !strncmp(f, "linux-image-", 12) &&
		    isdigit((unsigned char)f[12]))
			return ab_xstrndup(f + 12, strcspn(f + 12, "_"));
	}
	return NULL;
}

/* Runs argv (PATH is searched) and waits; its standard output and error
 * go to a temporary file whose last line becomes *said. The exit status,
 * or -1 when it could not start. */
static int run_tool(char *const argv[], char **said)
{
	char tmpl[] = "/tmp/artbisect-tool.XXXXXX";
	int fd = mkstemp(tmpl), status = -1;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	pid_t pid;

	*said = NULL;
	if (fd < 0)
		return -1;
	unlink(tmpl);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fd, 1);
	posix_spawn_file_actions_adddup2(&fa, fd, 2);
	ab_spawnattr_pipe_default(&attr);
	if (posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ) == 0) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	{
		char buf[4096];
		ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
		char *end, *start;

		if (n > 0) {
			buf[n] = '\0';
			for (end = buf + n; end > buf && isspace((unsigned char)end[-1]); end--)
				;
			*end = '\0';
			start = strrchr(buf, '\n');
			*said = ab_xstrdup(start ? start + 1 : buf);
		}
	}
	close(fd);
	return status;
}

/* Whether a program is on PATH. */
static int have_tool(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL;
	int found = 0;

	if (!path)
		path = "/usr/sbin:/usr/bin:/sbin:/bin";
	copy = ab_xstrdup(path);
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char *p = ab_path_join(*dir ? dir : ".", name);
		found = access(p, X_OK) == 0;
		free(p);
	}
	free(copy);
	return found;
}

static int is_system_root(const char *sysroot)
{
	return !strcmp(sysroot, "/");
}

/* A word of a package's identity (name, epoch, version, release, arch)
 * as rpm and dpkg spell them: it goes into the session, onto dpkg's
 * command line and into erasing, so nothing else passes (no space, no
 * leading '-' that a tool would take for an option). */
static int pkg_word_ok(const char *s, int deb_name)
{
	size_t i;

	if (!s || !*s || (!isalnum((unsigned char)s[0]) && (deb_name || s[0] != '_')))
		return 0;
	for (i = 0; s[i]; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (deb_name ? !(islower(ch) || isdigit(ch) || strchr("+.-", ch))
			     : !(isalnum(ch) || strchr("._+~^-", ch)))
			return 0;
	}
	return deb_name ? i >= 2 : 1;
}

/* What removing one package needs, read off its own header (never the
 * URL's file name, which the farm chooses freely and no signature
 * covers): NAME-[EPOCH:]VERSION-RELEASE.ARCH for an rpm, the exact
 * NEVRA erasing matches; the package name for a .deb. And the uname -r
 * of its kernel when it is one. 0, 1 with *reason, -1 with err. */
static int package_identity(const char *path, ab_artifact_type type, char **word, char **release,
			    char **reason, ab_error *err)
{
	ab_pkg_info info;
	int rc;

	*word = NULL;
	if (type == AB_ART_RPM) {
		ab_rpm_rc r = ab_rpm_read_info(path, &info, reason, err);
		rc = r == AB_RPM_OK ? 0 : r == AB_RPM_REFUSED ? 1 : -1;
	} else {
		ab_deb_rc r = ab_deb_read_info(path, &info, reason, err);
		rc = r == AB_DEB_OK ? 0 : r == AB_DEB_REFUSED ? 1 : -1;
	}
	if (rc != 0)
		return rc;
	if (type == AB_ART_RPM) {
		if (!pkg_word_ok(info.name, 0) || !pkg_word_ok(info.version, 0) ||
		    !pkg_word_ok(info.release, 0) || !pkg_word_ok(info.arch, 0) ||
		    (info.epoch && !pkg_word_ok(info.epoch, 0))) {
			rc = 1;
		} else {
			*word = ab_xasprintf("%s-%s%s%s-%s.%s", info.name, info.epoch ? info.epoch : "",
					     info.epoch ? ":" : "", info.version, info.release, info.arch);
			/* kernel-core, or kernel where there is no -core split */
			if (!*release && (!strcmp(info.name, "kernel-core") || !strcmp(info.name, "kernel")))
				*release = ab_xasprintf("%s-%s.%s", info.version, info.release, info.arch);
		}
	} else if (!pkg_word_ok(info.name, 1)) {
		rc = 1;
	} else {
		static const char *const debs[] = { "linux-image-unsigned-", "linux-image-" };
		size_t k;

		*word = ab_xstrdup(info.name);
		for (k = 0; k < sizeof debs / sizeof debs[0] && !*release; k++) {
			size_t p = strlen(debs[k]);
			if (!strncmp(info.name, debs[k], p) && isdigit((unsigned char)info.name[p]))
				*release = ab_xstrdup(info.name + p);
		}
	}
	if (rc == 1) {
		char *shown = ab_esc_term(info.name ? info.name : "");
		*reason = ab_xasprintf(_("the package in %s calls itself %s: not a package name rpm or dpkg would take"),
				       path, shown);
		free(shown);
	}
	ab_pkg_info_free(&info);
	return rc;
}

int ab_sys_install(const ab_build *bd, const char *const *paths, size_t n, const char *sysroot,
		   const struct ab_rpm_keyring *kr, char **installed, char **release,
		   char **reason, ab_error *err)
{
	const char **rpms = ab_xcalloc(n + 1, sizeof *rpms);
	char **debargv = ab_xcalloc(n + 8, sizeof *debargv);
	size_t i, nrpm = 0, ndeb = 0, a = 0;
	ab_buf names = {0};
	int rc = 0;

	*installed = NULL;
	*release = NULL;
	*reason = NULL;
	debargv[a++] = ab_xstrdup("dpkg");
	if (!is_system_root(sysroot)) {
		/* A scratch system: its own dpkg database, scripts run outside
		 * a chroot (there is no shell inside it). */
		debargv[a++] = ab_xasprintf("--root=%s", sysroot);
		debargv[a++] = ab_xstrdup("--force-script-chrootless");
		debargv[a++] = ab_xstrdup("--force-not-root");
	}
	debargv[a++] = ab_xstrdup("--install");
	debargv[a++] = ab_xstrdup("--");
	for (i = 0; i < n && i < bd->nartifacts && rc == 0; i++) {
		ab_artifact_type type = bd->artifacts[i].type;
		char *word = NULL;

		if (type != AB_ART_RPM && type != AB_ART_DEB)
			continue;
		rc = package_identity(paths[i], type, &word, release, reason, err);
		if (rc != 0)
			break;
		ab_buf_printf(&names, "%s%s", names.len ? " " : "", word);
		free(word);
		if (type == AB_ART_RPM) {
			rpms[nrpm++] = paths[i];
		} else {
			debargv[a++] = ab_xstrdup(paths[i]);
			ndeb++;
		}
	}
	if (rc != 0) {
		/* said in *reason or err */
	} else if (nrpm && ndeb) {
		*reason = ab_xstrdup(_("a build with both RPMs and .debs cannot be installed"));
		rc = 1;
	} else if (nrpm) {
		ab_rpm_rc r = ab_rpm_install(rpms, nrpm, sysroot, kr, reason, err);
		rc = r == AB_RPM_OK ? 0 : r == AB_RPM_REFUSED ? 1 : -1;
	} else if (ndeb) {
		char *said = NULL;
		int st = run_tool(debargv, &said);

		if (st != 0) {
			*reason = ab_xasprintf(_("dpkg failed (status %d): %s"), st, said ? said : "");
			rc = 1;
		}
		free(said);
	} else {
		*reason = ab_xstrdup(_("the build has no RPM or .deb to install"));
		rc = 1;
	}
	if (rc == 0) {
		*installed = ab_buf_steal(&names);
	} else {
		free(*release);
		*release = NULL;
	}
	ab_buf_free(&names);
	for (i = 0; i < a; i++)
		free(debargv[i]);
	free(debargv);
	free(rpms);
	return rc;
}

/* The first word of a small file under sysroot (rel relative to it);
 * NULL when it cannot be read. */
static char *first_word(const char *sysroot, const char *rel)
{
	char *p = ab_path_join(sysroot, rel), *data = NULL;
	size_t len = 0;
	ab_error err = {0};
	int rc = ab_read_file(p, 256, &data, &len, &err);

	free(p);
	if (rc < 0)
		return NULL;
	data[strcspn(data, " \t\r\n")] = '\0';
	return data;
}

static char *machine_id(const char *sysroot)
{
	char *data = first_word(sysroot, "etc/machine-id");

	if (data && !*data) {
		free(data);
		return NULL;
	}
	return data;
}

/* The Boot Loader Specification entry for release: the file name (with
 * .conf) of the first entry in loader/entries whose name ends in
 * "-RELEASE.conf", or machine-id-RELEASE.conf as kernel-install names it. */
static char *bls_entry(const char *sysroot, const char *release)
{
	static const char *const dirs[] = { "boot/loader/entries", "efi/loader/entries",
					    "boot/efi/loader/entries" };
	char *suffix = ab_xasprintf("-%s.conf", release), *mid, *found = NULL;
	size_t i, sl = strlen(suffix);

	for (i = 0; i < sizeof dirs / sizeof dirs[0] && !found; i++) {
		char *d = ab_path_join(sysroot, dirs[i]);
		DIR *dir = opendir(d);
		struct dirent *e;

		while (dir && (e = readdir(dir)) && !found) {
			size_t n = strlen(e->d_name);
			if (n > sl && !strcmp(e->d_name + n - sl, suffix))
				found = ab_xstrdup(e->d_name);
		}
		if (dir)
			closedir(dir);
		free(d);
	}
	if (!found && (mid = machine_id(sysroot))) {
		found = ab_xasprintf("%s-%s.conf", mid, release);
		free(mid);
	}
	free(suffix);
	return found;
}

/* The grub menu path ("Submenu>Entry") of release's normal entry in
 * grub.cfg, as grub-reboot takes it, or NULL. */
static char *grub_menu_path(const char *sysroot, const char *release)
{
	static const char *const cfgs[] = { "boot/grub/grub.cfg", "boot/grub2/grub.cfg" };
	char *want = ab_xasprintf("Linux %s'", release), *result = NULL;
	size_t i;

	for (i = 0; i < sizeof cfgs / sizeof cfgs[0] && !result; i++) {
		char *p = ab_path_join(sysroot, cfgs[i]), *data = NULL, *line, *save = NULL;
		char *submenu = NULL;
		size_t len = 0;
		ab_error err = {0};

		if (ab_read_file(p, 16 << 20, &data, &len, &err) == 0) {
			for (line = strtok_r(data, "\n", &save); line && !result;
			     line = strtok_r(NULL, "\n", &save)) {
				char *s = line + strspn(line, " \t"), *q, *end;
				int is_sub = !strncmp(s, "submenu '", 9), is_entry = !strncmp(s, "menuentry '", 11);

				if (!is_sub && !is_entry) {
					if (*s == '}' && line == s)
						submenu = NULL;	/* a top-level brace closes the submenu */
					continue;
				}
				q = s + (is_sub ? 9 : 11);
				end = strchr(q, '\'');
				if (!end)
					continue;
				if (is_sub) {
					submenu = ab_xstrndup(q, (size_t)(end - q));
					continue;
				}
				if (strstr(s, want) && !strstr(s, "recovery") && !strstr(s, "fallback"))
					result = submenu ? ab_xasprintf("%s>%.*s", submenu, (int)(end - q), q)
						 : ab_xstrndup(q, (size_t)(end - q));
			}
		}
		free(submenu);
		free(data);
		free(p);
	}
	free(want);
	return result;
}

int ab_sys_oneshot(const char *sysroot, const char *release, char **how, ab_error *err)
{
	char *argv[6] = { NULL }, *said = NULL, *entry = NULL;
	int st, a = 0;

	*how = NULL;
	/* bootctl acts on this machine's EFI variables: only for the system
	 * itself, booted with EFI, never for a --system-root. */
	if (is_system_root(sysroot) && access("/sys/firmware/efi", F_OK) == 0 &&
	    have_tool("bootctl") && (entry = bls_entry(sysroot, release))) {
		argv[a++] = (char *)"bootctl";
		argv[a++] = (char *)"set-oneshot";
		argv[a++] = entry;
	} else if (have_tool("grub2-reboot") && (free(entry), entry = bls_entry(sysroot, release))) {
		/* Fedora's grub2 reads BLS entries; their id is the file name
		 * without .conf. */
		size_t n = strlen(entry);
		if (n > 5)
			entry[n - 5] = '\0';
		argv[a++] = (char *)"grub2-reboot";
		if (!is_system_root(sysroot))
			argv[a++] = said = ab_xasprintf("--boot-directory=%s/boot", sysroot);
		argv[a++] = entry;
	} else if (have_tool("grub-reboot") && (free(entry), entry = grub_menu_path(sysroot, release))) {
		argv[a++] = (char *)"grub-reboot";
		if (!is_system_root(sysroot))
			argv[a++] = said = ab_xasprintf("--boot-directory=%s/boot", sysroot);
		argv[a++] = entry;
	} else {
		free(entry);
		*how = ab_xasprintf(_("no boot loader tool found (bootctl, grub2-reboot or grub-reboot): choose the kernel %s at the next boot yourself"),
				    release);
		return 1;
	}
	{
		ab_buf cmd = {0};
		int i;
		char *out = NULL;

		for (i = 0; i < a; i++)
			ab_buf_printf(&cmd, "%s%s", i ? " " : "", argv[i]);
		st = run_tool(argv, &out);
		if (st != 0) {
			ab_error_set(err, AB_EXIT_FAILURE, _("%s failed (status %d): %s"), cmd.data, st,
				     out ? out : "");
			ab_buf_free(&cmd);
			free(out);
			free(said);
			free(entry);
			return -1;
		}
		free(out);
		*how = ab_buf_steal(&cmd);
	}
	free(said);
	free(entry);
	return 0;
}

/* A word of the session's list of packages to remove: what
 * package_identity writes (an rpm NEVRA has ':' after an epoch). */
static int removable_word(const char *w, ab_artifact_type type)
{
	if (type == AB_ART_DEB)
		return pkg_word_ok(w, 1);
	if (!isalnum((unsigned char)w[0]) && w[0] != '_')
		return 0;
	for (; *w; w++)
		if (!isalnum((unsigned char)*w) && !strchr("._+~^:-", *w))
			return 0;
	return 1;
}

int ab_sys_remove(const char *sysroot, ab_artifact_type type, const char *names, ab_error *err)
{
	char *copy = ab_xstrdup(names), *save = NULL, *tok, *why = NULL;
	char **list = NULL;
	size_t n = 0, i;
	int rc = 0;

	for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		/* The session file is ours, but a name that could be an
		 * option is never passed on, whoever wrote it. */
		if (!removable_word(tok, type)) {
			char *shown = ab_esc_term(tok);
			ab_error_set(err, AB_EXIT_FAILURE, _("the session names %s as a package to remove: not a package name"),
				     shown);
			free(shown);
			rc = -1;
			goto out;
		}
		list = ab_xrealloc(list, (n + 1) * sizeof *list);
		list[n++] = tok;
	}
	if (!n)
		goto out;
	if (type == AB_ART_RPM) {
		ab_rpm_rc r = ab_rpm_erase((const char *const *)list, n, sysroot, &why, err);
		if (r == AB_RPM_ERROR)
			rc = -1;
		else if (r == AB_RPM_REFUSED) {
			ab_error_set(err, AB_EXIT_FAILURE, "%s", why);
			rc = -1;
		}
	} else {
		char **argv = ab_xcalloc(n + 7, sizeof *argv), *said = NULL;
		size_t a = 0;
		int st;

		argv[a++] = (char *)"dpkg";
		if (!is_system_root(sysroot)) {
			argv[a++] = why = ab_xasprintf("--root=%s", sysroot);
			argv[a++] = (char *)"--force-script-chrootless";
			argv[a++] = (char *)"--force-not-root";
		}
		argv[a++] = (char *)"--purge";
		argv[a++] = (char *)"--";
		for (i = 0; i < n; i++)
			argv[a++] = list[i];
		st = run_tool(argv, &said);
		if (st != 0) {
			ab_error_set(err, AB_EXIT_FAILURE, _("dpkg failed (status %d): %s"), st,
				     said ? said : "");
			rc = -1;
		}
		free(said);
		free(argv);
	}
out:
	free(why);
	free(list);
	free(copy);
	return rc;
}

char *ab_sys_running_release(const char *sysroot)
{
	struct utsname u;

	/* A scratch system says what "runs" where a real root's kernel
	 * says it: proc/sys/kernel/osrelease. */
	if (!is_system_root(sysroot))
		return first_word(sysroot, "proc/sys/kernel/osrelease");
	return uname(&u) == 0 ? ab_xstrdup(u.release) : NULL;
}

int ab_sys_reboot(ab_error *err)
{
	char *argv[3] = { NULL }, *said = NULL;
	int st;

	argv[0] = (char *)(have_tool("systemctl") ? "systemctl" : "reboot");
	argv[1] = argv[0][0] == 's' ? (char *)"reboot" : NULL;
	st = run_tool(argv, &said);
	if (st != 0) {
		ab_error_set(err, AB_EXIT_FAILURE, _("%s failed (status %d): %s"), argv[0], st,
			     said ? said : "");
		free(said);
		return -1;
	}
	free(said);
	return 0;
}
