#!/usr/bin/env python3
"""Makes build farms for artbisect's tests: artifacts plus an index.json.

Synthetic farm (the default mode):
  mkfarm.py --out DIR --builds N --culprit K
            [--format tar.gz|tar.xz|tar.zst|tar|zip|file]
            [--failed I,J] [--missing I,J] [--corrupt I,J] [--fix-at K]
            [--skip-builds I,J] [--name TEXT] [--artifact-size BYTES]
            [--compare-url URL] [--no-commits]

  Build i (0-based) has id b0000.. (width max(4, digits of N-1)), commit
  sha1("commit-i"), date 2024-01-01T00:00:00Z + i hours, version 1.0.i.
  Its artifact builds/<id>.<ext> holds usr/bin/app (sh, 0755) and
  usr/share/app/version. app prints "app 1.0.i (build ID)" and
  "result: ok|broken|untestable" and exits 0 for i < K, 1 for i >= K.
  --fix-at K: broken before K, works from K on (--culprit not needed).
  --skip-builds: app exits 125. --failed: status "failed", no artifact.
  --missing: in the index, file not written. --corrupt: the index's
  sha256 is wrong (size is right). --format file: the artifact is the app
  script itself, builds/<id>.sh, type "file". --artifact-size: pad every
  artifact with incompressible bytes to about that size. Same arguments,
  same bytes (fixed mtimes, owners and seeds).

  --format rpm: each build is a real package made by rpmbuild,
  builds/NAME-1.0.I-1.noarch.rpm (name app, or --package-name), with the
  same two files, a VCS tag git+https://git.example.org/app.git#COMMIT,
  and --payload gzip|xz|zstd (default zstd). --format deb: a real .deb
  made by dpkg-deb, builds/NAME_1.0.I-1_all.deb, --payload gzip|xz|zstd
  (default xz). --git-release puts the commit into the version as distros
  do for snapshots: release 1.20240101git<8 hex> (rpm), version
  1.0.I+git20240101.<8 hex>-1 (deb). The build's "version" in the index is
  VERSION-RELEASE (rpm) or the Debian version. Example:
    mkfarm.py --out D --format rpm --payload xz --builds 24 --culprit 17

From git:
  mkfarm.py --from-git REPO --out DIR [--format tar.gz|tar|zip]
            [--test-script PATH] [--name TEXT] [--compare-url URL]

  One `git archive` per commit of `git rev-list --reverse HEAD`, at
  builds/<short>.tar.gz; id = 12-hex short sha, commit = full sha,
  date = committer date (UTC). --test-script PATH is copied to
  DIR/test.sh (mode 0755), next to the index.

From artifacts:
  mkfarm.py --from-artifacts SRC --out DIR [--commits] [--name TEXT]
            [--compare-url URL]

  Every entry of SRC, in natural name order, is one build: a file is an
  artifact as it is (copied to DIR/builds/ unless it already is under
  DIR); a directory is packed into DIR/builds/<name>.tar.gz
  (deterministically). id = name without its archive extension.
  --commits adds fake commits sha1("commit-i"), as synthetic farms have.

All modes write DIR/index.json (replacing DIR/builds and DIR/index.json if
present) and print nothing unless something goes wrong.
"""

import argparse
import gzip
import hashlib
import io
import json
import lzma
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.parse
import zipfile

MTIME = 1704067200  # 2024-01-01T00:00:00Z
ZIP_DATE = (2024, 1, 1, 0, 0, 0)
DEFAULT_COMPARE = "https://git.example.org/app.git/log/?qt=range&q={old}..{new}"
DEFAULT_VCS_URL = "https://git.example.org/app.git"
FORMATS = ("tar.gz", "tar.xz", "tar.zst", "tar", "zip", "file", "rpm", "deb")
PACKAGE_FORMATS = ("rpm", "deb")
RPM_PAYLOADS = {"gzip": "w9.gzdio", "xz": "w6.xzdio", "zstd": "w19.zstdio"}
ARCHIVE_EXTS = (".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.zst", ".tzst", ".tar.bz2",
                ".tbz2", ".tar", ".zip", ".rpm", ".deb")


def die(msg):
    sys.stderr.write("mkfarm: %s\n" % msg)
    sys.exit(2)


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def fake_commit(i):
    return hashlib.sha1(("commit-%d" % i).encode()).hexdigest()


