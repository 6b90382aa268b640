#!/bin/bash
# The download cache: a size cap with least-recently-used eviction that
# never evicts the build being tested, and `artbisect cache list|clean`.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

mkfarm --out "$T/farm" --builds 32 --culprit 20 --artifact-size 100000
start_server "$T/farm"
size=$(stat -c %s "$T/farm/builds/b0015.tar.gz")
ab() { "$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app --json --no-prefetch \
	--cache-dir "$T/cache" --work-dir "$T/work" "$@"; }
cached_bytes() { find "$T/cache/sha256" -type f -printf '%s\n' | awk '{s+=$1} END {print s+0}'; }

# A cap of about two artifacts: the bisection still works, the cache
# stays under the cap plus the build in use, and the last build tested
# is still there.
run ab --cache-size $((2 * size + size / 2))
echo "$OUT" > "$T/capped.json"
is "$RC/$(json_get "$T/capped.json" first_new.id)" 0/b0020 "--cache-size: found"
used=$(cached_bytes)
tap_ok $(( used <= 3 * size ? 0 : 1 )) "--cache-size: the cache holds at most the cap and one build ($used bytes)"
last=$("$PYTHON3" -c 'import json,sys; print(json.load(open(sys.argv[1]))["steps"][-1]["id"])' "$T/capped.json")
sha=$("$PYTHON3" -c 'import json,sys; i=json.load(open(sys.argv[1])); print([b for b in i["builds"] if b["id"]==sys.argv[2]][0]["artifacts"][0]["sha256"])' "$T/farm/index.json" "$last")
ok "--cache-size: the last build tested ($last) is still cached" test -f "$T/cache/sha256/$sha"

# Listing: digest, size, last use, where it came from.
run "$ARTBISECT" cache list --cache-dir "$T/cache"
is "$RC" 0 "cache list: exit 0"
like "$OUT" "^${sha:0:12} .*$BASE/builds/$last\.tar\.gz" "cache list names the URL of an entry"
like "$OUT" "entries?, .* in $T/cache" "cache list ends with the total"
listed=$OUT
run "$ARTBISECT" --cache-dir "$T/cache" cache list
is "$RC/$OUT" "0/$listed" "--cache-dir before 'cache': the same list"
# Without --cache-dir, the cache a run would use: the cache-dir setting.
run env ARTBISECT_CACHE_DIR="$T/cache" "$ARTBISECT" cache list
is "$RC/$OUT" "0/$listed" "cache list without --cache-dir: ARTBISECT_CACHE_DIR's cache"
echo "cache-dir = $T/cache" > "$T/cache.conf"
run env ARTBISECT_CONFIG="$T/cache.conf" "$ARTBISECT" cache list
is "$RC/$OUT" "0/$listed" "cache list without --cache-dir: the config file's cache-dir"
echo "jobs = 0" > "$T/bad.conf"
run env ARTBISECT_CONFIG="$T/bad.conf" "$ARTBISECT" cache list
like "$RC/$ERR" "^2/.*bad.conf, line 1: jobs" "cache list: a bad config file is bad usage, as for a run"

# Without a cap worth speaking of, a second run downloads nothing.
# The report counts the artifact bytes that came over the network: all
# the server sent the first time, none the second.
rm -rf "$T/cache"
reset_log
run ab --cache-size 1G
served=$(awk '$1 == "GET" && $2 ~ /^\/builds\// {s += $4} END {print s + 0}' "$T/server.log")
tap_ok $(( served > 0 ? 0 : 1 )) "first run: the server sent the builds ($served bytes)"
is "$(echo "$OUT" | json_get - downloaded_bytes)" "$served" "first run: the report counts every byte the server sent"
reset_log
run ab --cache-size 1G
is "$(count_requests '^GET /builds/')" 0 "a second run with room in the cache downloads nothing"
is "$(echo "$OUT" | json_get - downloaded_bytes)" 0 "second run: the report says 0 bytes downloaded"
run env LC_ALL=C LANGUAGE= "$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app --no-prefetch \
	--cache-dir "$T/cache" --work-dir "$T/work-text"
like "$OUT" 'Downloaded 0 B of artifacts \(prefetched builds included\)\.' "the text report says so too"

# Entries are not fsynced when they are made: a marker under unsynced/
# names the boot that wrote each one, and after a crash (another boot)
# an entry is hashed again before it is used.
boot=$(cat /proc/sys/kernel/random/boot_id)
is "$(ls "$T/cache/unsynced" | wc -l)" "$(ls "$T/cache/sha256" | wc -l)" "every new entry has a marker"
m=$(ls "$T/cache/unsynced" | head -n 1)
is "$(cat "$T/cache/unsynced/$m")" "$boot" "the marker names this boot"
# The crash: markers of another boot (one left empty, as when the crash
# came before its bytes reached the disk), and the bytes of the first
# build tested lost.
for f in "$T/cache/unsynced/"*; do printf '00000000-0000-0000-0000-000000000000' > "$f"; done
: > "$T/cache/unsynced/$m"
first=$(json_get "$T/capped.json" steps.0.id)
fsha=$("$PYTHON3" -c 'import json,sys; i=json.load(open(sys.argv[1])); print([b for b in i["builds"] if b["id"]==sys.argv[2]][0]["artifacts"][0]["sha256"])' "$T/farm/index.json" "$first")
head -c 1000 /dev/zero > "$T/cache/sha256/$fsha"
reset_log
run ab --cache-size 1G
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0020 "after a crash: the right answer"
is "$(count_requests '^GET /builds/')" 1 "after a crash: only the entry whose bytes were lost is downloaded again"
is "$(count_requests "^GET /builds/$first\\.tar\\.gz")" 1 "... and that is $first's"
is "$(echo "$OUT" | json_get - downloaded_bytes)" "$size" "after a crash: the report counts that one download"
is "$(sha256sum < "$T/cache/sha256/$fsha" | cut -d' ' -f1)" "$fsha" "the entry is whole again"
is "$(cat "$T/cache/unsynced/$fsha")" "$boot" "its new marker names this boot"
second=$(echo "$OUT" | json_get - steps.1.id)
ssha=$("$PYTHON3" -c 'import json,sys; i=json.load(open(sys.argv[1])); print([b for b in i["builds"] if b["id"]==sys.argv[2]][0]["artifacts"][0]["sha256"])' "$T/farm/index.json" "$second")
fails "an entry found whole after the crash loses its marker (it is on disk now)" test -e "$T/cache/unsynced/$ssha"
reset_log
run ab --cache-size 1G
is "$RC/$(count_requests '^GET /builds/')" 0/0 "the run after that downloads nothing"

# clean --older-than keeps what was used recently; clean empties it all,
# partial downloads included.
echo partial > "$T/cache/tmp/$(printf '%064d' 0).part"
: > "$T/cache/unsynced/$(printf '%064d' 1)"
run "$ARTBISECT" cache clean --cache-dir "$T/cache" --older-than 1
is "$RC" 0 "cache clean --older-than: exit 0"
tap_ok $(( $(ls "$T/cache/sha256" | grep -c .) > 0 ? 0 : 1 )) "cache clean --older-than 1: recent entries stay"
is "$(ls "$T/cache/tmp" | grep -c .)" 0 "cache clean: partial downloads go"
fails "cache clean: a marker without its entry goes" test -e "$T/cache/unsynced/$(printf '%064d' 1)"
touch -d '3 days ago' "$T/cache/sha256/"*
# (The options before the subcommand this time: the same.)
run "$ARTBISECT" --older-than 2 --cache-dir "$T/cache" cache clean
is "$RC" 0 "cache clean, its options before 'cache': exit 0"
is "$(ls "$T/cache/sha256" | grep -c .)" 0 "cache clean --older-than 2: entries unused for 3 days go"
run ab
run "$ARTBISECT" cache clean --cache-dir "$T/cache"
like "$OUT" "^freed .* in $T/cache" "cache clean says what it freed"
is "$(ls "$T/cache/sha256" | grep -c .)" 0 "cache clean: every entry goes"
is "$(ls "$T/cache/unsynced" | grep -c .)" 0 "cache clean: and every marker"

exit_is 2 "--cache-size nonsense: exit 2" ab --cache-size lots
exit_is 2 "cache without an action: exit 2" "$ARTBISECT" cache
run "$ARTBISECT" cache list extra --cache-dir "$T/cache"
like "$RC/$ERR" "^2/artbisect: unexpected argument 'extra' \\(see artbisect cache --help\\)" \
	"cache list with a word too many: exit 2, that word named"
# A mistyped --cache-dir: said, and nothing is made there.
for action in list clean; do
	run "$ARTBISECT" cache $action --cache-dir "$T/no-such-cache"
	is "$RC/$OUT" "0/There is no cache in $T/no-such-cache." "cache $action of a directory that is not there: says so"
done
fails "and makes no directory" test -e "$T/no-such-cache"
ok "cache --help" "$ARTBISECT" cache --help

plan_done
