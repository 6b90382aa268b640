#!/bin/bash
# The documentation and the program agree. Lists are taken from the
# sources: the option tables of src/cli (cli.c for the session commands,
# the getopt tables of index and cache), the shipped probes' --help, the
# exit status table of CONTRACT.md. Checked against them: every --help,
# the man page (also that it renders without warnings), README.md,
# docs/*.md, the bash and zsh completion; the config file's settings and
# their ARTBISECT_* variables; the JSON report's fields; and every
# example command line of README.md, docs/ and the man page: all parse,
# and those that can run here (a farm served on 127.0.0.1 stands in for
# farm.example.org) run as written.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

TOP=$(cd "$TESTS_SRCDIR/.." && pwd)
SRC="$TOP/src/cli"
MAN="$TOP/docs/artbisect.1"
README="$TOP/README.md"
DOCS="$README $(ls "$TOP"/docs/*.md | tr '\n' ' ')$TOP/data/probes/README.md"
CONTRACT=${CONTRACT:-}
for c in "$TOP/../shared/spec/CONTRACT.md" "$TOP/../../shared/spec/CONTRACT.md"; do
	[ -z "$CONTRACT" ] && [ -f "$c" ] && CONTRACT=$c
done
export NO_COLOR=1
cd "$T" || bail_out "no scratch directory"

# The man page as text with plain hyphens, for grepping.
sed 's/\\-/-/g' "$MAN" > "$T/man.txt"
has_opt() { # FILE OPTION: FILE names --OPTION as a word
	grep -qE -- "--$2([^a-z0-9-]|\$)" "$1"
}

# -- what the parsers take ------------------------------------------------

# The session commands' table: "NAME HAS_ARG CONFIG" a line.
sed -n '/^static const opt_def defs\[\] = {/,/^};/p' "$SRC/cli.c" > "$T/defs.c"
sed -nE 's/^[[:space:]]*\{ "([a-z-]+)", ([01]), OPT_[A-Z_]+, [^,]+, ([01]) \},?$/\1 \2 \3/p' \
	"$T/defs.c" > "$T/table"
is "$(wc -l < "$T/table" | tr -d ' ')" "$(grep -c '{ "' "$T/defs.c")" \
	"every entry of cli.c's option table is read"
like "$(tr '\n' ' ' < "$T/table")" '^index 1 0 .*jobs 1 1 .*help 0 0 version 0 0 $' \
	"the table has --index, --jobs, --help and --version"
cut -d' ' -f1 "$T/table" > "$T/main-opts"
awk '$3 == 1 { print $1 }' "$T/table" | sort > "$T/config-keys"
# index (PATH... and URL) and cache: their getopt tables.
getopt_names() { sed -nE 's/^[[:space:]]*\{ "([a-z-]+)", (required|no)_argument,.*/\1/p' "$@" | sort -u; }
getopt_names "$SRC/cmd_index.c" "$SRC/cmd_index_farm.c" > "$T/index-opts"
getopt_names "$SRC/cmd_cache.c" > "$T/cache-opts"
like "$(tr '\n' ' ' < "$T/index-opts")/$(tr '\n' ' ' < "$T/cache-opts")" \
	'base-url .*farm .*output .*/cache-dir help older-than $' "index's and cache's option tables are read"
sort -u "$T/main-opts" "$T/index-opts" "$T/cache-opts" > "$T/all-opts"
# The session commands, as cli.c names them.
grep -A1 'command_names\[AB_CMD_COUNT\] = {' "$SRC/cli.c" | tail -1 |
	grep -oE '"[a-z]+"' | tr -d '"' > "$T/commands"
is "$(tr '\n' ' ' < "$T/commands")" "start good bad skip run status log replay reset " \
	"the session commands are read from cli.c"

# The binary takes what the tables say: never "unknown option".
bad=
while read -r name arg _; do
	if [ "$arg" = 1 ]; then v=(1); else v=(); fi
	"$ARTBISECT" "--$name" "${v[@]}" --version > /dev/null 2> "$T/err"
	grep -q 'unknown option' "$T/err" && bad="$bad --$name"
