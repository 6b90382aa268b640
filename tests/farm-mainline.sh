#!/bin/bash
# An Ubuntu mainline kernel farm (tests/mkfarms.py mainline: vX.Y[.Z][-rcN]/
# with amd64/ and arm64/ holding real .debs, CHECKSUMS signed in
# CHECKSUMS.gpg, status; one old-style build with its files at the version
# root; one failed build; a daily/ that is no build), served by nginx and
# by Apache, bisected end to end: the culprit found with and without
# --farm, the generic flavour (or --flavour lowlatency) and amd64 only,
# the failed build never chosen, a CHECKSUMS signed by another key and a
# tampered .deb making the culprit unavailable with the reason said, and
# the trust of each build in the report (signed with --keyring, digest
# without).
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"
. "$TESTS_SRCDIR/farmlib.sh"

need_cmd curl gpg dpkg-deb timeout
[ -n "$(farm_servers)" ] || skip_all "neither nginx nor apache2 is installed (apt-get install nginx-light apache2)"

farm_keys
F="$T/farms"
mkfarms mainline "$F/mainline" --keys "$T/keys" || bail_out "mkfarms.py mainline failed"
mkfarms mainline "$F/otherkey" --keys "$T/keys" --from "$F/mainline" --variant otherkey || bail_out "mkfarms.py mainline otherkey failed"
mkfarms mainline "$F/tampered" --keys "$T/keys" --from "$F/mainline" --variant tampered || bail_out "mkfarms.py mainline tampered failed"
CULPRIT=$(json_get "$F/mainline.json" culprit)        # v6.8.2
CULPRIT_LL=$(json_get "$F/mainline.json" culprit_lowlatency) # v6.9-rc1
FAILED=$(json_get "$F/mainline.json" failed.0)        # v6.7.1
OLDSTYLE=$(json_get "$F/mainline.json" old_style.0)   # v6.6

# The generic amd64 image and its modules, and nothing else.
farm_probe generic 'boot/vmlinuz-*-generic' 'boot/vmlinuz-*' 'lib/modules/*-generic/modules.dep' \
	'!lib/modules/*-lowlatency' '!usr/src/*-lowlatency'
farm_probe lowlatency 'boot/vmlinuz-*-lowlatency' 'boot/vmlinuz-*' 'lib/modules/*-lowlatency/modules.dep'

trusts() { # TAG: the trust of every build the probe ran on, sorted, unique
	steps_where "$T/$1.json" by=probe trust | sort -u | tr '\n' ' ' | sed 's/ $//'
}

