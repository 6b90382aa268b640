#!/usr/bin/env python3
"""A person at a terminal, for the prompt's tests.

person.py STEPS_JSON CMD...: runs CMD on a pseudo-terminal; for each
[regex, reply] in STEPS_JSON it waits for regex to appear (after the
previous match) and types reply; after the steps it answers every
question by running the build's app (usr/bin/app in the root the
prompt names). Prints the whole transcript, carriage returns taken out;
exits with the command's status. Gives up after 60 s.
"""
import json, os, pty, re, subprocess, sys, time
steps = json.loads(sys.argv[1])
argv = sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    os.execv(argv[0], argv)
log = b""
pos = 0
root = None
deadline = time.time() + 60
def plain():
    return re.sub(rb"\x1b\[[0-9;]*m", b"", log)
while time.time() < deadline:
    try:
        data = os.read(fd, 4096)
    except OSError:
        break
    if not data:
        break
    log += data
    text = plain()
    for m in re.finditer(rb"Build (\S+) is ready in (\S+)\r?\n", text):
        root = m.group(2).decode()
    while steps:
        m = re.compile(steps[0][0].encode(), re.S).search(text, pos)
        if not m:
            break
        pos = m.end()
        os.write(fd, steps[0][1].encode())
        steps.pop(0)
    if steps:
        continue
    q = re.compile(rb"good or bad\?[^\n]*: $").search(text, pos)
    if q and root:
        pos = q.end()
        ok = subprocess.run([root + "/usr/bin/app"], capture_output=True).returncode == 0
        os.write(fd, b"g\n" if ok else b"b\n")
_, status = os.waitpid(pid, 0)
sys.stdout.write(log.decode(errors="replace").replace("\r", ""))
sys.exit(os.waitstatus_to_exitcode(status))
