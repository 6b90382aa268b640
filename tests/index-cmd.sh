#!/bin/bash
# artbisect index: writes an index for packages and archives on disk that
# --index accepts unchanged; packages in version order, archives in
# natural name order; clear refusals.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"
need_cmd rpmbuild dpkg-deb

ids() { "$PYTHON3" -c 'import json,sys; print(" ".join(b["id"] for b in json.load(open(sys.argv[1]))["builds"]))' "$1"; }

# Archives: natural order of names, ids without the extension.
mkfarm --out "$T/tars" --builds 12 --culprit 7
mkdir -p "$T/named"
for v in 1.2 1.10 1.9 1.2.1; do cp "$T/tars/builds/b0003.tar.gz" "$T/named/app-$v.tar.gz"; done
run "$ARTBISECT" index --output "$T/named/index.json" "$T/named"
is "$RC" 0 "archives: exit 0"
is "$(ids "$T/named/index.json")" "app-1.2 app-1.2.1 app-1.9 app-1.10" "archives: natural order of names"
is "$(json_get "$T/named/index.json" builds.0.artifacts.0.url)" "app-1.2.tar.gz" "archives: URLs relative to the index"
is "$(json_get "$T/named/index.json" builds.3.artifacts.0.sha256)" \
	"$(sha256sum "$T/named/app-1.10.tar.gz" | cut -d' ' -f1)" "archives: sha256 matches sha256sum"
is "$(json_get "$T/named/index.json" builds.3.artifacts.0.size)" \
	"$(stat -c %s "$T/named/app-1.10.tar.gz")" "archives: size matches"
is "$(ls -a "$T/named" | grep -c tmp)" 0 "no temporary file left next to the output"

# --output through what is there already: a symlink's file gets the
# index and the link stays; a FIFO or a device is written into, never
# replaced by a regular file.
NAMED="app-1.2 app-1.2.1 app-1.9 app-1.10"
mkdir -p "$T/out"
echo old > "$T/out/target.json"
ln -s target.json "$T/out/link.json"
run "$ARTBISECT" index --output "$T/out/link.json" "$T/named"
is "$RC" 0 "--output a symlink: exit 0"
ok "--output a symlink: it stays a symlink" test -L "$T/out/link.json"
is "$(ids "$T/out/target.json")" "$NAMED" "--output a symlink: the file it leads to gets the index"
ln -s new.json "$T/out/dangling.json"
run "$ARTBISECT" index --output "$T/out/dangling.json" "$T/named"
is "$RC/$(ids "$T/out/new.json" 2>/dev/null)" "0/$NAMED" "--output a symlink to no file yet: that file is made"
ok "--output a symlink to no file yet: it stays a symlink" test -L "$T/out/dangling.json"
mkfifo "$T/out/fifo"
timeout 20 cat "$T/out/fifo" > "$T/out/fifo.got" &
cat_pid=$!
run timeout 20 "$ARTBISECT" index --output "$T/out/fifo" "$T/named"
wait "$cat_pid"
is "$RC" 0 "--output a FIFO: exit 0"
ok "--output a FIFO: it stays a FIFO" test -p "$T/out/fifo"
is "$(ids "$T/out/fifo.got" 2>/dev/null)" "$NAMED" "--output a FIFO: its reader gets the index"
run "$ARTBISECT" index --output /dev/full "$T/named"
is "$RC" 3 "--output /dev/full: exit 3"
like "$ERR" '^artbisect: cannot write /dev/full: No space left on device$' "--output /dev/full: one line naming the path and why"
ok "--output /dev/full: still a character device" test -c /dev/full

# The synthetic tar farm, re-indexed, bisects to its culprit over HTTP.
run "$ARTBISECT" index --name "re-indexed" --output "$T/tars/index.json" "$T/tars/builds"
is "$RC" 0 "tar farm: indexed"
is "$(json_get "$T/tars/index.json" name)" "re-indexed" "--name is the index's name"
start_server "$T/tars"
run "$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app --json \
	--cache-dir "$T/cache" --work-dir "$T/work"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0007 "tar farm: the written index bisects to b0007"

