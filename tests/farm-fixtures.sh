#!/bin/bash
# The fixture farms themselves (tests/mkfarms.py), checked through nginx
# and Apache with the tools of each format and no artbisect: every
# package fetched back is what its checksum list or signature says (or,
# for the planted faults, is not), the packages hold what the farm tests
# probe for, the culprit is where the manifest says. When a farm test
# fails, this one says whether the fault is in the fixture.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"
. "$TESTS_SRCDIR/farmlib.sh"

need_cmd curl gpg gpgv dpkg-deb bsdtar zstd rpm rpmkeys rpmbuild rpm2cpio cpio sha256sum sha1sum
[ -n "$(farm_servers)" ] || skip_all "neither nginx nor apache2 is installed (apt-get install nginx-light apache2)"

farm_keys
F="$T/farms"
mkfarms mainline "$F/mainline" --keys "$T/keys" || bail_out "mkfarms.py mainline failed"
mkfarms mainline "$F/ml-otherkey" --keys "$T/keys" --from "$F/mainline" --variant otherkey || bail_out "mainline otherkey"
mkfarms mainline "$F/ml-tampered" --keys "$T/keys" --from "$F/mainline" --variant tampered || bail_out "mainline tampered"
mkfarms arch "$F/arch" --keys "$T/keys" || bail_out "mkfarms.py arch failed"
mkfarms arch "$F/arch-otherkey" --keys "$T/keys" --from "$F/arch" --variant otherkey || bail_out "arch otherkey"
mkfarms koji "$F/koji" --keys "$T/keys" --variant signed || bail_out "mkfarms.py koji failed"
mkfarms sums "$F/sums" --keys "$T/keys" || bail_out "mkfarms.py sums failed"
mkfarms sums "$F/sums-dup" --keys "$T/keys" --from "$F/sums" --variant dup || bail_out "sums dup"
mkfarms hostile "$F/hostile" || bail_out "mkfarms.py hostile failed"
FK="$T/keys/farm-key.gpg"
OK_="$T/keys/other-key.gpg"
mkdir -p "$T/rpmdb"
rpmkeys --dbpath "$T/rpmdb" --import "$FARM_KEY" || bail_out "rpmkeys --import failed"

get() { # PATH -> $T/got (fails on HTTP errors)
	curl -sSf -o "$T/got" "$URL/$1"
}
# listing PATH: the names a directory listing links to, one a line, without
# the parent, sort links and the "./" Apache puts before names with a colon.
listing() {
	curl -sSf "$URL/$1" | grep -o 'href="[^"?/][^"]*"' | grep -v '^href="\.\./"$' | sed 's/^href="//; s/"$//; s|^\./||' |
		"$PYTHON3" -c 'import sys, urllib.parse; [print(urllib.parse.unquote(l.strip())) for l in sys.stdin]' |
		LC_ALL=C sort
}
deb_file() { # DEB PATH-IN-DEB -> its content
	dpkg-deb --fsys-tarfile "$1" | tar -xOf - "./$2"
}

