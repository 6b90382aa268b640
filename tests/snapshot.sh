#!/bin/bash
# The session's snapshot of the index: written once the index and range
# are accepted, while the first build downloads, and in place before the
# session names it. A session is never on disk without its snapshot; the
# snapshot is the index as it was read, whatever the farm does after.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

# 32 builds; without prefetch the first build fetched is b0015.
mkfarm --out "$T/farm" --builds 32 --culprit 20 --artifact-size 300000
cp "$T/farm/index.json" "$T/index.orig"
first=builds/b0015.tar.gz
sha=$(sha256sum "$T/farm/$first" | cut -d' ' -f1)
W="$T/work"
fresh() { rm -rf "$T/cache" "$W"; cp "$T/index.orig" "$T/farm/index.json"; reset_log; }
# Started directly (not through run) so that $! is artbisect.
start_bg() {
	"$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app --json --no-prefetch \
		--cache-dir "$T/cache" --work-dir "$W" "$@" > /dev/null 2>&1 &
	pid=$!
}
wait_part() {
	local i=0
	while [ "$i" -lt 100 ] && ! [ -e "$T/cache/tmp/$sha.part" ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "$T/cache/tmp/$sha.part" ]
}

# Killed outright during the first download: no session is left that
# lacks its snapshot (here none at all: no verdict was made), and the
# next run starts afresh and finds the culprit.
start_server "$T/farm"
fresh
set_faults "{\"$first\": [\"slow\"]}"
start_bg
wait_part
tap_ok $? "the first download started"
sleep 0.5
kill -KILL "$pid"
wait "$pid" 2>/dev/null
# Whether the session was written before the kill depends on timing;
# either way it never exists without its snapshot.
[ ! -e "$W/session.json" ] || cmp -s "$W/index.snapshot" "$T/index.orig"
tap_ok $? "killed during the first download: no session without its snapshot"
set_faults '{}'
run "$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app --json --no-prefetch \
	--cache-dir "$T/cache" --work-dir "$W"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0020 "after the kill: found"

# Ctrl-C during the first download: the session is written on the way
# out, its snapshot in place first, byte for byte the index served.
fresh
set_faults "{\"$first\": [\"slow\"]}"
start_bg
wait_part
sleep 0.5
kill -INT "$pid"
wait "$pid"
is "$?" 4 "Ctrl-C during the first download: exit 4"
tap_ok $([ -e "$W/session.json" ] && echo 0 || echo 1) "Ctrl-C: the session is kept"
cmp -s "$W/index.snapshot" "$T/index.orig"
tap_ok $? "Ctrl-C: the snapshot is the index as it was served"
# The farm now changes its index (build b0020 is gone): the session
# still bisects the builds it started with.
"$PYTHON3" - "$T/farm/index.json" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["builds"] = [b for b in d["builds"] if b["id"] != "b0020"]
json.dump(d, open(p, "w"))
PY
set_faults '{}'
run "$ARTBISECT" run --probe ./usr/bin/app --json --cache-dir "$T/cache" --work-dir "$W"
[ "$RC" = 0 ] || diag "$ERR"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0020 \
	"resumed after the farm changed its index: the snapshot's builds, b0020 found"

# The farm rewrites its index while the first probe runs (the snapshot
# may still be being written then): the snapshot is the index as read.
fresh
cat > "$T/rewrite-probe" <<EOF
#!/bin/sh
[ -e "$T/rewritten" ] || { : > "$T/rewritten"; printf '{"format": "artbisect-index", "version": 1, "builds": []}\n' > "$T/farm/index.json"; }
exec ./usr/bin/app
EOF
chmod +x "$T/rewrite-probe"
rm -f "$T/rewritten"
run "$ARTBISECT" --index "$BASE/index.json" --probe "$T/rewrite-probe" --json --no-prefetch \
	--cache-dir "$T/cache" --work-dir "$W"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0020 "index rewritten during the run: found"
cmp -s "$W/index.snapshot" "$T/index.orig"
tap_ok $? "index rewritten during the run: the snapshot is the index as it was read"

# A snapshot that cannot be put in place (a directory in its way): the
# run goes on and finds the culprit, says once that the session is not
# saved, and writes no session that would lack its snapshot.
fresh
mkdir -p "$W/index.snapshot"
run "$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app --json --no-prefetch \
	--cache-dir "$T/cache" --work-dir "$W"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0020 "snapshot in the way: the run still finds b0020"
is "$(echo "$ERR" | grep -c 'the session could not be saved: cannot write .*index.snapshot')" 1 \
	"snapshot in the way: said once, naming the file"
tap_ok $([ ! -e "$W/session.json" ] && echo 0 || echo 1) "snapshot in the way: no session written"
rmdir "$W/index.snapshot"

# A refused range writes nothing (the snapshot waits for acceptance).
fresh
exit_is 2 "a refused range: exit 2" "$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app \
	--good b0010 --bad b0010 --cache-dir "$T/cache" --work-dir "$W"
is "$(ls -A "$W" 2>/dev/null | grep -c 'snapshot\|session\.json')" 0 \
	"a refused range: no snapshot, no session"

plan_done
