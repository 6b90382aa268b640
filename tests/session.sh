#!/bin/bash
# Sessions (CONTRACT.md section 4): start, good/bad/skip from separate
# processes, status, log/reset/replay, run after an aborting probe and
# after Ctrl-C, the lock, another session in the way, the Markdown
# report, and the settings from the config file and the environment.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

mkfarm --out "$T/farm" --builds 300 --culprit 123 --failed 40 --missing 200
start_server "$T/farm"
W="$T/work"
ab() { "$ARTBISECT" --work-dir "$W" --cache-dir "$T/cache" "$@"; }
status_of() { ab status --json | json_get - "$1"; }

# The build waiting for a verdict, judged the way a person would: run
# the app in its root and look at the answer.
judge_current() {
	local id root
	id=$(status_of current.id)
	root=$(ls -d "$W"/roots/*-"$id" 2>/dev/null | head -n 1)
	[ -n "$root" ] && [ -x "$root/usr/bin/app" ] || return 2
	if (cd "$root" && ./usr/bin/app >/dev/null 2>&1); then echo good; else echo bad; fi
}

# --- the manual flow, one process per step --------------------------------
run ab start --index "$BASE/index.json"
is "$RC" 0 "start: exit 0"
like "$OUT" '^Build b[0-9]{4} is ready to test' "start: says which build to test"
like "$OUT" 'unpacked: .*/roots/[0-9]+-b[0-9]{4}' "start: says where its files are"
like "$OUT" '299 builds may be the first bad one; about 8 more steps' "start: how many builds and steps are left"
like "$OUT" 'artbisect good --work-dir .* if it works' "start: what to type after testing"
is "$(status_of result)" running "status: running"
first=$(status_of current.id)
run ab status
like "$OUT" 'range: +last good b0000, known bad b0299' "status speaks as the report does: 'known bad' until it is found"
is "$(ls -d "$W"/roots/*-"$first" | wc -l)" 1 "the build waiting is unpacked in its root"

# Temporary files of a save that never finished (a killed process) are
# swept by the next step, which holds the lock; other files stay.
echo stale > "$W/session.json.tmp-Ab12Cd"
echo stale > "$W/index.snapshot.tmp-Xy34Zw"
echo mine > "$W/session.json.tmp-notours"

steps=0 last_rc=0 verdicts=""
while [ "$(status_of result)" = running ] && [ $steps -lt 20 ]; do
	v=$(judge_current) || break
	verdicts="$verdicts $v"
	run ab "$v"
	last_rc=$RC
	steps=$((steps + 1))
done
is "$last_rc" 0 "the last verdict exits 0 (found)"
like "$OUT" 'The first bad build is b0123' "the last verdict prints the report"
is "$(status_of result)/$(status_of first_new.id)/$(status_of current)" found/b0123/null \
	"status --json: found b0123, nothing waiting"
tap_ok $(( steps <= 10 ? 0 : 1 )) "found in $steps verdicts by hand"
is "$(cd "$W" && ls -d *.tmp-* | tr '\n' ' ')" "session.json.tmp-notours " \
	"stale temporary files of unfinished saves are swept, nothing else"
rm -f "$W/session.json.tmp-notours"
is "$(ab status --json | json_get - candidates)" '["b0123"]' "status --json: one candidate"
is "$(ls "$W/roots" 2>/dev/null | wc -l)" 0 "judged builds' roots are removed"
run ab good
is "$RC" 0 "a verdict after the end: exit as the result says"
like "$ERR" 'has ended already' "a verdict after the end says so"

# --- log, reset, replay ---------------------------------------------------
ab log > "$T/session.log"
ab status --json > "$T/status1.json"
like "$(head -n 3 "$T/session.log")" "artbisect start --index $BASE/index.json --good b0000 --bad b0299" \
	"log: the start line"
is "$(grep -c '^artbisect \(good\|bad\|skip\) ' "$T/session.log")" "$(json_get "$T/status1.json" steps | "$PYTHON3" -c 'import json,sys; print(len(json.load(sys.stdin)))')" \
	"log: one line per verdict"
run ab reset
is "$RC" 0 "reset: exit 0"
is "$(ls "$W")" "session.lock" "reset: the session and its roots are gone"
tap_ok $(( $(find "$T/cache" -type f | wc -l) > 0 ? 0 : 1 )) "reset: the download cache is kept"
run ab status
is "$RC" 2 "status without a session: exit 2"
like "$ERR" 'no session in' "status without a session says so"
# A mistyped --work-dir: said, with the command that starts a session
# there, and nothing is made.
for cmd in run good status log reset; do
	"$ARTBISECT" $cmd --work-dir "$T/typo-$cmd" > "$T/typo.out" 2> "$T/typo.err"
done
like "$(cat "$T/typo.out" "$T/typo.err")" "There is no session in $T/typo-reset" "reset of a work directory that is not there says so"
run "$ARTBISECT" good --work-dir "$T/typo-good"
like "$RC/$ERR" "^2/artbisect: no session in $T/typo-good; start one with: artbisect start --index URL --work-dir $T/typo-good\$" \
	"good with a mistyped --work-dir: exit 2, the hint keeps the --work-dir"
is "$(ls -d "$T"/typo-* 2>/dev/null | wc -l)" 0 "no work directory was made for any of them"
run ab replay "$T/session.log"
is "$RC" 0 "replay: exit 0 (the replayed session had found it)"
ab status --json > "$T/status2.json"
is "$(cat "$T/status2.json")" "$(cat "$T/status1.json")" "replay gives the same status back"
is "$(ab log)" "$(cat "$T/session.log")" "replay gives the same log back"

# A log written by hand: verdicts are marked as replayed.
ab reset > /dev/null
printf 'artbisect start --index %s\nbad b0149\ngood b0074   # looked at it\n' "$BASE/index.json" > "$T/hand.log"
run ab replay "$T/hand.log"
is "$RC" 0 "replay of a hand-written log: exit 0"
is "$(status_of steps.0.by)/$(status_of steps.1.verdict)/$(status_of result)" replay/good/running \
	"hand-written log: verdicts by replay, session running"
like "$OUT" 'Build b0111 is ready to test' "replay prepares the next build"
like "$(ab status)" "waiting:    b0111, unpacked in $W/roots/[0-9]+-b0111" "status names the root it is unpacked in"
rm -rf "$W"/roots/*-b0111
like "$(ab status)" "waiting:    b0111 \\(not unpacked now: artbisect run --work-dir $W unpacks it again\\)" \
	"and does not name a root that is gone"
printf 'artbisect start --index %s\nartbisect maybe b0149\n' "$BASE/index.json" > "$T/bad.log"
run ab replay "$T/bad.log"
is "$RC" 2 "replay of a bad log: exit 2"
like "$ERR" 'bad.log, line 2: expected start, good, bad or skip' "replay of a bad log names the line"

# A log that reads but cannot be replayed leaves the session it would
# replace as it was: a contradiction, an index out of reach, a bad option.
kept=$(ab status --json)
printf 'artbisect start --index %s\nartbisect good -- b0030\nartbisect bad -- b0010\n' "$BASE/index.json" > "$T/contra.log"
run ab replay "$T/contra.log"
is "$RC" 2 "replay of a contradicting log: exit 2"
like "$ERR" 'contra\.log, line 3: the verdict .bad. on build b0010 contradicts the lines before it' \
	"the message names the log's line"
unlike "$ERR" 'Replacing the session' "nothing was replaced"
is "$(ab status --json)" "$kept" "the session is as it was"
printf 'artbisect start --index http://127.0.0.1:1/index.json\n' > "$T/gone.log"
run ab replay --retry-delay 0 "$T/gone.log"
is "$RC/$(ab status --json)" "2/$kept" "an index out of reach: exit 2, the session as it was"
like "$ERR" "gone\.log, line 1: .*127\.0\.0\.1:1/index\.json" "and the message names the log's line, then the index"
printf 'artbisect start --index %s --bogus\n' "$BASE/index.json" > "$T/opt.log"
run ab replay "$T/opt.log"
like "$RC/$ERR" "^2/.*opt\.log, line 1: unknown option '--bogus'" "a bad option: exit 2, the log's line named"
is "$(ab status --json)" "$kept" "and the session as it was"

# --- wrong verdicts leave the session as it was ---------------------------
before=$(ab status --json)
run ab good b9999
is "$RC" 2 "a verdict on an unknown build: exit 2"
like "$ERR" 'b9999' "the message names the id"
run ab good b0160
is "$RC" 2 "good after the first bad build: exit 2"
like "$ERR" 'b0160 cannot be good: so far the last good build is b0074 and the earliest bad one is b0149' \
	"the message says why"
is "$(ab status --json)" "$before" "refused verdicts change nothing"
run ab skip
is "$RC" 0 "skip: exit 0"
isnt "$(status_of current.id)" b0111 "skip: another build is prepared"
run ab bad b0130
is "$RC" 0 "a verdict on a named build other than the one waiting"
is "$(status_of last_old.id)/$(status_of steps.3.id)/$(status_of steps.3.verdict)" b0074/b0130/bad \
	"the named build's verdict is recorded"

# --- another session in the way -------------------------------------------
run ab --index "$BASE/index.json" --good b0010 --bad b0290 --probe ./usr/bin/app
is "$RC" 2 "a new range while a session runs, no terminal: exit 2"
like "$ERR" "a session for another range \\(b0000 to b0299, 4 verdicts\\) is in progress" \
	"it says so and names the session"
like "$ERR" "^  artbisect run --work-dir $W +continues it,\$" "it says how to continue it, with the work directory"
like "$ERR" "^  artbisect reset --work-dir $W +removes it\\.\$" "... and how to remove it"
is "$(status_of steps.3.id)" b0130 "the session is untouched"
# Typed as suggested, from another directory, it names this session
# (asked with status, so that the session stays as it is).
suggested=$(sed -n 's/^  \(artbisect run .*[^ ]\) *continues it,$/\1/p' "$T/run.err")
run bash -c "cd / && '$ARTBISECT' status ${suggested#artbisect run } --json"
is "$RC/$(echo "$OUT" | json_get - steps.3.id)" 0/b0130 "the suggested --work-dir, pasted elsewhere, names this session"
run ab --index "$BASE/index.json" --probe ./usr/bin/app --json
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0123 "the same range: the session is continued to the end"
like "$ERR" 'Continuing the session in .* \(4 verdicts kept' "it says it continues"
is "$(echo "$OUT" | json_get - steps.0.by)/$(echo "$OUT" | json_get - steps.0.id)" replay/b0149 \
	"the report holds the earlier verdicts"
run ab --index "$BASE/index.json" --good b0010 --bad b0290 --probe ./usr/bin/app --json
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0123 "a finished session makes room for a new one"

# --json: standard output holds one JSON object, the session as status
# --json gives it, also when a step only prepares the next build.
ab reset > /dev/null
run ab start --index "$BASE/index.json" --json
is "$RC/$(printf '%s' "$OUT" | json_get - result)" 0/running "start --json: exit 0, one JSON object: running"
first=$(printf '%s' "$OUT" | json_get - current.id)
like "$first" '^b[0-9]{4}$' "with the build waiting for a verdict"
like "$ERR" "^Build $first is ready to test" "the words for people go to standard error"
run ab "$(judge_current)" --json
is "$RC/$(printf '%s' "$OUT" | json_get - result)" 0/running "a verdict with --json that does not end it: one JSON object"
like "$(printf '%s' "$OUT" | json_get - current.id)" '^b[0-9]{4}$' "naming the next build"
isnt "$(printf '%s' "$OUT" | json_get - current.id)" "$first" "the next one, not the one judged"

# start --report FILE: the command that ends the search writes it, from
# wherever it is typed.
ab reset > /dev/null
mkdir -p "$T/rep"
(cd "$T/rep" && "$ARTBISECT" start --work-dir "$W" --cache-dir "$T/cache" --index "$BASE/index.json" \
	--good b0120 --bad b0124 --report found.md > /dev/null 2>&1)
steps=0
while [ "$(status_of result)" = running ] && [ $steps -lt 5 ]; do
	(cd / && "$ARTBISECT" "$(judge_current)" --work-dir "$W" > /dev/null 2>&1)
	steps=$((steps + 1))
done
is "$(status_of first_new.id)" b0123 "start --report, then verdicts by hand: found"
like "$(cat "$T/rep/found.md" 2>/dev/null)" 'b0123' "the report is written where start was told, by the last verdict"
like "$(ab log)" "--report $T/rep/found\.md" "the session keeps it, by its absolute path"

# --- an aborting probe, then run ------------------------------------------
ab reset > /dev/null
cat > "$T/probe-abort.sh" <<'EOF'
#!/bin/sh
[ "$ARTBISECT_STEP" = 3 ] && exit 200
exec ./usr/bin/app
EOF
chmod +x "$T/probe-abort.sh"
run ab --index "$BASE/index.json" --probe "$T/probe-abort.sh" --json
is "$RC" 4 "a probe exiting 200: exit 4"
is "$(echo "$OUT" | json_get - result)" aborted "the report says aborted"
is "$(echo "$OUT" | json_get - message)" "the probe exited with status 200 on build b0111; stopping" \
	"and says why in its message, as status --json does"
is "$(status_of result)/$(status_of current.id)" aborted/b0111 "status: aborted, waiting on the build being probed"
like "$(ab status)" 'stopped \(the probe exited with status 200 on build b0111' "status says why it stopped"
run ab run --json
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0123 "run finishes it with the saved probe"
is "$(echo "$OUT" | json_get - steps.2.id)/$(echo "$OUT" | json_get - steps.2.by)" b0111/probe \
	"run probes the build again and keeps going"
is "$(echo "$OUT" | json_get - tested)" 9 "no probe run is counted twice"
is "$(ab status --json | json_get - message)" "" "once it has run again, status no longer gives why the earlier run stopped"

# --- an aborting probe, then a verdict by hand -----------------------------
# (CONTRACT.md 4: good|bad|skip records it, then prepares the next build)
ab reset > /dev/null
run ab --index "$BASE/index.json" --probe "$T/probe-abort.sh" --json
is "$RC/$(status_of current.id)" 4/b0111 "aborted again on b0111"
run ab bad
is "$RC" 0 "a verdict by hand after the abort: exit 0"
like "$OUT" '^Build b[0-9]{4} is ready to test' "it prepares the next build and says which"
is "$(status_of result)/$(status_of steps.2.id)" running/b0111 "the session runs again, with the verdict"
is "$(ab status --json | json_get - message)" "" "and status no longer gives why the run stopped"

# --- Ctrl-C, then run -----------------------------------------------------
ab reset > /dev/null
cat > "$T/probe-slow.sh" <<'EOF'
#!/bin/sh
[ "$ARTBISECT_STEP" = 2 ] && [ ! -e "$SLOW_ONCE" ] && touch "$SLOW_ONCE" && sleep 30
exec ./usr/bin/app
EOF
chmod +x "$T/probe-slow.sh"
export SLOW_ONCE="$T/slow-once"
"$ARTBISECT" --work-dir "$W" --cache-dir "$T/cache" --index "$BASE/index.json" \
	--probe "$T/probe-slow.sh" --json > "$T/int.out" 2> "$T/int.err" &
pid=$!
i=0
while [ $i -lt 100 ] && ! [ -e "$SLOW_ONCE" ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.3
kill -INT "$pid"
wait "$pid"
is "$?" 4 "Ctrl-C during a probe: exit 4"
is "$(status_of result)/$(status_of steps.0.id)" aborted/b0149 "the verdict before Ctrl-C is saved"
run ab run --json
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0123 "run after Ctrl-C finds it"
unset SLOW_ONCE

# Ctrl-C before anything is saved (the index still coming): no session
# to go on with, so the hint is the command as typed, which works when
# pasted.
# interrupt_at FILE ERR ARG...: artbisect ARG... in the background,
# stderr to ERR, a Ctrl-C once it is fetching FILE (which stalls); RC
# its exit.
interrupt_at() {
	local file=$1 errf=$2 pid i=0
	shift 2
	set_faults "{\"$file\": [\"always:stall\"]}"
	"$ARTBISECT" "$@" > /dev/null 2> "$errf" &
	pid=$!
	while [ $i -lt 100 ] && [ "$(count_requests "GET /$file")" = 0 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 0.3
	kill -INT "$pid"
	wait "$pid"
	RC=$?
	set_faults '{}'
}
cd "$T"	# relative paths, as typed
interrupt_at index.json "$T/early.err" --work-dir w-early --cache-dir cache \
	--index "$BASE/index.json" --probe ./usr/bin/app
cd - > /dev/null
is "$RC" 4 "Ctrl-C while the index comes: exit 4"
hint=$(sed -n 's/^Nothing was saved yet; to start again: //p' "$T/early.err")
like "$hint" "^cd .* && artbisect --work-dir w-early --cache-dir cache --index .*index\.json --probe ./usr/bin/app$" \
	"Ctrl-C before anything is saved: the hint is the command as typed, from where it was typed"
run bash -c "cd / && PATH=\"$(dirname "$ARTBISECT"):\$PATH\"; $hint --json"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0123 "the command printed, pasted elsewhere, starts again and finds it"
ok "... in the directory it was typed in" test -e "$T/w-early/session.json"

# Ctrl-C while 'start' makes the first build ready: the session is kept,
# and the command printed goes on with it, pasted in another directory.
interrupt_at builds/b0149.tar.gz "$T/start.err" start --work-dir "$T/w-start" \
	--cache-dir "$T/cache-start" --index "$BASE/index.json" --net-timeout 7
is "$RC" 4 "Ctrl-C while start fetches the build: exit 4"
hint=$(sed -n 's/^The session is kept in .*; to go on: //p' "$T/start.err")
like "$hint" "^artbisect start --work-dir .*w-start --index .*index\.json --good b0000 --bad b0299 --cache-dir .*cache-start --net-timeout 7$" \
	"Ctrl-C during start: the hint goes on with the session's index and every option it was started with"
run bash -c "cd / && PATH=\"$(dirname "$ARTBISECT"):\$PATH\"; $hint"
is "$RC" 0 "the command printed, pasted elsewhere: exit 0"
like "$OUT" 'Build b0149 is ready to test' "... and the build is made ready"

# --- the lock --------------------------------------------------------------
ab reset > /dev/null
ab start --index "$BASE/index.json" > /dev/null 2>&1
"$PYTHON3" -c '
import fcntl, sys, time
f = open(sys.argv[1], "a")
fcntl.flock(f, fcntl.LOCK_EX)
open(sys.argv[2], "w").close()
time.sleep(20)
' "$W/session.lock" "$T/locked" &
locker=$!
i=0
while [ $i -lt 100 ] && ! [ -e "$T/locked" ]; do sleep 0.1; i=$((i + 1)); done
run ab bad
is "$RC" 3 "a second process on a locked session: exit 3"
like "$ERR" 'another artbisect .* is driving the session' "it says why"
run ab reset
is "$RC" 3 "reset waits for nobody either: exit 3"
kill "$locker" 2>/dev/null
wait "$locker" 2>/dev/null
is "$(status_of steps)" '[]' "the locked session is untouched"
run ab bad
is "$RC" 0 "once the lock is free the verdict goes in"

# --- skipping and unavailable builds by hand ------------------------------
ab reset > /dev/null
ab start --index "$BASE/index.json" --good b0190 --bad b0210 > /dev/null 2>&1
for v in skip skip skip skip skip skip skip skip skip skip skip skip skip skip skip skip skip skip skip skip; do
	[ "$(status_of result)" = running ] || break
	ab $v > "$T/skip.out" 2>&1
	rc=$?
done
is "$rc" 1 "every build skipped: the last verdict exits 1"
like "$(cat "$T/skip.out")" 'Inconclusive' "and prints an inconclusive report"
like "$(ab log)" 'artbisect skip -- b0200  # unavailable: ' "the log keeps the unavailable build and why"

# --- the Markdown report ---------------------------------------------------
ab reset > /dev/null
"$PYTHON3" - "$T/farm/index.json" "$T/farm/linux.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["project"] = "linux"
d["name"] = "linux-next kernels"
for i, b in enumerate(d["builds"]):
    b["position"] = 1000 + 3 * i
json.dump(d, open(sys.argv[2], "w"))
EOF
run ab --index "$BASE/linux.json" --probe ./usr/bin/app --report "$T/report.md"
is "$RC" 0 "--report: exit 0"
md=$(cat "$T/report.md")
like "$md" '^## linux-next kernels: regression in build b0123' "report: a title naming the build"
like "$md" '\| last good \| b0122 \| 1\.0\.122 \| [0-9a-f]{40} \| 2024-' "report: last good with version, commit, date"
like "$md" '\| first bad \| b0123 \| 1\.0\.123 \| [0-9a-f]{40} \|' "report: first bad"
like "$md" 'Changes between them: <https://' "report: the compare URL"
like "$md" '^3 commits lie between them' "report: how many commits, from the index's positions"
like "$OUT" '3 commits lie between them' "the text report says it too"
like "$md" '    git log --oneline [0-9a-f]{40}\.\.[0-9a-f]{40}' "report: git log OLD..NEW"
like "$md" '    git bisect start [0-9a-f]{40} [0-9a-f]{40}' "report: git bisect start NEW OLD"
like "$md" '\| 1 \| b0149 \| bad \| probe \|' "report: the steps with their verdicts"
like "$md" '^#regzbot introduced: [0-9a-f]{40}\.\.[0-9a-f]{40}$' "report: the regzbot line for Linux"
ab reset > /dev/null
run ab --index "$BASE/index.json" --probe ./usr/bin/app --report "$T/report2.md"
unlike "$(cat "$T/report2.md")" 'regzbot' "no regzbot line for other projects"

# A report that cannot be written: said before anything is downloaded...
ab reset > /dev/null
reset_log
run ab --index "$BASE/index.json" --probe ./usr/bin/app --report "$T/no-such-dir/r.md"
like "$RC/$ERR" "^2/artbisect: --report: cannot write in $T/no-such-dir: No such file or directory" \
	"--report in a directory that does not exist: exit 2, said at once"
is "$(count_requests '^GET /builds/')" 0 "nothing downloaded"
run ab --index "$BASE/index.json" --probe ./usr/bin/app --report "$T"
like "$RC/$ERR" "^2/artbisect: --report: $T is a directory" "--report naming a directory: exit 2"
# ... and when it fails only at the end (a full disk), exit 3 and the
# command that writes it again, which works when pasted.
run ab --index "$BASE/index.json" --probe ./usr/bin/app --report /dev/full --work-dir "$T/w-full"
is "$RC" 3 "a report the disk has no room for: exit 3, not 0"
like "$ERR" "cannot write the report to /dev/full: No space left on device; once that is fixed, artbisect run --work-dir $T/w-full --report /dev/full writes it again" \
	"the message says how to get it"
run bash -c "PATH='$(dirname "$ARTBISECT")':\$PATH && artbisect run --work-dir '$T/w-full' --cache-dir '$T/cache' --report '$T/again.md'"
is "$RC" 0 "run --report on the finished session: exit 0"
like "$(cat "$T/again.md")" 'regression in build b0123' "and the report is written"

# --- settings: config file < environment < command line ------------------
ab reset > /dev/null
mkdir -p "$XDG_CONFIG_HOME/artbisect"
printf '# defaults\nwork-dir = %s\ncache-dir = %s\n' "$T/w-config" "$T/cache" > "$XDG_CONFIG_HOME/artbisect/config"
run "$ARTBISECT" start --index "$BASE/index.json"
is "$RC" 0 "start with settings from the config file"
tap_ok $([ -f "$T/w-config/session.json" ]; echo $?) "the config file's work-dir is used"
ARTBISECT_WORK_DIR="$T/w-env" run "$ARTBISECT" start --index "$BASE/index.json"
tap_ok $([ -f "$T/w-env/session.json" ]; echo $?) "ARTBISECT_WORK_DIR wins over the config file"
ARTBISECT_WORK_DIR="$T/w-env" run "$ARTBISECT" start --index "$BASE/index.json" --work-dir "$T/w-args"
tap_ok $([ -f "$T/w-args/session.json" ]; echo $?) "--work-dir wins over the environment"
ARTBISECT_WORK_DIR="$T/w-env" run "$ARTBISECT" status
like "$OUT" "Session in $T/w-env" "status follows the same settings"
printf 'jobs = many\n' > "$XDG_CONFIG_HOME/artbisect/config"
run "$ARTBISECT" status
is "$RC" 2 "a bad config value: exit 2"
like "$ERR" 'artbisect/config, line 1: jobs: expected a number from 1 to 64' "the message names file, line and setting"
printf 'colour = yes\n' > "$XDG_CONFIG_HOME/artbisect/config"
run "$ARTBISECT" status
like "$RC/$ERR" "^2/.*line 1: unknown setting 'colour'" "an unknown setting: exit 2, named"
rm -f "$XDG_CONFIG_HOME/artbisect/config"
ARTBISECT_JOBS=0 run "$ARTBISECT" --index "$BASE/index.json" --probe true
like "$RC/$ERR" '^2/.*ARTBISECT_JOBS: expected a number' "a bad ARTBISECT_ variable: exit 2, named"
# A keyring that is not there: the setting is named, not a --keyring
# that was never typed.
printf 'jobs = 1\nkeyring = %s\n' "$T/no-such-key" > "$XDG_CONFIG_HOME/artbisect/config"
run "$ARTBISECT" --index "$BASE/index.json" --probe true --work-dir "$T/w-key"
like "$RC/$ERR" "^2/.*artbisect/config, line 2: keyring: $T/no-such-key: cannot open" \
	"a missing keyring in the config file: exit 2, file, line and setting named"
unlike "$ERR" '--keyring' "and blames no --keyring"
rm -f "$XDG_CONFIG_HOME/artbisect/config"
ARTBISECT_KEYRING="$T/no-such-key" run "$ARTBISECT" --index "$BASE/index.json" --probe true --work-dir "$T/w-key"
like "$RC/$ERR" "^2/.*ARTBISECT_KEYRING: $T/no-such-key: cannot open" "a missing keyring in ARTBISECT_KEYRING: exit 2, named"
unlike "$ERR" '--keyring' "and blames no --keyring"
# ARTBISECT_CONFIG names a file on purpose: it must exist.
ARTBISECT_CONFIG="$T/no-such-config" run "$ARTBISECT" --help
like "$RC/$ERR" "^2/.*ARTBISECT_CONFIG: cannot read $T/no-such-config" \
	"ARTBISECT_CONFIG naming no file: exit 2, the file named"

# The settings the config file takes, asked of artbisect (a name it
# does not take is refused as unknown, whatever the value), are the
# ones the README and the man page list.
for name in $(sed -nE 's/^[[:space:]]*\{ "([a-z-]+)", [01], OPT_.*/\1/p' "$TESTS_SRCDIR/../src/cli/cli.c"); do
	printf '%s = 1\n' "$name" > "$XDG_CONFIG_HOME/artbisect/config"
	"$ARTBISECT" --help 2>&1 | grep -q "unknown setting '$name'" || echo "$name"
done | sort > "$T/settings"
rm -f "$XDG_CONFIG_HOME/artbisect/config"
sed -n '/^- Defaults go in/,/ARTBISECT_JOBS=4/p' "$TESTS_SRCDIR/../README.md" | tr '\n' ' ' |
	sed 's/.*per line://; s/`ARTBISECT_JOBS=4`.*//' | grep -oE '`[a-z-]+`' | tr -d '`' | sort > "$T/readme-settings"
is "$(diff "$T/settings" "$T/readme-settings" | grep '^[<>]' | tr '\n' ' ')" "" \
	"README: the settings listed are the ones the config file takes"
sed -n '/^\.I \$XDG_CONFIG_HOME\/artbisect\/config$/,/^Flags take$/p' "$TESTS_SRCDIR/../docs/artbisect.1" |
	sed -n 's/^\.BR \([a-z\\-]*\).*/\1/p' | sed 's/\\-/-/g' | sort > "$T/man-settings"
is "$(diff "$T/settings" "$T/man-settings" | grep '^[<>]' | tr '\n' ' ')" "" \
	"man page: the settings listed are the ones the config file takes"

# --- per-subcommand help and usage errors ---------------------------------
run "$ARTBISECT" good --help
like "$RC/$OUT" '^0/Usage: artbisect good \[ID\]' "good --help"
unlike "$OUT" '--index' "good --help lists only its own options"
run "$ARTBISECT" run --help
like "$OUT" '--probe CMD' "run --help lists --probe"
run "$ARTBISECT" good --index x
like "$RC/$ERR" "^2/.*'artbisect good' does not take --index" "an option the subcommand does not take: exit 2"
run "$ARTBISECT" good b1 b2
is "$RC" 2 "two ids: exit 2"
run "$ARTBISECT" frobnicate
like "$RC/$ERR" "^2/.*unknown command 'frobnicate'" "an unknown command: exit 2"
run "$ARTBISECT" replay
is "$RC" 2 "replay without a file: exit 2"

plan_done
