#!/bin/bash
# --check-bounds: the good and the bad end are probed before the first
# midpoint (at once with --jobs 2); an end that is not what it was given
# as, or cannot be tested, ends the run with exit 1 and a report that
# says which end and why. The ends' runs are steps of their own: the
# range does not move, a resumed session does not check them again, and
# a replay keeps them apart from the midpoints.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

# 32 builds, b0010 the first bad one.
mkfarm --out "$T/farm" --builds 32 --culprit 10 >/dev/null
start_server "$T/farm"
ab() { "$ARTBISECT" --index "$BASE/index.json" --cache-dir "$T/cache" --work-dir "$T/work" "$@"; }
fresh() { rm -rf "$T/cache" "$T/work"; reset_log; }
# step_ids JSON-FILE: the steps' ids, bound steps marked "id:old|new".
step_ids() {
	"$PYTHON3" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(s["id"] + (":" + s["bound"] if "bound" in s else "") for s in d["steps"]))
' "$1"
}
builds_fetched() { awk '$1=="GET" && $2 ~ /^\/builds\// {print $2}' "$T/server.log" | sort -u | tr '\n' ' '; }

# --- the good end is bad: stop before any midpoint -----------------------
fresh
run ab --probe ./usr/bin/app --check-bounds --good b0012 --bad b0020 --json
echo "$OUT" > "$T/swapped.json"
is "$RC" 1 "good end after the culprit: exit 1 (inconclusive)"
is "$(step_ids "$T/swapped.json")" "b0012:old b0020:new" "good end after the culprit: the steps are the two ends only"
is "$(builds_fetched)" "/builds/b0012.tar.gz /builds/b0020.tar.gz " \
	"good end after the culprit: only the two ends were downloaded"
is "$(json_get "$T/swapped.json" result)/$(json_get "$T/swapped.json" first_new)" "inconclusive/null" \
	"good end after the culprit: result inconclusive, no first_new"
is "$(json_get "$T/swapped.json" bounds.checked)/$(json_get "$T/swapped.json" bounds.ok)/$(json_get "$T/swapped.json" bounds.old)/$(json_get "$T/swapped.json" bounds.new)" \
	"true/false/bad/bad" "good end after the culprit: bounds says the old end is bad"
like "$(json_get "$T/swapped.json" bounds.message)" '^the good end b0012 is bad \(the probe exited 1\): the problem is older than the range$' \
	"good end after the culprit: the message names the end and why"
like "$ERR" 'the good end b0012 is bad .*older than the range' "good end after the culprit: the text report says it"
like "$ERR" '^Given as good: +b0012' "and names it as given, not as the last good build"
unlike "$ERR" 'Last good build' "(which it is not)"
is "$(json_get "$T/swapped.json" tested)/$(json_get "$T/swapped.json" builds)" "2/32" "tested counts the two end probes"
is "$(json_get "$T/swapped.json" last_old.id)" b0012 "the ends' verdicts do not move the range (last_old stays b0012)"

# The report file (Markdown) says it in one line too.
fresh
run ab --probe ./usr/bin/app --check-bounds --good b0012 --bad b0020 --report "$T/swapped.md"
is "$RC" 1 "--report: exit 1"
is "$(grep -c 'the good end b0012 is bad (the probe exited 1): the problem is older than the range' "$T/swapped.md")" 1 \
	"--report: the Markdown report has the line"

# A replay of that session is the same inconclusive end, not a conflict.
"$ARTBISECT" log --work-dir "$T/work" > "$T/swapped.log"
like "$(grep b0012 "$T/swapped.log")" '^artbisect bad -- b0012  # check-bounds ' "log: the end's verdict is marked as a check"
rm -rf "$T/work2"
run "$ARTBISECT" replay "$T/swapped.log" --cache-dir "$T/cache" --work-dir "$T/work2" --json
is "$RC" 1 "replay of a failed check: exit 1, the same result (not a contradiction, exit 2)"

