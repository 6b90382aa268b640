#!/bin/bash
# The outside contract (CONTRACT.md), clause by clause where no other
# test checks it: the JSON report's fields, their types and when each is
# there, in every kind of result (found, inconclusive, aborted, the
# failures of exit 3, --flaky, --check-bounds) with the exit status that
# goes with it; status --json; the probe's exit statuses at their
# boundaries (124, 126/127 on the first build, 128); the index's optional
# fields, unknown keys, guessed types and commit prefixes; the default
# cache and work directories. All on real farms over 127.0.0.1.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

# 16 builds, b0009 the first bad one.
mkfarm --out "$T/farm" --builds 16 --culprit 9
start_server "$T/farm"
IDX="$T/farm/index.json"
ab() { "$ARTBISECT" --index "$BASE/index.json" --cache-dir "$T/cache" "$@"; }
# The probe, counting its runs in $T/runs.
cat > "$T/probe.sh" <<'P'
echo "$ARTBISECT_BUILD" >> "$RUNS"
exec ./usr/bin/app
P
export RUNS="$T/runs"
P="sh $T/probe.sh"
runs() { if [ -f "$RUNS" ]; then wc -l < "$RUNS" | tr -d ' '; else echo 0; fi; }

# The report as section 6 fixes it. check.py REPORT INDEX [KEY=VALUE...]:
# prints "ok" or what is wrong. mode=status checks the status --json
# object of section 4 instead; result=, tested= and ncand= (a number, or
# ">1") are checked when given.
cat > "$T/check.py" <<'PY'
import json, sys
rep, idx = sys.argv[1], sys.argv[2]
want = dict(a.split("=", 1) for a in sys.argv[3:])
bad = []
try:
    d = json.loads(open(rep, encoding="utf-8").read())
except ValueError as e:
    print("standard output is not exactly one JSON value: %s" % e)
    sys.exit(0)
builds = json.load(open(idx, encoding="utf-8"))["builds"]
ids = [b["id"] for b in builds]
def isint(v): return isinstance(v, int) and not isinstance(v, bool)
def isnum(v): return isinstance(v, (int, float)) and not isinstance(v, bool)
def ref(name, v, commit=True):
    if not isinstance(v, dict):
        bad.append("%s is not an object: %r" % (name, v)); return
    if not isinstance(v.get("id"), str): bad.append("%s.id is not a string" % name)
    i = v.get("index")
    if not isint(i) or not 0 <= i < len(ids) or ids[i] != v.get("id"):
        bad.append("%s.index %r is not the position of %r" % (name, i, v.get("id"))); return
    if commit:
        if "commit" not in v: bad.append("%s.commit is missing" % name)
        elif v["commit"] != builds[i].get("commit"):
            bad.append("%s.commit %r is not the build's (%r)" % (name, v["commit"], builds[i].get("commit")))
if not isinstance(d, dict):
    print("not an object"); sys.exit(0)
status = want.get("mode") == "status"
keys = ("result", "current", "candidates", "steps") if status else \
    ("result", "terms", "last_old", "first_new", "candidates", "compare_url", "steps", "tested", "builds")
for k in keys:
    if k not in d: bad.append("%s is missing" % k)
if bad:
    print("; ".join(bad)); sys.exit(0)
results = ("running", "found", "inconclusive", "aborted") if status else ("found", "inconclusive", "aborted")
if d["result"] not in results: bad.append("result %r" % d["result"])
if "result" in want and d["result"] != want["result"]: bad.append("result %r, expected %s" % (d["result"], want["result"]))
if status:
    if d["current"] is not None:
        ref("current", d["current"], commit=False)
        if d["result"] != "running": bad.append("current set when the session is %s" % d["result"])
