#!/bin/bash
# The probe protocol: environment, statuses, abort, timeout, leftovers.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

mkfarm --out "$T/farm" --builds 16 --culprit 9 --skip-builds 5
start_server "$T/farm"
A=("$ARTBISECT" --index "$BASE/index.json" --cache-dir "$T/cache" --work-dir "$T/work" --json)

# The environment of section 3 of the contract.
cat > "$T/envprobe.sh" <<'P'
{
	echo "step=$ARTBISECT_STEP build=$ARTBISECT_BUILD"
	echo "pwd=$(pwd -P) root=$(cd "$ARTBISECT_ROOT" && pwd -P)"
	echo "commit=$ARTBISECT_COMMIT version=$ARTBISECT_VERSION"
	printf '%s\n' "$ARTBISECT_ARTIFACTS" | while read -r f; do echo "artifact=$(sha256sum < "$f" | cut -d' ' -f1)"; done
	printf '%s\n' "$ARTBISECT_ARTIFACT_URLS" | while read -r u; do echo "url=$u"; done
	printf '%s\n' "$ARTBISECT_ARTIFACT_SHA256S" | while read -r h; do echo "sha=$h"; done
} >> "$ENVLOG"
echo "this goes to the probe's stdout"
./usr/bin/app
P
export ENVLOG="$T/env.log"
run "${A[@]}" --probe "sh $T/envprobe.sh"
is "$RC" 0 "probe with env: found"
"$PYTHON3" -c 'import json,sys; json.loads(sys.stdin.read())' <<<"$OUT"
tap_ok $? "--json: the probe's stdout does not reach standard output"
is "$(grep -c '^step=' "$ENVLOG")" "$(echo "$OUT" | json_get - tested)" "one probe run per tested build"
is "$(grep '^step=' "$ENVLOG" | cut -d' ' -f1 | tr '\n' ' ')" "$(seq -s' ' -f 'step=%g' 1 "$(grep -c '^step=' "$ENVLOG")") " "ARTBISECT_STEP counts 1, 2, 3..."
bad_pwd=$(grep '^pwd=' "$ENVLOG" | awk '{split($1,a,"="); split($2,b,"="); if (a[2] != b[2]) print}')
is "$bad_pwd" "" "the working directory is ARTBISECT_ROOT"
first_build=$(grep -m1 '^step=1 ' "$ENVLOG" | sed 's/.*build=//')
first_commit=$(json_get "$T/farm/index.json" "builds.$((10#${first_build#b})).commit")
like "$(cat "$ENVLOG")" "commit=$first_commit version=1.0.$((10#${first_build#b}))" "ARTBISECT_COMMIT and ARTBISECT_VERSION"
first_sha=$(json_get "$T/farm/index.json" "builds.$((10#${first_build#b})).artifacts.0.sha256")
like "$(cat "$ENVLOG")" "artifact=$first_sha" "ARTBISECT_ARTIFACTS lists the verified files"
first_url=$(json_get "$T/farm/index.json" "builds.$((10#${first_build#b})).artifacts.0.url")
like "$(cat "$ENVLOG")" "url=$BASE/$first_url" "ARTBISECT_ARTIFACT_URLS: where the farm has them"
like "$(cat "$ENVLOG")" "sha=$first_sha" "ARTBISECT_ARTIFACT_SHA256S: their digests"
steps=$(grep -c '^step=' "$ENVLOG")
is "$(grep -c "^url=$BASE/builds/b[0-9]*\.tar\.gz\$" "$ENVLOG")/$(grep -c '^artifact=[0-9a-f]\{64\}$' "$ENVLOG")" \
	"$steps/$steps" "one artifact URL and one digest for each of the $steps runs"

# Exit 125 skips: build 5 is untestable in this farm.
run "${A[@]}" --probe './usr/bin/app' --good b0001 --bad b0009
is "$RC" 0 "a skipped build is stepped around"
has_step "$OUT" id=b0005 index=5 verdict=skip by=probe
tap_ok $? "skip recorded as verdict skip by probe"

# Only skips left between good and bad: inconclusive.
mkfarm --out "$T/sk" --builds 12 --culprit 6 --skip-builds 4,5,6
run "$ARTBISECT" --index "$T/sk/index.json" --cache-dir "$T/cache" --work-dir "$T/work" --json --probe './usr/bin/app'
is "$RC" 1 "skips around the culprit: exit 1"
is "$(echo "$OUT" | json_get - candidates)" '["b0004", "b0005", "b0006", "b0007"]' "candidates are the skipped builds and the first bad"

