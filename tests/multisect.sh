#!/bin/bash
# Multisection: --jobs N probes N builds at once, each in its own root,
# and stops the probes a verdict made useless. No timing assertions:
# bench/ measures the speed-up.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

mkfarm --out "$T/farm" --builds 64 --culprit 40 --failed 20 --missing 33 --skip-builds 45
start_server "$T/farm"

# The probe notes when it starts and ends, and in which root.
cat > "$T/probe.sh" <<'P'
echo "start $ARTBISECT_BUILD $ARTBISECT_STEP $PWD" >> "$PROBELOG"
sleep 0.5
./usr/bin/app; rc=$?
echo "end $ARTBISECT_BUILD" >> "$PROBELOG"
exit $rc
P
export PROBELOG="$T/probe.log"

for jobs in 2 3 4; do
	: > "$PROBELOG"
	run "$ARTBISECT" --index "$BASE/index.json" --probe "sh $T/probe.sh" --json --jobs "$jobs" \
		--cache-dir "$T/cache" --work-dir "$T/work"
	echo "$OUT" > "$T/j$jobs.json"
	is "$RC/$(json_get "$T/j$jobs.json" first_new.id)" 0/b0040 "--jobs $jobs: found b0040 despite failed, missing and skipped builds"
	# Overlap: some probe started while another was still running.
	overlap=$(awk '$1=="start"{if(running>0)o=1; running++} $1=="end"{running--} END{print o+0}' "$PROBELOG")
	is "$overlap" 1 "--jobs $jobs: probes ran at the same time"
	is "$(awk '$1=="start"{print $4}' "$PROBELOG" | sort | uniq -d | grep -c .)" 0 \
		"--jobs $jobs: every probe had its own root"
	is "$(awk '$1=="start"{print $3}' "$PROBELOG" | sort -n | uniq -d | grep -c .)" 0 \
		"--jobs $jobs: ARTBISECT_STEP is unique per probe"
	is "$(ls "$T/work/roots" 2>/dev/null | grep -c .)" 0 "--jobs $jobs: roots removed after the verdicts"
done

