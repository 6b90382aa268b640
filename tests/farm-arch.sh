#!/bin/bash
# An Arch Linux Archive farm (tests/mkfarms.py arch: packages/l/linux/ with
# real linux-VERSION-REL-x86_64.pkg.tar.zst packages, each with a binary
# .sig; linux-headers and linux-docs beside them; one version with an
# epoch, whose name holds a colon), served by nginx and by Apache,
# bisected end to end: found with --keyring (both ends checked, so the
# epoch build is fetched too), refused without a keyring unless
# --allow-unverified (then marked "unverified"; with archlinux-keyring
# installed, checked against Arch's keys and unavailable), and a .sig by another key
# or a package changed after signing making that build unavailable.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"
. "$TESTS_SRCDIR/farmlib.sh"

need_cmd curl gpg bsdtar zstd timeout
[ -n "$(farm_servers)" ] || skip_all "neither nginx nor apache2 is installed (apt-get install nginx-light apache2)"

farm_keys
F="$T/farms"
mkfarms arch "$F/arch" --keys "$T/keys" || bail_out "mkfarms.py arch failed"
mkfarms arch "$F/otherkey" --keys "$T/keys" --from "$F/arch" --variant otherkey || bail_out "mkfarms.py arch otherkey failed"
mkfarms arch "$F/tampered" --keys "$T/keys" --from "$F/arch" --variant tampered || bail_out "mkfarms.py arch tampered failed"
CULPRIT=$(json_get "$F/arch.json" culprit) # 6.8.1.arch1-2
P=$(json_get "$F/arch.json" url_path)       # packages/l/linux/

# The kernel package's files, not the headers' or the docs'.
farm_probe kernel 'usr/lib/modules/*/vmlinuz' 'usr/lib/modules/*/vmlinuz' 'usr/lib/modules/*/pkgbase' \
	'!usr/lib/modules/*/build' '!usr/share/doc/linux'

trusts() {
	steps_where "$T/$1.json" by=probe trust | sort -u | tr '\n' ' ' | sed 's/ $//'
}

