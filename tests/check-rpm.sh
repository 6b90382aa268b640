#!/bin/bash
# Checks the RPM that `make rpm` (rpmbuild -ta on the release tarball)
# made: binary, man page, translations, probes and completion are in it,
# and the binary it holds runs. Run by .ci/run after make distcheck:
#   bash tests/check-rpm.sh rpmbuild/RPMS/x86_64/artbisect-*.rpm
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

rpmfile=${1:-}
if [ -z "$rpmfile" ] || ! [ -f "$rpmfile" ]; then
	bail_out "no RPM given (make rpm first)"
fi
files=$(rpm -qlp "$rpmfile" 2>/dev/null)
like "$files" '^/usr/bin/artbisect$' "the RPM holds the binary"
like "$files" '^/usr/share/man/man1/artbisect\.1' "the RPM holds the man page"
like "$files" '^/usr/share/locale/de/LC_MESSAGES/artbisect\.mo$' "the RPM holds the German translation"
like "$files" '^/usr/share/artbisect/probes/exit-status$' "the RPM holds the example probes"
like "$files" '^/usr/share/bash-completion/completions/artbisect$' "the RPM holds bash completion"
like "$files" '^/usr/share/zsh/site-functions/_artbisect$' "the RPM holds zsh completion"
like "$(rpm -qp --qf '%{NAME} %{VERSION}' "$rpmfile" 2>/dev/null)" '^artbisect [0-9]' "its name and version"

# Unpack it and run what it holds.
mkdir -p "$T/root"
(cd "$T/root" && rpm2cpio "$rpmfile" | cpio -idm --quiet) 2>/dev/null || bsdtar -xf "$rpmfile" -C "$T/root"
run "$T/root/usr/bin/artbisect" --version
like "$RC/$OUT" '^0/artbisect [0-9]' "the packaged binary runs"
mkfarm --out "$T/farm" --builds 8 --culprit 5
run "$T/root/usr/bin/artbisect" --index "$T/farm/index.json" --work-dir "$T/w" --cache-dir "$T/c" \
	--probe "$T/root/usr/share/artbisect/probes/exit-status ./usr/bin/app" --json
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0005 "the packaged binary and probe bisect a farm"

plan_done