# A bad verdict stops the probes of later builds: they would sleep for a
# minute, and their verdicts never reach the report.
mkfarm --out "$T/stop" --builds 64 --culprit 10
start_server "$T/stop"
cat > "$T/slow.sh" <<'P'
n=${ARTBISECT_BUILD#b00}; n=${n#0}
echo "start $ARTBISECT_BUILD" >> "$PROBELOG"
if [ "$n" -gt 15 ]; then sleep "$SLEEP_TAG"; exit 1; fi
# The early verdicts come after the round's other probes have started.
sleep 1
./usr/bin/app
P
# A sleep length no other test uses, so that pgrep sees only ours.
export SLEEP_TAG=$(( 6000 + $$ % 3000 ))
: > "$PROBELOG"
run "$ARTBISECT" --index "$BASE/index.json" --probe "sh $T/slow.sh" --json --jobs 3 \
	--cache-dir "$T/cache" --work-dir "$T/work"
echo "$OUT" > "$T/stop.json"
is "$RC/$(json_get "$T/stop.json" first_new.id)" 0/b0010 "stopping: found b0010"
like "$(cat "$PROBELOG")" 'start b0031' "stopping: a later build was being probed"
has_step "$OUT" id=b0031
tap_ok $(( $? == 0 ? 1 : 0 )) "stopping: its probe was stopped, no verdict recorded"
pgrep -f "sleep $SLEEP_TAG" >/dev/null
tap_ok $(( $? == 0 ? 1 : 0 )) "stopping: no probe process outlives its step"

# Probe aborts (status 200) stop the whole round: exit 4.
run "$ARTBISECT" --index "$BASE/index.json" --probe 'exit 200' --json --jobs 3 \
	--cache-dir "$T/cache" --work-dir "$T/work"
is "$RC" 4 "an aborting probe in a round: exit 4"
is "$(echo "$OUT" | json_get - result)" aborted "an aborting probe in a round: result aborted"

# When the link, not the probe, takes the time, builds are downloaded one
# at a time in the order the probes will use them, each picked when the
# link turns to it: the first probe starts once its own build is in, not
# after N downloads, and later probes still overlap. Three builds of 200
# kB share 200 kB/s (a second each); the probe takes 2 s.
mkfarm --out "$T/slowlink" --builds 64 --culprit 40 --artifact-size 200000
start_server "$T/slowlink" --total-rate 200000
cat > "$T/p2.sh" <<'P'
echo "start $ARTBISECT_BUILD $(grep -c '^GET /builds/[^ ]* 200 [1-9]' "$SERVERLOG")" >> "$PROBELOG"
sleep 2
./usr/bin/app; rc=$?
echo "end $ARTBISECT_BUILD" >> "$PROBELOG"
exit $rc
P
export SERVERLOG="$T/server.log"
: > "$PROBELOG"
reset_log
run "$ARTBISECT" --index "$BASE/index.json" --probe "sh $T/p2.sh" --json --jobs 3 \
	--cache-dir "$T/cache-slow" --work-dir "$T/work-slow"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0040 "slow link, --jobs 3: found b0040"
is "$(awk '$1=="start"{print $3; exit}' "$PROBELOG")" 1 \
	"slow link, --jobs 3: the first probe started when only its own build was in"
tap_ok "$(awk '$1=="start"{if(running>0)o++; running++} $1=="end"{running--} END{print (o>0 ? 0 : 1)}' "$PROBELOG")" \
	"slow link, --jobs 3: later probes overlapped"
is "$(awk '$1=="start"{print $2}' "$PROBELOG" | sort | uniq -d | grep -c .)" 0 \
	"slow link, --jobs 3: no build probed twice"

# Ctrl-C while probes run: exit 4, no probe left behind, and the next
# run goes on from the verdicts already in without probing them again.
: > "$PROBELOG"
"$ARTBISECT" --index "$BASE/index.json" --probe "sh $T/p2.sh" --json --jobs 3 \
	--cache-dir "$T/cache-slow" --work-dir "$T/work-int" > /dev/null 2>&1 &
pid=$!
i=0
while [ "$i" -lt 300 ] && ! grep -q '^end' "$PROBELOG"; do sleep 0.1; i=$((i + 1)); done
sleep 0.3
first=$(awk '$1=="end"{print $2; exit}' "$PROBELOG")
kill -INT "$pid"
wait "$pid"
is "$?" 4 "Ctrl-C during --jobs 3: exit 4"
sleep 0.2
pgrep -f "sh $T/p2.sh" > /dev/null
tap_ok $(( $? == 0 ? 1 : 0 )) "Ctrl-C during --jobs 3: no probe left running"
: > "$PROBELOG"
run "$ARTBISECT" --index "$BASE/index.json" --probe "sh $T/p2.sh" --json --jobs 3 \
	--cache-dir "$T/cache-slow" --work-dir "$T/work-int"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0040 "after Ctrl-C: the next run found b0040"
has_step "$OUT" id="$first"
tap_ok $? "after Ctrl-C: the verdict on $first is kept"
is "$(grep -c "^start $first " "$PROBELOG")" 0 "after Ctrl-C: $first is not probed again"

# A probe that ends on its own just after artbisect was told to stop
# (SIGTERM to artbisect alone, as a lab cancelling a job does) keeps its
# verdict: the resumed run does not run that build again.
cat > "$T/p3.sh" <<'P'
#!/bin/sh
echo "$ARTBISECT_BUILD" >> "$PROBELOG"
if mkdir "$PROBELOG.first" 2>/dev/null; then
	sleep 0.3
	# Ends at once after the signal (b0031 is good): its thread reaps it
	# before it looks at the stop; a program started here could still
	# be loading when the stop is seen, and be stopped.
	kill -TERM "$(cat "$T/p3.pid")"
	exit 0
fi
sleep 2
exec ./usr/bin/app >/dev/null
P
chmod +x "$T/p3.sh"
: > "$PROBELOG"
T="$T" "$ARTBISECT" --index "$BASE/index.json" --probe "$T/p3.sh" --json --jobs 2 \
	--cache-dir "$T/cache-slow" --work-dir "$T/work-late" > /dev/null 2>&1 &
echo $! > "$T/p3.pid"
wait $!
is "$?" 4 "SIGTERM during --jobs 2: exit 4"
late=$(head -n 1 "$PROBELOG")
: > "$PROBELOG"
run "$ARTBISECT" run --work-dir "$T/work-late" --json
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0040 "after SIGTERM: the next run found b0040"
has_step "$OUT" id="$late"
tap_ok $? "the verdict of the probe that ended after the SIGTERM ($late) is kept"
is "$(grep -c "^$late\$" "$PROBELOG")" 0 "after SIGTERM: $late is not probed again"

plan_done
