#!/bin/bash
# Issue 21, the local dead ends: an id too long for a file name, relative
# paths stored in a session, and `artbisect index` on file names that are
# not UTF-8 or hold control characters. Each case failed on the tree
# before its fix.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

# --- 11: a 300-character id still gets a scratch root ------------------
mkfarm --out "$T/long" --builds 8 --culprit 5
"$PYTHON3" - "$T/long/index.json" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
for i, b in enumerate(d["builds"]):
    b["id"] = "x" * 300 + "%02d" % i
json.dump(d, open(p, "w"))
PY
long5=$(printf 'x%.0s' $(seq 300))05
run "$ARTBISECT" --index "$T/long/index.json" --work-dir "$T/w-long" --cache-dir "$T/c" \
	--probe ./usr/bin/app --json
is "$RC" 0 "a 300-character id: the bisection ends (exit 0)"
is "$(json_get "$T/run.out" first_new.id)" "$long5" "a 300-character id: the right build is found"
unlike "$ERR" 'File name too long' "a 300-character id: no 'File name too long'"
ok "every root's name fits a file name" \
	bash -c "! find '$T/w-long' -mindepth 1 -printf '%f\n' | awk 'length > 255' | grep -q ."

# --- 12: relative paths are stored and printed absolute ----------------
mkfarm --out "$T/rel/farm" --builds 16 --culprit 9
mkdir -p "$T/elsewhere"
run bash -c "cd '$T/rel' && '$ARTBISECT' start --index farm/index.json --work-dir w --cache-dir c"
is "$RC" 0 "start with relative --index, --work-dir and --cache-dir"
like "$OUT" "artbisect good --work-dir $T/rel/w " "the hint names the work directory by its absolute path"
argv=$("$PYTHON3" -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["argv"]))' "$T/rel/w/session.json")
like "$argv" "--cache-dir $T/rel/c( |\$)" "the session stores the cache directory absolute"
unlike "$argv" "--index farm/" "the session does not store the index's relative path"
# The verdict typed in another directory uses the same cache: nothing
# appears there.
run bash -c "cd '$T/elsewhere' && '$ARTBISECT' bad --work-dir '$T/rel/w'"
is "$RC" 0 "a verdict from another directory goes on"
is "$(ls -A "$T/elsewhere")" "" "a verdict from another directory makes no cache there"
ok "the cache of the session is still the one used" test -d "$T/rel/c/sha256"

# --- 10: `artbisect index` on names that are not UTF-8 or hold controls --
mkdir -p "$T/names/d"
"$PYTHON3" - "$T/names/d" <<'PY'
import io, os, sys, tarfile
names = [b"app-1.tar.gz", b"app-2\xff.tar.gz", b"app-3\nx.tar.gz", b"app-4\x1b[31m.tar.gz", b"app-5\xc2\x9b31m.tar.gz"]
for i, name in enumerate(names):
    with tarfile.open(os.path.join(os.fsencode(sys.argv[1]), name), "w:gz") as t:
        data = b"#!/bin/sh\nexit %d\n" % (0 if i < 2 else 1)
        ti = tarfile.TarInfo("app"); ti.size = len(data); ti.mode = 0o755; ti.mtime = 1704067200
        t.addfile(ti, io.BytesIO(data))
PY
run bash -c "cd '$T/names' && '$ARTBISECT' index d > index.json"
is "$RC" 0 "index: file names not UTF-8 or with controls do not crash it"
ok "index: what it wrote is valid JSON" "$PYTHON3" -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/names/index.json"
like "$(cat "$T/names/index.json")" '"app-4%1B\[31m"' "index: an ESC in a name is written %1B in the id"
run "$ARTBISECT" --index "$T/names/index.json" --work-dir "$T/w-names" --cache-dir "$T/c" --probe ./app --json
is "$RC" 0 "index: what it wrote loads and bisects"
is "$(json_get "$T/run.out" first_new.id)" "app-3%0Ax" "index: the control character is written %XX in the id"
like "$(cat "$T/names/index.json")" '"app-5%C2%9B31m"' "index: a C1 control (CSI) is written %XX too"
# The loader refuses C1 controls in ids as it does C0 ones.
"$PYTHON3" - "$T/names/index.json" "$T/names/c1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["builds"][0]["id"] = "app-1\u009b31m"
json.dump(d, open(sys.argv[2], "w"))
PY
run "$ARTBISECT" --index "$T/names/c1.json" --work-dir "$T/w-c1" --cache-dir "$T/c" --probe ./app
is "$RC" 2 "an id with a C1 control is refused (exit 2)"
like "$ERR" 'builds\[0\]\.id: must not contain control characters' "the refusal names the field"

plan_done
