#!/bin/bash
# The prompt without --probe, driven through a pseudo-terminal: the
# "person" looks at each build's root and types g or b.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

mkfarm --out "$T/farm" --builds 20 --culprit 13
cat > "$T/person.py" <<'PY'
import os, pty, re, subprocess, sys, time
argv, script = sys.argv[2:], sys.argv[1]
pid, fd = pty.fork()
if pid == 0:
    os.execv(argv[0], argv)
buf = b""
answers = 0
build = root = None
deadline = time.time() + 60
def read():
    global buf
    try:
        data = os.read(fd, 4096)
    except OSError:
        return False
    if not data:
        return False
    # The build id is in color on a terminal; the answers read plain text.
    buf = re.sub(rb"\x1b\[[0-9;]*m", b"", buf + data)
    return True
while time.time() < deadline:
    if not read():
        break
    m = re.search(rb"Build (\S+) is ready in (\S+)\r?\n", buf)
    if m:
        build, root = m.group(1).decode(), m.group(2).decode()
        buf = buf[m.end():]
    q = re.search(rb"good or bad\?[^\n]*: $", buf)
    if not q or root is None:
        continue
    buf = buf[q.end():]
    answers += 1
    if script == "quit":
        reply = "q"
    elif script == "nonsense" and answers == 1:
        reply = "maybe"
    else:
        ok = subprocess.run([root + "/usr/bin/app"], capture_output=True).returncode == 0
        reply = "g" if ok else "b"
    sys.stdout.write("answer %s for %s\n" % (reply, build))
    os.write(fd, reply.encode() + b"\n")
_, status = os.waitpid(pid, 0)
sys.stdout.write(buf.decode(errors="replace").replace("\r", ""))
sys.exit(os.waitstatus_to_exitcode(status))
PY
A=("$ARTBISECT" --index "$T/farm/index.json" --cache-dir "$T/cache" --work-dir "$T/work")

run "$PYTHON3" "$T/person.py" answer "${A[@]}"
is "$RC" 0 "answers typed at the prompt find the culprit"
like "$OUT" 'The first bad build is b0013' "the report names it"
is "$(grep -c '^answer' <<<"$OUT")" 5 "one question per step (5 for 19 candidates)"

run "$PYTHON3" "$T/person.py" nonsense "${A[@]}"
is "$(grep -c '^answer . for b0009' <<<"$OUT")/$(grep -c '^answer maybe for b0009' <<<"$OUT")" 1/1 "a wrong answer is asked again"
is "$RC" 0 "and the bisection goes on"

run "$PYTHON3" "$T/person.py" quit "${A[@]}"
is "$RC" 4 "quit at the prompt: exit 4"

# --flaky: [l]ist gives the most likely builds with their probabilities
# and runs (no build is ruled out, so the range of the plain bisection
# would list them all); then the answers find the culprit.
run "$PYTHON3" "$TESTS_SRCDIR/person.py" '[["good or bad\\?[^\\n]*: $", "l\n"]]' \
	"$ARTBISECT" --index "$T/farm/index.json" --cache-dir "$T/cache" --work-dir "$T/work-flaky" --flaky
is "$RC" 0 "--flaky at the prompt: found"
like "$OUT" 'The first bad build is b0013' "the report names the culprit"
listed=$(sed -n '/the most likely first bad builds:/,/good or bad?/p' <<<"$OUT")
is "$(grep -cE '^  b[0-9]{4} +0\.[0-9]{3}  [0-9]+ failed, [0-9]+ passed' <<<"$listed")" 12 \
	"[l]ist under --flaky: the 12 most likely builds, each with its probability and runs"
like "$listed" '^  b[0-9]{4} +0\.[0-9]{3}  0 failed, 0 passed \(being tested\)$' "the build being tested marked among them"
unlike "$listed" 'known bad|last good' "not the plain bisection's range"

plan_done
