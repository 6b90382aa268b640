#!/bin/bash
# The README says true things: its sample output is what the bundled
# demo prints (timings aside), and the two command lines at its top are
# the ones .ci/run takes. Runs data/demo/run-demo.sh, as `make demo` does.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

README="$TESTS_SRCDIR/../README.md"
need_cmd cc

# The sample between its markers, and the demo's run from its first line
# to the compare link, timings made "N".
norm() { sed -E 's/\(([0-9]+\.[0-9]+) s\)/(N s)/; s/Waited [0-9.]+ s/Waited N s/'; }
sed -n '/^<!-- sample: make demo -->$/,/^<!-- end sample -->$/p' "$README" |
	sed '1,2d;$d' | sed '$d' | norm > "$T/sample"
ok "the README has the demo's sample" test -s "$T/sample"

# (One stream, as on a terminal: the steps on standard error, the
# report on standard output after them.)
run sh -c 'sh "$1" "$2" "$3" 2>&1' sh "$TESTS_SRCDIR/../data/demo/run-demo.sh" "$ARTBISECT" "$T/demo"
is "$RC" 0 "the demo finds its culprit"
sed -n '/^Bisecting /,/^Changes between them: /p' "$T/run.out" | norm > "$T/demo.out"
ok "the demo printed a run" test -s "$T/demo.out"
diff -u "$T/sample" "$T/demo.out" > "$T/sample.diff"
tap_ok $? "the README's sample is what the demo prints (timings aside)"
[ -s "$T/sample.diff" ] && diag "$(cat "$T/sample.diff")"

# The two command lines: the first runs the demo, the second the tests,
# and .ci/run takes the second.
first=$(awk '/^```/{n++; next} n==1 {print; exit}' "$README")
second=$(awk '/^```/{n++; next} n==1 {l++; if (l==2) {print; exit}}' "$README")
like "$first" '&& make demo$' "the README's first line ends by running the demo"
like "$second" '&& make -j2 check$' "the README's second line ends by running the tests"

plan_done
