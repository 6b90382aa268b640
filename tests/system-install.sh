#!/bin/bash
# --install system against a scratch system root (--system-root): each
# candidate's packages are installed there (an rpm transaction, dpkg for
# .debs), its kernel is made the default for the next boot only through
# the boot loader's one-shot tool (recording stubs on PATH, in this test
# only), nothing ever sets a permanent default, and reset removes every
# kernel artbisect installed.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

need_cmd rpmbuild rpm dpkg-deb dpkg
# Recording stubs for the boot loader tools; a permanent default fails.
mkdir -p "$T/stubs"
for tool in grub2-reboot grub-reboot; do
	printf '#!/bin/sh\necho "%s $*" >> "%s/calls"\n' "$tool" "$T" > "$T/stubs/$tool"
done
for tool in grub2-set-default grub-set-default grubby; do
	printf '#!/bin/sh\necho "PERMANENT %s $*" >> "%s/calls"\nexit 1\n' "$tool" "$T" > "$T/stubs/$tool"
done
chmod +x "$T"/stubs/*
export PATH="$T/stubs:$PATH"

# hostile_names SRC DST PREFIX INFIX EXT: farm SRC copied to DST with
# each artifact's file name PREFIX + stem + INFIX + EXT (EXT the end it
# had; INFIX may hold \uXXXX), percent-encoded in the index: what a farm
# may call its files.
hostile_names() {
	"$PYTHON3" - "$@" <<'PY'
import json, os, shutil, sys, urllib.parse
src, dst, prefix, infix, ext = sys.argv[1:6]
infix = infix.encode().decode("unicode_escape")	# "\u009b" is U+009B
idx = json.load(open(os.path.join(src, "index.json")))
for b in idx["builds"]:
    for a in b["artifacts"]:
        d, base = os.path.split(a["url"])
        stem = base[:len(base) - len(ext)] if ext and base.endswith(ext) else base
        name = prefix + stem + infix + (ext if ext and base.endswith(ext) else "")
        os.makedirs(os.path.join(dst, d), exist_ok=True)
        shutil.copy(os.path.join(src, a["url"]), os.path.join(dst, d, name))
        a["url"] = (d + "/" if d else "") + urllib.parse.quote(name)
json.dump(idx, open(os.path.join(dst, "index.json"), "w"))
PY
}

# --- RPMs into a Fedora-like root ----------------------------------------
# Kernel-like packages: each version's files under its own
# /lib/modules/VERSION, so that several install side by side.
mkdir -p "$T/rpmfarm/rpms" "$T/rpm/top"
for i in $(seq 0 11); do
	st=0
	[ "$i" -ge 7 ] && st=1
	{
		printf 'Name: kernel-core\nVersion: 6.1.%d\nRelease: 1\nSummary: test kernel %d\n' "$i" "$i"
		printf 'License: GPL-2.0-only\nBuildArch: noarch\n%%description\ntest\n%%install\n'
		printf 'mkdir -p %%{buildroot}/lib/modules/6.1.%d-1.noarch\n' "$i"
		printf "printf '#!/bin/sh\\\\nexit %d\\\\n' > %%{buildroot}/lib/modules/6.1.%d-1.noarch/works\n" "$st" "$i"
		printf 'chmod 755 %%{buildroot}/lib/modules/6.1.%d-1.noarch/works\n' "$i"
		printf '%%files\n/lib/modules/6.1.%d-1.noarch\n' "$i"
	} > "$T/rpm/k$i.spec"
	rpmbuild -bb --quiet --define "_topdir $T/rpm/top" --define "_build_id_links none" \
		--define "__os_install_post %{nil}" "$T/rpm/k$i.spec" > "$T/rpm/k$i.log" 2>&1 ||
		bail_out "rpmbuild: $(tail -n 3 "$T/rpm/k$i.log")"
done
cp "$T"/rpm/top/RPMS/noarch/*.rpm "$T/rpmfarm/rpms/"
"$ARTBISECT" index --output "$T/rpmfarm/index.json" "$T/rpmfarm/rpms" > /dev/null 2>&1 || bail_out "artbisect index failed"
SYS="$T/sys"
mkdir -p "$SYS/etc" "$SYS/boot/loader/entries"
echo 0123456789abcdef0123456789abcdef > "$SYS/etc/machine-id"
W="$T/w"
ab() { "$ARTBISECT" --work-dir "$W" --cache-dir "$T/cache" "$@"; }
installed() { rpm --root "$SYS" --dbpath /var/lib/rpm -qa 2>/dev/null | grep -c '^kernel-core' ; }

run ab start --index "$T/rpmfarm/index.json" --install system --system-root "$SYS"
is "$RC" 0 "start --install system: exit 0"
first=$(ab status --json | json_get - current.id)
like "$OUT" "Build $first is ready to test" "it names the candidate"
like "$OUT" "installed and set as the default for the next boot only: reboot into it" "it says to reboot"
like "$ERR" "Installed kernel-core-$first\\.noarch \\(kernel $first\\.noarch\\); next boot only: grub2-reboot --boot-directory=$SYS/boot 0123456789abcdef0123456789abcdef-$first\\.noarch" \
	"the kernel is installed (its NEVRA, read off the package) and made the one-shot default (BLS id)"
tap_ok $([ -x "$SYS/lib/modules/$first.noarch/works" ]; echo $?) "its files are in the system root"
is "$(installed)" 1 "the candidate's RPM is in the system's rpm database"

steps=0
while [ "$(ab status --json | json_get - result)" = running ] && [ $steps -lt 10 ]; do
	cur=$(ab status --json | json_get - current.id)
	# The tester boots the candidate and looks: here, its app says.
	if "$SYS/lib/modules/$cur.noarch/works" > /dev/null 2>&1; then v=good; else v=bad; fi
	run ab "$v"
	steps=$((steps + 1))
done
is "$RC" 0 "after the reboots: found"
like "$OUT" 'The first bad build is 6\.1\.7-1' "the culprit"
is "$(grep -c '^grub2-reboot ' "$T/calls")" "$steps" "one one-shot boot entry per candidate"
is "$(grep -c PERMANENT "$T/calls")" 0 "no permanent default was ever set"
is "$(installed)" "$steps" "every candidate tested is installed (until reset)"

run ab reset
is "$RC" 0 "reset: exit 0"
is "$(grep -c '^Removed kernel-core-' <<<"$OUT")" "$steps" "reset says what it removed"
is "$(installed)" 0 "reset removed every kernel artbisect installed"

# --- unattended: run --probe --reboot after each (simulated) boot -------
printf '#!/bin/sh\necho "systemctl $*" >> "%s/calls"\n' "$T" > "$T/stubs/systemctl"
chmod +x "$T/stubs/systemctl"
: > "$T/calls"
mkdir -p "$SYS/proc/sys/kernel"
echo 5.0.0-old > "$SYS/proc/sys/kernel/osrelease"
W="$T/w-unattended"
printf '#!/bin/sh\nexec "%s/lib/modules/$(cat "%s/proc/sys/kernel/osrelease")/works"\n' "$SYS" "$SYS" > "$T/check.sh"
chmod +x "$T/check.sh"
run ab start --index "$T/rpmfarm/index.json" --install system --system-root "$SYS" --probe "$T/check.sh"
is "$RC" 0 "unattended: start installs the first candidate"
boots=0 fell_back=0
while [ "$(ab status --json | json_get - result)" = running ] && [ $boots -lt 10 ]; do
	cur=$(ab status --json | json_get - current.id)
	# The boot: the one-shot entry comes up, except for 6.1.8, which
	# does not boot at all (the machine falls back to its old kernel).
	if [ "$cur" = 6.1.8-1 ]; then
		echo 5.0.0-old > "$SYS/proc/sys/kernel/osrelease"
		fell_back=1
	else
		echo "$cur.noarch" > "$SYS/proc/sys/kernel/osrelease"
	fi
	run ab run --reboot
	[ "$cur" = 6.1.8-1 ] && like "$ERR" 'Build 6\.1\.8-1 did not come up: kernel 5\.0\.0-old runs, not 6\.1\.8-1\.noarch\. It counts as bad\.' \
		"a candidate that does not come up counts as bad"
	boots=$((boots + 1))
done
is "$fell_back" 1 "the candidate that does not boot was among those tried"
is "$RC" 0 "unattended: the last run exits 0"
like "$OUT" 'The first bad build is 6\.1\.7-1' "unattended: the culprit, found by the probe after each boot"
is "$(grep -c '^systemctl reboot' "$T/calls")" "$(( boots - 1 ))" "it rebooted after every step but the last"
is "$(grep -c PERMANENT "$T/calls")" 0 "unattended: no permanent default either"
run ab reset
is "$RC/$(installed)" 0/0 "unattended: reset removed its kernels"
# (made at build time with the installed program's path, /usr/local/bin
# by default, so that the unit works after any `make install`)
unit="$TESTS_BUILDDIR/../data/systemd/artbisect-continue.service"
bindir=$(sed -n 's/^bindir = //p' "$TESTS_BUILDDIR/../Makefile")
prefix=$(sed -n 's/^prefix = //p' "$TESTS_BUILDDIR/../Makefile")
bindir=${bindir//\$\{exec_prefix\}/$prefix}
is "$(grep '^ExecStart=' "$unit" 2>&1)" "ExecStart=$bindir/artbisect run --work-dir /var/lib/artbisect --reboot" \
	"the shipped systemd unit runs exactly this after each boot, by the installed program's path"

# --- what reset removes is what the packages say they are ----------------
# The URL's file name is the farm's to choose and no signature covers
# it: here it names an unrelated package, "victim", and carries a CSI.
# Installing takes the names off the package headers, reset erases
# exactly those NEVRAs, and says so escaped.
{
	printf 'Name: victim\nVersion: 1.0\nRelease: 1\nSummary: not ours\nLicense: MIT\nBuildArch: noarch\n'
	printf '%%description\nx\n%%install\nmkdir -p %%{buildroot}/opt/victim\n%%files\n/opt/victim\n'
} > "$T/rpm/victim.spec"
rpmbuild -bb --quiet --define "_topdir $T/rpm/top" --define "_build_id_links none" \
	--define "__os_install_post %{nil}" "$T/rpm/victim.spec" > "$T/rpm/victim.log" 2>&1 ||
	bail_out "rpmbuild victim: $(tail -n 3 "$T/rpm/victim.log")"
rpm --root "$SYS" --dbpath /var/lib/rpm -i --nodeps "$T"/rpm/top/RPMS/noarch/victim-1.0-1.noarch.rpm ||
	bail_out "cannot install victim into the scratch root"
hostile_names "$T/rpmfarm" "$T/evilfarm" "" ' victim \u009b31mX' .noarch.rpm
start_server "$T/evilfarm"
W="$T/w-evil"
run ab start --index "$BASE/index.json" --install system --system-root "$SYS"
is "$RC" 0 "a file name that names another package: start installs the build"
evil=$(ab status --json | json_get - current.id)
like "$ERR" "Installed kernel-core-$evil\\.noarch \\(kernel $evil\\.noarch\\)" "the package's own NEVRA and release, not the file name's"
like "$(cat "$W/session.json")" "\"names\": \"kernel-core-$evil\\.noarch\"" "the session keeps only that NEVRA"
run ab reset
is "$RC" 0 "reset: exit 0"
like "$OUT" "^Removed kernel-core-$evil\\.noarch \\(kernel $evil\\.noarch\\)\\.$" "reset removed the kernel it installed"
is "$(rpm --root "$SYS" --dbpath /var/lib/rpm -q victim 2>&1)" "victim-1.0-1.noarch" "and left the unrelated package alone"
tap_ok $(! grep -q $'\xc2\x9b' <<<"$OUT$ERR"; echo $?) "no raw control byte from the farm reached the terminal"
rpm --root "$SYS" --dbpath /var/lib/rpm -e --nodeps victim 2>/dev/null
stop_server

run ab --index "$T/rpmfarm/index.json" --install system --system-root "$SYS" --probe true
like "$RC/$ERR" "^2/.*--install system is for testing by hand" "--install system with a probe run: exit 2, said"
ab reset > /dev/null 2>&1

# --- .debs into a Debian-like root ---------------------------------------
mkfarm --out "$T/debfarm" --builds 6 --culprit 3 --format deb --package-name linux-image-6.1.0-test
SYS2="$T/sys2"
mkdir -p "$SYS2/var/lib/dpkg/info" "$SYS2/var/lib/dpkg/updates" "$SYS2/var/lib/dpkg/triggers" "$SYS2/boot/grub"
: > "$SYS2/var/lib/dpkg/status"
: > "$SYS2/var/lib/dpkg/available"
cat > "$SYS2/boot/grub/grub.cfg" <<'EOF'
menuentry 'Debian GNU/Linux' --class debian $menuentry_id_option 'gnulinux-simple-x' {
	linux /boot/vmlinuz-6.1.0-13-amd64
}
submenu 'Advanced options for Debian GNU/Linux' $menuentry_id_option 'gnulinux-advanced-x' {
	menuentry 'Debian GNU/Linux, with Linux 6.1.0-test' --class debian $menuentry_id_option 'gnulinux-6.1.0-test-advanced-x' {
		linux /boot/vmlinuz-6.1.0-test
	}
	menuentry 'Debian GNU/Linux, with Linux 6.1.0-test (recovery mode)' --class debian $menuentry_id_option 'gnulinux-6.1.0-test-recovery-x' {
		linux /boot/vmlinuz-6.1.0-test single
	}
}
EOF
: > "$T/calls"
run ab start --index "$T/debfarm/index.json" --install system --system-root "$SYS2"
is "$RC" 0 "start --install system with .debs: exit 0"
like "$(cat "$T/calls")" "^grub-reboot --boot-directory=$SYS2/boot Advanced options for Debian GNU/Linux>Debian GNU/Linux, with Linux 6.1.0-test$" \
	"grub-reboot gets the entry's menu path (not the recovery one)"
like "$(dpkg --root="$SYS2" -l 2>/dev/null | grep '^ii')" 'linux-image-6.1.0-test' "dpkg installed the candidate into the system root"
run ab reset
is "$RC/$(dpkg --root="$SYS2" -l 2>/dev/null | grep -c '^ii')" 0/0 "reset purged it"

# A .deb's file name that would put an option and another package on
# dpkg's command line: the name comes from the control file instead.
mkdir -p "$T/victim/DEBIAN"
printf 'Package: victim\nVersion: 1.0\nArchitecture: all\nMaintainer: t <t@t>\nDescription: not ours\n' \
	> "$T/victim/DEBIAN/control"
dpkg-deb --build --root-owner-group "$T/victim" "$T/victim.deb" > /dev/null 2>&1 || bail_out "dpkg-deb victim"
dpkg --root="$SYS2" --force-script-chrootless --force-not-root -i "$T/victim.deb" > /dev/null 2>&1 ||
	bail_out "cannot install victim into the scratch root"
hostile_names "$T/debfarm" "$T/evildeb" "--force-depends victim " "" ""
start_server "$T/evildeb"
W="$T/w-evildeb"
run ab start --index "$BASE/index.json" --install system --system-root "$SYS2"
is "$RC" 0 "a .deb named like options and another package: start installs it"
run ab reset
is "$RC" 0 "reset: exit 0"
like "$OUT" "^Removed linux-image-6\\.1\\.0-test \\(kernel 6\\.1\\.0-test\\)\\.$" "reset purged the package the control file names"
is "$(dpkg --root="$SYS2" -l 2>/dev/null | awk '/^ii/ {print $2}')" victim "and nothing else"
stop_server

plan_done
