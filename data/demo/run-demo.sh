#!/bin/sh
# run-demo.sh ARTBISECT OUTDIR [MORE-ARTBISECT-OPTIONS...]
#
# Builds 40 "nightly builds" of a small C program (data/demo/app/wordfreq.c,
# compiled with -DBUILD_NUMBER=0..39; a regression lands in build 27), packs
# each into a tarball with an index.json (tests/mkfarm.py), serves them over
# HTTP (tests/httpserver.py) and lets ARTBISECT find the culprit.
# Everything goes under OUTDIR: trees/ (the builds), farm/ (what is served),
# cache/ (artbisect's downloads, kept between runs), work/ (its session,
# started afresh each run). Exits with artbisect's status (0: found).
# Environment: CC (default cc), PYTHON3 (default python3). Standard
# output carries artbisect's output only; the demo's words go to
# standard error.
set -eu

if [ $# -lt 2 ]; then
	echo "usage: $0 ARTBISECT OUTDIR [ARTBISECT-OPTIONS...]" >&2
	exit 2
fi
ARTBISECT=$1
OUT=$2
shift 2

BUILDS=40
REGRESSION_AT=27
CC=${CC:-cc}
PYTHON3=${PYTHON3:-python3}
DEMO=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$DEMO/../.." && pwd)

case $ARTBISECT in
*/*) [ -x "$ARTBISECT" ] || { echo "run-demo: $ARTBISECT: not an executable" >&2; exit 2; } ;;
*) command -v "$ARTBISECT" >/dev/null || { echo "run-demo: $ARTBISECT: not found" >&2; exit 2; } ;;
esac
for tool in "${CC%% *}" "$PYTHON3"; do
	command -v "$tool" >/dev/null || { echo "run-demo: $tool is needed" >&2; exit 2; }
done

# What the demo says goes to standard error; standard output is
# artbisect's own (its --json report, say, for a pipe).
exec 3>&1 1>&2

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
rm -rf "$OUT/trees" "$OUT/farm" "$OUT/work" "$OUT/server.port" "$OUT/server.log"

# 1. The builds: real binaries, one per "nightly".
printf 'Compiling %d builds of wordfreq ' "$BUILDS"
i=0
while [ "$i" -lt "$BUILDS" ]; do
	id=$(printf 'b%04d' "$i")
	mkdir -p "$OUT/trees/$id/usr/bin"
	# shellcheck disable=SC2086  # CC may be "ccache gcc"
	$CC -O2 -std=c99 -DBUILD_NUMBER="$i" -DREGRESSION_AT="$REGRESSION_AT" \
		-o "$OUT/trees/$id/usr/bin/wordfreq" "$DEMO/app/wordfreq.c"
	printf '.'
	i=$((i + 1))
done
echo

# 2. The farm: one tar.gz per build and an index.json, oldest first.
"$PYTHON3" "$TOP/tests/mkfarm.py" --from-artifacts "$OUT/trees" --out "$OUT/farm" \
	--commits --name "wordfreq nightly builds (artbisect demo)"

# 3. Serve it.
"$PYTHON3" "$TOP/tests/httpserver.py" --root "$OUT/farm" --port 0 \
	--port-file "$OUT/server.port" --log "$OUT/server.log" >"$OUT/server.err" 2>&1 &
SERVER_PID=$!
stop_server() {
	if [ -n "$SERVER_PID" ]; then
		kill "$SERVER_PID" 2>/dev/null || :
		wait "$SERVER_PID" 2>/dev/null || :
		SERVER_PID=
	fi
}
trap stop_server EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
trap 'exit 141' PIPE
n=0
while [ ! -s "$OUT/server.port" ]; do
	if ! kill -0 "$SERVER_PID" 2>/dev/null || [ "$n" -ge 100 ]; then
		echo "run-demo: the HTTP server did not start:" >&2
		cat "$OUT/server.err" >&2
		exit 3
	fi
	n=$((n + 1))
	sleep 0.1
done
PORT=$(cat "$OUT/server.port")
INDEX="http://127.0.0.1:$PORT/index.json"

# 4. Bisect.
# shellcheck disable=SC2016  # expanded by the probe's shell, not here
PROBE='test "$(echo "The cat saw the dog" | ./usr/bin/wordfreq | head -n 1)" = "2 the"'
cat <<EOF

artbisect demo
--------------
$BUILDS nightly builds of wordfreq, a small word counter written in C, are
served at $INDEX
(b0000 is the oldest, b0039 the newest). Somewhere in between it stopped
folding case: "The" and "the" are no longer the same word.

artbisect downloads only the builds it needs, checks their sha256, unpacks
each into a scratch root and runs this probe there (exit 0 = good):

  $PROBE

It should name b$(printf '%04d' "$REGRESSION_AT") as the first bad build, in about 6 steps.

\$ $ARTBISECT --index $INDEX --probe '...' --cache-dir $OUT/cache --work-dir $OUT/work $*
EOF
set +e
"$ARTBISECT" --index "$INDEX" --probe "$PROBE" \
	--cache-dir "$OUT/cache" --work-dir "$OUT/work" "$@" >&3
rc=$?
set -e

downloads=$(grep -c '^GET /builds/.* 20[06] ' "$OUT/server.log" || :)
echo
if [ "${downloads:-0}" -gt 0 ]; then
	echo "artbisect exited with status $rc; it downloaded $downloads of the $BUILDS builds."
	echo "(Run the demo again: the builds come out the same, and the cache in $OUT/cache"
	echo "means nothing is downloaded twice.)"
elif [ "$rc" -eq 0 ]; then
	echo "artbisect exited with status 0; it downloaded nothing: every build it needed was"
	echo "in its cache ($OUT/cache)."
else
	echo "artbisect exited with status $rc; it downloaded no builds."
fi
stop_server
exit "$rc"
