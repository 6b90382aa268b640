#!/bin/bash
# Hostile trees (issue 21, round two): removing a scratch root never
# leaves the root's file system (a probe's bind mount of a host
# directory, killed by --timeout before its umount; a mount made into a
# kept root by hand), and says what it left; a tree 30,000 levels deep
# is removed under a 2 MB stack and 64 descriptors; unpacking refuses an
# entry deeper than 512 components and an inode bomb (300,000 empty
# directories, 254 kB of xz) against --max-unpacked and the entry cap,
# while a package of 6,000 files still passes.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

need_cmd tar

"$PYTHON3" - "$T" <<'PY'
import hashlib, io, json, os, sys, tarfile
T = sys.argv[1]
app = lambda ok: ("#!/bin/sh\nexit %d\n" % (0 if ok else 1)).encode()

def add(t, name, data=b"", mode=0o644, type=tarfile.REGTYPE):
    ti = tarfile.TarInfo(name)
    ti.type = type
    ti.mode = mode
    ti.size = len(data) if type == tarfile.REGTYPE else 0
    t.addfile(ti, io.BytesIO(data) if type == tarfile.REGTYPE else None)

def farm(name, middles):
    """A farm b0 (good), the middles, bN (bad); middle i is made by
    middles[i](tarfile) into a tar.COMP."""
    out = os.path.join(T, name)
    os.makedirs(os.path.join(out, "builds"), exist_ok=True)
    makers = [("gz", lambda t: add(t, "usr/bin/app", app(True), 0o755))]
    makers += middles
    makers += [("gz", lambda t: add(t, "usr/bin/app", app(False), 0o755))]
    builds = []
    for i, (comp, make) in enumerate(makers):
        fn = "b%d.tar.%s" % (i, comp)
        path = os.path.join(out, "builds", fn)
        kw = {"preset": 0} if comp == "xz" else {}
        with tarfile.open(path, "w:" + comp, format=tarfile.PAX_FORMAT, **kw) as t:
            make(t)
        data = open(path, "rb").read()
        builds.append({"id": "b%d" % i, "artifacts": [{"url": "builds/" + fn,
                       "sha256": hashlib.sha256(data).hexdigest()}]})
    json.dump({"format": "artbisect-index", "version": 1, "builds": builds},
              open(os.path.join(out, "index.json"), "w"))

# Plain builds for the probe and session runs.
farm("plain", [("gz", lambda t: add(t, "usr/bin/app", app(False), 0o755))])

# 15,000 levels in one entry's name: a few hundred bytes of xz.
def deep(t):
    add(t, "usr/bin/app", app(False), 0o755)
    add(t, "a/" * 15000, type=tarfile.DIRTYPE, mode=0o755)
farm("deep", [("xz", deep)])

# 300,000 empty directories.
def bomb(t):
    add(t, "usr/bin/app", app(False), 0o755)
    for i in range(300000):
        add(t, "d/%d" % i, type=tarfile.DIRTYPE, mode=0o755)
farm("bomb", [("xz", bomb)])

# A kernel's modules package has ~6,000 files: that passes.
def modules(t):
    add(t, "usr/bin/app", app(False), 0o755)
    for i in range(6000):
        add(t, "lib/modules/6.1.0/kernel/drivers/m%d/m%d.ko" % (i % 300, i), b"x" * 200)
farm("modules", [("gz", modules)])
PY
ls -l "$T"/bomb/builds/b1.tar.xz "$T"/deep/builds/b1.tar.xz | awk '{print "# " $5 " " $9}' >&2

reasons() { echo "$OUT" | "$PYTHON3" -c 'import json,sys; print("\n".join(s.get("reason") or "" for s in json.load(sys.stdin)["steps"]))'; }

# --- unpacking: depth, inode bombs, entry cap -----------------------------
run "$ARTBISECT" --index "$T/deep/index.json" --work-dir "$T/w-deep" --cache-dir "$T/cache" \
	--probe ./usr/bin/app --json --no-prefetch
is "$RC" 3 "a 15,000-deep tar: its build is refused (every tested build unavailable: exit 3)"
like "$(reasons)" "b1\\.tar\\.xz: unsafe entry 'a/a/a/.*\\.\\.\\.': more than 512 directories deep" \
	"a 15,000-deep tar: refused with the entry named and the limit"

t0=$(date +%s)
run "$ARTBISECT" --index "$T/bomb/index.json" --work-dir "$T/w-bomb" --cache-dir "$T/cache" \
	--probe ./usr/bin/app --json --no-prefetch --max-unpacked 100M
is "$RC" 3 "an inode bomb with --max-unpacked 100M: its build is refused, exit 3"
like "$(reasons)" "b1\\.tar\\.xz: unpacked size exceeds 104857600 bytes at entry 'd/[0-9]+/' \\(every entry counts 4096 bytes besides its data\\)" \
	"an inode bomb: refused at --max-unpacked, the limit named"