# An id with HTML and Markdown in it goes into that line escaped.
cp -r "$T/farm" "$T/mdfarm"
"$PYTHON3" - "$T/mdfarm/index.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["builds"][12]["id"] = "<img src=x>|*b12*"
json.dump(d, open(sys.argv[1], "w"))
PY
fresh
run "$ARTBISECT" --index "$T/mdfarm/index.json" --cache-dir "$T/cache" --work-dir "$T/work" \
	--probe ./usr/bin/app --check-bounds --good '<img src=x>|*b12*' --bad b0020 --report "$T/md.md"
is "$RC" 1 "an id with Markdown in it: exit 1"
like "$(grep 'older than the range' "$T/md.md")" '^The ends were checked first \(--check-bounds\): the good end &lt;img src=x&gt;\\\|\\\*b12\\\* is bad' \
	"an id with Markdown in it: escaped in the Markdown report's line"

# --- the bad end is good -------------------------------------------------
fresh
run ab --probe ./usr/bin/app --check-bounds --good b0002 --bad b0008 --json
echo "$OUT" > "$T/early.json"
is "$RC" 1 "bad end before the culprit: exit 1"
is "$(step_ids "$T/early.json")" "b0002:old b0008:new" "bad end before the culprit: only the two ends"
is "$(json_get "$T/early.json" bounds.old)/$(json_get "$T/early.json" bounds.new)" "good/good" \
	"bad end before the culprit: bounds says the new end is good"
like "$(json_get "$T/early.json" bounds.message)" '^the bad end b0008 is good \(the probe exited 0\): the problem does not show in it$' \
	"bad end before the culprit: the message"

# --- the normal case: the ends, then the usual midpoints -----------------
fresh
run ab --probe ./usr/bin/app --json
echo "$OUT" > "$T/plain.json"
fresh
run ab --probe ./usr/bin/app --check-bounds --json
echo "$OUT" > "$T/checked.json"
is "$RC/$(json_get "$T/checked.json" first_new.id)" 0/b0010 "ends as expected: found b0010"
is "$(step_ids "$T/checked.json")" "b0000:old b0031:new $(step_ids "$T/plain.json")" \
	"ends as expected: the steps are the two ends, then the plain bisection's"
is "$(json_get "$T/checked.json" bounds.ok)/$(json_get "$T/checked.json" bounds.old)/$(json_get "$T/checked.json" bounds.new)" \
	"true/good/bad" "ends as expected: bounds ok"
is "$(json_get "$T/plain.json" bounds)" "" "without --check-bounds: no bounds object"
like "$ERR" 'The ends were checked first \(--check-bounds\): b0000 is good, b0031 is bad\.' \
	"ends as expected: the text report says so in one line"

# The setting from the environment (as from the config file).
fresh
run env ARTBISECT_CHECK_BOUNDS=yes "$ARTBISECT" --index "$BASE/index.json" --cache-dir "$T/cache" \
	--work-dir "$T/work" --probe ./usr/bin/app --good b0012 --bad b0020 --json
is "$RC/$(echo "$OUT" | json_get - bounds.old)" 1/bad "ARTBISECT_CHECK_BOUNDS=yes turns the check on"

# --- an end that cannot be tested ----------------------------------------
mkfarm --out "$T/odd" --builds 32 --culprit 10 --skip-builds 0 --missing 31 >/dev/null
start_server "$T/odd"
fresh
run ab --probe ./usr/bin/app --check-bounds --json
echo "$OUT" > "$T/odd.json"
is "$RC" 1 "a skipped and an unavailable end: exit 1"
is "$(json_get "$T/odd.json" bounds.old)/$(json_get "$T/odd.json" bounds.new)" "skip/unavailable" \
	"a skipped and an unavailable end: bounds says which"
