#!/usr/bin/env python3
"""tests/mkfarms.py - fixture farms in the exact layouts of real ones.

    mkfarms.py keys DIR
        DIR/gnupg (a GNUPGHOME) with two signing keys, "farm" (the one a
        farm signs with) and "other" (a stranger's); their public keys in
        DIR/farm-key.asc and DIR/other-key.asc (armored), .gpg (binary).
    mkfarms.py mainline|arch|koji|sums OUTDIR --keys DIR [--variant V]
        one farm tree in OUTDIR, with real packages made by dpkg-deb,
        bsdtar, rpmbuild and tar, and a planted culprit: the first bad
        build, whose kernel image (or app/STATUS) contains BROKEN where the
        good ones contain OK. Variants (the planted fault is on the
        culprit, so that the bisection must meet it):
          mainline: plain, tampered (the culprit's image .deb changed after
                    CHECKSUMS was made), otherkey (its CHECKSUMS.gpg made by
                    the other key)
          arch:     plain, otherkey (the culprit's .sig by the other key),
                    tampered (the culprit's package changed after signing)
          koji:     plain, signed (every RPM signed with rpmsign)
          sums:     plain, dup (the culprit's SHA256SUMS names its tarball
                    twice with different digests)
    mkfarms.py mainline|arch|koji|sums OUTDIR --keys DIR --from FARM --variant V
        the same variants, made quickly: FARM (a plain farm made by this
        script) copied to OUTDIR and the fault planted in the copy.
    mkfarms.py mainline OUTDIR --count N --tiny
        a large mainline tree for benchmarks: N version directories whose
        .debs are hard links to three tiny packages, CHECKSUMS in each
        (unsigned unless --keys).
    mkfarms.py index FARM --url URL
        FARM's builds as an index v1 on standard output, artifacts by
        absolute URL under URL (where FARM is served): the answer a farm
        reader should reach, for comparing and benchmarking.
    mkfarms.py hostile OUTDIR
        notalisting/ (a page that is no directory listing) and huge/ (a
        listing page of 100,000 version links, none of which exist).

Every farm tree gets OUTDIR/farm.json (next to, not inside, what a farm
lists: it is written one level up, as OUTDIR.json) with the build ids
oldest first, the culprit and the planted faults, for the tests to read.
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import io
import tempfile
from concurrent.futures import ThreadPoolExecutor

FARM_UID = "artbisect fixture farm <farm@example.org>"
OTHER_UID = "someone else <other@example.org>"


def sh(*args, **kw):
    kw.setdefault("check", True)
    return subprocess.run(list(args), **kw)


def write(path, data, mode=0o644):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    os.chmod(path, mode)


def digest(path, algo):
    h = hashlib.new(algo)
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def tamper(path):
    """Changes bytes in the middle of a file, keeping its size."""
    with open(path, "r+b") as f:
        size = f.seek(0, 2)
        f.seek(size // 2)
        b = f.read(16)
        f.seek(size // 2)
        f.write(bytes(x ^ 0x5A for x in b))


def parallel(fn, items):
    """fn(*item) for every item, a few at a time (each spawns tools)."""
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as ex:
        for f in [ex.submit(fn, *it) for it in items]:
            f.result()


class Keys:
    def __init__(self, d):
        self.dir = os.path.abspath(d)
        self.home = os.path.join(self.dir, "gnupg")

    def gpg(self, *args):
        env = dict(os.environ, GNUPGHOME=self.home)
        return sh("gpg", "--batch", "--quiet", "--yes", "--pinentry-mode", "loopback",
                  "--passphrase", "", *args, env=env, stdout=subprocess.DEVNULL)

    def make(self):
        os.makedirs(self.home, mode=0o700, exist_ok=True)
        for uid, name in ((FARM_UID, "farm"), (OTHER_UID, "other")):
            self.gpg("--quick-gen-key", uid, "ed25519", "sign", "never")
            email = uid.split("<")[1].rstrip(">")
            self.gpg("--armor", "--output", os.path.join(self.dir, name + "-key.asc"),
                     "--export", email)
            self.gpg("--output", os.path.join(self.dir, name + "-key.gpg"), "--export", email)

    def sign(self, path, out, who="farm", armor=False):
        """A detached signature of path in out, by the farm's key or the other."""
        email = "farm@example.org" if who == "farm" else "other@example.org"
        self.gpg("--local-user", email, "--detach-sign", *(["--armor"] if armor else []),
                 "--output", out, path)


