#!/bin/bash
# Network faults from the test server: retries, unavailable builds,
# checksum mismatches that never reach the probe.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"
# Retries wait 0.05 s here instead of 1 s (--retry-delay from the
# environment); the default wait is checked once, below.
export ARTBISECT_RETRY_DELAY=0.05

# 32 builds, culprit 20; the first probe is build 15, then 23, 19, 21, 20.
mkfarm --out "$T/farm" --builds 32 --culprit 20 --corrupt 23
start_server "$T/farm"
cat > "$T/probe.sh" <<'P'
echo "$ARTBISECT_BUILD" >> "$PROBELOG"
./usr/bin/app
P
export PROBELOG="$T/probe.log"
# Without prefetch, so that every request counted here is the foreground's.
A=("$ARTBISECT" --index "$BASE/index.json" --probe "sh $T/probe.sh" --json --net-timeout 2 --no-prefetch)
fresh() { rm -rf "$T/cache" "$T/work"; : > "$PROBELOG"; reset_log; }

# A corrupt artifact (index sha256 wrong): fetched twice, never probed.
fresh
run "${A[@]}" --cache-dir "$T/cache" --work-dir "$T/work"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0020 "corrupt build in the path: still found"
is "$(count_requests '^GET /builds/b0023')" 2 "the mismatching artifact was fetched exactly twice"
is "$(grep -c b0023 "$PROBELOG")" 0 "the mismatching build never reached the probe"
has_step "$OUT" id=b0023 by=unavailable verdict=skip "reason=b0023.tar.gz: sha256 mismatch"
tap_ok $? "the report says why"
is "$(ls "$T/cache/sha256" | grep -c .)" "$(echo "$OUT" | json_get - tested)" "only verified files are in the cache"
is "$(ls "$T/cache/tmp" | wc -l)" 0 "no temporary files are left"

# 503 twice, then fine: retried, same answer; with the default delay,
# the two retries wait 1 s and 2 s, each give or take a quarter (the
# lower bounds are checked: an upper one would be a timed test).
fresh
set_faults '{"builds/b0015.tar.gz": ["503", "503"]}'
t0=$(date +%s.%N)
run env -u ARTBISECT_RETRY_DELAY "${A[@]}" --cache-dir "$T/cache" --work-dir "$T/work"
t1=$(date +%s.%N)
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0020 "503 twice: retried and found"
is "$(count_requests '^GET /builds/b0015.tar.gz 503')" 2 "two 503s were served"
like "$ERR" 'HTTP status 503; retrying' "retries are reported"
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a >= 2.25) }'
tap_ok $? "by default the retries waited at least 0.75 s, then 1.5 s: 2.25 s or more ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f s in all", b - a }'))"
# --retry-delay 0: retried at once, and kept by the session.
fresh
set_faults '{"builds/b0015.tar.gz": ["503", "503"]}'
run "${A[@]}" --retry-delay 0 --cache-dir "$T/cache" --work-dir "$T/work"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0020 "--retry-delay 0: retried and found"
is "$(count_requests '^GET /builds/b0015.tar.gz 503')" 2 "--retry-delay 0: two 503s were served"
like "$("$ARTBISECT" log --work-dir "$T/work" | grep "^artbisect start")" '--retry-delay 0( |$)' "the session keeps --retry-delay"
run "${A[@]}" --retry-delay -1 --cache-dir "$T/cache" --work-dir "$T/work"
is "$RC" 2 "--retry-delay -1: exit 2"
like "$ERR" "--retry-delay: expected a number of seconds up to 3600, got '-1'" "the message names the option and the value"

# A body cut short, then a reset, then a stall: each retried.
for fault in truncate '"reset", "reset' stall corrupt html; do
	fresh
	set_faults "{\"builds/b0015.tar.gz\": [\"$fault\"]}"
	run "${A[@]}" --cache-dir "$T/cache" --work-dir "$T/work"
	is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0020 "fault ${fault//\"/}: recovered, found"
	is "$(grep -c b0015 "$PROBELOG")" 1 "fault ${fault//\"/}: the build was probed once, after a good download"
done

# A 404 or a server that keeps failing: the build is unavailable.
fresh
set_faults '{"builds/b0015.tar.gz": ["always:404"], "builds/b0020.tar.gz": ["always:503"]}'
run "${A[@]}" --cache-dir "$T/cache" --work-dir "$T/work"
is "$RC" 1 "culprit unavailable: inconclusive"
is "$(count_requests '^GET /builds/b0015')" 1 "a 404 is not retried"
is "$(count_requests '^GET /builds/b0020')" 4 "a 503 is retried three times: four tries"
has_step "$OUT" id=b0015 index=15 verdict=skip by=unavailable "reason=b0015.tar.gz: HTTP status 404"
tap_ok $? "404 step"
has_step "$OUT" id=b0015 by=unavailable "reason=$BASE/builds/b0015.tar.gz: HTTP status 404"
tap_ok $? "the 404's reason names the artifact's whole URL, not its file name alone"
has_step "$OUT" id=b0020 by=unavailable "reason=gave up after 4 tries: HTTP status 503"
tap_ok $? "503 step"
is "$(echo "$OUT" | json_get - candidates)" '["b0020", "b0021"]' "candidates around the unavailable culprit"

# Every build unavailable: exit 3.
fresh
set_faults '{}'
mkfarm --out "$T/gone" --builds 6 --culprit 3 --missing 1-4
run "$ARTBISECT" --index "$T/gone/index.json" --probe true --cache-dir "$T/cache" --work-dir "$T/work"
is "$RC" 3 "every build unavailable: exit 3"
like "$ERR" 'every build tried was unavailable' "it says so"

# The index itself: a 503 is retried, a 404 is bad input.
fresh
set_faults '{"index.json": ["503"]}'
run "${A[@]}" --cache-dir "$T/cache" --work-dir "$T/work"
is "$RC" 0 "index behind one 503: retried"
set_faults '{"index.json": ["always:404"]}'
run "${A[@]}" --cache-dir "$T/cache" --work-dir "$T/work"
is "$RC" 2 "index 404: exit 2"
like "$ERR" "index.json: HTTP status 404" "it names the URL and the status"
run "$ARTBISECT" --index "http://127.0.0.1:1/index.json" --probe true --cache-dir "$T/cache" --work-dir "$T/work" --net-timeout 1
is "$RC" 2 "index server down: exit 2"
set_faults '{}'

# A cache directory that cannot be written: exit 3.
fresh
touch "$T/notadir"
run "${A[@]}" --cache-dir "$T/notadir/cache" --work-dir "$T/work"
is "$RC" 3 "unwritable cache: exit 3"
like "$ERR" 'cache directory .* is not writable' "it says which"

plan_done
