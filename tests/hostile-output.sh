#!/bin/bash
# What an index says, on its way out (issue 21, items 7, 8, 9 and 13):
# control characters never reach the terminal or a report raw, the
# Markdown report cannot be given headings, HTML or javascript: links,
# the git commands the reports print run nothing else when pasted, and
# every command `artbisect log` prints works when run by sh, ids that
# start with '-' included.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"
need_cmd git

# Any ESC, BEL, CR or other C0 control byte but \n and \t in FILE.
has_control() { LC_ALL=C grep -q "$(printf '[\001-\010\013\014\016-\037\177]')" "$@"; }

# A real history: commit i >= 5 is broken; test.sh says so.
repo="$T/repo"
broken_history "$repo"
mkfarm --from-git "$repo" --out "$T/farm"

# hostile FARM KIND: the index's strings made hostile. KIND "commits"
# also gives the last good and first bad builds commits that are shell
# commands; "ids" gives builds 3 and 6 ids that start with '-'.
hostile() {
	"$PYTHON3" - "$1/index.json" "$T" "$2" <<'EOF'
import json, sys
path, t, kind = sys.argv[1:]
d = json.load(open(path))
ctl = "\x1b]0;owned\x07\x1b[2J\r\x9b31m"
html = "<img src=x onerror=alert(1)> [x](javascript:alert(1))"
# Text that GitHub's Markdown makes links of by itself, and a
# right-to-left override that would show "doog si ti" as "it is good".
bait = (" https://evil.example/x www.evil.example admin@evil.example mailto:a@evil.example"
        " xmpp:e@evil.example/res \u202edoog si ti\u202c")
d["name"] = "Evil" + ctl + "\n## Injected heading\n" + html
d["project"] = "linux"
d["vcs"] = {"type": "git", "url": "https://git.example.org/x.git\x1b[31m " + html,
            "compare_url": "javascript:alert(1)//{old}..{new}"}
for i, b in enumerate(d["builds"]):
    b["version"] = "1.0.%d%s\n# heading %s%s" % (i, ctl, html, bait)
    b["date"] = "2024\x07-01\r" + html
if kind == "commits":
    d["builds"][4]["commit"] = "$(touch %s/pwned)" % t
    d["builds"][5]["commit"] = "x; touch %s/pwned2 #" % t
if kind == "ids":
    d["builds"][3]["id"] = "-x"
    d["builds"][6]["id"] = "--help"
json.dump(d, open(path, "w"))
EOF
}

cp -r "$T/farm" "$T/farm2"
cp -r "$T/farm" "$T/farm3"
hostile "$T/farm" strings
hostile "$T/farm2" commits
hostile "$T/farm3" ids
start_server "$T"
ab() { "$ARTBISECT" --cache-dir "$T/cache" "$@"; }

# Runs every line of FILE that starts (after blanks) with "git ", in the
# real repository, through sh; prints how many ran, fails if one failed.
run_git_lines() {
	local n=0 rc=0 line
	while IFS= read -r line; do
		line="${line#"${line%%[! ]*}"}"
		case "$line" in
		git\ *) n=$((n + 1))
			(cd "$repo" && sh -c "$line" >/dev/null 2>&1) || rc=1
			(cd "$repo" && git bisect reset >/dev/null 2>&1) ;;
		esac
	done < "$1"
	echo "$n"
	return $rc
}

# --- item 7: the terminal and the text report ----------------------------
run ab --index "$BASE/farm/index.json" --probe 'sh ./test.sh' --work-dir "$T/w1" \
	--report "$T/r1.md"
is "$RC" 0 "hostile strings: the bisection still finds the change"
like "$OUT" "The first bad build is $(git -C "$repo" rev-parse --short=12 main~2)" "the first bad build is commit 5"
has_control "$T/run.out"; none_found $? "no raw control character on standard output"
has_control "$T/run.err"; none_found $? "no raw control character on standard error"
has_control "$T/r1.md"; none_found $? "no raw control character in the Markdown report"
LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$T/run.out" "$T/run.err" "$T/r1.md"
none_found $? "no raw C1 control (U+009B CSI) in the output or the report"
like "$OUT" 'version: +1\.0\.5\\x1b\]0;owned\\x07\\x1b\[2J\\r\\u009b31m\\n# heading' \
	"the text report shows a version's controls as \\x1b, \\x07, \\r, \\u009b, \\n"
