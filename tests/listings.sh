#!/bin/bash
# Directory listings written by the real servers farms run: Apache
# mod_autoindex (plain, FancyIndexing, HTMLTable), nginx autoindex (HTML
# and JSON) and lighttpd mod_dirlisting, each started on 127.0.0.1 with
# its own config in $T as the running user (nothing in /etc is read or
# touched). The page each writes for a tree named like a farm's is read
# by tests/listing-dump (src/farms/listing.c) and compared with the tree:
# names and kinds, every file fetched back through its resolved URL,
# exact sizes and dates where the page gives them, the hostile name
# refused, an empty directory, and a 404 page that is not a listing.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

need_cmd curl
DUMP="$TESTS_BUILDDIR/listing-dump"
[ -x "$DUMP" ] || bail_out "$DUMP is not built (make)"
# Apache and lighttpd write dates in the server's local time.
export TZ=UTC

# The tree: names like a farm's and names a parser gets wrong.
R="$T/tree"
mkdir -p "$R/v6.8/amd64" "$R/v6.8-rc1" "$R/sub dir"
for f in linux-6.8.1.arch1-1-x86_64.pkg.tar.zst linux-6.8.1.arch1-1-x86_64.pkg.tar.zst.sig \
	"a file with space.txt" "R&D.txt" "café-ünïcode.txt" "pct%41.txt" "q?x.txt" "hash#x" \
	"<b>.txt" "quote\".txt" "apos'x.txt"; do
	printf '%s' "$f" >"$R/$f"
done
head -c 5000 /dev/zero >"$R/big.bin"
# A line break in a name: served as %0A, refused by the parser.
printf 'x' >"$R/evil
name"
touch -d '2024-03-10 12:34:00 UTC' "$R"/* "$R"/*/
# Servers started as root drop to nobody: let it read the tree.
chmod -R a+rX "$R"
chmod 711 "$T"
WEB_USER=""
[ "$(id -u)" = 0 ] && WEB_USER=1

# "NAME<TAB>d|f" for each entry but the hostile one, sorted.
(cd "$R" && for f in *; do
	case $f in *$'\n'*) continue ;; esac
	if [ -d "$f" ]; then printf '%s\td\n' "$f"; else printf '%s\tf\n' "$f"; fi
done) | LC_ALL=C sort >"$T/expected"

