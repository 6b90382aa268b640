#!/bin/bash
# A Ctrl-C at any moment leaves a session that resumes; nothing already
# downloaded, verified or recorded is lost; nothing is written or
# removed outside the work and cache directories.
#
# A 64-build farm on a throttled server, a probe that sleeps a little,
# --jobs 2 with prefetch (and one scenario with neither). Each scenario
# interrupts a run at a moment told by what can be seen (the lock while
# the index crawls in, the snapshot, a new .part file, a verified cache
# entry, an early or a scratch root, a probe started, a verdict saved,
# the result saved) or after a fixed delay, with SIGINT to artbisect or
# to its whole process group (as a terminal's Ctrl-C, which reaches the
# unpack helper and gpg too), a second SIGINT during the shutdown,
# SIGTERM or SIGHUP; then resumes with 'artbisect run' (or the same
# command, when no session was saved yet), several times, and once more
# to the end. After every run (check_run below):
# - the exit status is 4 for a run the signal stopped (0 for one that
#   had found the culprit first), and stdout holds the one JSON report;
# - session.json is valid JSON; the verdicts saved before are all still
#   there, in order, none twice, every one right; the report counts one
#   probe run per verdict (none for a probe a signal stopped);
# - no verified cache entry is fetched again (server log), a partial
#   download is resumed with a range request, every entry's bytes match
#   its name, and the cache holds nothing but entries and .part files;
# - the work directory holds the session files only (no *.tmp-*, no
#   root), and no process of the run is left (probe, gpg-agent);
# - nothing appeared or changed outside the work and cache directories
#   (the current directory, HOME, TMPDIR, the XDG dirs, the farm, a
#   sentinel tree).
# Only outcomes that hold at every moment are asserted: a signal that
# comes late finds a run that ended, and that is checked as such.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"
. "$TESTS_SRCDIR/farmlib.sh"
need_cmd setsid

mkfarm --out "$T/farm" --builds 64 --culprit 41 --artifact-size 100000
start_server "$T/farm" --rate 400000
# A farm whose builds take a while to unpack (10,000 empty files each):
# m0 works, m1 and m2 do not. Read from a local path.
"$PYTHON3" - "$T/many-src" <<'EOF'
import io, os, sys, tarfile
os.makedirs(sys.argv[1])
for b in range(3):
    with tarfile.open(os.path.join(sys.argv[1], "m%d.tar.gz" % b), "w:gz") as t:
        def add(name, data=None, mode=0o644):
            i = tarfile.TarInfo(name)
            i.mtime = 1704067200
            if name.endswith("/"):
                i.type, i.mode = tarfile.DIRTYPE, 0o755
                t.addfile(i)
            else:
                i.size, i.mode = len(data or b""), mode
                t.addfile(i, io.BytesIO(data or b""))
        for d in ("usr/", "usr/bin/", "usr/share/", "usr/share/many/"):
            add(d)
        add("usr/bin/app", b"#!/bin/sh\nexit %d\n" % (b > 0), 0o755)
        for n in range(10000):
            add("usr/share/many/f%05d" % n)
EOF
mkfarm --from-artifacts "$T/many-src" --out "$T/many"
W="$T/w" C="$T/c" S="$T/state"
mkdir -p "$T/cwd" "$T/home" "$T/tmp" "$T/out" "$S" "$T/sentinel/a/b"
echo keep > "$T/sentinel/a/b/file"
ln -s ../a "$T/sentinel/a/link"

cat > "$T/probe.sh" <<'EOF'
#!/bin/sh
echo "$ARTBISECT_BUILD" >> "$IA_OUT/started"
sleep 0.2
exec ./usr/bin/app
EOF
chmod +x "$T/probe.sh"

cat > "$T/check.py" <<'EOF'
"""check.py snapshot T | run T W C S RC SIGNALLED LOGSTART: prints one
line per broken promise; 'run' then records the state for the next run."""
import hashlib, json, os, re, sys

def listing(top):
    out = {}
    for d, dirs, files in os.walk(top):
        for n in dirs + files:
            p = os.path.join(d, n)
            st = os.lstat(p)
            out[p] = (st.st_mode, st.st_size, 0 if n in dirs else st.st_mtime_ns)
    return out

