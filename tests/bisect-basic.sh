#!/bin/bash
# End-to-end bisections over HTTP: the acceptance farm of 1000 builds,
# the other archive formats, --find-fix, named ends, and the cache.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

probe='./usr/bin/app'

# 1000 tar.gz builds, 2 failed and 2 missing, culprit 742.
mkfarm --out "$T/big" --builds 1000 --culprit 742 --failed 100,600 --missing 300,800
start_server "$T/big"
run "$ARTBISECT" --index "$BASE/index.json" --probe "$probe" --json \
	--cache-dir "$T/cache" --work-dir "$T/work"
is "$RC" 0 "1000 builds: exit 0"
echo "$OUT" > "$T/big.json"
is "$(json_get "$T/big.json" result)" found "1000 builds: result found"
is "$(json_get "$T/big.json" first_new.id)" b0742 "1000 builds: first_new is the planted culprit"
is "$(json_get "$T/big.json" first_new.index)" 742 "1000 builds: first_new.index"
is "$(json_get "$T/big.json" last_old.id)" b0741 "1000 builds: last_old"
is "$(json_get "$T/big.json" candidates)" '["b0742"]' "1000 builds: one candidate"
is "$(json_get "$T/big.json" builds)" 1000 "1000 builds: builds counts the index"
is "$(json_get "$T/big.json" terms.old)/$(json_get "$T/big.json" terms.new)" good/bad "terms are good/bad"
tested=$(json_get "$T/big.json" tested)
tap_ok $(( tested <= 12 ? 0 : 1 )) "1000 builds: $tested probe runs (at most 12)"
like "$(json_get "$T/big.json" compare_url)" 'q=[0-9a-f]{40}\.\.[0-9a-f]{40}$' "compare_url has both commits"
like "$(json_get "$T/big.json" steps.0.by)" '^probe$' "steps carry by"
"$PYTHON3" -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/big.json"
tap_ok $? "standard output is one JSON object"
# Prefetch downloads the two builds that could come next while a probe
# runs: at most two per step, and the one needed is always among them.
downloads=$(count_requests '^GET /builds/')
tap_ok $(( downloads >= tested && downloads <= 2 * tested + 1 ? 0 : 1 )) \
	"between one and two downloads per tested build ($downloads for $tested)"

# The same bisection again: everything it tests comes from the cache.
# (Without prefetch: a prefetch the first run cancelled would otherwise
# be fetched now, which is new work, not a download of what is there.)
reset_log
run "$ARTBISECT" --index "$BASE/index.json" --probe "$probe" --quiet --no-prefetch \
	--cache-dir "$T/cache" --work-dir "$T/work"
is "$RC" 0 "second run: exit 0"
like "$OUT" 'first bad build is b0742' "text report names the culprit"
like "$OUT" 'Changes between them: https://' "text report has the compare URL"
like "$OUT" 'git bisect start [0-9a-f]{40} [0-9a-f]{40}' "text report says how to go on with git"
is "$(count_requests '^GET /builds/')" 0 "second run downloads nothing"
is "$(ls "$T/work/roots" | wc -l)" 0 "scratch roots are removed after their verdicts"

# Other formats.
for fmt in zip tar.xz tar.zst tar file; do
	mkfarm --out "$T/f-$fmt" --builds 37 --culprit 20 --format "$fmt"
	p=$probe
	# A file artifact is copied into the root as it is, under its own name.
	[ "$fmt" = file ] && p='sh ./"$ARTBISECT_BUILD".sh'
	run "$ARTBISECT" --index "$T/f-$fmt/index.json" --probe "$p" --json \
		--cache-dir "$T/cache" --work-dir "$T/work"
	is "$RC/$(echo "$OUT" | json_get - first_new.id)" "0/b0020" "$fmt farm from a local path: found b0020"
done

# A failed build right before the culprit: inconclusive, both candidates.
mkfarm --out "$T/fb" --builds 64 --culprit 40 --failed 39
run "$ARTBISECT" --index "file://$T/fb/index.json" --probe "$probe" --json \
	--cache-dir "$T/cache" --work-dir "$T/work"
