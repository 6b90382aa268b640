#!/bin/bash
# Local faults: SIGINT, SIGTERM and SIGKILL at random moments, then
# `artbisect run` reaches the right answer; a damaged session file is
# refused with a reason; a full disk (a 12 MB tmpfs, where one can be
# mounted) gives exit 3 with a reason and a session that still resumes,
# or the right answer; a report that cannot reach standard output
# (/dev/full, a closed pipe) gives exit 3 and a command that prints it
# again, a Ctrl-C while it fills a pipe does not cut it short, and a log
# pipe closed mid-run does not stop the run.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

mkfarm --out "$T/farm" --builds 40 --culprit 27 --artifact-size 200000
start_server "$T/farm" --rate 400000
cat > "$T/probe.sh" <<'EOF'
#!/bin/sh
sleep 0.2
exec ./usr/bin/app
EOF
chmod +x "$T/probe.sh"
seed=${FAULT_SEED:-$(( $$ % 1000 ))}
diag "FAULT_SEED=$seed"
RANDOM=$seed

n=0
for sig in INT TERM KILL INT TERM KILL; do
	n=$((n + 1))
	W="$T/w$n"
	delay=$(( RANDOM % 25 + 2 ))	# tenths of a second
	"$ARTBISECT" --index "$BASE/index.json" --probe "$T/probe.sh" --work-dir "$W" \
		--cache-dir "$T/cache$n" --json > "$T/kill$n.out" 2> "$T/kill$n.err" &
	pid=$!
	sleep "$(( delay / 10 )).$(( delay % 10 ))"
	kill -s "$sig" "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	if [ -f "$W/session.json" ]; then
		run "$ARTBISECT" run --work-dir "$W" --json
		how="run"
	else
		# Killed before the session was first saved (still reading the
		# index): nothing to resume, the same command starts it.
		run "$ARTBISECT" --index "$BASE/index.json" --probe "$T/probe.sh" --work-dir "$W" \
			--cache-dir "$T/cache$n" --json
		how="the same command"
	fi
	is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0027 \
		"SIG$sig after $(( delay / 10 )).$(( delay % 10 )) s (exit $rc), then $how: the right answer"
done

# A damaged session file: refused with a reason, never a crash.
W="$T/wd"
"$ARTBISECT" start --index "$BASE/index.json" --work-dir "$W" --cache-dir "$T/cache1" > /dev/null 2>&1
cp "$W/session.json" "$T/good-session.json"
printf '{"format": "artbisect-session", "argv": [' > "$W/session.json"
run "$ARTBISECT" status --work-dir "$W"
like "$RC/$ERR" "^3/.*session.json: not a session file this version can read .*; to remove it: artbisect reset --work-dir $W\$" \
	"a truncated session file: exit 3, with a reason"
"$PYTHON3" - "$T/good-session.json" "$W/session.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["steps"] = [{"id": "b0003", "verdict": "maybe", "by": "user"}]
json.dump(d, open(sys.argv[2], "w"))
EOF
run "$ARTBISECT" good --work-dir "$W"
like "$RC/$ERR" "^3/.*step 1 is damaged" "a damaged step: exit 3, named"
"$PYTHON3" - "$T/good-session.json" "$W/session.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["steps"] = [{"id": "b0003", "verdict": "bad", "by": "user"}, {"id": "b0020", "verdict": "good", "by": "user"}]
json.dump(d, open(sys.argv[2], "w"))
EOF
run "$ARTBISECT" run --work-dir "$W" --probe true
like "$RC/$ERR" "^2/.*verdict 'good' on build b0020 contradicts its earlier verdicts" "contradicting saved verdicts: exit 2, named"
run "$ARTBISECT" reset --work-dir "$W"
is "$RC" 0 "reset clears a damaged session"

# The report on standard output: a full disk loses it with exit 3 and
# says how to print it again; a Ctrl-C (twice) while it is written to
# a full pipe does not cut it short.
mkfarm --out "$T/f64" --builds 64 --culprit 37
cat > "$T/flaky.sh" <<'EOF'
#!/bin/sh
k=$(cat "$COUNTER.$ARTBISECT_BUILD" 2>/dev/null || echo 0)
k=$((k + 1))
echo "$k" > "$COUNTER.$ARTBISECT_BUILD"
./usr/bin/app >/dev/null 2>&1 && exit 0
case $((k % 5)) in 2|4) exit 1 ;; esac
exit 0
EOF
chmod +x "$T/flaky.sh"
"$ARTBISECT" --index "$T/f64/index.json" --probe ./usr/bin/app --json --quiet \
	--cache-dir "$T/cfull" --work-dir "$T/wfull" > /dev/full 2> "$T/full.err"
is "$?" 3 "the JSON report to a full disk: exit 3"
like "$(cat "$T/full.err")" "^artbisect: cannot write the report to standard output: No space left on device; once that is fixed, artbisect run --work-dir '?$T/wfull'? --json prints it again\$" \
	"the message says why and how to print it again"
