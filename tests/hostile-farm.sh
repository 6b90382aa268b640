#!/bin/bash
# A farm whose every build also tries to escape its scratch root (made
# here with Python's tarfile and zipfile, GNU tar and truncate; nothing
# is checked in as a blob). Nothing outside the root may change, as root
# and as an unprivileged user; a build that attacks is refused with the
# entry named; no setuid bit or device node reaches any root; bombs stop
# at --max-unpacked.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

need_cmd tar truncate

# A directory the attacks aim at, and a fingerprint of it and of /tmp's
# top level, to compare after every run.
mkdir -p "$T/outside" "$T/victim"
echo original > "$T/victim/file"
chmod 0666 "$T/victim/file"
fingerprint() {
	(cd "$T" && find outside victim -printf '%p %m %s %l\n' | sort; cat victim/file)
	ls -a /tmp | grep -c 'escaped-by-artbisect' || true
}

"$PYTHON3" - "$T" <<'PY'
import hashlib, io, json, os, sys, tarfile, zipfile
T = sys.argv[1]
out = os.path.join(T, "farm")
os.makedirs(os.path.join(out, "builds"), exist_ok=True)
victim = os.path.join(T, "victim", "file")
app = lambda i, ok: ("#!/bin/sh\necho 'app build %d'\nexit %d\n" % (i, 0 if ok else 1)).encode()

def add(t, name, data=b"", mode=0o644, **kw):
    ti = tarfile.TarInfo(name)
    for k, v in kw.items():
        setattr(ti, k, v)
    ti.mode = mode
    if ti.type in (tarfile.REGTYPE, tarfile.AREGTYPE):
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
    else:
        t.addfile(ti)

# Each attack is what one build carries besides its app.
attacks = [
    ("dotdot", lambda t: add(t, "../../escaped-by-artbisect", b"x")),
    ("absolute", lambda t: add(t, "/tmp/escaped-by-artbisect-abs", b"x")),
    ("symlink-then-write", lambda t: (add(t, "link", type=tarfile.SYMTYPE, linkname=os.path.join(T, "outside")),
                                      add(t, "link/escaped", b"x"))),
    ("relative-symlink-then-write", lambda t: (add(t, "rel", type=tarfile.SYMTYPE, linkname="../../../outside"),
                                               add(t, "rel/escaped", b"x"))),
    ("hardlink-outside", lambda t: add(t, "hl", type=tarfile.LNKTYPE, linkname=victim)),
    ("hardlink-dotdot", lambda t: add(t, "hl2", type=tarfile.LNKTYPE, linkname="../../victim/file")),
    ("device", lambda t: add(t, "dev/evil", type=tarfile.CHRTYPE, devmajor=1, devminor=3)),
    ("fifo", lambda t: add(t, "fifo", type=tarfile.FIFOTYPE)),
    ("setuid", lambda t: add(t, "usr/bin/suid", b"#!/bin/sh\n", mode=0o4755)),
    ("setgid-dir", lambda t: add(t, "sgid", type=tarfile.DIRTYPE, mode=0o2777)),
    ("newline-name", lambda t: add(t, "bad\nname", b"x")),
    ("invalid-utf8", lambda t: add(t, b"bad\xffname".decode("utf-8", "surrogateescape"), b"x")),
]
builds = []
n = 24
for i in range(n):
    name = "b%04d.tar.gz" % i
    kind, attack = attacks[i % len(attacks)]
    with tarfile.open(os.path.join(out, "builds", name), "w:gz", format=tarfile.GNU_FORMAT) as t:
        add(t, "usr/bin/app", app(i, i < 15), mode=0o755)
        attack(t)
    data = open(os.path.join(out, "builds", name), "rb").read()
    builds.append({"id": "b%04d" % i, "version": kind,
                   "artifacts": [{"url": "builds/" + name, "sha256": hashlib.sha256(data).hexdigest(),
                                  "size": len(data)}]})
json.dump({"format": "artbisect-index", "version": 1, "name": "hostile farm", "builds": builds},
          open(os.path.join(out, "index.json"), "w"), indent=1)