def iso_date(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def natural_key(name):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


def type_of(name):
    n = name.lower()
    if n.endswith(".zip"):
        return "zip"
    if n.endswith(".rpm"):
        return "rpm"
    if n.endswith(".deb"):
        return "deb"
    if n.endswith(ARCHIVE_EXTS):
        return "tar"
    return "file"


def strip_ext(name):
    low = name.lower()
    for ext in sorted(ARCHIVE_EXTS, key=len, reverse=True):
        if low.endswith(ext):
            return name[:-len(ext)]
    return name


def write_atomic(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


# -- the one index writer -------------------------------------------------

def write_index(out, name, builds, compare_url=None, vcs_url=DEFAULT_VCS_URL,
                project="demo-app"):
    index = {
        "format": "artbisect-index",
        "version": 1,
        "name": name,
        "project": project,
        "vcs": {
            "type": "git",
            "url": vcs_url,
            "compare_url": compare_url or DEFAULT_COMPARE,
        },
        "builds": builds,
    }
    text = json.dumps(index, indent=2, ensure_ascii=False) + "\n"
    write_atomic(os.path.join(out, "index.json"), text.encode("utf-8"))


def artifact_entry(url, data, atype, name="app", sha=None):
    return {"url": url, "sha256": sha or sha256(data), "size": len(data),
            "type": atype, "name": name}


def prepare_out(out):
    os.makedirs(out, exist_ok=True)
    shutil.rmtree(os.path.join(out, "builds"), ignore_errors=True)
    try:
        os.unlink(os.path.join(out, "index.json"))
    except FileNotFoundError:
        pass
    os.makedirs(os.path.join(out, "builds"))


# -- archives ---------------------------------------------------------------

def tar_bytes(entries):
    """entries: (name, mode, data or None for a directory)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tf:
        for name, mode, data in entries:
            ti = tarfile.TarInfo(name)
            ti.mode = mode
            ti.mtime = MTIME
            ti.uid = ti.gid = 0
            ti.uname = ti.gname = "root"
            if data is None:
                ti.type = tarfile.DIRTYPE
                tf.addfile(ti)
            else:
                ti.size = len(data)
                tf.addfile(ti, io.BytesIO(data))
        end = tf.offset
    # Keep the two zero blocks that end the archive, drop the padding to a
    # whole 10 KiB record: a valid tar, and sizes closer to --artifact-size.
    return buf.getvalue()[:end + 1024]


def zip_bytes(entries, padded):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, mode, data in entries:
            if data is None:
                zi = zipfile.ZipInfo(name.rstrip("/") + "/", ZIP_DATE)
                zi.create_system = 3
                zi.external_attr = ((0o040000 | mode) << 16) | 0x10
                zf.writestr(zi, b"")
            else:
                zi = zipfile.ZipInfo(name, ZIP_DATE)
                zi.create_system = 3
                zi.external_attr = (0o100000 | mode) << 16
                big = padded and name.endswith("padding.bin")
                zi.compress_type = zipfile.ZIP_STORED if big else zipfile.ZIP_DEFLATED
                zf.writestr(zi, data)
    return buf.getvalue()


def compress(fmt, tar, padded):
    if fmt == "tar.gz":
        return gzip.compress(tar, compresslevel=0 if padded else 9, mtime=0)
    if fmt == "tar.xz":
        return lzma.compress(tar, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64,
                             preset=0 if padded else 6)
    return tar


def zstd_files(paths, padded):
    if not shutil.which("zstd"):
        die("--format tar.zst needs the zstd program")
    level = "-1" if padded else "-3"
    for i in range(0, len(paths), 200):
        subprocess.run(["zstd", "-q", "-f", "--rm", "--no-progress", level, "--"]
                       + paths[i:i + 200], check=True)


# -- synthetic farms ----------------------------------------------------------

def parse_list(text, n, opt):
    if not text:
        return set()
    out = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not m:
            die("%s: %r is not a build number or range I-J" % (opt, part))
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        if hi < lo or hi >= n:
            die("%s: %r is out of range 0..%d" % (opt, part, n - 1))
        out.update(range(lo, hi + 1))
    return out


def app_script(bid, i, verdict, commit):
    status = {"ok": 0, "broken": 1, "untestable": 125}[verdict]
    return ("#!/bin/sh\n"
            "# app, build %s (commit %s), made by tests/mkfarm.py\n"
            "echo 'app 1.0.%d (build %s)'\n"
            "echo 'result: %s'\n"
            "exit %d\n" % (bid, commit or "-", i, bid, verdict, status)).encode()


def synthetic(opts):
    n = opts.builds
    if n < 1:
        die("--builds must be at least 1")
    if opts.fix_at is not None and opts.culprit is not None:
        die("--culprit and --fix-at exclude each other")
    if opts.fix_at is None and opts.culprit is None:
        die("--culprit K (or --fix-at K) is required")
    k = opts.fix_at if opts.fix_at is not None else opts.culprit
    if not 0 <= k <= n:
        die("the culprit/fix build must be within 0..%d" % n)
    failed = parse_list(opts.failed, n, "--failed")
    missing = parse_list(opts.missing, n, "--missing")
    corrupt = parse_list(opts.corrupt, n, "--corrupt")
    skipped = parse_list(opts.skip_builds, n, "--skip-builds")
    fmt = opts.format
    commits = opts.commits is not False

    out = opts.out
    prepare_out(out)
    width = max(4, len(str(n - 1)))
    padded = bool(opts.artifact_size)
    padding = b""
    if padded and fmt in PACKAGE_FORMATS:
        die("--artifact-size is for archive formats")
    if padded:
        padding = calibrated_padding(fmt, opts.artifact_size)

    builds = []
    pending_zst = []
    if fmt in PACKAGE_FORMATS:
        packages = make_packages(fmt, opts, n, k, skipped, failed, commits, width)
    for i in range(n):
        bid = "b%0*d" % (width, i)
        commit = fake_commit(i) if commits else None
        b = {"id": bid}
        if commit:
            b["commit"] = commit
        b["date"] = iso_date(MTIME + 3600 * i)
        b["version"] = "1.0.%d" % i
        if i in failed:
            b["status"] = "failed"
            builds.append(b)
            continue
        b["status"] = "ok"
        if i in skipped:
            verdict = "untestable"
        elif opts.fix_at is not None:
            verdict = "ok" if i >= k else "broken"
        else:
            verdict = "ok" if i < k else "broken"
        if fmt in PACKAGE_FORMATS:
            data, fname, b["version"] = packages[i]
            rel = "builds/" + fname
            path = os.path.join(out, rel)
            if i not in missing:
                with open(path, "wb") as f:
                    f.write(data)
            b["artifacts"] = [artifact_entry(rel, data, fmt, name=opts.package_name,
                                             sha=wrong_sha(data) if i in corrupt else None)]
            builds.append(b)
            continue
        script = app_script(bid, i, verdict, commit)
        data, ext, atype = make_artifact(fmt, i, script, padding, padded)
        rel = "builds/%s.%s" % (bid, ext)
        path = os.path.join(out, rel)
        if fmt == "tar.zst":
            # Compressed below, all in one go; the index entry is filled in then.
            with open(path[:-4], "wb") as f:
                f.write(data)
            pending_zst.append((b, path, i))
        else:
            if i not in missing:
                with open(path, "wb") as f:
                    f.write(data)
            b["artifacts"] = [artifact_entry(rel, data, atype,
                                             sha=wrong_sha(data) if i in corrupt else None)]
        builds.append(b)

    if pending_zst:
        zstd_files([p[:-4] for _, p, _ in pending_zst], padded)
        for b, path, i in pending_zst:
            with open(path, "rb") as f:
                data = f.read()
            if i in missing:
                os.unlink(path)
            rel = os.path.relpath(path, out).replace(os.sep, "/")
            b["artifacts"] = [artifact_entry(rel, data, "tar",
                                             sha=wrong_sha(data) if i in corrupt else None)]

    if opts.fix_at is not None:
        desc = "fix at %d" % k
    else:
        desc = "culprit %d" % k
    name = opts.name or "mkfarm test farm (%d builds, %s, %s)" % (n, desc, fmt)
    write_index(out, name, builds, opts.compare_url)


def make_artifact(fmt, i, script, padding, padded):
    """(bytes, extension, index type) of one build's artifact. For tar.zst the
    bytes are the plain tar: the caller compresses them."""
    if fmt == "file":
        if padded:
            script += b"# " + padding.hex()[:len(padding)].encode() + b"\n"
        return script, "sh", "file"
    entries = [("usr", 0o755, None), ("usr/bin", 0o755, None),
               ("usr/bin/app", 0o755, script),
               ("usr/share", 0o755, None), ("usr/share/app", 0o755, None),
               ("usr/share/app/version", 0o644, ("1.0.%d\n" % i).encode())]
    if padded:
        entries.append(("usr/share/app/padding.bin", 0o644, padding))
    if fmt == "zip":
        return zip_bytes(entries, padded), "zip", "zip"
    return compress(fmt, tar_bytes(entries), padded), fmt, "tar"


def verdict_of(opts, i, k, skipped):
    if i in skipped:
        return "untestable"
    if opts.fix_at is not None:
        return "ok" if i >= k else "broken"
    return "ok" if i < k else "broken"


def make_packages(fmt, opts, n, k, skipped, failed, commits, width):
    """{i: (bytes, file name, index version)} for every build not failed,
    made by rpmbuild or dpkg-deb, several at a time."""
    from concurrent.futures import ThreadPoolExecutor
    tool = "rpmbuild" if fmt == "rpm" else "dpkg-deb"
    if not shutil.which(tool):
        die("--format %s needs %s" % (fmt, tool))
    payload = opts.payload or ("zstd" if fmt == "rpm" else "xz")
    if payload not in RPM_PAYLOADS:
        die("--payload: expected gzip, xz or zstd")
    work = os.path.abspath(os.path.join(opts.out, ".mkfarm-work"))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    def one(i):
        bid = "b%0*d" % (width, i)
        commit = fake_commit(i) if commits else None
        script = app_script(bid, i, verdict_of(opts, i, k, skipped), commit)
        return i, build_package(fmt, opts, payload, os.path.join(work, bid), i, script,
                                commit or fake_commit(i))

    todo = [i for i in range(n) if i not in failed]
    with ThreadPoolExecutor(max_workers=4) as ex:
        result = dict(ex.map(one, todo))
    shutil.rmtree(work, ignore_errors=True)
    return result


def build_package(fmt, opts, payload, work, i, script, commit):
    name = opts.package_name
    version = "1.0.%d" % i
    files = [("usr/bin/app", 0o755, script),
             ("usr/share/app/version", 0o644, ("%s\n" % version).encode())]
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(MTIME + 3600 * i), LC_ALL="C")
    if fmt == "rpm":
        release = "1.20240101git%s" % commit[:8] if opts.git_release else "1"
        src = os.path.join(work, "src")
        os.makedirs(src)
        for rel, mode, data in files:
            path = os.path.join(src, os.path.basename(rel))
            with open(path, "wb") as f:
                f.write(data)
        spec = os.path.join(work, "app.spec")
        with open(spec, "w") as f:
            f.write("""Name: %(name)s
Version: %(version)s
Release: %(release)s
Summary: test app %(version)s made by tests/mkfarm.py
License: MIT
BuildArch: noarch
VCS: git+https://git.example.org/app.git#%(commit)s

%%description
A test build of app, %(version)s.

%%install
mkdir -p %%{buildroot}/usr/bin %%{buildroot}/usr/share/app
install -m 0755 %(src)s/app %%{buildroot}/usr/bin/app
install -m 0644 %(src)s/version %%{buildroot}/usr/share/app/version

%%files
/usr/bin/app
/usr/share/app/version
""" % {"name": name, "version": version, "release": release, "commit": commit, "src": src})
        cmd = ["rpmbuild", "-bb", "--quiet",
               "--define", "_topdir " + os.path.join(work, "top"),
               "--define", "_binary_payload " + RPM_PAYLOADS[payload],
               "--define", "_build_id_links none",
               "--define", "use_source_date_epoch_as_buildtime 1",
               "--define", "clamp_mtime_to_source_epoch 1",
               "--define", "_buildhost mkfarm.example.org",
               "--define", "__os_install_post %{nil}",
               spec]
        r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            die("rpmbuild failed: %s" % r.stdout.decode(errors="replace")[-2000:])
        fname = "%s-%s-%s.noarch.rpm" % (name, version, release)
        with open(os.path.join(work, "top", "RPMS", "noarch", fname), "rb") as f:
            return f.read(), fname, "%s-%s" % (version, release)
    # deb
    debver = ("%s+git20240101.%s-1" % (version, commit[:8])) if opts.git_release \
        else "%s-1" % version
    root = os.path.join(work, "root")
    os.makedirs(os.path.join(root, "DEBIAN"))
    for rel, mode, data in files:
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        os.chmod(path, mode)
    for dirpath, dirnames, filenames in os.walk(root):
        os.chmod(dirpath, 0o755)
    with open(os.path.join(root, "DEBIAN", "control"), "w") as f:
        f.write("Package: %s\nVersion: %s\nArchitecture: all\n"
                "Maintainer: mkfarm <mkfarm@example.org>\n"
                "Description: test app %s made by tests/mkfarm.py\n" % (name, debver, version))
    fname = "%s_%s_all.deb" % (name, debver)
    out = os.path.join(work, fname)
    r = subprocess.run(["dpkg-deb", "--build", "--root-owner-group", "-Z" + payload,
                        root, out], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        die("dpkg-deb failed: %s" % r.stdout.decode(errors="replace")[-2000:])
    with open(out, "rb") as f:
        return f.read(), fname, debver


def calibrated_padding(fmt, target):
    """Random bytes (fixed seed) that bring an artifact to about target bytes."""
    def size(n):
        pad = random.Random(20240101).randbytes(n)
        data = make_artifact(fmt, 0, app_script("b0000", 0, "ok", fake_commit(0)), pad, True)[0]
        if fmt == "tar.zst":
            data = subprocess.run(["zstd", "-q", "-c", "-1"], input=data, check=True,
                                  stdout=subprocess.PIPE).stdout
        return len(data)
    n = max(0, target - size(0))
    n = max(0, n + target - size(n))
    return random.Random(20240101).randbytes(n)


def wrong_sha(data):
    return sha256(data + b"\0corrupted")


# -- from git ---------------------------------------------------------------

def from_git(opts):
    repo = opts.from_git
    fmt = opts.format
    if fmt not in ("tar.gz", "tar", "zip"):
        die("--from-git makes tar.gz, tar or zip artifacts only")

    def git(*args):
        return subprocess.run(["git", "-C", repo] + list(args), check=True,
                              stdout=subprocess.PIPE, text=True).stdout

    try:
        log = git("log", "--reverse", "--format=%H %ct", "HEAD")
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        die("%s: cannot read the git history: %s" % (repo, e))
    out = opts.out
    prepare_out(out)
    builds = []
    for line in log.splitlines():
        commit, ct = line.split()
        short = commit[:12]
        rel = "builds/%s.%s" % (short, fmt)
        path = os.path.join(out, rel)
        subprocess.run(["git", "-C", repo, "archive", "--format=" + fmt,
                        "-o", os.path.abspath(path), commit], check=True)
        with open(path, "rb") as f:
            data = f.read()
        builds.append({"id": short, "commit": commit, "date": iso_date(int(ct)),
                       "status": "ok",
                       "artifacts": [artifact_entry(rel, data, type_of(rel),
                                                    name=os.path.basename(os.path.abspath(repo)))]})
    if not builds:
        die("%s: no commits" % repo)
    if opts.test_script:
        dst = os.path.join(out, "test.sh")
        shutil.copyfile(opts.test_script, dst)
        os.chmod(dst, 0o755)
    top = os.path.abspath(repo)
    write_index(out, opts.name or "git farm of %s (%d commits)" % (top, len(builds)), builds,
                opts.compare_url, vcs_url="file://" + urllib.parse.quote(top),
                project=os.path.basename(top))


# -- from artifacts ---------------------------------------------------------

def pack_tree(src):
    entries = []
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames.sort()
        rel_dir = os.path.relpath(dirpath, src)
        for d in dirnames:
            p = os.path.join(dirpath, d)
            name = os.path.normpath(os.path.join(rel_dir, d))
            if os.path.islink(p):
                filenames.append(d)
                continue
            entries.append((name, os.stat(p).st_mode & 0o7777, None))
        for fn in sorted(filenames):
            p = os.path.join(dirpath, fn)
            name = os.path.normpath(os.path.join(rel_dir, fn))
            if os.path.islink(p):
                entries.append((name, "link", os.readlink(p)))
                continue
            with open(p, "rb") as f:
                entries.append((name, os.stat(p).st_mode & 0o7777, f.read()))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tf:
        for name, mode, data in sorted(entries, key=lambda e: e[0]):
            ti = tarfile.TarInfo(name)
            ti.mtime = MTIME
            ti.uid = ti.gid = 0
            ti.uname = ti.gname = "root"
            if mode == "link":
                ti.type = tarfile.SYMTYPE
                ti.linkname = data
                ti.mode = 0o777
                tf.addfile(ti)
            elif data is None:
                ti.type = tarfile.DIRTYPE
                ti.mode = mode
                tf.addfile(ti)
            else:
                ti.mode = mode
                ti.size = len(data)
                tf.addfile(ti, io.BytesIO(data))
    return gzip.compress(buf.getvalue(), compresslevel=9, mtime=0)


def from_artifacts(opts):
    src = os.path.abspath(opts.from_artifacts)
    out = os.path.abspath(opts.out)
    if not os.path.isdir(src):
        die("--from-artifacts %s: not a directory" % opts.from_artifacts)
    names = sorted((n for n in os.listdir(src) if not n.startswith(".")), key=natural_key)
    if not names:
        die("%s: nothing to index" % src)
    inside = (src + os.sep).startswith(out + os.sep)
    if inside and os.path.abspath(os.path.join(out, "builds")) == src:
        # Index what is already in place; only index.json is replaced.
        try:
            os.unlink(os.path.join(out, "index.json"))
        except FileNotFoundError:
            pass
    elif inside:
        die("--from-artifacts: %s is inside --out but is not --out/builds" % src)
    else:
        prepare_out(out)
    builds = []
    seen = set()
    for i, name in enumerate(names):
        p = os.path.join(src, name)
        if os.path.isdir(p):
            bid = name
            data = pack_tree(p)
            rel = "builds/%s.tar.gz" % name
            write_atomic(os.path.join(out, rel), data)
        elif os.path.isfile(p):
            bid = strip_ext(name)
            with open(p, "rb") as f:
                data = f.read()
            if inside:
                rel = os.path.relpath(p, out).replace(os.sep, "/")
            else:
                rel = "builds/" + name
                write_atomic(os.path.join(out, rel), data)
        else:
            continue
        if bid in seen:
            die("%s: two entries make the build id %r" % (src, bid))
        seen.add(bid)
        b = {"id": bid}
        if opts.commits:
            b["commit"] = fake_commit(i)
        b["status"] = "ok"
        b["artifacts"] = [artifact_entry(urllib.parse.quote(rel), data, type_of(rel),
                                         name=bid)]
        builds.append(b)
    write_index(out, opts.name or "farm of %s (%d builds)" % (os.path.basename(src), len(builds)),
                builds, opts.compare_url)


def main():
    ap = argparse.ArgumentParser(
        description="make a build farm (artifacts + index.json) for artbisect's tests",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--out", required=True, help="the farm directory")
    ap.add_argument("--builds", type=int)
    ap.add_argument("--culprit", type=int, help="first bad build (0-based)")
    ap.add_argument("--fix-at", type=int, help="first good build after bad ones")
    ap.add_argument("--format", default="tar.gz", choices=FORMATS)
    ap.add_argument("--failed", help="builds with status failed: I,J or I-J")
    ap.add_argument("--missing", help="builds whose artifact file is not written")
    ap.add_argument("--corrupt", help="builds whose index sha256 is wrong")
    ap.add_argument("--skip-builds", help="builds whose app exits 125")
    ap.add_argument("--name")
    ap.add_argument("--payload", choices=("gzip", "xz", "zstd"),
                    help="rpm/deb payload compression")
    ap.add_argument("--git-release", action="store_true",
                    help="rpm/deb: put the commit into the release/version")
    ap.add_argument("--package-name", default="app", help="rpm/deb package name")
    ap.add_argument("--artifact-size", type=int, help="pad artifacts to about BYTES")
    ap.add_argument("--compare-url")
    ap.add_argument("--commits", action=argparse.BooleanOptionalAction, default=None,
                    help="fake commits (default: on for synthetic farms, off with "
                         "--from-artifacts)")
    ap.add_argument("--from-git", metavar="REPO")
    ap.add_argument("--test-script", metavar="PATH")
    ap.add_argument("--from-artifacts", metavar="DIR")
    opts = ap.parse_args()

    if opts.from_git and opts.from_artifacts:
        die("--from-git and --from-artifacts exclude each other")
    if opts.from_git:
        from_git(opts)
    elif opts.from_artifacts:
        from_artifacts(opts)
    else:
        if opts.builds is None:
            die("--builds N is required")
        synthetic(opts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