# Everything outside the work and cache dirs that a run could touch.
OUTSIDE = ["cwd", "home", "tmp", "sentinel", "farm", "many", "many-src", "xdg-state", "xdg-cache",
           "xdg-config"]
OWN = {"w", "c", "state", "out", "check.py", "probe.sh", "arts-farm.json", "arts-many.json",
       "keys", "farms", "farmsrv", "slowgpg", "kernel.probe", "kernel.log",
       "cmd.out", "cmd.err",
       "run.out", "run.err", "server.log", "server.err", "server.port", "faults.json",
       "faults.json.tmp"}

def outside(t):
    snap = {"top": sorted(n for n in os.listdir(t) if n not in OWN)}
    for n in OUTSIDE:
        snap.update({k: list(v) for k, v in listing(os.path.join(t, n)).items()})
    return snap

def load(path, default):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return default

def sha_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    return h.hexdigest()

def run(t, w, c, s, rc, signalled, logstart):
    bad = []
    farm = load(os.path.join(t, "arts-%s.json" % os.environ["FARM"]), {})
    arts, ids, culprit = farm["arts"], farm["ids"], farm["culprit"]
    by_sha = {v: k for k, v in arts.items()}
    sess_path = os.path.join(w, "session.json")
    sess = None
    if os.path.exists(sess_path):
        try:
            sess = load(sess_path, None)
        except ValueError as e:
            bad.append("session.json is not valid JSON: %s" % e)
    steps = [(x["id"], x["verdict"], x["by"]) for x in (sess or {}).get("steps", [])]
    old = [tuple(x) for x in load(os.path.join(s, "steps.json"), [])]
    if steps[:len(old)] != old:
        bad.append("verdicts saved before are gone or changed: %s, now %s" % (old, steps))
    judged = [x[0] for x in steps]
    if len(set(judged)) != len(judged):
        bad.append("a build has two verdicts: %s" % judged)
    for i, v, by in steps:
        want = "good" if ids[i] < ids[culprit] else "bad"
        if (v, by) != (want, "probe"):
            bad.append("wrong verdict %s/%s for %s" % (v, by, i))
    # exit status, report and session agree
    result = (sess or {}).get("result")
    out = open(os.path.join(t, "out", "stdout")).read()
    err = open(os.path.join(t, "out", "stderr")).read()
    if rc == 0:
        if result != "found":
            bad.append("exit 0 but the session says %s" % result)
    elif rc == 4 and signalled:
        if sess is not None and result not in ("aborted",):
            bad.append("exit 4 but the session says %s" % result)
    elif not (signalled and rc == 128 + signalled and not out and not err):
        # (a signal before artbisect has set its handlers kills it,
        # having done nothing yet: nothing to say, nothing changed)
        bad.append("exit status %d (signal sent: %s)" % (rc, signalled or "none"))
    if sess is not None and rc not in (0, 4):
        pass    # said above
    elif sess is not None:
        try:
            rep = json.loads(out)
            if rep.get("result") != ("found" if rc == 0 else "aborted"):
                bad.append("the JSON report says %s after exit %d" % (rep.get("result"), rc))
            if rc == 0 and rep.get("first_new", {}).get("id") != culprit:
                bad.append("wrong culprit %s" % rep.get("first_new"))
            if [(x["id"], x["verdict"]) for x in rep.get("steps", [])] != [x[:2] for x in steps]:
                bad.append("the report's steps are not the session's")
            if rep.get("tested") != sum(1 for x in steps if x[2] == "probe"):
                bad.append("%s probe runs counted for %d verdicts" % (rep.get("tested"), len(steps)))
        except ValueError as e:
            bad.append("stdout is not one JSON object (%s): %r" % (e, out[:200]))
        if rc == 4 and "artbisect run" not in err:
            bad.append("exit 4 does not say how to go on: %r" % err[-300:])
        if not os.path.exists(os.path.join(w, "index.snapshot")):
            bad.append("session.json without index.snapshot")
    else:
        if out.strip():
            bad.append("no session, but stdout has %r" % out[:200])
        if "kept" in err:
            bad.append("no session, but stderr says one is kept: %r" % err[-300:])
        if rc == 4 and not re.fullmatch(r"artbisect: interrupted\nNothing was saved yet; to start again: "
                                        r"cd \S+ && artbisect .*--work-dir \S+ .*", err.strip()):
            bad.append("exit 4 before the session began does not give the command that starts again: %r"
                       % err[-300:])
    # the work directory
    if os.path.isdir(w):
        extra = set(os.listdir(w)) - {"session.json", "index.snapshot", "session.lock", "roots"}
        if extra:
            bad.append("stray files in the work dir: %s" % sorted(extra))
        if os.path.isdir(os.path.join(w, "roots")) and os.listdir(os.path.join(w, "roots")):
            bad.append("roots left: %s" % sorted(os.listdir(os.path.join(w, "roots"))))
    for top in (w, c):
        for p in listing(top) if os.path.isdir(top) else {}:
            if ".tmp-" in os.path.basename(p):
                bad.append("temporary file left: %s" % p)
    # the cache
    entries, parts = set(), {}
    if os.path.isdir(c):
        extra = set(os.listdir(c)) - {"sha256", "tmp", "meta", "unsynced", "pages"}
        if extra:
            bad.append("stray files in the cache: %s" % sorted(extra))
        for n in os.listdir(os.path.join(c, "sha256")):
            if n not in by_sha or sha_of(os.path.join(c, "sha256", n)) != n:
                bad.append("cache entry %s is not whole" % n)
            entries.add(n)
        for n in os.listdir(os.path.join(c, "tmp")):
            sha = n[:-5] if n.endswith(".part") else None
            if sha not in by_sha:
                bad.append("stray file in the cache's tmp: %s" % n)
            elif sha in entries:
                bad.append("a .part beside its verified entry: %s" % n)
            else:
                parts[sha] = os.path.getsize(os.path.join(c, "tmp", n))
    # the server log: what this run asked for
    verified = set(load(os.path.join(s, "verified.json"), []))
    had_part = load(os.path.join(s, "parts.json"), {})
    asked = {}
    with open(os.path.join(t, "server.log")) as f:
        lines = f.read().splitlines()[logstart:]
    for line in lines:
        m, path, status = line.split()[:3]
        rel = path.lstrip("/")
        if m == "GET" and rel in arts:
            asked.setdefault(arts[rel], []).append(status)
    for sha, sts in sorted(asked.items()):
        if sha in verified:
            bad.append("%s was verified already and was fetched again (%s)" % (by_sha[sha], sts))
        elif had_part.get(sha, 0) > 0 and "206" not in sts:
            bad.append("%s: its %d-byte .part was not resumed (%s)" % (by_sha[sha], had_part[sha], sts))
    # outside
    before = load(os.path.join(s, "outside.json"), None)
    now = outside(t)
    if before is not None and now != before:
        diff = sorted(set(now) ^ set(before)) or sorted(k for k in now if now[k] != before[k])
        bad.append("changed outside the work and cache dirs: %s" % diff[:5])
    for line in bad:
        print(line)
    json.dump(steps, open(os.path.join(s, "steps.json"), "w"))
    json.dump(sorted(entries), open(os.path.join(s, "verified.json"), "w"))
    json.dump(parts, open(os.path.join(s, "parts.json"), "w"))