diag "inode bomb refused in $(( $(date +%s) - t0 )) s"

run env ARTBISECT_MAX_ENTRIES=1000 "$ARTBISECT" --index "$T/bomb/index.json" --work-dir "$T/w-bomb2" \
	--cache-dir "$T/cache" --probe ./usr/bin/app --json --no-prefetch
is "$RC" 3 "an inode bomb under ARTBISECT_MAX_ENTRIES=1000: refused, exit 3"
like "$(reasons)" "b1\\.tar\\.xz: more than 1000 entries at entry 'd/999/'" "the entry cap: the limit and the entry named"
run env ARTBISECT_MAX_ENTRIES=lots "$ARTBISECT" --index "$T/bomb/index.json" --work-dir "$T/w-bomb3" \
	--cache-dir "$T/cache" --probe ./usr/bin/app --json --no-prefetch
is "$RC" 2 "a bad ARTBISECT_MAX_ENTRIES: exit 2"
like "$ERR" "^artbisect: ARTBISECT_MAX_ENTRIES must be a number of entries, not 'lots'$" "a bad ARTBISECT_MAX_ENTRIES: said"

run "$ARTBISECT" --index "$T/modules/index.json" --work-dir "$T/w-mod" --cache-dir "$T/cache" \
	--probe ./usr/bin/app --json --no-prefetch
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b1 "a package of 6,000 files passes the default caps"

