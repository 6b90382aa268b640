/* test-escape.c - the escapes of src/base/escape.c, destination by
 * destination: terminal, Markdown, links, shell; and object names. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "base/escape.h"
#include "tap.h"

static char *md(const char *s)
{
	ab_buf b = {0};

	ab_esc_md_to(&b, s);
	return ab_buf_steal(&b);
}

static char *html(const char *s)
{
	ab_buf b = {0};

	ab_buf_puts(&b, "");
	ab_esc_html_to(&b, s);
	return ab_buf_steal(&b);
}

static char *md_url(const char *s)
{
	ab_buf b = {0};

	ab_esc_md_url_to(&b, s);
	return ab_buf_steal(&b);
}

static void check(char *got, const char *want, const char *what)
{
	tap_ok(got && !strcmp(got, want), "%s: %s", what, got ? got : "(null)");
	free(got);
}

int main(void)
{
	/* terminal */
	check(ab_esc_term("plain text, é ✓"), "plain text, é ✓", "term: printable UTF-8 kept");
	check(ab_esc_term("a\x1b[2Jb\x07" "c\rd\ne\tf\x7f"), "a\\x1b[2Jb\\x07c\\rd\\ne\\tf\\x7f",
	      "term: ESC, BEL, CR, LF, TAB, DEL made visible");
	check(ab_esc_term("x\xc2\x9b" "31m"), "x\\u009b31m", "term: C1 CSI (U+009B) made visible");
	check(ab_esc_term("\xc2\xa0nbsp"), "\xc2\xa0nbsp", "term: U+00A0 is no control");
	check(ab_esc_term("bad \x9b \xff \xc3 \xe0\x80\x80 \xed\xa0\x80"),
	      "bad \\x9b \\xff \\xc3 \\xe0\\x80\\x80 \\xed\\xa0\\x80",
	      "term: bytes that are not UTF-8 (stray, overlong, surrogate, cut) as \\xHH");
	{
		char *t = ab_esc_term_lines("line 1\nline\t2\x1b\r");

		tap_ok(!strcmp(t, "line 1\nline\t2\\x1b\\r"), "term, lines kept: \\n and \\t stay, ESC and CR do not");
		free(t);
	}
	tap_ok(ab_esc_term(NULL) == NULL, "term: NULL stays NULL");
	check(ab_esc_term("b0005\xe2\x80\xae 1.0.4 doog\xe2\x80\xac"), "b0005\\u202e 1.0.4 doog\\u202c",
	      "term: a right-to-left override (U+202E) and its end made visible");
	check(ab_esc_term("a\xe2\x81\xa6" "b\xe2\x80\x8f" "c\xd8\x9c" "d\xe2\x80\xa8" "e \xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d"),
	      "a\\u2066b\\u200fc\\u061cd\\u2028e \xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d",
	      "term: an isolate, RLM, ALM and a line separator made visible; Hebrew letters kept");

	/* Markdown */
	check(md("## x\n# y\r<img src=x onerror=alert(1)>&amp;"),
	      "## x # y &lt;img src=x onerror=alert\\(1\\)&gt;&amp;amp;",
	      "md: line breaks are spaces, HTML is text");
	check(md("[x](javascript:alert(1)) ![i](u) `c` *e* _u_ ~s~ a|b \\ $m$"),
	      "\\[x\\]\\(javascript:alert\\(1\\)\\) \\!\\[i\\]\\(u\\) \\`c\\` \\*e\\* \\_u\\_ \\~s\\~ a\\|b \\\\ \\$m\\$",
	      "md: link, image, code, emphasis, table, math characters escaped");
	check(md("v1.0-rc1 #3 é\x1b"), "v1.0-rc1 #3 é\\x1b", "md: ordinary text kept, controls visible");
	check(md("see https://evil.example/x, WWW.evil.example and ftp://h"),
	      "see https\\://evil.example/x, WWW\\.evil.example and ftp\\://h",
	      "md: no autolink: the ':' of '://' and the '.' of 'www.' escaped");
	check(md("admin@evil.example mailto:a@b.example 2024-01-01T07:00:00Z"),
	      "admin<!-- -->@evil.example mailto:a<!-- -->@b.example 2024-01-01T07:00:00Z",
	      "md: no e-mail autolink (an empty comment before '@'); other ':' as they are");
	check(md("1.0.4 \xe2\x80\xae" "doog"), "1.0.4 \\u202edoog", "md: a bidi override made visible");

	/* HTML */
	check(html("<script>alert('x')</script>\"><img onerror=a & b>"),
	      "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&gt;&lt;img onerror=a &amp; b&gt;",
	      "html: & < > \" ' as entities");
	check(html("v1 \x1b[2J\r\n\xc2\x9b é \xff"), "v1 \\x1b[2J\\r\\n\\u009b é \\xff",
	      "html: controls and bytes that are not UTF-8 made visible as on a terminal");
	check(html(""), "", "html: empty stays empty");

	/* links */
	tap_ok(ab_esc_is_web_url("https://git.example.org/x") && ab_esc_is_web_url("HTTP://h/"),
	       "web URL: http and https, any case");
	tap_ok(!ab_esc_is_web_url("javascript:alert(1)") && !ab_esc_is_web_url("file:///etc/passwd") &&
	       !ab_esc_is_web_url("data:text/html,x") && !ab_esc_is_web_url("https://") &&
	       !ab_esc_is_web_url("http:///x") && !ab_esc_is_web_url(" https://h/") &&
	       !ab_esc_is_web_url("https://h/\x1b[2J") && !ab_esc_is_web_url("https://h/\xc2\x9b" "2J") &&
	       !ab_esc_is_web_url("https://h/\x7f"),
	       "web URL: javascript:, file:, data:, no host, leading space, controls refused");
	check(md_url("https://h/log?q=a..b&x=<img src=x>\"`\\\x1b\xc3\xa9"),
	      "<https://h/log?q=a..b&x=%3Cimg%20src=x%3E%22%60%5C%1B%C3%A9>",
	      "md link: an autolink, markup and non-ASCII percent-encoded");

	/* object names */
	tap_ok(ab_is_object_name("3f4d1b5", 7) && ab_is_object_name("3F4D1B5C2A", 10) &&
	       ab_is_object_name("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", 64),
	       "object names: 7 to 64 hex digits, either case");
	tap_ok(!ab_is_object_name("3f4d1b", 6) &&
	       !ab_is_object_name("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0", 65) &&
	       !ab_is_object_name("$(touch x)", 10) && !ab_is_object_name("x; touch y #", 12) &&
	       !ab_is_object_name("-3f4d1b5c", 9) && !ab_is_object_name("3f4d1b5g", 8) &&
	       !ab_is_object_name("v6.8-rc1", 8),
	       "object names: too short, too long, shell, option, not hex refused");

	/* shell */
	check(ab_shell_quote("b0042"), "b0042", "shell: a plain word as it is");
	check(ab_shell_quote(""), "''", "shell: the empty word");
	check(ab_shell_quote("$(touch x); y #'"), "'$(touch x); y #'\\'''", "shell: single quotes");
	check(ab_shell_quote("a\nb\x1b'c\\"), "$'a\\x0ab\\x1b\\'c\\\\'", "shell: controls in $'...'");
	check(ab_shell_quote("a\xc2\x9b" "b\xc2\xa0"), "$'a\\xc2\\x9bb\xc2\xa0'",
	      "shell: a C1 control as its bytes in $'...', U+00A0 as it is");
	check(ab_shell_quote("=ls"), "'=ls'", "shell: a leading '=' quoted (zsh expands =cmd)");
	check(ab_shell_quote("/w d\xc3\xa4"), "'/w d\xc3\xa4'", "shell: UTF-8 as it is in '...'");
	check(ab_shell_quote("/w\xe4l \xc3\xa4"), "$'/w\\xe4l \xc3\xa4'",
	      "shell: a byte that is not UTF-8 as \\xHH in $'...', UTF-8 around it as it is");
	return tap_done();
}
