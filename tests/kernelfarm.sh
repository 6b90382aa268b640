#!/bin/bash
# tests/kernelfarm.sh - the pieces of a kernel farm made from Debian's
# real cloud kernel, for tests that boot candidates (tests/lava.sh,
# bench/lava.sh). The same kernel, initramfs kinds and bad-build cycle as
# tests/kernel-boot.sh: from the culprit on, builds panic (an init that
# exits), hang (an init that sleeps forever) or do not load (a truncated
# image), in that order.
#
# Source it after lib.sh (it needs $T, TESTS_BUILDDIR, skip_all):
#   kf_kernel                 fetches the kernel package (kept in
#                             $TESTS_BUILDDIR/kernel-cache); sets KF_VMLINUZ,
#                             KF_KVER; skip_all when apt cannot get it
#   kf_initramfs NAME BODY    writes $T/NAME.img, a busybox initramfs whose
#                             /init runs BODY
#   kf_images                 writes $T/panic.img, $T/hang.img, $T/good.img
#                             (a shell on the console: "/ # ") and
#                             $T/vmlinuz-truncated
#   kf_kind N CULPRIT         good, panic, hang or truncated
#   kf_file_farm DIR N CULPRIT
#                             a farm of N builds whose artifacts are the
#                             bootable files themselves (type file: vmlinuz
#                             and initrd.img, KernelCI's layout), with its
#                             index.json (ids k0..k(N-1), versions 6.1.I)

kf_kernel() {
	local kcache pkg deb
	kcache="$TESTS_BUILDDIR/kernel-cache"
	mkdir -p "$kcache"
	pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
	[ -n "$pkg" ] || skip_all "apt knows no linux-image-cloud-amd64 (run apt-get update)"
	deb=$(ls "$kcache"/"$pkg"_*.deb 2>/dev/null | head -n 1)
	# kernel-boot.sh may be downloading the same file at this moment
	# (make -j check): a file that is not a whole package yet is not used.
	if [ -z "$deb" ] || ! dpkg-deb --info "$deb" > /dev/null 2>&1; then
		mkdir -p "$T/kf-dl"
		(cd "$T/kf-dl" && apt-get download "$pkg" > "$T/download.log" 2>&1) ||
			skip_all "cannot download $pkg: $(tail -n 1 "$T/download.log")"
		deb=$(ls "$T"/kf-dl/"$pkg"_*.deb | head -n 1)
		# Kept for the next run, put in place whole.
		cp "$deb" "$kcache/.kf.$$" && mv -n "$kcache/.kf.$$" "$kcache/${deb##*/}"
		rm -f "$kcache/.kf.$$"
	fi
	mkdir -p "$T/kf-deb"
	dpkg-deb -x "$deb" "$T/kf-deb"
	KF_VMLINUZ=$(ls "$T"/kf-deb/boot/vmlinuz-* | head -n 1)
	[ -f "$KF_VMLINUZ" ] || bail_out "no vmlinuz in $deb"
	KF_KVER=${KF_VMLINUZ##*/vmlinuz-}
	export KF_VMLINUZ KF_KVER
}

kf_initramfs() {	# NAME INIT-BODY
	rm -rf "$T/ird-$1"
	mkdir -p "$T/ird-$1/bin" "$T/ird-$1/proc" "$T/ird-$1/sys" "$T/ird-$1/dev"
	cp "$(command -v busybox)" "$T/ird-$1/bin/busybox"
	printf '#!/bin/busybox sh\n%s\n' "$2" > "$T/ird-$1/init"
	chmod 755 "$T/ird-$1/init"
	(cd "$T/ird-$1" && find . | cpio -o -H newc 2>/dev/null | gzip -1) > "$T/$1.img"
}

kf_images() {
	kf_initramfs panic 'echo "init exits"; exit 1'
	kf_initramfs hang 'echo "init sleeps"; while :; do /bin/busybox sleep 1000; done'
	# A shell on the console, as a LAVA boot action waits for.
	kf_initramfs good '/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
echo "ARTBISECT-GUEST-UP $(uname -r)"
export PS1="/ # "
exec setsid cttyhack sh'
	head -c 200000 "$KF_VMLINUZ" > "$T/vmlinuz-truncated"
}

kf_kind() {	# BUILD-NUMBER CULPRIT
	if [ "$1" -lt "$2" ]; then echo good; else
		case $(( ($1 - $2) % 3 )) in 0) echo panic ;; 1) echo hang ;; 2) echo truncated ;; esac
	fi
}

kf_file_farm() {	# DIR N CULPRIT
	local dir=$1 n=$2 culprit=$3 i kind
	mkdir -p "$dir"
	for i in $(seq 0 $((n - 1))); do
		kind=$(kf_kind "$i" "$culprit")
		mkdir -p "$dir/k$i"
		if [ "$kind" = truncated ]; then cp "$T/vmlinuz-truncated" "$dir/k$i/vmlinuz"
		else cp "$KF_VMLINUZ" "$dir/k$i/vmlinuz"; fi
		case $kind in
		panic|hang) cp "$T/$kind.img" "$dir/k$i/initrd.img" ;;
		*) cp "$T/good.img" "$dir/k$i/initrd.img" ;;
		esac
	done
	kf_index_farm "$dir" "$n"
}

# The same farm, but every bad build panics: no hang waits a boot
# timeout, no truncated image (benchmarks, and examples run as printed).
kf_panic_farm() {	# DIR N CULPRIT
	local dir=$1 n=$2 culprit=$3 i
	kf_file_farm "$dir" "$n" "$culprit"
	for i in $(seq "$culprit" $((n - 1))); do
		cp "$KF_VMLINUZ" "$dir/k$i/vmlinuz"
		cp "$T/panic.img" "$dir/k$i/initrd.img"
	done
	kf_index_farm "$dir" "$n"
}

# index.json for DIR's builds k0..k(N-1), sizes and sha256 from the files.
kf_index_farm() {	# DIR N
	"$PYTHON3" - "$1" "$2" <<'EOF'
import hashlib, json, os, sys
d, n = sys.argv[1], int(sys.argv[2])
builds = []
for i in range(n):
    arts = []
    for f in ("vmlinuz", "initrd.img"):
        p = os.path.join(d, "k%d" % i, f)
        arts.append({"url": "k%d/%s" % (i, f), "type": "file", "name": f,
                     "size": os.path.getsize(p),
                     "sha256": hashlib.sha256(open(p, "rb").read()).hexdigest()})
    builds.append({"id": "k%d" % i, "version": "6.1.%d" % i, "commit": "%040x" % (0xabc000 + i),
                   "artifacts": arts})
json.dump({"format": "artbisect-index", "version": 1, "name": "kernel file farm",
           "project": "linux", "arch": "x86_64", "builds": builds},
          open(os.path.join(d, "index.json"), "w"), indent=1)
EOF
}
