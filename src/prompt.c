/* prompt.c - see prompt.h. */
#include "config.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "i18n.h"
#include "progress.h"
#include "prompt.h"

int ab_prompt_possible(void)
{
	return isatty(STDIN_FILENO);
}

/* A shell inside the scratch root, for looking around before answering. */
static void run_shell(const char *root)
{
	const char *sh = getenv("SHELL");
	pid_t pid;

	if (!sh || !*sh)
		sh = "/bin/sh";
	fprintf(stderr, _("Starting %s in %s; exit it to come back here.\n"), sh, root);
	pid = fork();
	if (pid == 0) {
		if (chdir(root) < 0)
			_exit(127);
		execl(sh, sh, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0)
			;
}

ab_answer ab_prompt_ask(void *ud, const ab_bisect *b, size_t idx, const char *root)
{
	ab_progress *p = ud;
	const ab_build *bd = &b->index->builds[idx];
	char line[256];

	ab_progress_flush(p);
	fprintf(stderr, _("Build %s is ready in %s\n"), bd->id, root);
	for (;;) {
		char *s;

		fprintf(stderr, _("Is %s good or bad? [g]ood [b]ad [s]kip s[h]ell [q]uit: "), bd->id);
		fflush(stderr);
		if (!fgets(line, sizeof line, stdin))
			return AB_ANSWER_QUIT;
		for (s = line; isspace((unsigned char)*s); s++)
			;
		s[strcspn(s, " \t\r\n")] = '\0';
		if (!strcmp(s, "g") || !strcmp(s, "good"))
			return AB_ANSWER_GOOD;
		if (!strcmp(s, "b") || !strcmp(s, "bad"))
			return AB_ANSWER_BAD;
		if (!strcmp(s, "s") || !strcmp(s, "skip"))
			return AB_ANSWER_SKIP;
		if (!strcmp(s, "q") || !strcmp(s, "quit"))
			return AB_ANSWER_QUIT;
		if (!strcmp(s, "h") || !strcmp(s, "shell")) {
			run_shell(root);
			continue;
		}
		fprintf(stderr, _("Please answer g, b, s, h or q.\n"));
	}
}
