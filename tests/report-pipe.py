#!/usr/bin/env python3
"""report-pipe.py OUT ARGV...: runs ARGV with its standard output on a
pipe of one page that nobody reads until ARGV is blocked writing to it
(its wchan names pipe_write), then sends it SIGINT twice and reads the
pipe. Writes what came through to OUT; prints "blocked" when the
signals came while it was blocked, then ARGV's exit status."""
import fcntl, os, signal, subprocess, sys, time

F_SETPIPE_SZ = 1031
out, argv = sys.argv[1], sys.argv[2:]
r, w = os.pipe()
fcntl.fcntl(w, F_SETPIPE_SZ, 4096)
p = subprocess.Popen(argv, stdout=w, stdin=subprocess.DEVNULL)
os.close(w)
blocked = False
for _ in range(600):
    try:
        with open("/proc/%d/wchan" % p.pid) as f:
            if "pipe_write" in f.read():
                blocked = True
                break
    except OSError:
        break
    if p.poll() is not None:
        break
    time.sleep(0.05)
if blocked:
    p.send_signal(signal.SIGINT)
    time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    time.sleep(0.2)
data = b""
while True:
    chunk = os.read(r, 65536)
    if not chunk:
        break
    data += chunk
with open(out, "wb") as f:
    f.write(data)
print("blocked" if blocked else "not blocked")
print(p.wait())
