#!/bin/bash
# bench/farms.sh - what reading a real farm's listings costs.
#
#   bench/farms.sh [ARTBISECT] [--count N]
#
# Makes a mainline farm of N version directories (default 2,000) with
# tests/mkfarms.py --tiny (three tiny .debs hard-linked into every
# amd64/, CHECKSUMS in each, unsigned), serves it with nginx (access log
# on, tests/farmlib.sh) and prints:
#   1. time to the first probe and whole run, bisecting the farm itself
#      (--index URL/ --farm mainline), with the listing pages it read
#      (access log lines for URLs ending in '/', and the report's own
#      count where it gives one);
#   2. the same again with the same --cache-dir: listings revalidated
#      (304) or fetched anew, time to the first probe; nginx sends no
#      validators for listings, so 2b does both runs on Apache with
#      IndexOptions TrackModified, which sends them (though mod_autoindex,
#      as of Apache 2.4, still answers a conditional request with 200);
#   3. the same builds as an index v1 (written by `artbisect index URL`,
#      or by `mkfarms.py index` when that fails): time to the first probe.
# The probe answers "good" up to the middle build and "bad" after, so
# every run takes the same steps. No target yet: the figures are for
# comparing the farm with its index v1 (issue 19).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
AB=$(cd "$(dirname "${1:-$top/artbisect}")" && pwd)/$(basename "${1:-$top/artbisect}")
COUNT=2000
[ "${2:-}" = --count ] && COUNT=${3:-2000}
export ARTBISECT=$AB TESTS_SRCDIR="$top/tests" PYTHON3=${PYTHON3:-python3}
# lib.sh: the scratch directory $T (removed at exit) and at_exit.
. "$top/tests/lib.sh"
. "$top/tests/farmlib.sh"
PY=$PYTHON3

for c in nginx dpkg-deb curl bc; do
	command -v "$c" >/dev/null 2>&1 || { echo "bench/farms.sh: $c is not installed" >&2; exit 1; }
done
[ -x "$AB" ] || { echo "bench/farms.sh: $AB is not built" >&2; exit 1; }

now() { date +%s.%N; }
sub() { echo "$1 - $2" | bc -l | xargs printf '%.2f'; }
ratio() { echo "$1 / $2" | bc -l | xargs printf '%.2f'; }

echo "artbisect farm benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $AB"
echo

t0=$(now)
mkfarms mainline "$T/f/mainline" --tiny --count "$COUNT" || exit 1
gen=$(sub "$(now)" "$t0")
start_nginx "$T/nginx" "$T/f" || exit 1
LOG="$T/nginx/access.log"
mid=$(( COUNT / 2 ))

# The probe: the build's position in the manifest decides; the first run
# notes the time.
"$PY" -c 'import json,sys; [print(b) for b in json.load(open(sys.argv[1]))["builds"]]' \
	"$T/f/mainline.json" | awk '{ print $0 " " NR - 1 }' >"$T/positions"
cat >"$T/probe" <<EOF
#!/bin/sh
[ -s "\$BENCH_FIRST" ] || date +%s.%N >"\$BENCH_FIRST"
pos=\$(awk -v id="\$ARTBISECT_BUILD" '\$1 == id { print \$2 }' '$T/positions')
[ -n "\$pos" ] && [ "\$pos" -lt $mid ]
EOF
chmod +x "$T/probe"

# bisect TAG INDEX CACHE [OPTIONS...]: prints "first total rc"; the report
# in $T/TAG.json.
bisect() {
	local tag=$1 index=$2 cache=$3 start end first rc=0
	shift 3
	rm -rf "$T/$tag.work"
	: >"$T/$tag.first"
	start=$(now)
	BENCH_FIRST="$T/$tag.first" "$AB" --index "$index" --probe "$T/probe" --json --cache-dir "$cache" \
		--work-dir "$T/$tag.work" "$@" >"$T/$tag.json" 2>"$T/$tag.err" || rc=$?
	end=$(now)
	first=$(cat "$T/$tag.first")
	if [ -n "$first" ]; then first=$(sub "$first" "$start"); else first="-"; fi
	echo "$first $(sub "$end" "$start") $rc"
}
pages() { grep -c ' /[^ ]*/ [0-9]' "$LOG" 2>/dev/null || :; }
pages304() { grep -c ' /[^ ]*/ 304 ' "$LOG" 2>/dev/null || :; }
reported() { # the report's own listing figures, if it gives any
	"$PY" -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    print("none"); sys.exit(0)
out = []
def walk(o, path):
    if isinstance(o, dict):
        for k, v in o.items():
            walk(v, path + [k])
    elif isinstance(o, (int, float)) and any(w in "_".join(path) for w in ("listing", "pages")):
        out.append("%s %s" % (".".join(path), o))
walk(d, [])
print(", ".join(out) if out else "none")
' "$1"
}
result() {
	"$PY" -c 'import json,sys
try: d = json.load(open(sys.argv[1]))
except (OSError, ValueError): print("no report"); sys.exit(0)
print("%s, first bad %s, %s probe runs" % (d.get("result"), (d.get("first_new") or {}).get("id"), d.get("tested")))' "$1"
}

