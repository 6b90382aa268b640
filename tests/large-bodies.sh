#!/bin/bash
# Artifacts of several MB: their bytes go to disk and through SHA-256 on
# a thread of their own, one buffer after another. Bodies cut short,
# resumed, refused a range, corrupted: every cache entry still holds
# exactly the bytes its name says, and the answer is right.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

mkfarm --out "$T/farm" --builds 16 --culprit 9 --artifact-size 3000000
start_server "$T/farm"
ab() { "$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app --json --no-prefetch \
	--cache-dir "$T/cache" --work-dir "$T/work" "$@"; }
# Every entry's bytes hash to its name; prints the ones that do not.
bad_entries() {
	local f
	for f in "$T/cache/sha256/"*; do
		[ -e "$f" ] || continue
		[ "$(sha256sum < "$f" | cut -d' ' -f1)" = "$(basename "$f")" ] || echo "$f"
	done
}
size=$(stat -c %s "$T/farm/builds/b0008.tar.gz")
tap_ok $(( size > 2 * 1048576 ? 0 : 1 )) "the artifacts span several buffers ($size bytes)"

# Whole bodies.
run ab
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0009 "whole bodies: the right answer"
is "$(bad_entries)" "" "whole bodies: every entry hashes to its name"
served=$(awk '$1 == "GET" && $2 ~ /^\/builds\// {s += $4} END {print s + 0}' "$T/server.log")
is "$(echo "$OUT" | json_get - downloaded_bytes)" "$served" "whole bodies: the report counts every byte"
# Faults go to the build tested first (retries wait a second or two).
first=$(echo "$OUT" | json_get - steps.0.id)
at_first() { set_faults "{\"builds/$first.tar.gz\": $1}"; }

# The body cut in half twice: the second and third requests ask for the
# rest, and the hash goes on over the bytes kept.
rm -rf "$T/cache" "$T/work"
reset_log
at_first '["truncate", "truncate"]'
run ab
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0009 "bodies cut short twice: the right answer"
is "$(bad_entries)" "" "bodies cut short twice: every entry hashes to its name"
is "$(awk -v p="/builds/$first.tar.gz" '$1 == "GET" && $2 == p {print $3}' "$T/server.log" | tr '\n' ' ')" \
	"200 206 206 " "two range requests for the rest"
is "$(ls "$T/cache/tmp" | grep -c .)" 0 "nothing is left in the cache's tmp"

# Cut short, then the range refused (the whole file again, 200): the
# download starts over in the same file.
rm -rf "$T/cache" "$T/work"
at_first '["truncate", "norange"]'
run ab
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0009 "range refused after a cut: the right answer"
is "$(bad_entries)" "" "range refused after a cut: every entry hashes to its name"

# Corrupted once: the mismatch is noticed, the build fetched again.
rm -rf "$T/cache" "$T/work"
at_first '["corrupt"]'
run ab
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0009 "corrupted bodies: the right answer"
like "$ERR" "sha256 mismatch" "corrupted bodies: the mismatch is named"
is "$(bad_entries)" "" "corrupted bodies: every entry hashes to its name"

# Corrupted every time: never an entry, the builds are unavailable.
rm -rf "$T/cache" "$T/work"
at_first '["always:corrupt"]'
run ab
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0009 "always corrupted: the right answer all the same"
like "$(echo "$OUT" | json_get - steps.0.reason)" "sha256 mismatch" "always corrupted: that build is unavailable, and the report says why"
fails "always corrupted: no entry is made" test -e "$T/cache/sha256/$(sha256sum < "$T/farm/builds/$first.tar.gz" | cut -d' ' -f1)"

# Interrupted in the middle of a slow body: the part kept resumes.
rm -rf "$T/cache" "$T/work"
set_faults '{}'
stop_server
start_server "$T/farm" --total-rate 2000000
reset_log
"$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app --json --no-prefetch \
	--cache-dir "$T/cache" --work-dir "$T/work" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 100); do
	part=$(find "$T/cache/tmp" -name '*.part' -size +1200k 2>/dev/null | head -n 1)
	[ -n "$part" ] && break
	sleep 0.05
done
kill -INT "$pid"
wait "$pid"
is "$?" 4 "Ctrl-C in the middle of a body: exit 4"
kept=$(stat -c %s "$part" 2>/dev/null || echo 0)
tap_ok $(( kept > 1048576 ? 0 : 1 )) "the part kept holds what arrived ($kept bytes)"
stop_server
start_server "$T/farm"
reset_log
run ab
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0009 "resumed: the right answer"
like "$(awk '$1 == "GET" && $3 == 206' "$T/server.log")" "." "resumed: the rest was asked for with a range"
is "$(bad_entries)" "" "resumed: every entry hashes to its name"

plan_done
