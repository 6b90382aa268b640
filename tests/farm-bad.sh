#!/bin/bash
# Farms that go wrong, served by nginx and by Apache: a page that is no
# directory listing (exit 2 naming the URL, nothing downloaded), a listing
# of 100,000 links (refused or handled, cleanly and without hanging), and
# a version directory that vanishes after the top listing was read (that
# build unavailable, the run still ends).
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"
. "$TESTS_SRCDIR/farmlib.sh"

need_cmd curl gpg dpkg-deb timeout
[ -n "$(farm_servers)" ] || skip_all "neither nginx nor apache2 is installed (apt-get install nginx-light apache2)"

farm_keys
F="$T/farms"
mkfarms hostile "$F/hostile" || bail_out "mkfarms.py hostile failed"
mkfarms mainline "$F/vanish" --keys "$T/keys" || bail_out "mkfarms.py mainline failed"
CULPRIT=$(json_get "$F/vanish.json" culprit) # v6.8.2

farm_probe generic 'boot/vmlinuz-*-generic' 'boot/vmlinuz-*' 'lib/modules/*-generic/modules.dep'
# The first probe run moves the culprit's directory away: it was in the
# top listing, and now answers 404.
cat >"$T/vanish.probe" <<EOF
#!/bin/sh
if [ ! -e '$T/vanished' ]; then
	mv '$F/vanish/$CULPRIT' '$T/vanished'
fi
exec '$T/generic.probe'
EOF
chmod +x "$T/vanish.probe"

for srv in $(farm_servers); do
	if ! start_farm_server "$srv" "$T/$srv" "$F"; then
		tap_ok 1 "$srv: the server starts"
		continue
	fi
	U="$URL"
	LOG="$T/$srv/access.log"

	# A web page, not a listing.
	: >"$LOG"
	farm_bisect "$srv-notalisting" --index "$U/hostile/notalisting/" --probe true
	is "$RC" 2 "$srv: a page that is no listing: exit 2"
	like "$(cat "$T/$srv-notalisting.err")" "$U/hostile/notalisting/" "$srv: no listing: the message names the URL"
	# Nothing outside that directory is asked for (a look for
	# notalisting/repodata/repomd.xml and the like is fine), no package.
	is "$(grep -v ' /hostile/notalisting/' "$LOG" | grep -c .)" 0 "$srv: no listing: nothing outside that URL is asked for"
	farm_bisect "$srv-notalisting-forced" --index "$U/hostile/notalisting/" --farm mainline --probe true
	is "$RC" 2 "$srv: no listing, --farm mainline: exit 2"
	like "$(cat "$T/$srv-notalisting-forced.err")" "$U/hostile/notalisting/" "$srv: no listing, --farm mainline: the message names the URL"

	# 100,000 links on one page (11 MB), none of them a real directory: a
	# narrow range first (the page read, one build tried), then all of it.
	farm_bisect "$srv-huge-range" --index "$U/hostile/huge/" --farm mainline --good v6.0.0 --bad v6.0.2 --probe true
	like "$RC" '^[123]$' "$srv: 100,000 links, --good v6.0.0 --bad v6.0.2: read (or refused) and ended cleanly (exit 1, 2 or 3)"
	farm_bisect "$srv-huge" --index "$U/hostile/huge/" --farm mainline --probe true
	isnt "$RC" 124 "$srv: a listing of 100,000 links does not hang (ends within 120 s)"
	like "$RC" '^[123]$' "$srv: 100,000 links: refused or inconclusive, cleanly (exit 1, 2 or 3, no crash)"
	if [ "$RC" = 2 ]; then
		like "$(cat "$T/$srv-huge.err")" "$U/hostile/huge/" "$srv: 100,000 links refused: the message names the URL"
	else
		like "$(report_field "$T/$srv-huge.json" result)" '^(inconclusive|found)$' "$srv: 100,000 links: a report all the same"
	fi

	# A version directory gone after the top listing was read.
	rm -rf "$T/vanished"
	: >"$T/generic.log"
	farm_bisect "$srv-vanish" --index "$U/vanish/" --keyring "$FARM_KEY" --no-prefetch --probe "$T/vanish.probe"
	ok "$srv: the culprit's directory was moved away during the run" test -d "$T/vanished"
	is "$RC" 1 "$srv: a vanished build directory: the run ends, inconclusive (exit 1)"
	is "$(step_field "$T/$srv-vanish.json" "$CULPRIT" by)" "unavailable" "$srv: vanished: that build is unavailable"
	like "$(step_field "$T/$srv-vanish.json" "$CULPRIT" reason)" "$CULPRIT" "$srv: vanished: the reason names its URL"
	is "$(report_field "$T/$srv-vanish.json" candidates)" "[\"$CULPRIT\", \"v6.8.3\"]" \
		"$srv: vanished: the build and the next remain"
	[ -d "$T/vanished" ] && mv "$T/vanished" "$F/vanish/$CULPRIT"

	stop_farm_server "$srv"
done

plan_done