# Bombs: a zip of 300 MB of zeros, a tar with a 50 GB sparse file.
bombs = os.path.join(T, "bombs")
os.makedirs(os.path.join(bombs, "builds"), exist_ok=True)
with zipfile.ZipFile(os.path.join(bombs, "builds", "zipbomb.zip"), "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("usr/bin/app", app(0, True))
    with z.open("zeros", "w", force_zip64=True) as f:
        block = b"\0" * (1 << 20)
        for _ in range(300):
            f.write(block)
PY
mkdir -p "$T/sparse/usr/bin"
printf '#!/bin/sh\nexit 0\n' > "$T/sparse/usr/bin/app"
chmod 755 "$T/sparse/usr/bin/app"
truncate -s 50G "$T/sparse/hole"
tar -C "$T/sparse" -S -czf "$T/bombs/builds/sparsebomb.tar.gz" usr hole
rm -f "$T/sparse/hole"
"$PYTHON3" - "$T/bombs" <<'PY'
import hashlib, json, os, sys
d = sys.argv[1]
builds = []
for i, name in enumerate(["zipbomb.zip", "sparsebomb.tar.gz", "zipbomb.zip", "sparsebomb.tar.gz"]):
    data = open(os.path.join(d, "builds", name), "rb").read()
    builds.append({"id": "x%d" % i, "artifacts": [{"url": "builds/" + name,
                   "sha256": hashlib.sha256(data).hexdigest()}]})
json.dump({"format": "artbisect-index", "version": 1, "builds": builds}, open(os.path.join(d, "index.json"), "w"))
PY

before=$(fingerprint)
run "$ARTBISECT" --index "$T/farm/index.json" --work-dir "$T/work" --cache-dir "$T/cache" \
	--probe ./usr/bin/app --json --keep-roots --no-prefetch
is "$(fingerprint)" "$before" "as $(id -un): nothing outside the scratch roots changed"
rc_root=$RC
# b0015 breaks the app, but it and the builds around it carry attacks
# that are refused: inconclusive, b0015 among the candidates.
is "$RC/$(echo "$OUT" | json_get - result)" 1/inconclusive "as $(id -un): inconclusive (exit 1), no crash"
like "$(echo "$OUT" | json_get - candidates)" '"b0015"' "the culprit b0015 is among the candidates"
reasons=$(echo "$OUT" | "$PYTHON3" -c 'import json,sys; print("\n".join(s.get("reason","") for s in json.load(sys.stdin)["steps"]))')
like "$reasons" "unsafe entry '\\.\\./\\.\\./escaped-by-artbisect': path leaves the root" "a .. path is refused, named"
like "$reasons" "unsafe entry '/tmp/escaped-by-artbisect-abs': absolute path" "an absolute path is refused, named"
like "$reasons" "unsafe entry 'link/escaped': writes through symlink 'link'" "a write through a symlink is refused, named"
like "$reasons" "unsafe entry 'hl': hard link target '.*victim/file' is absolute" "a hard link out of the root is refused"
like "$reasons" "unsafe entry 'dev/evil': device node" "a device node is refused, named"
is "$(find "$T/work/roots" \( -perm -4000 -o -perm -2000 -o -type c -o -type b \) 2>/dev/null | wc -l)" 0 \
	"no setuid/setgid file and no device node in any root"
is "$( (find "$T" /tmp -maxdepth 4 -name 'escaped-by-artbisect*'; ls -d /escaped-by-artbisect* /root/escaped-by-artbisect*) 2>/dev/null | wc -l)" 0 \
	"no escaped file anywhere"

# The same as an unprivileged user, where that can be done.
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null && id nobody > /dev/null 2>&1; then
	mkdir -p "$T/u"
	chmod 0777 "$T/u"
	chmod 0755 "$T"
	before=$(fingerprint)
	run setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$T/u" \
		"$ARTBISECT" --index "$T/farm/index.json" --work-dir "$T/u/work" --cache-dir "$T/u/cache" \
		--probe ./usr/bin/app --json --no-prefetch
	is "$(fingerprint)" "$before" "as nobody: nothing outside the scratch roots changed"
	is "$RC" "$rc_root" "as nobody: the same exit status as root"
else
	skip "as an unprivileged user" "needs root, setpriv and the nobody user"
	skip "as an unprivileged user: exit status" "needs root, setpriv and the nobody user"
fi

# Bombs stop at --max-unpacked.
run "$ARTBISECT" --index "$T/bombs/index.json" --work-dir "$T/work2" --cache-dir "$T/cache" \
	--probe true --json --max-unpacked 100M --no-prefetch
is "$RC" 3 "a farm of bombs: every build refused, exit 3"
like "$OUT" "unpacked size exceeds 104857600 bytes at entry 'zeros'" "the zip bomb stops at --max-unpacked, entry named"
like "$OUT" "unpacked size exceeds 104857600 bytes at entry 'hole'" "the sparse-file bomb stops at --max-unpacked, entry named"
tap_ok $(( $(du -sm "$T/work2" | cut -f1) < 200 ? 0 : 1 )) "the work directory stayed small ($(du -sm "$T/work2" | cut -f1) MB)"
run "$ARTBISECT" --index "$T/bombs/index.json" --work-dir "$T/work3" --cache-dir "$T/cache" \
	--probe true --json --max-unpacked 1x
like "$RC/$ERR" '^2/.*--max-unpacked: expected a size' "a bad --max-unpacked: exit 2"

# RPMs whose cpio payload attacks, built by rpmbuild so that their
# digests are right and librpm lets them through to the unpacker: a file
# written through a symlink that points out of the root, a device node,
# a setuid file.
if command -v rpmbuild > /dev/null; then
	mkdir -p "$T/rpm/top" "$T/rpmfarm/builds"
	for kind in symlink device setuid; do
		case $kind in
		symlink) install='ln -s /tmp %{buildroot}/usr/share/out'
			files='/usr/share/out' ;;
		device) install=':'
			files='%dev(c,1,3) /usr/share/evil-dev' ;;
		setuid) install='cp %{buildroot}/usr/bin/app %{buildroot}/usr/bin/suid'
			files='%attr(4755,root,root) /usr/bin/suid' ;;
		esac
		{
			printf 'Name: evil-%s\nVersion: 1\nRelease: 1\n' "$kind"
			printf 'Summary: an RPM whose payload attacks\nLicense: MIT\nBuildArch: noarch\n'
			printf '%%description\ntest\n%%install\n'
			printf 'mkdir -p %%{buildroot}/usr/bin %%{buildroot}/usr/share\n'
			printf "printf '#!/bin/sh\\\\nexit 0\\\\n' > %%{buildroot}/usr/bin/app\n"
			printf 'chmod 755 %%{buildroot}/usr/bin/app\n'
			printf '%s\n' "$install"
			printf '%%files\n/usr/bin/app\n%s\n' "$files"
		} > "$T/rpm/$kind.spec"
		rpmbuild -bb --quiet --define "_topdir $T/rpm/top" --define "_build_id_links none" \
			--define "__os_install_post %{nil}" "$T/rpm/$kind.spec" > "$T/rpm/$kind.log" 2>&1 ||
			diag "rpmbuild $kind: $(tail -n 5 "$T/rpm/$kind.log")"
	done
	cp "$T"/rpm/top/RPMS/noarch/*.rpm "$T/rpmfarm/builds/" 2>/dev/null
	"$PYTHON3" - "$T/rpmfarm" <<'PY'
import hashlib, json, os, sys
d = sys.argv[1]
builds = []
for name in ["evil-device-1-1.noarch.rpm", "evil-symlink-1-1.noarch.rpm", "evil-setuid-1-1.noarch.rpm"]:
    path = os.path.join(d, "builds", name)
    if not os.path.exists(path):
        continue
    data = open(path, "rb").read()
    builds.append({"id": name.split("-")[1], "artifacts": [{"url": "builds/" + name,
                   "sha256": hashlib.sha256(data).hexdigest(), "type": "rpm"}]})
json.dump({"format": "artbisect-index", "version": 1, "builds": builds}, open(os.path.join(d, "index.json"), "w"))
PY
	is "$(ls "$T/rpmfarm/builds" | wc -l)" 3 "rpmbuild made the three hostile RPMs"
	before=$(fingerprint)
	reorder() {	# OUT ID... : the index with its builds in this order
		"$PYTHON3" - "$T/rpmfarm/index.json" "$T/rpmfarm/$1" "${@:2}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
by = {b["id"]: b for b in d["builds"]}
d["builds"] = [by[i] for i in sys.argv[3:]]
json.dump(d, open(sys.argv[2], "w"))
PY
	}
	# Three builds, the attacker in the middle: it is the one tested.
	reorder i1.json device symlink setuid
	run "$ARTBISECT" --index "$T/rpmfarm/i1.json" --work-dir "$T/work-rpm1" --cache-dir "$T/cache" \
		--probe true --json --keep-roots --good device --bad setuid
	is "$RC" 0 "an RPM with an absolute symlink: unpacked and judged"
	tap_ok $([ -L "$(ls -d "$T"/work-rpm1/roots/*-symlink)/usr/share/out" ]; echo $?) "the symlink stays a symlink in the root"
	reorder i2.json symlink device setuid
	run "$ARTBISECT" --index "$T/rpmfarm/i2.json" --work-dir "$T/work-rpm2" --cache-dir "$T/cache" \
		--probe true --json --keep-roots --good symlink --bad setuid
	like "$OUT" "unsafe entry '[./]*usr/share/evil-dev': device node" "an RPM carrying a device node is refused, named"
	reorder i3.json symlink setuid device
	run "$ARTBISECT" --index "$T/rpmfarm/i3.json" --work-dir "$T/work-rpm3" --cache-dir "$T/cache" \
		--probe true --json --keep-roots --good symlink --bad device
	is "$RC" 0 "an RPM with a setuid file: unpacked and judged"
	suid="$(ls -d "$T"/work-rpm3/roots/*-setuid)/usr/bin/suid"
	tap_ok $([ -f "$suid" ] && ! [ -u "$suid" ]; echo $?) "the setuid file is there, without its setuid bit"
	is "$(find "$T"/work-rpm* \( -perm -4000 -o -perm -2000 -o -type c -o -type b \) 2>/dev/null | wc -l)" 0 \
		"no setuid file or device node from an RPM in any root"
	is "$(fingerprint)" "$before" "hostile RPMs: nothing outside the roots changed"
else
	for i in 1 2 3 4 5 6 7 8; do skip "hostile RPMs" "rpmbuild is not installed"; done
fi

plan_done
