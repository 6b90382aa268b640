#!/bin/bash
# with-timeout.sh - runs one test program for the harness (LOG_COMPILER)
# with a time limit, so that a test that hangs becomes one error with a
# log instead of a suite that never ends:
#   bash tests/with-timeout.sh PROGRAM [ARGS...]
# After AB_TEST_TIMEOUT seconds (default 900) the test and everything it
# started, in whatever process group or session, is killed: they all
# carry AB_TEST_RUN_ID in their environment. A "Bail out!" line tells
# the TAP driver. The test's wall time goes to its log as a TAP comment.
limit=${AB_TEST_TIMEOUT:-900}
AB_TEST_RUN_ID="$$-$RANDOM$RANDOM"
export AB_TEST_RUN_ID
start=$SECONDS
case $1 in bash|sh) name=${2:-$1} ;; *) name=$1 ;; esac

kill_marked() {
	local p
	for p in /proc/[0-9]*; do
		[ "${p#/proc/}" = $$ ] && continue
		grep -qsxz "AB_TEST_RUN_ID=$AB_TEST_RUN_ID" "$p/environ" &&
			kill -9 "${p#/proc/}" 2>/dev/null
	done
}

"$@" &
test_pid=$!
sleep "$limit" &
sleep_pid=$!
# Whichever ends first; wait returns early for a trapped signal too.
trap 'kill_marked; kill $sleep_pid 2>/dev/null; exit 130' INT TERM HUP
wait -n -p done_pid "$test_pid" "$sleep_pid"
status=$?
if [ "${done_pid:-}" = "$test_pid" ]; then
	kill "$sleep_pid" 2>/dev/null
	wait "$sleep_pid" 2>/dev/null
	# Its daemons do not outlive it either.
	kill_marked
	# A TAP comment: on standard output, which is the driver's alone now.
	echo "# with-timeout: $name took $((SECONDS - start)) s"
	exit "$status"
fi
echo "# with-timeout: $name still running after $limit s; these were left:" >&2
for p in /proc/[0-9]*; do
	grep -qsxz "AB_TEST_RUN_ID=$AB_TEST_RUN_ID" "$p/environ" &&
		echo "#   $(tr '\0' ' ' < "$p/cmdline" 2>/dev/null | cut -c1-200)" >&2
done
kill_marked
echo "Bail out! $name did not finish within $limit s (AB_TEST_TIMEOUT); killed"
exit 99
