#!/bin/bash
# LAVA: a real lab (tests/lavalib.sh: Debian's lava-server and
# lava-dispatcher, two qemu devices, all on 127.0.0.1) boots the kernel
# farm of tests/kernel-boot.sh (Debian's cloud kernel; from the culprit
# on, builds panic, hang or carry a truncated image) through
# data/probes/lava-boot. Each kind is judged on its own, then the farm is
# bisected with --jobs 1 and --jobs 2; a job made useless is canceled in
# LAVA, Ctrl-C leaves no job running, a session resumed finds its job,
# a board lost mid-run with its worker put in maintenance makes a step
# skip and the bisection is still right; verdicts come early, from the
# job's live log.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"
. "$TESTS_SRCDIR/lavalib.sh"
. "$TESTS_SRCDIR/kernelfarm.sh"

lava_need
need_cmd busybox cpio gzip apt-get dpkg-deb curl
P="$TESTS_SRCDIR/../data/probes/lava-boot"
TPL="$TESTS_SRCDIR/../data/lava/qemu-x86_64-tmpfs.yaml"

kf_kernel
kf_images
diag "kernel $KF_KVER"
# 8 builds, culprit k3: k3 panics, k4 hangs, k5 is truncated, k6 panics...
kf_file_farm "$T/farm" 8 3
start_server "$T/farm"
lava_start
diag "LAVA at $LAVA_URL, devices $LAVA_DEVICES"

# A hang costs the boot timeout: short, but far above a TCG boot (2-3 s).
PROBE="$P --lava $LAVA_URL --token-file $LAVA_TOKEN_FILE --template $TPL --device-type $LAVA_DEVICE_TYPE --set boot_timeout=45 --lab-timeout 20"

# Runs the probe on build kI as artbisect would (more probe options may
# follow); stdout and stderr in $T/jI.out and $T/jI.err.
probe_on() {	# I [OPTION...]
	local i=$1
	shift
	ARTBISECT_BUILD="k$i" ARTBISECT_VERSION="6.1.$i" ARTBISECT_STEP=$i ARTBISECT_ROOT="$T"
	ARTBISECT_ARTIFACT_URLS=$(printf '%s\n' "$BASE/k$i/vmlinuz" "$BASE/k$i/initrd.img")
	ARTBISECT_ARTIFACT_SHA256S=$(printf '%s\n' "$(sha256sum < "$T/farm/k$i/vmlinuz" | cut -d' ' -f1)" \
		"$(sha256sum < "$T/farm/k$i/initrd.img" | cut -d' ' -f1)")
	export ARTBISECT_BUILD ARTBISECT_VERSION ARTBISECT_STEP ARTBISECT_ROOT ARTBISECT_ARTIFACT_URLS \
		ARTBISECT_ARTIFACT_SHA256S
	exec $PROBE "$@" > "$T/j$i.out" 2> "$T/j$i.err"
}
judge() {	# I [OPTION...]: sets RC
	RC=0
	(probe_on "$@") || RC=$?
}

jobs_total() { lava_api "jobs/?limit=1" | json_get - count; }
last_job() { lava_api "jobs/?ordering=-id&limit=1" | json_get - results.0.id; }
job_field() { lava_api "jobs/$1/" | json_get - "$2"; }
# How build kI's last verdict came: "EARLY/LAVA-STATE/WHEN": whether the
# probe judged from the job's live log, the job's state in LAVA right
# after the verdict, and whether the verdict came before or after the
# job's end in LAVA (its end_time, once the job is over).
verdict_timing() {	# I
	local rec
	rec=$(ls "$XDG_STATE_HOME"/artbisect/lava/k$1-*.json | head -n 1)
	settled > /dev/null
	"$PYTHON3" - "$rec" "$(lava_api "jobs/$(json_get "$rec" job)/")" <<'EOF'
import datetime, json, sys
r, j = json.load(open(sys.argv[1])), json.loads(sys.argv[2])
end = datetime.datetime.fromisoformat(j["end_time"].replace("Z", "+00:00")).timestamp()
print("%s/%s/%s" % ("early" if r.get("early") else "at-end", r.get("lava_state"),
                    "before-end" if r.get("decided", end) < end else "after-end"))
EOF
}
# Waits (up to 60 s) until no job of the lab is unfinished; prints them if some are.
settled() {
	local i
	for i in $(seq 1 120); do
		[ -z "$(lava_unfinished)" ] && return 0
		sleep 0.5
	done
	lava_unfinished
	return 1
}

