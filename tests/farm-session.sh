#!/bin/bash
# A session over a real farm (tests/mkfarms.py mainline, served by nginx):
# `artbisect start`, then verdicts by hand as a tester gives them across
# reboots. The session keeps the farm's builds and every build resolved:
# a verdict never reads the top listing again, nor the directory of a
# build it resolved before; the session's snapshot starts with the farm
# object; `status` works with the server gone; the culprit is found.
# And mainline's daily/ directory, whose builds are days (YYYY-MM-DD/).
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"
. "$TESTS_SRCDIR/farmlib.sh"

need_cmd curl gpg dpkg-deb
command -v nginx >/dev/null 2>&1 || skip_all "nginx is not installed (apt-get install nginx-light)"

farm_keys
F="$T/farms"
mkfarms mainline "$F/mainline" --keys "$T/keys" || bail_out "mkfarms.py mainline failed"
CULPRIT=$(json_get "$F/mainline.json" culprit)
# daily/: four days, each the amd64/ build of a version (hard links, so
# the signed CHECKSUMS hold); the culprit's day is the second.
days="2024-03-01:v6.8.1 2024-03-02:$CULPRIT 2024-03-03:v6.8.3 2024-03-04:v6.9-rc1"
for dv in $days; do
	mkdir -p "$F/mainline/daily/${dv%%:*}"
	cp -al "$F/mainline/${dv#*:}/amd64" "$F/mainline/daily/${dv%%:*}/amd64"
done
start_nginx "$T/nginx" "$F"
LOG="$T/nginx/access.log"
W="$T/work"
C="$T/cache"

ab() { "$ARTBISECT" "$@" --work-dir "$W"; }
status_of() { ab status --json | json_get - "$1" 2>/dev/null; }
# How often the server was asked for PATH (a listing ends in /).
asked() { grep -c "^GET $1 " "$LOG" || :; }
# The verdict the planted culprit gives for the build waiting.
judge_current() {
	local id
	id=$(status_of current.id) || return 1
	[ -n "$id" ] || return 1
	if grep -q BROKEN "$W"/roots/*-"$id"/boot/vmlinuz-*-generic 2>/dev/null; then
		echo bad
	else
		echo good
	fi
}

run ab start --index "$URL/mainline/" --good v6.6 --bad v6.9 --keyring "$FARM_KEY" --cache-dir "$C"
is "$RC" 0 "start over the farm: exit 0"
first=$(status_of current.id)
like "$first" '^v6\.' "start: a build is waiting ($first)"
is "$(asked /mainline/)" 1 "start: the top listing read once"
is "$(head -c 8 "$W/index.snapshot")" '{"farm":' \
	"the session's snapshot is the farm's"

steps=0 last_rc=0
while [ "$(status_of result)" = running ] && [ $steps -lt 12 ]; do
	v=$(judge_current) || break
	run ab "$v"
	last_rc=$RC
	steps=$((steps + 1))
done
is "$last_rc" 0 "the last verdict exits 0 (found)"
is "$(status_of first_new.id)" "$CULPRIT" "the culprit is found by hand ($steps verdicts)"
is "$(asked /mainline/)" 1 "no verdict read the top listing again"
dup=$(grep '^GET /mainline/v[^/]*/ ' "$LOG" | sort | uniq -d)
is "$dup" "" "no build's directory was listed twice"

# The server gone: what the session knows is enough to report.
stop_nginx
run ab status --json
is "$RC" 0 "status with the farm gone: exit 0"
like "$OUT" "\"$CULPRIT\"" "status still names the culprit"

# daily/: recognised as mainline's days, bisected to the culprit's day.
start_nginx "$T/nginx2" "$F"
run "$ARTBISECT" --index "$URL/mainline/daily/" --good 2024-03-01 --bad 2024-03-04 \
	--keyring "$FARM_KEY" --cache-dir "$T/cache2" --work-dir "$T/w-daily" --json \
	--probe '! grep -q BROKEN boot/vmlinuz-*-generic'
is "$RC" 0 "daily/: found"
is "$(printf '%s' "$OUT" | json_get - first_new.id)" 2024-03-02 "daily/: the culprit's day is the first bad build"
is "$(printf '%s' "$OUT" | json_get - farm.layout)" mainline "daily/: read as mainline"
