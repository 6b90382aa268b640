/* wordfreq: counts the words on standard input, most frequent first.
 *
 * The demo builds this file 40 times with -DBUILD_NUMBER=0..39. From build
 * REGRESSION_AT on, an "optimization" drops the case folding, so "The" and
 * "the" are counted as two different words: the regression to find. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef BUILD_NUMBER
#define BUILD_NUMBER 0
#endif
#ifndef REGRESSION_AT
#define REGRESSION_AT 27
#endif

#define MAXWORDS 4096
#define MAXLEN 64

struct word { char text[MAXLEN]; int count; };
static struct word words[MAXWORDS];
static int nwords;

static void add(const char *w)
{
	for (int i = 0; i < nwords; i++)
		if (strcmp(words[i].text, w) == 0) {
			words[i].count++;
			return;
		}
	if (nwords < MAXWORDS) {
		strcpy(words[nwords].text, w);
		words[nwords++].count = 1;
	}
}

static int by_count(const void *a, const void *b)
{
	const struct word *x = a, *y = b;
	if (x->count != y->count)
		return y->count - x->count;
	return strcmp(x->text, y->text);
}

int main(int argc, char **argv)
{
	char buf[MAXLEN];
	int len = 0, c;

	if (argc > 1 && strcmp(argv[1], "--version") == 0) {
		printf("wordfreq 1.%d\n", BUILD_NUMBER);
		return 0;
	}
	while ((c = getchar()) != EOF) {
		if (isalnum(c) && len < MAXLEN - 1) {
#if BUILD_NUMBER >= REGRESSION_AT
			buf[len++] = (char)c; /* faster: no tolower() */
#else
			buf[len++] = (char)tolower(c);
#endif
		} else if (len > 0) {
			buf[len] = '\0';
			add(buf);
			len = 0;
		}
	}
	if (len > 0) {
		buf[len] = '\0';
		add(buf);
	}
	qsort(words, nwords, sizeof words[0], by_count);
	for (int i = 0; i < nwords; i++)
		printf("%d %s\n", words[i].count, words[i].text);
	return 0;
}
