#!/bin/bash
# tests/lib.sh - helpers for artbisect's shell tests, which speak TAP.
#
# Source it first thing:   . "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
# Works under `set -u` (and `set -e`, as long as checks go through the
# helpers below, which never fail themselves).
#
# Environment (set by `make check`; defaults for running a test by hand
# from the source tree, e.g. `bash tests/bisect-basic.sh`):
#   ARTBISECT       the binary            (default: ../artbisect next to tests/)
#   TESTS_SRCDIR    the tests/ source dir (default: where lib.sh is)
#   TESTS_BUILDDIR  the tests/ build dir  (default: TESTS_SRCDIR)
#   PYTHON3         python interpreter    (default: python3)
#   KEEP_TMP=1      keep the scratch directory $T after the test
#
# TAP:
#   ok DESC CMD [ARG...]          passes if CMD exits 0
#   fails DESC CMD [ARG...]       passes if CMD exits non-zero
#   exit_is N DESC CMD [ARG...]   passes if CMD exits with status N
#   tap_ok STATUS DESC            passes if STATUS is 0  (e.g. tap_ok $? "x")
#   is GOT EXPECTED DESC          string equality
#   isnt GOT UNEXPECTED DESC
#   like GOT ERE DESC             GOT matches the extended regex ERE (grep -E)
#   unlike GOT ERE DESC
#   skip DESC REASON              an "ok N # SKIP" line
#   skip_all REASON               plan 1..0 # SKIP, exit 0 (call before any test)
#   bail_out REASON               Bail out!, exit 1
#   diag TEXT...                  "# TEXT" on stderr (goes to the .log)
#   plan_done                     prints 1..N; returns 1 if any test failed
# ok/fails/exit_is run CMD with stdout and stderr sent to $T/cmd.out and
# $T/cmd.err, shown as diagnostics when the test fails.
#
# Running things:
#   run CMD [ARG...]       runs CMD; sets RC, OUT (stdout) and ERR (stderr);
#                          the same in $T/run.out and $T/run.err
#   json_get FILE PATH     prints a value from a JSON file (PATH like
#                          first_new.id or steps.0.verdict; strings raw,
#                          null as "null", others as JSON); "-" reads stdin;
#                          prints nothing and returns 1 if PATH is absent
#   mkfarm ARGS...         runs tests/mkfarm.py
#   need_cmd CMD...        skip_all unless every CMD is on PATH
#
# The HTTP server (tests/httpserver.py), one per test at a time:
#   start_server DIR [ARGS...]   serves DIR; exports PORT and BASE
#                                (http://127.0.0.1:PORT); its log is
#                                $T/server.log, its faults $T/faults.json
#                                (kept across restarts, so faults can
#                                be set before start_server; {} if
#                                there is none yet); stopped at exit
#   stop_server
#   set_faults 'JSON'            replaces the faults (atomically); every
#                                list starts again from its beginning
#   count_requests PATTERN       how many log lines match the grep ERE
#                                PATTERN (prints 0 if none, never fails)
#   reset_log                    empties $T/server.log
# Log lines are "METHOD PATH STATUS BYTES CLIENT_PORT", e.g.
# "GET /builds/b0042.tar.gz 200 320 51234" (one port per connection).
#
# Scratch: $T, a fresh directory, removed at exit unless KEEP_TMP=1.
# at_exit 'COMMAND' adds a command to run at exit (do not trap EXIT yourself).

: "${TESTS_SRCDIR:=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}"
: "${TESTS_BUILDDIR:=$TESTS_SRCDIR}"
: "${ARTBISECT:=$(cd "$TESTS_BUILDDIR/.." && pwd)/artbisect}"
: "${PYTHON3:=python3}"
export TESTS_SRCDIR TESTS_BUILDDIR ARTBISECT PYTHON3

_tap_n=0
_tap_failed=0
_lib_exit_cmds=""
SERVER_PID=""
PORT=""
BASE=""
RC=0
OUT=""
ERR=""

T=$(mktemp -d "${TMPDIR:-/tmp}/artbisect-test.XXXXXX") || {
	echo "Bail out! cannot make a scratch directory"
	exit 1
}
export T
# Every test has its own default work, cache and config directories, so
# that sessions and settings never leak between tests (or from the user).
export XDG_STATE_HOME="$T/xdg-state" XDG_CACHE_HOME="$T/xdg-cache" XDG_CONFIG_HOME="$T/xdg-config"
unset ARTBISECT_CONFIG ARTBISECT_JOBS ARTBISECT_CACHE_DIR ARTBISECT_WORK_DIR ARTBISECT_TIMEOUT \
	ARTBISECT_CACHE_SIZE ARTBISECT_KEYRING ARTBISECT_NO_PREFETCH ARTBISECT_NET_TIMEOUT \
	ARTBISECT_TIMEOUT_VERDICT ARTBISECT_CACERT ARTBISECT_KEEP_ROOTS NO_COLOR

