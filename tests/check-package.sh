#!/bin/bash
# Checks a package that `make rpm` (rpmbuild -ta on the release tarball)
# or `make deb` (dpkg-buildpackage) made: binary, man page, translations,
# probes and completion are in it, and the binary it holds runs. Run by
# .ci/run after make distcheck:
#   bash tests/check-package.sh rpmbuild/RPMS/x86_64/artbisect-*.rpm
#   bash tests/check-package.sh debbuild/artbisect_*.deb
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

pkg=${1:-}
if [ -z "$pkg" ] || ! [ -f "$pkg" ]; then
	bail_out "no package given (make rpm or make deb first)"
fi
mkdir -p "$T/root"
case $pkg in
*.rpm)
	kind=RPM
	files=$(rpm -qlp "$pkg" 2>/dev/null)
	name=$(rpm -qp --qf '%{NAME} %{VERSION}' "$pkg" 2>/dev/null)
	(cd "$T/root" && rpm2cpio "$pkg" | cpio -idm --quiet) 2>/dev/null || bsdtar -xf "$pkg" -C "$T/root"
	;;
*.deb)
	kind=.deb
	files=$(dpkg-deb -c "$pkg" | awk '{print $6}' | sed 's|^\./|/|')
	name=$(dpkg-deb -f "$pkg" Package Version | awk -F': ' '{printf "%s ", $2}')
	dpkg-deb -x "$pkg" "$T/root"
	;;
*) bail_out "$pkg: neither .rpm nor .deb" ;;
esac
like "$files" '^/usr/bin/artbisect$' "the $kind holds the binary"
like "$files" '^/usr/libexec/artbisect/artbisect-unpack$' "the $kind holds the unpack helper"
like "$files" '^/usr/share/man/man1/artbisect\.1' "the $kind holds the man page"
like "$files" '^/usr/share/locale/de/LC_MESSAGES/artbisect\.mo$' "the $kind holds the German translation"
like "$files" '^/usr/share/artbisect/probes/exit-status$' "the $kind holds the example probes"
like "$files" '^/usr/share/artbisect/probes/qemu-boot$' "the $kind holds the qemu-boot probe"
like "$files" '^/usr/share/bash-completion/completions/artbisect$' "the $kind holds bash completion"
like "$files" '^/usr/share/zsh/site-functions/_artbisect$' "the $kind holds zsh completion"
like "$name" '^artbisect [0-9]' "its name and version"

# Run what it holds.
run "$T/root/usr/bin/artbisect" --version
like "$RC/$OUT" '^0/artbisect [0-9]' "the packaged binary runs"
mkfarm --out "$T/farm" --builds 8 --culprit 5
run "$T/root/usr/bin/artbisect" --index "$T/farm/index.json" --work-dir "$T/w" --cache-dir "$T/c" \
	--probe "$T/root/usr/share/artbisect/probes/exit-status ./usr/bin/app" --json
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0005 "the packaged binary and probe bisect a farm"

plan_done