# check_mainline FARM VARIANT: prints what is wrong. The variants: the
# culprit and the build before it only.
check_mainline() {
	local farm=$1 variant=$2 v d n sum want got culprit i=0 ci failed
	culprit=$(json_get "$F/$farm.json" culprit)
	failed=$(json_get "$F/$farm.json" failed.0)
	ci=$(json_get "$F/$farm.json" builds | "$PYTHON3" -c 'import json,sys; print(json.load(sys.stdin).index(sys.argv[1]))' "$culprit")
	for v in $(json_get "$F/$farm.json" builds | "$PYTHON3" -c 'import json,sys; print(" ".join(json.load(sys.stdin)))'); do
		if [ "$variant" != plain ] && [ "$i" -lt $((ci - 1)) ]; then
			i=$((i + 1))
			continue
		fi
		[ "$variant" != plain ] && [ "$i" -gt "$ci" ] && break
		d="$farm/$v/amd64"
		[ "$i" = 0 ] && d="$farm/$v"
		get "$d/CHECKSUMS" && cp "$T/got" "$T/sums" || echo "$v: no CHECKSUMS;"
		get "$d/CHECKSUMS.gpg" && cp "$T/got" "$T/sums.gpg" || echo "$v: no CHECKSUMS.gpg;"
		if gpgv --keyring "$FK" "$T/sums.gpg" "$T/sums" 2>/dev/null; then
			[ "$variant" = otherkey ] && [ "$v" = "$culprit" ] && echo "$v: verifies with the farm key;"
		else
			[ "$variant" = otherkey ] && [ "$v" = "$culprit" ] &&
				! gpgv --keyring "$OK_" "$T/sums.gpg" "$T/sums" 2>/dev/null && echo "$v: not by the other key;"
			[ "$variant" = otherkey ] && [ "$v" = "$culprit" ] || echo "$v: CHECKSUMS.gpg does not verify;"
		fi
		grep -qx '# Checksums-Sha1:' "$T/sums" && grep -qx '# Checksums-Sha256:' "$T/sums" || echo "$v: CHECKSUMS sections;"
		while read -r sum n; do
			get "$d/$n" || { echo "$v: $n not served;"; continue; }
			got=$(sha256sum <"$T/got" | cut -d ' ' -f 1)
			if [ "$got" != "$sum" ]; then
				[ "$variant" = tampered ] && [ "$v" = "$culprit" ] && case $n in linux-image-unsigned-*-generic_*) continue ;; esac
				echo "$v: $n sha256 differs;"
			elif [ "$variant" = tampered ] && [ "$v" = "$culprit" ]; then
				case $n in linux-image-unsigned-*-generic_*_amd64.deb) echo "$v: $n not tampered;" ;; esac
			fi
			[ "$(sha1sum <"$T/got" | cut -d ' ' -f 1)" = "$(sed -n '/Sha1/,/Sha256/p' "$T/sums" | awk -v n="$n" '$2 == n { print $1 }')" ] ||
				echo "$v: $n sha1 differs;"
			case $n in linux-image-unsigned-*-generic_*_amd64.deb)
				[ "$variant" = tampered ] && [ "$v" = "$culprit" ] && continue
				cp "$T/got" "$T/img.deb"
				n=$(dpkg-deb -c "$T/img.deb" | grep -o 'boot/vmlinuz-.*-generic$')
				want=OK
				[ "$i" -ge "$ci" ] && want=BROKEN
				deb_file "$T/img.deb" "$n" | grep -q "$want" || echo "$v: $n is not $want;"
				;;
			esac
		done < <(sed -n '/Sha256/,$p' "$T/sums" | grep -v '^#')
		if [ "$i" != 0 ]; then
			get "$d/status" || echo "$v: no status;"
			[ "$(cat "$T/got")" = "$([ "$v" = "$failed" ] && echo 1 || echo 0)" ] ||
				echo "$v: status $(cat "$T/got");"
		fi
		i=$((i + 1))
	done
}

