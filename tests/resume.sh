#!/bin/bash
# Resumed downloads: a body cut short is continued with a range request
# (the digest runs over the whole), a partial download left by an
# interrupted run is continued by the next one, and a server that will
# not resume gets a fresh download.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

# 32 builds; without prefetch the first build fetched is b0015.
mkfarm --out "$T/farm" --builds 32 --culprit 20 --artifact-size 300000
start_server "$T/farm"
first=builds/b0015.tar.gz
size=$(stat -c %s "$T/farm/$first")
sha=$(sha256sum "$T/farm/$first" | cut -d' ' -f1)
ab() { "$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app --json --no-prefetch --net-timeout 5 "$@"; }
fresh() { rm -rf "$T/cache" "$T/work"; reset_log; }
# interrupt SHA ARGS...: runs artbisect with ARGS in the background (so
# that $! is artbisect), sends it a Ctrl-C once SHA's .part has been
# growing for a while, and sets RC to its exit status.
interrupt() {
	local part="$T/cache/tmp/$1.part" pid i=0
	shift
	"$ARTBISECT" "$@" > /dev/null 2>&1 &
	pid=$!
	while [ "$i" -lt 100 ] && ! [ -e "$part" ]; do sleep 0.1; i=$((i + 1)); done
	sleep 1.5
	kill -INT "$pid"
	wait "$pid"
	RC=$?
}

# A body cut in half: the retry asks for the rest only.
fresh
set_faults "{\"$first\": [\"truncate\"]}"
run ab --cache-dir "$T/cache" --work-dir "$T/work"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0020 "cut body: found"
is "$(count_requests "^GET /$first 200")" 1 "cut body: one full request"
is "$(count_requests "^GET /$first 206")" 1 "cut body: then one range request"
half=$(awk -v p="/$first" '$2==p && $3=="206" {print $4}' "$T/server.log")
tap_ok $(( half > 0 && half < size ? 0 : 1 )) "cut body: the range request sent only the rest ($half of $size bytes)"
is "$(sha256sum "$T/cache/sha256/$sha" | cut -d' ' -f1)" "$sha" "cut body: the cache entry is whole"
set_faults '{}'

# A partial download left by an earlier run is continued.
fresh
mkdir -p "$T/cache/tmp"
head -c 100000 "$T/farm/$first" > "$T/cache/tmp/$sha.part"
run ab --cache-dir "$T/cache" --work-dir "$T/work"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0020 "kept .part: found"
is "$(awk -v p="/$first" '$2==p {print $3, $4}' "$T/server.log")" "206 $((size - 100000))" \
	"kept .part: only the missing bytes were asked for"
is "$(ls "$T/cache/tmp" | grep -c .)" 0 "kept .part: nothing left in tmp"

# A damaged .part: the digest does not match, the file is fetched whole.
fresh
mkdir -p "$T/cache/tmp"
head -c 100000 /dev/zero > "$T/cache/tmp/$sha.part"
run ab --cache-dir "$T/cache" --work-dir "$T/work"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0020 "damaged .part: found"
is "$(awk -v p="/$first" '$2==p {print $3}' "$T/server.log" | tr '\n' ' ')" "206 200 " \
	"damaged .part: resumed, mismatched, then fetched whole"

# A server that ignores Range: a fresh download, not an error.
fresh
mkdir -p "$T/cache/tmp"
head -c 100000 "$T/farm/$first" > "$T/cache/tmp/$sha.part"
set_faults "{\"$first\": [\"always:norange\"]}"
run ab --cache-dir "$T/cache" --work-dir "$T/work"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0020 "no range support: found"
# (The refused first answer may or may not have been sent whole before
# curl hung up: only the last request is certain.)
is "$(awk -v p="/$first" '$2==p {last=$3" "$4} END {print last}' "$T/server.log")" "200 $size" \
	"no range support: fetched whole"
tap_ok $(( $(count_requests "^GET /$first ") <= 2 ? 0 : 1 )) "no range support: at most two requests"
set_faults '{}'

# Ctrl-C during a slow download keeps the .part; the next run resumes it.
fresh
start_server "$T/farm" --rate 50000
interrupt "$sha" --index "$BASE/index.json" --probe ./usr/bin/app --json --no-prefetch \
	--cache-dir "$T/cache" --work-dir "$T/work"
is "$RC" 4 "Ctrl-C during a download: exit 4"
kept=$(stat -c %s "$T/cache/tmp/$sha.part" 2>/dev/null || echo 0)
tap_ok $(( kept > 0 && kept < size ? 0 : 1 )) "Ctrl-C during a download: the .part file stays ($kept bytes)"
start_server "$T/farm"
reset_log
run ab --cache-dir "$T/cache" --work-dir "$T/work"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0020 "after Ctrl-C: found"
is "$(awk -v p="/$first" '$2==p {print $3}' "$T/server.log")" 206 "after Ctrl-C: the download was resumed"

# Ctrl-C while the run waits for a build that prefetch is still
# downloading: the download stops at once (its .part kept, no cache
# entry), exit 4, and the next run resumes it. b0015 is tested first and
# is good, so b0023 comes next; its body crawls at 20 KB/s.
fresh
start_server "$T/farm"
next=builds/b0023.tar.gz
next_sha=$(sha256sum "$T/farm/$next" | cut -d' ' -f1)
set_faults "{\"$next\": [\"slow\"]}"
interrupt "$next_sha" --index "$BASE/index.json" --probe ./usr/bin/app --json --net-timeout 5 \
	--cache-dir "$T/cache" --work-dir "$T/work"
is "$RC" 4 "Ctrl-C while waiting for a prefetched build: exit 4"
tap_ok $([ ! -e "$T/cache/sha256/$next_sha" ] && [ -s "$T/cache/tmp/$next_sha.part" ]; echo $?) \
	"Ctrl-C while waiting for a prefetched build: its download stopped, the .part kept"
set_faults '{}'
reset_log
run "$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app --json --net-timeout 5 \
	--cache-dir "$T/cache" --work-dir "$T/work"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0020 "after Ctrl-C: found"
is "$(awk -v p="/$next" '$2==p {print $3; exit}' "$T/server.log")" 206 "after Ctrl-C: the prefetched download was resumed"

plan_done