run ab --work-dir "$T/w1" status
has_control "$T/run.out" "$T/run.err"; none_found $? "status: no raw control character"
run ab --index "$BASE/farm/index.json" --probe 'sh ./test.sh' --work-dir "$T/w1b" --json
has_control "$T/run.out" "$T/run.err"; none_found $? "--json: no raw control character"
is "$(json_get "$T/run.out" compare_url)" null "--json: a javascript: compare_url is left out"

# The prompt on a pseudo-terminal: the build being asked about has a
# version with a C1 control (U+009B, CSI to some terminals; ids may not
# hold one) and an OSC sequence; list shows the builds. Colors off: what
# is left of ESC, BEL or C1 in the transcript came from the index.
mkfarm --out "$T/farm4" --builds 8 --culprit 5
"$PYTHON3" - "$T/farm4/index.json" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
for i, b in enumerate(d["builds"]):
    b["version"] = "1.0.%d\u009b31m\x1b]0;owned\x07" % i
json.dump(d, open(sys.argv[1], "w"))
EOF2
NO_COLOR=1 "$PYTHON3" "$TESTS_SRCDIR/person.py" '[["good or bad\\?[^\\n]*: $", "l\n"], ["good or bad\\?[^\\n]*: $", "q\n"]]' \
	"$ARTBISECT" --index "$BASE/farm4/index.json" --cache-dir "$T/cache" --work-dir "$T/w4" > "$T/pty.out"
like "$(cat "$T/pty.out")" 'Testing b[0-9]{4} \[1\.0\.[0-9]\\u009b31m\\x1b\]0;owned\\x07\]' \
	"prompt: the version is shown with its C1 and OSC controls escaped"
like "$(cat "$T/pty.out")" 'b0000 +last good' "prompt: list shows the builds"
[ -s "$T/pty.out" ] && ! LC_ALL=C grep -q "$(printf '\033]\\|\007\\|\302\233')" "$T/pty.out"
tap_ok $? "prompt: no raw ESC ], BEL or C1 from the index on the terminal"

run ab --index "$BASE/farm4/index.json" --probe ./usr/bin/app --work-dir "$T/w4b" --json
LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$T/run.out"
none_found $? "--json: no raw C1 control on standard output"
is "$(json_get "$T/run.out" first_new.id)" b0005 "--json: hostile versions do not change the answer"
grep -q "$(printf '\342\200\256')" "$T/run.out" "$T/run.err" "$T/r1.md"
none_found $? "no raw right-to-left override (U+202E) in the output or the report"
like "$(cat "$T/r1.md")" '\\u202edoog si ti\\u202c' "the report shows it as \\u202e"

# --- item 8: the Markdown report ------------------------------------------
md="$T/r1.md"
is "$(grep -c '^#' "$md")" 3 "the Markdown report has its own heading lines and regzbot's, no others"
title=$(head -n 1 "$md")
like "$title" '^## Evil\\x1b' "the title starts with the name, its ESC shown as \\x1b"
like "$title" ' ## Injected heading &lt;img src=x onerror=alert' "the name's line breaks are spaces in the title, its HTML entities"
like "$title" ': regression in build [0-9a-f]{12}$' "the title ends on its own line"
grep -q '<img' "$md"; none_found $? "no raw <img in the Markdown report"
# Rendered as GitHub renders it (cmark-gfm with its autolink extension):
# no link at all, since the report's only link (compare_url) is dropped.
if command -v cmark-gfm >/dev/null 2>&1; then
	cmark-gfm --unsafe -e autolink -e table -e strikethrough "$md" > "$T/r1.html"
	like "$(cat "$T/r1.html")" 'https://evil\.example/x www\.evil\.example admin<!-- -->@evil\.example' \
		"cmark-gfm renders the farm's addresses as text"
	is "$(grep -o '<a [^>]*>' "$T/r1.html" | sort -u | tr '\n' ' ')" "" \
		"and makes no link of any (no https://, www., e-mail, mailto: or xmpp: autolink)"
else
	skip "the Markdown report rendered as GitHub does" "cmark-gfm is not installed (apt-get install cmark-gfm)"
	skip "no autolink in it" "cmark-gfm is not installed"
fi
grep -Eq '\]\(javascript:|<javascript:' "$md"; none_found $? "no javascript: link in the Markdown report"
grep -q 'Changes between them' "$md"; none_found $? "a javascript: compare_url is not in the report"
like "$(grep '^| last good | ' "$md")" ' \| [0-9a-f]{40} \| 2024.* \|$' "the last good build's table row ends as a row"
like "$(grep -A1 '^| last good | ' "$md" | tail -n 1)" '^\| first bad \| ' "the next line is the first bad build's row"

