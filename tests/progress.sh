#!/bin/bash
# Download progress: on a terminal, a line per transfer and an overall
# line with the rate and time left, redrawn in place; nothing of it when
# standard error is not a terminal.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

mkfarm --out "$T/farm" --builds 8 --culprit 5 --artifact-size 400000
start_server "$T/farm" --rate 300000

cat > "$T/ptyrun.py" <<'PY'
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        data = os.read(fd, 65536)
    except OSError:
        break
    if not data:
        break
    out += data
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
sys.exit(os.waitstatus_to_exitcode(status))
PY
"$PYTHON3" "$T/ptyrun.py" "$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app \
	--no-prefetch --cache-dir "$T/cache" --work-dir "$T/work" > "$T/tty.out"
is "$?" 0 "on a terminal: found"
out=$(tr '\r' '\n' < "$T/tty.out")
like "$out" 'b000[0-9]\.tar\.gz +[0-9.]+ [KM]iB / +[0-9.]+ KiB +[0-9]+%' "a line per transfer with its share done"
like "$out" '1 downloading: .* at [0-9.]+ [KM]iB/s, [0-9]+ s left' "an overall line with rate and time left"
like "$(cat "$T/tty.out")" $'\e\\[[0-9]+A\e\\[J' "lines are redrawn in place"

# With --jobs every build comes in the background; while nothing is
# being probed and the loop waits for one, its transfer is shown too.
rm -rf "$T/cache" "$T/work"
"$PYTHON3" "$T/ptyrun.py" "$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app \
	--jobs 2 --cache-dir "$T/cache" --work-dir "$T/work" > "$T/tty-jobs.out"
is "$?" 0 "--jobs 2 on a terminal: found"
out=$(tr '\r' '\n' < "$T/tty-jobs.out")
like "$out" 'b000[0-9]\.tar\.gz +[0-9.]+ [KM]iB / +[0-9.]+ KiB +[0-9]+%' \
	"--jobs 2 on a terminal: a background download waited for has its line"
like "$out" '1 downloading: ' "--jobs 2 on a terminal: and the overall line"

rm -rf "$T/cache"
run "$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app \
	--no-prefetch --cache-dir "$T/cache" --work-dir "$T/work"
is "$RC" 0 "not on a terminal: found"
unlike "$ERR" 'downloading|'$'\e' "not on a terminal: no progress lines, no escapes"

plan_done