if sys.argv[1] == "snapshot":
    t = sys.argv[2]
    for farm, culprit in (("farm", "b0041"), ("many", "m1")):
        arts, ids = {}, {}
        for i, b in enumerate(json.load(open(os.path.join(t, farm, "index.json")))["builds"]):
            ids[b["id"]] = i
            for a in b["artifacts"]:
                arts[a["url"]] = a["sha256"]
        json.dump({"arts": arts, "ids": ids, "culprit": culprit},
                  open(os.path.join(t, "arts-%s.json" % farm), "w"))
    json.dump(outside(t), open(os.path.join(t, "state", "outside.json"), "w"))
else:
    run(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]),
        int(sys.argv[7]), int(sys.argv[8]))
EOF
"$PYTHON3" "$T/check.py" snapshot "$T" || bail_out "cannot take the snapshot"

# ---- running and interrupting --------------------------------------------

PID="" OPTS=()
# launch ARGS...: artbisect in the background, in a session (and process
# group) of its own so that a Ctrl-C can be sent to its group, from an
# empty directory, with HOME and TMPDIR in the test's scratch; the
# probes inherit IA_MARK, which tells any left behind.
launch() {
	: > "$T/out/started"
	(cd "$T/cwd" && exec env IA_MARK="$T" IA_OUT="$T/out" HOME="$T/home" TMPDIR="$T/tmp" \
		PATH="${LAUNCH_PATH:-$PATH}" setsid "$ARTBISECT" "$@" > "$T/out/stdout" 2> "$T/out/stderr") &
	PID=$!
}
alive() {
	local k v
	{ while read -r k v _; do
		[ "$k" = State: ] && { [ "$v" != Z ]; return; }
	done < "/proc/$PID/status"; } 2>/dev/null
	return 1
}
steps_now() {
	local n
	n=$(grep -c '"verdict"' "$W/session.json" 2>/dev/null)
	echo "${n:-0}"
}
# The moments, as tests on what can be seen (ARG: a number, see each).
at_lock() { [ -e "$W/session.lock" ] && sleep 0.3; }	# then the slow index
at_snapshot() { [ -e "$W/index.snapshot" ]; }
# A download of this run (not a .part an earlier run left) has begun,
# ARG seconds ago. (Bodies reach the .part in 1 MiB writes, or when
# the download stops: these are all still empty.)
at_part() {
	[ -n "$(find "$C/tmp" -name '*.part' -newer "$T/out/stdout" 2>/dev/null | head -n 1)" ] &&
		sleep "${1:-0}"
}
at_entry() { [ "$(ls "$C/sha256" 2>/dev/null | wc -l)" -gt "$ENTRIES0" ]; }
at_early() { ls -d "$W"/roots/*@early* > /dev/null 2>&1; }
at_root() {
	local r
	for r in "$W"/roots/[0-9]*; do
		case $r in *@*) ;; *) [ -d "$r" ] && return 0 ;; esac
	done
	return 1
}
at_probe() { [ "$(wc -l < "$T/out/started")" -ge "${1:-1}" ]; }
at_steps() { [ "$(steps_now)" -ge $((STEPS0 + ${1:-1})) ]; }
at_found() { grep -q '"result": "found"' "$W/session.json" 2>/dev/null; }
at_delay() { sleep "$1"; }

# procs_left: the processes a run started that still live (a probe, a
# gpg-agent), by IA_MARK; a probe killed before artbisect exits may
# take a moment to go.
procs_left() {
	local i=0 left
	while :; do
		left=$(grep -lsz "^IA_MARK=$T\$" /proc/[0-9]*/environ | tr '\n' ' ')
		[ -z "$left" ] || [ $i -ge 50 ] && break
		sleep 0.02
		i=$((i + 1))
	done
	echo "$left"
}

