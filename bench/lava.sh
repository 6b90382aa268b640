#!/bin/bash
# bench/lava.sh - artbisect on a LAVA lab: the figures of issue 23.
#
#   bench/lava.sh [ARTBISECT]        (as root, LAVA installed: see tests/lavalib.sh)
#
# Starts the lab of tests/lavalib.sh (two qemu devices, events on
# loopback) and the kernel file farm of tests/kernelfarm.sh, then prints:
#   1. overhead per step over the boot itself: lava-boot's wall time for a
#      good build against the boot (qemu started to prompt seen, from the
#      job's log), and LAVA's own submit-to-end time; median of 5.
#      Target: at most 3 s. lava-boot gives its verdict from the job's
#      live log (early verdicts), before LAVA ends the job: how much
#      before, too. BENCH_PROBE_ARGS=--wait-for-end measures without.
#   2. --jobs 2 on two devices: a 24-build farm whose bad builds panic,
#      bisected; from LAVA's own job list (submit and end times of the
#      run's jobs): how long two jobs were in flight, against the time
#      two useful candidates existed (the whole run but its last step,
#      when one build is left to decide). Target: two in flight all of
#      that time (no wall-time gain expected: two TCG boots share 2 cores).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
ARTBISECT=${1:-$top/artbisect}
TESTS_SRCDIR=$top/tests
TESTS_BUILDDIR=${TESTS_BUILDDIR:-$top/tests}
export ARTBISECT TESTS_SRCDIR TESTS_BUILDDIR
# lib.sh for $T, the HTTP server and at_exit; its TAP helpers are unused.
. "$top/tests/lib.sh"
. "$top/tests/lavalib.sh"
. "$top/tests/kernelfarm.sh"
skip_all() { echo "bench/lava.sh: cannot run: $*" >&2; exit 0; }
bail_out() { echo "bench/lava.sh: $*" >&2; exit 1; }

lava_need
kf_kernel
kf_images
# Bad builds here only panic: a hang would measure LAVA's timeout.
kf_panic_farm "$T/farm" 24 15
start_server "$T/farm"
lava_start
P="$top/data/probes/lava-boot"
TPL="$top/data/lava/qemu-x86_64-tmpfs.yaml"
PROBE="$P --lava $LAVA_URL --token-file $LAVA_TOKEN_FILE --template $TPL --device-type $LAVA_DEVICE_TYPE --set boot_timeout=60 ${BENCH_PROBE_ARGS:-}"

echo "artbisect on LAVA, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, LAVA $(lava_api system/version/ | json_get - version)"
echo
echo "1. overhead per step over the boot itself (a good build, k1; 5 runs${BENCH_PROBE_ARGS:+; $BENCH_PROBE_ARGS})"
for r in 1 2 3 4 5; do
	t0=$(date +%s.%N)
	ARTBISECT_BUILD="k1" ARTBISECT_STEP=$r ARTBISECT_ROOT="$T" \
		ARTBISECT_ARTIFACT_URLS=$(printf '%s\n' "$BASE/k1/vmlinuz" "$BASE/k1/initrd.img") \
		ARTBISECT_ARTIFACT_SHA256S=$(printf '%s\n' "$(sha256sum < "$T/farm/k1/vmlinuz" | cut -d' ' -f1)" \
			"$(sha256sum < "$T/farm/k1/initrd.img" | cut -d' ' -f1)") \
		XDG_STATE_HOME="$T/state$r" $PROBE > /dev/null 2> "$T/o$r.err"
	rc=$?
	t1=$(date +%s.%N)
	rec=$(ls "$T/state$r"/artbisect/lava/k1-*.json)
	job=$(json_get "$rec" job)
	log=$(json_get "$rec" log)
	# After an early verdict LAVA is still finishing the job: its end
	# time, and a quiet machine for the next run.
	for i in $(seq 1 60); do
		[ -z "$(lava_unfinished)" ] && break
		sleep 0.5
	done
	"$PYTHON3" - "$rc" "$t0" "$t1" "$log" "$(lava_api "jobs/$job/")" <<'EOF' >> "$T/overhead"
