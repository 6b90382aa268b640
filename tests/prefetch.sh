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

# Early unpack: during a probe the builds that could come next are also
# unpacked, into ROOT@early; the next step only renames its one. The
# probe waits (up to 30 s) for the early roots to be whole, then notes
# them; the next build's root must be one of them.
cat > "$T/early.sh" <<'P'
# Both next builds whole, or after 5 s (EARLY_WAIT tenths) one, or none
# (the last step), with nothing still being unpacked; 30 s at most.
n=0
while [ "$n" -lt 300 ] && [ -z "$NEXT_ANY" ]; do
	whole=$(ls -d ../*@early 2>/dev/null | wc -l)
	busy=$(ls -d ../*@early-tmp 2>/dev/null | wc -l)
	[ "$whole" -ge 2 ] && break
	[ "$n" -ge "${EARLY_WAIT:-50}" ] && [ "$busy" -eq 0 ] && break
	sleep 0.1
	n=$((n + 1))
done
echo "$ARTBISECT_BUILD $(cd .. && ls -d *@early 2>/dev/null | tr '\n' ' ')" >> "$EARLYLOG"
ls usr/bin/app > /dev/null && ./usr/bin/app
P
export EARLYLOG="$T/early.log" NEXT_ANY=""
run "$ARTBISECT" --index "$BASE/index.json" --probe "sh $T/early.sh" --json \
	--cache-dir "$T/cache4" --work-dir "$T/work4"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0040 "early unpack: found b0040"
"$PYTHON3" - "$EARLYLOG" > "$T/early.out" <<'PY'
import sys
lines = [l.split() for l in open(sys.argv[1]) if l.strip()]
for prev, cur in zip(lines, lines[1:]):
    early = [e.split("-", 1)[1][:-len("@early")] for e in prev[1:]]
    print(cur[0], "early" if cur[0] in early else "NOT-EARLY", len(prev) - 1)
PY
is "$(grep -c ' early' "$T/early.out")" 5 "each later build was unpacked during the previous probe"
like "$(head -n 1 "$EARLYLOG")" '^b[0-9]+ [0-9]+-b[0-9]+@early [0-9]+-b[0-9]+@early $' \
	"during the first probe both possible next builds were unpacked"
is "$(ls -a "$T/work4/roots" 2>/dev/null | grep -c early)" 0 "no early root is left after the run"
: > "$EARLYLOG"
NEXT_ANY=1 run "$ARTBISECT" --index "$BASE/index.json" --probe "sleep 0.5; sh $T/early.sh" --json \
	--no-prefetch --cache-dir "$T/cache4" --work-dir "$T/work5"
is "$RC/$(grep -c . "$EARLYLOG")" "0/$(echo "$OUT" | json_get - tested)" "--no-prefetch: found, and the probe logged each of its runs"
is "$(cut -d' ' -f2- "$EARLYLOG" | tr -d ' \n')" "" "--no-prefetch: nothing is unpacked early"

# On a small disk nothing is unpacked early: an early root would take
# space the running probe may need (a 32 MB tmpfs as the work dir; the
# rule asks for 64 MiB free at least).
mkdir -p "$T/smallwork"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=32m tmpfs "$T/smallwork" 2>/dev/null; then
	at_exit "umount '$T/smallwork' 2>/dev/null"
	: > "$EARLYLOG"
	EARLY_WAIT=20 run "$ARTBISECT" --index "$BASE/index.json" --probe "sh $T/early.sh" --json \
		--cache-dir "$T/cache4" --work-dir "$T/smallwork"
	is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0040 "small work disk: found b0040"
	is "$(cut -d' ' -f2- "$EARLYLOG" | tr -d ' \n')" "" "small work disk: nothing is unpacked early"
else
	skip "small work disk" "cannot mount a tmpfs here (needs root and CAP_SYS_ADMIN)"
	skip "small work disk: nothing early" "cannot mount a tmpfs here"
fi

# RPMs are unpacked early too, but only after librpm has checked them:
# b0011, a candidate during the first probe, has a damaged payload whose
# sha256 the index matches, so it downloads fine, librpm refuses it, and
# it never gets an early root; its step then finds it unavailable.
if command -v rpmbuild > /dev/null; then
	mkfarm --out "$T/rpmfarm" --format rpm --builds 16 --culprit 10
	"$PYTHON3" - "$T/rpmfarm" b0011 <<'PY'
import hashlib, json, os, sys
farm, bid = sys.argv[1], sys.argv[2]
idx = json.load(open(os.path.join(farm, "index.json")))
art = next(b for b in idx["builds"] if b["id"] == bid)["artifacts"][0]
path = os.path.join(farm, art["url"])
data = bytearray(open(path, "rb").read())
data[-40] ^= 0xff
open(path, "wb").write(data)
art["sha256"] = hashlib.sha256(data).hexdigest()
art.pop("size", None)
json.dump(idx, open(os.path.join(farm, "index.json"), "w"))
PY
	start_server "$T/rpmfarm"
	: > "$EARLYLOG"
	cat > "$T/early-rpm.sh" <<'P'
n=0
while [ "$n" -lt 50 ] && [ "$(ls -d ../*@early 2>/dev/null | wc -l)" -lt 2 ]; do
	sleep 0.1
	n=$((n + 1))
done
echo "$ARTBISECT_BUILD $(cd .. && ls -d *@early* 2>/dev/null | tr '\n' ' ')" >> "$EARLYLOG"
./usr/bin/app
P
	run "$ARTBISECT" --index "$BASE/index.json" --probe "sh $T/early-rpm.sh" --json \
		--cache-dir "$T/cache6" --work-dir "$T/work6"
	is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0010 "RPM farm, early unpack: found b0010"
	like "$(cat "$EARLYLOG")" '[0-9]+-b[0-9]+@early' "RPM builds were unpacked early"
	unlike "$(cat "$EARLYLOG")" 'b0011@early' "the RPM librpm refuses never got an early root"
	has_step "$OUT" id=b0011 by=unavailable verdict=skip
	tap_ok $? "its step found it unavailable"
	like "$(echo "$OUT" | json_get - steps)" 'b0011.*(digest|BAD)' "with librpm's reason"
else
	skip "RPM early unpack" "no rpmbuild"
fi

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
