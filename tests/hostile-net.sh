#!/bin/bash
# Hostile servers, round two (issue 21): a remote repository that names
# local files, metadata that never ends, a body of unknown size that
# never ends, a drip, a body shorter than its Content-Length from a
# server that cannot resume, and retries as documented (three retries,
# four tries; a cut body that brings new bytes resumes for free).
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"
# Retries wait 0.05 s here instead of 1 s (--retry-delay from the
# environment; tests/bisect-faults.sh checks the default wait).
export ARTBISECT_RETRY_DELAY=0.05

# Eight builds; the bisection tests b0003 first, then b0005 and b0004.
# Artifacts of about 5000 bytes, so that a cut at 1000 is a cut.
mkfarm --out "$T/farm" --builds 8 --culprit 5 --artifact-size 5000
start_server "$T/farm"
A=(--probe ./usr/bin/app --json --no-prefetch --net-timeout 1)
# A hang before a fix must not hang the test.
bounded() { timeout "$1" "${@:2}"; }

# A yum repository served over http, written by hand: repomd.xml points
# to the primary at PRIMARY_HREF; two versions of "app" at PKG_HREF
# (under XML_BASE when given).
mkrepo() { # DIR PRIMARY_HREF PKG_HREF [XML_BASE]
	"$PYTHON3" - "$@" <<'PY'
import gzip, hashlib, os, sys
d, primary_href, pkg_href = sys.argv[1:4]
xml_base = sys.argv[4] if len(sys.argv) > 4 else None
os.makedirs(os.path.join(d, "repodata"), exist_ok=True)
base = ' xml:base="%s"' % xml_base if xml_base else ""
pkgs = "".join(
    '<package type="rpm"><name>app</name><arch>noarch</arch>'
    '<version epoch="0" ver="1.0" rel="%d"/>'
    '<checksum type="sha256" pkgid="YES">%s</checksum>'
    '<size package="1000"/><location%s href="%s"/></package>'
    % (i, "%064x" % i, base, pkg_href) for i in (1, 2))
primary = ('<?xml version="1.0" encoding="UTF-8"?>\n'
           '<metadata xmlns="http://linux.duke.edu/metadata/common" packages="2">%s</metadata>\n'
           % pkgs).encode()
gz = gzip.compress(primary)
open(os.path.join(d, "repodata", "primary.xml.gz"), "wb").write(gz)
open(os.path.join(d, "repodata", "repomd.xml"), "w").write(
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<repomd xmlns="http://linux.duke.edu/metadata/repo"><data type="primary">'
    '<checksum type="sha256">%s</checksum><location href="%s"/></data></repomd>\n'
    % (hashlib.sha256(gz).hexdigest(), primary_href))
PY
}

# -- 4. A remote repository cannot make artbisect read local files ------
passwd_sha=$(sha256sum /etc/passwd | cut -c1-64)
mkrepo "$T/farm/r1" "file:///etc/passwd" "app.rpm"
run bounded 30 "$ARTBISECT" --index "$BASE/r1/" --package app "${A[@]}" \
	--cache-dir "$T/cache" --work-dir "$T/work"
is "$RC" 2 "repomd.xml naming file:///etc/passwd: exit 2"
like "$ERR" "location 'file:///etc/passwd': not an http or https URL" "it names the location and why"
unlike "$ERR" "$passwd_sha" "the local file was never read (no digest of it)"
mkfifo "$T/fifo"
mkrepo "$T/farm/r2" "file://$T/fifo" "app.rpm"
run bounded 20 "$ARTBISECT" --index "$BASE/r2/" --package app "${A[@]}" \
	--cache-dir "$T/cache" --work-dir "$T/work"
is "$RC" 2 "repomd.xml naming a local FIFO: exit 2 at once, no hang"
# A package location, or its xml:base, naming a local file.
mkrepo "$T/farm/r3" "repodata/primary.xml.gz" "passwd" "file:///etc"
run bounded 30 "$ARTBISECT" --index "$BASE/r3/" --package app "${A[@]}" \
	--cache-dir "$T/cache" --work-dir "$T/work"
is "$RC" 2 "a package whose xml:base is file:///etc: exit 2"
like "$ERR" "primary.xml.gz: package app-1.0-1: location 'file:///etc/': not an http or https URL" \
	"it names the package and its location"
# Metadata that never ends, faster than the speed floor: the time cap
# (10 times --net-timeout) ends it.
mkrepo "$T/farm/r4" "repodata/primary.xml.gz" "app.rpm"
set_faults '{"r4/repodata/repomd.xml": "always:endless=4000"}'
t0=$(date +%s)
run bounded 40 "$ARTBISECT" --index "$BASE/r4/" --package app "${A[@]}" \
	--cache-dir "$T/cache" --work-dir "$T/work"
t1=$(date +%s)
is "$RC" 2 "endless repomd.xml at 4 KB/s: exit 2"
like "$ERR" "not whole after 10 s .*the most a metadata read may take" "it says the time cap ran out"
tap_ok $(($t1 - $t0 <= 25 ? 0 : 1)) "within the cap, not at the end of 16 MiB ($(($t1 - $t0)) s)"
set_faults '{}'

