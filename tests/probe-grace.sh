#!/bin/bash
# Stopping a probe as docs/probe.md promises (issue 23, part 4): TERM to
# its whole process group, KILL five seconds later. The grace is the
# group's, not the leader's: when the `sh -c` that leads the group dies
# at once, a probe's trap in a process below it (cancelling a lab job)
# still runs to its end; one that ignores TERM is killed after the grace.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

mkfarm --out "$T/farm" --builds 8 --culprit 5
start_server "$T/farm"

# The probe proper: traps TERM, takes 2 s to clean up, then notes it.
cat > "$T/slow-trap" <<EOS
#!/bin/bash
trap 'sleep 2; echo "cleaned up \$ARTBISECT_BUILD" >> "$T/trap.log"; exit 143' TERM
echo "started \$ARTBISECT_BUILD" >> "$T/trap.log"
sleep 100 & wait
EOS
chmod +x "$T/slow-trap"
# The leader sh dies on TERM at once (it is not the probe itself).
run "$ARTBISECT" --index "$BASE/index.json" --cache-dir "$T/cache" --work-dir "$T/w1" \
	--timeout 1 --timeout-verdict skip --no-prefetch --good b0000 --bad b0002 \
	--probe "$T/slow-trap; true"
started=$(grep -c '^started' "$T/trap.log" 2>/dev/null || echo 0)
cleaned=$(grep -c '^cleaned up' "$T/trap.log" 2>/dev/null || echo 0)
is "$started" 1 "the probe ran once"
is "$cleaned" 1 "its TERM trap ran to the end although the sh leading the group had died"

# Ctrl-C gives the probe its grace too; a second Ctrl-C kills it at
# once: the trap that takes 2 s never gets to note that it cleaned up.
interrupt_probe() {	# NAME SIGNALS: runs until the probe has started, then sends SIGNALS SIGINTs
	: > "$T/trap.log"
	"$ARTBISECT" --index "$BASE/index.json" --cache-dir "$T/cache" --work-dir "$T/$1" \
		--no-prefetch --good b0000 --bad b0002 --probe "$T/slow-trap" > /dev/null 2>&1 &
	local pid=$! i=0
	while [ $i -lt 100 ] && ! grep -q '^started' "$T/trap.log"; do sleep 0.1; i=$((i + 1)); done
	kill -INT "$pid"
	if [ "$2" = 2 ]; then
		sleep 0.3
		kill -INT "$pid"
	fi
	wait "$pid"
	RC=$?
}
interrupt_probe w4 1
is "$RC/$(grep -c '^cleaned up' "$T/trap.log")" 4/1 "one Ctrl-C: exit 4 once the probe's TERM trap has run to its end"
interrupt_probe w5 2
is "$RC/$(grep -c '^cleaned up' "$T/trap.log")" 4/0 "a second Ctrl-C: exit 4, the probe killed before its trap ended"
sleep 2.5
is "$(grep -c '^cleaned up' "$T/trap.log")" 0 "... and nothing of it runs on afterwards"

# A group that ignores TERM is killed when the grace is over.
cat > "$T/stubborn" <<EOS
#!/bin/bash
trap '' TERM
echo "stubborn \$\$" >> "$T/stubborn.log"
while :; do sleep 0.1; done
EOS
chmod +x "$T/stubborn"
run "$ARTBISECT" --index "$BASE/index.json" --cache-dir "$T/cache" --work-dir "$T/w3" \
	--timeout 1 --timeout-verdict skip --no-prefetch --good b0000 --bad b0002 --probe "$T/stubborn"
pid=$(awk '{print $2}' "$T/stubborn.log" | head -n 1)
is "$RC" 1 "a probe that ignores TERM: the run still ends"
like "$pid" '^[0-9]+$' "the probe that ignores TERM ran (pid $pid)"
# Gone, or a zombie left for init to reap: not running any more.
state=$(ps -o stat= -p "$pid" 2>/dev/null | tr -d ' ')
like "${state:-gone}" '^(gone|Z.*)$' "the probe that ignored TERM was killed (state: ${state:-gone})"
plan_done