done < "$T/table"
is "$bad" "" "artbisect takes every option of its table"
bad=
for name in $(cat "$T/index-opts"); do
	# URL with --help: the farm's own options.
	grep -q "{ \"$name\", required" "$SRC/cmd_index.c" "$SRC/cmd_index_farm.c" && v=(file:///x) || v=()
	"$ARTBISECT" index "--$name" "${v[@]}" --help URL > "$T/out" 2>&1 ||
		"$ARTBISECT" index "--$name" "${v[@]}" --help > "$T/out" 2>&1 || bad="$bad --$name"
done
for name in $(cat "$T/cache-opts"); do
	grep -q "{ \"$name\", required" "$SRC/cmd_cache.c" && v=(1) || v=()
	"$ARTBISECT" cache "--$name" "${v[@]}" --help > "$T/out" 2>&1 || bad="$bad --$name"
done
is "$bad" "" "artbisect index and cache take every option of their tables"

# -- --help ----------------------------------------------------------------

"$ARTBISECT" --help > "$T/help-all"
for cmd in $(cat "$T/commands"); do
	"$ARTBISECT" "$cmd" --help >> "$T/help-all"
done
{ "$ARTBISECT" index --help; "$ARTBISECT" index --help URL; "$ARTBISECT" cache --help; } > "$T/help-tools"
missing=
for o in $(cat "$T/main-opts"); do has_opt "$T/help-all" "$o" || missing="$missing --$o"; done
for o in $(grep -vx help "$T/index-opts" "$T/cache-opts" | sed 's/.*://'); do
	has_opt "$T/help-tools" "$o" || missing="$missing --$o"
done
is "$missing" "" "every option is in --help (of the command that takes it)"
# help COMMAND is COMMAND --help, and an unknown one is bad usage.
bad=
for cmd in $(cat "$T/commands") index cache; do
	[ "$("$ARTBISECT" help "$cmd")" = "$("$ARTBISECT" "$cmd" --help)" ] || bad="$bad $cmd"
done
is "$bad" "" "artbisect help COMMAND prints what COMMAND --help does"
is "$("$ARTBISECT" help)" "$("$ARTBISECT" --help)" "artbisect help alone is artbisect --help"
exit_is 2 "artbisect help NOSUCH is bad usage" "$ARTBISECT" help nosuch
"$ARTBISECT" --help | sed -n '/^Commands:/,$p' > "$T/help-commands"
missing=
for cmd in $(cat "$T/commands") index cache help; do
	grep -qw "$cmd" "$T/help-commands" || missing="$missing --help:$cmd"
	grep -qE "artbisect ([a-z]+\|)*$cmd\b" "$T/man.txt" || missing="$missing man:$cmd"
done
is "$missing" "" "every command is listed in --help and named in the man page"

# -- the man page ------------------------------------------------------------

missing=
for o in $(cat "$T/all-opts"); do has_opt "$T/man.txt" "$o" || missing="$missing --$o"; done
is "$missing" "" "every option is in the man page"
if command -v groff > /dev/null; then
	groff -man -ww -z "$MAN" > "$T/groff.out" 2>&1
	is "$(cat "$T/groff.out")" "" "the man page renders without groff warnings"
else
	skip "groff warnings" "groff is not installed"
fi
if command -v mandoc > /dev/null; then
	# (The date is the month's: "December 2026", which mandoc only warns about.)
	mandoc -T lint -W warning "$MAN" 2>&1 | grep -v 'cannot parse date' > "$T/mandoc.out"
	is "$(cat "$T/mandoc.out")" "" "mandoc -T lint finds nothing (but the date's form)"
else
	skip "mandoc -T lint" "mandoc is not installed"
fi

# -- completion ----------------------------------------------------------------

missing=
for o in $(cat "$T/all-opts"); do
	has_opt "$TOP/data/completion/artbisect" "$o" || missing="$missing bash:--$o"
	has_opt "$TOP/data/completion/_artbisect" "$o" || missing="$missing zsh:--$o"
done
for cmd in $(cat "$T/commands") index cache help; do
	grep -qE "^    local commands=\".*\b$cmd\b" "$TOP/data/completion/artbisect" || missing="$missing bash:$cmd"
	grep -qE "^    '$cmd:" "$TOP/data/completion/_artbisect" || missing="$missing zsh:$cmd"
done
is "$missing" "" "bash and zsh completion know every option and command"

# -- options the documents name ---------------------------------------------------

# Other programs' options that the documents name, each with the words
# (any one) that must stand on its line or the next or previous one.
cat > "$T/foreign" <<'EOF'
speed-limit curl
speed-time curl
retry curl
import rpmkeys
prefix install|configure|\.deb
enable-sanitizers configure
with-testdata configure
checksum createrepo_c
selftest app
check app
bench app
open app
test app
count git
tag sha256sum
token lava-boot
user lava-server
render lavacli
health lavacli|lava-server
validate lava-run
job-id lava-run
output-dir lava-run
device lava-run
job-log-interval worker
EOF
# The shipped probes' options, from their own --help.
{ "$PYTHON3" "$TOP/data/probes/lava-boot" --help; sh "$TOP/data/probes/qemu-boot" --help; } 2>&1 |
	sed -nE 's/^ +--([a-z][a-z0-9-]*).*/\1/p' | sort -u > "$T/probe-opts"
like "$(tr '\n' ' ' < "$T/probe-opts")" 'guest-test .*template ' "the shipped probes' options are read"
cat "$T/all-opts" "$T/probe-opts" | sort -u > "$T/known"
unknown=
for f in "$MAN" $DOCS; do
	[ "$f" = "$MAN" ] && src="$T/man.txt" || src=$f
	for o in $(grep -oE -- '--[a-z][a-z0-9-]*[a-z0-9]' "$src" | sed 's/^--//' | sort -u); do
		grep -qx -- "$o" "$T/known" && continue
		words=$(awk -v o="$o" '$1 == o { print $2 }' "$T/foreign")
		if [ -n "$words" ]; then
			# every line naming it has the program beside it
			far=$(grep -nE -- "--$o([^a-z0-9-]|\$)" "$src" | cut -d: -f1 | while read -r n; do
				sed -n "$((n > 1 ? n - 1 : 1)),$((n + 1))p" "$src" | grep -qE "$words" || echo "$n"
			done)
			[ -z "$far" ] && continue
			unknown="$unknown ${f#"$TOP"/}:--$o(line $far)"
		else
			unknown="$unknown ${f#"$TOP"/}:--$o"
		fi
	done
done
is "$unknown" "" "every option the man page, README.md and docs/ name is artbisect's or a shipped probe's (or named with its program)"

# -- settings -----------------------------------------------------------------------

# The man page's FILES list and README's are the table's settings.
sed -n '/^\.I \$XDG_CONFIG_HOME\/artbisect\/config/,/^Each means/p' "$MAN" |
	sed -nE 's/^\.BR ([a-z\\-]+)( .*)?$/\1/p' | sed 's/\\-/-/g' | sort > "$T/man-keys"
is "$(tr '\n' ' ' < "$T/man-keys")" "$(tr '\n' ' ' < "$T/config-keys")" \
	"the man page lists exactly the settings the config file takes"
sed -n '/^- Defaults go in/,/^  file; the command line/p' "$README" | tr '\n' ' ' |
	sed -E 's/`ARTBISECT_JOBS.*//' | grep -oE '`[a-z-]+`' | tr -d '`' | sort > "$T/readme-keys"
is "$(tr '\n' ' ' < "$T/readme-keys")" "$(tr '\n' ' ' < "$T/config-keys")" \
	"README.md lists exactly the settings the config file takes"
# Every setting is one in the file and in its variable: a value that the
# file refuses the variable refuses too (naming the variable), and the
# other way round; a name not in the list is refused.
bad=
for k in $(cat "$T/config-keys"); do
	var=ARTBISECT_$(echo "$k" | tr 'a-z-' 'A-Z_')
	echo "$k = @" > "$T/config"
	ARTBISECT_CONFIG="$T/config" "$ARTBISECT" --version > /dev/null 2> "$T/err.file"
	rc_file=$?
	env "$var=@" ARTBISECT_CONFIG= "$ARTBISECT" --version > /dev/null 2> "$T/err.env"
	rc_env=$?
	grep -q 'unknown setting' "$T/err.file" && bad="$bad $k(unknown)"
	[ "$rc_file" = "$rc_env" ] || bad="$bad $k(file $rc_file, $var $rc_env)"
	[ "$rc_env" = 0 ] || grep -q "$var" "$T/err.env" || bad="$bad $var(not named)"
done
is "$bad" "" "each setting works in the config file and as ARTBISECT_*, alike"
echo "no-such-setting = 1" > "$T/config"
run env ARTBISECT_CONFIG="$T/config" "$ARTBISECT" --version
like "$RC/$ERR" '^2/.*line 1: unknown setting' "a setting not in the list is refused (exit 2, the line named)"

# -- exit status ----------------------------------------------------------------------

# The man page's EXIT STATUS: "CODE first-words" a line.
sed -n '/^\.SH "EXIT STATUS"/,/^\.SH /p' "$T/man.txt" | awk '
	/^\.B [0-9]+$/ { if (c != "") print c, t; c = $2; t = ""; next }
	/^\.(TP|SH)/ { next }
	c != "" { t = t " " $0 }
	END { if (c != "") print c, t }' | tr 'A-Z' 'a-z' > "$T/man-exit"
is "$(cut -d' ' -f1 "$T/man-exit" | tr '\n' ' ')" "0 1 2 3 4 " "the man page lists exit statuses 0 to 4"
if [ -n "$CONTRACT" ]; then
	# Section 5's table: each status and its meaning up to the first ( : ;
	sed -n '/^## 5\./,/^## 6\./p' "$CONTRACT" | sed -nE 's/^\| ([0-9]+) \| ([^|]*) \|$/\1 \2/p' |
		tr 'A-Z' 'a-z' > "$T/contract-exit"
	is "$(cut -d' ' -f1 "$T/contract-exit" | tr '\n' ' ')" "$(cut -d' ' -f1 "$T/man-exit" | tr '\n' ' ')" \
		"the man page lists the contract's exit statuses"
	bad=
	while read -r code meaning; do
		head=$(printf '%s' "$meaning" | sed -E 's/[(:;].*//; s/ +$//')
		grep -q "^$code .*$head" "$T/man-exit" || bad="$bad $code('$head')"
	done < "$T/contract-exit"
	is "$bad" "" "each exit status means in the man page what it means in the contract"
	grep -q '^4 .*session is kept' "$T/contract-exit" && grep -q '^4 .*session is kept' "$T/man-exit"
	tap_ok $? "exit 4: the contract and the man page both say the session is kept"
else
	skip "the contract's exit statuses" "CONTRACT.md (shared/spec) is not beside the source tree"
	skip "the contract's exit status meanings" "no CONTRACT.md"
	skip "exit 4 keeps the session" "no CONTRACT.md"
fi
codes() { grep -oE '\b[0-4] [a-z]' | cut -c1 | tr '\n' ' '; }
is "$("$ARTBISECT" --help | sed -n '/^Exit status:/,/^$/p' | codes)" "0 1 2 3 4 " "--help lists exit statuses 0 to 4"
is "$(sed -n '/^Exit status: 0/,/^$/p' "$README" | tr '\n' ' ' | codes)" "0 1 2 3 4 " \
	"README.md lists exit statuses 0 to 4"

# -- a farm here, the JSON report ------------------------------------------------------

# 16 builds, b0009 the first bad one, b0011's file gone (unavailable).
mkfarm --out "$T/farm" --builds 16 --culprit 9 --missing 11 > /dev/null
start_server "$T/farm"
# The kernels of the examples: the same builds, two of them named as the
# examples name them.
"$PYTHON3" - "$T/farm/index.json" "$T/farm/kernels.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["builds"][2]["id"], d["builds"][13]["id"] = "v6.8", "v6.9"
json.dump(d, open(sys.argv[2], "w"))
EOF
run "$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app --good b0001 --check-bounds --json \
	--work-dir "$T/w-json" --cache-dir "$T/cache"
is "$RC/$(echo "$OUT" | json_get - result)" "0/found" "a bisection here: found, exit 0"
echo "$OUT" > "$T/report.json"
run "$ARTBISECT" status --json --work-dir "$T/w-json"
echo "$OUT" > "$T/status.json"
# And one under the flaky model, for the keys of its "flaky" object.
run "$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app --flaky --json \
	--work-dir "$T/w-flaky" --cache-dir "$T/cache"
is "$RC/$(echo "$OUT" | json_get - flaky.culprit)" "0/b0009" "a bisection under --flaky here: found"
echo "$OUT" > "$T/flaky.json"
# Every key emitted is documented (the contract or the man page), and
# every key of the contract's example is emitted.
"$PYTHON3" - "$T/report.json" "$T/status.json" "$T/flaky.json" "$T/man.txt" "${CONTRACT:-/dev/null}" > "$T/keys" <<'EOF'
import json, re, sys
docs = open(sys.argv[4]).read() + open(sys.argv[5]).read()
emitted = set()
def walk(v, path):
    if isinstance(v, dict):
        for k, x in v.items():
            emitted.add(k)
            walk(x, path + "." + k)
    elif isinstance(v, list):
        for x in v:
            walk(x, path)
for f in sys.argv[1:4]:
    walk(json.load(open(f)), "")
print("undocumented:", " ".join(sorted(k for k in emitted if not re.search(r"\b%s\b" % re.escape(k), docs))))
m = re.search(r"## 6\..*?```json\n(.*?)```", open(sys.argv[5]).read(), re.S)
want = set()
if m:
    def keys(v):
        if isinstance(v, dict):
            for k, x in v.items():
                want.add(k); keys(x)
        elif isinstance(v, list):
            for x in v: keys(x)
    keys(json.loads(m.group(1)))
print("missing:", " ".join(sorted(want - emitted)))
EOF
is "$(sed -n 's/^undocumented: *//p' "$T/keys")" "" "every field of the JSON reports is documented"
if [ -n "$CONTRACT" ]; then
	is "$(sed -n 's/^missing: *//p' "$T/keys")" "" "every field of the contract's example report is emitted"
else
	skip "the contract's report fields" "no CONTRACT.md"
fi
like "$(json_get "$T/report.json" steps | tr -d ' ')" '"bound":"old".*"reason":' \
	"(the run had a bound step and one with a reason)"

# -- the examples ----------------------------------------------------------------------

# Each example command line: "FILE<TAB>BLOCK<TAB>COMMAND", continuations
# joined; a code block counts when it starts with an artbisect command;
# synopses ("[--good ID]", "[options]") are not examples.
cat > "$T/examples.py" <<'EOF'
import re, sys
def md_blocks(path):
    blocks, cur, fence = [], None, False
    lines = open(path, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith("```"):
            if fence: blocks.append(cur)
            fence, cur = not fence, []
            continue
        if fence:
            cur.append(line)
    # indented blocks: four spaces after a blank line, outside lists
    cur, prev_blank = None, True
    for line in lines + [""]:
        if line.startswith("    ") and (cur is not None or prev_blank):
            cur = (cur or []) + [line]
        elif cur is not None and line.strip():
            cur = None
        elif cur is not None:
            blocks.append(cur); cur = None
        prev_blank = not line.strip()
    return blocks
def man_blocks(path):
    blocks, cur = [], None
    for line in open(path, encoding="utf-8").read().split("\n"):
        if line.startswith(".nf"): cur = []; continue
        if line.startswith(".fi"):
            if cur is not None: blocks.append(cur)
            cur = None; continue
        if cur is not None and not line.startswith("."):
            cur.append(line.replace("\\-", "-").replace("\\(aq", "'").replace("\\(dq", '"').replace("\\e", "\\"))
    return blocks
n = 0
for path in sys.argv[1:]:
    for block in (man_blocks(path) if path.endswith(".1") else md_blocks(path)):
        first = next((l.strip() for l in block if l.strip()), "")
        if not first.startswith("artbisect "):
            continue
        n += 1
        cmd = None
        for l in block:
            s = l.strip()
            if cmd is None:
                if not s.startswith("artbisect "): continue
                cmd = s
            else:
                cmd += " " + s
            if cmd.endswith("\\"):
                cmd = cmd[:-1].rstrip(); continue
            if not re.search(r"\[--[a-z-]+ [A-Z]+\]|\[options\]", cmd):
                print("%s\t%d\t%s" % (path, n, cmd))
            cmd = None
EOF
"$PYTHON3" "$T/examples.py" "$MAN" $DOCS > "$T/examples"
like "$(cut -f3 "$T/examples" | tr '\n' ' ')" "artbisect start --index .* artbisect index --name " \
	"the examples are read ($(wc -l < "$T/examples" | tr -d ' ') command lines)"

# Their words, without comments or redirections, through the shell's rules.
cat > "$T/words.py" <<'EOF'
import shlex, sys
out = []
for w in shlex.split(sys.argv[1], comments=True):
    if w in (">", "|", ">>"): break
    if w.startswith("[--"): w = w[1:]
    if w.endswith("]") and not w.startswith("["): w = w[:-1]
    out.append(w)
sys.stdout.write("\0".join(out[1:]))
EOF
bad=
while IFS=$'\t' read -r file _ cmd; do
	"$PYTHON3" "$T/words.py" "$cmd" > "$T/words"
	mapfile -d '' w < "$T/words"
	case ${w[0]:-} in index|cache) last=--help ;; *) last=--version ;; esac
	env -i PATH="$PATH" HOME="$T/home" "$ARTBISECT" "${w[@]}" "$last" > /dev/null 2> "$T/err" ||
		bad="$bad
