#!/bin/bash
# Every invalid index of contract section 1 is refused with exit 2, one
# line naming the place, and nothing downloaded.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

mkdir -p "$T/srv"
start_server "$T/srv"
sha=$(printf 'x' | sha256sum | cut -d' ' -f1)
art="{\"url\": \"a.tar.gz\", \"sha256\": \"$sha\"}"
ok_build="{\"id\": \"a\", \"artifacts\": [$art]}"

# name | document | expected part of the message
cases=(
"not JSON|{\"format\": |index.json: "
"an array|[]|index.json: "
"no format|{\"version\": 1, \"builds\": [$ok_build]}|format"
"wrong format|{\"format\": \"other\", \"version\": 1, \"builds\": [$ok_build]}|format"
"no version|{\"format\": \"artbisect-index\", \"builds\": [$ok_build]}|version"
"version 2|{\"format\": \"artbisect-index\", \"version\": 2, \"builds\": [$ok_build]}|version 2"
"version a string|{\"format\": \"artbisect-index\", \"version\": \"1\", \"builds\": [$ok_build]}|version"
"no builds|{\"format\": \"artbisect-index\", \"version\": 1}|builds"
"builds not an array|{\"format\": \"artbisect-index\", \"version\": 1, \"builds\": {}}|builds"
"empty builds|{\"format\": \"artbisect-index\", \"version\": 1, \"builds\": []}|builds"
"no id|{\"format\": \"artbisect-index\", \"version\": 1, \"builds\": [{\"artifacts\": [$art]}]}|builds[0].id"
"empty id|{\"format\": \"artbisect-index\", \"version\": 1, \"builds\": [{\"id\": \"\", \"artifacts\": [$art]}]}|builds[0].id"
"duplicate id|{\"format\": \"artbisect-index\", \"version\": 1, \"builds\": [$ok_build, $ok_build]}|builds[1].id"
"bad status|{\"format\": \"artbisect-index\", \"version\": 1, \"builds\": [{\"id\": \"a\", \"status\": \"meh\", \"artifacts\": [$art]}]}|builds[0].status"
"no artifacts|{\"format\": \"artbisect-index\", \"version\": 1, \"builds\": [{\"id\": \"a\"}]}|builds[0].artifacts"
"empty artifacts|{\"format\": \"artbisect-index\", \"version\": 1, \"builds\": [{\"id\": \"a\", \"artifacts\": []}]}|builds[0].artifacts"
"no url|{\"format\": \"artbisect-index\", \"version\": 1, \"builds\": [{\"id\": \"a\", \"artifacts\": [{\"sha256\": \"$sha\"}]}]}|builds[0].artifacts[0].url"
"no sha256|{\"format\": \"artbisect-index\", \"version\": 1, \"builds\": [{\"id\": \"a\", \"artifacts\": [{\"url\": \"a.tar.gz\"}]}]}|builds[0].artifacts[0].sha256"
"short sha256|{\"format\": \"artbisect-index\", \"version\": 1, \"builds\": [{\"id\": \"a\", \"artifacts\": [{\"url\": \"a.tar.gz\", \"sha256\": \"abc\"}]}]}|builds[0].artifacts[0].sha256: expected 64 hex digits"
"bad type|{\"format\": \"artbisect-index\", \"version\": 1, \"builds\": [{\"id\": \"a\", \"artifacts\": [{\"url\": \"a.bin\", \"type\": \"exe\", \"sha256\": \"$sha\"}]}]}|builds[0].artifacts[0].type"
"unguessable type|{\"format\": \"artbisect-index\", \"version\": 1, \"builds\": [{\"id\": \"a\", \"artifacts\": [{\"url\": \"a.bin\", \"sha256\": \"$sha\"}]}]}|builds[0].artifacts[0]"
"negative size|{\"format\": \"artbisect-index\", \"version\": 1, \"builds\": [{\"id\": \"a\", \"artifacts\": [{\"url\": \"a.tar\", \"size\": -1, \"sha256\": \"$sha\"}]}]}|builds[0].artifacts[0].size"
"ftp url|{\"format\": \"artbisect-index\", \"version\": 1, \"builds\": [{\"id\": \"a\", \"artifacts\": [{\"url\": \"ftp://h/a.tar\", \"sha256\": \"$sha\"}]}]}|builds[0].artifacts[0].url"
"file url in http index|{\"format\": \"artbisect-index\", \"version\": 1, \"builds\": [{\"id\": \"a\", \"artifacts\": [{\"url\": \"file:///etc/passwd\", \"type\": \"file\", \"sha256\": \"$sha\"}]}]}|builds[0].artifacts[0].url"
"commit not a string|{\"format\": \"artbisect-index\", \"version\": 1, \"builds\": [{\"id\": \"a\", \"commit\": 5, \"artifacts\": [$art]}]}|builds[0].commit"
"deep nesting|{\"format\": \"artbisect-index\", \"version\": 1, \"builds\": $(printf '[%.0s' $(seq 5000))|index.json: "
"NUL in an id|{\"format\": \"artbisect-index\", \"version\": 1, \"builds\": [{\"id\": \"a\\u0000b\", \"artifacts\": [$art]}]}|u0000 is not allowed"
"huge id|{\"format\": \"artbisect-index\", \"version\": 1, \"builds\": [{\"id\": \"$(head -c 70000 /dev/zero | tr '\000' a)\", \"artifacts\": [$art]}]}|builds[0].id: longer than 65536 bytes"
"position a string|{\"format\": \"artbisect-index\", \"version\": 1, \"builds\": [{\"id\": \"a\", \"position\": \"7\", \"artifacts\": [$art]}]}|builds[0].position"
"vcs not an object|{\"format\": \"artbisect-index\", \"version\": 1, \"vcs\": \"git\", \"builds\": [$ok_build]}|vcs"
)
for c in "${cases[@]}"; do
	name=${c%%|*}; rest=${c#*|}; doc=${rest%|*}; want=${rest##*|}
	printf '%s' "$doc" > "$T/srv/index.json"
	reset_log
	run "$ARTBISECT" --index "$BASE/index.json" --probe true --cache-dir "$T/cache" --work-dir "$T/work"
	is "$RC" 2 "$name: exit 2"
	is "$(printf '%s\n' "$ERR" | wc -l)" 1 "$name: one line"
	like "$ERR" "^artbisect: .*$(printf '%s' "$want" | sed 's/[].[]/\\&/g')" "$name: names '$want'"
	is "$(grep -vc '^GET /index.json ' "$T/server.log")" 0 "$name: nothing else downloaded"
done

# An --index URL that names no index (a build's tarball): the message
# names that URL, not its last segment alone.
printf '\037\213\010\000binary' > "$T/srv/b0001.tar.gz"
run "$ARTBISECT" --index "$BASE/b0001.tar.gz" --probe true --cache-dir "$T/cache" --work-dir "$T/work"
is "$RC" 2 "a tarball as the index: exit 2"
like "$ERR" "^artbisect: $BASE/b0001\.tar\.gz: invalid JSON at line 1" "a tarball as the index: the message names the URL"
printf '{"format": ' > "$T/local.json"
run "$ARTBISECT" --index "$T/local.json" --probe true --cache-dir "$T/cache" --work-dir "$T/work"
like "$ERR" "^artbisect: $T/local\.json: invalid JSON" "a local index that is not JSON: the message names its path"

# A missing local index and a scheme we do not read.
run "$ARTBISECT" --index "$T/nonexistent.json" --probe true --cache-dir "$T/cache" --work-dir "$T/work"
is "$RC" 2 "missing local index: exit 2"
like "$ERR" 'nonexistent.json' "it names the file"
run "$ARTBISECT" --index "ftp://127.0.0.1/index.json" --probe true --cache-dir "$T/cache" --work-dir "$T/work"
is "$RC" 2 "ftp index: exit 2"
run "$ARTBISECT" --probe true
is "$RC" 2 "no --index: exit 2"

plan_done
