#!/bin/bash
# Self-check of the test tools: tests/mkfarm.py, tests/httpserver.py and
# tests/lib.sh (TAP). Needs curl; takes about 10 s.
set -u
# shellcheck source=tests/lib.sh
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

need_cmd curl tar git

now() { echo "${EPOCHREALTIME/,/.}"; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
at_least() { awk -v x="$1" -v min="$2" 'BEGIN { exit !(x >= min) }'; }
sha() { sha256sum "$1" | cut -d' ' -f1; }

# Runs a python snippet; argv[1..] are the arguments.
py() {
	local code=$1
	shift
	"$PYTHON3" -c "$code" "$@"
}

# -- mkfarm: the synthetic farm -------------------------------------------

F=$T/farm
t0=$(now)
ok "mkfarm makes a 1000-build tar.gz farm" \
	mkfarm --out "$F" --builds 1000 --culprit 421 --failed 5,7 --missing 10 \
	--corrupt 11 --skip-builds 12-13
secs=$(elapsed "$t0")
diag "1000-build farm made in $secs s"
ok "... in under 5 s ($secs s)" at_least 5 "$secs"

check_index='
import hashlib, json, os, sys
farm = sys.argv[1]
d = json.load(open(os.path.join(farm, "index.json")))
assert d["format"] == "artbisect-index" and d["version"] == 1, "format/version"
b = d["builds"]
assert len(b) == 1000, len(b)
assert b[0]["id"] == "b0000" and b[999]["id"] == "b0999", "ids"
assert len({x["id"] for x in b}) == 1000, "ids unique"
assert b[0]["commit"] == hashlib.sha1(b"commit-0").hexdigest(), "commit"
assert b[3]["version"] == "1.0.3", "version"
dates = [x["date"] for x in b]
assert dates == sorted(dates) and len(set(dates)) == 1000, "dates increase"
assert d["vcs"]["compare_url"].count("{old}") == 1, "compare_url"
for i, x in enumerate(b):
    if i in (5, 7):
        assert x["status"] == "failed" and "artifacts" not in x, x
        continue
    assert x["status"] == "ok", x
    (a,) = x["artifacts"]
    assert a["url"] == "builds/%s.tar.gz" % x["id"] and a["type"] == "tar", a
    p = os.path.join(farm, a["url"])
    if i == 10:
        assert not os.path.exists(p), "missing build has a file"
        continue
    data = open(p, "rb").read()
    assert a["size"] == len(data), "size"
    good = hashlib.sha256(data).hexdigest() == a["sha256"]
    assert good == (i != 11), "sha256 of %s" % x["id"]
    assert len(a["sha256"]) == 64 and a["sha256"] == a["sha256"].lower()
'
ok "index.json is valid: ids, commits, dates, sha256, size, failed/missing/corrupt" \
	py "$check_index" "$F"

# unpack a build and run its app; prints the exit status
app_status() { # FARM ARTIFACT-REL
	local d rc=0
	d=$(mktemp -d "$T/root.XXXXXX")
	case $2 in
	*.tar.zst) zstd -dcq "$1/$2" | tar -C "$d" -xf - ;;
	*.zip) (cd "$d" && "$PYTHON3" -c 'import sys, zipfile, os
z = zipfile.ZipFile(sys.argv[1]); z.extractall()
for i in z.infolist():
    os.chmod(i.filename, (i.external_attr >> 16) & 0o7777)' "$1/$2") ;;
	*.sh) cp "$1/$2" "$d/app.sh" ;;
	*) tar -C "$d" -xf "$1/$2" ;;
	esac
	if [ -e "$d/app.sh" ]; then
		(cd "$d" && sh ./app.sh >/dev/null) || rc=$?
	else
		(cd "$d" && ./usr/bin/app >/dev/null) || rc=$?
	fi
	echo $rc
}