${file#"$TOP"/}: $cmd: $(cat "$T/err")"
done < "$T/examples"
is "$bad" "" "every example's options parse"

# Those that can run here, run as written: the farm on 127.0.0.1 for
# farm.example.org, a yum repository made here for the example ones,
# the probes of the source tree for /usr/share/artbisect, /srv/farm in
# the scratch directory. What still names another host, installs on
# this machine, boots kernels (qemu-boot, lava-boot) or has a "..." is
# not run.
mkdir -p "$T/srv/farm" "$T/bin" "$T/ex"
cp -r "$T/farm/builds" "$T/srv/farm/"
ln -s "$ARTBISECT" "$T/bin/artbisect"
REPO=
if command -v rpmbuild > /dev/null && command -v createrepo_c > /dev/null; then
	mkfarm --out "$T/repo" --builds 8 --culprit 5 --format rpm --package-name kernel-core > /dev/null 2>&1 &&
		createrepo_c -q "$T/repo/builds" > /dev/null 2>&1 && REPO="$T/repo/builds"
fi
if [ -n "$REPO" ]; then
	mkdir -p "$T/farm/repos"
	cp -r "$REPO" "$T/farm/repos/kernel"
	cp -r "$REPO" "$T/farm/repos/kernel-vanilla"
fi
localize() {
	sed -e "s|https://farm.example.org/app/index.json|$BASE/index.json|g" \
		-e "s|https://farm.example.org/kernels/index.json|$BASE/kernels.json|g" \
		-e "s|--index URL |--index $BASE/index.json |g" \
		-e "s|/usr/share/artbisect/|$TOP/data/|g" \
		-e "s|/srv/farm|$T/srv/farm|g" |
		if [ -n "$REPO" ]; then sed -e "s|https://kojipkgs.example.org/repos/|$BASE/repos/|g"; else cat; fi
}
# A block runs whole or not at all.
: > "$T/not-here"
while IFS=$'\t' read -r file n cmd; do
	printf '%s\n' "$cmd" | localize | sed "s|$BASE||g" |
		grep -qE '://|--install system|qemu-boot|lava-boot|\.\.\.' && echo "$file/$n" >> "$T/not-here"
done < "$T/examples"
ran=0 block= failed=
while IFS=$'\t' read -r file n cmd; do
	grep -qxF "$file/$n" "$T/not-here" && continue
	here=$(printf '%s\n' "$cmd" | localize)
	# A block that starts a bisection starts from no session; one that
	# goes on with a session (run, good, bad, ...) takes the last one.
	if [ "$file/$n" != "$block" ]; then
		block="$file/$n"
		case $cmd in
		"artbisect --index"* | "artbisect start"* | "artbisect index"*) export XDG_STATE_HOME="$T/state-$ran" ;;
		esac
	fi
	(cd "$T/ex" && PATH="$T/bin:$PATH" sh -c "$here" < /dev/null > "$T/ex.out" 2> "$T/ex.err")
	rc=$?
	ran=$((ran + 1))
	diag "example run (exit $rc): ${file#"$TOP"/}: $cmd"
	[ "$rc" = 0 ] || failed="$failed
