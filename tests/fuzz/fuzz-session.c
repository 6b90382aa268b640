/* fuzz-session.c - libFuzzer target: the session loaders on any bytes.
 * The input is tried both as WORK/session.json and as a log for
 * `artbisect replay`; each must load or be refused with a reason. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bisect/session.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[64];
	ab_error err = {0};
	ab_session *s;
	char *text, *path;

	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/fuzz-session.XXXXXX");
		if (!mkdtemp(dir))
			abort();
	}
	path = ab_path_join(dir, "session.json");
	if (ab_write_atomic(path, data, size, 0644, &err) < 0)
		abort();
	s = ab_session_load(dir, &err);
	if (s) {
		char *log = ab_session_log(s);
		ab_session *back = ab_session_parse_log(log, "log", &err);

		/* What log writes, replay reads. */
		if (!back)
			abort();
		ab_session_free(back);
		free(log);
		ab_session_free(s);
	} else if (!err.msg[0]) {
		abort();
	}
	free(path);

	text = ab_xstrndup((const char *)data, size);
	memset(&err, 0, sizeof err);
	s = ab_session_parse_log(text, "fuzz.log", &err);
	if (!s && (err.code != 2 || !err.msg[0]))
		abort();
	ab_session_free(s);
	free(text);
	return 0;
}
