#!/bin/bash
# Hostile probes: daemons (in the probe's process group or escaped with
# setsid), a probe that ignores SIGTERM, a probe that writes a gigabyte.
# None hangs artbisect; no process of a probe outlives its step.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

mkfarm --out "$T/farm" --builds 20 --culprit 13
n=0
bisect() {
	n=$((n + 1))
	run "$ARTBISECT" --index "$T/farm/index.json" --work-dir "$T/w$n" --cache-dir "$T/cache" --json "$@"
}
# A number no other process on the machine sleeps for.
tag=$(( 40000 + $$ % 20000 ))
left() { pgrep -f "sleep $1" | wc -l; }

cat > "$T/daemons.sh" <<EOF
#!/bin/sh
sleep $((tag + 1)) &
( sleep $((tag + 2)) & )
setsid sh -c 'exec sleep $((tag + 3))' > /dev/null 2>&1 < /dev/null &
exec ./usr/bin/app
EOF
chmod +x "$T/daemons.sh"
bisect --probe "$T/daemons.sh" --no-prefetch
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0013 "a probe that leaves daemons: found"
is "$(left $((tag + 1)))" 0 "a background child in the probe's group is gone"
is "$(left $((tag + 2)))" 0 "an orphaned grandchild is gone"
is "$(left $((tag + 3)))" 0 "a daemon that escaped with setsid is gone"

bisect --probe "$T/daemons.sh" --jobs 3
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0013 "the same with --jobs 3: found"
is "$(( $(left $((tag + 1))) + $(left $((tag + 2))) + $(left $((tag + 3))) ))" 0 "no daemon outlives a multisection round"

cat > "$T/stubborn.sh" <<EOF
#!/bin/sh
./usr/bin/app > /dev/null && exit 0
trap '' TERM
sleep $((tag + 4)) &
wait
sleep $((tag + 4))
EOF
chmod +x "$T/stubborn.sh"
start=$(date +%s)
bisect --probe "$T/stubborn.sh" --timeout 0.5 --no-prefetch
end=$(date +%s)
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0013 "a probe that ignores TERM: killed, counted bad, found"
is "$(echo "$OUT" | grep -c '"by": "timeout"')" 2 "the hangs are timeouts (b0013 and b0014)"
is "$(left $((tag + 4)))" 0 "nothing of it is left"
tap_ok $(( end - start < 120 ? 0 : 1 )) "the run ends (KILL after the grace period)"

cat > "$T/loud.sh" <<'EOF'
#!/bin/sh
head -c 1073741824 /dev/zero
exec ./usr/bin/app
EOF
chmod +x "$T/loud.sh"
"$ARTBISECT" --index "$T/farm/index.json" --work-dir "$T/w-loud" --cache-dir "$T/cache" \
	--probe "$T/loud.sh" --good b0010 --bad b0015 > /dev/null 2> "$T/loud.err"
is "$?" 0 "a probe writing a gigabyte to standard output: found"

plan_done
