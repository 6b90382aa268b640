#!/bin/bash
# Mirrors: an index may list other base URLs holding the same files; a
# build the first host cannot give is fetched from the next one.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"
# Retries wait 0.05 s here instead of 1 s (--retry-delay from the
# environment; tests/bisect-faults.sh checks the default wait).
export ARTBISECT_RETRY_DELAY=0.05

# A server beside start_server's, for mirrors: sets SPID and SBASE.
nsecond=0
second_server() { # ROOT LOG FAULTS
	local port="$T/second-$nsecond.port" i=0
	nsecond=$((nsecond + 1))
	"$PYTHON3" "$TESTS_SRCDIR/httpserver.py" --root "$1" --port 0 \
		--port-file "$port" --log "$2" --faults "$3" 2>>"$T/second.err" &
	SPID=$!
	at_exit "kill $SPID 2>/dev/null"
	while [ ! -s "$port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	SBASE="http://127.0.0.1:$(cat "$port")"
}

# The primary lacks two builds; the mirror (same bytes) has them all.
mkfarm --out "$T/primary" --builds 32 --culprit 20 --missing 15,23
mkfarm --out "$T/mirror" --builds 32 --culprit 20
second_server "$T/mirror" "$T/mirror.log" /dev/null
MBASE=$SBASE

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

# The issue's acceptance case: a host that answers 503 twice and then
# cuts every body short (in half: each cut brings new bytes and resumes
# for free, until the last byte never comes; then two more tries, four
# in all, as three retries make). Eight builds; the bisection tests b0003, b0005
# and b0004 and finds b0005.
mkfarm --out "$T/small" --builds 8 --culprit 5
mkfarm --out "$T/small-m" --builds 8 --culprit 5 --missing 3
faulty() { # PATH... -> a faults table giving each path 503, 503, then cut bodies
	"$PYTHON3" -c 'import json,sys; print(json.dumps({p: ["503", "503", "always:truncate"] for p in sys.argv[1:]}))' "$@"
}
# (1) The first host is the bad one; the mirror has the same files.
second_server "$T/small" "$T/small.log" /dev/null
with_mirrors "$T/small/index.json" "$T/small/mirrored.json" "$SBASE/"
start_server "$T/small"
set_faults "$(faulty builds/b0003.tar.gz builds/b0004.tar.gz builds/b0005.tar.gz)"
run "$ARTBISECT" --index "$BASE/mirrored.json" --probe ./usr/bin/app --json --no-prefetch \
	--cache-dir "$T/cache-x" --work-dir "$T/work-x"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0005 "503, 503, then cut bodies: the mirror gives the right answer"
is "$(count_requests '^GET /builds/b0003.tar.gz 503')" 2 "the first host answered 503 twice"
is "$(count_requests '^GET /builds/b0003.tar.gz 200')" 1 "then cut the body short"
is "$(grep -c '^GET /builds/b0003.tar.gz 200' "$T/small.log")" 1 "then the mirror gave it"
is "$(echo "$OUT" | json_get - tested)" 3 "every tested build came whole (three probes)"
like "$ERR" "gave up after 4 tries: .*; trying the mirror $SBASE/builds/b0003.tar.gz" "the switch is reported"
set_faults '{}'
# (2) The mirror is the bad one, for a build the first host lacks: that
# build is unavailable and the bisection goes round it.
echo "$(faulty builds/b0003.tar.gz)" > "$T/small-faults.json"
kill "$SPID" 2>/dev/null
wait "$SPID" 2>/dev/null
second_server "$T/small" "$T/small2.log" "$T/small-faults.json"
with_mirrors "$T/small-m/index.json" "$T/small-m/mirrored.json" "$SBASE/"
start_server "$T/small-m"
run "$ARTBISECT" --index "$BASE/mirrored.json" --probe ./usr/bin/app --json --no-prefetch \
	--cache-dir "$T/cache-y" --work-dir "$T/work-y"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0005 "a bad mirror for a missing build: still the right answer"
is "$(grep -c '^GET /builds/b0003.tar.gz 503' "$T/small2.log")" 2 "the mirror answered 503 twice"
has_step "$OUT" id=b0003 by=unavailable "reason=b0003.tar.gz: gave up after 4 tries: "
tap_ok $? "the build is unavailable, and the report says why"
is "$(ls "$T/cache-y/sha256" | grep -c .)" "$(echo "$OUT" | json_get - tested)" "only whole, verified files reached the cache"

plan_done