is "$(app_status "$F" builds/b0420.tar.gz)" 0 "build 420 (before the culprit) is good"
is "$(app_status "$F" builds/b0421.tar.gz)" 1 "build 421 (the culprit) is bad"
is "$(app_status "$F" builds/b0999.tar.gz)" 1 "build 999 is bad"
is "$(app_status "$F" builds/b0012.tar.gz)" 125 "--skip-builds: build 12 exits 125"
d=$(mktemp -d "$T/root.XXXXXX")
tar -C "$d" -xzf "$F/builds/b0042.tar.gz"
is "$(cat "$d/usr/share/app/version")" "1.0.42" "the archive holds usr/share/app/version"
like "$(stat -c %a "$d/usr/bin/app")" '^755$' "usr/bin/app has mode 0755"
like "$("$d/usr/bin/app")" '^app 1\.0\.42 ' "the app prints its version"

mkfarm --out "$T/farm2" --builds 1000 --culprit 421 --failed 5,7 --missing 10 \
	--corrupt 11 --skip-builds 12-13
ok "same arguments, same index (deterministic)" cmp "$F/index.json" "$T/farm2/index.json"

mkfarm --out "$T/fix" --builds 10 --fix-at 6
is "$(app_status "$T/fix" builds/b0005.tar.gz)" 1 "--fix-at 6: build 5 is broken"
is "$(app_status "$T/fix" builds/b0006.tar.gz)" 0 "--fix-at 6: build 6 works"
fails "--culprit and --fix-at together are refused" mkfarm --out "$T/x" --builds 3 --culprit 1 --fix-at 2
fails "an out-of-range --failed is refused" mkfarm --out "$T/x" --builds 3 --culprit 1 --failed 3

for fmt in tar.xz tar.zst tar zip file; do
	ext=$fmt
	[ "$fmt" = file ] && ext="sh"
	if [ "$fmt" = tar.zst ] && ! command -v zstd >/dev/null; then
		skip "--format $fmt" "zstd is not installed"
		continue
	fi
	mkfarm --out "$T/f-$fmt" --builds 5 --culprit 2 --format "$fmt"
	got="$(app_status "$T/f-$fmt" "builds/b0001.$ext")$(app_status "$T/f-$fmt" "builds/b0002.$ext")"
	is "$got" "01" "--format $fmt: build 1 good, build 2 bad"
done
is "$(json_get "$T/f-file/index.json" builds.0.artifacts.0.type)" file "--format file: type file"
is "$(json_get "$T/f-zip/index.json" builds.0.artifacts.0.type)" zip "--format zip: type zip"

mkfarm --out "$T/big" --builds 3 --culprit 1 --artifact-size 200000
size=$(stat -c %s "$T/big/builds/b0001.tar.gz")
ok "--artifact-size 200000 gives about 200000 bytes ($size)" \
	awk -v s="$size" 'BEGIN { exit !(s > 190000 && s < 210000) }'

# -- mkfarm --from-git and --from-artifacts -------------------------------

R=$T/repo
git init -q "$R"
for i in 1 2 3 4 5; do
	echo "$i" >"$R/n"
	git -C "$R" add n
	GIT_COMMITTER_DATE="2024-03-0${i}T12:00:00Z" GIT_AUTHOR_DATE="2024-03-0${i}T12:00:00Z" \
		git -C "$R" -c user.name=t -c user.email=t@example.org commit -q -m "commit $i"
done
# shellcheck disable=SC2016
echo 'test "$(cat n)" -lt 4' >"$T/test.sh"
ok "--from-git makes a farm" mkfarm --from-git "$R" --out "$T/gitfarm" --test-script "$T/test.sh"
first=$(git -C "$R" rev-list --reverse HEAD | head -n 1)
is "$(json_get "$T/gitfarm/index.json" builds.0.commit)" "$first" "--from-git: oldest commit first"
is "$(json_get "$T/gitfarm/index.json" builds.0.id)" "${first:0:12}" "--from-git: id is the 12-hex short sha"
is "$(json_get "$T/gitfarm/index.json" builds.2.date)" "2024-03-03T12:00:00Z" "--from-git: date is the committer date"
is "$(tar -xzOf "$T/gitfarm/builds/${first:0:12}.tar.gz" n)" 1 "--from-git: the tarball holds the tree"
ok "--from-git: --test-script copied to test.sh" test -x "$T/gitfarm/test.sh"

