#!/bin/bash
# The report says how long each step waited for its build (download,
# checks, unpacking), how long the run waited in all and how many bytes
# it downloaded; both are kept in the session, so a resumed run reports
# them too. The server's
# rate limit gives each download a floor (0.5 s), which the waits must
# cover; nothing here asserts an upper bound (speed is bench/'s job).
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

mkfarm --out "$T/farm" --builds 16 --culprit 9 --artifact-size 200000
# 200 kB at 400 kB/s: no download takes less than 0.5 s.
start_server "$T/farm" --rate 400000

# Checks a report: every probe step has a wait of at least FLOOR
# seconds, every step a wait of at least 0, and the run's total is
# their sum (to the rounding of each).
check_waits() { # REPORT FLOOR
	"$PYTHON3" - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
floor = float(sys.argv[2])
steps = r["steps"]
waits = [s.get("wait_seconds") for s in steps]
assert steps, "no steps"
assert all(isinstance(w, (int, float)) and w >= 0 for w in waits), "a step without a wait: %r" % waits
short = [(s["id"], s["wait_seconds"]) for s in steps if s["by"] == "probe" and s["wait_seconds"] < floor]
assert not short, "waits shorter than the download: %r" % short
assert abs(r["wait_seconds"] - sum(waits)) <= 0.001 * len(waits) + 1e-9, \
    "total %r is not the sum of %r" % (r["wait_seconds"], waits)
print("ok")
PY
}

# Without prefetch every tested build is downloaded while the run waits.
run "$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app --json --no-prefetch \
	--cache-dir "$T/cache" --work-dir "$T/work"
echo "$OUT" > "$T/plain.json"
is "$RC/$(json_get "$T/plain.json" first_new.id)" 0/b0009 "no prefetch: found b0009"
is "$(check_waits "$T/plain.json" 0.45 2>&1)" ok "no prefetch: each step waited for its download; the total is their sum"
# Numbers as people and jq expect them: 0.03, not 0.029999999999999999.
unlike "$(cat "$T/plain.json")" '[0-9]\.[0-9]{7,}' "the JSON report writes no number with more than 6 decimals"

# The text report says it in a line of its own.
rm -rf "$T/work" "$T/cache"
run env LC_ALL=C LANGUAGE= "$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app \
	--no-prefetch --cache-dir "$T/cache" --work-dir "$T/work"
is "$RC" 0 "text report: exit 0"
like "$OUT" 'Waited [0-9]+\.[0-9] s in all for builds to be downloaded, checked and unpacked\.' \
	"text report: the total wait"

# Multisection: each step's wait runs from when a probe slot was given
# to its build to when its probe started; the total is still their sum.
rm -rf "$T/work" "$T/cache"
run "$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app --json --jobs 3 \
	--cache-dir "$T/cache" --work-dir "$T/work"
echo "$OUT" > "$T/jobs.json"
is "$RC/$(json_get "$T/jobs.json" first_new.id)" 0/b0009 "--jobs 3: found b0009"
is "$(check_waits "$T/jobs.json" 0 2>&1)" ok "--jobs 3: every step has a wait; the total is their sum"

# A probe that aborts at the third step; the session keeps the waits of
# the first two, and the resumed run reports them with its own.
rm -rf "$T/work" "$T/cache"
cat > "$T/probe.sh" <<'P'
[ "$ARTBISECT_STEP" = 3 ] && [ ! -e "$T/aborted" ] && { : > "$T/aborted"; exit 200; }
./usr/bin/app
P
export T
reset_log
run "$ARTBISECT" --index "$BASE/index.json" --probe "sh $T/probe.sh" --json --no-prefetch \
	--cache-dir "$T/cache" --work-dir "$T/work"
is "$RC" 4 "probe abort: exit 4"
is "$(json_get "$T/work/session.json" steps.1.by)" probe "probe abort: two steps are saved"
saved=$(json_get "$T/work/session.json" steps.0.wait_seconds)
like "$saved" '^[0-9]+(\.[0-9]+)?$' "probe abort: the session keeps a step's wait"
served() { awk '$1 == "GET" && $2 ~ /^\/builds\// {s += $4} END {print s + 0}' "$T/server.log"; }
before=$(served)
is "$(json_get "$T/work/session.json" downloaded_bytes)" "$before" "probe abort: the session keeps the bytes downloaded"
reset_log
run "$ARTBISECT" run --probe "sh $T/probe.sh" --json --work-dir "$T/work" --cache-dir "$T/cache"
echo "$OUT" > "$T/resumed.json"
is "$(json_get "$T/resumed.json" downloaded_bytes)" "$((before + $(served)))" \
	"resumed: the report counts the bytes of both runs"
is "$RC/$(json_get "$T/resumed.json" first_new.id)" 0/b0009 "resumed: found b0009"
# (The third build came in before the probe aborted: now it is cached.)
is "$(check_waits "$T/resumed.json" 0 2>&1)" ok "resumed: every step has a wait; the total is their sum"
tap_ok "$("$PYTHON3" -c 'import json,sys; s=json.load(open(sys.argv[1]))["steps"]; print(0 if min(s[0]["wait_seconds"], s[1]["wait_seconds"]) >= 0.45 else 1)' "$T/resumed.json")" \
	"resumed: the first two steps keep the waits of their downloads"
is "$(json_get "$T/resumed.json" steps.0.wait_seconds)" "$saved" "resumed: the first step's wait is the saved one"

# The session log keeps them too: a replayed session reports the same.
run "$ARTBISECT" log --work-dir "$T/work"
echo "$OUT" > "$T/session.log"
like "$OUT" '# probe, [0-9.]+ s, waited [0-9.]+ s' "log: a step's comment has its wait"
run "$ARTBISECT" reset --work-dir "$T/work"
run "$ARTBISECT" replay "$T/session.log" --work-dir "$T/work"
is "$RC" 0 "replay: exit 0"
run "$ARTBISECT" status --json --work-dir "$T/work"
echo "$OUT" > "$T/replayed.json"
pick() { "$PYTHON3" -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r.get("downloaded_bytes"), [s.get("wait_seconds") for s in r["steps"]])' "$1"; }
is "$(pick "$T/replayed.json")" "$(pick "$T/resumed.json")" "replay: the same step waits and bytes as the session logged"

# A session written before waits were measured: its steps have none,
# and the report says nothing about them rather than a made-up zero.
"$PYTHON3" - "$T/work/session.json" <<'PY'
import json, sys
p = sys.argv[1]
s = json.load(open(p))
for st in s["steps"]:
    st.pop("wait_seconds", None)
json.dump(s, open(p, "w"))
PY
run "$ARTBISECT" status --json --work-dir "$T/work"
is "$RC" 0 "old session: status works"
echo "$OUT" > "$T/old.json"
is "$(json_get "$T/old.json" steps.0.by)" probe "old session: status lists the steps"
fails "old session: a step has no wait" json_get "$T/old.json" steps.0.wait_seconds
is "$(json_get "$T/old.json" wait_seconds 2>/dev/null || echo absent)" absent "old session: no total wait"

plan_done
