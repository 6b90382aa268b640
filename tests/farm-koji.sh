#!/bin/bash
# A Koji package tree (tests/mkfarms.py koji: packages/kernel/VERSION/
# RELEASE/{x86_64,noarch,src,data}/ with RPMs made by rpmbuild: kernel
# (meta), kernel-core, kernel-modules, kernel-doc (noarch); one snapshot
# release with git<hex> in it, the culprit; one release without x86_64/,
# a failed build), served by nginx and by Apache, bisected end to end:
# --package kernel-core and --package kernel-core --package kernel-modules
# find the culprit and unpack exactly those subpackages, the snapshot's
# commit is in the report, the failed build is never chosen, and RPMs
# signed with rpmsign verify against --keyring.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"
. "$TESTS_SRCDIR/farmlib.sh"

need_cmd curl gpg rpmbuild timeout
[ -n "$(farm_servers)" ] || skip_all "neither nginx nor apache2 is installed (apt-get install nginx-light apache2)"

farm_keys
F="$T/farms"
mkfarms koji "$F/koji" --keys "$T/keys" || bail_out "mkfarms.py koji failed"
CULPRIT=$(json_get "$F/koji.json" culprit) # 6.9.0-0.rc1.20240320git1d0f2a9e7b3c.2.fc41
COMMIT=$(json_get "$F/koji.json" commit)   # 1d0f2a9e7b3c
FAILED=$(json_get "$F/koji.json" failed.0) # 6.8.3-300.fc40
P=$(json_get "$F/koji.json" url_path)      # packages/kernel/
SIGNED=""
if mkfarms koji "$F/signed" --keys "$T/keys" --from "$F/koji" --variant signed; then
	SIGNED=1
else
	diag "rpmsign could not sign the fixture RPMs: the signed variant is skipped"
fi

# kernel-core alone: the image, no modules, no docs.
farm_probe core 'lib/modules/*/vmlinuz' 'lib/modules/*/vmlinuz' 'lib/modules/*/System.map' \
	'!lib/modules/*/kernel' '!usr/share/doc/kernel-doc'
# kernel-core and kernel-modules.
farm_probe coremod 'lib/modules/*/vmlinuz' 'lib/modules/*/vmlinuz' 'lib/modules/*/kernel/drivers/dummy.ko' \
	'lib/modules/*/modules.dep' '!usr/share/doc/kernel-doc'