# Status 200 and a signal abort the run with exit 4.
run "${A[@]}" --probe 'exit 200'
is "$RC" 4 "probe status 200: exit 4"
is "$(echo "$OUT" | json_get - result)" aborted "probe status 200: result aborted"
like "$ERR" 'status 200' "it says which status"
run "${A[@]}" --probe 'kill -KILL $$'
is "$RC" 4 "probe killed by a signal: exit 4"
like "$ERR" 'signal 9' "it names the signal"
# 126 and 127 are bad, except on the first build run (section 4b): that
# stops the bisection with exit 4 (tests/probe-cannot-run.sh).
# (A fresh session each: the one the kill left would be continued.)
rm -rf "$T/work"
run "${A[@]}" --probe 'test "$ARTBISECT_STEP" = 1 && exit 1; exit 127'
is "$(echo "$OUT" | json_get - steps.1.verdict)" bad "status 127 after the first run is bad"
rm -rf "$T/work"
run "${A[@]}" --probe 'test "$ARTBISECT_STEP" = 1 && exit 1; exit 126'
is "$(echo "$OUT" | json_get - steps.1.verdict)" bad "status 126 after the first run is bad"

# A hang: killed after --timeout, counts as bad; or as skip.
run "${A[@]}" --probe './usr/bin/app || sleep 60' --timeout 0.5
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0009 "hanging bad builds: found by timeout"
has_step "$OUT" verdict=bad by=timeout
tap_ok $? "the step says timeout"
run "${A[@]}" --probe './usr/bin/app || sleep 60' --timeout 0.5 --timeout-verdict skip
is "$RC" 1 "--timeout-verdict skip: every bad build is skipped, inconclusive"
has_step "$OUT" verdict=skip by=timeout
tap_ok $? "timeout as skip"

# A probe that ignores TERM is killed anyway.
start=$(date +%s)
run "${A[@]}" --probe 'trap "" TERM; ./usr/bin/app || sleep 60' --timeout 0.5 --good b0007 --bad b0011
end=$(date +%s)
is "$RC" 0 "a probe ignoring TERM is killed"
tap_ok $(( end - start < 40 ? 0 : 1 )) "and the run did not wait for it"

# Nothing the probe started outlives its step.
marker=$((RANDOM + 40000))
run "${A[@]}" --probe "sleep $marker & ./usr/bin/app"
is "$RC" 0 "probe leaving a background process: found"
sleep 0.2
is "$(pgrep -f "sleep $marker" | wc -l)" 0 "the background process was killed"

# What a probe links to (a lab's job and log), through $ARTBISECT_LINKS:
# kept with its step, in every report; URLs that are not http(s) or that
# carry characters ending a link are dropped.
cat > "$T/linkprobe.sh" <<'P'
{
	echo "LAVA job https://lab.example.org/scheduler/job/$ARTBISECT_STEP"
	echo "log https://lab.example.org/log?id=$ARTBISECT_STEP&x=1"
	echo "evil javascript:alert(1)"
	echo "evil2 https://x.example.org/a)b"
	echo "evil3 file:///etc/passwd"
} > "$ARTBISECT_LINKS"
./usr/bin/app
P
run "${A[@]}" --probe "sh $T/linkprobe.sh" --report "$T/links.md"
is "$RC" 0 "a probe writing links: found"
is "$(echo "$OUT" | json_get - steps.0.links.0.url)" "https://lab.example.org/scheduler/job/1" "JSON: the step's first link"
is "$(echo "$OUT" | json_get - steps.0.links.0.text)" "LAVA job" "JSON: with its text"
is "$(echo "$OUT" | json_get - steps.0.links | "$PYTHON3" -c 'import json,sys; print(len(json.load(sys.stdin)))')" 2 \
	"only the two http(s) links a report can carry are kept"
like "$(cat "$T/links.md")" '\[LAVA job\]\(https://lab\.example\.org/scheduler/job/1\)' "Markdown: a link in the step's row"
unlike "$(cat "$T/links.md")" 'javascript|file:|a\)b' "Markdown: nothing of the dropped ones"
like "$ERR" 'probe of b[0-9]+: LAVA job https://lab\.example\.org/scheduler/job/1' "text: the links, by build"
ls "$T/work/roots"/*.links >/dev/null 2>&1
tap_ok $(( $? != 0 ? 0 : 1 )) "no links file is left beside the roots"

# The build's programs may write there too: a FIFO in the links file's
# place is not opened (opening it would wait for a writer for good, and
# no --timeout runs once the probe is gone).
run timeout 60 "${A[@]}" --probe 'mkfifo "$ARTBISECT_LINKS"; ./usr/bin/app' --timeout 10
is "$RC" 0 "a FIFO as the links file: the bisection ends (exit $RC; 124: hung)"
ls "$T/work/roots"/*.links >/dev/null 2>&1
tap_ok $(( $? != 0 ? 0 : 1 )) "and the FIFO is removed"

plan_done