def manifest(outdir, doc):
    outdir = os.path.abspath(outdir)
    with open(outdir.rstrip("/") + ".json", "w") as f:
        json.dump(doc, f, indent=1)


# ---------------------------------------------------------------- mainline

# Oldest first. v6.6 is an old-style build: its files at the version root.
MAINLINE = ["v6.6", "v6.7", "v6.7.1", "v6.7.2", "v6.8-rc1", "v6.8-rc2", "v6.8", "v6.8.1",
            "v6.8.2", "v6.8.3", "v6.9-rc1", "v6.9"]
MAINLINE_FAILED = "v6.7.1"
MAINLINE_CULPRIT = "v6.8.2"
MAINLINE_CULPRIT_LOWLATENCY = "v6.9-rc1"


def mainline_names(ver, stamp):
    """(krel, pkgver) as the mainline builds name them: v6.9-rc1 ->
    6.9.0-060900rc1, 6.9.0-060900rc1.202403242333."""
    v = ver[1:]
    rc = ""
    if "-rc" in v:
        v, rc = v.split("-", 1)
    parts = [int(x) for x in v.split(".")] + [0, 0]
    major, minor, patch = parts[:3]
    krel = "%d.%d.%d-%02d%02d%02d%s" % (major, minor, patch, major, minor, patch, rc)
    return krel, "%s.%s" % (krel, stamp)


def mkdeb(workdir, out, package, version, arch, files):
    """A real .deb made with dpkg-deb, holding files {path: bytes}."""
    root = tempfile.mkdtemp(dir=workdir)
    os.makedirs(os.path.join(root, "DEBIAN"))
    write(os.path.join(root, "DEBIAN", "control"),
          "Package: %s\nVersion: %s\nArchitecture: %s\nMaintainer: Kernel fixtures <kernel@example.org>\n"
          "Section: kernel\nPriority: optional\nDescription: fixture kernel package %s\n" % (
              package, version, arch, package))
    for path, data in files.items():
        write(os.path.join(root, path), data)
    sh("dpkg-deb", "--root-owner-group", "-Zxz", "-z1", "--build", root, out,
       stdout=subprocess.DEVNULL)
    shutil.rmtree(root)


def write_checksums(d, names):
    lines = ["# Checksums-Sha1:"]
    lines += ["%s  %s" % (digest(os.path.join(d, n), "sha1"), n) for n in names]
    lines += ["# Checksums-Sha256:"]
    lines += ["%s  %s" % (digest(os.path.join(d, n), "sha256"), n) for n in names]
    write(os.path.join(d, "CHECKSUMS"), "\n".join(lines) + "\n")


def mainline_arch_files(work, d, ver, stamp, arch, broken, broken_ll, failed):
    krel, pkgver = mainline_names(ver, stamp)
    names = []

    def deb(package, files, a=arch):
        n = "%s_%s_%s.deb" % (package, pkgver, a)
        mkdeb(work, os.path.join(d, n), package, pkgver, a, files)
        names.append(n)

    if arch == "amd64":
        deb("linux-headers-%s" % krel, {"usr/src/linux-headers-%s/Makefile" % krel: "VERSION = 6\n"}, "all")
    for flavour in ("generic", "lowlatency") if arch in ("amd64", "i386") else ("generic",):
        if failed and flavour == "generic":
            continue  # the build failed: no generic packages
        bad = (broken if flavour == "generic" else broken_ll) or arch != "amd64"
        image = "Linux kernel %s-%s %s %s\n" % (krel, flavour, arch, "BROKEN" if bad else "OK")
        deb("linux-headers-%s-%s" % (krel, flavour),
            {"usr/src/linux-headers-%s-%s/.config" % (krel, flavour): "CONFIG_X=y\n"})
        deb("linux-image-unsigned-%s-%s" % (krel, flavour), {"boot/vmlinuz-%s-%s" % (krel, flavour): image})
        deb("linux-modules-%s-%s" % (krel, flavour),
            {"lib/modules/%s-%s/modules.dep" % (krel, flavour): "kernel/drivers/dummy.ko:\n",
             "lib/modules/%s-%s/kernel/drivers/dummy.ko" % (krel, flavour): "\x7fELF dummy\n",
             "boot/System.map-%s-%s" % (krel, flavour): "ffffffff81000000 T _stext\n"})
    write_checksums(d, names)
    write(os.path.join(d, "status"), "1\n" if failed else "0\n")
    return krel, names