like "$(json_get "$T/odd.json" bounds.message)" '^the good end b0000 could not be tested \(the probe exited 125\): the check cannot say whether it is good; the bad end b0031 is unavailable \(.*\): the check cannot say whether it is bad$' \
	"a skipped and an unavailable end: the message says the ends could not be tested"
is "$(step_ids "$T/odd.json")" "b0000:old b0031:new" "a skipped and an unavailable end: no midpoint"
start_server "$T/farm"

# --- an abort on an end aborts as usual ----------------------------------
fresh
run ab --probe 'exit 200' --check-bounds --json
is "$RC/$(echo "$OUT" | json_get - result)" 4/aborted "a probe status 200 on an end: exit 4, aborted"

# --- --find-fix: the good end is the newer one ---------------------------
mkfarm --out "$T/fix" --builds 32 --fix-at 10 >/dev/null
start_server "$T/fix"
fresh
run ab --probe ./usr/bin/app --check-bounds --find-fix --json
echo "$OUT" > "$T/fix.json"
is "$RC/$(json_get "$T/fix.json" first_new.id)" 0/b0010 "--find-fix: found the fix b0010"
is "$(json_get "$T/fix.json" bounds.ok)/$(json_get "$T/fix.json" bounds.old)/$(json_get "$T/fix.json" bounds.new)" \
	"true/bad/good" "--find-fix: the old end is bad, the new end good, as given"
like "$(step_ids "$T/fix.json")" '^b0000:old b0031:new ' "--find-fix: the ends come first"
fresh
run ab --probe ./usr/bin/app --check-bounds --find-fix --bad b0012 --good b0020 --json
echo "$OUT" > "$T/fix-bad.json"
is "$RC" 1 "--find-fix, bad end after the fix: exit 1"
like "$(json_get "$T/fix-bad.json" bounds.message)" '^the bad end b0012 is good \(the probe exited 0\): the fix is older than the range$' \
	"--find-fix, bad end after the fix: the message is in the fix's terms"
is "$(step_ids "$T/fix-bad.json")" "b0012:old b0020:new" "--find-fix, bad end after the fix: only the two ends"
start_server "$T/farm"

# --- --jobs 2: the two ends are probed at the same time ------------------
cat > "$T/slow.sh" <<'P'
echo "start $ARTBISECT_BUILD" >> "$PROBELOG"
sleep 1
./usr/bin/app; rc=$?
echo "end $ARTBISECT_BUILD" >> "$PROBELOG"
exit $rc
P
export PROBELOG="$T/probe.log"
fresh
: > "$PROBELOG"
run ab --probe "sh $T/slow.sh" --check-bounds --jobs 2 --good b0012 --bad b0020 --json
echo "$OUT" > "$T/jobs.json"
is "$RC" 1 "--jobs 2: exit 1 (the good end is bad)"
is "$(head -2 "$PROBELOG" | awk '{print $1}' | tr '\n' ' ')" "start start " \
	"--jobs 2: both end probes started before either ended"
is "$(step_ids "$T/jobs.json")" "b0012:old b0020:new" "--jobs 2: the old end's step first"
fresh
: > "$PROBELOG"
run ab --probe "sh $T/slow.sh" --check-bounds --jobs 1 --good b0012 --bad b0020
is "$(head -2 "$PROBELOG" | awk '{print $1}' | tr '\n' ' ')" "start end " \
	"--jobs 1: the ends are probed one after the other"

