#!/usr/bin/env python3
"""A small HTTP/1.1 file server for artbisect's tests, with fault injection.

Usage:
  httpserver.py --root DIR [--port N] --port-file FILE [--faults FILE]
                [--log FILE] [--rate BYTES_PER_SEC]

Serves the regular files under DIR (GET and HEAD) on 127.0.0.1, HTTP/1.1
with keep-alive and single byte ranges (Range: bytes=N-, N-M, -N). Nothing
outside DIR is ever served. --port 0 (the default) picks a free port; once
the server listens, the port number is written to --port-file atomically.

--log FILE: one line per request, appended and flushed at once:
    METHOD PATH STATUS BYTES_SENT CLIENT_PORT
PATH is the request target as sent; CLIENT_PORT tells connections apart
(two requests with the same port came over one kept-alive connection); STATUS is 000 for the reset fault;
BYTES_SENT counts body bytes. The line is written before the last byte of
the response goes out, so a client that has its whole response will find
its line in the log.

--faults FILE: JSON object mapping a path relative to DIR (as in the URL,
no leading slash, e.g. "builds/b0042.tar.gz") to a list of faults. Each
request to that path consumes the next fault of its list; once the list
is used up the path is served normally. An element "always:KIND" is never
consumed: it and every later request get KIND. A HEAD request does not
consume a body fault (truncate, stall, slow, corrupt): it is left for a
GET.
A bare string instead of a list means a list of one. The file is re-read
whenever it changes (write it to a temporary name and rename it over the
old one); a re-read starts every list again from its beginning.
Fault kinds:
  NNN       (e.g. 404, 500, 503, 429) that status with a short text body
  truncate  headers with the full Content-Length, half the body, then close
  reset     no response: the connection is reset (RST, SO_LINGER 0)
  stall     headers and a little of the body, then nothing for 30 s
            (or until the server shuts down), then close
  slow      the body at about 20 KB/s
  corrupt   full length, but 16 bytes in the middle are flipped
  html      200 text/html error page instead of the file
  norange   the Range header is ignored: 200 and the whole file
  redirect=URL  302 to URL (e.g. from an https server to an http one)
  endless   200 with no Content-Length, then zero bytes without end (until
            the client goes away); the file need not exist
  endless=RATE  the same at RATE bytes a second
  drip      headers with the full Content-Length, then the body at 2
            bytes a second
  cut=N     200 with the whole file's Content-Length whatever the Range
            header asks, N bytes of the body, then close (a server that
            lies about its length and cannot resume)

--rate BYTES_PER_SEC: every response body is sent no faster than that.
--total-rate BYTES_PER_SEC: all response bodies together are sent no
faster than that (a shared link, for benchmarks).
--close: "Connection: close" on every response (no kept-alive connections).
--tls CERT KEY: https instead of http (PEM files; BASE then starts with
https://127.0.0.1 in tests/lib.sh only if the test says so).

Stops cleanly on SIGTERM or SIGINT. Prints nothing but errors (stderr).
"""

import argparse
import email.utils
import http.server
import json
import os
import re
import signal
import socket
import struct
import sys
import threading
import time
import urllib.parse

STALL_SECONDS = 30
SLOW_RATE = 20 * 1024
CORRUPT_LEN = 16
FAULT_WORDS = {"truncate", "reset", "stall", "slow", "corrupt", "html", "norange"}
BODY_FAULTS = {"truncate", "stall", "slow", "corrupt", "drip"}
DRIP_RATE = 2


def err(msg):
    sys.stderr.write("httpserver: %s\n" % msg)
    sys.stderr.flush()


def valid_fault(kind):
    return (kind in FAULT_WORDS or re.fullmatch(r"[1-5][0-9][0-9]", kind) is not None
            or kind.startswith("redirect=") or kind == "drip"
            or re.fullmatch(r"endless(=[1-9][0-9]*)?|cut=[0-9]+", kind) is not None)


def is_body_fault(kind):
    return kind in BODY_FAULTS or kind.startswith(("endless", "cut="))


