#!/bin/bash
# A yum/dnf repository as the index (--package NAME): repositories made by
# createrepo_c over real RPMs, with gzip, xz and zstd metadata; ordering by
# rpm version comparison; refusals of damaged or hostile metadata.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"
need_cmd rpmbuild createrepo_c

mkfarm --out "$T/repo" --format rpm --builds 24 --culprit 17
rm -f "$T/repo/index.json"
start_server "$T/repo"
ab() { "$ARTBISECT" --index "$BASE/" --package app --probe ./usr/bin/app --json \
	--cache-dir "$T/cache" --work-dir "$T/work" "$@"; }

# (createrepo_c on Debian 12 has no zstd; bz2 is the third kind it writes.)
for z in gz xz bz2; do
	rm -rf "$T/repo/repodata"
	createrepo_c -q --compress-type "$z" "$T/repo"
	run ab
	echo "$OUT" > "$T/r.json"
	is "$RC/$(json_get "$T/r.json" first_new.id)" "0/1.0.17-1" "primary.xml.$z: found 1.0.17-1"
	is "$(json_get "$T/r.json" builds)" 24 "primary.xml.$z: every version is a build"
done

# A zstd primary (what Fedora publishes), made by hand from the gzip one.
rm -rf "$T/repo/repodata"
createrepo_c -q "$T/repo"
"$PYTHON3" - "$T/repo/repodata" <<'PY'
import gzip, hashlib, os, re, subprocess, sys
d = sys.argv[1]
md = open(os.path.join(d, "repomd.xml")).read()
gz = [f for f in os.listdir(d) if f.endswith("-primary.xml.gz")][0]
raw = gzip.decompress(open(os.path.join(d, gz), "rb").read())
zst = subprocess.run(["zstd", "-q", "-c"], input=raw, stdout=subprocess.PIPE, check=True).stdout
name = "primary.xml.zst"
open(os.path.join(d, name), "wb").write(zst)
old_sum = gz.split("-")[0]
md = md.replace("repodata/" + gz, "repodata/" + name).replace(old_sum, hashlib.sha256(zst).hexdigest())
open(os.path.join(d, "repomd.xml"), "w").write(md)
os.unlink(os.path.join(d, gz))
PY
run ab
is "$RC/$(echo "$OUT" | json_get - first_new.id)" "0/1.0.17-1" "primary.xml.zst: found 1.0.17-1"

# Versions, not names: 1.0.9-1 comes before 1.0.10-1.
run ab --good 1.0.9-1 --bad 1.0.10-1
is "$RC/$(echo "$OUT" | json_get - first_new.id)" "0/1.0.10-1" "1.0.9-1 is older than 1.0.10-1"
run ab --good 1.0.10-1 --bad 1.0.9-1
is "$RC" 2 "the reverse order is refused"

# A repository path without a trailing slash, and as a local path.
run "$ARTBISECT" --index "$T/repo" --package app --probe ./usr/bin/app --json \
	--cache-dir "$T/cache" --work-dir "$T/work"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" "0/1.0.17-1" "a local path works too"
# Without --package: the message says it is a repository and what is missing.
run "$ARTBISECT" --index "$T/repo" --probe true --cache-dir "$T/cache" --work-dir "$T/work-nopkg"
is "$RC" 2 "a local repository without --package: exit 2"
like "$ERR" "^artbisect: $T/repo is a yum repository: name the package to bisect with --package NAME$" \
	"it says so, naming the directory and the option"
run "$ARTBISECT" --index "$BASE/" --probe true --cache-dir "$T/cache" --work-dir "$T/work-nopkg"
is "$RC" 2 "a repository URL without --package: exit 2"
like "$ERR" "^artbisect: $BASE/ is a yum repository: name the package to bisect with --package NAME$" \
	"it says so too, not that it is no tree of builds"

# Snapshot releases give commits.
mkfarm --out "$T/snap" --format rpm --builds 8 --culprit 5 --git-release
createrepo_c -q "$T/snap"
run "$ARTBISECT" --index "$T/snap" --package app --probe ./usr/bin/app --json \
	--cache-dir "$T/cache" --work-dir "$T/work"
is "$RC" 0 "snapshot repository: found"
like "$(echo "$OUT" | json_get - first_new.commit)" '^[0-9a-f]{8}$' "commit from git<hex> in the release"

# Refusals, each exit 2 with nothing downloaded.
refused() { # DESC PATTERN ARGS...
	local desc=$1 pat=$2
	shift 2
	reset_log
	run "$@"
	is "$RC" 2 "$desc: exit 2"
	like "$ERR" "$pat" "$desc: says why"
	is "$(count_requests '\.rpm ')" 0 "$desc: no package downloaded"
}
rm -rf "$T/repo/repodata"
createrepo_c -q "$T/repo"
refused "unknown package" "no package 'nosuch'" \
	"$ARTBISECT" --index "$BASE/" --package nosuch --probe true
refused "no repository there" "no yum repository at" \
	"$ARTBISECT" --index "$BASE/builds/" --package app --probe true
primary=$(ls "$T/repo/repodata/"*-primary.xml.gz)
cp "$primary" "$T/primary.orig"
printf 'x' | dd of="$primary" bs=1 seek=100 conv=notrunc status=none
refused "damaged primary" "checksum mismatch" ab
cp "$T/primary.orig" "$primary"

# Hostile repomd: a DOCTYPE with an entity bomb is refused at once.
cp "$T/repo/repodata/repomd.xml" "$T/repomd.orig"
{
	echo '<?xml version="1.0"?>'
	echo '<!DOCTYPE repomd [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>'
	echo '<repomd xmlns="http://linux.duke.edu/metadata/repo"><revision>&d;</revision></repomd>'
} > "$T/repo/repodata/repomd.xml"
refused "DOCTYPE in repomd.xml" "DOCTYPE is not allowed" ab
echo '<repomd><data type="primary"><location href="x"/>' > "$T/repo/repodata/repomd.xml"
refused "malformed repomd.xml" "repomd.xml: not valid XML: line" ab
cp "$T/repomd.orig" "$T/repo/repodata/repomd.xml"

# Package checksums that are not sha256.
rm -rf "$T/repo/repodata"
createrepo_c -q --checksum sha1 "$T/repo"
refused "sha1 package checksums" "app-1\.0\.0-1 has a sha1 checksum" ab

# One version only: nothing to bisect.
mkdir -p "$T/one/builds"
cp "$T/repo/builds/app-1.0.3-1.noarch.rpm" "$T/one/builds/"
createrepo_c -q "$T/one"
run "$ARTBISECT" --index "$T/one" --package app --probe true
is "$RC" 2 "one version: exit 2"
like "$ERR" "only one version of 'app'" "one version: says so"

plan_done