# The same with an http compare_url that carries markup: a link to it
# whose text cannot close the link or open HTML.
"$PYTHON3" - "$T/farm/index.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["vcs"]["compare_url"] = "https://git.example.org/log?q={old}..{new}&x=<img src=x onerror=alert(1)>`"
json.dump(d, open(sys.argv[1], "w"))
EOF
run ab --index "$BASE/farm/index.json" --probe 'sh ./test.sh' --work-dir "$T/w1c" --report "$T/r1c.md"
like "$(cat "$T/r1c.md")" 'Changes between them: <https://git\.example\.org/log\?q=[0-9a-f]{40}\.\.[0-9a-f]{40}&x=%3Cimg%20src=x%20onerror=alert\(1\)%3E%60>' \
	"an http compare_url is an autolink, its markup percent-encoded"
grep -q '<img' "$T/r1c.md"; none_found $? "no raw <img from the compare_url"

# --- item 9: the git commands ----------------------------------------------
n=$(run_git_lines "$T/run.out"); rc=$?
is "$n/$rc" "2/0" "the text report's two git commands run as printed in the real repository"
n=$(run_git_lines "$T/r1c.md"); rc=$?
is "$n/$rc" "2/0" "the Markdown report's two git commands run as printed"

run ab --index "$BASE/farm2/index.json" --probe 'sh ./test.sh' --work-dir "$T/w2" --report "$T/r2.md"
is "$RC" 0 "commits that are shell commands: the bisection still runs"
like "$ERR" 'index\.json: builds\[4\]\.commit \(build [0-9a-f]{12}\) is not a git object name \(7 to 64 hexadecimal digits\); it and 1 other commit like it are ignored' \
	"a warning names the first commit dropped and counts the others"
n=$(run_git_lines "$T/run.out"); m=$(run_git_lines "$T/r2.md")
is "$n/$m" 0/0 "the reports print no git command for the dropped commits"
test ! -e "$T/pwned" -a ! -e "$T/pwned2"; tap_ok $? "and nothing of them ran"
grep -q 'touch' "$T/run.out" "$T/r2.md"; none_found $? "no report quotes the hostile commits"
run ab --index "$BASE/farm2/index.json" --probe 'sh ./test.sh' --work-dir "$T/w2b" --json
is "$(json_get "$T/run.out" first_new.commit)" null "--json: a dropped commit is null"

# --- item 13: log, pasted into sh ------------------------------------------
W="$T/w3"
mkdir -p "$T/bin"
cat > "$T/bin/artbisect" <<EOF
#!/bin/sh
exec "$ARTBISECT" --work-dir "$W" --cache-dir "$T/cache" "\$@"
EOF
chmod +x "$T/bin/artbisect"
run "$T/bin/artbisect" start --index "$BASE/farm3/index.json"
is "$RC" 0 "ids that start with '-': start"
run "$T/bin/artbisect" bad -- --help
is "$RC/$(grep -c Usage "$T/run.out")" "0/0" "bad -- --help records a verdict on build --help"
run "$T/bin/artbisect" good -- -x
is "$RC" 0 "good -- -x records a verdict on build -x"
"$T/bin/artbisect" log > "$T/session.log"
"$T/bin/artbisect" status --json > "$T/status1.json"
like "$(cat "$T/session.log")" '^artbisect bad -- --help ' "log: '--' before an id"
like "$(cat "$T/session.log")" '^artbisect good -- -x ' "log: '--' before every id"
"$T/bin/artbisect" reset > /dev/null
(cd "$T" && PATH="$T/bin:$PATH" sh -e "$T/session.log" > "$T/sh.out" 2>&1)
is "$?" 0 "the log run by sh: every line works"
grep -q Usage "$T/sh.out"; none_found $? "the log run by sh: no id taken for an option"
"$T/bin/artbisect" status --json > "$T/status2.json"
is "$(json_get "$T/status2.json" steps | "$PYTHON3" -c 'import json,sys; print([s["id"] + ":" + s["verdict"] for s in json.load(sys.stdin)])')" \
	"$(json_get "$T/status1.json" steps | "$PYTHON3" -c 'import json,sys; print([s["id"] + ":" + s["verdict"] for s in json.load(sys.stdin)])')" \
	"the log run by sh gives the same verdicts back"
"$T/bin/artbisect" reset > /dev/null
run "$T/bin/artbisect" replay "$T/session.log"
is "$RC" 0 "replay reads the '--' lines"
is "$("$T/bin/artbisect" log)" "$(cat "$T/session.log")" "replay gives the same log back"

plan_done