for srv in $(farm_servers); do
	if ! start_farm_server "$srv" "$T/$srv" "$F"; then
		tap_ok 1 "$srv: the server starts"
		continue
	fi

	# -- mainline
	is "$(listing mainline/ | tr '\n' ' ')" \
		"README daily/ v6.6/ v6.7.1/ v6.7.2/ v6.7/ v6.8-rc1/ v6.8-rc2/ v6.8.1/ v6.8.2/ v6.8.3/ v6.8/ v6.9-rc1/ v6.9/ " \
		"$srv: mainline: the top listing names the 12 versions, daily/ and README"
	is "$(listing mainline/v6.8.2/ | tr '\n' ' ')" "HEADER.html amd64/ arm64/ " "$srv: mainline: a version holds amd64/ and arm64/"
	is "$(listing mainline/v6.8.2/amd64/ | grep -c '\.deb$')" 7 "$srv: mainline: amd64/ holds 7 .debs (headers all; headers, image, modules for generic and lowlatency)"
	like "$(listing mainline/v6.6/ | tr '\n' ' ')" '^BUILD\.LOG\.amd64 CHECKSUMS CHECKSUMS\.gpg HEADER\.html linux-' \
		"$srv: mainline: the old-style build has its files at the version root"
	unlike "$(listing mainline/v6.7.1/amd64/ | tr '\n' ' ')" 'generic' "$srv: mainline: the failed build has no generic packages"
	is "$(check_mainline mainline plain)" "" "$srv: mainline: signatures, both digests of every package, status files, OK before the culprit and BROKEN from it"
	is "$(check_mainline ml-otherkey otherkey)" "" "$srv: mainline otherkey: only the culprit's CHECKSUMS is signed by the other key"
	is "$(check_mainline ml-tampered tampered)" "" "$srv: mainline tampered: only the culprit's generic image differs from CHECKSUMS"

	# -- arch
	P="arch/packages/l/linux"
	is "$(listing "$P/" | grep -c '^linux-[0-9].*-x86_64\.pkg\.tar\.zst$')" 10 "$srv: arch: 10 linux packages listed"
	ok "$srv: arch: the epoch package is listed by its name with a colon" grep -qx 'linux-1:6.9.1.arch1-1-x86_64.pkg.tar.zst' \
		<(listing "$P/")
	bad=""
	for n in $(listing "$P/" | grep '\.pkg\.tar\.zst$'); do
		get "$P/$(printf '%s' "$n" | sed 's/:/%3A/')" && cp "$T/got" "$T/pkg" || { bad="$bad $n: not served;"; continue; }
		get "$P/$(printf '%s' "$n" | sed 's/:/%3A/').sig" && cp "$T/got" "$T/pkg.sig" || { bad="$bad $n.sig: not served;"; continue; }
		gpgv --keyring "$FK" "$T/pkg.sig" "$T/pkg" 2>/dev/null || bad="$bad $n: .sig does not verify;"
		[ "$(bsdtar -tf "$T/pkg" | head -n 3 | tr '\n' ' ')" = ".BUILDINFO .MTREE .PKGINFO " ] || bad="$bad $n: metadata;"
		ver=${n%-x86_64.pkg.tar.zst}
		ver=${ver#linux-docs-}
		ver=${ver#linux-headers-}
		ver=${ver#linux-}
		[ "$(bsdtar -xOf "$T/pkg" .PKGINFO | sed -n 's/^pkgver = //p')" = "$ver" ] || bad="$bad $n: pkgver;"
		case $n in linux-[0-9]*)
			want=OK
			"$PYTHON3" -c 'import json,sys; b=json.load(open(sys.argv[1]))["builds"]; sys.exit(0 if b.index(sys.argv[2]) >= b.index(sys.argv[3]) else 1)' \
				"$F/arch.json" "$ver" "$(json_get "$F/arch.json" culprit)" && want=BROKEN
			bsdtar -xOf "$T/pkg" 'usr/lib/modules/*/vmlinuz' | grep -q "$want" || bad="$bad $n: not $want;"
			;;
		esac
	done
	is "$bad" "" "$srv: arch: every package verifies against its .sig, has .BUILDINFO .MTREE .PKGINFO first, the right pkgver, OK before the culprit"
	C=$(json_get "$F/arch-otherkey.json" culprit)
	get "arch-otherkey/packages/l/linux/linux-$C-x86_64.pkg.tar.zst" && cp "$T/got" "$T/pkg"
	get "arch-otherkey/packages/l/linux/linux-$C-x86_64.pkg.tar.zst.sig" && cp "$T/got" "$T/pkg.sig"
	is "$(gpgv --keyring "$FK" "$T/pkg.sig" "$T/pkg" >/dev/null 2>&1; echo $?):$(gpgv --keyring "$OK_" "$T/pkg.sig" "$T/pkg" >/dev/null 2>&1; echo $?)" \
		"2:0" "$srv: arch otherkey: the culprit's .sig is by the other key only"

	# -- koji
	K="koji/packages/kernel"
	is "$(listing "$K/" | tr '\n' ' ')" "6.8.1/ 6.8.2/ 6.8.3/ 6.8.4/ 6.9.0/ 6.9.1/ 6.9.2/ " "$srv: koji: version directories"
	is "$(listing "$K/6.8.1/300.fc40/" | tr '\n' ' ')" "data/ noarch/ src/ x86_64/ " "$srv: koji: a release holds data/ noarch/ src/ x86_64/"
	is "$(listing "$K/6.8.3/300.fc40/" | tr '\n' ' ')" "data/ noarch/ src/ " "$srv: koji: the failed release has no x86_64/"
	S="$(listing "$K/6.9.0/")"
	like "$S" "^$(json_get "$F/koji.json" commit | sed 's/^/0\\.rc1\\.20240320git/')\\.2\\.fc41/$" "$srv: koji: the snapshot release names its commit"
	get "$K/6.9.0/${S%/}/x86_64/kernel-core-6.9.0-${S%/}.x86_64.rpm" && cp "$T/got" "$T/core.rpm"
	like "$(rpm -qpl "$T/core.rpm" 2>/dev/null | tr '\n' ' ')" 'lib/modules/6\.9\.0-.*\.x86_64/vmlinuz' "$srv: koji: kernel-core holds vmlinuz"
	like "$(rpm2cpio "$T/core.rpm" | cpio -i --quiet --to-stdout '*vmlinuz' 2>/dev/null)" 'BROKEN' "$srv: koji: the snapshot's vmlinuz is BROKEN"
	get "$K/6.8.4/300.fc40/x86_64/kernel-core-6.8.4-300.fc40.x86_64.rpm" && cp "$T/got" "$T/core.rpm"
	like "$(rpm2cpio "$T/core.rpm" | cpio -i --quiet --to-stdout '*vmlinuz' 2>/dev/null)" ' OK$' "$srv: koji: the one before is OK"
	like "$(rpmkeys --dbpath "$T/rpmdb" -K "$T/core.rpm" 2>&1)" 'digests signatures OK' "$srv: koji: the signed variant's RPMs verify against the farm key"
	get "$K/6.8.4/300.fc40/x86_64/kernel-modules-6.8.4-300.fc40.x86_64.rpm" && cp "$T/got" "$T/mod.rpm"
	like "$(rpm -qpl "$T/mod.rpm" 2>/dev/null | tr '\n' ' ')" 'kernel/drivers/dummy\.ko' "$srv: koji: kernel-modules holds a module"

	# -- sums
	bad=""
	for d in $(listing sums/nightly/ | grep '/$'); do
		get "sums/nightly/${d}SHA256SUMS" && cp "$T/got" "$T/SHA256SUMS" || bad="$bad $d: no SHA256SUMS;"
		get "sums/nightly/${d}SHA256SUMS.asc" && cp "$T/got" "$T/SHA256SUMS.asc" || bad="$bad $d: no .asc;"
		gpgv --keyring "$FK" "$T/SHA256SUMS.asc" "$T/SHA256SUMS" 2>/dev/null || bad="$bad $d: .asc does not verify;"
		while read -r sum n; do
			get "sums/nightly/$d$n" || { bad="$bad $d$n: not served;"; continue; }
			[ "$(sha256sum <"$T/got" | cut -d ' ' -f 1)" = "$sum" ] || bad="$bad $d$n: digest;"
		done <"$T/SHA256SUMS"
	done
	is "$bad" "" "$srv: sums: every nightly's SHA256SUMS.asc verifies and every file matches SHA256SUMS"
	is "$(listing sums/nightly/ | grep -c '/$')" 12 "$srv: sums: 12 nightly directories"
	get "sums/nightly/2026-1-10/app-2026-1-10-linux-x86_64.tar.gz" && cp "$T/got" "$T/a.tgz"
	like "$(tar -xzOf "$T/a.tgz" app/STATUS)" 'x86_64 BROKEN' "$srv: sums: 2026-1-10 (the culprit) is BROKEN"
	get "sums/nightly/2026-1-9/app-2026-1-9-linux-x86_64.tar.gz" && cp "$T/got" "$T/a.tgz"
	like "$(tar -xzOf "$T/a.tgz" app/STATUS)" 'x86_64 OK' "$srv: sums: 2026-1-9 is OK"
	bad=""
	for n in $(listing sums/flat/ | grep '\.tar\.gz$'); do
		get "sums/flat/$n" && cp "$T/got" "$T/$n" || bad="$bad $n;"
		get "sums/flat/$n.sha256" && cp "$T/got" "$T/$n.sha256" || bad="$bad $n.sha256;"
		(cd "$T" && sha256sum --quiet -c "$n.sha256") || bad="$bad $n: digest;"
	done
	is "$bad" "" "$srv: sums: every flat tarball matches its .sha256"
	get "sums-dup/nightly/2026-1-10/SHA256SUMS"
	is "$(awk '{ print $2 }' "$T/got" | sort | uniq -d)" "app-2026-1-10-linux-x86_64.tar.gz" "$srv: sums dup: the culprit's tarball is named twice"

	# -- hostile
	unlike "$(curl -sS "$URL/hostile/notalisting/")" 'Index of' "$srv: hostile: notalisting/ is a plain page"
	is "$(curl -sS "$URL/hostile/huge/" | grep -c '<a href="v6\.')" 100000 "$srv: hostile: huge/ links 100,000 versions"

	# The engine reaches the planted culprits through an index v1 of the
	# same packages (mkfarms.py index): the fixtures unpack, and the
	# probes say what the farm tests expect of them. nginx only.
	if [ "$srv" = nginx ]; then
		farm_probe generic 'boot/vmlinuz-*-generic' 'boot/vmlinuz-*' 'lib/modules/*-generic/modules.dep' \
			'!lib/modules/*-lowlatency'
		farm_probe kernel 'usr/lib/modules/*/vmlinuz' 'usr/lib/modules/*/vmlinuz' '!usr/lib/modules/*/build'
		farm_probe core 'lib/modules/*/vmlinuz' 'lib/modules/*/vmlinuz' '!lib/modules/*/kernel'
		farm_probe app 'app/STATUS' 'app/STATUS' 'app/bin/app'
		while read -r farm probe last; do
			mkfarms index "$F/$farm" --url "$URL/$farm/" >"$T/$farm.idx.json"
			farm_bisect "$farm-idx" --index "$T/$farm.idx.json" --check-bounds --probe "$T/$probe.probe"
			is "$RC $(report_field "$T/$farm-idx.json" last_old.id) $(report_field "$T/$farm-idx.json" first_new.id)" \
				"0 $last $(json_get "$F/$farm.json" culprit)" \
				"$srv: $farm through an index v1: the planted culprit, after $last"
			is "$(probe_check "$probe")" clean "$srv: $farm through an index v1: every root as the probe requires"
		done <<'EOF'
mainline generic v6.8.1
arch kernel 6.8.1.arch1-1
koji core 6.8.4-300.fc40
sums app 2026-1-9
EOF
		is "$(report_field "$T/koji-idx.json" first_new.commit)" "$(json_get "$F/koji.json" commit)" \
			"$srv: koji through an index v1: the snapshot's commit"
	fi

	stop_farm_server "$srv"
done

plan_done
