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

# When the link, not the probe, takes the time, rounds narrow to one
# probe at a time: three builds of 200 kB share 200 kB/s (a second each)
# and the probe takes 2 s, so after the first round (which measures it)
# plain bisection with prefetch is the cheaper (2 s a halving against
# 2.5). The first round still runs 3 at once.
mkfarm --out "$T/slowlink" --builds 64 --culprit 40 --artifact-size 200000
start_server "$T/slowlink" --total-rate 200000
cat > "$T/p2.sh" <<'P'
echo "start $ARTBISECT_BUILD" >> "$PROBELOG"
sleep 2
./usr/bin/app; rc=$?
echo "end $ARTBISECT_BUILD" >> "$PROBELOG"
exit $rc
P
: > "$PROBELOG"
run "$ARTBISECT" --index "$BASE/index.json" --probe "sh $T/p2.sh" --json --jobs 3 \
	--cache-dir "$T/cache-slow" --work-dir "$T/work-slow"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0040 "slow link, --jobs 3: found b0040"
is "$(awk '$1=="start"{if(running>0)o++; running++} $1=="end"{running--} END{print o+0}' "$PROBELOG")" 2 \
	"slow link, --jobs 3: the first round ran 3 at once, every later probe alone"

plan_done