else:
    t = d["terms"]
    if not isinstance(t, dict) or sorted([t.get("old"), t.get("new")]) != ["bad", "good"]:
        bad.append("terms %r" % t)
    ref("last_old", d["last_old"])
    if d["result"] == "found":
        ref("first_new", d["first_new"])
    elif d["first_new"] is not None:
        bad.append("first_new %r when the result is %s" % (d["first_new"], d["result"]))
    if not (d["compare_url"] is None or isinstance(d["compare_url"], str)): bad.append("compare_url %r" % d["compare_url"])
    if not isint(d["tested"]) or d["tested"] < 0: bad.append("tested %r" % d["tested"])
    if "tested" in want and str(d["tested"]) != want["tested"]: bad.append("tested %r, expected %s" % (d["tested"], want["tested"]))
    if not isint(d["builds"]) or d["builds"] != len(ids): bad.append("builds %r, the index has %d" % (d["builds"], len(ids)))
c = d["candidates"]
if not isinstance(c, list) or not all(isinstance(x, str) and x in ids for x in c):
    bad.append("candidates %r are not ids of the index" % c)
else:
    pos = [ids.index(x) for x in c]
    if pos != sorted(set(pos)): bad.append("candidates %r are not oldest first" % c)
    if not status and d["result"] == "found" and isinstance(d["first_new"], dict) and c != [d["first_new"]["id"]]:
        bad.append("found, but candidates %r are not [first_new]" % c)
    if not status and d["result"] == "inconclusive" and len(c) < 2:
        bad.append("inconclusive with candidates %r" % c)
    if not status and c and isinstance(d["last_old"], dict) and pos[0] != d["last_old"].get("index", -9) + 1:
        bad.append("candidates do not start right after last_old")
    n = want.get("ncand")
    if n == ">1" and len(c) < 2 or n not in (None, ">1") and len(c) != int(n):
        bad.append("%d candidates, expected %s" % (len(c), n))
if not isinstance(d["steps"], list): bad.append("steps is not a list")
for k, s in enumerate(d["steps"] if isinstance(d["steps"], list) else []):
    if not isinstance(s, dict): bad.append("steps.%d is not an object" % k); continue
    for f in ("id", "index", "verdict", "by", "seconds"):
        if f not in s: bad.append("steps.%d.%s is missing" % (k, f))
    ref("steps.%d" % k, s, commit=False)
    if s.get("verdict") not in ("good", "bad", "skip"): bad.append("steps.%d.verdict %r" % (k, s.get("verdict")))
    if s.get("by") not in ("probe", "user", "timeout", "unavailable", "failed-build", "replay"):
        bad.append("steps.%d.by %r" % (k, s.get("by")))
    if not isnum(s.get("seconds")) or s["seconds"] < 0: bad.append("steps.%d.seconds %r" % (k, s.get("seconds")))
