#!/bin/bash
# Mirrors: an index may list other base URLs holding the same files; a
# build the first host cannot give is fetched from the next one.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

# The primary lacks two builds; the mirror (same bytes) has them all.
mkfarm --out "$T/primary" --builds 32 --culprit 20 --missing 15,23
mkfarm --out "$T/mirror" --builds 32 --culprit 20
"$PYTHON3" "$TESTS_SRCDIR/httpserver.py" --root "$T/mirror" --port 0 \
	--port-file "$T/mirror.port" --log "$T/mirror.log" --faults /dev/null 2>"$T/mirror.err" &
MPID=$!
at_exit "kill $MPID 2>/dev/null"
i=0
while [ ! -s "$T/mirror.port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
MBASE="http://127.0.0.1:$(cat "$T/mirror.port")"

with_mirrors() { # SRC DST MIRROR...
	"$PYTHON3" - "$@" <<'PY'
import json, sys
src, dst, mirrors = sys.argv[1], sys.argv[2], sys.argv[3:]
idx = json.load(open(src))
idx["mirrors"] = mirrors
json.dump(idx, open(dst, "w"))
PY
}
with_mirrors "$T/primary/index.json" "$T/primary/mirrored.json" "$MBASE/"
start_server "$T/primary"

run "$ARTBISECT" --index "$BASE/mirrored.json" --probe ./usr/bin/app --json --no-prefetch \
	--cache-dir "$T/cache" --work-dir "$T/work"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0020 "missing on the primary: found through the mirror"
is "$(count_requests '^GET /builds/b0015.tar.gz 404')" 1 "the primary was asked first"
is "$(grep -c '^GET /builds/b0015.tar.gz 200' "$T/mirror.log")" 1 "then the mirror gave it"
has_step "$OUT" id=b0015 by=probe
tap_ok $? "the build was tested, not skipped"
like "$ERR" "trying the mirror $MBASE/builds/b0015.tar.gz" "the switch is reported"
is "$(grep -c '^GET /builds/b0011' "$T/mirror.log")" 0 "what the primary has is not fetched from the mirror"

# A mirror without a trailing slash works the same; a dead mirror before
# a good one is passed over; with prefetch too.
with_mirrors "$T/primary/index.json" "$T/primary/m2.json" "http://127.0.0.1:9/dead" "$MBASE"
run "$ARTBISECT" --index "$BASE/m2.json" --probe ./usr/bin/app --json \
	--cache-dir "$T/cache2" --work-dir "$T/work" --net-timeout 2
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0020 "a dead mirror, then a good one: found"

# Only dead mirrors: the build is unavailable, the bisection goes on.
with_mirrors "$T/primary/index.json" "$T/primary/m3.json" "http://127.0.0.1:9/"
run "$ARTBISECT" --index "$BASE/m3.json" --probe ./usr/bin/app --json --no-prefetch \
	--cache-dir "$T/cache3" --work-dir "$T/work" --net-timeout 2
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0020 "dead mirrors only: still found"
has_step "$OUT" id=b0015 by=unavailable
tap_ok $? "dead mirrors only: the missing build is unavailable"

# Bad mirror entries: exit 2 naming them, nothing downloaded.
reset_log
with_mirrors "$T/primary/index.json" "$T/primary/bad1.json" "file:///etc/"
run "$ARTBISECT" --index "$BASE/bad1.json" --probe true
is "$RC" 2 "a file:// mirror in an http index: exit 2"
like "$ERR" 'mirrors\[0\]' "the message names the entry"
"$PYTHON3" -c 'import json,sys; i=json.load(open(sys.argv[1])); i["mirrors"]=[42]; json.dump(i,open(sys.argv[2],"w"))' \
	"$T/primary/index.json" "$T/primary/bad2.json"
run "$ARTBISECT" --index "$BASE/bad2.json" --probe true
is "$RC" 2 "a mirror that is a number: exit 2"
like "$ERR" 'mirrors\[0\]: expected a URL string' "the message says what was expected"
is "$(count_requests '^GET /builds/')" 0 "nothing downloaded for a bad index"

plan_done