class Faults:
    """The faults table, re-read whenever the file changes."""

    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()
        self.key = None
        self.table = {}
        self.pos = {}

    def _reload(self):
        try:
            st = os.stat(self.path)
            key = (st.st_ino, st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            key = None
        if key == self.key:
            return
        self.key = key
        if key is None:
            self.table, self.pos = {}, {}
            return
        try:
            with open(self.path, encoding="utf-8") as f:
                text = f.read()
            data = json.loads(text) if text.strip() else {}
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            table = {}
            for path, faults in data.items():
                if isinstance(faults, str):
                    faults = [faults]
                if not isinstance(faults, list) or not all(isinstance(x, str) for x in faults):
                    raise ValueError("%r: not a list of strings" % path)
                for x in faults:
                    kind = x[len("always:"):] if x.startswith("always:") else x
                    if not valid_fault(kind):
                        raise ValueError("%r: unknown fault %r" % (path, x))
                table[path.lstrip("/")] = list(faults)
        except (OSError, ValueError) as e:
            err("faults file %s ignored, keeping the old faults: %s" % (self.path, e))
            return
        self.table, self.pos = table, {}

    def take(self, relpath, method):
        if not self.path:
            return None
        with self.lock:
            self._reload()
            faults = self.table.get(relpath)
            if not faults:
                return None
            i = self.pos.get(relpath, 0)
            if i >= len(faults):
                return None
            kind = faults[i]
            always = kind.startswith("always:")
            if always:
                kind = kind[len("always:"):]
            if method == "HEAD" and is_body_fault(kind):
                return None  # left for the GET that follows
            if not always:
                self.pos[relpath] = i + 1
            return kind


class Stopping(Exception):
    pass


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "artbisect-testserver/1"
    timeout = 120  # idle keep-alive connections go away eventually

    def version_string(self):
        return self.server_version

    # -- plumbing -----------------------------------------------------

    def log_message(self, format, *args):  # no access log on stderr
        pass

    def end_headers(self):
        if self.server.opts.close:
            self.send_header("Connection", "close")
            self.close_connection = True
        super().end_headers()

    def _log(self, status, nbytes):
        if self._logged:
            return
        self._logged = True
        logfile = self.server.opts.log
        if not logfile:
            return
        line = "%s %s %s %d %d\n" % (self.command, self.path, status, nbytes,
                                     self.client_address[1])
        with self.server.log_lock:
            with open(logfile, "a", encoding="utf-8", errors="replace") as f:
                f.write(line)

    def _resolve(self):
        """Returns (relpath, realpath or None); relpath None if invalid."""
        target = self.path
        if "://" in target.split("?", 1)[0]:
            target = urllib.parse.urlsplit(target).path or "/"
        target = target.split("?", 1)[0].split("#", 1)[0]
        upath = urllib.parse.unquote(target, errors="strict") if "%" in target else target
        if "\0" in upath or not upath.startswith("/"):
            return None, None
        parts = [p for p in upath.split("/") if p not in ("", ".")]
        if ".." in parts:
            return None, None
        rel = "/".join(parts)
        root = self.server.root
        real = os.path.realpath(os.path.join(root, *parts))
        if real != root and not real.startswith(root + os.sep):
            return rel, None
        return rel, real

    def _sleep(self, seconds):
        if self.server.stopping.wait(seconds):
            raise Stopping()

    def _simple(self, status, body, ctype="text/plain; charset=utf-8", extra=()):
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in extra:
            self.send_header(k, v)
        send_body = self.command != "HEAD"
        self._log(status, len(data) if send_body else 0)
        self.end_headers()
        if send_body:
            self.wfile.write(data)

    def _reset(self):
        self._log("000", 0)
        sock = self.connection
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        self.close_connection = True
        # The descriptor really closes when rfile is closed in finish();
        # the server's later shutdown(SHUT_WR) then fails quietly, so the
        # peer gets an RST and never a FIN.
        sock.close()

    # -- requests -----------------------------------------------------

    def do_GET(self):
        self._serve()

    def do_HEAD(self):
        self._serve()

    def _serve(self):
        self._logged = False
        self._sent = 0
        self._status = 0
        try:
            self._serve_inner()
        except Stopping:
            self._log(self._status or "000", self._sent)
            self.close_connection = True
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, socket.timeout):
            self._log(self._status or "000", self._sent)
            self.close_connection = True

    def _serve_inner(self):
        try:
            rel, real = self._resolve()
        except UnicodeDecodeError:
            rel, real = None, None
        fault = self.server.faults.take(rel, self.command) if rel is not None else None

        if fault is not None:
            if fault == "reset":
                self._reset()
                return
            if fault == "html":
                page = ("<!DOCTYPE html>\n<html><head><title>Service Unavailable</title></head>\n"
                        "<body><h1>Oops</h1><p>The download mirror is having a bad day.</p>"
                        "</body></html>\n")
                self._status = 200
                self._simple(200, page, "text/html; charset=utf-8")
                return
            if fault.startswith("redirect="):
                self._status = 302
                self._simple(302, "", extra=(("Location", fault[len("redirect="):]),))
                return
            if fault.startswith("endless"):
                self._endless(int(fault[len("endless="):]) if "=" in fault else 0)
                return
            if fault[0].isdigit():
                code = int(fault)
                self._status = code
                phrase = self.responses.get(code, ("Error",))[0]
                self._simple(code, "%d %s (injected fault)\n" % (code, phrase))
                return

        if real is None or not os.path.isfile(real):
            self._status = 404
            self._simple(404, "404 Not Found\n")
            return

        try:
            f = open(real, "rb")
        except OSError:
            self._status = 403
            self._simple(403, "403 Forbidden\n")
            return
        with f:
            size = os.fstat(f.fileno()).st_size
            start, length, status = 0, size, 200
            rng = self.headers.get("Range")
            if rng is not None and fault != "norange" and not (fault or "").startswith("cut="):
                parsed = parse_range(rng, size)
                if parsed == "unsatisfiable":
                    self._status = 416
                    self._simple(416, "416 Range Not Satisfiable\n",
                                 extra=[("Content-Range", "bytes */%d" % size)])
                    return
                if parsed is not None:
                    start, length = parsed
                    status = 206
            self._send_file(f, size, start, length, status, real, fault)

    def _send_file(self, f, size, start, length, status, real, fault):
        self._status = status
        self.send_response(status)
        ctype = "application/octet-stream"
        if real.endswith(".json"):
            ctype = "application/json"
        elif real.endswith((".html", ".htm")):
            ctype = "text/html; charset=utf-8"
        elif real.endswith((".txt", ".sh")):
            ctype = "text/plain; charset=utf-8"
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(length))
        self.send_header("Accept-Ranges", "bytes")
        if status == 206:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, start + length - 1, size))
        mtime = os.fstat(f.fileno()).st_mtime
        self.send_header("Last-Modified", email.utils.formatdate(mtime, usegmt=True))

        if self.command == "HEAD":
            self._log(status, 0)
            self.end_headers()
            return

        rate = self.server.opts.rate or 0
        if fault == "slow":
            rate = min(rate, SLOW_RATE) if rate else SLOW_RATE
        elif fault == "drip":
            rate = DRIP_RATE
        to_send = length
        if fault == "truncate":
            to_send = length // 2
        elif fault and fault.startswith("cut="):
            to_send = min(length, int(fault[len("cut="):]))
        elif fault == "stall":
            to_send = min(1024, length // 4)
        transform = None
        if fault == "corrupt" and size > 0:
            mid = max(0, size // 2 - CORRUPT_LEN // 2)
            transform = make_corrupter(mid, min(size, mid + CORRUPT_LEN))

        if fault in ("truncate", "stall") or (fault or "").startswith("cut="):
            # Log first: the client gets a broken response and may act on it
            # at once.
            self._log(status, to_send)
        elif to_send == 0:
            self._log(status, 0)
        self.end_headers()

        f.seek(start)
        chunk = 65536
        if rate:
            chunk = max(1 if rate < 256 else 256, min(chunk, rate // 20))
        t0 = time.monotonic()
        while self._sent < to_send:
            n = min(chunk, to_send - self._sent)
            data = f.read(n)
            if not data:  # the file shrank under us
                break
            if transform:
                data = transform(start + self._sent, data)
            if self._sent + len(data) >= to_send:
                self._log(status, to_send)
            if self.server.opts.total_rate:
                self._sleep(self.server.link.take(len(data)))
            self.wfile.write(data)
            self._sent += len(data)
            if rate:
                ahead = self._sent / rate - (time.monotonic() - t0)
                if ahead > 0:
                    self._sleep(ahead)
        self._log(status, self._sent)

        if fault == "stall":
            self._sleep(STALL_SECONDS)
            self.close_connection = True
        elif fault == "truncate" or self._sent < to_send or to_send < length:
            self.close_connection = True

    def _endless(self, rate):
        """200, no length, zeros until the client goes away."""
        self._status = 200
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Connection", "close")
        self.close_connection = True
        self.end_headers()
        if self.command == "HEAD":
            self._log(200, 0)
            return
        chunk = max(1, min(65536, rate // 20)) if rate else 65536
        data = bytes(chunk)
        t0 = time.monotonic()
        while True:
            self.wfile.write(data)
            self._sent += len(data)
            if rate:
                ahead = self._sent / rate - (time.monotonic() - t0)
                if ahead > 0:
                    self._sleep(ahead)
            elif self.server.stopping.is_set():
                raise Stopping()


class Link:
    """A shared link of a fixed rate: take(n) says how long to wait before
    sending n bytes so that all senders together stay under the rate."""

    def __init__(self, rate):
        self.rate = rate
        self.lock = threading.Lock()
        self.free_at = 0.0

    def take(self, n):
        if not self.rate:
            return 0.0
        with self.lock:
            now = time.monotonic()
            start = max(self.free_at, now)
            self.free_at = start + n / self.rate
            return max(0.0, start - now)


def make_corrupter(lo, hi):
    def corrupt(offset, data):
        end = offset + len(data)
        if end <= lo or offset >= hi:
            return data
        b = bytearray(data)
        for pos in range(max(lo, offset), min(hi, end)):
            b[pos - offset] ^= 0xFF
        return bytes(b)
    return corrupt


def parse_range(value, size):
    """(start, length), "unsatisfiable", or None to ignore the header."""
    m = re.fullmatch(r"\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*", value)
    if not m or (m.group(1) == "" and m.group(2) == ""):
        return None
    if m.group(1) == "":
        suffix = int(m.group(2))
        if suffix == 0 or size == 0:
            return "unsatisfiable"
        start = max(0, size - suffix)
        return start, size - start
    start = int(m.group(1))
    end = int(m.group(2)) if m.group(2) else size - 1
    if start >= size:
        return "unsatisfiable"
    if end < start:
        return None
    end = min(end, size - 1)
    return start, end - start + 1


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, socket.timeout, Stopping)):
            return
        super().handle_error(request, client_address)


def write_atomic(path, text):
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description="HTTP test server with fault injection")
    ap.add_argument("--root", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--faults")
    ap.add_argument("--log")
    ap.add_argument("--rate", type=int, default=0, help="bytes per second per response")
    ap.add_argument("--total-rate", type=int, default=0, help="bytes per second for all responses")
    ap.add_argument("--close", action="store_true", help="close every connection after one response")
    ap.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"), help="serve https with this certificate and key")
    opts = ap.parse_args()

    root = os.path.realpath(opts.root)
    if not os.path.isdir(root):
        err("--root %s: not a directory" % opts.root)
        return 2
    if opts.rate < 0:
        err("--rate must not be negative")
        return 2
    if opts.log:
        opts.log = os.path.abspath(opts.log)

    try:
        server = Server(("127.0.0.1", opts.port), Handler)
    except OSError as e:
        err("cannot listen on 127.0.0.1:%d: %s" % (opts.port, e))
        return 1
    if opts.tls:
        import ssl
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(opts.tls[0], opts.tls[1])
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    server.opts = opts
    server.root = root
    server.faults = Faults(os.path.abspath(opts.faults) if opts.faults else None)
    server.log_lock = threading.Lock()
    server.link = Link(opts.total_rate)
    server.stopping = threading.Event()

    # A list, not a threading.Event: the handler runs in the main thread,
    # and may run while that thread is inside stop.wait() holding the
    # Event's lock, which set() would then wait for for ever.
    stop = []

    def on_signal(signum, frame):
        stop.append(signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1})
    thread.daemon = True
    thread.start()
    write_atomic(opts.port_file, "%d\n" % server.server_address[1])

    while not stop:
        time.sleep(0.1)
    server.stopping.set()
    server.shutdown()
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
