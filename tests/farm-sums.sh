#!/bin/bash
# Checksummed trees (tests/mkfarms.py sums): nightly/ with one directory per
# build named 2026-1-1 ... 2026-1-12 (natural order: 2026-1-9 before
# 2026-1-10), each with an x86_64 and an aarch64 tarball, SHA256SUMS and
# its armored signature SHA256SUMS.asc; and flat/, app-1.0.tar.gz ...
# app-1.11.tar.gz each with FILE.sha256. Served by nginx and by Apache,
# bisected end to end: the culprit found in both, signed with --keyring
# and digest-only without; a SHA256SUMS naming the culprit's file twice
# with different digests makes it unavailable.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"
. "$TESTS_SRCDIR/farmlib.sh"

need_cmd curl gpg timeout
[ -n "$(farm_servers)" ] || skip_all "neither nginx nor apache2 is installed (apt-get install nginx-light apache2)"

farm_keys
F="$T/farms"
mkfarms sums "$F/sums" --keys "$T/keys" || bail_out "mkfarms.py sums failed"
mkfarms sums "$F/dup" --keys "$T/keys" --from "$F/sums" --variant dup || bail_out "mkfarms.py sums dup failed"
CULPRIT=$(json_get "$F/sums.json" culprit)           # 2026-1-10
FLAT_CULPRIT=$(json_get "$F/sums.json" flat_culprit) # 1.10
NP=$(json_get "$F/sums.json" url_path)               # nightly/
FP=$(json_get "$F/sums.json" flat_url_path)          # flat/

# The x86_64 tarball only: the aarch64 one says BROKEN in every build.
farm_probe app 'app/STATUS' 'app/STATUS' 'app/bin/app'

trusts() {
	steps_where "$T/$1.json" by=probe trust | sort -u | tr '\n' ' ' | sed 's/ $//'
}

for srv in $(farm_servers); do
	if ! start_farm_server "$srv" "$T/$srv" "$F"; then
		tap_ok 1 "$srv: the server starts"
		continue
	fi
	U="$URL"

	: >"$T/app.log"
	farm_bisect "$srv-nightly" --index "$U/sums/$NP" --farm sums --arch x86_64 --keyring "$FARM_KEY" \
		--probe "$T/app.probe"
	is "$RC" 0 "$srv: nightly/ with SHA256SUMS.asc, --keyring: exit 0"
	is "$(report_field "$T/$srv-nightly.json" first_new.id)" "$CULPRIT" "$srv: nightly: the planted culprit (natural order)"
	is "$(report_field "$T/$srv-nightly.json" last_old.id)" "2026-1-9" "$srv: nightly: 2026-1-9 comes before 2026-1-10"
	is "$(report_field "$T/$srv-nightly.json" builds)" 12 "$srv: nightly: 12 builds (latest.txt is none)"
	is "$(probe_check app)" "clean" "$srv: nightly: every root held the app"
	is "$(trusts "$srv-nightly")" "signed" "$srv: nightly, --keyring: every tested build's trust is \"signed\""

	: >"$T/app.log"
	farm_bisect "$srv-nightly-digest" --index "$U/sums/$NP" --farm sums --arch x86_64 --probe "$T/app.probe"
	is "$RC:$(report_field "$T/$srv-nightly-digest.json" first_new.id)" "0:$CULPRIT" \
		"$srv: nightly without --keyring: the culprit is found"
	is "$(trusts "$srv-nightly-digest")" "digest" "$srv: nightly without --keyring: trust \"digest\""

	# A mistyped --arch: no build has it, so it is bad input (exit 2,
	# naming the option and what the farm has) found at the first build.
	: >"$T/app.log"
	farm_bisect "$srv-archtypo" --index "$U/sums/$NP" --farm sums --arch x86_46 --probe "$T/app.probe"
	is "$RC" 2 "$srv: --arch x86_46 (no build has it): exit 2"
	like "$(cat "$T/$srv-archtypo.err")" '^artbisect: --arch x86_46: no build has it .*architectures there: (x86_64, aarch64|aarch64, x86_64)\)' \
		"$srv: --arch x86_46: the message names the option and the architectures there"
	is "$(grep -c 'Testing ' "$T/$srv-archtypo.err")" 1 "$srv: --arch x86_46: found at the first build"
	fails "$srv: --arch x86_46: no session is left" test -e "$T/$srv-archtypo.work/session.json"
	fails "$srv: --arch x86_46: nothing is unpacked" test -s "$T/app.log"

	: >"$T/app.log"
	farm_bisect "$srv-flat" --index "$U/sums/$FP" --farm sums --probe "$T/app.probe"
	is "$RC" 0 "$srv: flat/ with FILE.sha256: exit 0"
	like "$(report_field "$T/$srv-flat.json" first_new.id)" "^(app-)?${FLAT_CULPRIT//./\\.}$" \
		"$srv: flat: the first bad build is version $FLAT_CULPRIT (after 1.9, not after 1.1)"
	like "$(report_field "$T/$srv-flat.json" last_old.id)" '^(app-)?1\.9$' "$srv: flat: the last good build is 1.9"
	is "$(report_field "$T/$srv-flat.json" builds)" 12 "$srv: flat: 12 builds (the .sha256 files are none)"
	is "$(trusts "$srv-flat")" "digest" "$srv: flat: trust \"digest\""
	# flat/'s FILE.sha256 lists are not signed: --keyring asks for a
	# signature, and the reason says which names were looked for.
	farm_bisect "$srv-flat-key" --index "$U/sums/$FP" --farm sums --keyring "$FARM_KEY" --probe "$T/app.probe"
	like "$(cat "$T/$srv-flat-key.err")" 'app-1\.[0-9]+\.tar\.gz\.sha256 has no signature beside it \([^ ]*app-1\.[0-9]+\.tar\.gz\.sha256\.asc, \.gpg or \.sig\) and --keyring asks for one' \
		"$srv: flat with --keyring: unavailable, naming the signature files looked for"

	# The culprit's SHA256SUMS names its tarball twice, with two digests.
	: >"$T/app.log"
	farm_bisect "$srv-dup" --index "$U/dup/$NP" --farm sums --arch x86_64 --keyring "$FARM_KEY" --probe "$T/app.probe"
	is "$RC" 1 "$srv: a file named twice in SHA256SUMS: inconclusive (exit 1)"
	is "$(step_field "$T/$srv-dup.json" "$CULPRIT" by)" "unavailable" "$srv: named twice: that build is unavailable"
	like "$(step_field "$T/$srv-dup.json" "$CULPRIT" reason)" 'listed twice with different digests' "$srv: named twice: the report says why"
	ok "$srv: named twice: the build is never unpacked" not_probed app "$CULPRIT"

	stop_farm_server "$srv"
done

plan_done