import datetime, json, re, sys
rc, t0, t1, log, job = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], json.loads(sys.argv[5])
def ts(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
start = end = None
for line in open(log):
    m = re.search(r'"dt": "([^"]+)".*"msg": "(start: \S+ boot-qemu-image|end: \S+ auto-login-action)', line)
    if m:
        t = datetime.datetime.fromisoformat(m.group(1)).replace(tzinfo=datetime.timezone.utc).timestamp()
        if m.group(2).startswith("start"):
            start = t
        else:
            end = t
boot = end - start
lab = ts(job["end_time"]) - ts(job["submit_time"])
print("%d %.2f %.2f %.2f %.2f" % (rc, t1 - t0, boot, lab, ts(job["end_time"]) - t1))
EOF
done
"$PYTHON3" - "$T/overhead" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
def ahead(s):
    return "%.2f s %s LAVA's end" % (abs(s), "before" if s >= 0 else "after")
for i, (rc, wall, boot, lab, early) in enumerate(rows, 1):
    print("   run %d: verdict exit %s, probe %5.2f s, boot %5.2f s, LAVA submit-to-end %5.2f s, overhead %5.2f s,"
          " verdict %s" % (i, rc, float(wall), float(boot), float(lab), float(wall) - float(boot), ahead(float(early))))
med = statistics.median(float(r[1]) - float(r[2]) for r in rows)
medlab = statistics.median(float(r[3]) - float(r[2]) for r in rows)
medahead = statistics.median(float(r[4]) for r in rows)
print("   median overhead over the boot: %.2f s (target <= 3 s)" % med)
print("   LAVA's own submit-to-end less the boot: %.2f s; the verdict came %s (median)"
      % (medlab, ahead(medahead)))
EOF

echo
echo "2. --jobs 2 on two devices, 24 builds (culprit k15), from LAVA's job list"
first=$(lava_api "jobs/?ordering=-id&limit=1" | json_get - results.0.id)
first=${first:-0}
t0=$(date +%s.%N)
"$ARTBISECT" --index "$BASE/index.json" --probe "$PROBE" --work-dir "$T/w2" --cache-dir "$T/cache" \
	--jobs 2 --json > "$T/j2.json" 2> "$T/j2.err"
rc=$?
t1=$(date +%s.%N)
# A canceled job ends a moment after artbisect: wait for every end time.
for i in $(seq 1 60); do
	[ -z "$(lava_unfinished)" ] && break
	sleep 0.5
done
lava_api "jobs/?ordering=-id&limit=200" > "$T/jobs.json"
"$PYTHON3" - "$T/jobs.json" "$T/j2.json" "$rc" "$t0" "$t1" "$first" <<'EOF'
import datetime, json, sys
jobs = [j for j in json.load(open(sys.argv[1]))["results"] if j["id"] > int(sys.argv[6])]
rep = json.load(open(sys.argv[2]))
rc, t0, t1 = int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
def ts(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
ev = []
for j in jobs:
    ev.append((ts(j["submit_time"]), 1))
    ev.append((ts(j["end_time"]), -1))
ev.sort()
n = 0
two = 0.0
last = ev[0][0]
for t, d in ev:
    if n >= 2:
        two += t - last
    n += d
    last = t
span = ev[-1][0] - ev[0][0]
# The last step decides between two builds: one useful candidate only.
lastjob = max(jobs, key=lambda j: ts(j["end_time"]))
last_alone = ts(lastjob["end_time"]) - max(ts(lastjob["submit_time"]),
    max((ts(j["end_time"]) for j in jobs if j is not lastjob), default=0))
health = {}
for j in jobs:
    health[j["health"]] = health.get(j["health"], 0) + 1
print("   artbisect exit %d, first bad %s, %d probe runs; wall %.1f s" % (rc, rep.get("first_new", {}).get("id"), rep.get("tested", 0), t1 - t0))
print("   LAVA jobs: %d (%s)" % (len(jobs), ", ".join("%s %d" % kv for kv in sorted(health.items()))))
print("   two jobs in flight %.1f s of %.1f s from first submit to last end (%.0f %%);"
      % (two, span, 100 * two / span if span else 0))
print("   one job alone at the end (a single candidate left) %.1f s; two in flight / (span - that) = %.2f (target 1.00)"
      % (max(last_alone, 0), two / (span - max(last_alone, 0)) if span > last_alone else 0))
EOF