for srv in $(farm_servers); do
	if ! start_farm_server "$srv" "$T/$srv" "$F"; then
		tap_ok 1 "$srv: the server starts"
		continue
	fi
	U="$URL"

	: >"$T/core.log"
	farm_bisect "$srv-core" --index "$U/koji/$P" --farm koji --package kernel-core --arch x86_64 \
		--probe "$T/core.probe"
	is "$RC" 0 "$srv: --package kernel-core: exit 0"
	is "$(report_field "$T/$srv-core.json" first_new.id)" "$CULPRIT" "$srv: the first bad build is the planted snapshot"
	is "$(report_field "$T/$srv-core.json" first_new.commit)" "$COMMIT" \
		"$srv: the snapshot release's git<hex> is the build's commit in the report"
	is "$(report_field "$T/$srv-core.json" last_old.id)" "6.8.4-300.fc40" "$srv: the last good build is the one before it"
	is "$(probe_check core)" "clean" "$srv: --package kernel-core: kernel-core's files only"
	ok "$srv: the failed build $FAILED is never probed" not_probed core "$FAILED"
	like "$(report_field "$T/$srv-core.json" builds)" '^[78]$' "$srv: 8 version-releases (7 without the failed one); data/ is none"

	: >"$T/coremod.log"
	farm_bisect "$srv-coremod" --index "$U/koji/$P" --farm koji --package kernel-core --package kernel-modules \
		--probe "$T/coremod.probe"
	is "$RC:$(report_field "$T/$srv-coremod.json" first_new.id)" "0:$CULPRIT" \
		"$srv: --package kernel-core --package kernel-modules finds the culprit"
	is "$(probe_check coremod)" "clean" "$srv: both subpackages unpacked into each root, kernel-doc not"

	# A mistyped --arch or --package: no build has it, so it is bad input
	# (exit 2, naming the option and what the farm has) found at the
	# first build, not a walk of the whole range as failed builds.
	: >"$T/core.log"
	farm_bisect "$srv-archtypo" --index "$U/koji/$P" --farm koji --package kernel-core --arch x86_65 \
		--probe "$T/core.probe"
	is "$RC" 2 "$srv: --arch x86_65 (no build has it): exit 2"
	like "$(cat "$T/$srv-archtypo.err")" '^artbisect: --arch x86_65: no build has it .*architectures there: x86_64' \
		"$srv: --arch x86_65: the message names the option and the architectures there"
	# (The first build tried is the release Koji failed to make, passed
	# over; the next one tells.)
	tap_ok $(( $(grep -c 'Testing ' "$T/$srv-archtypo.err") <= 2 ? 0 : 1 )) \
		"$srv: --arch x86_65: found at the first build that has files, the range is not walked"
	like "$(cat "$T/$srv-archtypo.err")" "$FAILED: skip, a failed build: .*: no x86_65 directory in this build \\(noarch has: kernel-doc\\)" \
		"$srv: the release Koji failed to make: its reason names the missing arch directory"
	fails "$srv: --arch x86_65: no session is left to block the corrected command" \
		test -e "$T/$srv-archtypo.work/session.json"
	farm_bisect "$srv-pkgtypo" --index "$U/koji/$P" --farm koji --package kernel-cor --probe "$T/core.probe"
	is "$RC" 2 "$srv: --package kernel-cor (no build has it): exit 2"
	like "$(cat "$T/$srv-pkgtypo.err")" '^artbisect: --package kernel-cor: no build has it .*subpackages there: .*kernel-core' \
		"$srv: --package kernel-cor: the message names the option and the subpackages there"
	fails "$srv: --package kernel-cor: no session is left" test -e "$T/$srv-pkgtypo.work/session.json"
	fails "$srv: a mistyped option: nothing is unpacked" test -s "$T/core.log"

	# Only the failed release lies between the ends.
	: >"$T/core.log"
	farm_bisect "$srv-failed" --index "$U/koji/$P" --farm koji --package kernel-core \
		--good 6.8.2-300.fc40 --bad 6.8.4-300.fc40 --probe "$T/core.probe"
	like "$RC" '^[01]$' "$srv: a range holding only the failed release ends (exit 0 or 1)"
	isnt "$(report_field "$T/$srv-failed.json" first_new.id)" "$FAILED" "$srv: the release without x86_64/ is not chosen"
	fails "$srv: the release without x86_64/ is not probed" probed core "$FAILED"
	like "$(steps_where "$T/$srv-failed.json" id="$FAILED" verdict | sort -u)" '^(skip)?$' \
		"$srv: a step for the failed release, if any, is a skip"

	if [ -n "$SIGNED" ]; then
		: >"$T/core.log"
		farm_bisect "$srv-signed" --index "$U/signed/$P" --farm koji --package kernel-core \
			--keyring "$FARM_KEY" --probe "$T/core.probe"
		is "$RC:$(report_field "$T/$srv-signed.json" first_new.id)" "0:$CULPRIT" \
			"$srv: RPMs signed with rpmsign, --keyring: the culprit is found"
		is "$(steps_where "$T/$srv-signed.json" by=probe trust | sort -u)" "signed" \
			"$srv: signed RPMs: every tested build's trust is \"signed\""
		: >"$T/core.log"
		farm_bisect "$srv-wrongkey" --index "$U/signed/$P" --farm koji --package kernel-core \
			--keyring "$OTHER_KEY" --good 6.8.4-300.fc40 --bad 6.9.1-300.fc40 --probe "$T/core.probe"
		# Every build in the range is refused: exit 3 as CONTRACT.md says.
		is "$RC" 3 "$srv: signed by a key not in --keyring: every build unavailable (exit 3)"
		is "$(step_field "$T/$srv-wrongkey.json" "$CULPRIT" by)" "unavailable" \
			"$srv: a key not in --keyring: the culprit is unavailable"
		fails "$srv: a key not in --keyring: nothing is unpacked" test -s "$T/core.log"
	else
		skip "$srv: signed RPMs" "rpmsign could not sign"
	fi

	stop_farm_server "$srv"
done

plan_done