# check_run DESC RC SIGNAL: every promise after one run, as one test
# (SIGNAL: the number of the signal sent, 0 for none).
check_run() {
	local problems left
	left=$(procs_left)
	problems=$("$PYTHON3" "$T/check.py" run "$T" "$W" "$C" "$S" "$2" "$3" "$LOGSTART" 2>&1)
	[ -z "$left" ] || problems="$problems
processes left running: $left"
	problems=$(printf '%s' "$problems" | sed '/^$/d')
	tap_ok $([ -z "$problems" ]; echo $?) "$1: exit $2, every promise holds"
	if [ -n "$problems" ]; then
		diag "$problems" "stderr: $(tail -n 5 "$T/out/stderr")"
	fi
}

# one_run SPEC: a run (the first of the scenario, or a resumption),
# stopped as SPEC says: TARGET:SIGNAL:MOMENT[:ARG], TARGET p (artbisect)
# or g (its process group), SIGNAL INT, TERM, HUP or INT2 (a second
# SIGINT 50 ms after the first, during the shutdown).
one_run() {
	local spec=$1 target sig moment arg rc sent=0 i=0 desc
	IFS=: read -r target sig moment arg <<< "$spec"
	STEPS0=$(steps_now)
	ENTRIES0=$(ls "$C/sha256" 2>/dev/null | wc -l)
	LOGSTART=$(wc -l < "$T/server.log")
	if [ -e "$W/session.json" ]; then
		launch run --work-dir "$W" --json
		desc="run, $spec"
	else
		launch "${OPTS[@]}"
		desc="start, $spec"
	fi
	if [ "$sig" != none ]; then
		while alive && ! "at_$moment" $arg && [ $i -lt 3000 ]; do
			sleep 0.01
			i=$((i + 1))
		done
		if alive; then
			local to=$PID s=${sig%2}
			[ "$target" = g ] && to=-$PID
			kill -"$s" -- "$to" 2>/dev/null && sent=$(kill -l "$s")
			if [ "$sig" = INT2 ]; then
				sleep 0.05
				kill -INT -- "$to" 2>/dev/null
			fi
		fi
	fi
	wait "$PID"
	rc=$?
	[ "$sent" != 0 ] || desc="$desc (ended before the signal)"
	check_run "$SCENARIO: $desc" "$rc" "$sent"
	RC=$rc
}