A=$T/arts
mkdir -p "$A/b2/usr/bin" "$A/b10/usr/bin"
printf '#!/bin/sh\nexit 0\n' >"$A/b2/usr/bin/app"
printf '#!/bin/sh\nexit 1\n' >"$A/b10/usr/bin/app"
chmod 755 "$A"/*/usr/bin/app
cp "$F/builds/b0001.tar.gz" "$A/b1.tar.gz"
ok "--from-artifacts indexes files and packs directories" \
	mkfarm --from-artifacts "$A" --out "$T/artfarm" --commits
is "$(py 'import json, sys; print(" ".join(b["id"] for b in json.load(open(sys.argv[1]))["builds"]))' \
	"$T/artfarm/index.json")" "b1 b2 b10" "--from-artifacts: natural order, ids without extension"
is "$(app_status "$T/artfarm" builds/b10.tar.gz)" 1 "--from-artifacts: a packed directory unpacks and runs"
ok "--from-artifacts: sha256 matches" test "$(sha "$T/artfarm/builds/b2.tar.gz")" = \
	"$(json_get "$T/artfarm/index.json" builds.1.artifacts.0.sha256)"

# -- the server -------------------------------------------------------------

head -c 30000 /dev/urandom >"$F/blob.bin"
start_server "$F"
like "$PORT" '^[0-9]+$' "start_server sets PORT ($PORT)"
C="curl -s -o $T/body"

$C "$BASE/index.json"
ok "GET index.json gives the file" cmp "$T/body" "$F/index.json"
is "$(count_requests '^GET /index\.json 200 ')" 1 "the log has the request"
is "$(curl -sI "$BASE/builds/b0001.tar.gz" | tr -d '\r' | sed -n 's/^Content-Length: //Ip')" \
	"$(stat -c %s "$F/builds/b0001.tar.gz")" "HEAD gives the Content-Length"
is "$(count_requests '^HEAD /builds/b0001\.tar\.gz 200 0 [0-9]+$')" 1 "HEAD is logged with 0 bytes"
is "$($C -w '%{http_code}' "$BASE/builds/b0010.tar.gz")" 404 "a --missing build is 404"
is "$($C -w '%{http_code}' --path-as-is "$BASE/../../../etc/passwd")" 404 "nothing outside the root"
is "$($C -w '%{http_code}' "$BASE/%2e%2e/%2e%2e/etc/passwd")" 404 "nothing outside the root (encoded)"
is "$($C -w '%{http_code}' "$BASE/builds/")" 404 "a directory is 404"

is "$($C -w '%{http_code}' -H 'Range: bytes=20000-' "$BASE/blob.bin")" 206 "Range: bytes=N- gives 206"
ok "... with the rest of the file" cmp "$T/body" <(tail -c 10000 "$F/blob.bin")
like "$(curl -s -D - -o /dev/null -r 20000- "$BASE/blob.bin" | tr -d '\r')" \
	'Content-Range: bytes 20000-29999/30000' "... and Content-Range"
is "$($C -w '%{http_code}' -r 100-199 "$BASE/blob.bin"; stat -c %s "$T/body")" "206100" "Range N-M"
is "$($C -w '%{http_code}' -r 30000- "$BASE/blob.bin")" 416 "Range beyond the end gives 416"
like "$(curl -sv "$BASE/index.json" "$BASE/index.json" -o /dev/null -o /dev/null 2>&1)" \
	'Re-using existing connection' "keep-alive: the second request reuses the connection"

# -- faults -----------------------------------------------------------------

U=builds/b0001.tar.gz
set_faults '{"builds/b0001.tar.gz": ["404"]}'
is "$($C -w '%{http_code}' "$BASE/$U") $($C -w '%{http_code}' "$BASE/$U")" "404 200" "fault 404, once"
set_faults '{"builds/b0001.tar.gz": ["503", "503", "500"]}'
got=""
for i in 1 2 3 4; do got="$got $($C -w '%{http_code}' "$BASE/$U")"; done
is "$got" " 503 503 500 200" "faults 503, 503, 500, then normal service"
ok "... and then the right bytes" cmp "$T/body" "$F/$U"
set_faults '{"/builds/b0001.tar.gz": ["503", "always:404"]}'
got=""
for i in 1 2 3; do got="$got $($C -w '%{http_code}' "$BASE/$U")"; done
is "$got" " 503 404 404" "always:404 sticks (a leading slash in the key is fine)"

set_faults '{"blob.bin": ["truncate"]}'
rc=0
$C "$BASE/blob.bin" || rc=$?
is "$rc $(stat -c %s "$T/body")" "18 15000" "truncate: curl sees a short body (exit 18, half the bytes)"
is "$(count_requests '^GET /blob\.bin 200 15000 [0-9]+$')" 1 "truncate: logged with the bytes sent"

set_faults '{"blob.bin": ["corrupt"]}'
curl -s -I -o /dev/null "$BASE/blob.bin"
$C "$BASE/blob.bin"
ok "corrupt (after a HEAD, which leaves it for the GET): full length" test "$(stat -c %s "$T/body")" = 30000
isnt "$(sha "$T/body")" "$(sha "$F/blob.bin")" "corrupt: the sha256 differs"
is "$(cmp -l "$T/body" "$F/blob.bin" | wc -l)" 16 "corrupt: 16 bytes differ"

set_faults '{"blob.bin": ["reset"]}'
rc=0
$C "$BASE/blob.bin" || rc=$?
is "$rc" 56 "reset: curl gets a connection reset (exit 56)"
is "$(count_requests '^GET /blob\.bin 000 0 [0-9]+$')" 1 "reset: logged as 000"

set_faults '{"blob.bin": ["html"]}'
is "$(curl -s -o "$T/body" -w '%{http_code} %{content_type}' "$BASE/blob.bin")" \
	"200 text/html; charset=utf-8" "html: 200 with text/html"
like "$(cat "$T/body")" '<html>' "html: an HTML page"

set_faults '{"blob.bin": ["stall"]}'
t0=$(now)
rc=0
curl -s -o "$T/body" -m 2 "$BASE/blob.bin" || rc=$?
secs=$(elapsed "$t0")
is "$rc" 28 "stall: curl -m 2 times out (exit 28)"
ok "... after about 2 s ($secs s)" at_least "$secs" 1.9
ok "... with a little of the body" test "$(stat -c %s "$T/body")" -gt 0

set_faults '{"blob.bin": ["slow"]}'
t0=$(now)
$C "$BASE/blob.bin"
secs=$(elapsed "$t0")
ok "slow: 30000 bytes take over 1.2 s ($secs s)" at_least "$secs" 1.2
ok "slow: the bytes are right" cmp "$T/body" "$F/blob.bin"

set_faults '{"index.json": ["503"]}'
$C -H 'Range: bytes=0-' "$BASE/blob.bin"
ok "faults apply to their path only" cmp "$T/body" "$F/blob.bin"

diag "(the server's complaint about a broken faults file, below, is expected)"
set_faults 'this is not JSON'
is "$($C -w '%{http_code}' "$BASE/index.json")" 503 "a broken faults file keeps the old faults"
set_faults '{}'
is "$($C -w '%{http_code}' "$BASE/index.json")" 200 "a changed faults file is re-read"

is "$(count_requests '^GET /builds/b0001\.tar\.gz ')" 9 "count_requests counts the downloads"
is "$(count_requests 'no such thing')" 0 "count_requests prints 0 when nothing matches"
reset_log
is "$(count_requests .)" 0 "reset_log empties the log"

# A stalled connection must not hold up the shutdown.
set_faults '{"blob.bin": ["stall"]}'
curl -s -o /dev/null -m 20 "$BASE/blob.bin" &
cpid=$!
sleep 0.3
t0=$(now)
$C "$BASE/index.json"
secs=$(elapsed "$t0")
ok "a stalled download does not hold up others ($secs s)" at_least 1 "$secs"
t0=$(now)
pid=$SERVER_PID
stop_server
secs=$(elapsed "$t0")
ok "SIGTERM stops the server at once, even with a stalled client ($secs s)" at_least 2 "$secs"
fails "... and it is gone" kill -0 "$pid"
wait "$cpid" 2>/dev/null || :

# --rate (faults outlive a restart: clear them)
set_faults '{}'
start_server "$F" --rate 100000
t0=$(now)
$C "$BASE/blob.bin"
secs=$(elapsed "$t0")
ok "--rate 100000: 30000 bytes take over 0.2 s ($secs s)" at_least "$secs" 0.2
ok "--rate: the bytes are right" cmp "$T/body" "$F/blob.bin"
stop_server

# -- the demo, with a stand-in for artbisect ---------------------------------
# It takes the options run-demo.sh passes, checks builds 26 and 27 the way
# artbisect would (download, sha256, unpack, probe in the root) and says b0027.
cat >"$T/fake-artbisect" <<'EOF'
#!/usr/bin/env python3
import argparse, hashlib, io, json, os, subprocess, sys, tarfile, urllib.parse, urllib.request
ap = argparse.ArgumentParser()
for o in ("--index", "--probe", "--cache-dir", "--work-dir"):
    ap.add_argument(o, required=True)
a = ap.parse_args()
builds = json.load(urllib.request.urlopen(a.index))["builds"]
verdicts = []
for i in (26, 27):
    art = builds[i]["artifacts"][0]
    data = urllib.request.urlopen(urllib.parse.urljoin(a.index, art["url"])).read()
    assert hashlib.sha256(data).hexdigest() == art["sha256"], "sha256"
    root = os.path.join(a.work_dir, builds[i]["id"])
    os.makedirs(root)
    tarfile.open(fileobj=io.BytesIO(data)).extractall(root)
    env = dict(os.environ, ARTBISECT_ROOT=root, ARTBISECT_BUILD=builds[i]["id"])
    verdicts.append(subprocess.run(["/bin/sh", "-c", a.probe], cwd=root, env=env).returncode)
print("verdicts", verdicts)
sys.exit(0 if verdicts == [0, 1] else 1)
EOF
chmod +x "$T/fake-artbisect"
if command -v "${CC:-cc}" >/dev/null; then
	exit_is 0 "run-demo.sh builds, serves and probes the demo farm" \
		sh "$TESTS_SRCDIR/../data/demo/run-demo.sh" "$T/fake-artbisect" "$T/demo"
	like "$(cat "$T/cmd.out")" 'verdicts \[0, 1\]' "... build 26 is good, 27 is bad"
	is "$(json_get "$T/demo/farm/index.json" builds.39.id)" b0039 "... 40 builds"
	fails "... and its server is gone" \
		curl -s -m 2 -o /dev/null "http://127.0.0.1:$(cat "$T/demo/server.port")/index.json"
else
	skip "run-demo.sh" "no C compiler"
fi

# tests/with-timeout.sh, the harness's time limit for every test.
W="$TESTS_SRCDIR/with-timeout.sh"
printf '#!/bin/bash\necho "ok 1 - quick"\nexit 3\n' > "$T/quick-test"
out=$(bash "$W" bash "$T/quick-test" 2> "$T/wt1.err"); st=$?
is "$st/$(head -n 1 <<<"$out")" "3/ok 1 - quick" "with-timeout: a quick test's output and status pass through"
like "$out" '^# with-timeout: .*quick-test took [0-9]+ s$' "with-timeout: its wall time, as a TAP comment"
cat > "$T/hung-test" <<'EOF'
#!/bin/bash
setsid sleep 300 &
echo $! > "$1"
echo "ok 1 - before the hang"
sleep 300
EOF
start=$SECONDS
out=$(AB_TEST_TIMEOUT=2 bash "$W" bash "$T/hung-test" "$T/hung.pid" 2> "$T/wt2.err"); st=$?
is "$st" 99 "with-timeout: a test past its limit ends with status 99"
like "$out" 'Bail out! .*hung-test did not finish within 2 s' "... and a Bail out! line for the driver"
tap_ok $(( SECONDS - start < 30 ? 0 : 1 )) "... soon after the limit ($((SECONDS - start)) s)"
like "$(cat "$T/wt2.err")" 'sleep 300' "... the log lists what was left running"
sleep 0.5
alive() { [ -n "$1" ] && [ -e "/proc/$1" ] && ! grep -qs "^State:[[:space:]]*Z" "/proc/$1/status"; }	# a zombie is dead
fails "... and what it started in another session is killed too" alive "$(cat "$T/hung.pid")"

plan_done
