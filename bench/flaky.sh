#!/bin/bash
# bench/flaky.sh - the flaky model's figures (issue 20, part 5).
#
#   bench/flaky.sh [--quick] [simulator options]
#
# Runs bench/simulate (built by `make` beside artbisect; built here if
# missing) over random histories, in-process, no downloads, and prints
# every figure next to its target:
#   1. accuracy at 1,000 builds for every rate before (0, 0.05, 0.1) and
#      after (0.2 .. 1.0);
#   2. mean probes at 200 and 1,000 builds, rate 0 before and 0.4 / 0.8
#      after, against repeat-k bisection and git-bayesect's policy;
#   3. deterministic histories, 10 to 100,000 builds;
#   4. random rates, 10 to 100,000 builds: accuracy and time;
#   5. --jobs k: rounds and probes;
#   6. where the runs go: by distance from the culprit, told both rates,
#      one or neither (200 builds, 0 before, 0.4 after);
#   7. section 2's cost beside a floor for any method and what a chooser
#      told the culprit needs to reach this model's stop.
# --quick: 100 trials per setting instead of 300.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
SIM=${SIMULATE:-$top/bench/simulate}
if [ ! -x "$SIM" ]; then
	make -C "$top" bench/simulate >/dev/null
fi
TRIALS=300
if [ "${1:-}" = --quick ]; then
	TRIALS=100
	shift
fi
echo "flaky model figures, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, commit $(git -C "$top" log -1 --format=%h 2>/dev/null || echo '?')"
start=$(date +%s)
"$SIM" --trials "$TRIALS" "$@"
echo "(all sections: $(( $(date +%s) - start )) s)"
