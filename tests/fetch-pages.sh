#!/bin/bash
# Pages and files of unknown digest through the fetch layer, against real
# nginx (started on 127.0.0.1 with its own config in $T, as in
# tests/listings.sh): nginx sends ETag and Last-Modified for files and
# answers 304 by itself. Driven by tests/fetch-pages (ab_fetch_pages,
# and ab_fetch_artifacts with sha256 NULL and a check):
# a first read fetches and keeps pages with their validators, a second
# revalidates (304, the same body), a changed file is fetched anew, a
# damaged kept body is fetched again; 404 and 410 are MISSING, a redirect
# gives the final URL, 50 pages at once; a page without validators (an
# autoindex listing) is not kept; file:// files are read, directories
# refused, http_only refuses file://; `cache list` shows no pages and
# `cache clean` removes them; a download of unknown digest lands in the
# cache under the sha256 of its bytes, and one its check refuses leaves
# nothing behind.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

need_cmd curl sha256sum
FP="$TESTS_BUILDDIR/fetch-pages"
[ -x "$FP" ] || bail_out "$FP is not built (make)"
command -v nginx >/dev/null 2>&1 || skip_all "nginx is not installed (apt-get install nginx-light)"

W="$T/www"
C="$T/cache"
mkdir -p "$W/many" "$W/listing/d" "$T/nginx/tmp" "$T/bodies"
printf 'first version\n' >"$W/a.txt"
printf 'abc123  linux.deb\n' >"$W/SHA256SUMS"
for i in $(seq -w 0 49); do
	head -c $((100 + 10#$i * 37)) /dev/urandom >"$W/many/p$i"
done
head -c 300000 /dev/urandom >"$W/big.bin"
head -c 200000 /dev/urandom >"$W/refused.bin"
touch -d '2024-01-01 00:00:00 UTC' "$W/a.txt" "$W/SHA256SUMS" "$W"/many/*
chmod -R a+rX "$W"
chmod 711 "$T"

free_port() {
	"$PYTHON3" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
PORT=$(free_port)
U="http://127.0.0.1:$PORT"
N="$T/nginx"
cat >"$N/nginx.conf" <<EOF
daemon off;
pid $N/nginx.pid;
error_log $N/error.log;
$([ "$(id -u)" = 0 ] && echo 'user nobody nogroup;')
events { worker_connections 256; }
http {
	log_format st '\$request_uri \$status';
	access_log $N/access.log st;
	client_body_temp_path $N/tmp; proxy_temp_path $N/tmp; fastcgi_temp_path $N/tmp;
	uwsgi_temp_path $N/tmp; scgi_temp_path $N/tmp;
	server {
		listen 127.0.0.1:$PORT;
		root $W;
		location / { autoindex on; }
		location = /old.txt { return 301 /a.txt; }
		location = /gone.txt { return 410; }
	}
}
EOF
nginx -e "$N/error.log" -c "$N/nginx.conf" -p "$N/" </dev/null >"$N/stderr" 2>&1 &
NGINX_PID=$!
at_exit 'kill $NGINX_PID 2>/dev/null; wait $NGINX_PID 2>/dev/null'
up=1
for _ in $(seq 100); do
	curl -s -o /dev/null "$U/a.txt" && { up=0; break; }
	kill -0 "$NGINX_PID" 2>/dev/null || break
	sleep 0.1
done
[ $up = 0 ] || bail_out "nginx did not start: $(tail -n 5 "$N/error.log" "$N/stderr" 2>/dev/null)"
: >"$N/access.log"

# served PATH STATUS: how many times nginx answered PATH with STATUS.
served() {
	local n
	n=$(grep -c -x -F -- "$1 $2" "$N/access.log") || :
	echo "${n:-0}"
}
line() { sed -n "${1}p" "$T/run.out"; }
page_file() { echo "$C/pages/$(printf '%s' "$1" | sha256sum | cut -d' ' -f1)"; }

# -- the first read fetches, keeps, and says where a redirect led --------
run "$FP" --cache "$C" --body-dir "$T/bodies" "$U/a.txt" "$U/SHA256SUMS" "$U/old.txt" \
	"$U/nope.txt" "$U/gone.txt"
is "$RC" 0 "first read: exit 0 ($ERR)"
is "$(line 1)" "ok	0	14	$U/a.txt" "first read: a.txt fetched (not revalidated), 14 bytes"
ok "first read: a.txt's body is the file's" cmp "$T/bodies/0" "$W/a.txt"
is "$(line 2)" "ok	0	18	$U/SHA256SUMS" "first read: SHA256SUMS fetched"
is "$(line 3)" "ok	0	14	$U/a.txt" "a redirect (301) gives the final URL as the page's URL"
ok "the redirected page's body is the target's" cmp "$T/bodies/2" "$W/a.txt"
is "$(line 4)" "missing	0	0	$U/nope.txt: HTTP status 404" "404: MISSING, naming the URL"
is "$(line 5)" "missing	0	0	$U/gone.txt: HTTP status 410" "410: MISSING"
is "$(line 6)" "counts: fetched 3 revalidated 0" "first read: 3 pages fetched anew"
ok "the page is kept with its validators" test -s "$(page_file "$U/a.txt").json"
like "$(cat "$(page_file "$U/a.txt").json")" '"etag": ?"\\"[0-9a-f]+-[0-9a-f]+\\""' "... nginx's ETag"
like "$(cat "$(page_file "$U/a.txt").json")" '"last_modified": ?"Mon, 01 Jan 2024 00:00:00 GMT"' \
	"... and its Last-Modified"
cp "$T/bodies/0" "$T/a.first"
cp "$T/bodies/1" "$T/sums.first"

# -- the second revalidates ---------------------------------------------
: >"$N/access.log"
rm -f "$T/bodies"/*
run "$FP" --cache "$C" --body-dir "$T/bodies" "$U/a.txt" "$U/SHA256SUMS" "$U/old.txt"
is "$RC" 0 "second read: exit 0 ($ERR)"
is "$(line 1)" "ok	1	14	$U/a.txt" "second read: a.txt revalidated"
is "$(line 2)" "ok	1	18	$U/SHA256SUMS" "second read: SHA256SUMS revalidated"
is "$(line 3)" "ok	1	14	$U/a.txt" "second read: the redirected page revalidated, the final URL again"
ok "the revalidated body equals the first" cmp "$T/bodies/0" "$T/a.first"
ok "... for SHA256SUMS too" cmp "$T/bodies/1" "$T/sums.first"
is "$(served /a.txt 304)/$(served /SHA256SUMS 304)/$(served /a.txt 200)" "2/1/0" \
	"nginx answered 304 to each (a.txt asked twice, once through the redirect), sent no body"
is "$(line 4)" "counts: fetched 0 revalidated 3" "second read: counted as 3 revalidated"

# -- a changed file is fetched anew ----------------------------------------
printf 'second version, longer\n' >"$W/a.txt"
touch -d '2024-02-01 00:00:00 UTC' "$W/a.txt"
: >"$N/access.log"
run "$FP" --cache "$C" --body-dir "$T/bodies" "$U/a.txt"
is "$(line 1)" "ok	0	23	$U/a.txt" "a changed file: fetched anew"
ok "... its new body" cmp "$T/bodies/0" "$W/a.txt"
is "$(served /a.txt 200)" 1 "... nginx sent it (200)"
# The same size, other bytes, a new date: the validators tell.
printf 'SECOND version, longer\n' >"$W/a.txt"
touch -d '2024-03-01 00:00:00 UTC' "$W/a.txt"
run "$FP" --cache "$C" --body-dir "$T/bodies" "$U/a.txt"
is "$(line 1)" "ok	0	23	$U/a.txt" "a changed file of the same size: fetched anew"
ok "... its new body" cmp "$T/bodies/0" "$W/a.txt"
run "$FP" --cache "$C" --body-dir "$T/bodies" "$U/a.txt"
is "$(line 1)" "ok	1	23	$U/a.txt" "and revalidated after that"
ok "... with the new body" cmp "$T/bodies/0" "$W/a.txt"

# -- a kept body that was damaged is fetched again ---------------------------
printf 'XXXXXXXXXXXXXXXXXXXXXXX' >"$(page_file "$U/a.txt")"
: >"$N/access.log"
run "$FP" --cache "$C" --body-dir "$T/bodies" "$U/a.txt"
is "$(line 1)" "ok	0	23	$U/a.txt" "a damaged kept body: the page is fetched again, not revalidated"
ok "... the right body" cmp "$T/bodies/0" "$W/a.txt"
is "$(served /a.txt 304)/$(served /a.txt 200)" "1/1" "... the 304 was not taken: asked again without validators"
rm -f "$(page_file "$U/a.txt")"
run "$FP" --cache "$C" --body-dir "$T/bodies" "$U/a.txt"
is "$(line 1)" "ok	0	23	$U/a.txt" "a kept body that is gone: fetched anew"

# -- a page without validators (an autoindex listing) is not kept -----------
run "$FP" --cache "$C" --body-dir "$T/bodies" "$U/listing/"
like "$(line 1)" "^ok	0	[0-9]+	$U/listing/\$" "an nginx autoindex listing is read"
like "$(cat "$T/bodies/0")" 'href="d/"' "... it is the listing"
fails "... it comes without ETag or Last-Modified, so nothing of it is kept" test -e "$(page_file "$U/listing/")"
run "$FP" --cache "$C" "$U/listing/"
is "$(line 1 | cut -f 1,2)" "ok	0" "... and it is fetched anew the next time"

# -- 50 pages at once ---------------------------------------------------
urls=()
for i in $(seq -w 0 49); do urls+=("$U/many/p$i"); done
rm -f "$T/bodies"/*
run "$FP" --cache "$C" --body-dir "$T/bodies" "${urls[@]}"
is "$RC" 0 "50 pages at once: exit 0 ($ERR)"
bad=""
for i in $(seq 0 49); do
	f=$(printf '%s/many/p%02d' "$W" "$i")
	want="ok	0	$(stat -c %s "$f")	$U/many/$(basename "$f")"
	[ "$(line $((i + 1)))" = "$want" ] || bad="$bad [$(line $((i + 1)))]"
	cmp -s "$T/bodies/$i" "$f" || bad="$bad body $i;"
done
is "$bad" "" "50 pages at once: each OK, its length and body right"
is "$(line 51)" "counts: fetched 50 revalidated 0" "50 pages counted as fetched"
run "$FP" --cache "$C" --body-dir "$T/bodies" "${urls[@]}"
is "$(cut -f 1,2 "$T/run.out" | grep -c -x 'ok	1')" 50 "50 pages again: every one revalidated"
bad=""
for i in $(seq 0 49); do cmp -s "$T/bodies/$i" "$(printf '%s/many/p%02d' "$W" "$i")" || bad="$bad $i"; done
is "$bad" "" "... with the kept bodies"

# -- limits and schemes -----------------------------------------------------
run "$FP" --cache "$C" --max 10 "$U/SHA256SUMS"
is "$(line 1)" "failed	0	0	$U/SHA256SUMS: larger than 10 bytes" "a page larger than max: FAILED"
run "$FP" --cache "$C" "file://$W/SHA256SUMS" "file://$W/" "file://$W/no-such-file"
is "$(line 1)" "ok	0	18	file://$W/SHA256SUMS" "file://: a file is read"
is "$(line 2)" "failed	0	0	file://$W/: a directory, not a page" "file://: a directory is no page"
like "$(line 3)" "^missing	0	0	file://$W/no-such-file: " "file://: no such file: MISSING"
run "$FP" --cache "$C" --http-only "file://$W/SHA256SUMS" "$U/SHA256SUMS"
like "$(line 1)" "^failed	0	0	file://$W/SHA256SUMS: refused: .*must be http or https" \
	"http_only: a file:// URL is refused"
is "$(line 2 | cut -f 1)" ok "http_only: the http one is read"

# -- files whose digest is not known beforehand ---------------------------
big_sha=$(sha256sum <"$W/big.bin" | cut -d' ' -f1)
run "$FP" --cache "$C" --file "$U/big.bin" \
	--check-cmd 'test "$(sha256sum < "$1" | cut -d" " -f1)" = "$2" && test "$(stat -c %s "$1")" = 300000'
is "$RC/$(line 1)" "0/ok	$big_sha	$C/sha256/$big_sha" \
	"unknown digest: downloaded, the check saw the file and its digest, the sha256 is sha256sum's"
ok "... it is a cache entry" cmp "$C/sha256/$big_sha" "$W/big.bin"
run "$FP" --cache "$C" --file "$U/big.bin" --min-size 299999
is "$(line 1)" "ok	$big_sha	$C/sha256/$big_sha" "unknown digest: the size check passes"
ref_sha=$(sha256sum <"$W/refused.bin" | cut -d' ' -f1)
run "$FP" --cache "$C" --file "$U/refused.bin" --check-cmd 'exit 1'
is "$RC/$(line 1)" "0/unavailable	the check command refused $ref_sha" \
	"a failing check: UNAVAILABLE with the check's reason"
fails "... nothing in the cache" test -e "$C/sha256/$ref_sha"
is "$(ls -A "$C/tmp" | wc -l)" 0 "... and no temporary file"
run "$FP" --cache "$C" --file "$U/refused.bin" --min-size 300000
is "$(line 1)" "unavailable	not more than 300000 bytes" "a size check that fails: UNAVAILABLE"
is "$(ls -A "$C/tmp" | wc -l)/$(ls "$C/sha256" | grep -c -x "$ref_sha")" "0/0" "... nothing left behind"
run "$FP" --cache "$C" --file "$U/nope.bin"
like "$(line 1)" "^unavailable	HTTP status 404" "unknown digest, 404: UNAVAILABLE"

# -- faults (tests/httpserver.py): the same retries and mirrors as for known digests --
mkdir -p "$T/faulty"
cp "$W/big.bin" "$W/refused.bin" "$W/SHA256SUMS" "$T/faulty/"
start_server "$T/faulty"
set_faults '{"big.bin": ["truncate", "truncate"], "SHA256SUMS": ["503", "truncate"]}'
rm -rf "$T/c2"
run "$FP" --cache "$T/c2" --file "$BASE/big.bin" --min-size 0
is "$(line 1)" "ok	$big_sha	$T/c2/sha256/$big_sha" "unknown digest, a body cut twice: resumed, the digest is the whole file's"
is "$(count_requests '^GET /big.bin 206 ')" 2 "... the rest asked for with a range, twice"
run "$FP" --cache "$T/c2" "$BASE/SHA256SUMS"
is "$(line 1)" "ok	0	18	$BASE/SHA256SUMS" "a page after a 503 and a cut body: retried, whole"
set_faults '{"big.bin": "always:corrupt"}'
reset_log
run "$FP" --cache "$T/c3" --file "$BASE/big.bin" --mirror "$BASE/refused.bin" --mirror "$U/big.bin" \
	--check-cmd "test \"\$2\" = $big_sha"
is "$(line 1)" "ok	$big_sha	$T/c3/sha256/$big_sha" "unknown digest: what the check refuses goes to the next mirror, until one passes"
is "$(count_requests '^GET /big.bin ')/$(count_requests '^GET /refused.bin ')" 1/1 "... each URL tried once"
is "$(ls "$T/c3/sha256")/$(ls -A "$T/c3/tmp" | wc -l)" "$big_sha/0" "... only the good file is kept, no temporary file"
set_faults '{"SHA256SUMS": "always:reset"}'
run "$FP" --cache "$T/c2" "$BASE/SHA256SUMS" "$BASE/big.bin"
like "$(line 1)" "^failed	0	0	$BASE/SHA256SUMS: gave up after 4 tries: " "a page the server always resets: FAILED after the retries"
is "$(line 2 | cut -f 1,3)" "ok	300000" "... the other page of the call is read"
stop_server

# -- the cache command: pages are no entries; clean removes them ------------
run "$ARTBISECT" cache list --cache-dir "$C"
is "$RC" 0 "cache list: exit 0"
like "$OUT" "^${big_sha:0:12} " "cache list: the download of unknown digest is an entry"
is "$(echo "$OUT" | grep -c -v -e "^${big_sha:0:12} " -e '^1 entry, ')" 0 "cache list: no page is listed"
kept=$(ls "$C/pages" | wc -l)
is "$kept" 106 "pages are kept under pages/: 53 bodies and their validators"
run "$ARTBISECT" cache clean --cache-dir "$C" --older-than 1
is "$(ls "$C/pages" | wc -l)" "$kept" "cache clean --older-than 1: pages read just now stay"
run "$ARTBISECT" cache clean --cache-dir "$C"
is "$RC" 0 "cache clean: exit 0"
is "$(ls -A "$C/pages" | wc -l)" 0 "cache clean: every page goes"
run "$FP" --cache "$C" "$U/SHA256SUMS"
is "$(line 1 | cut -f 1,2)" "ok	0" "after clean: a page is fetched anew"

plan_done
