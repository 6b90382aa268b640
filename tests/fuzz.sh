#!/bin/bash
# libFuzzer targets (tests/fuzz/) for the index loader, the session
# loaders, the yum repository metadata parsers, the farm parsers
# (directory listings, checksum files) and the flaky model (any runs,
# untestable builds and questions, its promises checked after each),
# built here with clang under
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
build fuzz-flaky
tap_ok $? "fuzz-flaky builds with clang, ASan and UBSan"

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

# The flaky model's inputs (decoded in fuzz-flaky.c: size, ends,
# options, then operations).
mkdir -p "$T/seed-flaky"
rep() { local i; for i in $(seq "$1"); do printf "$2"; done; }
# 302 builds, a deterministic culprit at 137: 40 rounds of one build.
{ printf '\012\054\001\000\000\054\001'; rep 40 '\004\001\002\210\000\000'; } > "$T/seed-flaky/deterministic"
# The same, some runs flipped (flaky): 15 rounds of 4 builds at once.
{ printf '\002\054\001\000\000\054\001\000'; rep 15 '\005\004\003\210\000\005\005\004\003\210\000\012'; } > "$T/seed-flaky/jobs"
# 42 builds, rates fixed at 0 and 1, confidence 0.999, untestable builds.
{ printf '\001\050\000\003\000\044\000\015\006\000\001\003\000\015\020\000'
  rep 10 '\004\002\003\024\000\000'
  printf '\006\005\007\000\011\001\005\000\001\010\000\000\000'; } > "$T/seed-flaky/fixed-rates"
# 12 builds, odd priors, then every build untestable.
printf '\000\012\000\000\000\012\000\060\004\010\011\006\003\010\000\000\000\004\003\001\000\000\000\000\003\015\014\000\000\004\010\001\013\001\002' \
	> "$T/seed-flaky/untestable"
# 5,000 builds: runs on the ends and outside them, bursts, a copy.
{ printf '\013\206\023\000\000\206\023'
  printf '\000\000\000\000\001\003\000\000\001\006\000\000\000\007\000\000\012\014\064\022\017\252'
  rep 6 '\005\010\003\064\022\125'
  printf '\006\105\007\010\011\002\064\022\001'; } > "$T/seed-flaky/large"

secs=${FUZZ_SECONDS:-12}
for target in fuzz-index fuzz-session fuzz-repodata fuzz-listing fuzz-sums fuzz-flaky; do
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
