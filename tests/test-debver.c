/* test-debver.c - Debian version syntax and ordering: policy's and
 * dpkg's own examples, then random pairs checked against
 * dpkg --compare-versions when dpkg is here. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pkg/debver.h"
#include "tap.h"

struct pair {
	const char *a, *b;
	int want;		/* sign of cmp(a, b) */
};

static const struct pair pairs[] = {
	/* policy 5.6.12 and dpkg's t-version.c */
	{ "1.0~rc1", "1.0", -1 },
	{ "1.0", "1.0+b1", -1 },
	{ "1.0", "1.0-0", 0 },
	{ "1.0", "1.0.0", -1 },
	{ "0", "0", 0 },
	{ "0", "00", 0 },
	{ "1", "2", -1 },
	{ "2", "10", -1 },
	{ "1.2.3", "1.2.10", -1 },
	{ "1.09", "1.9", 0 },
	{ "1:0", "0:1", 1 },
	{ "0:1.0", "1.0", 0 },
	{ "2:1.0", "1:9.9", 1 },
	{ "1:1.0", "1.0", 1 },
	{ "1.0-1", "1.0-2", -1 },
	{ "1.0-1", "1.0-1.1", -1 },
	{ "1.0-1ubuntu1", "1.0-1", 1 },
	{ "1.0-1~bpo1", "1.0-1", -1 },
	{ "1.0-1+deb12u1", "1.0-1", 1 },
	{ "1.0-1+deb12u2", "1.0-1+deb12u10", -1 },
	{ "~~", "~~a", -1 },
	{ "~~a", "~", -1 },
	{ "~", "0", -1 },
	{ "1.0~~", "1.0~", -1 },
	{ "1.0~", "1.0", -1 },
	{ "1.0", "1.0a", -1 },
	{ "1.0a", "1.0+", -1 },
	{ "1.0+", "1.0.", -1 },
	{ "1.0a", "1.0b", -1 },
	{ "1.0Z", "1.0a", -1 },
	{ "a", "b", -1 },
	{ "1.0-a", "1.0-b", -1 },
	{ "1.2-3-4", "1.2-3-5", -1 },
	{ "1.2-3-4", "1.2-3", 1 },
	{ "1:1.2.3~rc1-1", "1:1.2.3-1", -1 },
	{ "2.6.32-5", "2.6.32-48", -1 },
	{ "6.1.0-13-amd64", "6.1.0-9-amd64", 1 },
	{ "1.0+git20240101.3f4d1b5c-1", "1.0+git20240102.0a1b2c3d-1", -1 },
	{ "1.0.9-1", "1.0.10-1", -1 },
	{ "10", "9", 1 },
	{ "1.000001", "1.1", 0 },
	{ "3.0~beta1", "3.0~alpha1", 1 },
	{ "0.9.8", "0.9.8~pre1", 1 },
	{ " 1.0", "1.0 ", 0 },
};

static const char *const invalid[] = {
	"", " ", "1.0 2", "a:1.0", ":1.0", "1:", "1.0-", "1.0_1", "1.0-1_2",
	"99999999999:1", "1.0/2", "-1:2",
};

static int sign(int x)
{
	return x < 0 ? -1 : x > 0;
}

/* A random version from a small alphabet, so that ties and edge cases
 * come up often. */
static void random_version(char *out, size_t cap)
{
	static const char up[] = "0123456789..~+a";
	size_t n = 0, len = 1 + (size_t)(rand() % 6), i;

	if (rand() % 5 == 0)
		n += (size_t)snprintf(out, cap, "%d:", rand() % 3);
	out[n++] = (char)('0' + rand() % 10);
	for (i = 0; i < len && n < cap - 8; i++)
		out[n++] = up[rand() % (sizeof up - 1)];
	if (rand() % 2) {
		out[n++] = '-';
		out[n++] = (char)('0' + rand() % 3);
		if (rand() % 3 == 0)
			out[n++] = '~';
		if (rand() % 3 == 0)
			out[n++] = 'b';
	}
	out[n] = '\0';
}

static int dpkg_says(const char *a, const char *op, const char *b)
{
	char cmd[256];

	snprintf(cmd, sizeof cmd, "dpkg --compare-versions '%s' %s '%s' 2>/dev/null", a, op, b);
	return system(cmd) == 0;
}

int main(void)
{
	size_t i;
	const char *why;
	int agree = 0, checked = 0;

	for (i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		int got = ab_debver_cmp(pairs[i].a, pairs[i].b);
		int back = ab_debver_cmp(pairs[i].b, pairs[i].a);

		tap_ok(sign(got) == pairs[i].want && sign(back) == -pairs[i].want,
		       "'%s' %s '%s'", pairs[i].a,
		       pairs[i].want < 0 ? "<" : pairs[i].want > 0 ? ">" : "==", pairs[i].b);
	}
	for (i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
		why = NULL;
		tap_ok(!ab_debver_valid(invalid[i], &why) && why && *why,
		       "invalid: '%s' (%s)", invalid[i], why ? why : "accepted");
	}
	tap_ok(ab_debver_valid("1:2.30+dfsg-1~deb12u1", &why), "valid: a real Debian version");
	tap_ok(ab_debver_valid("6.1.0-13-amd64", &why), "valid: hyphens in the upstream part");

	if (system("dpkg --version >/dev/null 2>&1") != 0) {
		printf("ok %d # SKIP dpkg is not installed\n", ++tap_n);
		return tap_done();
	}
	srand(20240101);
	for (i = 0; i < 300; i++) {
		char a[64], b[64];
		int ours, theirs;

		random_version(a, sizeof a);
		random_version(b, sizeof b);
		if (!ab_debver_valid(a, NULL) || !ab_debver_valid(b, NULL))
			continue;
		ours = ab_debver_cmp(a, b);
		theirs = dpkg_says(a, "lt", b) ? -1 : dpkg_says(a, "eq", b) ? 0 : 1;
		checked++;
		if (ours == theirs)
			agree++;
		else
			tap_diag("disagree with dpkg on '%s' vs '%s': ours %d, dpkg %d", a, b, ours, theirs);
	}
	tap_ok(checked > 200 && agree == checked,
	       "random pairs: agree with dpkg --compare-versions on %d of %d", agree, checked);
	return tap_done();
}