# scenario NAME 'OPTIONS' SPEC...: a fresh session interrupted once per
# SPEC, then resumed to the end; the end is checked against the index.
# FARM: farm (the served one, culprit b0041) or many (culprit m1).
FARM=farm
export FARM
scenario() {
	local spec index=$BASE/index.json culprit=b0041
	SCENARIO=$1
	[ "$FARM" = many ] && index=$T/many/index.json culprit=m1
	read -r -a OPTS <<< "--index $index --probe $T/probe.sh --json --work-dir $W --cache-dir $C $2"
	shift 2
	rm -rf "$W" "$C"
	rm -f "$S/steps.json" "$S/verified.json" "$S/parts.json"
	for spec in "$@"; do
		one_run "$spec"
	done
	one_run p:none:end
	is "$RC/$(json_get "$T/out/stdout" first_new.id)" "0/$culprit" "$SCENARIO: resumed to the end, the culprit found"
	"$ARTBISECT" status --work-dir "$W" --json > "$T/out/status.json" 2> /dev/null
	"$ARTBISECT" log --work-dir "$W" > "$T/out/log" 2> /dev/null
	is "$(json_get "$T/out/status.json" result)/$(grep -c '^artbisect \(good\|bad\|skip\) ' "$T/out/log")" \
		"found/$(json_get "$T/out/status.json" steps | "$PYTHON3" -c 'import json,sys; print(len(json.load(sys.stdin)))')" \
		"$SCENARIO: status says found, the log has one line per verdict"
}

# While the index downloads (slowly, once), then a first download.
set_faults '{"index.json": ["slow"]}'
scenario "index" "--jobs 2" g:INT:lock p:INT:part:0.1
set_faults '{}'
scenario "snapshot and downloads" "--jobs 2" p:INT:snapshot p:INT:part:0 p:INT:part:0.15 g:INT:entry
scenario "verification and unpacking" "--jobs 2" p:INT:entry g:INT:early p:INT:root p:INT:early
scenario "probes" "--jobs 2" g:INT:probe:1 p:TERM:probe:1 p:HUP:probe:2 g:INT:probe:2
scenario "between steps" "--jobs 2" p:INT:steps:1 g:INT:steps:1 p:HUP:steps:2 p:INT:found
scenario "second Ctrl-C" "--jobs 2" p:INT2:probe:1 g:INT2:part:0.1 p:INT2:steps:1 g:INT2:early
scenario "delays" "--jobs 2" p:INT:delay:0.05 g:INT:delay:0.2 p:INT:delay:0.45 g:TERM:delay:0.8 p:INT:delay:1.2
scenario "more delays" "--jobs 2" g:INT:delay:0.12 p:HUP:delay:0.35 g:INT2:delay:0.6 p:INT:delay:1.0
scenario "both ends checked first" "--jobs 2 --check-bounds" g:INT:probe:1 p:INT:probe:2 g:INT:steps:1
scenario "no prefetch, one job" "--jobs 1 --no-prefetch" p:INT:part:0.1 g:INT:root p:INT:probe:1 g:INT:steps:1
# A Ctrl-C from the terminal reaches the unpack helper too: the run is
# interrupted (exit 4), it has not failed (exit 3).
FARM=many
scenario "long unpacks" "--jobs 1 --no-prefetch" g:INT:root p:INT:root g:INT2:root
scenario "long early unpacks" "--jobs 2" g:INT:early p:INT:early

