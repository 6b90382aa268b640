/* sysinstall.c - see sysinstall.h. */
#include "config.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/i18n.h"
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
	pid_t pid;

	*said = NULL;
	if (fd < 0)
		return -1;
	unlink(tmpl);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fd, 1);
	posix_spawn_file_actions_adddup2(&fa, fd, 2);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) == 0) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	posix_spawn_file_actions_destroy(&fa);
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

int ab_sys_install(const ab_build *bd, const char *const *paths, size_t n, const char *sysroot,
		   const struct ab_rpm_keyring *kr, char **installed, char **reason, ab_error *err)
{
	const char **rpms = ab_xcalloc(n + 1, sizeof *rpms);
	char **debargv = ab_xcalloc(n + 8, sizeof *debargv);
	size_t i, nrpm = 0, ndeb = 0, a = 0;
	ab_buf names = {0};
	int rc = 0;

	*installed = NULL;
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
	for (i = 0; i < n && i < bd->nartifacts; i++) {
		const char *f = bd->artifacts[i].filename;
		size_t len = strlen(f);

		if (bd->artifacts[i].type == AB_ART_RPM) {
			/* NAME-VERSION-RELEASE.ARCH.rpm -> NAME-VERSION-RELEASE, an
			 * rpm label that erasing finds again. */
			const char *dot = len > 4 ? memrchr(f, '.', len - 4) : NULL;

			rpms[nrpm++] = paths[i];
			ab_buf_printf(&names, "%s%.*s", names.len ? " " : "",
				      (int)(dot ? (size_t)(dot - f) : len - 4), f);
		} else if (bd->artifacts[i].type == AB_ART_DEB) {
			debargv[a++] = ab_xstrdup(paths[i]);
			ndeb++;
			ab_buf_printf(&names, "%s%.*s", names.len ? " " : "", (int)strcspn(f, "_"), f);
		}
	}
	if (nrpm && ndeb) {
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
	if (rc == 0)
		*installed = ab_buf_steal(&names);
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

int ab_sys_remove(const char *sysroot, ab_artifact_type type, const char *names, ab_error *err)
{
	char *copy = ab_xstrdup(names), *save = NULL, *tok, *why = NULL;
	char **list = NULL;
	size_t n = 0, i;
	int rc = 0;

	for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
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
		char **argv = ab_xcalloc(n + 6, sizeof *argv), *said = NULL;
		size_t a = 0;
		int st;

		argv[a++] = (char *)"dpkg";
		if (!is_system_root(sysroot)) {
			argv[a++] = why = ab_xasprintf("--root=%s", sysroot);
			argv[a++] = (char *)"--force-script-chrootless";
			argv[a++] = (char *)"--force-not-root";
		}
		argv[a++] = (char *)"--purge";
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
