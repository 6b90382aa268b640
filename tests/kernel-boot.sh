#!/bin/bash
# Kernels: a farm made here from Debian's real cloud kernel package,
# repackaged as RPMs with Fedora's layout (12 builds over HTTP) and as
# .debs with Debian's (6 builds), the same 6 as an Ubuntu mainline farm
# (signed CHECKSUMS, served by nginx). Good builds boot; from the culprit on
# they panic (their own initramfs, whose init exits), hang (an init that
# sleeps forever) or do not load (a truncated image). Bisected with
# data/probes/qemu-boot under qemu (TCG when KVM does not work): every
# judgement comes from the console or the timeout.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"
. "$TESTS_SRCDIR/farmlib.sh"

need_cmd qemu-system-x86_64 busybox rpmbuild dpkg-deb cpio gzip apt-get
[ "$(uname -m)" = x86_64 ] || skip_all "the kernel farm is an x86_64 one"
P="$TESTS_SRCDIR/../data/probes/qemu-boot"

# The kernel: the package linux-image-cloud-amd64 depends on, fetched
# with apt-get download (kept between runs in the build tree).
kcache="$TESTS_BUILDDIR/kernel-cache"
mkdir -p "$kcache"
pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
[ -n "$pkg" ] || skip_all "apt knows no linux-image-cloud-amd64 (run apt-get update)"
deb=$(ls "$kcache"/"$pkg"_*.deb 2>/dev/null | head -n 1)
if [ -z "$deb" ]; then
	(cd "$kcache" && apt-get download "$pkg" > "$T/download.log" 2>&1) ||
		skip_all "cannot download $pkg: $(tail -n 1 "$T/download.log")"
	deb=$(ls "$kcache"/"$pkg"_*.deb | head -n 1)
fi
mkdir -p "$T/deb"
dpkg-deb -x "$deb" "$T/deb"
vmlinuz=$(ls "$T"/deb/boot/vmlinuz-* | head -n 1)
kver=${vmlinuz##*/vmlinuz-}
[ -f "$vmlinuz" ] || bail_out "no vmlinuz in $deb"
diag "kernel $kver from $(basename "$deb")"

# Initramfs images for the bad builds: an init that exits (the kernel
# panics: "Attempted to kill init") and one that sleeps forever.
initramfs() {	# NAME INIT-BODY
	mkdir -p "$T/ird-$1/bin"
	cp "$(command -v busybox)" "$T/ird-$1/bin/busybox"
	printf '#!/bin/busybox sh\n%s\n' "$2" > "$T/ird-$1/init"
	chmod 755 "$T/ird-$1/init"
	(cd "$T/ird-$1" && find . | cpio -o -H newc 2>/dev/null | gzip -1) > "$T/$1.img"
}
initramfs panic 'echo "init exits"; exit 1'
initramfs hang 'echo "init sleeps"; while :; do /bin/busybox sleep 1000; done'
head -c 200000 "$vmlinuz" > "$T/vmlinuz-truncated"

kind_of() {	# BUILD-NUMBER CULPRIT -> good|panic|hang|truncated
	if [ "$1" -lt "$2" ]; then echo good; else
		case $(( ($1 - $2) % 3 )) in 0) echo panic ;; 1) echo hang ;; 2) echo truncated ;; esac
	fi
}
# Files of build N under DIR: the kernel at PATH, maybe an initramfs at IPATH.
stage() {	# DIR N CULPRIT KPATH IPATH
	local kind
	kind=$(kind_of "$2" "$3")
	mkdir -p "$1/$(dirname "$4")" "$1/$(dirname "$5")"
	if [ "$kind" = truncated ]; then cp "$T/vmlinuz-truncated" "$1/$4"; else cp "$vmlinuz" "$1/$4"; fi
	case $kind in panic|hang) cp "$T/$kind.img" "$1/$5" ;; esac
}

# --- RPMs, Fedora's layout: /lib/modules/VER/vmlinuz ----------------------
mkdir -p "$T/rpmfarm/rpms" "$T/rpm/top"
for i in $(seq 0 11); do
	stage "$T/rpm/src$i" "$i" 7 "lib/modules/$kver/vmlinuz" "lib/modules/$kver/initramfs.img"
	{
		printf 'Name: kernel-core\nVersion: 6.1.0\nRelease: %d\nSummary: test kernel %d (%s)\n' "$i" "$i" "$(kind_of "$i" 7)"
		printf 'License: GPL-2.0-only\nBuildArch: x86_64\nAutoReqProv: no\n%%description\ntest\n'
		printf '%%install\ncp -a %s/. %%{buildroot}/\n%%files\n/lib/modules\n' "$T/rpm/src$i"
	} > "$T/rpm/k$i.spec"
	rpmbuild -bb --quiet --define "_topdir $T/rpm/top" --define "_build_id_links none" \
		--define "__os_install_post %{nil}" --define "_binary_payload w1.gzdio" \
		--define "debug_package %{nil}" "$T/rpm/k$i.spec" > "$T/rpm/k$i.log" 2>&1 ||
		bail_out "rpmbuild failed: $(tail -n 3 "$T/rpm/k$i.log")"