# An abort on one end stops the other end's probe at once.
cat > "$T/abort-new.sh" <<'P'
case $ARTBISECT_BUILD in b0020) sleep 0.3; exit 200 ;; esac
sleep "$SLEEP_TAG"
./usr/bin/app
P
# A sleep no other test uses (pgrep sees only ours), short enough that a
# regression costs 40 s, not a hung test.
export SLEEP_TAG="40.$$"
fresh
t0=$SECONDS
run ab --probe "sh $T/abort-new.sh" --check-bounds --jobs 2 --good b0012 --bad b0020 --json
is "$RC/$(echo "$OUT" | json_get - result)" 4/aborted "--jobs 2: an abort on the bad end: exit 4"
tap_ok $(( SECONDS - t0 < 30 ? 0 : 1 )) "--jobs 2: the good end's probe was stopped, not waited for"
is "$(echo "$OUT" | json_get - steps)" "[]" "--jobs 2: the stopped probe gave no verdict"
pgrep -f "sleep $SLEEP_TAG" >/dev/null
tap_ok $(( $? == 0 ? 1 : 0 )) "--jobs 2: no probe process outlives the abort"

# --- resume: the check is not done twice ---------------------------------
cat > "$T/abort.sh" <<'P'
echo "$ARTBISECT_BUILD" >> "$PROBELOG"
case $ARTBISECT_BUILD in b0000|b0031) exec ./usr/bin/app ;; esac
exit 255
P
fresh
: > "$PROBELOG"
run ab --probe "sh $T/abort.sh" --check-bounds --json
is "$RC" 4 "resume: a probe exiting 255 on the first midpoint aborts (exit 4)"
run "$ARTBISECT" status --json --work-dir "$T/work"
echo "$OUT" > "$T/status.json"
is "$(step_ids "$T/status.json")" "b0000:old b0031:new" "resume: status shows the two checked ends"
like "$("$ARTBISECT" log --work-dir "$T/work" | grep '^artbisect start')" ' --check-bounds( |$)' \
	"resume: the session keeps --check-bounds"
"$ARTBISECT" log --work-dir "$T/work" > "$T/aborted.log"
: > "$PROBELOG"
run "$ARTBISECT" run --probe "sh $T/slow.sh" --work-dir "$T/work" --cache-dir "$T/cache" --json
echo "$OUT" > "$T/resumed.json"
is "$RC/$(json_get "$T/resumed.json" first_new.id)" 0/b0010 "resume: run finishes, found b0010"
is "$(grep -cE '^start (b0000|b0031)$' "$PROBELOG")" 0 "resume: the ends were not probed again"
is "$(step_ids "$T/resumed.json" | tr ' ' '\n' | grep -c ':')" 2 "resume: the ends are in the steps once each"
is "$(json_get "$T/resumed.json" bounds.ok)" true "resume: bounds ok"

# A replay of the interrupted session keeps the ends apart: they are no
# midpoints, and the next build is the first midpoint.
rm -rf "$T/work2"
run "$ARTBISECT" replay "$T/aborted.log" --cache-dir "$T/cache" --work-dir "$T/work2"
is "$RC" 0 "replay of an interrupted session: exit 0"
run "$ARTBISECT" status --json --work-dir "$T/work2"
echo "$OUT" > "$T/status2.json"
is "$(step_ids "$T/status2.json")" "b0000:old b0031:new" "replay: the ends are check steps still"
is "$(json_get "$T/status2.json" current.id)" "$(json_get "$T/plain.json" steps.0.id)" \
	"replay: the build waiting is the first midpoint"

# --- without --probe: the person is asked about the two ends first -------
fresh
run "$PYTHON3" "$TESTS_SRCDIR/person.py" '[]' "$ARTBISECT" --index "$BASE/index.json" --cache-dir "$T/cache" \
	--work-dir "$T/work" --check-bounds --good b0012 --bad b0020
is "$RC" 1 "at the prompt: the good end answered bad gives exit 1"
is "$(sed 's/\x1b\[[0-9;]*m//g' <<<"$OUT" | grep -o 'Is b[0-9]* good or bad' | tr '\n' ' ')" \
	"Is b0012 good or bad Is b0020 good or bad " \
	"at the prompt: the two ends are asked about, and nothing else"
like "$OUT" 'the good end b0012 is bad: the problem is older than the range' "at the prompt: the report says why"

plan_done