def make_mainline(out, keys, variant, culprit):
    work = os.path.join(out, ".work")
    os.makedirs(work, exist_ok=True)
    ci = MAINLINE.index(culprit)
    cl = MAINLINE.index(MAINLINE_CULPRIT_LOWLATENCY)
    builds = list(MAINLINE)

    def one(i, ver):
        stamp = "2024%02d%02d%02d%02d" % (1 + i // 28 % 12, 1 + i % 28, 10 + i % 12, i % 60)
        vdir = os.path.join(out, ver)
        failed = ver == MAINLINE_FAILED
        sigdirs = []
        if i == 0:
            # Old style: every architecture's files at the version root.
            os.makedirs(vdir)
            _, n1 = mainline_arch_files(work, vdir, ver, stamp, "amd64", i >= ci, i >= cl, False)
            krel, pkgver = mainline_names(ver, stamp)
            n = "linux-image-unsigned-%s-generic_%s_i386.deb" % (krel, pkgver)
            mkdeb(work, os.path.join(vdir, n), "linux-image-unsigned-%s-generic" % krel, pkgver, "i386",
                  {"boot/vmlinuz-%s-generic" % krel: "i386 BROKEN\n"})
            write_checksums(vdir, n1 + [n])
            write(os.path.join(vdir, "BUILD.LOG.amd64"), "build log\n")
            sigdirs.append(vdir)
        else:
            for arch in ("amd64", "arm64"):
                d = os.path.join(vdir, arch)
                os.makedirs(d)
                mainline_arch_files(work, d, ver, stamp, arch, i >= ci, i >= cl, failed and arch == "amd64")
                sigdirs.append(d)
            if failed:
                write(os.path.join(vdir, "amd64", "BUILD.LOG.amd64"), "error: build failed\n")
        write(os.path.join(vdir, "HEADER.html"),
              "<p>Build for %s: <a href=\"https://git.kernel.org/\">source</a></p>\n" % ver)
        for d in sigdirs:
            who = "other" if (variant == "otherkey" and ver == culprit) else "farm"
            keys.sign(os.path.join(d, "CHECKSUMS"), os.path.join(d, "CHECKSUMS.gpg"), who)
        if variant == "tampered" and ver == culprit:
            for n in os.listdir(os.path.join(vdir, "amd64")):
                if n.startswith("linux-image-unsigned-") and "-generic_" in n:
                    tamper(os.path.join(vdir, "amd64", n))
    parallel(one, enumerate(MAINLINE))
    # Not builds: a daily directory and a stray file.
    os.makedirs(os.path.join(out, "daily", "current"))
    write(os.path.join(out, "daily", "current", "README"), "daily builds\n")
    write(os.path.join(out, "README"), "Mainline kernel builds.\n")
    shutil.rmtree(work)
    manifest(out, {"kind": "mainline", "variant": variant, "builds": builds, "culprit": culprit,
                   "culprit_lowlatency": MAINLINE_CULPRIT_LOWLATENCY, "failed": [MAINLINE_FAILED],
                   "old_style": [MAINLINE[0]],
                   "probe_file": "boot/vmlinuz-*-generic"})


def make_mainline_tiny(out, count, keys):
    """count version dirs v5.M[.P], hard links to three tiny debs."""
    work = os.path.join(out, ".work")
    tmpl = os.path.join(work, "tmpl")
    os.makedirs(tmpl)
    files = {}
    for kind, content in (("image", {"boot/vmlinuz-bench-generic": "OK\n"}),
                          ("modules", {"lib/modules/bench-generic/modules.dep": "\n"}),
                          ("headers", {"usr/src/linux-headers-bench/Makefile": "\n"})):
        p = os.path.join(tmpl, kind + ".deb")
        mkdeb(work, p, "linux-%s-bench" % kind, "1.0", "amd64", content)
        files[kind] = (p, digest(p, "sha1"), digest(p, "sha256"))
    builds = []
    for i in range(count):
        m, p = divmod(i, 20)
        ver = "v5.%d" % m if p == 0 else "v5.%d.%d" % (m, p)
        krel, pkgver = mainline_names(ver, "202401010000")
        d = os.path.join(out, ver, "amd64")
        os.makedirs(d)
        names = []
        for kind, pkg, arch in (("headers", "linux-headers-%s" % krel, "all"),
                                ("image", "linux-image-unsigned-%s-generic" % krel, "amd64"),
                                ("modules", "linux-modules-%s-generic" % krel, "amd64")):
            n = "%s_%s_%s.deb" % (pkg, pkgver, arch)
            os.link(files[kind][0], os.path.join(d, n))
            names.append((n, kind))
        write(os.path.join(d, "CHECKSUMS"),
              "# Checksums-Sha1:\n" + "".join("%s  %s\n" % (files[k][1], n) for n, k in names) +
              "# Checksums-Sha256:\n" + "".join("%s  %s\n" % (files[k][2], n) for n, k in names))
        write(os.path.join(d, "status"), "0\n")
        if keys:
            keys.sign(os.path.join(d, "CHECKSUMS"), os.path.join(d, "CHECKSUMS.gpg"))
        builds.append(ver)
    shutil.rmtree(work)  # the links keep the packages
    manifest(out, {"kind": "mainline", "variant": "tiny", "builds": builds, "culprit": None})


# ---------------------------------------------------------------- arch

ARCH_VERSIONS = ["6.7.arch1-1", "6.7.1.arch1-1", "6.7.2.arch1-1", "6.8.arch1-1", "6.8.1.arch1-1",
                 "6.8.1.arch1-2", "6.8.2.arch1-1", "6.8.3.arch1-1", "6.9.arch1-1", "1:6.9.1.arch1-1"]
ARCH_CULPRIT = "6.8.1.arch1-2"


def mkpkg(work, out, pkgname, fullver, files, builddate):
    """A real Arch package: a zstd tar with .PKGINFO, .BUILDINFO, .MTREE."""
    root = tempfile.mkdtemp(dir=work)
    size = 0
    for path, data in files.items():
        write(os.path.join(root, path), data)
        size += len(data)
    write(os.path.join(root, ".PKGINFO"),
          "# Generated by makepkg 6.0.2\n# using fakeroot version 1.33\n"
          "pkgname = %s\npkgbase = linux\npkgver = %s\npkgdesc = The Linux kernel and modules\n"
          "url = https://github.com/archlinux/linux\nbuilddate = %d\npackager = Fixture Packager "
          "<packager@example.org>\nsize = %d\narch = x86_64\nlicense = GPL-2.0-only\n"
          "provides = KSMBD-MODULE\ndepend = coreutils\ndepend = kmod\n" % (pkgname, fullver, builddate, size))
    write(os.path.join(root, ".BUILDINFO"),
          "format = 2\npkgname = %s\npkgbase = linux\npkgver = %s\npkgarch = x86_64\n"
          "pkgbuild_sha256sum = %s\npackager = Fixture Packager <packager@example.org>\n"
          "builddate = %d\nbuilddir = /build\nstartdir = /startdir\nbuildtool = devtools\n"
          "buildtoolver = 1:1.1.1-1-any\nbuildenv = !distcc\noptions = strip\n"
          "installed = gcc-13.2.1-5-x86_64\n" % (pkgname, fullver, "0" * 64, builddate))
    entries = sorted(files)
    # .MTREE as makepkg writes it: bsdtar's mtree, gzipped.
    sh("bsdtar", "-czf", os.path.join(root, ".MTREE"), "--format=mtree",
       "--options=!all,use-set,type,uid,gid,mode,time,size,md5,sha256,link",
       "-C", root, ".PKGINFO", ".BUILDINFO", *entries)
    sh("bsdtar", "--zstd", "-cf", out, "--uid", "0", "--gid", "0", "--uname", "root",
       "--gname", "root", "-C", root, ".BUILDINFO", ".MTREE", ".PKGINFO", *entries)
    shutil.rmtree(root)


def make_arch(out, keys, variant, culprit):
    d = os.path.join(out, "packages", "l", "linux")
    os.makedirs(d)
    work = os.path.join(out, ".work")
    os.makedirs(work)
    ci = ARCH_VERSIONS.index(culprit)

    def one(i, full):
        ver = full.split(":")[-1]
        pkgver, rel = ver.rsplit("-", 1)
        kr = "%s-%s" % (pkgver.replace(".arch", "-arch"), rel)  # 6.8.1.arch1-1 -> 6.8.1-arch1-1
        date = 1704067200 + i * 86400
        pkgs = [("linux", {"usr/lib/modules/%s/vmlinuz" % kr:
                           "Linux %s x86_64 %s\n" % (kr, "BROKEN" if i >= ci else "OK"),
                           "usr/lib/modules/%s/pkgbase" % kr: "linux\n",
                           "usr/lib/modules/%s/modules.dep" % kr: "\n"})]
        if i % 3 != 1:  # not every version has them, as in the real archive
            pkgs.append(("linux-headers", {"usr/lib/modules/%s/build/Makefile" % kr: "VERSION = 6\n"}))
        if i % 2 == 0:
            pkgs.append(("linux-docs", {"usr/share/doc/linux/README": "docs BROKEN\n"}))
        for name, files in pkgs:
            fn = "%s-%s-x86_64.pkg.tar.zst" % (name, full)
            p = os.path.join(d, fn)
            mkpkg(work, p, name, full, files, date)
            who = "other" if (variant == "otherkey" and i == ci and name == "linux") else "farm"
            keys.sign(p, p + ".sig", who)
            if variant == "tampered" and i == ci and name == "linux":
                tamper(p)
            os.utime(p, (date, date))
            os.utime(p + ".sig", (date, date))
    parallel(one, enumerate(ARCH_VERSIONS))
    # The archive's neighbours: another package in l/, a non-package file.
    os.makedirs(os.path.join(out, "packages", "l", "linux-lts"))
    write(os.path.join(out, "packages", "l", "linux-lts", "README"), "not this one\n")
    write(os.path.join(d, "index.txt.bak"), "stray\n")
    shutil.rmtree(work)
    manifest(out, {"kind": "arch", "variant": variant, "builds": ARCH_VERSIONS, "culprit": culprit,
                   "url_path": "packages/l/linux/", "probe_file": "usr/lib/modules/*/vmlinuz"})


# ---------------------------------------------------------------- koji

SNAP_HEX = "1d0f2a9e7b3c"
KOJI = [("6.8.1", "300.fc40"), ("6.8.1", "301.fc40"), ("6.8.2", "300.fc40"), ("6.8.3", "300.fc40"),
        ("6.8.4", "300.fc40"), ("6.9.0", "0.rc1.20240320git%s.2.fc41" % SNAP_HEX), ("6.9.1", "300.fc40"),
        ("6.9.2", "300.fc40")]
KOJI_FAILED = "6.8.3-300.fc40"
KOJI_CULPRIT = "6.9.0-0.rc1.20240320git%s.2.fc41" % SNAP_HEX

SPEC = r"""
Name: kernel
Version: %{fx_version}
Release: %{fx_release}
Summary: The Linux kernel (fixture)
License: GPL-2.0-only
URL: https://www.kernel.org/
Requires: kernel-core = %{version}-%{release}
Requires: kernel-modules = %{version}-%{release}
%description
Fixture kernel meta package.
%package core
Summary: The Linux kernel (core)
%description core
Fixture kernel core.
%package modules
Summary: Kernel modules
Requires: kernel-core = %{version}-%{release}
%description modules
Fixture kernel modules.
%package doc
Summary: Kernel documentation
BuildArch: noarch
%description doc
Fixture kernel docs.
%install
kr=%{version}-%{release}.x86_64
mkdir -p %{buildroot}/lib/modules/$kr/kernel/drivers %{buildroot}%{_docdir}/kernel-doc
echo "Linux $kr x86_64 %{fx_status}" > %{buildroot}/lib/modules/$kr/vmlinuz
echo "ffffffff81000000 T _stext" > %{buildroot}/lib/modules/$kr/System.map
echo "dummy module" > %{buildroot}/lib/modules/$kr/kernel/drivers/dummy.ko
echo "kernel/drivers/dummy.ko:" > %{buildroot}/lib/modules/$kr/modules.dep
echo "docs BROKEN" > %{buildroot}%{_docdir}/kernel-doc/README
%files
%files core
/lib/modules/%{version}-%{release}.x86_64/vmlinuz
/lib/modules/%{version}-%{release}.x86_64/System.map
%files modules
/lib/modules/%{version}-%{release}.x86_64/kernel
/lib/modules/%{version}-%{release}.x86_64/modules.dep
%files doc
%{_docdir}/kernel-doc
"""


def rpmsign(keys, d):
    """Signs every RPM under d with the farm's key, as Koji's sigul would."""
    rpms = [os.path.join(dp, n) for dp, _, ns in os.walk(d) for n in ns if n.endswith(".rpm")]
    sh("rpmsign", "--addsign", "--define", "__gpg %s" % shutil.which("gpg"),
       "--define", "_gpg_name farm@example.org",
       "--define", "_gpg_path %s" % keys.home, *rpms,
       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def make_koji(out, keys, variant, culprit):
    top = os.path.join(out, "packages", "kernel")
    work = os.path.abspath(os.path.join(out, ".work"))
    os.makedirs(top)
    os.makedirs(os.path.join(work, "SOURCES"))
    write(os.path.join(work, "kernel.spec"), SPEC)
    ids = ["%s-%s" % vr for vr in KOJI]
    ci = ids.index(culprit)
    for i, (ver, rel) in enumerate(KOJI):
        bid = "%s-%s" % (ver, rel)
        rd = os.path.join(top, ver, rel)
        tree = os.path.join(work, "rpmbuild")
        shutil.rmtree(tree, ignore_errors=True)
        sh("rpmbuild", "-ba", "--quiet", "--target", "x86_64",
           "--define", "_topdir %s" % tree, "--define", "fx_version %s" % ver,
           "--define", "fx_release %s" % rel, "--define", "fx_status %s" % ("BROKEN" if i >= ci else "OK"),
           "--define", "debug_package %{nil}", "--define", "__os_install_post %{nil}",
           "--define", "_build_id_links none", "--define", "_binary_payload w2.xzdio",
           os.path.join(work, "kernel.spec"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for a in ("x86_64", "noarch"):
            if a == "x86_64" and bid == KOJI_FAILED:
                continue  # the build failed: Koji has no x86_64 packages
            os.makedirs(os.path.join(rd, a))
            for n in os.listdir(os.path.join(tree, "RPMS", a)):
                shutil.copy(os.path.join(tree, "RPMS", a, n), os.path.join(rd, a, n))
        os.makedirs(os.path.join(rd, "src"))
        for n in os.listdir(os.path.join(tree, "SRPMS")):
            shutil.copy(os.path.join(tree, "SRPMS", n), os.path.join(rd, "src", n))
        # Koji's sibling of the arch directories: logs, not packages.
        os.makedirs(os.path.join(rd, "data", "logs", "x86_64"))
        write(os.path.join(rd, "data", "logs", "x86_64", "build.log"),
              "build failed\n" if bid == KOJI_FAILED else "build ok\n")
        if variant == "signed":
            rpmsign(keys, rd)
    shutil.rmtree(work)
    builds = [b for b in ids if b != KOJI_FAILED]
    manifest(out, {"kind": "koji", "variant": variant, "builds": ids, "culprit": culprit,
                   "failed": [KOJI_FAILED], "commit": SNAP_HEX, "url_path": "packages/kernel/",
                   "probe_file": "lib/modules/*/vmlinuz"})


# ---------------------------------------------------------------- sums

SUMS_CULPRIT = "2026-1-10"
FLAT = ["1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "1.10", "1.11"]
FLAT_CULPRIT = "1.10"


def app_tarball(path, ident, arch, broken):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for name, data, mode in (("app/bin/app", "#!/bin/sh\necho app %s\n" % ident, 0o755),
                                 ("app/STATUS", "app %s %s %s\n" % (ident, arch, "BROKEN" if broken else "OK"),
                                  0o644),
                                 ("app/ARCH", arch + "\n", 0o644)):
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            ti.mode = mode
            ti.mtime = 1767225600
            t.addfile(ti, io.BytesIO(data.encode()))
    write(path, buf.getvalue())


def make_sums(out, keys, variant):
    nightly = os.path.join(out, "nightly")
    days = ["2026-1-%d" % d for d in range(1, 13)]
    ci = days.index(SUMS_CULPRIT)
    for i, day in enumerate(days):
        d = os.path.join(nightly, day)
        names = []
        for arch in ("x86_64", "aarch64"):
            n = "app-%s-linux-%s.tar.gz" % (day, arch)
            app_tarball(os.path.join(d, n), day, arch, i >= ci or arch != "x86_64")
            names.append(n)
        lines = ["%s  %s" % (digest(os.path.join(d, n), "sha256"), n) for n in names]
        if variant == "dup" and i == ci:
            lines.append("%s  %s" % ("0" * 64, names[0]))
        write(os.path.join(d, "SHA256SUMS"), "\n".join(lines) + "\n")
        keys.sign(os.path.join(d, "SHA256SUMS"), os.path.join(d, "SHA256SUMS.asc"), armor=True)
    write(os.path.join(nightly, "latest.txt"), days[-1] + "\n")
    flat = os.path.join(out, "flat")
    for i, v in enumerate(FLAT):
        n = "app-%s.tar.gz" % v
        app_tarball(os.path.join(flat, n), v, "x86_64", i >= FLAT.index(FLAT_CULPRIT))
        write(os.path.join(flat, n + ".sha256"), "%s  %s\n" % (digest(os.path.join(flat, n), "sha256"), n))
    manifest(out, {"kind": "sums", "variant": variant, "builds": days, "culprit": SUMS_CULPRIT,
                   "url_path": "nightly/", "flat_builds": FLAT, "flat_culprit": FLAT_CULPRIT,
                   "flat_url_path": "flat/", "probe_file": "app/STATUS"})


# ---------------------------------------------------------------- variants

def derive(src, out, keys, variant):
    """A variant of the plain farm src (made by this script), copied to
    out (real copies, not links) with the variant's fault planted."""
    man = json.load(open(os.path.abspath(src).rstrip("/") + ".json"))
    kind, c = man["kind"], man["culprit"]
    os.rmdir(out)
    shutil.copytree(src, out, symlinks=True)
    done = False
    if kind == "mainline":
        d = os.path.join(out, c, "amd64")
        if variant == "otherkey":
            keys.sign(os.path.join(d, "CHECKSUMS"), os.path.join(d, "CHECKSUMS.gpg"), "other")
            done = True
        elif variant == "tampered":
            for n in os.listdir(d):
                if n.startswith("linux-image-unsigned-") and "-generic_" in n:
                    tamper(os.path.join(d, n))
                    done = True
    elif kind == "arch":
        p = os.path.join(out, man["url_path"], "linux-%s-x86_64.pkg.tar.zst" % c)
        st = os.stat(p)
        if variant == "otherkey":
            keys.sign(p, p + ".sig", "other")
            done = True
        elif variant == "tampered":
            tamper(p)
            done = True
        os.utime(p, (st.st_mtime, st.st_mtime))
        os.utime(p + ".sig", (st.st_mtime, st.st_mtime))
    elif kind == "koji" and variant == "signed":
        rpmsign(keys, out)
        done = True
    elif kind == "sums" and variant == "dup":
        d = os.path.join(out, man["url_path"], c)
        with open(os.path.join(d, "SHA256SUMS"), "a") as f:
            f.write("%s  app-%s-linux-x86_64.tar.gz\n" % ("0" * 64, c))
        keys.sign(os.path.join(d, "SHA256SUMS"), os.path.join(d, "SHA256SUMS.asc"), armor=True)
        done = True
    if not done:
        sys.exit("mkfarms.py: no variant %r of a %s farm" % (variant, kind))
    man["variant"] = variant
    manifest(out, man)


# ---------------------------------------------------------------- index v1

def write_index(farm, url):
    """The farm's builds as an index v1 on stdout, artifacts by absolute
    URL under url (where farm is served): what a farm reader should
    find, written without one. Mainline: the generic amd64 image and
    modules; Arch: the linux package; Koji: kernel-core; sums: the
    x86_64 nightly tarball. Failed builds are "failed"."""
    from urllib.parse import quote
    man = json.load(open(os.path.abspath(farm).rstrip("/") + ".json"))
    url = url.rstrip("/") + "/"
    kind = man["kind"]
    builds = []
    digests = {}

    def art(rel):
        p = os.path.join(farm, rel)
        st = os.stat(p)
        if st.st_ino not in digests:
            digests[st.st_ino] = digest(p, "sha256")
        return {"url": url + quote(rel), "sha256": digests[st.st_ino], "size": st.st_size}

    for i, b in enumerate(man["builds"]):
        arts = []
        if kind == "mainline":
            rel = b if os.path.exists(os.path.join(farm, b, "CHECKSUMS")) else os.path.join(b, "amd64")
            arts = [art(os.path.join(rel, n)) for n in sorted(os.listdir(os.path.join(farm, rel)))
                    if n.endswith("_amd64.deb") and "-generic" in n and ("-image-" in n or "-modules-" in n)]
        elif kind == "arch":
            a = art(os.path.join(man["url_path"], "linux-%s-x86_64.pkg.tar.zst" % b))
            a["type"] = "tar"
            arts = [a]
        elif kind == "koji":
            ver, rel = b.split("-", 1)
            d = os.path.join(man["url_path"], ver, rel, "x86_64")
            if os.path.isdir(os.path.join(farm, d)):
                arts = [art(os.path.join(d, "kernel-core-%s.x86_64.rpm" % b))]
        elif kind == "sums":
            arts = [art(os.path.join(man["url_path"], b, "app-%s-linux-x86_64.tar.gz" % b))]
        build = {"id": b}
        if "git" in b:
            build["commit"] = b.split("git", 1)[1].split(".", 1)[0]
        if arts:
            build["artifacts"] = arts
        else:
            build["status"] = "failed"
        builds.append(build)
    json.dump({"format": "artbisect-index", "version": 1, "name": "%s fixture farm" % kind,
               "builds": builds}, sys.stdout, indent=1)
    sys.stdout.write("\n")


# ---------------------------------------------------------------- hostile

def make_hostile(out):
    write(os.path.join(out, "notalisting", "index.html"),
          "<!DOCTYPE html>\n<html><head><title>Welcome</title></head>\n<body><h1>Our downloads moved</h1>\n"
          "<p>See <a href=\"https://example.org/\">the new site</a> or <a href=\"v6.8/\">v6.8/</a>.</p>\n"
          "</body></html>\n")
    rows = []
    for i in range(100000):
        rows.append('<a href="v6.%d.%d/">v6.%d.%d/</a>%s01-Jan-2024 00:00                   -\n'
                    % (i // 1000, i % 1000, i // 1000, i % 1000, " " * max(1, 50 - len("v6.%d.%d/" % (i // 1000, i % 1000)))))
    write(os.path.join(out, "huge", "index.html"),
          "<html>\n<head><title>Index of /huge/</title></head>\n<body>\n<h1>Index of /huge/</h1><hr><pre>"
          "<a href=\"../\">../</a>\n" + "".join(rows) + "</pre><hr></body>\n</html>\n")
    manifest(out, {"kind": "hostile", "notalisting": "notalisting/", "huge": "huge/", "huge_links": 100000})


def main():
    ap = argparse.ArgumentParser(description="fixture farms for artbisect's tests")
    ap.add_argument("kind", choices=["keys", "mainline", "arch", "koji", "sums", "hostile", "index"])
    ap.add_argument("outdir")
    ap.add_argument("--keys", help="the directory `mkfarms.py keys` made")
    ap.add_argument("--variant", default="plain")
    ap.add_argument("--culprit")
    ap.add_argument("--count", type=int, default=0)
    ap.add_argument("--tiny", action="store_true")
    ap.add_argument("--url", help="index: where the farm is served")
    ap.add_argument("--from", dest="src", metavar="FARM",
                    help="copy the plain farm FARM (made by this script) and plant --variant in the copy")
    a = ap.parse_args()
    if a.kind == "keys":
        os.makedirs(a.outdir, exist_ok=True)
        Keys(a.outdir).make()
        return 0
    if a.kind == "index":
        write_index(a.outdir, a.url)
        return 0
    if os.path.exists(a.outdir) and os.listdir(a.outdir):
        sys.exit("mkfarms.py: %s exists and is not empty" % a.outdir)
    os.makedirs(a.outdir, exist_ok=True)
    keys = Keys(a.keys) if a.keys else None
    if a.kind != "hostile" and not keys and not a.tiny:
        sys.exit("mkfarms.py: %s needs --keys DIR (made by `mkfarms.py keys DIR`)" % a.kind)
    if a.src:
        derive(a.src, a.outdir, keys, a.variant)
    elif a.kind == "mainline" and a.tiny:
        make_mainline_tiny(a.outdir, a.count or 2000, keys)
    elif a.kind == "mainline":
        make_mainline(a.outdir, keys, a.variant, a.culprit or MAINLINE_CULPRIT)
    elif a.kind == "arch":
        make_arch(a.outdir, keys, a.variant, a.culprit or ARCH_CULPRIT)
    elif a.kind == "koji":
        make_koji(a.outdir, keys, a.variant, a.culprit or KOJI_CULPRIT)
    elif a.kind == "sums":
        make_sums(a.outdir, keys, a.variant)
    else:
        make_hostile(a.outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