echo "farm: $COUNT mainline versions made in $gen s; the first bad build (by the probe) is $(json_get "$T/f/mainline.json" "builds.$mid")"
echo

: >"$LOG"
read -r f1 t1 rc1 <<<"$(bisect farm1 "$URL/mainline/" "$T/cache1" --farm mainline)"
p1=$(pages)
echo "1. the farm, empty cache (exit $rc1: $(result "$T/farm1.json"))"
printf '   %-34s %6s s\n' "time to the first probe" "$f1" "whole run" "$t1"
printf '   %-34s %6s  (report: %s)\n' "listing pages read (access log)" "$p1" "$(reported "$T/farm1.json")"
[ "$rc1" = 0 ] || sed 's/^/   stderr: /' "$T/farm1.err" | head -n 5
echo

: >"$LOG"
read -r f2 t2 rc2 <<<"$(bisect farm2 "$URL/mainline/" "$T/cache1" --farm mainline)"
echo "2. the farm again, same cache (exit $rc2: $(result "$T/farm2.json"))"
printf '   %-34s %6s s\n' "time to the first probe" "$f2" "whole run" "$t2"
printf '   %-34s %6s  (%s of them 304 Not Modified; report: %s)\n' "listing pages asked for" "$(pages)" \
	"$(pages304)" "$(reported "$T/farm2.json")"
echo

# nginx sends no validators for a listing; Apache does with TrackModified.
if command -v apache2 >/dev/null 2>&1; then
	NG_URL=$URL
	FARM_APACHE_INDEX_OPTIONS="FancyIndexing TrackModified" start_apache "$T/apache" "$T/f" || exit 1
	LOG="$T/apache/access.log"
	read -r fa ta rca <<<"$(bisect ap1 "$URL/mainline/" "$T/cache-ap" --farm mainline)"
	pa=$(pages)
	: >"$LOG"
	read -r fb tb rcb <<<"$(bisect ap2 "$URL/mainline/" "$T/cache-ap" --farm mainline)"
	echo "2b. Apache with IndexOptions TrackModified (listings carry Last-Modified and ETag,"
	echo "    but mod_autoindex answers If-None-Match/If-Modified-Since with a full 200 page)"
	printf '   %-34s %6s s, whole run %s s, %s listing pages (exit %s)\n' "first run: first probe" "$fa" "$ta" "$pa" "$rca"
	printf '   %-34s %6s s, whole run %s s, %s listing pages, %s of them 304 (exit %s; report: %s)\n' \
		"second run: first probe" "$fb" "$tb" "$(pages)" "$(pages304)" "$rcb" "$(reported "$T/ap2.json")"
	stop_apache
	URL=$NG_URL
	LOG="$T/nginx/access.log"
	echo
fi

t0=$(now)
if "$AB" index --farm mainline --output "$T/index-v1.json" "$URL/mainline/" 2>"$T/index.err"; then
	how="artbisect index URL, $(sub "$(now)" "$t0") s"
else
	how="written by mkfarms.py index: artbisect index URL failed ($(head -n 1 "$T/index.err"))"
	mkfarms index "$T/f/mainline" --url "$URL/mainline/" >"$T/index-v1.json"
fi
: >"$LOG"
read -r f3 t3 rc3 <<<"$(bisect idx "$T/index-v1.json" "$T/cache3")"
echo "3. the same builds as an index v1 ($how; exit $rc3: $(result "$T/idx.json"))"
printf '   %-34s %6s s\n' "time to the first probe" "$f3" "whole run" "$t3"
printf '   %-34s %6s\n' "listing pages read" "$(pages)"
if [ "$f1" != - ] && [ "$f2" != - ] && [ "$f3" != - ]; then
	printf '   farm / index v1, time to the first probe = %s; second farm run / first = %s\n' \
		"$(ratio "$f1" "$f3")" "$(ratio "$f2" "$f1")"
fi
