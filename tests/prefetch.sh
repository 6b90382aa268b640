#!/bin/bash
# Prefetch: while a probe runs, the builds that could come next are
# downloaded, so the next step finds its build in the cache; what a
# verdict made useless is dropped; --no-prefetch downloads only what is
# tested. Structural checks only (no timing): speed is bench/'s job.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

mkfarm --out "$T/farm" --builds 64 --culprit 40 --artifact-size 200000
start_server "$T/farm"

# The probe notes, when it ends, which artifacts the cache holds.
cat > "$T/probe.sh" <<'P'
sleep 1
echo "$ARTBISECT_BUILD $(ls "$CACHE/sha256" | tr '\n' ' ')" >> "$PROBELOG"
./usr/bin/app
P
export PROBELOG="$T/probe.log" CACHE="$T/cache"

run "$ARTBISECT" --index "$BASE/index.json" --probe "sh $T/probe.sh" --json \
	--cache-dir "$T/cache" --work-dir "$T/work"
echo "$OUT" > "$T/on.json"
is "$RC/$(json_get "$T/on.json" first_new.id)" 0/b0040 "with prefetch: found b0040"
tested=$(json_get "$T/on.json" tested)
is "$tested" 6 "with prefetch: 6 probe runs for 64 builds"

# Every tested build after the first was in the cache before the
# previous probe ended.
"$PYTHON3" - "$T/farm/index.json" "$PROBELOG" > "$T/check.out" <<'PY'
import json, sys
idx = json.load(open(sys.argv[1]))
sha = {b["id"]: b["artifacts"][0]["sha256"] for b in idx["builds"] if b.get("artifacts")}
lines = [l.split() for l in open(sys.argv[2]) if l.strip()]
for prev, cur in zip(lines, lines[1:]):
    print(cur[0], "ready" if sha[cur[0]] in prev[1:] else "NOT-READY")
PY
is "$(grep -c ready "$T/check.out")" 5 "five later steps checked"
is "$(grep -c NOT-READY "$T/check.out")" 0 "each later build was downloaded during the previous probe"
downloads=$(count_requests '^GET /builds/')
tap_ok $(( downloads <= 2 * tested ? 0 : 1 )) "at most two downloads per step ($downloads for $tested steps)"
# (A cancelled worker may leave a resumable .part file; nothing else.)
is "$(ls "$T/cache/tmp" 2>/dev/null | grep -vc '\.part$')" 0 "no stray temporary files in the cache"

# Without prefetch: one download per tested build, and none waits in the cache.
reset_log
: > "$PROBELOG"
run "$ARTBISECT" --index "$BASE/index.json" --probe "sh $T/probe.sh" --json --no-prefetch \
	--cache-dir "$T/cache2" --work-dir "$T/work"
echo "$OUT" > "$T/off.json"
is "$RC/$(json_get "$T/off.json" first_new.id)" 0/b0040 "--no-prefetch: found b0040"
is "$(count_requests '^GET /builds/')" 6 "--no-prefetch: one download per tested build"

# A build the prefetch found missing (404) is not fetched again.
mkfarm --out "$T/miss" --builds 16 --culprit 10 --missing 11
start_server "$T/miss"
run "$ARTBISECT" --index "$BASE/index.json" --probe './usr/bin/app' --json \
	--cache-dir "$T/cache3" --work-dir "$T/work"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0010 "missing build during prefetch: still found"
is "$(count_requests '^GET /builds/b0011')" 1 "the missing build was asked for once"
has_step "$OUT" id=b0011 by=unavailable verdict=skip
tap_ok $? "the missing build is an unavailable step"

plan_done
