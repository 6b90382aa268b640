#!/bin/bash
# valgrind memcheck on a full bisection over HTTP (with prefetch and
# multisection threads) and on the session commands: no invalid read or
# write, no use of uninitialised memory, no definite leak.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

need_cmd valgrind
if ldd "$ARTBISECT" 2>/dev/null | grep -q -E 'lib(asan|ubsan)'; then
	skip_all "the binary is built with sanitizers, which valgrind cannot run"
fi
mkfarm --out "$T/farm" --builds 30 --culprit 19 --failed 7 --missing 24
start_server "$T/farm"
vg() {
	run valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		--show-leak-kinds=definite --track-origins=yes --log-file="$T/vg.%p.log" "$ARTBISECT" "$@"
	for f in "$T"/vg.*.log; do
		[ -s "$f" ] && diag "$(head -n 40 "$f")"
		rm -f "$f"
	done
}

vg --index "$BASE/index.json" --probe ./usr/bin/app --work-dir "$T/w1" --cache-dir "$T/c" --json
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0019 "a bisection with prefetch, under memcheck: clean"
vg --index "$BASE/index.json" --probe ./usr/bin/app --work-dir "$T/w2" --cache-dir "$T/c" --jobs 3 --json
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0019 "--jobs 3 under memcheck: clean"
vg start --index "$BASE/index.json" --work-dir "$T/w3" --cache-dir "$T/c"
is "$RC" 0 "start under memcheck: clean"
vg bad --work-dir "$T/w3"
is "$RC" 0 "a verdict under memcheck: clean"
"$ARTBISECT" log --work-dir "$T/w3" > "$T/log"
vg replay "$T/log" --work-dir "$T/w4"
is "$RC" 0 "replay under memcheck: clean"
vg status --json --work-dir "$T/w4"
is "$RC" 0 "status under memcheck: clean"

plan_done