for srv in $(farm_servers); do
	if ! start_farm_server "$srv" "$T/$srv" "$F"; then
		tap_ok 1 "$srv: the server starts"
		continue
	fi
	U="$URL"

	: >"$T/kernel.log"
	farm_bisect "$srv-found" --index "$U/arch/$P" --keyring "$FARM_KEY" --check-bounds --probe "$T/kernel.probe"
	is "$RC" 0 "$srv: recognised as the Arch archive without --farm; exit 0"
	is "$(report_field "$T/$srv-found.json" first_new.id)" "$CULPRIT" "$srv: the first bad build is the planted culprit"
	is "$(report_field "$T/$srv-found.json" last_old.id)" "6.8.1.arch1-1" "$srv: the last good build is the pkgrel before it"
	is "$(report_field "$T/$srv-found.json" builds)" 10 "$srv: 10 builds: linux-headers and linux-docs are none"
	is "$(probe_check kernel)" "clean" "$srv: every build tested held the linux package's files only"
	like "$(steps_where "$T/$srv-found.json" bound=new id)" '^(1:)?6\.9\.1\.arch1-1$' \
		"$srv: the newest build is the one with an epoch (checked as the bad end)"
	ok "$srv: the epoch build (a colon in its file name) was fetched, verified and tested bad" \
		grep -Eq '^(1:)?6\.9\.1\.arch1-1 bad$' "$T/kernel.log"
	is "$(trusts "$srv-found")" "signed" "$srv: with --keyring every tested build's trust is \"signed\""

	# No keyring at all (none given, none installed: ARTBISECT_DEFAULT_KEYRINGS
	# empty stands for a machine without archlinux-keyring): a .sig
	# cannot be checked.
	: >"$T/kernel.log"
	ARTBISECT_DEFAULT_KEYRINGS= farm_bisect "$srv-nokey" --index "$U/arch/$P" --farm arch --probe "$T/kernel.probe"
	is "$RC" 2 "$srv: without --keyring or --allow-unverified: exit 2"
	like "$(cat "$T/$srv-nokey.err")" '--keyring' "$srv: without a keyring: the message says to pass --keyring"
	is "$(cat "$T/kernel.log")" "" "$srv: without a keyring nothing is tested"

	: >"$T/kernel.log"
	ARTBISECT_DEFAULT_KEYRINGS= farm_bisect "$srv-unverified" --index "$U/arch/$P" --farm arch --allow-unverified \
		--probe "$T/kernel.probe"
	is "$RC:$(report_field "$T/$srv-unverified.json" first_new.id)" "0:$CULPRIT" \
		"$srv: --allow-unverified finds the culprit"
	is "$(trusts "$srv-unverified")" "unverified" "$srv: --allow-unverified: every tested build's trust is \"unverified\""
	is "$(report_field "$T/$srv-unverified.json" trust.level)" "unverified" \
		"$srv: --allow-unverified: the report's trust level is \"unverified\""
	like "$(report_field "$T/$srv-unverified.json" trust.unverified)" "\"$CULPRIT\"" \
		"$srv: --allow-unverified: the report lists the culprit among the unverified builds"
	like "$(cat "$T/$srv-unverified.err")" 'WARNING.*not verified' "$srv: --allow-unverified: the text warns"

	# No --keyring, Debian's archlinux-keyring installed: its keys are
	# used, and they did not sign this fixture farm.
	if [ -r /usr/share/keyrings/archlinux.gpg ]; then
		: >"$T/kernel.log"
		farm_bisect "$srv-debkeys" --index "$U/arch/$P" --farm arch --probe "$T/kernel.probe"
		is "$RC" 3 "$srv: Debian's Arch keys did not sign this farm: every build unavailable (exit 3)"
		like "$(steps_where "$T/$srv-debkeys.json" by=unavailable reason | head -n 1)" 'signed by a key not in /usr/share/keyrings/archlinux\.gpg .*pass --keyring FILE' \
			"$srv: the reason names the key, the keyring that was used (not --keyring) and how to give the farm's"
		is "$(cat "$T/kernel.log")" "" "$srv: nothing signed by an unknown key is tested"
		farm_bisect "$srv-debkeys-unverified" --index "$U/arch/$P" --farm arch --allow-unverified \
			--probe "$T/kernel.probe"
		is "$RC:$(cat "$T/kernel.log")" "3:" \
			"$srv: --allow-unverified with Debian's Arch keys: still checked, every build unavailable (exit 3), none tested"
	else
		skip "$srv: Debian's Arch keys" "archlinux-keyring is not installed"
	fi

	# No --keyring, default keys that did not sign the farm (as Debian's
	# would be): the reason names those keys, says to pass --keyring, and
	# names the package's URL once; with --quiet the reasons come below.
	ARTBISECT_DEFAULT_KEYRINGS="$OTHER_KEY" farm_bisect "$srv-defkeys" --index "$U/arch/$P" --farm arch \
		--probe "$T/kernel.probe"
	why=$(steps_where "$T/$srv-defkeys.json" by=unavailable reason | head -n 1)
	is "$RC" 3 "$srv: default keys that did not sign the farm: every build unavailable (exit 3)"
	like "$why" "signed by a key not in $OTHER_KEY .*the keys used when no --keyring is given: pass --keyring FILE" \
		"$srv: default keys: the reason names the keyring used and how to give the farm's key"
	unlike "$why" 'not in --keyring' "$srv: default keys: the reason does not blame a --keyring that was not given"
	is "$(printf '%s\n' "$why" | grep -o 'https\?://[^ ]*pkg\.tar\.zst' | wc -l)" 1 \
		"$srv: default keys: the package's URL is said once"
	rm -rf "$T/q.work" "$T/q.cache"
	ARTBISECT_DEFAULT_KEYRINGS="$OTHER_KEY" "$ARTBISECT" --index "$U/arch/$P" --farm arch --probe true --quiet \
		--cache-dir "$T/q.cache" --work-dir "$T/q.work" >"$T/q.out" 2>"$T/q.err" </dev/null
	like "$(cat "$T/q.err")" 'every build tried was unavailable; see the reasons below' \
		"$srv: --quiet: the reasons are said to come below"
	like "$(cat "$T/q.out")" 'unavailable: ' "$srv: --quiet: and they do, in the report"

	# The culprit's .sig made by another key.
	: >"$T/kernel.log"
	farm_bisect "$srv-otherkey" --index "$U/otherkey/$P" --farm arch --keyring "$FARM_KEY" --probe "$T/kernel.probe"
	is "$RC" 1 "$srv: culprit signed by another key: inconclusive (exit 1)"
	is "$(report_field "$T/$srv-otherkey.json" candidates)" "[\"$CULPRIT\", \"6.8.2.arch1-1\"]" \
		"$srv: other key: the culprit and the next build remain"
	is "$(step_field "$T/$srv-otherkey.json" "$CULPRIT" by)" "unavailable" "$srv: other key: the culprit is unavailable"
	like "$(step_field "$T/$srv-otherkey.json" "$CULPRIT" reason)" '[Ss]ignature|[Kk]ey' \
		"$srv: other key: the reason names the signature"
	ok "$srv: other key: the culprit is never unpacked" not_probed kernel "$CULPRIT"

	# The culprit's package changed after it was signed.
	: >"$T/kernel.log"
	farm_bisect "$srv-tampered" --index "$U/tampered/$P" --farm arch --keyring "$FARM_KEY" --probe "$T/kernel.probe"
	is "$RC" 1 "$srv: culprit changed after signing: inconclusive (exit 1)"
	is "$(step_field "$T/$srv-tampered.json" "$CULPRIT" by)" "unavailable" "$srv: tampered: the culprit is unavailable"
	like "$(step_field "$T/$srv-tampered.json" "$CULPRIT" reason)" 'BAD signature' "$srv: tampered: the report says why: a bad signature"
	ok "$srv: tampered: the package is never unpacked" not_probed kernel "$CULPRIT"

	stop_farm_server "$srv"
done

plan_done