# --- a tree 30,000 levels deep in a scratch root, removed by reset ---------
# Made with a descriptor per level, never a path (it is 60,000 bytes).
mkdeep() {
	"$PYTHON3" - "$1" "$2" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
for i in range(int(sys.argv[2])):
    os.mkdir("d", dir_fd=fd)
    if i % 1000 == 0:
        open(os.open("f", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w").close()
    nfd = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
    os.close(fd)
    fd = nfd
PY
}
W="$T/w-deep-rm"
run "$ARTBISECT" start --index "$T/plain/index.json" --work-dir "$W" --cache-dir "$T/cache"
is "$RC" 0 "a session waits for a verdict"
root=$(ls -d "$W"/roots/*-b1 2>/dev/null | head -n 1)
mkdeep "$root" 30000
tap_ok $? "a 30,000-deep tree made in the root of the build waiting"
chmod 0555 "$root/d/d/d"
run bash -c 'ulimit -s 2048 && ulimit -n 64 && exec "$@"' - "$ARTBISECT" reset --work-dir "$W"
is "$RC" 0 "reset under a 2 MB stack and 64 descriptors: exit 0"
unlike "$ERR" "Directory not empty|Too many open files" "reset: no error"
tap_ok $([ ! -e "$W/roots" ]; echo $?) "the 30,000-deep tree is gone, and the roots with it"

# --- mounts in scratch roots ------------------------------------------------
HOST="$T/host"
mkdir -p "$HOST/sub"
for i in 1 2 3 4 5; do echo "precious $i" > "$HOST/file$i"; done
echo deeper > "$HOST/sub/file"
host_files() { (cd "$HOST" && find . -type f | sort | xargs cat) 2>/dev/null | md5sum; }
host_before=$(host_files)
mounts_under() { awk -v p="$1" 'index($5, p) == 1' /proc/self/mountinfo | wc -l; }

can_mount=0
if [ "$(id -u)" = 0 ] && mkdir -p "$T/mnt-probe" && mount --bind "$HOST" "$T/mnt-probe" 2>/dev/null; then
	umount "$T/mnt-probe"
	can_mount=1
fi
# Whatever a test mounts under $T goes before $T is removed.
at_exit 'for m in $(awk -v p="$T/" "index(\$5, p) == 1 { print \$5 }" /proc/self/mountinfo | sort -r); do umount -l "$m"; done'

if [ $can_mount = 1 ]; then
	# A probe that bind-mounts the host directory into its root and
	# hangs: --timeout kills it before its umount.
	run "$ARTBISECT" --index "$T/plain/index.json" --work-dir "$T/w-mnt1" --cache-dir "$T/cache" \
		--probe "mkdir -p mnt && mount --bind '$HOST' mnt && sleep 60" \
		--timeout 1 --json --no-prefetch
	is "$RC" 0 "a probe that mounts and hangs: timed out, counted bad, found (exit $RC)"
	is "$(host_files)" "$host_before" "the host directory's files are all there after its root was removed"
	is "$(mounts_under "$T/w-mnt1")" 0 "the probe's mount died with it (a mount namespace of its own)"
	is "$(ls "$T/w-mnt1/roots" 2>/dev/null | wc -l)" 0 "its root is removed whole"

	# A probe that mounts into artbisect's own namespace anyway (root
	# can): the removal leaves the mount point and says so.
	if ! command -v nsenter > /dev/null; then
		skip "nsenter mount: exit" "needs nsenter"
		skip "nsenter mount: host intact" "needs nsenter"
		skip "nsenter mount: said" "needs nsenter"
		skip "nsenter mount, --jobs 2: said" "needs nsenter"
		skip "nsenter mount, --jobs 2: host intact" "needs nsenter"
	else
		run "$ARTBISECT" --index "$T/plain/index.json" --work-dir "$T/w-mnt2" --cache-dir "$T/cache" \
			--probe "mkdir -p mnt && nsenter -t $$ -m mount --bind '$HOST' \"\$ARTBISECT_ROOT/mnt\" && exit 1" \
			--no-prefetch
		is "$RC" 0 "a probe that mounts in artbisect's namespace: found (exit $RC)"
		is "$(host_files)" "$host_before" "the host directory's files are all there"
		like "$ERR" "cannot remove $T/w-mnt2/roots/[0-9]+-b1/mnt: another file system is mounted there" \
			"the run says what it could not remove, and why"
		umount -l "$T"/w-mnt2/roots/*/mnt 2>/dev/null
		# The same with probes in threads (multisection).
		run "$ARTBISECT" --index "$T/plain/index.json" --work-dir "$T/w-mnt2j" --cache-dir "$T/cache" \
			--probe "mkdir -p mnt && nsenter -t $$ -m mount --bind '$HOST' \"\$ARTBISECT_ROOT/mnt\" && exit 1" \
			--no-prefetch --jobs 2
		like "$RC:$(echo "$ERR" | grep 'cannot remove')" "^0:.*cannot remove $T/w-mnt2j/roots/[0-9]+-b1/mnt: another file system is mounted there" \
			"--jobs 2: found, and what it could not remove said"
		is "$(host_files)" "$host_before" "--jobs 2: the host directory's files are all there"
		umount -l "$T"/w-mnt2j/roots/*/mnt 2>/dev/null
	fi

	# A session: the build waiting for a verdict, a mount made into its
	# root by hand, a verdict, then reset.
	W="$T/w-mnt3"
	run "$ARTBISECT" start --index "$T/plain/index.json" --work-dir "$W" --cache-dir "$T/cache" --good b0 --bad b2
	root=$(ls -d "$W"/roots/*-b1 2>/dev/null | head -n 1)
	mkdir -p "$root/mnt" "$root/tmp"
	mount --bind "$HOST" "$root/mnt"
	mount -t tmpfs none "$root/tmp" && echo x > "$root/tmp/in-tmpfs"
	run "$ARTBISECT" bad --work-dir "$W"
	is "$RC" 0 "a verdict on a build with mounts in its root: recorded, found (exit $RC)"
	like "$ERR" "artbisect: cannot remove $root/(mnt|tmp): another file system is mounted there \\(and 1 more place\\)" \
		"the verdict says what it could not remove"
	is "$(host_files)" "$host_before" "the host directory's files are all there"
	is "$(cat "$root/tmp/in-tmpfs" 2>/dev/null)" x "the tmpfs mounted in the root is untouched"
	run "$ARTBISECT" reset --work-dir "$W"
	is "$RC" 3 "reset with a file system mounted in a root: exit 3"
	like "$ERR" "^artbisect: cannot remove $root/(mnt|tmp): another file system is mounted there \\(and 1 more place\\)$" \
		"reset says what it could not remove, in one line"
	is "$(host_files)" "$host_before" "the host directory's files are all there after reset"
	ok "the session is kept for a second reset" test -e "$W/session.json"
	umount "$root/mnt" && umount "$root/tmp"
	run "$ARTBISECT" reset --work-dir "$W"
	is "$RC" 0 "reset after the umount: exit 0"
	tap_ok $([ ! -e "$W/roots" ] && [ ! -e "$W/session.json" ]; echo $?) "the roots and the session are gone"

	# A scratch root that is itself a mount point is left whole.
	W="$T/w-mnt4"
	run "$ARTBISECT" start --index "$T/plain/index.json" --work-dir "$W" --cache-dir "$T/cache"
	root=$(ls -d "$W"/roots/*-b1 2>/dev/null | head -n 1)
	mount --bind "$HOST" "$root"
	run "$ARTBISECT" reset --work-dir "$W"
	like "$RC/$ERR" "^3/artbisect: cannot remove $root: another file system is mounted there$" \
		"a root that is a mount point: reset names it, exit 3"
	is "$(host_files)" "$host_before" "the host directory's files are all there"
	umount "$root"
else
	for d in "probe mount: exit" "probe mount: host intact" "probe mount: gone" "probe mount: root removed" \
		"nsenter mount: exit" "nsenter mount: host intact" "nsenter mount: said" \
		"nsenter mount, --jobs 2: said" "nsenter mount, --jobs 2: host intact" \
		"session mount: verdict" "session mount: said" "session mount: host intact" "session mount: tmpfs" \
		"reset: exit 3" "reset: said" "reset: host intact" "reset: session kept" "reset again" "reset again: gone" \
		"root is a mount: said" "root is a mount: host intact"; do
		skip "$d" "needs root and mount --bind"
	done
fi

plan_done
