#!/bin/bash
# Acceptance of issue 3 for package farms: a 24-build RPM farm (zstd and
# xz payloads, rpmbuild) and a 16-build .deb farm (dpkg-deb) over HTTP
# find their planted culprits; --install rpm does the same with a real
# transaction.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"
need_cmd rpmbuild dpkg-deb

probe='./usr/bin/app'

for payload in zstd xz; do
	mkfarm --out "$T/rpm-$payload" --format rpm --payload "$payload" --builds 24 --culprit 17
	start_server "$T/rpm-$payload"
	run "$ARTBISECT" --index "$BASE/index.json" --probe "$probe" --json \
		--cache-dir "$T/cache" --work-dir "$T/work"
	echo "$OUT" > "$T/rpm.json"
	is "$RC" 0 "rpm farm ($payload payload): exit 0"
	is "$(json_get "$T/rpm.json" first_new.index)" 17 "rpm farm ($payload payload): the culprit is found"
	n=$(json_get "$T/rpm.json" tested)
	tap_ok $(( n <= 5 ? 0 : 1 )) "rpm farm ($payload payload): $n probe runs for 24 builds (at most 5)"
done

# The same farm installed with rpm transactions instead of unpacked.
if [ "$(id -u)" = 0 ]; then
	reset_log
	run "$ARTBISECT" --index "$BASE/index.json" --probe "$probe" --json --install rpm --no-prefetch \
		--cache-dir "$T/cache" --work-dir "$T/work"
	echo "$OUT" > "$T/install.json"
	is "$RC" 0 "rpm farm with --install rpm: exit 0"
	is "$(json_get "$T/install.json" first_new.index)" 17 "rpm farm with --install rpm: the culprit is found"
	is "$(count_requests '^GET /builds/')" 0 "the second run over the farm downloads nothing"
else
	skip "--install rpm farm" "not root"
fi

# A damaged package in the middle: refused before the probe, the rest
# still bisects around it.
mkfarm --out "$T/rpm-corrupt" --format rpm --builds 24 --culprit 17 --corrupt 11
start_server "$T/rpm-corrupt"
run "$ARTBISECT" --index "$BASE/index.json" --probe "$probe" --json \
	--cache-dir "$T/cache2" --work-dir "$T/work"
echo "$OUT" > "$T/corrupt.json"
is "$RC" 0 "rpm farm with a corrupt build: exit 0"
is "$(json_get "$T/corrupt.json" first_new.index)" 17 "rpm farm with a corrupt build: culprit found"

for payload in xz zstd; do
	mkfarm --out "$T/deb-$payload" --format deb --payload "$payload" --builds 16 --culprit 5
	start_server "$T/deb-$payload"
	run "$ARTBISECT" --index "$BASE/index.json" --probe "$probe" --json \
		--cache-dir "$T/cache" --work-dir "$T/work"
	echo "$OUT" > "$T/deb.json"
	is "$RC" 0 "deb farm ($payload): exit 0"
	is "$(json_get "$T/deb.json" first_new.index)" 5 "deb farm ($payload): the culprit is found"
	n=$(json_get "$T/deb.json" tested)
	tap_ok $(( n <= 4 ? 0 : 1 )) "deb farm ($payload): $n probe runs for 16 builds (at most 4)"
done

# --find-fix over a deb farm.
mkfarm --out "$T/deb-fix" --format deb --builds 16 --fix-at 9
start_server "$T/deb-fix"
run "$ARTBISECT" --index "$BASE/index.json" --probe "$probe" --json --find-fix \
	--cache-dir "$T/cache" --work-dir "$T/work"
echo "$OUT" > "$T/fix.json"
is "$RC" 0 "deb farm --find-fix: exit 0"
is "$(json_get "$T/fix.json" first_new.index)" 9 "deb farm --find-fix: the fixing build is found"

plan_done