# -- 5. A download of unknown size is capped ----------------------------
"$PYTHON3" - "$T/farm/index.json" "$T/farm/nosize.json" <<'PY'
import json, sys
idx = json.load(open(sys.argv[1]))
for b in idx["builds"]:
    if b["id"] == "b0003":
        for a in b["artifacts"]:
            del a["size"]
json.dump(idx, open(sys.argv[2], "w"))
PY
set_faults '{"builds/b0003.tar.gz": "always:endless=8000000"}'
run bounded 60 "$ARTBISECT" --index "$BASE/nosize.json" "${A[@]}" --cache-size 20M \
	--cache-dir "$T/cache5" --work-dir "$T/work5"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0005 "an endless body without a size: the bisection goes on"
has_step "$OUT" id=b0003 by=unavailable "reason=went past 20.0 MiB, the cache cap (--cache-size)"
tap_ok $? "that build is unavailable, and the reason names the cap"
is "$(find "$T/cache5/tmp" -type f | wc -l)" 0 "nothing of it is left in the cache (no .part)"
set_faults '{}'

# -- 5b. A size the index gives is held to the cap too ------------------
# 10^15 bytes, and a body that never ends: before, the cache evicted
# every verified entry to make room and the download filled the disk.
"$PYTHON3" - "$T/farm/index.json" "$T/farm/bigsize.json" <<'PY'
import json, sys
idx = json.load(open(sys.argv[1]))
for b in idx["builds"]:
    if b["id"] == "b0003":
        for a in b["artifacts"]:
            a["size"] = 10**15
json.dump(idx, open(sys.argv[2], "w"))
PY
held=$(find "$T/cache5/sha256" -type f | wc -l)
set_faults '{"builds/b0003.tar.gz": "always:endless=8000000"}'
reset_log
run bounded 60 "$ARTBISECT" --index "$BASE/bigsize.json" "${A[@]}" --cache-size 20M \
	--cache-dir "$T/cache5" --work-dir "$T/work5b"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0005 "a size of 10^15 bytes: the bisection goes on"
has_step "$OUT" id=b0003 by=unavailable \
	"reason=b0003.tar.gz: the index gives 909.5 TiB, more than the cache cap (--cache-size) of 20.0 MiB; not downloaded"
tap_ok $? "that build is unavailable, and the reason names the size and the cap"
is "$(count_requests '^GET /builds/b0003.tar.gz ')" 0 "it was not even asked for"
tap_ok $([ "$held" -gt 0 ] && [ "$(find "$T/cache5/sha256" -type f | wc -l)" -ge "$held" ]; echo $?) \
	"no verified entry was evicted for it ($held before)"
set_faults '{}'

# -- 6. A slow drip ends as a silent server does ------------------------
set_faults '{"builds/b0003.tar.gz": "always:drip"}'
run bounded 40 "$ARTBISECT" --index "$BASE/index.json" "${A[@]}" \
	--cache-dir "$T/cache6" --work-dir "$T/work6"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0005 "2 bytes a second: given up, the bisection goes on"
has_step "$OUT" id=b0003 by=unavailable "reason=b0003.tar.gz: gave up after 4 tries: Operation too slow. Less than 1024 bytes/sec"
tap_ok $? "the reason is the speed floor over the window"
set_faults '{}'

# -- 14. A body shorter than announced, from a server without ranges ----
set_faults '{"builds/b0003.tar.gz": "always:cut=1000"}'
run bounded 40 "$ARTBISECT" --index "$BASE/index.json" "${A[@]}" \
	--cache-dir "$T/cache14" --work-dir "$T/work14"
size3=$(stat -c %s "$T/farm/builds/b0003.tar.gz")
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0005 "cut bodies and no ranges: the bisection goes on"
has_step "$OUT" id=b0003 by=unavailable \
	"reason=the server sent 1000 of the $size3 bytes it announced, then closed; resuming: the server does not support byte ranges"
tap_ok $? "the reason names the cut body, then the refused range"
set_faults '{}'

# -- Retries as documented ----------------------------------------------
# The index: 503, 503, then a cut body: the fourth request (a resume)
# gets it, as curl --retry 3 would.
reset_log
set_faults '{"index.json": ["503", "503", "truncate"]}'
run bounded 40 "$ARTBISECT" --index "$BASE/index.json" "${A[@]}" \
	--cache-dir "$T/cache-r" --work-dir "$T/work-r"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0005 "index behind 503, 503 and a cut body: read"
is "$(count_requests '^GET /index.json ')" 4 "four requests"
# A body cut five times, each time with new bytes: resumed each time,
# no retry used up.
reset_log
set_faults '{"builds/b0003.tar.gz": ["truncate", "truncate", "truncate", "truncate", "truncate"]}'
run bounded 40 "$ARTBISECT" --index "$BASE/index.json" "${A[@]}" \
	--cache-dir "$T/cache-c" --work-dir "$T/work-c"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0005 "a body cut five times: found"
has_step "$OUT" id=b0003 by=probe
tap_ok $? "the build came whole and was tested"
is "$(count_requests '^GET /builds/b0003.tar.gz 206')" 5 "five resumes asked for the rest only"
unlike "$ERR" "b0003.tar.gz: .*retrying" "no retry was used up"
set_faults '{}'

plan_done