# --base-url and standard output.
(cd "$T/tars" && "$ARTBISECT" index --base-url https://farm.example.org/app builds) > "$T/stdout.json"
tap_ok $? "standard output: exit 0"
is "$(json_get "$T/stdout.json" builds.0.artifacts.0.url)" \
	"https://farm.example.org/app/b0000.tar.gz" "--base-url: URL and the path under PATH"
# The index elsewhere than the artifacts: URL stands for PATH, whatever
# the output's directory (no "../" after URL).
mkdir -p "$T/srv/www" "$T/srv/builds/sub"
cp "$T/tars/builds/b0000.tar.gz" "$T/tars/builds/b0001.tar.gz" "$T/srv/builds/"
cp "$T/tars/builds/b0002.tar.gz" "$T/srv/builds/sub/"
(cd "$T" && "$ARTBISECT" index --base-url https://cdn.example.org/builds/ --output srv/www/index.json srv/builds)
tap_ok $? "--base-url with --output in another directory: exit 0"
is "$("$PYTHON3" -c 'import json,sys; print(" ".join(a["url"] for b in json.load(open(sys.argv[1]))["builds"] for a in b["artifacts"]))' "$T/srv/www/index.json")" \
	"https://cdn.example.org/builds/b0000.tar.gz https://cdn.example.org/builds/b0001.tar.gz https://cdn.example.org/builds/sub/b0002.tar.gz" \
	"--base-url with --output elsewhere: URL and the path under PATH, no .."
(cd "$T" && "$ARTBISECT" index --base-url https://cdn.example.org/x srv/builds/b0001.tar.gz srv/builds/sub) > "$T/two-paths.json"
is "$(json_get "$T/two-paths.json" builds.0.artifacts.0.url) $(json_get "$T/two-paths.json" builds.1.artifacts.0.url)" \
	"https://cdn.example.org/x/b0001.tar.gz https://cdn.example.org/x/sub/b0002.tar.gz" \
	"--base-url with a file and a directory: the path under the directory that holds both"

# Names that need percent-encoding.
mkdir -p "$T/odd"
cp "$T/tars/builds/b0001.tar.gz" "$T/odd/app 1#a.tar.gz"
cp "$T/tars/builds/b0002.tar.gz" "$T/odd/app 2%b.tar.gz"
run "$ARTBISECT" index --output "$T/odd/index.json" "$T/odd"
is "$(json_get "$T/odd/index.json" builds.0.artifacts.0.url)" "app%201%23a.tar.gz" "URL segments are percent-encoded"
run "$ARTBISECT" --index "$T/odd/index.json" --probe ./usr/bin/app --json \
	--cache-dir "$T/cache" --work-dir "$T/work"
is "$RC" 0 "the encoded URLs resolve to the files"
# A colon (Arch's epochs) in the first segment of a relative URL would
# read as a scheme.
mkdir -p "$T/epoch"
cp "$T/tars/builds/b0001.tar.gz" "$T/epoch/app-1:1.0.tar.gz"
cp "$T/tars/builds/b0002.tar.gz" "$T/epoch/app-1:1.1.tar.gz"
run "$ARTBISECT" index --output "$T/epoch/index.json" "$T/epoch"
is "$(json_get "$T/epoch/index.json" builds.0.artifacts.0.url)" "app-1%3A1.0.tar.gz" "a colon in a name is percent-encoded"
run "$ARTBISECT" --index "$T/epoch/" --probe ./usr/bin/app --json --cache-dir "$T/cache" --work-dir "$T/work-epoch"
is "$RC/$(echo "$OUT" | json_get - builds)" 0/2 "a directory of files with colons in their names is read and bisected"

# RPMs: version order (1.0.9 before 1.0.10), commits from the VCS tag.
mkfarm --out "$T/rpms" --format rpm --builds 24 --culprit 17
run "$ARTBISECT" index --output "$T/rpms/index.json" "$T/rpms/builds"
is "$RC" 0 "rpm farm: indexed"
is "$(ids "$T/rpms/index.json" | cut -d' ' -f9-12)" "1.0.8-1 1.0.9-1 1.0.10-1 1.0.11-1" \
	"rpm farm: ordered by version, not by name"
is "$(json_get "$T/rpms/index.json" builds.17.commit)" \
	"$(rpm -qp --qf '%{VCS}' "$T/rpms/builds/app-1.0.17-1.noarch.rpm" | sed 's/.*#//')" \
	"rpm farm: commit from the VCS tag"
is "$(json_get "$T/rpms/index.json" project)" app "rpm farm: project is the package name"
start_server "$T/rpms"
run "$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app --json \
	--cache-dir "$T/cache" --work-dir "$T/work"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/1.0.17-1 "rpm farm: bisects to 1.0.17-1"

# Snapshot releases: the commit comes from git<hex> in the release.
mkfarm --out "$T/snap" --format rpm --builds 4 --culprit 2 --git-release
run "$ARTBISECT" index "$T/snap/builds"
echo "$OUT" > "$T/snap.json"
like "$(json_get "$T/snap.json" builds.2.id)" '^1\.0\.2-1\.20240101git[0-9a-f]{8}$' "snapshot release in the id"

# .debs: Debian version order.
mkfarm --out "$T/debs" --format deb --builds 16 --culprit 5 --git-release
run "$ARTBISECT" index --output "$T/debs/index.json" "$T/debs/builds"
is "$RC" 0 "deb farm: indexed"
is "$(ids "$T/debs/index.json" | cut -d' ' -f10-11)" \
	"$(cd "$T/debs/builds" && ls | sed 's/^app_//; s/_all\.deb$//' | sort -V | sed -n '10p;11p' | tr '\n' ' ' | sed 's/ $//')" \
	"deb farm: ordered by Debian version"
like "$(json_get "$T/debs/index.json" builds.3.commit)" '^[0-9a-f]{8}$' "deb farm: commit from the version"
start_server "$T/debs"
run "$ARTBISECT" --index "$BASE/index.json" --probe ./usr/bin/app --json \
	--cache-dir "$T/cache" --work-dir "$T/work"
is "$RC/$(echo "$OUT" | json_get - first_new.index)" 0/5 "deb farm: bisects to its culprit"

# Several packages of one version make one build.
mkfarm --out "$T/multi" --format rpm --builds 3 --culprit 1 --package-name app-extra
cp "$T/rpms/builds/app-1.0.0-1.noarch.rpm" "$T/rpms/builds/app-1.0.1-1.noarch.rpm" "$T/multi/builds/"
run "$ARTBISECT" index "$T/multi/builds"
echo "$OUT" > "$T/multi.json"
is "$(ids "$T/multi.json")" "1.0.0-1 1.0.1-1 1.0.2-1" "two packages per version: one build each version"
is "$(json_get "$T/multi.json" builds.0.artifacts.1.name)" app-extra "the build lists both packages"

# Refusals: exit 2 and the reason.
exit_is 2 "no PATH: exit 2" "$ARTBISECT" index
exit_is 2 "missing path: exit 2" "$ARTBISECT" index "$T/nope"
mkdir -p "$T/empty"
run "$ARTBISECT" index "$T/empty"
is "$RC" 2 "empty directory: exit 2"
like "$ERR" "no packages or archives found under $T/empty" "empty directory: says so"
mkdir -p "$T/garbage"
echo "not an rpm" > "$T/garbage/x-1.0-1.noarch.rpm"
run "$ARTBISECT" index "$T/garbage"
is "$RC" 2 "garbage .rpm: exit 2"
like "$ERR" "x-1\.0-1\.noarch\.rpm: not an RPM package" "garbage .rpm: names the file"
mkdir -p "$T/dup"
cp "$T/tars/builds/b0001.tar.gz" "$T/dup/app-1.tar.gz"
cp "$T/tars/builds/b0002.tar.gz" "$T/dup/app-1.tgz"
run "$ARTBISECT" index "$T/dup"
is "$RC" 2 "two archives with one stem: exit 2"
like "$ERR" "build 'app-1'" "two archives with one stem: names the id"
mkdir -p "$T/mixed"
cp "$T/tars/builds/b0001.tar.gz" "$T/rpms/builds/app-1.0.0-1.noarch.rpm" "$T/mixed/"
run "$ARTBISECT" index "$T/mixed"
is "$RC" 2 "packages mixed with archives: exit 2"
exit_is 2 "--base-url that is no URL: exit 2" "$ARTBISECT" index --base-url /srv "$T/named"
run "$ARTBISECT" index --output /nonexistent-dir/index.json "$T/named"
is "$RC" 2 "output in a missing directory: exit 2"
ok "index --help" "$ARTBISECT" index --help
# The usage line's "(see artbisect index --help URL)", typed as it is.
run "$ARTBISECT" index --help URL
like "$RC/$OUT" '^0/Usage: artbisect index \[--output FILE\] \[farm options\] URL' \
	"index --help URL: the farm's help, as the usage line says"
is "$("$ARTBISECT" index --help | grep -c -- --allow-unverified)/$(grep -c -- --allow-unverified "$T/run.out")" "0/1" \
	"the farm options: in index --help URL, not in index --help alone"

# Options may come before the subcommand, as for the others.
run "$ARTBISECT" --output "$T/before.json" --name before index "$T/named"
is "$RC" 0 "options before 'index': exit 0"
is "$(ids "$T/before.json")/$(json_get "$T/before.json" name)" "app-1.2 app-1.2.1 app-1.9 app-1.10/before" \
	"options before 'index': the index asked for"
run "$ARTBISECT" --base-url /srv index "$T/named"
like "$RC/$ERR" '^2/.*--base-url: expected an http' "options before 'index': checked as after it"

# Packages of two projects in one folder (what a download folder holds)
# are not interleaved by version: the names are given, --package picks.
mkfarm --out "$T/tz" --format deb --builds 6 --culprit 3 --package-name tzdata
mkfarm --out "$T/ssl" --format deb --builds 12 --culprit 9 --package-name openssl
mkdir -p "$T/two-projects"
# (Versions of their own, as two projects have: openssl 1.0.6 on.)
cp "$T/tz/builds/"*.deb "$T/ssl/builds/"*_1.0.{6,7,8,9,10,11}-1_*.deb "$T/two-projects/"
run "$ARTBISECT" index "$T/two-projects"
is "$RC" 2 "packages of two projects: exit 2"
like "$ERR" 'the packages are of 2 projects \((openssl; tzdata|tzdata; openssl)\): name the one to index with --package NAME' \
	"packages of two projects: both are named, and --package"
run "$ARTBISECT" index --package tzdata --output "$T/two-projects/index.json" "$T/two-projects"
is "$RC" 0 "--package tzdata: exit 0"
is "$("$PYTHON3" -c 'import json,sys; print(sorted({a["name"] for b in json.load(open(sys.argv[1]))["builds"] for a in b["artifacts"]}))' "$T/two-projects/index.json")" \
	"['tzdata']" "--package tzdata: only tzdata's packages"
run "$ARTBISECT" --index "$T/two-projects/index.json" --probe ./usr/bin/app --json \
	--work-dir "$T/w-tz" --cache-dir "$T/c-tz"
is "$RC/$(json_get "$T/run.out" first_new.id)" 0/1.0.3-1 "--package tzdata: the index bisects tzdata"
# Forty projects: the message names a few and keeps its remedy (a
# message is one line of at most 1 KiB, and the whole list is longer).
mkdir -p "$T/forty" "$T/forty-src"
for i in $(seq -w 1 40); do
	d="$T/forty-src/p$i"
	mkdir -p "$d/DEBIAN"
	printf 'Package: project-with-a-long-name-%s\nVersion: 1.%s-1\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: t\n' \
		"$i" "$i" > "$d/DEBIAN/control"
	dpkg-deb --root-owner-group -Zgzip --build "$d" "$T/forty/p$i.deb" >/dev/null 2>&1
done
run "$ARTBISECT" index "$T/forty"
is "$RC" 2 "packages of forty projects: exit 2"
like "$ERR" '^artbisect: the packages are of 40 projects \(project-with-a-long-name-01; .*; and 32 more\): name the one to index with --package NAME$' \
	"packages of forty projects: a few names, how many more, and the remedy at the end"
run "$ARTBISECT" index --package nosuch "$T/two-projects"
is "$RC" 2 "--package naming no package here: exit 2"
# A directory as --index is a farm: what `artbisect index DIR` writes,
# read in memory; --package picks among projects as it does there.
run "$ARTBISECT" --index "$T/tars/builds" --probe ./usr/bin/app --json \
	--work-dir "$T/w-dir" --cache-dir "$T/c-dir"
is "$RC" 0 "a directory of archives as --index: found"
like "$(json_get "$T/run.out" first_new.id)" '^b[0-9]+$' "a directory as --index: the ids are the archives' names"
like "$ERR" "^Bisecting $T/tars/builds: " "a directory as --index is named by its path (it holds no index.json)"
run "$ARTBISECT" --index "$T/two-projects" --probe ./usr/bin/app --work-dir "$T/w-dir2" --cache-dir "$T/c-dir"
is "$RC" 2 "a directory of two projects as --index: exit 2"
like "$ERR" 'name the one to index with --package NAME' "a directory of two projects: says to name one"
run "$ARTBISECT" --index "$T/two-projects" --package tzdata --probe ./usr/bin/app --json \
	--work-dir "$T/w-dir3" --cache-dir "$T/c-dir"
is "$RC/$(json_get "$T/run.out" first_new.id)" 0/1.0.3-1 "a directory with --package tzdata: bisects tzdata"
like "$ERR" "$T/two-projects holds an index.json; reading the builds in the directory instead \\(--index $T/two-projects/index.json reads that index\\)" \
	"a directory with an index.json in it: said, with the --index that reads it"
mkdir -p "$T/nothing"
run "$ARTBISECT" --index "$T/nothing" --probe ./usr/bin/app --work-dir "$T/w-dir4"
is "$RC" 2 "an empty directory as --index: exit 2"
like "$ERR" "no packages or archives found under $T/nothing" "an empty directory: says what was expected"
: > "$T/empty.json"
run "$ARTBISECT" --index "$T/empty.json" --probe ./usr/bin/app --work-dir "$T/w-dir5"
like "$ERR" 'the document is empty; expected an artifact index' "an empty file: says what was expected"

# Subpackages of one project share versions: one build each, as before.
mkfarm --out "$T/kcore" --format deb --builds 4 --culprit 2 --package-name kernel-core
mkfarm --out "$T/kmod" --format deb --builds 4 --culprit 2 --package-name kernel-modules
mkdir -p "$T/one-project"
cp "$T/kcore/builds/"*.deb "$T/kmod/builds/"*.deb "$T/one-project/"
run "$ARTBISECT" index "$T/one-project"
is "$RC" 0 "subpackages that share versions: one project"
is "$(echo "$OUT" | "$PYTHON3" -c 'import json,sys; d=json.load(sys.stdin); print(len(d["builds"]), len(d["builds"][0]["artifacts"]))')" \
	"4 2" "subpackages: one build per version, with both packages"

plan_done
