#!/bin/bash
# libFuzzer targets (tests/fuzz/) for the index loader, the session
# loaders, the yum repository metadata parsers and the farm parsers
# (directory listings, checksum files), built here with clang under
# AddressSanitizer and UndefinedBehaviorSanitizer and run briefly from seed inputs. Set
# FUZZ_SECONDS for a longer run (default 12 s per target).
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

need_cmd clang pkg-config
SRC="$TESTS_SRCDIR/../src"
CONFIG_H_DIR="$TESTS_BUILDDIR/.."
[ -f "$CONFIG_H_DIR/config.h" ] || skip_all "no config.h in the build tree"
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n){(void)d;(void)n;return 0;}\n' > "$T/probe.c"
clang -fsanitize=fuzzer "$T/probe.c" -o "$T/probe" > /dev/null 2>&1 ||
	skip_all "clang cannot build libFuzzer targets (install libclang-rt-14-dev)"

flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -pthread"
cflags=$(pkg-config --cflags libcurl libarchive jansson rpm libxml-2.0 gpgme)
libs=$(pkg-config --libs libcurl libarchive jansson rpm libxml-2.0 gpgme)
# The library's sources: every layer but the front end (src/cli) and
# the unpack helper's main.
lib=$(find "$SRC" -name '*.c' ! -path "$SRC/cli/*" ! -name unpack_main.c | sort)
# The library is compiled once, instrumented for the fuzzer but without
# its main (fuzzer-no-link); each target is then its own file linked
# with those objects.
objflags="-g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -pthread"
mkdir -p "$T/obj"
objs=
for c in $lib; do
	o="$T/obj/$(echo "${c#"$SRC"/}" | tr / _).o"
	clang $objflags -I"$SRC" -I"$CONFIG_H_DIR" $cflags -DLOCALEDIR='"/nonexistent"' \
		-DPKGDATADIR='"/nonexistent"' -c -o "$o" "$c" >> "$T/lib.build" 2>&1
	objs="$objs $o"
done
build() {
	clang $flags -I"$SRC" -I"$CONFIG_H_DIR" $cflags -o "$T/$1" "$TESTS_SRCDIR/fuzz/$1.c" \
		$objs $libs > "$T/$1.build" 2>&1 || { diag "$(head -n 5 "$T/lib.build" "$T/$1.build")"; false; }
}
build fuzz-index
tap_ok $? "fuzz-index builds with clang, ASan and UBSan"
build fuzz-session
tap_ok $? "fuzz-session builds with clang, ASan and UBSan"
build fuzz-repodata
tap_ok $? "fuzz-repodata builds with clang, ASan and UBSan"
build fuzz-listing
tap_ok $? "fuzz-listing builds with clang, ASan and UBSan"
build fuzz-sums
tap_ok $? "fuzz-sums builds with clang, ASan and UBSan"

# Seeds: a real index, broken ones, a real session and its log.
mkdir -p "$T/seed-index" "$T/seed-session"
mkfarm --out "$T/farm" --builds 6 --culprit 3 --failed 1
cp "$T/farm/index.json" "$T/seed-index/good.json"
printf '{"format":"artbisect-index","version":1,"builds":[{"id":"a","artifacts":[{"url":"file:///x","sha256":"%064d"}]}]}' 0 \
	> "$T/seed-index/file-url.json"
printf '[[[[[[[[[[' > "$T/seed-index/nesting.json"
printf '{"format":"artbisect-index","version":2}' > "$T/seed-index/version.json"
"$ARTBISECT" start --index "$T/farm/index.json" --work-dir "$T/w" --cache-dir "$T/c" > /dev/null 2>&1
"$ARTBISECT" bad --work-dir "$T/w" --cache-dir "$T/c" > /dev/null 2>&1
cp "$T/w/session.json" "$T/seed-session/session.json"
"$ARTBISECT" log --work-dir "$T/w" > "$T/seed-session/session.log"
printf "artbisect start --index \$'a\\\\nb' --probe 'it'\\\\''s'\nbad x  # probe, 1.5 s\n" > "$T/seed-session/quoted.log"

# Listing pages captured from real Apache, nginx and lighttpd servers
# (tests/listings.sh) and small checksum files of every form.
cp -R "$TESTS_SRCDIR/fuzz/corpus-listing" "$T/seed-listing"
cp -R "$TESTS_SRCDIR/fuzz/corpus-sums" "$T/seed-sums"

secs=${FUZZ_SECONDS:-12}
for target in fuzz-index fuzz-session fuzz-repodata fuzz-listing fuzz-sums; do
	corpus="$T/corpus-$target"
	mkdir -p "$corpus"
	seeds="$T/seed-${target#fuzz-}"
	# (The repodata seeds are kept in the tree: repomd.xml, NUL, primary.)
	[ "$target" = fuzz-repodata ] && seeds="$TESTS_SRCDIR/fuzz/corpus-repodata"
	(cd "$T" && ASAN_OPTIONS=detect_leaks=1 "$T/$target" -max_total_time="$secs" -rss_limit_mb=2048 \
		-max_len=65536 -timeout=10 "$corpus" "$seeds" > "$T/$target.out" 2>&1)
	rc=$?
	tap_ok $rc "$target: ${secs} s of fuzzing, no crash, leak, hang or undefined behaviour"
	if [ $rc -ne 0 ]; then
		diag "$(grep -m 5 -E 'ERROR|SUMMARY|runtime error|Test unit written' "$T/$target.out")"
		for f in "$T"/crash-* "$T"/leak-* "$T"/timeout-*; do
			[ -f "$f" ] && diag "input: $(od -c "$f" | head -n 8)"
		done
	fi
	like "$(grep -m 1 -o 'stat::number_of_executed_units: [0-9]*' "$T/$target.out" || grep -o '#[0-9]*.*DONE' "$T/$target.out" | tail -n 1)" \
		'[0-9]' "$target: it ran ($(grep -o 'DONE.*' "$T/$target.out" | tail -n 1 | cut -c1-60))"
done

plan_done