print("; ".join(bad) if bad else "ok")
PY
# report_ok DESC FILE [INDEX] [KEY=VALUE...]
report_ok() {
	local desc=$1 file=$2 idx=$IDX
	shift 2
	if [ $# -gt 0 ] && [ -f "$1" ]; then idx=$1; shift; fi
	is "$("$PYTHON3" "$T/check.py" "$file" "$idx" "$@")" ok "$desc: the report's fields and types"
}
# field FILE PATH: one value of a saved report.
field() { json_get "$1" "$2"; }

# --- found (section 5: exit 0, first_new set) ---------------------------
: > "$RUNS"
run ab --work-dir "$T/w-found" --probe "$P" --json
echo "$OUT" > "$T/found.json"
is "$RC/$(field "$T/found.json" first_new.id)" 0/b0009 "found: exit 0, first_new b0009"
report_ok "found" "$T/found.json" result=found ncand=1 tested="$(runs)"
has_step "$OUT" by=probe verdict=bad
tap_ok $? "found: a bad verdict by the probe is among the steps"

# --- the probe's statuses at their edges (section 3, 4b) -----------------
run ab --work-dir "$T/w-124" --probe 'test "$ARTBISECT_STEP" = 1 && exit 124; exit 0' --json
echo "$OUT" > "$T/124.json"
is "$RC/$(field "$T/124.json" steps.0.verdict)/$(field "$T/124.json" steps.0.by)" 0/bad/probe \
	"status 124 is bad"
for st in 126 127; do
	run ab --work-dir "$T/w-$st" --probe "exit $st" --json
	echo "$OUT" > "$T/$st.json"
	is "$RC/$(field "$T/$st.json" result)/$(field "$T/$st.json" steps)" "4/aborted/[]" \
		"status $st on the first build run: exit 4, aborted, no verdict"
	report_ok "status $st on the first build" "$T/$st.json" result=aborted
	is "$("$ARTBISECT" status --json --work-dir "$T/w-$st" | json_get - result)" aborted \
		"status $st on the first build: the session is kept, aborted"
done
run ab --work-dir "$T/w-128" --probe 'exit 128' --json
echo "$OUT" > "$T/128.json"
is "$RC/$(field "$T/128.json" result)" 4/aborted "status 128: exit 4, aborted"
report_ok "status 128" "$T/128.json" result=aborted
run "$ARTBISECT" run --work-dir "$T/w-128" --cache-dir "$T/cache" --probe "$P" --json
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0009 "after status 128: run goes on and finds b0009"

# --- timeouts: bad, or skip (section 3) ----------------------------------
run ab --work-dir "$T/w-to" --good b0007 --bad b0011 --timeout 0.3 --json \
	--probe './usr/bin/app || sleep 30'
echo "$OUT" > "$T/timeout.json"
is "$RC/$(field "$T/timeout.json" first_new.id)" 0/b0009 "timeouts as bad: found b0009"
report_ok "timeouts as bad" "$T/timeout.json" result=found
has_step "$OUT" by=timeout verdict=bad
tap_ok $? "a timeout is a step by timeout, verdict bad"
run ab --work-dir "$T/w-tos" --good b0007 --bad b0011 --timeout 0.3 --timeout-verdict skip --json \
	--probe './usr/bin/app || sleep 30'
echo "$OUT" > "$T/timeout-skip.json"
is "$RC" 1 "--timeout-verdict skip: every bad build skipped, exit 1"
report_ok "timeouts as skip" "$T/timeout-skip.json" result=inconclusive ncand=">1"
has_step "$OUT" by=timeout verdict=skip
tap_ok $? "a timeout with --timeout-verdict skip is a step by timeout, verdict skip"

# --- inconclusive: skips and failed builds (exit 1) ----------------------
mkfarm --out "$T/sk" --builds 16 --culprit 9 --skip-builds 8,9 --failed 10
# A failed build is never downloaded, even when it lists artifacts.
"$PYTHON3" - "$T/sk/index.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["builds"][10]["artifacts"] = [dict(d["builds"][11]["artifacts"][0], url="builds/failed-but-listed.tar.gz")]
json.dump(d, open(sys.argv[1], "w"))
PY
cp "$T/sk/builds/b0011.tar.gz" "$T/sk/builds/failed-but-listed.tar.gz"
start_server "$T/sk"
: > "$RUNS"
run ab --work-dir "$T/w-sk" --probe "$P" --json
echo "$OUT" > "$T/sk.json"
is "$RC/$(field "$T/sk.json" result)" 1/inconclusive "skips and a failed build around the culprit: exit 1"
report_ok "inconclusive" "$T/sk.json" "$T/sk/index.json" result=inconclusive tested="$(runs)"
is "$(field "$T/sk.json" candidates)" '["b0008", "b0009", "b0010", "b0011"]' "inconclusive: every build that may be the first bad one"
has_step "$OUT" id=b0010 by=failed-build verdict=skip
tap_ok $? "the failed build counts as skip, by failed-build"
is "$(count_requests 'failed-but-listed')" 0 "a failed build is never downloaded"
start_server "$T/farm"

# --- every build unavailable: exit 3, still one report -------------------
mkfarm --out "$T/gone" --builds 6 --culprit 3 --missing 1-4
# (A cache of its own: mkfarm's builds are the same bytes in every farm
# of that size and culprit, and one found in the cache is available.)
run "$ARTBISECT" --index "$T/gone/index.json" --cache-dir "$T/cache-gone" --work-dir "$T/w-gone" --probe "$P" --json
echo "$OUT" > "$T/gone.json"
is "$RC" 3 "every build unavailable: exit 3"
report_ok "every build unavailable" "$T/gone.json" "$T/gone/index.json" result=inconclusive tested=0
is "$("$PYTHON3" -c 'import json,sys; s=json.load(open(sys.argv[1]))["steps"]; print(len(s) > 0 and all(x["by"] == "unavailable" and x["verdict"] == "skip" and isinstance(x.get("reason"), str) for x in s))' "$T/gone.json")" True \
	"every build unavailable: each step is skip by unavailable, with its reason"

# --- a cache that cannot be written: exit 3, still one report ------------
touch "$T/notadir"
run "$ARTBISECT" --index "$BASE/index.json" --cache-dir "$T/notadir/cache" --work-dir "$T/w-nocache" --probe "$P" --json
echo "$OUT" > "$T/nocache.json"
is "$RC" 3 "a cache that cannot be written: exit 3"
report_ok "a cache that cannot be written" "$T/nocache.json" result=aborted tested=0
like "$ERR" 'cache directory .* is not writable' "it says why on standard error"

# --- bad input: exit 2, nothing downloaded -------------------------------
commit3=$(json_get "$IDX" builds.3.commit)
reset_log
run ab --work-dir "$T/w-pfx" --probe "$P" --json --good "${commit3:0:7}" --bad b0012
is "$RC/$(echo "$OUT" | json_get - last_old.id)/$(echo "$OUT" | json_get - first_new.id)" 0/b0008/b0009 \
	"a 7-character commit prefix names a build"
is "$(echo "$OUT" | "$PYTHON3" -c 'import json,sys; print(sorted(set(s["index"] for s in json.load(sys.stdin)["steps"]) & {3, 12}))')" "[]" \
	"--good and --bad are taken as given, not tested again"
reset_log
run ab --work-dir "$T/w-short" --probe "$P" --json --good "${commit3:0:6}"
is "$RC/$OUT" 2/ "a 6-character commit prefix: exit 2, nothing on standard output"
like "$ERR" "unknown build '${commit3:0:6}'" "it says which name is unknown"
# Two builds whose commits share a 7-character prefix.
"$PYTHON3" - "$IDX" "$T/farm/twins.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["builds"][4]["commit"] = "abcdef1" + "0" * 33
d["builds"][6]["commit"] = "abcdef1" + "1" * 33
json.dump(d, open(sys.argv[2], "w"))
PY
run "$ARTBISECT" --index "$BASE/twins.json" --cache-dir "$T/cache" --work-dir "$T/w-twins" --probe "$P" --good abcdef1
is "$RC" 2 "a commit prefix two builds share: exit 2"
like "$ERR" 'ambiguous' "it says the name is ambiguous"
run "$ARTBISECT" --index "$BASE/twins.json" --cache-dir "$T/cache" --work-dir "$T/w-twins" --probe "$P" --good abcdef10 --json
is "$RC/$(echo "$OUT" | json_get - last_old.index)" 0/8 "a longer prefix that is unique names the build"
reset_log
run ab --work-dir "$T/w-rev" --probe "$P" --json --good b0005 --bad b0005
is "$RC/$OUT" 2/ "good not older than bad: exit 2, nothing on standard output"
is "$(count_requests '^GET /builds/')" 0 "bad input downloads nothing"

# --- --find-fix: the roles of the ends swap (sections 2 and 4) ----------
mkfarm --out "$T/fix" --builds 16 --fix-at 6
run "$ARTBISECT" --index "$T/fix/index.json" --cache-dir "$T/cache" --work-dir "$T/w-fix" \
	--probe "$P" --find-fix --bad b0002 --json
echo "$OUT" > "$T/fix.json"
is "$RC/$(field "$T/fix.json" first_new.id)/$(field "$T/fix.json" terms.old)/$(field "$T/fix.json" terms.new)" \
	0/b0006/bad/good "--find-fix --bad b0002: the fix b0006, terms bad then good"
report_ok "--find-fix" "$T/fix.json" "$T/fix/index.json" result=found
is "$(echo "$OUT" | "$PYTHON3" -c 'import json,sys; print(max(s["index"] for s in json.load(sys.stdin)["steps"]) < 15)')" True \
	"--find-fix: --good defaults to the newest build (never tested)"

# --- --jobs 2 ------------------------------------------------------------
: > "$RUNS"
run ab --work-dir "$T/w-jobs" --probe "$P" --jobs 2 --json
echo "$OUT" > "$T/jobs.json"
is "$RC/$(field "$T/jobs.json" first_new.id)" 0/b0009 "--jobs 2: found b0009"
report_ok "--jobs 2" "$T/jobs.json" result=found

# --- --check-bounds: an end that is not what it was given as (4b) -------
: > "$RUNS"
run ab --work-dir "$T/w-cb" --probe "$P" --check-bounds --good b0010 --json
echo "$OUT" > "$T/cb.json"
is "$RC/$(field "$T/cb.json" result)" 1/inconclusive "--check-bounds, good end bad: exit 1, inconclusive"
report_ok "--check-bounds failure" "$T/cb.json" result=inconclusive tested=2 ncand=5
is "$(runs)" 2 "--check-bounds failure: the two ends were the only probe runs"
run ab --work-dir "$T/w-cb2" --probe "$P" --check-bounds --json
echo "$OUT" > "$T/cb2.json"
is "$RC/$(field "$T/cb2.json" first_new.id)" 0/b0009 "--check-bounds, ends as given: found b0009"
report_ok "--check-bounds passed" "$T/cb2.json" result=found

# --- --flaky (4b) --------------------------------------------------------
: > "$RUNS"
run ab --work-dir "$T/w-fl" --probe "$P" --flaky --json
echo "$OUT" > "$T/flaky.json"
is "$RC/$(field "$T/flaky.json" first_new.id)" 0/b0009 "--flaky: found b0009"
report_ok "--flaky, found" "$T/flaky.json" result=found ncand=1 tested="$(runs)"
: > "$RUNS"
run ab --work-dir "$T/w-fl2" --probe "$P" --flaky --max-probes 2 --json
echo "$OUT" > "$T/flaky2.json"
is "$RC/$(field "$T/flaky2.json" result)" 1/inconclusive "--flaky stopped after 2 runs: exit 1, inconclusive"
report_ok "--flaky, inconclusive" "$T/flaky2.json" result=inconclusive ncand=">1" tested=2
is "$("$PYTHON3" -c '
import json, sys
d = json.load(open(sys.argv[1]))
top = d["flaky"]["ranked"][0]["probability"]
print(all(r["id"] in d["candidates"] for r in d["flaky"]["ranked"] if r["probability"] >= top - 1e-9))
' "$T/flaky2.json")" True "--flaky, inconclusive: every most likely build is among the candidates"

# --- by hand: start, good/bad, status --json, replay (section 4) ---------
W="$T/w-hand"
hab() { "$ARTBISECT" --work-dir "$W" --cache-dir "$T/cache" "$@"; }
run hab start --index "$BASE/index.json"
is "$RC" 0 "start: exit 0"
hab status --json > "$T/st1.json"
report_ok "status --json, running" "$T/st1.json" mode=status result=running
like "$(field "$T/st1.json" current.id)" '^b00[0-9][0-9]$' "status --json: current names the build waiting"
n=0
while [ "$(hab status --json | json_get - result)" = running ] && [ $n -lt 8 ]; do
	id=$(hab status --json | json_get - current.id)
	if [ "$((10#${id#b}))" -ge 9 ]; then v=bad; else v=good; fi
	run hab "$v" --json
	n=$((n + 1))
done
echo "$OUT" > "$T/hand.json"
is "$RC/$(field "$T/hand.json" first_new.id)" 0/b0009 "the last verdict by hand: exit 0, the report names b0009"
report_ok "by hand" "$T/hand.json" result=found
has_step "$OUT" by=user
tap_ok $? "verdicts by hand are steps by user"
hab status --json > "$T/st2.json"
report_ok "status --json, found" "$T/st2.json" mode=status result=found
is "$(field "$T/st2.json" current)" null "status --json: nothing waiting once found"
printf 'artbisect start --index %s\nbad b0012\ngood b0004\n' "$BASE/index.json" > "$T/hand.log"
run "$ARTBISECT" replay "$T/hand.log" --work-dir "$T/w-replay" --cache-dir "$T/cache"
run "$ARTBISECT" run --work-dir "$T/w-replay" --cache-dir "$T/cache" --probe "$P" --json
echo "$OUT" > "$T/replay.json"
is "$RC/$(field "$T/replay.json" first_new.id)" 0/b0009 "a replayed log, then run: found b0009"
report_ok "replay then run" "$T/replay.json" result=found
has_step "$OUT" id=b0012 by=replay verdict=bad
tap_ok $? "the log's verdicts are steps by replay"

# --- the index: optional fields, unknown keys, guessed types (section 1) --
mkdir -p "$T/min/builds"
"$PYTHON3" - "$IDX" "$T/farm" "$T/min" <<'PY'
import bz2, gzip, hashlib, json, os, sys
src, farm, out = sys.argv[1:]
d = json.load(open(src))
m = {"format": "artbisect-index", "version": 1, "some-future-key": {"x": [1]},
     "vcs": {"compare_url": "https://git.example.org/c?{old}..{new}", "future": 1}, "builds": []}
for i, b in enumerate(d["builds"]):
    raw = gzip.decompress(open(os.path.join(farm, b["artifacts"][0]["url"]), "rb").read())
    name, data = (b["id"] + ".tar.bz2", bz2.compress(raw)) if i % 2 else (b["id"] + ".tgz", gzip.compress(raw, mtime=0))
    open(os.path.join(out, "builds", name), "wb").write(data)
    # no commit, date, version, status, size, type or name; unknown keys
    m["builds"].append({"id": b["id"], "later": True,
                        "artifacts": [{"url": "builds/" + name, "sha256": hashlib.sha256(data).hexdigest(), "later": 2}]})
json.dump(m, open(os.path.join(out, "index.json"), "w"))
PY
start_server "$T/min"
run "$ARTBISECT" --index "$BASE/index.json" --cache-dir "$T/cache" --work-dir "$T/w-min" --json \
	--probe 'echo "commit=[$ARTBISECT_COMMIT] version=[$ARTBISECT_VERSION]" >> "$RUNS.env"; ./usr/bin/app'
echo "$OUT" > "$T/min.json"
is "$RC/$(field "$T/min.json" first_new.id)" 0/b0009 "an index with only the required fields, unknown keys and .tgz/.tar.bz2 names: found b0009"
report_ok "index without optional fields" "$T/min.json" "$T/min/index.json" result=found
is "$(field "$T/min.json" first_new.commit)" null "no commit in the index: the report's commit is null"
is "$(field "$T/min.json" compare_url)" "https://git.example.org/c?b0008..b0009" "compare_url: {old} and {new} are the ids when there is no commit"
is "$(sort -u "$RUNS.env")" "commit=[] version=[]" "ARTBISECT_COMMIT and ARTBISECT_VERSION are empty"
start_server "$T/farm"

# --- default directories (section 4) -------------------------------------
run "$ARTBISECT" --index "$BASE/index.json" --probe "$P" --json
is "$RC" 0 "no --cache-dir, no --work-dir: found"
cached=$(find "$XDG_CACHE_HOME/artbisect" -type f -path '*/sha256/*' | wc -l)
tap_ok $(( cached >= $(echo "$OUT" | json_get - tested) && cached > 0 ? 0 : 1 )) \
	"the verified downloads are under \$XDG_CACHE_HOME/artbisect ($cached files)"
run "$ARTBISECT" status --json
is "$RC/$(echo "$OUT" | json_get - result)" 0/found "the session is under \$XDG_STATE_HOME/artbisect (status finds it)"
test -f "$XDG_STATE_HOME/artbisect/session.json"
tap_ok $? "its file is \$XDG_STATE_HOME/artbisect/session.json"

plan_done