free_port() {
	"$PYTHON3" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

SRV_PID=""
stop_srv() {
	if [ -n "$SRV_PID" ]; then
		kill "$SRV_PID" 2>/dev/null
		wait "$SRV_PID" 2>/dev/null
		SRV_PID=""
	fi
	return 0
}
at_exit stop_srv

# wait_up URL LOG: 0 once URL answers, 1 if the server died or 10 s passed.
wait_up() {
	local i
	for i in $(seq 100); do
		curl -s -o /dev/null "$1" && return 0
		kill -0 "$SRV_PID" 2>/dev/null || break
		sleep 0.1
	done
	diag "the server did not come up: $(tail -n 5 "$2" 2>/dev/null)"
	return 1
}

start_apache() { # STYLE-OPTIONS DIR PORT
	cat >"$2/apache.conf" <<EOF
ServerRoot "$2"
Listen 127.0.0.1:$3
ServerName 127.0.0.1
PidFile "$2/apache.pid"
ErrorLog "$2/error.log"
Mutex file:$2 default
LoadModule mpm_prefork_module /usr/lib/apache2/modules/mod_mpm_prefork.so
LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
LoadModule autoindex_module /usr/lib/apache2/modules/mod_autoindex.so
LoadModule dir_module /usr/lib/apache2/modules/mod_dir.so
LoadModule mime_module /usr/lib/apache2/modules/mod_mime.so
TypesConfig /dev/null
${WEB_USER:+User nobody}
${WEB_USER:+Group nogroup}
DocumentRoot "$R"
<Directory "$R">
	Options +Indexes
	Require all granted
	$1
</Directory>
EOF
	# Its own process group: on TERM, prefork signals its whole group.
	setsid apache2 -f "$2/apache.conf" -DFOREGROUND </dev/null >"$2/stderr" 2>&1 &
	SRV_PID=$!
	wait_up "http://127.0.0.1:$3/" "$2/error.log"
}

start_nginx() { # FORMAT DIR PORT
	mkdir -p "$2/tmp"
	cat >"$2/nginx.conf" <<EOF
daemon off;
pid $2/nginx.pid;
error_log $2/error.log;
${WEB_USER:+user nobody nogroup;}
events { worker_connections 64; }
http {
	access_log off;
	client_body_temp_path $2/tmp; proxy_temp_path $2/tmp; fastcgi_temp_path $2/tmp;
	uwsgi_temp_path $2/tmp; scgi_temp_path $2/tmp;
	server {
		listen 127.0.0.1:$3;
		root $R;
		location / { autoindex on; autoindex_format $1; }
	}
}
EOF
	nginx -e "$2/error.log" -c "$2/nginx.conf" -p "$2/" </dev/null >"$2/stderr" 2>&1 &
	SRV_PID=$!
	wait_up "http://127.0.0.1:$3/" "$2/error.log"
}

start_lighttpd() { # - DIR PORT
	cat >"$2/lighttpd.conf" <<EOF
server.document-root = "$R"
server.bind = "127.0.0.1"
server.port = $3
server.pid-file = "$2/lighttpd.pid"
server.errorlog = "$2/error.log"
server.modules = ( "mod_dirlisting" )
dir-listing.activate = "enable"
EOF
	lighttpd -D -f "$2/lighttpd.conf" </dev/null >"$2/stderr" 2>&1 &
	SRV_PID=$!
	wait_up "http://127.0.0.1:$3/" "$2/error.log"
}

# check STYLE FORMAT-NAME: the server is up at $URL; read its pages.
check() {
	local style=$1 fmt=$2 name kind size mtime url got bad want_size want_mtime
	curl -sS -o "$T/$style.page" "$URL/"
	run "$DUMP" "$T/$style.page" "$URL/"
	tap_ok "$RC" "$style: the page is read ($ERR)"
	is "$(head -n 1 "$T/run.out")" "format: $fmt" "$style: recognised as $fmt"
	grep -v -E '^(format|dropped|empty):' "$T/run.out" >"$T/$style.entries"
	is "$(cut -f 1,2 "$T/$style.entries" | LC_ALL=C sort)" "$(cat "$T/expected")" \
		"$style: every entry of the tree, with its kind, and nothing else"
	like "$(tail -n 1 "$T/run.out")" 'refused: 1 entry "evil(%0[aA]|\?)name": the name holds a control character' \
		"$style: the name with a line break is refused"

	bad=""
	while IFS=$'\t' read -r name kind size mtime url; do
		case $url in "$URL"/*) ;; *) bad="$bad $name: $url is not in $URL/;" ;; esac
		if [ "$kind" = f ]; then
			curl -sS -o "$T/got" "$url" </dev/null || bad="$bad $name: $url: fetch failed;"
			cmp -s "$T/got" "$R/$name" || bad="$bad $name: $url gave '$(head -c 80 "$T/got")';"
			want_size=$(stat -c %s "$R/$name")
			[ "$size" = -1 ] || [ "$size" = "$want_size" ] || bad="$bad $name: size $size, not $want_size;"
		fi
		want_mtime=$(stat -c %Y "$R/$name")
		[ "$mtime" = -1 ] || [ "$mtime" = "$want_mtime" ] || bad="$bad $name: mtime $mtime, not $want_mtime;"
	done <"$T/$style.entries"
	is "$bad" "" "$style: every URL is in the directory, files fetch back by it; sizes and dates given are exact"

	curl -sS -o "$T/$style.empty" "$URL/sub%20dir/"
	run "$DUMP" "$T/$style.empty" "$URL/sub%20dir/"
	like "$OUT" "empty: an empty directory listing \\($fmt\\)" "$style: an empty directory is an empty listing"
	curl -sS -o "$T/$style.404" "$URL/no-such-dir/"
	run "$DUMP" "$T/$style.404" "$URL/no-such-dir/"
	is "$RC:$ERR" "2:$URL/no-such-dir/: not a directory listing (no \"Index of\" title or heading)" \
		"$style: its 404 page is not a listing (exit 2)"
}

# style server-command argument format-name [what the page must give]
while read -r style cmd arg fmt; do
	bin=${cmd#start_}
	[ "$bin" = apache ] && bin=apache2
	if ! command -v "$bin" >/dev/null 2>&1; then
		skip "$style" "$bin is not installed (apt-get install nginx-light apache2 lighttpd)"
		continue
	fi
	[ "$arg" = - ] && arg=""
	mkdir -p "$T/$style"
	port=$(free_port)
	URL="http://127.0.0.1:$port"
	if ! "$cmd" "$(printf '%b' "$arg")" "$T/$style" "$port"; then
		tap_ok 1 "$style: the server starts"
		stop_srv
		continue
	fi
	check "$style" "$(printf '%b' "$fmt")"
	# The servers that say sizes in bytes say them for every file.
	case $style in nginx-*)
		like "$(grep -c -P '\tf\t(?!-1\t)' "$T/$style.entries")" '^12$' "$style: exact sizes for all 12 files" ;;
	esac
	case $style in nginx-*|lighttpd|apache-fancy|apache-table)
		unlike "$(cut -f 4 "$T/$style.entries")" '^-1$' "$style: a date for every entry" ;;
	esac
	stop_srv
done <<'EOF'
apache-plain start_apache - Apache\x20plain\x20list
apache-fancy start_apache IndexOptions\x20FancyIndexing Apache\x20FancyIndexing
apache-table start_apache IndexOptions\x20FancyIndexing\x20HTMLTable Apache\x20HTMLTable
nginx-html start_nginx html nginx\x20HTML
nginx-json start_nginx json nginx\x20JSON
lighttpd start_lighttpd - lighttpd
EOF

plan_done
