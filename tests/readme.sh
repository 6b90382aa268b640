#!/bin/bash
# The README says true things: its sample output is what the bundled
# demo prints (timings aside), the two command lines at its top are the
# ones .ci/run takes, and every installed path it names is where `make
# install` puts it. Runs data/demo/run-demo.sh, as `make demo` does.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

README="$TESTS_SRCDIR/../README.md"
need_cmd cc

# The sample between its markers, and the demo's run from its first line
# to the compare link, timings made "N".
norm() { sed -E 's/\(([0-9]+\.[0-9]+) s\)/(N s)/; s/Waited [0-9.]+ s/Waited N s/'; }
sed -n '/^<!-- sample: make demo -->$/,/^<!-- end sample -->$/p' "$README" |
	sed '1,2d;$d' | sed '$d' | norm > "$T/sample"
ok "the README has the demo's sample" test -s "$T/sample"

# (One stream, as on a terminal: the steps on standard error, the
# report on standard output after them.)
run sh -c 'sh "$1" "$2" "$3" 2>&1' sh "$TESTS_SRCDIR/../data/demo/run-demo.sh" "$ARTBISECT" "$T/demo"
is "$RC" 0 "the demo finds its culprit"
sed -n '/^Bisecting /,/^Changes between them: /p' "$T/run.out" | norm > "$T/demo.out"
ok "the demo printed a run" test -s "$T/demo.out"
diff -u "$T/sample" "$T/demo.out" > "$T/sample.diff"
tap_ok $? "the README's sample is what the demo prints (timings aside)"
[ -s "$T/sample.diff" ] && diag "$(cat "$T/sample.diff")"

# The session sample: `artbisect start` on the demo's farm, as root
# with the default directories (HOME made /root, digests made H).
sed -n '/^<!-- sample: start -->$/,/^<!-- end sample -->$/p' "$README" |
	sed '1,2d;$d' | sed '$d' | sed -E 's/[0-9a-f]{64}/H/' > "$T/sample-start"
ok "the README has the start sample" test -s "$T/sample-start"
run env HOME="$T/home" XDG_STATE_HOME= XDG_CACHE_HOME= XDG_CONFIG_HOME= \
	sh -c '"$1" start --index "$2" 2>&1' sh "$ARTBISECT" "$T/demo/farm/index.json"
is "$RC" 0 "start on the demo farm"
sed -E "s|$T/home|/root|; s/[0-9a-f]{64}/H/" "$T/run.out" > "$T/start.out"
diff -u "$T/sample-start" "$T/start.out" > "$T/start.diff"
tap_ok $? "the README's start sample is what start prints on the demo farm"
[ -s "$T/start.diff" ] && diag "$(cat "$T/start.diff")"

# Every file the README links to is there (in a release tarball too).
missing=
for f in $(grep -o '](\([^)#h:][^)#]*\)' "$README" | sed 's/^](//' | sort -u); do
	[ -e "$TESTS_SRCDIR/../$f" ] || missing="$missing $f"
done
is "$missing" "" "every file the README links to exists"

# One vocabulary: --help and the README say the same of --net-timeout.
like "$("$ARTBISECT" --help | grep -- '--net-timeout')" 'retry a transfer slower than 1 KiB/s' \
	"--help: --net-timeout retries a slow transfer"
like "$(grep -A1 -- '^- `--net-timeout S`' "$README" | tr '\n' ' ')" 'less than 1 KiB a second' \
	"README: --net-timeout in the same words"

# The rpm.org packages: without them the skip says how to get the full run.
run env TESTDATA="$T/no-testdata" bash "$TESTS_SRCDIR/rpm-packages.sh"
like "$OUT" 'SKIP .*--with-testdata=DIR where DIR/rpm-org holds them' \
	"without rpm.org's packages, the skip says how to get the full run"

# The two command lines: the first runs the demo, the second the tests,
# and .ci/run takes the second.
first=$(awk '/^```/{n++; next} n==1 {print; exit}' "$README")
second=$(awk '/^```/{n++; next} n==1 {l++; if (l==2) {print; exit}}' "$README")
like "$first" '&& make demo$' "the README's first line ends by running the demo"
like "$second" '&& make -j2 check$' "the README's second line ends by running the tests"

# Every installed path the README names, after `make install` with
# --prefix=/usr into a stage (the build's own prefix does not matter:
# the paths are made from prefix when make runs).
if [ -f "$TESTS_BUILDDIR/../Makefile" ]; then
	run make -C "$TESTS_BUILDDIR/.." install prefix=/usr DESTDIR="$T/stage"
	is "$RC" 0 "make install into a stage"
	grep -o '/usr/[a-z]*/[A-Za-z0-9_./-]*' "$README" | grep -v '^/usr/bin/app' | sort -u > "$T/paths"
	ok "the README names installed paths" test -s "$T/paths"
	missing=
	while read -r p; do
		p=${p#/usr/local}	# a default install's path, named as one
		p=/usr${p#/usr}
		[ -e "$T/stage$p" ] || missing="$missing $p"
	done < "$T/paths"
	is "$missing" "" "every path the README names is installed there"
else
	skip "make install into a stage" "no Makefile beside the tests"
fi

plan_done
