/* test-index.c - the artifact index (CONTRACT.md section 1): a table of
 * invalid documents, each refused with the place named (line and column
 * for syntax); valid documents (URL resolution, type guessing, failed
 * builds, unknown keys); lookups; compare_url; --index arguments.
 * Big indexes are in test-index-big.c, mutated documents in
 * test-index-mutate.c. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index/index.h"
#include "base/util.h"
#include "index-docs.h"
#include "tap.h"


static ab_index *parse(const char *doc, const char *url, ab_error *err)
{
	ab_error_clear(err);
	return ab_index_parse(doc, strlen(doc), url, err);
}

/* ------------------------------------------------------------------ */

struct bad {
	const char *doc;
	const char *want;	/* a piece of the message: the place */
	const char *url;	/* NULL: HTTP_URL */
};

static const struct bad bad_docs[] = {
	/* not JSON, or not an object */
	{ "", "index.json: the document is empty", NULL },
	{ "\xef\xbb\xbf \r\n\t", "index.json: the document is empty", NULL },
	{ "<html>404</html>", "index.json: invalid JSON at line 1, column 1: invalid token near '<'", NULL },
	{ "[1, 2]", "top level must be a JSON object, found an array", NULL },
	{ "\"artbisect-index\"", "top level must be a JSON object, found a string", NULL },
	{ HEAD "\"builds\":[" BUILD("a") "]", "index.json: invalid JSON at line 1, column ", NULL },
	{ HEAD "\"builds\":[" BUILD("a") "]}\n{}", "index.json: invalid JSON at line 2, column 1: end of file expected", NULL },
	{ HEAD "\n\"builds\":[" BUILD("a") ",\n  ]}", "index.json: invalid JSON at line 3, column 3: unexpected token near ']'", NULL },
	{ HEAD "\"builds\":[" BUILD("a") "] \"x\":1}", "'}' expected", NULL },
	/* the byte order mark is skipped, but counts as a column */
	{ "\xef\xbb\xbf{\"a\":x}", "index.json: invalid JSON at line 1, column 7: invalid token", NULL },
	/* control characters quoted back do not break the line */
	{ "{\"a\":\x01}", "index.json: invalid JSON at line 1, column 6: invalid token near '?'", NULL },
	{ "{\"format\":\"\\u001b[2Ja\\rb\",\"version\":1,\"builds\":[" BUILD("a") "]}", "format: expected \"artbisect-index\", found \"?[2Ja?b\"", NULL },
	/* format and version */
	{ "{\"version\":1,\"builds\":[" BUILD("a") "]}", "index.json: format: missing", NULL },
	{ "{\"format\":\"yum\",\"version\":1,\"builds\":[" BUILD("a") "]}", "index.json: format: expected \"artbisect-index\"", NULL },
	{ "{\"format\":1,\"version\":1,\"builds\":[" BUILD("a") "]}", "index.json: format: expected a string, found a number", NULL },
	{ "{\"format\":\"artbisect-index\",\"builds\":[" BUILD("a") "]}", "index.json: version: missing", NULL },
	{ "{\"format\":\"artbisect-index\",\"version\":\"1\",\"builds\":[" BUILD("a") "]}", "version: expected an integer, found a string", NULL },
	{ "{\"format\":\"artbisect-index\",\"version\":1.0,\"builds\":[" BUILD("a") "]}", "version: expected an integer", NULL },
	{ "{\"format\":\"artbisect-index\",\"version\":2,\"builds\":[" BUILD("a") "]}",
	  "index.json: version: unsupported index version 2; this artbisect reads version 1", NULL },
	/* a version 2 index whose builds come first: still the version message */
	{ "{\"builds\":[{\"nope\":1}],\"format\":\"artbisect-index\",\"version\":2}",
	  "version: unsupported index version 2", NULL },
	{ "{\"builds\":[{\"nope\":1}],\"name\":\"not an index\"}", "format: missing", NULL },
	/* top-level optional fields */
	{ HEAD "\"name\":1,\"builds\":[" BUILD("a") "]}", "index.json: name: expected a string", NULL },
	{ HEAD "\"project\":[],\"builds\":[" BUILD("a") "]}", "index.json: project: expected a string, found an array", NULL },
	{ HEAD "\"arch\":{},\"builds\":[" BUILD("a") "]}", "index.json: arch: expected a string, found an object", NULL },
	{ HEAD "\"vcs\":\"git\",\"builds\":[" BUILD("a") "]}", "index.json: vcs: expected an object", NULL },
	{ HEAD "\"vcs\":{\"type\":\"git\",\"url\":5},\"builds\":[" BUILD("a") "]}", "index.json: vcs.url: expected a string", NULL },
	{ HEAD "\"vcs\":{\"compare_url\":false},\"builds\":[" BUILD("a") "]}", "vcs.compare_url: expected a string, found a boolean", NULL },
	/* builds */
	{ HEAD "\"name\":\"x\"}", "index.json: builds: missing", NULL },
	{ HEAD "\"builds\":{}}", "index.json: builds: expected an array, found an object", NULL },
	{ HEAD "\"builds\":[]}", "index.json: builds: empty", NULL },
	{ HEAD "\"builds\":[" BUILD("a") ",5]}", "index.json: builds[1]: expected an object, found a number", NULL },
	{ HEAD "\"builds\":[{\"artifacts\":[" ART("x.rpm") "]}]}", "index.json: builds[0].id: missing", NULL },
	{ HEAD "\"builds\":[{\"id\":7,\"artifacts\":[" ART("x.rpm") "]}]}", "index.json: builds[0].id: expected a string", NULL },
	{ HEAD "\"builds\":[{\"id\":\"\",\"artifacts\":[" ART("x.rpm") "]}]}", "index.json: builds[0].id: must not be empty", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\\nb\",\"artifacts\":[" ART("x.rpm") "]}]}", "builds[0].id: must not contain control characters", NULL },
	{ HEAD "\"builds\":[" BUILD("a") "," BUILD("b") "," BUILD("a") "]}",
	  "index.json: builds[2].id: duplicate id 'a' (also builds[0])", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"commit\":5,\"artifacts\":[" ART("x.rpm") "]}]}", "builds[0].commit: expected a string", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"date\":true,\"artifacts\":[" ART("x.rpm") "]}]}", "builds[0].date: expected a string, found a boolean", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"version\":null,\"artifacts\":[" ART("x.rpm") "]}]}", "builds[0].version: expected a string, found null", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"status\":\"broken\",\"artifacts\":[" ART("x.rpm") "]}]}", "builds[0].status: expected \"ok\" or \"failed\"", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"status\":0}]}", "builds[0].status: expected a string", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\"}]}", "index.json: builds[0].artifacts: missing", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"status\":\"ok\"}]}", "builds[0].artifacts: missing", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[]}]}", "index.json: builds[0].artifacts: empty", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":{}}]}", "builds[0].artifacts: expected an array", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[\"x.rpm\"]}]}", "index.json: builds[0].artifacts[0]: expected an object, found a string", NULL },
	/* artifacts read after a later "status": "ok" */
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[{\"url\":\"x.rpm\"}],\"status\":\"ok\"}]}", "builds[0].artifacts[0].sha256: missing", NULL },
	/* artifacts */
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[{\"sha256\":\"" SHA_A "\"}]}]}", "index.json: builds[0].artifacts[0].url: missing", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[{\"url\":3,\"sha256\":\"" SHA_A "\"}]}]}", "builds[0].artifacts[0].url: expected a string", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[{\"url\":\"\",\"sha256\":\"" SHA_A "\"}]}]}", "builds[0].artifacts[0].url: must not be empty", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[{\"url\":\"x.rpm\"}]}]}", "index.json: builds[0].artifacts[0].sha256: missing", NULL },
	{ HEAD "\"builds\":[" BUILD("a") ",{\"id\":\"b\",\"artifacts\":[{\"url\":\"x.rpm\",\"sha256\":\"abc\"}]}]}",
	  "index.json: builds[1].artifacts[0].sha256: expected 64 hex digits", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[{\"url\":\"x.rpm\",\"sha256\":\"" "g" SHA_A "\"}]}]}", "builds[0].artifacts[0].sha256: expected 64 hex digits", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[{\"url\":\"x.rpm\",\"sha256\":\"" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaz" "\"}]}]}", "artifacts[0].sha256: expected 64 hex digits", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[{\"url\":\"x.rpm\",\"sha256\":5}]}]}", "artifacts[0].sha256: expected a string", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[{\"url\":\"x.rpm\",\"sha256\":\"" SHA_A "\",\"size\":-1}]}]}", "builds[0].artifacts[0].size: expected a non-negative integer, found -1", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[{\"url\":\"x.rpm\",\"sha256\":\"" SHA_A "\",\"size\":1.5}]}]}", "builds[0].artifacts[0].size: expected a non-negative integer, found a number with a fraction", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[{\"url\":\"x.rpm\",\"sha256\":\"" SHA_A "\",\"size\":1e3}]}]}", "builds[0].artifacts[0].size: expected a non-negative integer", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[{\"url\":\"x.rpm\",\"sha256\":\"" SHA_A "\",\"size\":\"10\"}]}]}", "builds[0].artifacts[0].size: expected a non-negative integer, found a string", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[{\"url\":\"x.rpm\",\"sha256\":\"" SHA_A "\",\"size\":99999999999999999999}]}]}", "index.json: invalid JSON at line 1, column 191: too big integer", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[{\"url\":\"x.rpm\",\"sha256\":\"" SHA_A "\",\"type\":\"exe\"}]}]}", "builds[0].artifacts[0].type: unknown type 'exe'", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[{\"url\":\"x.rpm\",\"sha256\":\"" SHA_A "\",\"type\":\"RPM\"}]}]}", "builds[0].artifacts[0].type: unknown type 'RPM'", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[" ART("x.bin") "]}]}", "index.json: builds[0].artifacts[0].type: cannot guess the type from 'x.bin'", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[" ART("x.cpio") "]}]}", "builds[0].artifacts[0].type: cannot guess", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[" ART("rpms/") "]}]}", "builds[0].artifacts[0].type: cannot guess the type of 'http://h:1/farm/rpms/' (no file name)", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[{\"url\":\"x.rpm\",\"sha256\":\"" SHA_A "\",\"name\":[]}]}]}", "builds[0].artifacts[0].name: expected a string", NULL },
	/* artifact URLs */
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[" ART("ftp://h/x.rpm") "]}]}", "builds[0].artifacts[0].url: unsupported URL scheme 'ftp'", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[" ART("gopher:x.rpm") "]}]}", "builds[0].artifacts[0].url: unsupported URL scheme 'gopher'", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[" ART("file:///etc/x.rpm") "]}]}", "builds[0].artifacts[0].url: 'file:///etc/x.rpm': file:// URLs are not allowed in an index served over http", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[" ART("FILE:///etc/x.rpm") "]}]}", "builds[0].artifacts[0].url: 'FILE:///etc/x.rpm': file:// URLs are not allowed", "https://h/index.json" },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[" ART("http://h:99999/x.rpm") "]}]}", "builds[0].artifacts[0].url: cannot resolve", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[" ART("//other/x.rpm") "]}]}", "builds[0].artifacts[0].url: cannot resolve '//other/x.rpm'", FILE_URL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[" ART("file://other/x.rpm") "]}]}", "builds[0].artifacts[0].url: cannot resolve", FILE_URL },
	/* syntax, named by line and column wherever it is */
	{ HEAD "\"builds\":[{\"id\":\"a\",\"x\":\"\\q\",\"artifacts\":[" ART("x.rpm") "]}]}", "index.json: invalid JSON at line 1, column 67: invalid escape", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\\ud800\",\"artifacts\":[" ART("x.rpm") "]}]}", "index.json: invalid JSON at line 1, column 65: invalid Unicode '\\uD800'", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\\udc00\\ud800\",\"artifacts\":[" ART("x.rpm") "]}]}", "invalid Unicode '\\uDC00'", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\xc3\",\"artifacts\":[" ART("x.rpm") "]}]}", "index.json: invalid JSON at line 1, column 58: unable to decode byte 0xc3", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\xed\xa0\x80\",\"artifacts\":[" ART("x.rpm") "]}]}", "unable to decode byte 0xed", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\xc0\xaf\",\"artifacts\":[" ART("x.rpm") "]}]}", "unable to decode byte 0xc0", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\tb\",\"artifacts\":[" ART("x.rpm") "]}]}", "index.json: invalid JSON at line 1, column 58: control character 0x9", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"x\":[1,2,],\"artifacts\":[" ART("x.rpm") "]}]}", "index.json: invalid JSON at line 1, column 70: unexpected token near ']'", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"x\":01,\"artifacts\":[" ART("x.rpm") "]}]}", "index.json: invalid JSON at line 1, column 65: invalid token near '0'", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"x\":tru,\"artifacts\":[" ART("x.rpm") "]}]}", "invalid token near 'tru'", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"x\":-,\"artifacts\":[" ART("x.rpm") "]}]}", "index.json: invalid JSON at line 1, column 65: invalid token near '-'", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"x\":1.e5,\"artifacts\":[" ART("x.rpm") "]}]}", "invalid token near '1.'", NULL },
	{ HEAD "\"builds\":[{id:\"a\"}]}", "index.json: invalid JSON at line 1, column 53: string or '}' expected near 'id'", NULL },
	{ HEAD "\"builds\":[{\"id\" \"a\"}]}", "index.json: invalid JSON at line 1, column 59: ':' expected", NULL },
	/* what jansson refuses even where artbisect would not look */
	{ HEAD "\"builds\":[{\"id\":\"a\",\"status\":\"failed\",\"artifacts\":[{\"url\":}]}]}", "index.json: invalid JSON at line 1, column 99: unexpected token", NULL },
	{ HEAD "\"x\":1e999,\"builds\":[" BUILD("a") "]}", "index.json: invalid JSON at line 1, column 49: real number overflow near '1e999'", NULL },
	{ HEAD "\"x\":[\"\\u0000\"],\"builds\":[" BUILD("a") "]}", "index.json: invalid JSON at line 1, column 53: \\u0000 is not allowed near", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\\u0000b\",\"artifacts\":[" ART("x.rpm") "]}]}", "invalid JSON at line 1, column 66: \\u0000 is not allowed", NULL },
	/* a key twice in any object, known or not */
	{ "{\"format\":\"artbisect-index\",\"format\":\"artbisect-index\",\"version\":1,\"builds\":[" BUILD("a") "]}",
	  "index.json: invalid JSON at line 1, column 36: duplicate object key near '\"format\"'", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"id\":\"b\",\"artifacts\":[" ART("x.rpm") "]}]}", "duplicate object key near '\"id\"'", NULL },
	{ HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[" ART("x.rpm") ",{\"url\":\"y.rpm\",\"sha256\":\"" SHA_A "\",\"sha256\":\"" SHA_B "\"}]}]}",
	  "duplicate object key near '\"sha256\"'", NULL },
	{ HEAD "\"x\":{\"k\":1,\"k\":1},\"builds\":[" BUILD("a") "]}", "index.json: invalid JSON at line 1, column 54: duplicate object key", NULL },
};

static void test_bad(void)
{
	size_t i;

	for (i = 0; i < sizeof bad_docs / sizeof bad_docs[0]; i++) {
		const struct bad *b = &bad_docs[i];
		ab_error err;
		ab_index *idx = parse(b->doc, b->url ? b->url : HTTP_URL, &err);

		tap_ok(!idx && err.code == AB_EXIT_USAGE && strstr(err.msg, b->want) &&
		       !strncmp(err.msg, "index.json: ", 12) && !strchr(err.msg, '\n'),
		       "bad document %zu refused naming \"%s\"", i, b->want);
		if (idx || !strstr(err.msg, b->want))
			tap_diag("got: %s", idx ? "(accepted)" : err.msg);
		ab_index_free(idx);
	}
}

static void test_deep_nesting(void)
{
	ab_buf b = {0};
	ab_error err;
	ab_index *idx;
	int i;

	ab_buf_puts(&b, HEAD "\"x\":");
	for (i = 0; i < 100000; i++)
		ab_buf_puts(&b, "[");
	idx = parse(b.data, HTTP_URL, &err);
	tap_ok(!idx && err.code == AB_EXIT_USAGE && strstr(err.msg, "index.json: invalid JSON at line 1, column ") &&
	       strstr(err.msg, "maximum parsing depth reached"),
	       "100,000 nested arrays refused without recursing that deep: %s", err.msg);
	ab_index_free(idx);
	ab_buf_free(&b);

	ab_buf_puts(&b, HEAD "\"x\":");
	for (i = 0; i < 100000; i++)
		ab_buf_puts(&b, "{\"a\":");
	idx = parse(b.data, HTTP_URL, &err);
	tap_ok(!idx && err.code == AB_EXIT_USAGE && strstr(err.msg, "maximum parsing depth reached"),
	       "100,000 nested objects refused likewise: %s", err.msg);
	ab_index_free(idx);
	ab_buf_free(&b);

	/* 1,000 levels in an unknown key are fine (jansson's limit is 2048) */
	ab_buf_puts(&b, HEAD "\"x\":");
	for (i = 0; i < 500; i++)
		ab_buf_puts(&b, "{\"a\":[");
	for (i = 0; i < 500; i++)
		ab_buf_puts(&b, "]}");
	ab_buf_puts(&b, ",\"builds\":[" BUILD("a") "]}");
	idx = parse(b.data, HTTP_URL, &err);
	tap_ok(idx != NULL, "1,000 levels of nesting under an unknown key are fine%s%s", idx ? "" : ": ",
	       idx ? "" : err.msg);
	ab_index_free(idx);
	ab_buf_free(&b);
}

static void test_nul_byte(void)
{
	/* a raw NUL byte inside the document (length given by the caller) */
	static const char doc[] = HEAD "\"builds\":[{\"id\":\"a\0b\",\"artifacts\":[" ART("x.rpm") "]}]}";
	ab_error err;
	ab_index *idx = ab_index_parse(doc, sizeof doc - 1, HTTP_URL, &err);

	tap_ok(!idx && err.code == AB_EXIT_USAGE &&
	       strstr(err.msg, "index.json: invalid JSON at line 1, column 58: control character 0x0"),
	       "a raw NUL byte in a string is refused: %s", err.msg);
	ab_index_free(idx);

	/* jansson's message for \u0000 names a flag of its own: not for users */
	idx = parse(HEAD "\"builds\":[{\"id\":\"a\\u0000b\",\"artifacts\":[" ART("x.rpm") "]}]}", HTTP_URL, &err);
	tap_ok(!idx && strstr(err.msg, "\\u0000 is not allowed near '\"a\\u0000b\"'") && !strstr(err.msg, "JSON_"),
	       "\\u0000 refused without jansson's jargon: %s", err.msg);
	ab_index_free(idx);
}

/* ------------------------------------------------------------------ */

static const ab_artifact *art(const ab_index *idx, size_t b, size_t a)
{
	return b < idx->nbuilds && a < idx->builds[b].nartifacts ? &idx->builds[b].artifacts[a] : NULL;
}

static bool art_is(const ab_index *idx, size_t b, size_t a, const char *url, const char *filename,
		   ab_artifact_type type)
{
	const ab_artifact *x = art(idx, b, a);

	if (!x)
		return false;
	if (strcmp(x->url, url) || strcmp(x->filename, filename) || x->type != type) {
		tap_diag("builds[%zu].artifacts[%zu]: url %s filename %s type %s", b, a, x->url,
			 x->filename, ab_artifact_type_name(x->type));
		return false;
	}
	return true;
}

static void test_http_urls(void)
{
	static const char doc[] = HEAD
		"\"name\":\"farm\",\"project\":\"linux\",\"arch\":\"x86_64\","
		"\"vcs\":{\"type\":\"git\",\"url\":\"https://git/x.git\",\"compare_url\":\"https://git/log?q={old}..{new}\"},"
		"\"builds\":[{\"id\":\"a\",\"commit\":\"3f4d1b5c2a\",\"date\":\"2008-06-27\",\"version\":\"2.6.26\",\"artifacts\":["
		ART("rpms/x.rpm") ","
		ART("../x.tar.gz") ","
		ART("https://other/x.zip") ","
		ART("//other/x.deb") ","
		ART("rpms/my file.tgz") ","
		ART("rpms/a%2Fb.rpm") ","
		ART("./rpms/./y.rpm") ","
		ART("rpms/../z.rpm") ","
		"{\"url\":\"dl?id=3\",\"sha256\":\"" SHA_A "\",\"type\":\"file\",\"size\":0,\"name\":\"kernel\"},"
		ART("/abs/p.tar.zst") ","
		ART("caf\\u00e9.rpm") ","
		ART("k+1~x@y,z;a=b.rpm") ","
		ART("csi\\u009b31m.rpm")
		"]}]}";
	ab_error err;
	ab_index *idx = parse(doc, HTTP_URL, &err);

	tap_ok(idx != NULL, "http index parses%s%s", idx ? "" : ": ", idx ? "" : err.msg);
	if (!idx)
		return;
	tap_ok(!strcmp(idx->label, "index.json") && !strcmp(idx->source_url, HTTP_URL),
	       "label index.json, source_url kept");
	tap_ok(!strcmp(idx->name, "farm") && !strcmp(idx->project, "linux") && !strcmp(idx->arch, "x86_64") &&
	       !strcmp(idx->vcs_type, "git") && !strcmp(idx->vcs_url, "https://git/x.git"),
	       "name, project, arch, vcs read");
	tap_ok(!strcmp(idx->builds[0].commit, "3f4d1b5c2a") && !strcmp(idx->builds[0].date, "2008-06-27") &&
	       !strcmp(idx->builds[0].version, "2.6.26") && !idx->builds[0].failed,
	       "build fields read");
	tap_ok(idx->builds[0].nartifacts == 13, "13 artifacts");
	tap_ok(art_is(idx, 0, 0, "http://h:1/farm/rpms/x.rpm", "x.rpm", AB_ART_RPM), "rpms/x.rpm resolves");
	tap_ok(art_is(idx, 0, 1, "http://h:1/x.tar.gz", "x.tar.gz", AB_ART_TAR), "../x.tar.gz resolves");
	tap_ok(art_is(idx, 0, 2, "https://other/x.zip", "x.zip", AB_ART_ZIP), "absolute https URL kept");
	tap_ok(art_is(idx, 0, 3, "http://other/x.deb", "x.deb", AB_ART_DEB), "//other/x.deb goes to another host over http");
	tap_ok(art_is(idx, 0, 4, "http://h:1/farm/rpms/my%20file.tgz", "my file.tgz", AB_ART_TAR),
	       "a space is percent-encoded, the file name decoded");
	tap_ok(art_is(idx, 0, 5, "http://h:1/farm/rpms/a%2Fb.rpm", "a_b.rpm", AB_ART_RPM),
	       "an encoded slash never reaches the file name");
	tap_ok(art_is(idx, 0, 6, "http://h:1/farm/rpms/y.rpm", "y.rpm", AB_ART_RPM), "dot segments removed");
	tap_ok(art_is(idx, 0, 7, "http://h:1/farm/z.rpm", "z.rpm", AB_ART_RPM), "dot-dot segments removed");
	tap_ok(art_is(idx, 0, 8, "http://h:1/farm/dl?id=3", "dl", AB_ART_FILE), "query kept, file name from the path");
	tap_ok(art(idx, 0, 8) && art(idx, 0, 8)->size == 0 && !strcmp(art(idx, 0, 8)->name, "kernel") &&
	       art(idx, 0, 0)->size == -1 && art(idx, 0, 0)->name == NULL,
	       "size 0 and name kept; absent size is -1, absent name NULL");
	tap_ok(art_is(idx, 0, 9, "http://h:1/abs/p.tar.zst", "p.tar.zst", AB_ART_TAR), "absolute path resolves");
	tap_ok(art_is(idx, 0, 10, "http://h:1/farm/caf%c3%a9.rpm", "caf\xc3\xa9.rpm", AB_ART_RPM),
	       "non-ASCII encoded in the URL, decoded in the file name");
	tap_ok(art_is(idx, 0, 11, "http://h:1/farm/k+1~x@y,z;a=b.rpm", "k+1~x@y,z;a=b.rpm", AB_ART_RPM),
	       "sub-delims kept as they are");
	tap_ok(art_is(idx, 0, 12, "http://h:1/farm/csi%c2%9b31m.rpm", "csi__31m.rpm", AB_ART_RPM),
	       "a C1 control (U+009B) never reaches the file name");
	tap_ok(!strcmp(art(idx, 0, 0)->sha256, SHA_A), "sha256 stored");
	ab_index_free(idx);
}

static void test_file_urls(void)
{
	static const char doc[] = HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":["
		ART("x.rpm") ","
		ART("file:///other/y.deb") ","
		ART("file://localhost/l/z.zip") ","
		ART("http://h/w.tar.xz") ","
		ART("sub dir/v.tbz2")
		"]}]}";
	ab_error err;
	ab_index *idx = parse(doc, FILE_URL, &err);

	tap_ok(idx != NULL, "file:// index parses%s%s", idx ? "" : ": ", idx ? "" : err.msg);
	if (!idx)
		return;
	tap_ok(art_is(idx, 0, 0, "file:///srv/farm/x.rpm", "x.rpm", AB_ART_RPM), "relative file URL");
	tap_ok(art_is(idx, 0, 1, "file:///other/y.deb", "y.deb", AB_ART_DEB), "file:// artifact in a file:// index");
	tap_ok(art_is(idx, 0, 2, "file:///l/z.zip", "z.zip", AB_ART_ZIP), "file://localhost/ accepted");
	tap_ok(art_is(idx, 0, 3, "http://h/w.tar.xz", "w.tar.xz", AB_ART_TAR), "http artifact in a file:// index");
	tap_ok(art_is(idx, 0, 4, "file:///srv/farm/sub%20dir/v.tbz2", "v.tbz2", AB_ART_TAR), "space in a directory");
	ab_index_free(idx);

	idx = parse(HEAD "\"builds\":[" BUILD("a") "]}", "file:///srv/farm%20one/my%20index.json", &err);
	tap_ok(idx && !strcmp(idx->label, "my index.json") &&
	       art_is(idx, 0, 0, "file:///srv/farm%20one/x.rpm", "x.rpm", AB_ART_RPM),
	       "encoded index URL: label decoded, relative URL resolved");
	ab_index_free(idx);
}

static void test_types(void)
{
	static const struct {
		const char *name;
		ab_artifact_type type;
	} t[] = {
		{ "a.rpm", AB_ART_RPM }, { "a.deb", AB_ART_DEB }, { "a.udeb", AB_ART_DEB },
		{ "a.tar", AB_ART_TAR }, { "a.tar.gz", AB_ART_TAR }, { "a.tgz", AB_ART_TAR },
		{ "a.tar.xz", AB_ART_TAR }, { "a.txz", AB_ART_TAR }, { "a.tar.zst", AB_ART_TAR },
		{ "a.tzst", AB_ART_TAR }, { "a.tar.bz2", AB_ART_TAR }, { "a.tbz2", AB_ART_TAR },
		{ "a.tar.lz4", AB_ART_TAR }, { "a.zip", AB_ART_ZIP }, { "A.TAR.GZ", AB_ART_TAR },
		{ "a.RPM?x=1", AB_ART_RPM }, { "a.zip#frag", AB_ART_ZIP },
	};
	size_t i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		char *doc = ab_xasprintf(HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[" ART("%s") "]}]}", t[i].name);
		ab_error err;
		ab_index *idx = parse(doc, HTTP_URL, &err);

		tap_ok(idx && art(idx, 0, 0)->type == t[i].type, "type of %s guessed as %s", t[i].name,
		       ab_artifact_type_name(t[i].type));
		ab_index_free(idx);
		free(doc);
	}
	{
		ab_error err;
		ab_index *idx = parse(HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":["
				      "{\"url\":\"x.rpm\",\"sha256\":\"" SHA_A "\",\"type\":\"file\"},"
				      "{\"url\":\"x.bin\",\"sha256\":\"" SHA_A "\",\"type\":\"tar\"}]}]}", HTTP_URL, &err);
		tap_ok(idx && art(idx, 0, 0)->type == AB_ART_FILE && art(idx, 0, 1)->type == AB_ART_TAR,
		       "an explicit type wins over the name");
		ab_index_free(idx);
	}
	tap_ok(!strcmp(ab_artifact_type_name(AB_ART_RPM), "rpm") && !strcmp(ab_artifact_type_name(AB_ART_DEB), "deb") &&
	       !strcmp(ab_artifact_type_name(AB_ART_TAR), "tar") && !strcmp(ab_artifact_type_name(AB_ART_ZIP), "zip") &&
	       !strcmp(ab_artifact_type_name(AB_ART_FILE), "file"), "type names");
}

static void test_valid_misc(void)
{
	ab_error err;
	ab_index *idx;

	/* failed builds, in every order, with or without artifacts */
	idx = parse(HEAD "\"builds\":["
		    "{\"id\":\"f1\",\"status\":\"failed\"},"
		    "{\"id\":\"f2\",\"status\":\"failed\",\"artifacts\":[{\"url\":\"log.txt\"}]},"
		    "{\"id\":\"f3\",\"artifacts\":[{\"url\":5}],\"status\":\"failed\"},"
		    "{\"id\":\"ok1\",\"artifacts\":[" ART("x.rpm") "],\"status\":\"ok\"},"
		    "{\"id\":\"f4\",\"status\":\"failed\",\"artifacts\":[]}"
		    "]}", HTTP_URL, &err);
	tap_ok(idx && idx->nbuilds == 5 && idx->builds[0].failed && idx->builds[1].failed &&
	       idx->builds[2].failed && !idx->builds[3].failed && idx->builds[4].failed &&
	       idx->builds[0].nartifacts == 0 && idx->builds[1].nartifacts == 0 &&
	       idx->builds[2].nartifacts == 0 && idx->builds[3].nartifacts == 1,
	       "failed builds need no artifacts; theirs are not read%s%s", idx ? "" : ": ", idx ? "" : err.msg);
	ab_index_free(idx);

	/* unknown keys everywhere, escaped known keys */
	idx = parse("\xef\xbb\xbf {\"x-future\":{\"a\":[1,2.5e-3,true,false,null,\"\\u00e9\\ud83d\\ude00\"]},"
		    " \"format\" : \"artbisect-index\" , \"version\" : 1 ,\"x-future-2\":0,"
		    "\"vcs\":{\"type\":\"git\",\"mirrors\":[\"a\"]},"
		    "\"builds\":[{\"\\u0069d\":\"a\",\"labels\":{\"k\":\"v\"},\"artifacts\":["
		    "{\"url\":\"x.rpm\",\"sha256\":\"" SHA_A "\",\"signed-by\":\"me\",\"extra\":[{}]}]}],"
		    "\"zzz\":\"\\/ is fine\"}\r\n\t ", HTTP_URL, &err);
	tap_ok(idx && idx->nbuilds == 1 && !strcmp(idx->builds[0].id, "a") && !strcmp(idx->vcs_type, "git"),
	       "unknown keys ignored, BOM and white space accepted, escaped key names understood%s%s",
	       idx ? "" : ": ", idx ? "" : err.msg);
	ab_index_free(idx);

	/* builds before format and version */
	idx = parse("{\"builds\":[" BUILD("a") "],\"version\":1,\"format\":\"artbisect-index\"}", HTTP_URL, &err);
	tap_ok(idx && idx->nbuilds == 1 && idx->builds[0].nartifacts == 1, "builds may come before format and version");
	ab_index_free(idx);

	/* uppercase sha256 stored lowercase; size */
	idx = parse(HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[{\"url\":\"x.rpm\",\"sha256\":"
		    "\"0123456789ABCDEF0123456789abcdef0123456789ABCDEF0123456789ABCDEF\",\"size\":23591021}]}]}",
		    HTTP_URL, &err);
	tap_ok(idx && art(idx, 0, 0) && !strcmp(art(idx, 0, 0)->sha256, SHA_B) && art(idx, 0, 0)->size == 23591021,
	       "uppercase sha256 stored lowercase, size read");
	ab_index_free(idx);

	/* the largest size */
	idx = parse(HEAD "\"builds\":[{\"id\":\"a\",\"artifacts\":[{\"url\":\"x.rpm\",\"sha256\":\"" SHA_A
		    "\",\"size\":9223372036854775807}]}]}", HTTP_URL, &err);
	tap_ok(idx && art(idx, 0, 0) && art(idx, 0, 0)->size == INT64_MAX, "size up to INT64_MAX");
	ab_index_free(idx);

	/* ids with escapes and non-ASCII */
	idx = parse(HEAD "\"builds\":[" BUILD("caf\\u00e9 \\\"1\\\"") ",{\"id\":\"b\",\"commit\":\"\",\"artifacts\":[" ART("x.rpm") "]}]}",
		    HTTP_URL, &err);
	tap_ok(idx && !strcmp(idx->builds[0].id, "caf\xc3\xa9 \"1\"") && idx->builds[1].commit == NULL,
	       "escaped id decoded; an empty commit is no commit");
	if (idx)
		tap_ok(ab_index_find(idx, "caf\xc3\xa9 \"1\"", &err) == 0, "decoded id found");
	ab_index_free(idx);

	/* no source URL */
	idx = ab_index_parse("{}", 2, NULL, &err);
	tap_ok(!idx && err.code == AB_EXIT_USAGE, "no source URL refused: %s", err.msg);
	idx = ab_index_parse("{}", 2, "gopher://h/index.json", &err);
	tap_ok(!idx && err.code == AB_EXIT_USAGE, "unusable source URL refused: %s", err.msg);
}

/* ------------------------------------------------------------------ */

static void test_lookup(void)
{
	static const char doc[] = HEAD
		"\"vcs\":{\"compare_url\":\"https://git/log?qt=range&q={old}..{new}&again={new}\"},"
		"\"builds\":["
		"{\"id\":\"next-1\",\"commit\":\"3f4d1b5c2a00000000000000000000000000aaaa\",\"artifacts\":[" ART("1.rpm") "]},"
		"{\"id\":\"next-2\",\"commit\":\"3F4D1B5C2B00000000000000000000000000bbbb\",\"artifacts\":[" ART("2.rpm") "]},"
		"{\"id\":\"next-3\",\"commit\":\"3f4d1b5c2bff\",\"artifacts\":[" ART("3.rpm") "]},"
		"{\"id\":\"abcdef1\",\"commit\":\"9999999999\",\"artifacts\":[" ART("4.rpm") "]},"
		"{\"id\":\"nocommit\",\"artifacts\":[" ART("5.rpm") "]},"
		"{\"id\":\"dup-a\",\"commit\":\"abcdef123456\",\"artifacts\":[" ART("6.rpm") "]},"
		"{\"id\":\"dup-b\",\"commit\":\"abcdef123456\",\"artifacts\":[" ART("7.rpm") "]},"
		"{\"id\":\"short\",\"commit\":\"12345\",\"artifacts\":[" ART("8.rpm") "]},"
		"{\"id\":\"v 1&2\",\"artifacts\":[" ART("9.rpm") "]}"
		"]}";
	ab_error err;
	ab_index *idx = parse(doc, HTTP_URL, &err);
	char *u;

	tap_ok(idx != NULL, "lookup index parses%s%s", idx ? "" : ": ", idx ? "" : err.msg);
	if (!idx)
		return;
	tap_ok(ab_index_find(idx, "next-1", &err) == 0 && ab_index_find(idx, "next-3", &err) == 2 &&
	       ab_index_find(idx, "v 1&2", &err) == 8, "found by id");
	tap_ok(ab_index_find(idx, "3f4d1b5c2a", &err) == 0, "found by commit prefix");
	tap_ok(ab_index_find(idx, "3f4d1b5c2b0", &err) == 1, "found by commit prefix, case-insensitively");
	tap_ok(ab_index_find(idx, "3F4D1B5C2BF", &err) == 2, "uppercase prefix of a lowercase commit");
	tap_ok(ab_index_find(idx, "3f4d1b5c2bff", &err) == 2, "full commit");
	tap_ok(ab_index_find(idx, "9999999", &err) == 3, "7-character prefix");
	tap_ok(ab_index_find(idx, "abcdef1", &err) == 3, "an id wins over a commit prefix");

	tap_ok(ab_index_find(idx, "3f4d1b5c2b", &err) == -1 && err.code == AB_EXIT_USAGE &&
	       !strcmp(err.msg, "'3f4d1b5c2b' is ambiguous: commits of builds next-2 and next-3 start with it"),
	       "ambiguous prefix: %s", err.msg);
	tap_ok(ab_index_find(idx, "3f4d1b5", &err) == -1 &&
	       strstr(err.msg, "'3f4d1b5' is ambiguous: commits of builds next-1, next-2 and 1 more start with it"),
	       "ambiguous among three: %s", err.msg);
	tap_ok(ab_index_find(idx, "abcdef12", &err) == -1 && strstr(err.msg, "builds dup-a and dup-b"),
	       "two builds of one commit: ambiguous by commit: %s", err.msg);
	tap_ok(ab_index_find(idx, "nope", &err) == -1 && err.code == AB_EXIT_USAGE &&
	       !strcmp(err.msg, "unknown build 'nope' (not an id or commit in index.json)"),
	       "unknown name: %s", err.msg);
	tap_ok(ab_index_find(idx, "nxet-1", &err) == -1 && err.code == AB_EXIT_USAGE &&
	       strstr(err.msg, "; did you mean next-1?"),
	       "a typo (two letters swapped): the nearest id is suggested: %s", err.msg);
	tap_ok(ab_index_find(idx, "next-", &err) == -1 && strstr(err.msg, "did you mean one of next-1, next-2, next-3?"),
	       "several ids as near: three are suggested: %s", err.msg);
	tap_ok(ab_index_find(idx, "xxxxxxxxxx", &err) == -1 && !strstr(err.msg, "did you mean"),
	       "nothing near: no suggestion: %s", err.msg);
	tap_ok(ab_index_find(idx, "3f4d1b", &err) == -1 && err.code == AB_EXIT_USAGE &&
	       strstr(err.msg, "unknown build '3f4d1b'") && strstr(err.msg, "commit prefixes need at least 7 characters"),
	       "short prefix: %s", err.msg);
	tap_ok(ab_index_find(idx, "12345", &err) == -1 && strstr(err.msg, "at least 7 characters"),
	       "a short commit is not found by its short self: %s", err.msg);
	tap_ok(ab_index_find(idx, "3f4d1b5c2a00000000000000000000000000aaaab", &err) == -1 &&
	       strstr(err.msg, "unknown build"), "longer than the commit: unknown");
	tap_ok(ab_index_find(idx, "", &err) == -1 && err.code == AB_EXIT_USAGE, "empty name refused");

	u = ab_index_compare_url(idx, 0, 1);
	tap_ok(u && !strcmp(u, "https://git/log?qt=range&q=3f4d1b5c2a00000000000000000000000000aaaa.."
				"3F4D1B5C2B00000000000000000000000000bbbb&again=3F4D1B5C2B00000000000000000000000000bbbb"),
	       "compare_url with commits: %s", u ? u : "(null)");
	free(u);
	u = ab_index_compare_url(idx, 3, 4);
	tap_ok(u && !strcmp(u, "https://git/log?qt=range&q=9999999999..nocommit&again=nocommit"),
	       "compare_url falls back to the id: %s", u ? u : "(null)");
	free(u);
	u = ab_index_compare_url(idx, 4, 8);
	tap_ok(u && !strcmp(u, "https://git/log?qt=range&q=nocommit..v%201%262&again=v%201%262"),
	       "an id unsafe in a URL is percent-encoded: %s", u ? u : "(null)");
	free(u);
	tap_ok(ab_index_compare_url(idx, 0, 99) == NULL, "compare_url with a position out of range: NULL");
	ab_index_free(idx);

	idx = parse(HEAD "\"vcs\":{\"compare_url\":\"{x}{old}{{new}}{ol\"},\"builds\":[" BUILD("a") "," BUILD("b") "]}",
		    HTTP_URL, &err);
	u = idx ? ab_index_compare_url(idx, 0, 1) : NULL;
	tap_ok(u && !strcmp(u, "{x}a{b}{ol"), "compare_url: other braces left alone: %s", u ? u : "(null)");
	free(u);
	ab_index_free(idx);

	idx = parse(HEAD "\"builds\":[" BUILD("a") "]}", HTTP_URL, &err);
	tap_ok(idx && ab_index_compare_url(idx, 0, 0) == NULL, "no compare_url: NULL");
	ab_index_free(idx);
}

/* An index built by hand, as another module might: find still works. */
static void test_hand_built(void)
{
	ab_index *idx = ab_xcalloc(1, sizeof *idx);
	ab_error err;

	idx->nbuilds = 2;
	idx->builds = ab_xcalloc(2, sizeof *idx->builds);
	idx->builds[0].id = ab_xstrdup("one");
	idx->builds[0].commit = ab_xstrdup("1111111111");
	idx->builds[1].id = ab_xstrdup("two");
	idx->builds[1].commit = ab_xstrdup("2222222222");
	idx->builds[1].nartifacts = 1;
	idx->builds[1].artifacts = ab_xcalloc(1, sizeof(ab_artifact));
	idx->builds[1].artifacts[0].url = ab_xstrdup("http://h/x.rpm");
	idx->builds[1].artifacts[0].filename = ab_xstrdup("x.rpm");
	tap_ok(ab_index_find(idx, "two", &err) == 1 && ab_index_find(idx, "1111111", &err) == 0 &&
	       ab_index_find(idx, "3333333", &err) == -1,
	       "an index without lookup tables is searched linearly");
	ab_index_free(idx);
}

/* ------------------------------------------------------------------ */

static void test_source_url(void)
{
	ab_error err;
	char *u, *cwd = getcwd(NULL, 0), *want;
	bool plain;

	u = ab_index_source_url("http://h:1/farm/index.json", &err);
	tap_ok(u && !strcmp(u, "http://h:1/farm/index.json"), "http URL kept");
	free(u);
	u = ab_index_source_url("HTTPS://h/a b/index.json", &err);
	tap_ok(u && !strcmp(u, "https://h/a%20b/index.json"), "https URL normalized: %s", u ? u : err.msg);
	free(u);
	u = ab_index_source_url("file:///srv/farm/index.json", &err);
	tap_ok(u && !strcmp(u, "file:///srv/farm/index.json"), "file URL kept");
	free(u);
	u = ab_index_source_url("/nonexistent-dir/x/../index.json", &err);
	tap_ok(u && !strcmp(u, "file:///nonexistent-dir/index.json"), "absolute path: %s", u ? u : err.msg);
	free(u);
	u = ab_index_source_url("/tmp/../tmp/idx dir#1/in%dex.json", &err);
	tap_ok(u && !strcmp(u, "file:///tmp/idx%20dir%231/in%25dex.json"), "path characters encoded: %s", u ? u : err.msg);
	free(u);
	u = ab_index_source_url("tests/no-such-index.json", &err);
	want = ab_xasprintf("file://%s/tests/no-such-index.json", cwd);
	/* exactly, unless the working directory holds characters the URL
	 * encodes; then its scheme and its end */
	plain = strspn(cwd, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-~") ==
		strlen(cwd);
	tap_ok(u && (plain ? !strcmp(u, want) :
			     !strncmp(u, "file:///", 8) && strlen(u) >= 33 &&
				     !strcmp(u + strlen(u) - 25, "/tests/no-such-index.json")),
	       "relative path made absolute: %s", u ? u : err.msg);
	if (u && strcmp(u, want))
		tap_diag("(cwd %s has symlinks or odd characters; wanted %s)", cwd, want);
	free(want);
	free(u);
	u = ab_index_source_url("index.json", &err);
	tap_ok(u && !strncmp(u, "file:///", 8) && strstr(u, "/index.json"), "plain name made absolute: %s", u ? u : err.msg);
	free(u);
	u = ab_index_source_url("foo:bar.json", &err);
	tap_ok(u && !strncmp(u, "file:///", 8) && strstr(u, "/foo:bar.json"), "a colon without // is a path: %s", u ? u : err.msg);
	free(u);
	u = ab_index_source_url("ftp://h/index.json", &err);
	tap_ok(!u && err.code == AB_EXIT_USAGE && strstr(err.msg, "'ftp://h/index.json'") && strstr(err.msg, "ftp"),
	       "ftp:// refused naming the argument: %s", err.msg);
	u = ab_index_source_url("s3://bucket/index.json", &err);
	tap_ok(!u && err.code == AB_EXIT_USAGE && strstr(err.msg, "s3://bucket/index.json"), "s3:// refused: %s", err.msg);
	u = ab_index_source_url("http://h:99999/index.json", &err);
	tap_ok(!u && err.code == AB_EXIT_USAGE && strstr(err.msg, "http://h:99999/index.json"), "bad http URL refused: %s", err.msg);
	u = ab_index_source_url("", &err);
	tap_ok(!u && err.code == AB_EXIT_USAGE, "empty argument refused");
	free(cwd);

	u = ab_index_label("http://h/farm/index.json?x=1#y");
	tap_ok(!strcmp(u, "index.json"), "label: last path segment");
	free(u);
	u = ab_index_label("http://h/");
	tap_ok(!strcmp(u, "index"), "label: empty path gives index");
	free(u);
	u = ab_index_label("http://h");
	tap_ok(!strcmp(u, "index"), "label: no path gives index");
	free(u);
	u = ab_index_label("file:///a/my%20index.json");
	tap_ok(!strcmp(u, "my index.json"), "label: percent-decoded");
	free(u);
}

int main(void)
{
	test_bad();
	test_deep_nesting();
	test_nul_byte();
	test_http_urls();
	test_file_urls();
	test_types();
	test_valid_misc();
	test_lookup();
	test_hand_built();
	test_source_url();
	return tap_done();
}