_lib_cleanup() {
	local rc=$?
	if [ -n "$_lib_exit_cmds" ]; then
		eval "$_lib_exit_cmds" || :
	fi
	stop_server
	if [ "${KEEP_TMP:-0}" = 1 ]; then
		echo "# kept scratch directory: $T" >&2
	else
		rm -rf "$T"
	fi
	return $rc
}
trap _lib_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

at_exit() {
	_lib_exit_cmds="${_lib_exit_cmds}$1
"
}

# -- TAP ----------------------------------------------------------------

diag() {
	_diag_lines "$*"
}

_diag_lines() { # each argument on its own line(s)
	local line
	printf '%s\n' "$@" | while IFS= read -r line; do
		printf '# %s\n' "$line"
	done >&2
}

_tap_result() { # STATUS(0 = pass) DESC [DIRECTIVE]
	local desc
	_tap_n=$((_tap_n + 1))
	desc=$(printf '%s' "$2" | tr '\n' ' ' | sed 's/#/\\#/g')
	if [ "$1" -eq 0 ]; then
		printf 'ok %d - %s%s\n' "$_tap_n" "$desc" "${3:-}"
	else
		_tap_failed=$((_tap_failed + 1))
		printf 'not ok %d - %s%s\n' "$_tap_n" "$desc" "${3:-}"
	fi
	return 0
}

_show_cmd_output() {
	if [ -s "$T/cmd.out" ]; then
		_diag_lines "stdout:" "$(head -c 4000 "$T/cmd.out")"
	fi
	if [ -s "$T/cmd.err" ]; then
		_diag_lines "stderr:" "$(head -c 4000 "$T/cmd.err")"
	fi
}

tap_ok() {
	_tap_result "$1" "$2"
	[ "$1" -eq 0 ] || diag "  failed: $2 (status $1)"
	return 0
}

# none_found GREP-STATUS DESC: passes when grep found nothing and read
# every file (status 1); a match (0) or a file it could not read (2),
# such as a report never written, fails.
none_found() {
	tap_ok $(( $1 == 1 ? 0 : 1 )) "$2"
}

ok() {
	local desc=$1 rc=0
	shift
	"$@" >"$T/cmd.out" 2>"$T/cmd.err" || rc=$?
	_tap_result $rc "$desc"
	if [ $rc -ne 0 ]; then
		_diag_lines "  command: $*" "  exit status: $rc"
		_show_cmd_output
	fi
	return 0
}

fails() {
	local desc=$1 rc=0
	shift
	"$@" >"$T/cmd.out" 2>"$T/cmd.err" || rc=$?
	if [ $rc -ne 0 ]; then
		_tap_result 0 "$desc"
	else
		_tap_result 1 "$desc"
		_diag_lines "  command: $*" "  succeeded, expected a failure"
		_show_cmd_output
	fi
	return 0
}

exit_is() {
	local want=$1 desc=$2 rc=0
	shift 2
	"$@" >"$T/cmd.out" 2>"$T/cmd.err" || rc=$?
	if [ "$rc" -eq "$want" ]; then
		_tap_result 0 "$desc"
	else
		_tap_result 1 "$desc"
		_diag_lines "  command: $*" "  exit status: $rc" "  expected:    $want"
		_show_cmd_output
	fi
	return 0
}

is() {
	if [ "$1" = "$2" ]; then
		_tap_result 0 "$3"
	else
		_tap_result 1 "$3"
		_diag_lines "       got: '$1'" "  expected: '$2'"
	fi
	return 0
}

isnt() {
	if [ "$1" != "$2" ]; then
		_tap_result 0 "$3"
	else
		_tap_result 1 "$3"
		_diag_lines "       got: '$1'" "  expected anything else"
	fi
	return 0
}

like() {
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then
		_tap_result 0 "$3"
	else
		_tap_result 1 "$3"
		_diag_lines "       got: '$1'" "  expected to match: $2"
	fi
	return 0
}

unlike() {
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then
		_tap_result 1 "$3"
		_diag_lines "       got: '$1'" "  expected not to match: $2"
	else
		_tap_result 0 "$3"
	fi
	return 0
}

skip() {
	_tap_result 0 "$1" " # SKIP ${2:-}"
}

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

bail_out() {
	echo "Bail out! $*"
	exit 1
}