# --- the shipped templates: jobs LAVA's schema accepts -------------------------
for tpl in "$TESTS_SRCDIR"/../data/lava/*.yaml; do
	name=${tpl##*/}
	(probe_on 1 --print-job --template "$tpl" --device-type beaglebone-black \
		--set dtb_url=http://farm.example.org/am335x-boneblack.dtb --set dtb_sha256="$(printf '%064d' 1)")
	/usr/bin/python3 -c '
import sys, yaml
from lava_common.schemas import validate
validate(yaml.safe_load(open(sys.argv[1])), strict=True, extra_context_variables=[])
' "$T/j1.out" > "$T/schema.err" 2>&1
	tap_ok $? "lava-boot --print-job with $name: a job LAVA's schema accepts"
	[ -s "$T/schema.err" ] && diag "$(cat "$T/schema.err")"
done
like "$(grep -E 'url:|sha256sum:' "$T/j1.out" | tr -d ' ')" "url:'$BASE/k1/vmlinuz'" "the job carries the farm's URL of the kernel"
like "$(grep -A1 "$BASE/k1/initrd.img" "$T/j1.out" | tr -d ' ')" "sha256sum:'$(sha256sum < "$T/farm/k1/initrd.img" | cut -d' ' -f1)'" \
	"and the initramfs' sha256 for the worker to check"

# --- each kind on its own ---------------------------------------------------
judge 1
is "$RC" 0 "a good build boots to its prompt in LAVA: good"
like "$(cat "$T/j1.err")" "LAVA job: $LAVA_URL/scheduler/job/[0-9]+" "the probe prints the job's URL"
rec=$(ls "$XDG_STATE_HOME"/artbisect/lava/k1-*.json 2>/dev/null | head -n 1)
is "$(json_get "$rec" state)/$(json_get "$rec" verdict)" "done/good" "the job id, URL and verdict are kept in the state dir, by build"
ok "the job's log is kept" test -s "$(json_get "$rec" log)"
unlike "$(cat "$T/j1.err" "$rec")" "$(cat "$LAVA_TOKEN_FILE")" "the token is never printed nor kept"
diag "$(cat "$T/j1.err")"
# Early verdicts: the job reached its finalize action with no panic, so
# the probe says good without waiting for LAVA's power-off, console
# reading and end of job. The job is left to end by itself (not
# canceled).
is "$(verdict_timing 1)" "early/Running/before-end" \
	"good: judged from the job's live log while LAVA still ran the job, before its end"
is "$(job_field "$(json_get "$rec" job)" health)" Complete "and the job then completed by itself in LAVA"
judge 3
is "$RC" 1 "an init that exits: a kernel panic, bad"
like "$(cat "$T/j3.err")" "k3: bad: a kernel panic" "the panic is read from the lava suite's kernel-messages"
is "$(verdict_timing 3)" "early/Running/before-end" \
	"panic: judged as soon as kernel-messages failed in the live log, before the job's end"
rec=$(ls "$XDG_STATE_HOME"/artbisect/lava/k3-*.json | head -n 1)
unlike "$(cat "$(json_get "$rec" log)")" '"case": "job"' "the log kept is LAVA's as far as it went at the verdict"
judge 3 --wait-for-end
is "$RC" 1 "--wait-for-end: the panic is bad too"
is "$(verdict_timing 3)/$(json_get "$rec" health)" "at-end/None/after-end/Incomplete" \
	"judged from the finished job (Incomplete) only"
like "$(cat "$(json_get "$rec" log)")" '"case": "job"' "with the whole log"
judge 5
is "$RC" 1 "a truncated kernel image: bad"
like "$(cat "$T/j5.err")" "k5: bad: the kernel did not start" "its verdict says the kernel never started"
judge 4
is "$RC" 1 "an init that sleeps forever: a hang, bad"
like "$(cat "$T/j4.err")" "k4: bad: no prompt in time" "its verdict says it hung"

# --- a job with tests: their results make the verdict -------------------------
# The shipped template with a "test:" action added, as docs/lava.md says
# a template may: an interactive test at the prompt, no overlay needed.
# Its case passes when the initramfs holds /result saying PASS: build t0
# has it; k0 (the same kernel, the plain shell) does not, so there the
# case fails while the boot itself is fine.
cp "$TPL" "$T/tested.yaml"
cat >> "$T/tested.yaml" <<'EOF'

- test:
    timeout:
      minutes: 2
    interactive:
    - name: artbisect-check
      prompts: ['/ # ']
      echo: discard
      script:
      - command: 'echo "RESULT-$(cat /result 2>/dev/null || echo FAIL)"'
        name: result-file
        successes:
        - message: RESULT-PASS
        failures:
        - message: RESULT-FAIL
EOF
kf_initramfs tested '/bin/busybox --install -s /bin
mount -t proc proc /proc
echo PASS > /result
export PS1="/ # "
exec setsid cttyhack sh'
mkdir -p "$T/farm/t0"
cp "$KF_VMLINUZ" "$T/farm/t0/vmlinuz"
cp "$T/tested.img" "$T/farm/t0/initrd.img"
RC=0
ARTBISECT_BUILD=t0 ARTBISECT_ARTIFACT_URLS=$(printf '%s\n' "$BASE/t0/vmlinuz" "$BASE/t0/initrd.img") \
	ARTBISECT_ARTIFACT_SHA256S=$(printf '%s\n' "$(sha256sum < "$T/farm/t0/vmlinuz" | cut -d' ' -f1)" \
		"$(sha256sum < "$T/farm/t0/initrd.img" | cut -d' ' -f1)") \
	$PROBE --template "$T/tested.yaml" > "$T/t0.out" 2> "$T/t0.err" || RC=$?
diag "$(cat "$T/t0.err")"
is "$RC" 0 "a job with a test action: the boot and its test case pass, good"
rec=$(ls "$XDG_STATE_HOME"/artbisect/lava/t0-*.json | head -n 1)
is "$(lava_api "jobs/$(json_get "$rec" job)/tests/?limit=100" | "$PYTHON3" -c "
import json, sys
print(' '.join(t['name'] + '=' + t['result'] for t in json.load(sys.stdin)['results'] if t['name'] == 'result-file'))")" \
	"result-file=pass" "LAVA recorded the test case as passed"
judge 0 --template "$T/tested.yaml"
diag "$(cat "$T/j0.err")"
is "$RC" 1 "the same test failing on a build that boots: bad"
like "$(cat "$T/j0.err")" "k0: bad: failed test: artbisect-check.result-file" "the verdict names the failed test case"

# --- a package farm: the kernel from the root, published for the lab -------
mkdir -p "$T/root/boot" "$T/farm/pub"
cp "$KF_VMLINUZ" "$T/root/boot/vmlinuz-$KF_KVER"
cp "$T/good.img" "$T/root/boot/initrd.img-$KF_KVER"
RC=0
ARTBISECT_BUILD=pkg1 ARTBISECT_ROOT="$T/root" ARTBISECT_ARTIFACT_URLS="$BASE/pkg1.deb" \
	ARTBISECT_ARTIFACT_SHA256S=$(printf '%064d' 0) \
	$PROBE --publish-dir "$T/farm/pub" --publish-url "$BASE/pub" > "$T/pub.out" 2> "$T/pub.err" || RC=$?
is "$RC" 0 "a package's kernel and initramfs, published with --publish-dir: good"
is "$(count_requests "^GET /pub/pkg1-[0-9]+/vmlinuz-$KF_KVER 200")" 1 "the lab downloaded the published kernel"
is "$(ls "$T/farm/pub")" "" "and the published files are gone after the job"

# --- stopping: SIGTERM cancels the job in LAVA --------------------------------
# Waits (up to 60 s) until the probe whose standard error goes to FILE
# says its job is Running; prints the job's id. Not any job LAVA lists
# as Running: one that gave an early verdict before may still be
# finishing there by itself.
wait_running() {	# FILE
	local i id
	for i in $(seq 1 120); do
		id=$(grep -aoE 'LAVA job [0-9]+: Running' "$1" 2> /dev/null | tail -n 1 | grep -oE '[0-9]+')
		[ -n "$id" ] && { echo "$id"; return 0; }
		sleep 0.5
	done
	return 1
}
# The hang's boot timeout far above the wait: under load a job that
# times out before the SIGTERM comes gives a verdict instead.
rm -f "$T/j4.err"
(probe_on 4 --set boot_timeout=500) &
pid=$!
id=$(wait_running "$T/j4.err")
kill -TERM "$pid"
wait "$pid"
is "$?" 143 "a probe stopped by SIGTERM exits 143"
settled > /dev/null
is "$(job_field "$id" health)" Canceled "and its LAVA job is canceled (health Canceled)"

# --- a resumed session finds the job it submitted before ----------------------
before=$(jobs_total)
rm -f "$T/j2.err"
(probe_on 2) &
pid=$!
id=$(wait_running "$T/j2.err")
{ kill -KILL "$pid"; wait "$pid"; } 2> /dev/null	# the controller dies: no trap runs
judge 2
is "$RC" 0 "after the probe died, a new run for the same build gives the verdict"
like "$(cat "$T/j2.err")" "LAVA job $id was submitted before; waiting for it" "from the job submitted before"
is "$(jobs_total)" "$((before + 1))" "which is not submitted twice"

# --- the lab unreachable ------------------------------------------------------
RC=0
ARTBISECT_BUILD=k1 "$P" --lava http://127.0.0.1:1 --template "$TPL" --device-type qemu --lab-timeout 2 \
	--set kernel_url=x --set kernel_sha256=x --set initrd_url=x --set initrd_sha256=x > /dev/null 2> "$T/unreach.err" || RC=$?
is "$RC" 128 "a lab unreachable for longer than --lab-timeout: the probe aborts (128)"

# --- no device online: resubmitted once, then skip ----------------------------
for d in $LAVA_DEVICES; do lava_device_health "$d" MAINTENANCE; done
before=$(jobs_total)
judge 1 --queue-timeout 3
for d in $LAVA_DEVICES; do lava_device_health "$d" GOOD; done
is "$RC" 125 "no device of the type online: skip"
is "$(jobs_total)" "$((before + 2))" "after one resubmission"
like "$(cat "$T/j1.err")" "no qemu device online \\(twice\\): skip" "the verdict says why"
settled > /dev/null

# --- the lab cannot get an artifact: resubmitted once, then skip --------------
before=$(jobs_total)
RC=0
ARTBISECT_BUILD=k0 ARTBISECT_ARTIFACT_URLS=$(printf '%s\n' "$BASE/gone/vmlinuz" "$BASE/k0/initrd.img") \
	ARTBISECT_ARTIFACT_SHA256S=$(printf '%s\n' "$(printf '%064d' 0)" "$(sha256sum < "$T/farm/k0/initrd.img" | cut -d' ' -f1)") \
	$PROBE > /dev/null 2> "$T/gone.err" || RC=$?
is "$RC/$(( $(jobs_total) - before ))" 125/2 "a kernel the lab cannot download (404): one resubmission, then skip"
like "$(cat "$T/gone.err")" "Resource unavailable.*\\(twice\\): skip" "the skip says why"
RC=0
ARTBISECT_BUILD=k0 ARTBISECT_ARTIFACT_URLS=$(printf '%s\n' "$BASE/k0/vmlinuz" "$BASE/k0/initrd.img") \
	ARTBISECT_ARTIFACT_SHA256S=$(printf '%s\n' "$(printf '%064d' 0)" "$(sha256sum < "$T/farm/k0/initrd.img" | cut -d' ' -f1)") \
	$PROBE > /dev/null 2> "$T/sum.err" || RC=$?
is "$RC" 125 "a kernel whose sha256 the worker finds wrong: skip"
like "$(cat "$T/sum.err")" "sha256 for .* does not match" "the worker checked the sha256 given in the job"

# --- bisections through LAVA --------------------------------------------------
bisect() {	# NAME ARGS...
	local name=$1
	shift
	run "$ARTBISECT" --index "$BASE/index.json" --probe "$PROBE" --work-dir "$T/w-$name" \
		--cache-dir "$T/cache" --json "$@"
	diag "$(grep -a 'lava-boot: k[0-9]*: ' <<<"$ERR")"
}
bisect j1 --jobs 1 --report "$T/j1.md"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/k3 "--jobs 1: the first bad build is found through LAVA"
like "$(echo "$OUT" | json_get - steps.0.links.0.url)" "^$LAVA_URL/scheduler/job/[0-9]+\$" "the JSON report links each step to its LAVA job"
like "$(echo "$OUT" | json_get - steps.0.links.1.url)" "^$LAVA_URL/scheduler/job/[0-9]+/log_file/plain\$" "and to its log"
like "$(cat "$T/j1.md")" "\\[LAVA job [0-9]+\\]\\($LAVA_URL/scheduler/job/[0-9]+\\)" "so does the Markdown report"
is "$(echo "$OUT" | json_get - tested)" "$(grep -c 'LAVA job: ' <<<"$ERR")" "one LAVA job per step"
is "$(settled && echo none)" none "no LAVA job left running"

bisect j2 --jobs 2
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/k3 "--jobs 2: the first bad build is found through LAVA"
is "$(settled && echo none)" none "no LAVA job left running"
# Every job is finished now (settled, above). A job that reaches its
# end while its cancel is on the way stays Complete, and with early
# verdicts a stopped probe's job is often in LAVA's finalize already,
# which a cancel does not stop: each job artbisect says it canceled is
# Canceled or Complete, never Incomplete. That a cancel surely reaches
# LAVA is checked below, at Ctrl-C, where the job is mid-boot.
healths=$(for id in $(grep -o 'canceled LAVA job [0-9]*' <<<"$ERR" | awk '{print $4}'); do
	job_field "$id" health; done | sort | uniq -c | awk '{printf "%s %s; ", $2, $1}')
like "${healths:-none}" '^(none|((Canceled|Complete) [0-9]+; )+)$' \
	"each job of a probe stopped as useless ends Canceled, or Complete if it ended first (${healths:-none stopped})"

# A job made useless mid-boot, for sure: u0 boots, u1 panics, u2 hangs,
# u3 panics. With --jobs 2, u1 and u2 run at once; u1's panic, judged
# from the live log seconds in, settles the answer while u2 still waits
# for a prompt that never comes (boot timeout 45 s). artbisect stops
# u2's probe, which cancels its job: LAVA must say Canceled.
"$PYTHON3" - "$T/farm" <<'PYEOF'
import json, os, sys
d = sys.argv[1]
src = {b["id"]: b for b in json.load(open(os.path.join(d, "index.json")))["builds"]}
builds = [dict(src[k], id="u%d" % i, version="6.1.%d" % (30 + i)) for i, k in enumerate(("k0", "k3", "k4", "k3"))]
json.dump({"format": "artbisect-index", "version": 1, "builds": builds}, open(os.path.join(d, "index-useless.json"), "w"))
PYEOF
run "$ARTBISECT" --index "$BASE/index-useless.json" --probe "$PROBE" --work-dir "$T/w-useless" \
	--cache-dir "$T/cache" --json --jobs 2
diag "$(grep -a 'lava-boot: ' <<<"$ERR")"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/u1 "--jobs 2, a panic beside a hang: the panic is the answer"
id=$(grep -aoE 'canceled LAVA job [0-9]+' <<<"$ERR" | grep -oE '[0-9]+' | head -n 1)
ok "the hanging build's probe was stopped as useless and canceled its job" test -n "$id"
settled > /dev/null
is "$(job_field "${id:-0}" health)" Canceled "that job's health in LAVA is Canceled"

# Ctrl-C: SIGINT to artbisect while two jobs are in flight.
"$ARTBISECT" --index "$BASE/index.json" --probe "$PROBE" --work-dir "$T/w-int" --cache-dir "$T/cache" \
	--jobs 2 --json > "$T/int.out" 2> "$T/int.err" &
pid=$!
wait_running "$T/int.err" > /dev/null
kill -INT "$pid"
wait "$pid"
is "$?" 4 "Ctrl-C stops artbisect (exit 4, the session kept)"
is "$(settled && echo none)" none "and leaves no LAVA job running"
like "$(cat "$T/int.err")" "canceled LAVA job" "the probe canceled its job"

# The controller reboots mid-step (artbisect and its probe die at once,
# no trap runs): "artbisect run" goes on, and the probe finds the job it
# had submitted instead of submitting it again.
"$ARTBISECT" --index "$BASE/index.json" --probe "$PROBE" --work-dir "$T/w-rb" --cache-dir "$T/cache" \
	--jobs 1 --json > /dev/null 2> "$T/rb1.err" &
pid=$!
id=$(wait_running "$T/rb1.err")
leader=$(pgrep -P "$pid" | head -n 1)
{ kill -KILL -- "-$leader"; kill -KILL "$pid"; wait "$pid"; } 2> /dev/null
before=$(jobs_total)
run "$ARTBISECT" run --probe "$PROBE" --work-dir "$T/w-rb" --cache-dir "$T/cache" --json
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/k3 "after a reboot of the controller, artbisect run finds the culprit"
like "$ERR" "LAVA job $id was submitted before; waiting for it" "the step in flight waits for its LAVA job (by id)"
is "$(( $(jobs_total) - before ))" "$(( $(grep -c 'LAVA job: ' <<<"$ERR") - 1 ))" "and submits only the steps after it"
settled > /dev/null

# A board lost mid-run, and its lab taken offline: while the first
# step's job runs, the admin puts the lab's worker (the host of both
# boards) into maintenance, as `lavacli workers update --health
# MAINTENANCE` does, and the board in use loses power (its qemu is
# killed mid-boot). LAVA ends that job Incomplete (an infrastructure
# error: "Connection closed") and schedules nothing more on the worker:
# the probe resubmits once, finds no device online, cancels and skips the
# step (125). The worker back, the bisection goes on and is still right.
# Another index over the same files, 10 builds, the first bad x7 (x0-x6
# boot, x7-x9 panic), so that the skipped first pick (x4 or x5) is not
# needed for the answer.
"$PYTHON3" - "$T/farm" <<'PYEOF'
import json, os, sys
d = sys.argv[1]
src = {b["id"]: b for b in json.load(open(os.path.join(d, "index.json")))["builds"]}
builds = []
for i in range(10):
    b = dict(src["k%d" % (i % 3 if i < 7 else 3)], id="x%d" % i, version="6.1.%d" % (10 + i))
    builds.append(b)
json.dump({"format": "artbisect-index", "version": 1, "builds": builds}, open(os.path.join(d, "index-off.json"), "w"))
PYEOF
# Sets the worker's health through LAVA's XML-RPC API, as an admin's
# lavacli does, and waits until the REST API shows it. Once in CI, under
# the sanitizer build's load, no device came back for the rest of the
# test after "Active"; a lavacli call can time out (it gives up after
# 20 s) and be applied late or not at all, so each try is checked, and
# made again.
worker_health() {	# Active | Maintenance
	local try i
	for try in 1 2 3 4 5; do
		lavacli --uri "http://$LAVA_USER:$(cat "$LAVA_TOKEN_FILE")@${LAVA_URL#http://}/RPC2" \
			workers update --health "${1^^}" "$LAVA_WORKER" > "$T/lavacli.out" 2>&1 ||
			diag "lavacli workers update --health ${1^^} (try $try): $(tail -n 2 "$T/lavacli.out")"
		for i in $(seq 1 10); do
			lava_api "workers/$LAVA_WORKER/" 2> /dev/null | grep -q "\"health\": *\"$1\"" && return 0
			sleep 0.5
		done
	done
	diag "the worker's health is not $1: $(lava_api "workers/$LAVA_WORKER/" 2>&1)"
	return 1
}
# Waits (up to 60 s) until both devices may take a job, as lava-boot
# counts them: the worker Online and Active, each device Good or Unknown.
# Says what is missing when they do not.
lab_ready() {
	local i w
	for i in $(seq 1 120); do
		w=$(lava_api "workers/$LAVA_WORKER/" 2> /dev/null)
		[ "$(json_get - state <<<"$w" 2> /dev/null)/$(json_get - health <<<"$w" 2> /dev/null)" = Online/Active ] &&
			[ "$(lava_api "devices/?device_type=$LAVA_DEVICE_TYPE" 2> /dev/null | "$PYTHON3" -c '
import json, sys
print(sum(d["health"] in ("Good", "Unknown") for d in json.load(sys.stdin)["results"]))')" = 2 ] && return 0
		sleep 0.5
	done
	diag "the lab is not ready: worker $(lava_api "workers/$LAVA_WORKER/" 2>&1)"
	diag "devices $(lava_api "devices/?device_type=$LAVA_DEVICE_TYPE" 2>&1)"
	diag "scheduler: $(tail -n 5 "$T/lava/scheduler.log" 2> /dev/null)"
	return 1
}
rm -f "$T/off.err"
# The probe waits 15 s for a device before it skips: long enough for the
# worker to be made active again (lavacli, slow under load) before the
# next step gives up too.
"$ARTBISECT" --index "$BASE/index-off.json" --probe "$PROBE --queue-timeout 15" --work-dir "$T/w-off" \
	--cache-dir "$T/cache" --json > "$T/off.out" 2> "$T/off.err" &
pid=$!
id=$(wait_running "$T/off.err")
# Maintenance first: the running job goes on, nothing new is scheduled.
worker_health Maintenance
qemu=""
for i in $(seq 1 100); do
	qemu=$(pgrep -f "qemu-system-x86_64 .*/tmp/$id/" | head -n 1)
	[ -n "$qemu" ] && break
	sleep 0.1
done
[ -n "$qemu" ] && kill -KILL "$qemu"
for i in $(seq 1 480); do
	grep -q ': skip$' "$T/off.err" && break
	kill -0 "$pid" 2> /dev/null || break
	sleep 0.25
done
worker_health Active
wait "$pid"
rc=$?
diag "$(grep -a 'lava-boot: x[0-9]*: ' "$T/off.err")"
ok "the board in use lost mid-boot (its qemu killed)" test -n "$qemu"
is "$(job_field "$id" health)" Incomplete "its job ends Incomplete in LAVA"
like "$(cat "$T/off.err")" "lava-boot: x[0-9]: LAVA job $id: Infrastructure error: Connection closed; submitting it once more" \
	"an infrastructure error: the step is submitted once more"
like "$(cat "$T/off.err")" "lava-boot: x[0-9]: Infrastructure error: Connection closed, then no qemu device online: skip" \
	"the worker in maintenance: no device online, so that step is skipped"
is "$rc/$(json_get "$T/off.out" first_new.id)/$(json_get "$T/off.out" last_old.id)" 0/x7/x6 \
	"the worker back: the bisection is still right"
ok "the report has the skipped step" has_step "$(cat "$T/off.out")" verdict=skip by=probe

# --- the README's example, as printed -----------------------------------------
# The example's farm, lab and token placeholders point at this lab and the
# shipped files at the source tree; every other word is the README's. Its
# bad builds only panic: a hang would wait the template's default boot
# timeout (300 s), which the example keeps.
kf_panic_farm "$T/farm/readme" 6 3
lab_ready
mkdir -p "$T/home/.config"
cp "$LAVA_TOKEN_FILE" "$T/home/.config/lava-token"
example=$(awk '/^## Kernels on a LAVA lab/ {s = 1} s && /^```$/ {if (b) exit; b = 1; next} s && b' \
	"$TESTS_SRCDIR/../README.md")
like "$example" "^artbisect --index https://farm.example.org/kernels/ --jobs 2" "the README has its LAVA example"
cmd=$(printf '%s\n' "$example" | sed -e "s|^artbisect |\"\$ARTBISECT\" |" \
	-e "s|https://farm.example.org/kernels/|$BASE/readme/index.json|" \
	-e "s|https://lava.example.org|$LAVA_URL|" \
	-e "s|/usr/share/artbisect/|$TESTS_SRCDIR/../data/|g")
diag "$cmd"
RC=0
HOME="$T/home" bash -c "$cmd" > "$T/readme.out" 2> "$T/readme.err" < /dev/null || RC=$?
is "$RC" 0 "the README's LAVA example runs as printed against this lab"
[ "$RC" = 0 ] || diag "$(tail -n 20 "$T/readme.err")"
like "$(cat "$T/readme.out")" "k3" "and names the first bad build, k3"
ok "no job of it is left unfinished in LAVA" settled

plan_done