for srv in $(farm_servers); do
	if ! start_farm_server "$srv" "$T/$srv" "$F"; then
		tap_ok 1 "$srv: the server starts"
		continue
	fi
	U="$URL"

	# Recognised from its listing, keyring given; both ends checked, so the
	# old-style build (the oldest) is resolved and unpacked too.
	: >"$T/generic.log"
	farm_bisect "$srv-found" --index "$U/mainline/" --keyring "$FARM_KEY" --check-bounds \
		--probe "$T/generic.probe"
	is "$RC" 0 "$srv: recognised as mainline without --farm; exit 0"
	is "$(report_field "$T/$srv-found.json" first_new.id)" "$CULPRIT" "$srv: the first bad build is the planted culprit"
	is "$(report_field "$T/$srv-found.json" last_old.id)" "v6.8.1" "$srv: the last good build is the one before it"
	is "$(probe_check generic)" "clean" "$srv: every build tested held exactly the generic amd64 image and its modules"
	ok "$srv: the old-style build (files at the version root) was unpacked and tested good" \
		grep -qx "$OLDSTYLE good" "$T/generic.log"
	like "$(report_field "$T/$srv-found.json" builds)" '^1[12]$' "$srv: 12 version directories (11 without the failed one); daily/ is no build"
	ok "$srv: the failed build $FAILED is never handed to the probe" not_probed generic "$FAILED"
	is "$(trusts "$srv-found")" "signed" "$srv: with --keyring every tested build's trust is \"signed\""
	is "$(report_field "$T/$srv-found.json" trust.level)" "signed" "$srv: with --keyring the report's trust level is \"signed\""
	is "$(report_field "$T/$srv-found.json" farm.layout)" "mainline" "$srv: the report names the layout it recognised"

	# Forced layout, explicit ends.
	: >"$T/generic.log"
	farm_bisect "$srv-forced" --index "$U/mainline/" --farm mainline --keyring "$FARM_KEY" \
		--good v6.7 --bad v6.9 --probe "$T/generic.probe"
	is "$RC:$(report_field "$T/$srv-forced.json" first_new.id)" "0:$CULPRIT" "$srv: --farm mainline --good v6.7 --bad v6.9 finds the culprit"
	is "$(probe_check generic)" "clean" "$srv: --farm mainline: the generic amd64 packages only"

	# The other flavour has its own culprit.
	: >"$T/lowlatency.log"
	farm_bisect "$srv-ll" --index "$U/mainline/" --keyring "$FARM_KEY" --flavour lowlatency --arch amd64 \
		--probe "$T/lowlatency.probe"
	is "$RC:$(report_field "$T/$srv-ll.json" first_new.id)" "0:$CULPRIT_LL" "$srv: --flavour lowlatency finds the lowlatency culprit"
	is "$(probe_check lowlatency)" "clean" "$srv: --flavour lowlatency: the lowlatency image only"

	# The failed build is the only one between the ends: it is skipped,
	# never tested, never the answer.
	: >"$T/generic.log"
	farm_bisect "$srv-failed" --index "$U/mainline/" --keyring "$FARM_KEY" --good v6.7 --bad v6.7.2 \
		--probe "$T/generic.probe"
	like "$RC" '^[01]$' "$srv: a range holding only the failed build ends (exit 0 or 1)"
	isnt "$(report_field "$T/$srv-failed.json" first_new.id)" "$FAILED" "$srv: the failed build is not chosen"
	fails "$srv: the failed build is not probed" probed generic "$FAILED"
	like "$(steps_where "$T/$srv-failed.json" id="$FAILED" verdict | sort -u)" '^(skip)?$' \
		"$srv: a step for the failed build, if any, is a skip"

	# CHECKSUMS of the culprit signed by a stranger's key.
	: >"$T/generic.log"
	farm_bisect "$srv-otherkey" --index "$U/otherkey/" --keyring "$FARM_KEY" --probe "$T/generic.probe"
	is "$RC" 1 "$srv: culprit's CHECKSUMS signed by another key: inconclusive (exit 1)"
	is "$(report_field "$T/$srv-otherkey.json" candidates)" "[\"$CULPRIT\", \"v6.8.3\"]" \
		"$srv: other key: the culprit and the next build remain"
	is "$(step_field "$T/$srv-otherkey.json" "$CULPRIT" by)" "unavailable" "$srv: other key: the culprit is unavailable"
	like "$(step_field "$T/$srv-otherkey.json" "$CULPRIT" reason)" '[Ss]ignature|[Kk]ey' \
		"$srv: other key: the reason names the signature"
	like "$(step_field "$T/$srv-otherkey.json" "$CULPRIT" reason)" 'CHECKSUMS' \
		"$srv: other key: the reason names the checksum list"
	ok "$srv: other key: the culprit is never unpacked" not_probed generic "$CULPRIT"

	# The culprit's image .deb changed after CHECKSUMS was made.
	: >"$T/generic.log"
	farm_bisect "$srv-tampered" --index "$U/tampered/" --keyring "$FARM_KEY" --probe "$T/generic.probe"
	is "$RC" 1 "$srv: tampered .deb: inconclusive (exit 1)"
	is "$(report_field "$T/$srv-tampered.json" candidates)" "[\"$CULPRIT\", \"v6.8.3\"]" \
		"$srv: tampered: the culprit and the next build remain"
	is "$(step_field "$T/$srv-tampered.json" "$CULPRIT" by)" "unavailable" "$srv: tampered: the culprit is unavailable"
	like "$(step_field "$T/$srv-tampered.json" "$CULPRIT" reason)" '[Ss][Hh][Aa]-?256' \
		"$srv: tampered: the reason names the SHA-256 mismatch"
	ok "$srv: tampered: the .deb is never unpacked" not_probed generic "$CULPRIT"

	# No keyring: checked for integrity only.
	: >"$T/generic.log"
	farm_bisect "$srv-digest" --index "$U/mainline/" --probe "$T/generic.probe"
	is "$RC:$(report_field "$T/$srv-digest.json" first_new.id)" "0:$CULPRIT" "$srv: without --keyring the culprit is found"
	is "$(trusts "$srv-digest")" "digest" "$srv: without --keyring every tested build's trust is \"digest\" (integrity, not authenticity)"
	is "$(report_field "$T/$srv-digest.json" trust.level)" "digest" "$srv: without --keyring the report's trust level is \"digest\""
	like "$(cat "$T/$srv-digest.err")" 'integrity.*not authenticity' "$srv: without --keyring the text says integrity, not authenticity"

	# A mistyped --flavour or --arch: no build has it, so it is bad input
	# (exit 2, naming the option and what the farm has) found at the
	# first build, not a walk of the whole range as failed builds.
	: >"$T/generic.log"
	farm_bisect "$srv-typo" --index "$U/mainline/" --flavour lowlatncy --probe "$T/generic.probe"
	is "$RC" 2 "$srv: --flavour lowlatncy (no build has it): exit 2"
	like "$(cat "$T/$srv-typo.err")" '^artbisect: --flavour lowlatncy: no build has it .*flavours there: generic, lowlatency' \
		"$srv: --flavour lowlatncy: the message names the option and the flavours there"
	is "$(grep -c 'Testing ' "$T/$srv-typo.err")" 1 "$srv: --flavour lowlatncy: found at the first build, the range is not walked"
	fails "$srv: --flavour lowlatncy: no session is left to block the corrected command" \
		test -e "$T/$srv-typo.work/session.json"
	farm_bisect "$srv-archtypo" --index "$U/mainline/" --arch arm65 --good v6.7 --probe "$T/generic.probe"
	is "$RC" 2 "$srv: --arch arm65 (no build has it): exit 2"
	like "$(cat "$T/$srv-archtypo.err")" '^artbisect: --arch arm65: no build has it .*architectures there: amd64, arm64' \
		"$srv: --arch arm65: the message names the option and the architectures there"
	# i386: only the old-style oldest build has it, the others lack it: a
	# gap of theirs, not a slip; their reasons are in the text report.
	farm_bisect "$srv-gap" --index "$U/mainline/" --arch i386 --probe "$T/generic.probe"
	is "$RC" 1 "$srv: --arch i386, which one end has: the others are failed builds, inconclusive (exit 1), not exit 2"
	like "$(cat "$T/$srv-gap.err")" 'failed build: v6\.8-rc2 \(.*no i386/ directory' \
		"$srv: --arch i386: the text report says why each failed build failed"
	like "$(cat "$T/$srv-gap.err")" 'v6\.8-rc2: skip, a failed build: .*no i386/ directory' \
		"$srv: --arch i386: the progress line says why the build was skipped"

	stop_farm_server "$srv"
done

plan_done
