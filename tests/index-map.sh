#!/bin/bash
# A big local index is read where it lies (mapped, not copied). The run
# and its snapshot are the same as for an index read into memory, and a
# farm that rewrites, replaces or truncates the file during the run
# neither crashes artbisect nor gets a snapshot other than the builds
# that were parsed.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

# 32 builds; without prefetch the first build fetched is b0015.
mkfarm --out "$T/farm" --builds 32 --culprit 20 --artifact-size 40000
start_server "$T/farm"
first=builds/b0015.tar.gz
sha=$(sha256sum "$T/farm/$first" | cut -d' ' -f1)
W="$T/work"
L="$T/local"
mkdir -p "$L"

# The farm's index with absolute artifact URLs, padded with white space
# to exactly 2 MiB (a whole number of pages: nothing may be read past
# the end of the mapping). Left alone a moment: a file written this
# instant is copied instead.
make_local() {
	"$PYTHON3" - "$T/farm/index.json" "$L/index.tmp" "$BASE" "${2:-}" <<'PY'
import sys
src, dst, base, tail = sys.argv[1:5]
text = open(src).read().replace('"url": "builds/', '"url": "%s/builds/' % base)
text = text.rstrip()
if tail:
    text = text[:-1] + tail
body = text.encode()
size = 2 << 20
open(dst, "wb").write(body[:-1] + b" " * (size - len(body)) + body[-1:])
PY
	mv "$L/index.tmp" "$1"
	sleep 0.3
}
fresh() { rm -rf "$T/cache" "$W"; reset_log; }
wait_part() {
	local i=0
	while [ "$i" -lt 100 ] && ! [ -e "$T/cache/tmp/$sha.part" ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "$T/cache/tmp/$sha.part" ]
}
bisect() {
	"$ARTBISECT" --index "$L/index.json" --probe ./usr/bin/app --json --no-prefetch \
		--cache-dir "$T/cache" --work-dir "$W" "$@"
}

make_local "$L/index.json"
is "$(stat -c %s "$L/index.json")" 2097152 "the local index is 2 MiB"
cp "$L/index.json" "$T/index.orig"

# Read in place: the culprit, and a snapshot byte for byte the file.
fresh
run bisect
[ "$RC" = 0 ] || diag "$ERR"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0020 "local 2 MiB index: found"
cmp -s "$W/index.snapshot" "$T/index.orig"
tap_ok $? "local 2 MiB index: the snapshot is the file"

# Resumed: the snapshot (2 MiB) is read in place as well.
fresh
set_faults "{\"$first\": [\"slow\"]}"
# Started directly (not through a function) so that $! is artbisect.
"$ARTBISECT" --index "$L/index.json" --probe ./usr/bin/app --json --no-prefetch \
	--cache-dir "$T/cache" --work-dir "$W" > /dev/null 2>&1 &
pid=$!
wait_part
tap_ok $? "the first download started"
kill -INT "$pid"
wait "$pid"
is "$?" 4 "Ctrl-C during the first download: exit 4"
set_faults '{}'
sleep 0.3
run "$ARTBISECT" run --probe ./usr/bin/app --json --cache-dir "$T/cache" --work-dir "$W"
[ "$RC" = 0 ] || diag "$ERR"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0020 "resumed from a 2 MiB snapshot: found"

# The farm writes into the file during the first download (after it
# was parsed, before the snapshot is kept): the run goes on, says once
# that the session cannot be saved, and leaves no session behind.
for how in rewritten truncated; do
	fresh
	set_faults "{\"$first\": [\"slow\"]}"
	bisect > "$T/bg.out" 2> "$T/bg.err" &
	pid=$!
	wait_part
	if [ "$how" = rewritten ]; then
		printf 'X' | dd of="$L/index.json" bs=1 seek=100 conv=notrunc status=none
	else
		: > "$L/index.json"
	fi
	wait "$pid"
	rc=$?
	is "$rc/$(json_get "$T/bg.out" first_new.id)" 0/b0020 "index ${how} in place during the run: found"
	is "$(grep -c 'the session could not be saved: index.json changed after it was read' "$T/bg.err")" 1 \
		"index ${how} in place: said once"
	tap_ok $([ ! -e "$W/session.json" ] && [ ! -e "$W/index.snapshot" ] && echo 0 || echo 1) \
		"index ${how} in place: no session, no snapshot"
	set_faults '{}'
	cp "$T/index.orig" "$L/index.json"
	sleep 0.3
done

# Replaced by rename (how a farm should publish): the run keeps the
# file it parsed, and so does its snapshot.
fresh
set_faults "{\"$first\": [\"slow\"]}"
bisect > "$T/bg.out" 2> "$T/bg.err" &
pid=$!
wait_part
printf '{"format": "artbisect-index", "version": 1, "builds": []}\n' > "$L/new.json"
mv "$L/new.json" "$L/index.json"
wait "$pid"
is "$?/$(json_get "$T/bg.out" first_new.id)" 0/b0020 "index replaced during the run: found"
cmp -s "$W/index.snapshot" "$T/index.orig"
tap_ok $? "index replaced during the run: the snapshot is the file that was parsed"
set_faults '{}'
cp "$T/index.orig" "$L/index.json"

# A fault near the end of a mapped index is named as for one read into
# memory (same file served over http), each by where it was read from.
make_local "$L/bad.json" '], "x": }'
cp "$L/bad.json" "$T/farm/bad.json"
exit_is 2 "a broken mapped index: exit 2" "$ARTBISECT" --index "$L/bad.json" --probe true \
	--cache-dir "$T/cache" --work-dir "$T/w2"
local_err=$(sed "s/^artbisect: //" "$T/cmd.err")
exit_is 2 "the same served over http: exit 2" "$ARTBISECT" --index "$BASE/bad.json" --probe true \
	--cache-dir "$T/cache" --work-dir "$T/w3"
http_err=$(sed "s/^artbisect: //" "$T/cmd.err")
is "${http_err#"$BASE/bad.json: "}" "${local_err#"$L/bad.json: "}" "the same message either way"
like "$local_err" "^$L/bad\\.json: .*line" "it names the file by its path, and the line"
like "$http_err" "^$BASE/bad\\.json: .*line" "it names the served one by its URL"

plan_done
