#!/bin/bash
# The example probes in data/probes, each on a real farm.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

P="$TESTS_SRCDIR/../data/probes"
mkfarm --out "$T/farm" --builds 40 --culprit 27 --skip-builds 5
n=0
bisect() {
	n=$((n + 1))
	run "$ARTBISECT" --index "$T/farm/index.json" --work-dir "$T/w$n" --cache-dir "$T/cache" \
		--json --quiet "$@"
}

bisect --probe "$P/exit-status ./usr/bin/app"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0027 "exit-status finds the first failing build"

bisect --probe "$P/exit-status ./usr/bin/no-such-app"
is "$RC/$(echo "$OUT" | json_get - steps.0.verdict)" 1/skip "exit-status: a command that is not there is skip"

# The app's own status 200 must not abort the bisection.
bisect --probe "$P/exit-status sh -c './usr/bin/app >/dev/null || exit 200'"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0027 "exit-status: a status of 200 is bad, not an abort"

bisect --probe "$P/output-matches 'result: broken' ./usr/bin/app"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0027 "output-matches finds the first build printing it"

bisect --probe "$P/output-matches 'no such text' ./usr/bin/app" --good b0000 --bad b0039
is "$RC/$(echo "$OUT" | json_get - steps.0.verdict)" 0/good "output-matches: no match is good"

# Broken builds crash (SIGSEGV); working ones fail in an ordinary way.
bisect --probe "$P/crash-only sh -c './usr/bin/app >/dev/null || kill -SEGV \$\$; exit 3'"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0027 "crash-only: the first crashing build"

bisect --probe "$P/slower-than 0.5 sh -c 'if ./usr/bin/app >/dev/null; then :; else sleep 1; fi'"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0027 "slower-than: the first slow build"

run "$P/exit-status"
is "$RC" 255 "a probe without its command: 255 (aborts, as a broken probe must)"

plan_done