plan_done() {
	echo "1..$_tap_n"
	[ "$_tap_failed" -eq 0 ]
}

# -- running things -----------------------------------------------------

# shellcheck disable=SC2034  # RC, OUT and ERR are for the caller
run() {
	RC=0
	"$@" >"$T/run.out" 2>"$T/run.err" || RC=$?
	OUT=$(cat "$T/run.out")
	ERR=$(cat "$T/run.err")
	return 0
}

_json_get_py='
import json, sys
src, path = sys.argv[1], sys.argv[2]
try:
    v = json.load(sys.stdin if src == "-" else open(src, encoding="utf-8"))
except (OSError, ValueError) as e:
    sys.stderr.write("json_get: %s: %s\n" % (src, e))
    sys.exit(2)
for part in [p for p in path.split(".") if p != ""]:
    try:
        if isinstance(v, list):
            v = v[int(part)]
        elif isinstance(v, dict):
            v = v[part]
        else:
            sys.exit(1)
    except (KeyError, IndexError, ValueError):
        sys.exit(1)
if isinstance(v, str):
    print(v)
elif v is None:
    print("null")
else:
    print(json.dumps(v, sort_keys=True))
'

json_get() {
	"$PYTHON3" -c "$_json_get_py" "$1" "$2"
}

mkfarm() {
	"$PYTHON3" "$TESTS_SRCDIR/mkfarm.py" "$@"
}

# broken_history DIR: a git repository of 8 commits whose test.sh
# fails from commit 5 on (state holds 0, then 1), for mkfarm --from-git.
broken_history() {
	local i
	git init -q -b main "$1"
	for i in 0 1 2 3 4 5 6 7; do
		echo $(( i >= 5 )) > "$1/state"
		echo "$i" > "$1/n"
		# shellcheck disable=SC2016  # for the script
		printf '#!/bin/sh\nexit "$(cat state)"\n' > "$1/test.sh"
		git -C "$1" add state test.sh n
		git -C "$1" -c user.name=t -c user.email=t@example.org commit -q -m "commit $i"
	done
}

need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip_all "$c is not installed"
	done
}

# -- the HTTP server ----------------------------------------------------

start_server() {
	local dir=$1 i=0
	shift
	stop_server
	rm -f "$T/server.port"
	[ -e "$T/faults.json" ] || echo '{}' >"$T/faults.json"
	: >>"$T/server.log"
	"$PYTHON3" "$TESTS_SRCDIR/httpserver.py" --root "$dir" --port 0 \
		--port-file "$T/server.port" --log "$T/server.log" \
		--faults "$T/faults.json" "$@" >>"$T/server.err" 2>&1 &
	SERVER_PID=$!
	while [ ! -s "$T/server.port" ]; do
		if ! kill -0 "$SERVER_PID" 2>/dev/null; then
			SERVER_PID=""
			diag "$(cat "$T/server.err" 2>/dev/null)"
			bail_out "the test HTTP server did not start"
		fi
		i=$((i + 1))
		if [ $i -gt 200 ]; then
			bail_out "the test HTTP server did not start within 10 s"
		fi
		sleep 0.05
	done
	PORT=$(cat "$T/server.port")
	BASE="http://127.0.0.1:$PORT"
	export PORT BASE
}

stop_server() {
	if [ -n "${SERVER_PID:-}" ]; then
		kill "$SERVER_PID" 2>/dev/null || :
		wait "$SERVER_PID" 2>/dev/null || :
		SERVER_PID=""
		if [ -s "$T/server.err" ]; then
			_diag_lines "server stderr:" "$(cat "$T/server.err")"
			: >"$T/server.err"
		fi
	fi
	return 0
}

set_faults() {
	printf '%s\n' "$1" >"$T/faults.json.tmp" && mv -f "$T/faults.json.tmp" "$T/faults.json"
}

count_requests() {
	local n
	n=$(grep -Ec -- "$1" "$T/server.log" 2>/dev/null) || :
	echo "${n:-0}"
}

reset_log() {
	: >"$T/server.log"
}

# has_step JSON KEY=VALUE...: passes (returns 0) when some entry of the
# report's "steps" has every KEY equal to VALUE (compared as text).
has_step() {
	local doc=$1
	shift
	"$PYTHON3" -c '
import json, sys
steps = json.loads(sys.argv[1]).get("steps", [])
want = dict(a.split("=", 1) for a in sys.argv[2:])
sys.exit(0 if any(all(str(s.get(k)) == v or (k == "reason" and v in str(s.get(k))) for k, v in want.items()) for s in steps) else 1)
' "$doc" "$@"
}
