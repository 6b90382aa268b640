#!/bin/bash
# The prompt on a pseudo-terminal, beyond good and bad: list, retry,
# shell, --launch, colors and NO_COLOR, quit then run, and the question
# about another session in the work directory.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

mkfarm --out "$T/farm" --builds 20 --culprit 13
A=("$ARTBISECT" --index "$T/farm/index.json" --cache-dir "$T/cache")
person() { run env TERM=xterm "$PYTHON3" "$TESTS_SRCDIR/person.py" "$@"; }

# list, then retry (a fresh root), then the answers.
person '[["good or bad\\?[^\\n]*: $", "l\n"], ["known bad.*?: $", "r\n"], ["is ready in", ""]]' \
	"${A[@]}" --work-dir "$T/w1"
is "$RC" 0 "list and retry, then answers: found"
like "$OUT" 'b0009 +being tested' "list marks the build being tested"
like "$OUT" 'b0000 +last good' "list names the last good build"
like "$OUT" 'b0019 +known bad' "list names the known bad build, in the report's words"
is "$(sed 's/\x1b\[[0-9;]*m//g' <<<"$OUT" | grep -c 'Build b0009 is ready in')" 2 "retry prepares the build again"
like "$OUT" 'The first bad build is b0013' "the report"
like "$OUT" $'\e\\[1;33mb0009' "the build id is in color on a terminal"

NO_COLOR=1 person '[]' "${A[@]}" --work-dir "$T/w2"
is "$RC" 0 "with NO_COLOR: found"
unlike "$OUT" $'\e\\[' "with NO_COLOR: no escape sequences"

# A shell inside the root.
SHELL=/bin/sh person '[["good or bad\\?[^\\n]*: $", "h\n"], ["come back here", "echo inside-$PWD build-$ARTBISECT_BUILD root-$ARTBISECT_ROOT; exit\n"]]' \
	"${A[@]}" --work-dir "$T/w3"
is "$RC" 0 "shell, then answers: found"
like "$OUT" "inside-$T/w3/roots/9-b0009" "the shell runs in the build's root"
like "$OUT" "build-b0009 root-$T/w3/roots/9-b0009" "with the probe's ARTBISECT_BUILD and ARTBISECT_ROOT"

# --launch runs the application before asking, and again on retry.
person '[["good or bad\\?[^\\n]*: $", "r\n"], ["It exited with status", ""]]' \
	"${A[@]}" --work-dir "$T/w4" --launch './usr/bin/app'
is "$RC" 0 "--launch: found"
like "$OUT" 'Running \./usr/bin/app in .*/roots/9-b0009' "--launch runs the command in the root"
like "$OUT" 'result: ok' "its output is shown"
is "$(grep -c 'Running ./usr/bin/app in .*/9-b0009' <<<"$OUT")" 2 "retry runs it again"

# quit keeps the session; run goes on from there.
person '[["good or bad\\?[^\\n]*: $", "g\n"], ["good or bad\\?[^\\n]*: $", "q\n"], ["never", ""]]' \
	"${A[@]}" --work-dir "$T/w5"
is "$RC" 4 "quit: exit 4"
like "$OUT" "The session is kept in $T/w5; to go on: artbisect run --work-dir $T/w5" "quit says how to go on, with the work directory"
is "$(grep -c 'The session is kept' <<<"$OUT")" 1 "quit says it once"
is "$("$ARTBISECT" status --json --work-dir "$T/w5" | json_get - steps.0.verdict)" good "the answer before quit is saved"
person '[]' "$ARTBISECT" run --work-dir "$T/w5"
is "$RC" 0 "run after quit: found"
like "$OUT" 'The first bad build is b0013' "run after quit: the report"

# Another session in the work directory: asked, never thrown away silently.
"$ARTBISECT" start --index "$T/farm/index.json" --cache-dir "$T/cache" --work-dir "$T/w6" > /dev/null 2>&1
person '[["\\[q\\]uit\\? $", "q\n"]]' "${A[@]}" --work-dir "$T/w6" --good b0002 --bad b0018
is "$RC" 4 "another session, answer quit: exit 4"
like "$OUT" 'A session for another range \(b0000 to b0019, 0 verdicts\) is in progress' "the question names the session"
is "$("$ARTBISECT" status --json --work-dir "$T/w6" | json_get - last_old.id)" b0000 "quit: the session is untouched"
person '[["\\[q\\]uit\\? $", "r\n"]]' "${A[@]}" --work-dir "$T/w6" --good b0002 --bad b0018
is "$RC" 0 "answer reset: the new range is bisected"
is "$("$ARTBISECT" log --work-dir "$T/w6" | grep -c -- '--good b0002 --bad b0018')" 1 "the new session replaced the old"
"$ARTBISECT" start --index "$T/farm/index.json" --cache-dir "$T/cache" --work-dir "$T/w7" --good b0002 > /dev/null 2>&1
person '[["\\[q\\]uit\\? $", "c\n"]]' "${A[@]}" --work-dir "$T/w7" --good b0005
is "$RC" 0 "answer continue: the old session is finished"
is "$("$ARTBISECT" log --work-dir "$T/w7" | grep -c -- '--good b0002 ')" 1 "continue keeps the old session's range"

plan_done