${file#"$TOP"/}: $cmd (exit $rc): $(tail -3 "$T/ex.err")"
done < "$T/examples"
is "$failed" "" "the examples that can run here run and exit 0 ($ran run)"
[ "$ran" -ge 10 ] || diag "only $ran examples ran"
tap_ok $(( ran >= 10 ? 0 : 1 )) "at least ten examples ran"
ok "the index example wrote an index that artbisect bisects" \
	"$ARTBISECT" --index "$T/srv/farm/index.json" --probe ./usr/bin/app --work-dir "$T/w-srv" --cache-dir "$T/cache"
ok "the session example's log was written and replays" \
	"$ARTBISECT" replay "$T/ex/bisect.log" --work-dir "$T/w-replay" --cache-dir "$T/cache"
like "$(cat "$T/ex/report.md" 2> /dev/null)" 'v6\.8|b00' "the report example wrote its Markdown report"

# lava-boot's --print-job example (docs/lava.md) makes its job here.
"$PYTHON3" - "$TOP/docs/lava.md" <<'EOF' | sed "s|/usr/share/artbisect/|$TOP/data/|g" > "$T/print-job.sh"
import re, sys
for b in re.findall(r"^```[a-z]*\n(.*?)^```$", open(sys.argv[1]).read(), re.S | re.M):
    if "lava-boot --print-job" in b:
        print(b, end="")
EOF
run sh "$T/print-job.sh"
is "$RC/$(printf '%s\n' "$OUT" | grep -c -e '^device_type: qemu$' -e "^job_name: 'artbisect next-20261201'$")" "0/2" \
	"docs/lava.md's --print-job example prints a job for its build"

plan_done