# ---- a Ctrl-C that reaches gpg -------------------------------------------
# gpg runs in artbisect's process group, so a terminal's Ctrl-C kills it
# too: its failure is then the interruption (exit 4), not a keyring
# without keys (exit 2) nor a build whose signature does not verify
# (recorded unavailable, for good). An Arch farm signed by a key, served
# by nginx or Apache; a gpg made slow (a gpgconf first on PATH names a
# wrapper that waits a second) lets the Ctrl-C land while it runs.
gpg_scenario() {
	local what=$1 i=0 rc
	rm -rf "$W" "$C" "$T/tmp"/*
	: > "$T/slowgpg/log"
	LAUNCH_PATH="$T/slowgpg:$PATH" launch --index "$U" --keyring "$FARM_KEY" --no-prefetch \
		--probe "$T/kernel.probe" --json --work-dir "$W" --cache-dir "$C"
	while alive && ! grep -q "^$what" "$T/slowgpg/log" && [ $i -lt 1000 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	sleep 0.2
	kill -INT -- -"$PID"
	wait "$PID"
	rc=$?
	is "$rc/$(grep -c . "$T/out/stdout" | sed 's/^0$/none/;s/^[1-9].*/json/')/$(sed -n '$p' "$T/out/stderr" | grep -c 'OpenPGP')" \
		"4/$([ "$what" = import ] && echo none || echo json)/0" \
		"Ctrl-C while gpg reads the $what: exit 4, not blamed on the keyring or the build"
	like "$(cat "$T/slowgpg/log")" "^$what" "gpg was killed while it read the $what"
	is "$(procs_left)/$(ls -A "$T/tmp")" "/" "after the Ctrl-C in the $what: no process left, gpg's private home gone"
	if [ -e "$W/session.json" ]; then
		launch run --work-dir "$W" --json
	else
		launch --index "$U" --keyring "$FARM_KEY" --no-prefetch --probe "$T/kernel.probe" --json \
			--work-dir "$W" --cache-dir "$C"
	fi
	wait "$PID"
	rc=$?
	is "$rc/$(json_get "$T/out/stdout" first_new.id)/$(json_get "$W/session.json" steps | grep -c unavailable)" \
		"0/$ARCH_CULPRIT/0" "after the Ctrl-C in the $what: resumed, found, no build recorded unavailable"
}
if [ "$(command -v gpg gpgconf bsdtar zstd curl | wc -l)" != 5 ] || [ -z "$(farm_servers)" ]; then
	for what in import verify; do
		skip "Ctrl-C while gpg reads the $what" "gpg, bsdtar, zstd, curl and nginx or apache2 are needed"
	done
else
	farm_keys
	mkfarms arch "$T/farms/arch" --keys "$T/keys" > /dev/null || bail_out "mkfarms.py arch failed"
	srv=$(farm_servers)
	start_farm_server "${srv%% *}" "$T/farmsrv" "$T/farms" || bail_out "the farm server did not start"
	U="$URL/arch/$(json_get "$T/farms/arch.json" url_path)"
	ARCH_CULPRIT=$(json_get "$T/farms/arch.json" culprit)
	farm_probe kernel 'usr/lib/modules/*/vmlinuz' 'usr/lib/modules/*/vmlinuz' 'usr/lib/modules/*/pkgbase' \
		'!usr/lib/modules/*/build' '!usr/share/doc/linux'
	mkdir -p "$T/slowgpg"
	cat > "$T/slowgpg/gpgconf" <<EOF
#!/bin/sh
[ "\$1" = --list-components ] || exec '$(command -v gpgconf)' "\$@"
'$(command -v gpgconf)' "\$@" | sed 's|^gpg:\([^:]*\):.*|gpg:\1:$T/slowgpg/gpg|'
EOF
	cat > "$T/slowgpg/gpg" <<EOF
#!/bin/sh
case " \$* " in
*" --import "*) echo import >> '$T/slowgpg/log'; sleep 1 ;;
*" --verify "*) echo verify >> '$T/slowgpg/log'; sleep 1 ;;
esac
exec '$(command -v gpg)' "\$@"
EOF
	chmod +x "$T/slowgpg/gpgconf" "$T/slowgpg/gpg"
	gpg_scenario import
	gpg_scenario verify
fi

plan_done