done
cp "$T"/rpm/top/RPMS/x86_64/*.rpm "$T/rpmfarm/rpms/"
run "$ARTBISECT" index --name "kernel-core test farm" --output "$T/rpmfarm/index.json" "$T/rpmfarm/rpms"
is "$RC" 0 "artbisect index writes the kernel RPM farm's index"
start_server "$T/rpmfarm"

export QEMU_BOOT_LOG_DIR="$T/consoles"
run "$ARTBISECT" --index "$BASE/index.json" --probe "$P --timeout 15" --work-dir "$T/w1" \
	--cache-dir "$T/cache" --json --no-prefetch --report "$T/report.md"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/6.1.0-7 "12 kernel RPMs over HTTP: the first bad build is found"
verdicts=$(grep -a 'qemu-boot: 6.1.0-' <<<"$ERR")
diag "$verdicts"
tap_ok $(( $(echo "$OUT" | json_get - tested) == $(grep -c 'qemu-boot: 6.1.0-[0-9]*: \(good\|bad\)' <<<"$ERR") ? 0 : 1 )) \
	"every probe run gave its verdict from the console or the timeout"
like "$verdicts" 'good: reached userspace' "good builds reach userspace (the initramfs made by the probe)"
like "$verdicts" 'bad: kernel panic' "a build whose init exits: a kernel panic, bad"
is "$(ls "$T/consoles" | wc -l)" "$(echo "$OUT" | json_get - tested)" "one console log per step"
is "$(echo "$OUT" | json_get - last_old.kernel_release)/$(echo "$OUT" | json_get - first_new.kernel_release)" \
	"6.1.0-6.x86_64/6.1.0-7.x86_64" "the report names the kernels' uname -r"
like "$(cat "$T/report.md")" 'Kernels \(uname -r\): last good `6\.1\.0-6\.x86_64`, first bad `6\.1\.0-7\.x86_64`' \
	"the Markdown report too"
like "$(cat "$T/report.md")" '^#regzbot introduced: 6\.1\.0-6\.\.6\.1\.0-7$' "and the regzbot line for a kernel farm"

# Each kind of bad build judged on its own, straight from its root.
judge() {	# BUILD-NUMBER
	local root="$T/rpm/src$1"
	ARTBISECT_ROOT=$root ARTBISECT_BUILD="k$1" ARTBISECT_STEP=$1 "$P" --timeout 12 > "$T/judge$1.out" 2>&1
}
judge 8
is "$?/$(grep -o 'bad: no verdict.*' "$T/judge8.out")" "1/bad: no verdict within 12 s (a hang)" "an init that sleeps forever: a hang, bad"
judge 9
is "$?" 1 "a truncated image: bad"
like "$(cat "$T/judge9.out")" 'did not load|without reaching userspace|no verdict' "the truncated image's verdict says why"
mkdir -p "$T/empty"
ARTBISECT_ROOT="$T/empty" "$P" > "$T/judge-empty.out" 2>&1
is "$?" 125 "no kernel in the build: skip (125)"
printf 'exit 3\n' > "$T/guest-fails"
printf 'test -d /proc/1 && exit 0\nexit 9\n' > "$T/guest-passes"
ARTBISECT_ROOT="$T/rpm/src2" "$P" --accel tcg --guest-test "$T/guest-passes" > "$T/gt1.out" 2>&1
is "$?/$(grep -o 'good: guest test passed' "$T/gt1.out")" "0/good: guest test passed" "--guest-test that passes inside the guest: good"
ARTBISECT_ROOT="$T/rpm/src2" "$P" --accel tcg --guest-test "$T/guest-fails" > "$T/gt2.out" 2>&1
is "$?/$(grep -o 'bad: guest test exited 3' "$T/gt2.out")" "1/bad: guest test exited 3" "--guest-test that fails: bad, its status reported"

# --- .debs, Debian's layout: /boot/vmlinuz-VER, /boot/initrd.img-VER ------
mkdir -p "$T/debfarm/debs"
for i in $(seq 0 5); do
	d="$T/debsrc$i"
	stage "$d" "$i" 3 "boot/vmlinuz-$kver" "boot/initrd.img-$kver"
	mkdir -p "$d/DEBIAN"
	printf 'Package: linux-image-test\nVersion: 6.1.%d-1\nArchitecture: amd64\nMaintainer: tests <t@example.org>\nDescription: test kernel %d\n' \
		"$i" "$i" > "$d/DEBIAN/control"
	dpkg-deb -Zgzip -z1 --build "$d" "$T/debfarm/debs/linux-image-test_6.1.${i}-1_amd64.deb" > /dev/null 2>&1 ||
		bail_out "dpkg-deb failed"
done
"$ARTBISECT" index --output "$T/debfarm/index.json" "$T/debfarm/debs" > /dev/null 2>&1
run "$ARTBISECT" --index "$T/debfarm/index.json" --probe "$P --timeout 15" --work-dir "$T/w2" \
	--cache-dir "$T/cache" --json --no-prefetch
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/6.1.3-1 "6 kernel .debs (Debian's layout): the first bad build is found"
like "$ERR" "booting $T/w2/roots/[0-9]+-6\\.1\\.[0-9]-1/boot/vmlinuz-$kver" "the probe finds Debian's /boot/vmlinuz-VERSION"

# --- Ubuntu mainline farm: vX.Y[.Z]/amd64/ with signed CHECKSUMS, nginx ----
# The same 6 kernels as mainline publishes them (names as tests/mkfarms.py's
# mainline_names: v6.1.3 -> 6.1.3-060103, package version KREL.STAMP), read
# by artbisect from nginx's listing, each CHECKSUMS checked against a key
# made here, each image booted by the probe.
mainline_part() {
	local i ver krel pkgver d src n
	farm_keys
	for i in $(seq 0 5); do
		if [ "$i" = 0 ]; then ver=v6.1; krel=6.1.0-060100; else ver=v6.1.$i; krel=$(printf '6.1.%d-0601%02d' "$i" "$i"); fi
		pkgver=$krel.2023010${i}1200
		d="$T/mlfarm/mainline/$ver/amd64"
		mkdir -p "$d"
		src="$T/mlsrc$i"
		stage "$src/image" "$i" 3 "boot/vmlinuz-$krel-generic" "boot/initrd.img-$krel-generic"
		mkdir -p "$src/modules/lib/modules/$krel-generic" "$src/image/DEBIAN" "$src/modules/DEBIAN"
		printf 'kernel/drivers/dummy.ko:\n' > "$src/modules/lib/modules/$krel-generic/modules.dep"
		for n in image-unsigned modules; do
			printf 'Package: linux-%s-%s-generic\nVersion: %s\nArchitecture: amd64\nMaintainer: tests <t@example.org>\nDescription: test kernel %d\n' \
				"$n" "$krel" "$pkgver" "$i" > "$src/${n%-unsigned}/DEBIAN/control"
			dpkg-deb -Zgzip -z1 --root-owner-group --build "$src/${n%-unsigned}" \
				"$d/linux-$n-${krel}-generic_${pkgver}_amd64.deb" > /dev/null 2>&1 || bail_out "dpkg-deb failed"
		done
		(
			cd "$d" || exit 1
			echo "# Checksums-Sha1:"
			sha1sum -- *.deb
			echo "# Checksums-Sha256:"
			sha256sum -- *.deb
		) > "$T/CHECKSUMS.$i" && mv "$T/CHECKSUMS.$i" "$d/CHECKSUMS"
		GNUPGHOME="$T/keys/gnupg" gpg --batch --quiet --yes --local-user farm@example.org \
			--detach-sign --output "$d/CHECKSUMS.gpg" "$d/CHECKSUMS" || bail_out "gpg could not sign $ver's CHECKSUMS"
		echo 0 > "$d/status"
	done
	start_nginx "$T/nginx" "$T/mlfarm" || bail_out "nginx did not start"
	run "$ARTBISECT" --index "$URL/mainline/" --keyring "$FARM_KEY" --probe "$P --timeout 15" \
		--work-dir "$T/w3" --cache-dir "$T/cache3" --json --no-prefetch
	is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/v6.1.3 \
		"6 kernels as an Ubuntu mainline farm over nginx: the first bad build is found"
	echo "$OUT" > "$T/mainline.json"
	is "$(steps_where "$T/mainline.json" by=probe trust | sort -u | tr '\n' ' ' | sed 's/ $//')" signed \
		"every tested build's CHECKSUMS was checked against its signature (trust \"signed\")"
	like "$ERR" "booting $T/w3/roots/[0-9]+-v6\\.1(\\.[0-9])?/boot/vmlinuz-6\\.1\\.[0-9]-0601[0-9][0-9]-generic" \
		"the probe boots mainline's /boot/vmlinuz-KREL-generic"
	stop_nginx
}
if command -v nginx > /dev/null 2>&1; then
	mainline_part
else
	skip "an Ubuntu mainline farm over nginx" "nginx is not installed (apt-get install nginx-light)"
fi

plan_done