hint=$(sed -n 's/.*once that is fixed, \(.*\) prints it again$/\1/p' "$T/full.err")
run env PATH="$(dirname "$ARTBISECT"):$PATH" sh -c "$hint"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0037 "the command it gives prints the report"
"$ARTBISECT" --help > /dev/full 2> "$T/help.err"
is "$?/$(cat "$T/help.err")" "3/artbisect: cannot write to standard output: No space left on device" \
	"--help to a full disk: exit 3 and why"
run env COUNTER="$T/cnt" "$PYTHON3" "$TESTS_SRCDIR/report-pipe.py" "$T/pipe.out" \
	"$ARTBISECT" --index "$T/f64/index.json" --flaky --probe "$T/flaky.sh" --json --quiet \
	--cache-dir "$T/cpipe" --work-dir "$T/wpipe"
is "$OUT" "$(printf 'blocked\n0')" "two Ctrl-Cs while the report fills a pipe: exit 0"
is "$(json_get "$T/pipe.out" first_new.id)" b0037 "the whole report came through"

# A reader that goes away: the report's pipe closed gives exit 3 and the
# hint (not death by SIGPIPE); a log pipe on standard error closed in
# the middle of the run does not stop it; the probe still gets SIGPIPE.
"$ARTBISECT" --index "$T/f64/index.json" --probe ./usr/bin/app --json --quiet \
	--cache-dir "$T/cfull" --work-dir "$T/wclosed" 2> "$T/closed.err" | true
is "${PIPESTATUS[0]}" 3 "the report's reader gone: exit 3, not killed by SIGPIPE"
like "$(cat "$T/closed.err")" 'cannot write the report to standard output: Broken pipe; once that is fixed, .* prints it again$' \
	"and the message says so"
cat > "$T/sigpipe-probe.sh" <<'EOF'
#!/bin/sh
sleep 0.2
grep '^SigIgn:' /proc/self/status >> "$SIGLOG"
exec ./usr/bin/app >/dev/null 2>&1
EOF
chmod +x "$T/sigpipe-probe.sh"
run env SIGLOG="$T/sig.log" "$PYTHON3" -c '
import subprocess, sys
p = subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL, stderr=subprocess.PIPE,
                     stdout=open(sys.argv[1], "wb"))
p.stderr.readline()     # the first line of the log, then the log is gone
p.stderr.close()
sys.exit(p.wait())' "$T/logpipe.json" "$ARTBISECT" --index "$T/f64/index.json" \
	--probe "$T/sigpipe-probe.sh" --json --cache-dir "$T/cfull" --work-dir "$T/wlog"
is "$RC/$(json_get "$T/logpipe.json" first_new.id)" 0/b0037 "the log's reader gone mid-run: the run goes on to its answer"
ignored=0
while read -r _ mask; do
	[ $(( 0x$mask & 0x1000 )) = 0 ] || ignored=1	# bit 13 - 1: SIGPIPE
done < "$T/sig.log"
ok "the probe ran and said its signal mask" test -s "$T/sig.log"
is "$ignored" 0 "the probe runs with SIGPIPE at its default"

# A full disk.
mkdir -p "$T/small"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=12m tmpfs "$T/small" 2>/dev/null; then
	at_exit "umount '$T/small' 2>/dev/null"
	mkfarm --out "$T/big" --builds 20 --culprit 13 --artifact-size 5000000
	run "$ARTBISECT" --index "$T/big/index.json" --probe ./usr/bin/app --work-dir "$T/wbig" \
		--cache-dir "$T/small/cache" --json
	if [ "$RC" = 0 ]; then
		is "$(echo "$OUT" | json_get - first_new.id)" b0013 "a 12 MB cache for 5 MB builds: the right answer"
		skip "full disk: the message" "it fitted"
	else
		is "$RC/$(echo "$OUT" | json_get - result)" 3/aborted "a 12 MB cache for 5 MB builds: exit 3, the report says aborted"
		like "$ERR" 'No space left on device' "the message says why"
	fi
	run "$ARTBISECT" cache list --cache-dir "$T/small/cache"
	is "$RC" 0 "the cache is still consistent (listable)"
	rm -rf "$T/small/cache/tmp"
	run "$ARTBISECT" run --work-dir "$T/wbig" --cache-dir "$T/small/cache" --cache-size 6M --no-prefetch --json
	is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0013 "run with a cap that fits: the right answer"
else
	skip "full disk" "cannot mount a tmpfs here (needs root and CAP_SYS_ADMIN)"
	skip "full disk: the message" "cannot mount a tmpfs here"
	skip "full disk: the cache" "cannot mount a tmpfs here"
	skip "full disk: resumed" "cannot mount a tmpfs here"
fi

plan_done
