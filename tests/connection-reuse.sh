#!/bin/bash
# Connections outlive one step: the index and every build of a run come
# over one kept-alive connection when nothing runs in parallel, and the
# background downloads reuse connections too.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

mkfarm --out "$T/farm" --builds 100 --culprit 60
start_server "$T/farm"
ports() { awk '$1 == "GET" {print $5}' "$T/server.log" | sort -u | wc -l; }
gets() { count_requests '^GET '; }

run "$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app --no-prefetch --json \
	--work-dir "$T/w1" --cache-dir "$T/c1"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0060 "found"
is "$(gets)" 8 "the index and 7 builds fetched"
is "$(ports)" 1 "all over one connection"

reset_log
run "$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app --json \
	--work-dir "$T/w2" --cache-dir "$T/c2"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0060 "with prefetch: found"
n=$(gets) p=$(ports)
tap_ok $(( p < n ? 0 : 1 )) "with prefetch: $n requests over $p connections"

# A server that closes every connection: nothing breaks.
start_server "$T/farm" --close
reset_log
run "$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app --no-prefetch --json \
	--work-dir "$T/w3" --cache-dir "$T/c3"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0060 "a server that closes connections: found"
is "$(ports)" 8 "one connection per request then"

plan_done