is "$RC" 1 "failed build before the culprit: exit 1"
is "$(echo "$OUT" | json_get - result)" inconclusive "failed build before the culprit: inconclusive"
is "$(echo "$OUT" | json_get - candidates)" '["b0039", "b0040"]' "candidates hold both builds"
is "$(echo "$OUT" | json_get - first_new)" null "no first_new when inconclusive"
has_step "$OUT" id=b0039 verdict=skip by=failed-build
tap_ok $? "the failed build is named in the steps"

# --find-fix: broken until build 25, fixed from it on.
mkfarm --out "$T/fix" --builds 50 --fix-at 25
run "$ARTBISECT" --index "$T/fix/index.json" --probe "$probe" --find-fix --json \
	--cache-dir "$T/cache" --work-dir "$T/work"
is "$RC" 0 "--find-fix: exit 0"
is "$(echo "$OUT" | json_get - first_new.id)" b0025 "--find-fix finds the fixing build"
is "$(echo "$OUT" | json_get - terms.old)/$(echo "$OUT" | json_get - terms.new)" bad/good "--find-fix swaps the terms"
run "$ARTBISECT" --index "$T/fix/index.json" --probe "$probe" --find-fix \
	--cache-dir "$T/cache" --work-dir "$T/work"
like "$OUT" 'The fix is in build b0025' "--find-fix text report"

# Named ends: an id and a commit prefix.
mkfarm --out "$T/named" --builds 50 --culprit 33
commit40=$(json_get "$T/named/index.json" builds.40.commit)
run "$ARTBISECT" --index "$T/named/index.json" --probe "$probe" --json \
	--good b0020 --bad "${commit40:0:9}" --cache-dir "$T/cache" --work-dir "$T/work"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0033 "--good by id, --bad by commit prefix: found"
tested=$(echo "$OUT" | json_get - tested)
tap_ok $(( tested <= 5 ? 0 : 1 )) "20 candidates need at most 5 probes ($tested)"
is "$(echo "$OUT" | "$PYTHON3" -c 'import json, sys; s = json.load(sys.stdin)["steps"]; print(len(s) > 0, sum(1 for x in s if not 20 < x["index"] < 40))')" "True 0" \
	"only builds inside the range are tested"

# Bad ends: exit 2 before anything is downloaded.
reset_log
exit_is 2 "good newer than bad is refused" "$ARTBISECT" --index "$BASE/index.json" \
	--probe "$probe" --good b0500 --bad b0400 --cache-dir "$T/cache2" --work-dir "$T/refused"
like "$(cat "$T/cmd.err")" 'good build b0500 must be older than the bad build b0400' "it says why"
is "$(ls "$T/refused" 2>/dev/null | grep -c 'snapshot\|session\.json')" 0 \
	"a refused range leaves no session and no copy of the index behind"
exit_is 2 "an unknown build is refused" "$ARTBISECT" --index "$BASE/index.json" \
	--probe "$probe" --good nosuchbuild --cache-dir "$T/cache2" --work-dir "$T/work"
like "$(cat "$T/cmd.err")" "unknown build 'nosuchbuild'" "it names the build"
exit_is 2 "a failed build as an end is refused" "$ARTBISECT" --index "$BASE/index.json" \
	--probe "$probe" --good b0100 --cache-dir "$T/cache2" --work-dir "$T/work"
exit_is 2 "no probe and no terminal: exit 2" "$ARTBISECT" --index "$BASE/index.json" \
	--cache-dir "$T/cache2" --work-dir "$T/work" </dev/null
like "$(cat "$T/cmd.err")" 'not a terminal' "it says why"
exit_is 2 "a bad --timeout is refused" "$ARTBISECT" --index "$BASE/index.json" --timeout soon
exit_is 2 "an unknown option is refused" "$ARTBISECT" --index "$BASE/index.json" --frobnicate
is "$(count_requests '^GET /builds/')" 0 "refusals download nothing"

plan_done
