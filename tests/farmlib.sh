#!/bin/bash
# tests/farmlib.sh - real web servers and fixture farms for the farm tests.
#
# Source it after lib.sh:
#   . "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"
#   . "$TESTS_SRCDIR/farmlib.sh"
#
# Servers (each started on 127.0.0.1 on a free port, as the running user,
# with its own config in DIR: nothing in /etc is read or touched; stopped
# at exit through at_exit). As root they drop to nobody, so the tree is
# made world-readable and the directories above it (inside $T) passable.
#   start_nginx DIR ROOTDIR    nginx autoindex (HTML); sets NGINX_URL and
#                              URL (http://127.0.0.1:PORT, no slash at the
#                              end); its access log is DIR/access.log
#                              ("METHOD PATH STATUS BYTES" lines)
#   start_apache DIR ROOTDIR   Apache mod_autoindex with FancyIndexing (or
#                              the IndexOptions in FARM_APACHE_INDEX_OPTIONS,
#                              e.g. "FancyIndexing TrackModified" for
#                              listings with Last-Modified and ETag); sets
#                              APACHE_URL and URL; access log as nginx's
#   stop_nginx, stop_apache
#   free_port                  prints a free TCP port on 127.0.0.1
#   farm_servers               the servers installed, of "nginx apache"
#   start_farm_server NAME DIR ROOTDIR    start_nginx or start_apache by NAME
#   stop_farm_server NAME
#
# Fixtures (tests/mkfarms.py):
#   mkfarms ARGS...            runs it
#   farm_keys                  makes the keys once in $T/keys: GNUPGHOME
#                              $T/keys/gnupg (not exported), FARM_KEY ($T/keys/farm-key.asc)
#                              and OTHER_KEY (other-key.asc); the agent is
#                              stopped at exit
#   farm_probe NAME CHECK [REQUIRED...]   writes $T/NAME.probe: each
#                              REQUIRED glob (relative to the unpacked root)
#                              must match exactly one file, else the probe
#                              logs "ID WRONG ..." and exits 3 (bad); then the
#                              file CHECK (a glob) containing BROKEN is bad
#                              (exit 1), else good (exit 0). A REQUIRED glob
#                              written !GLOB must match nothing. Every run logs
#                              "ID good|bad|WRONG" to $T/NAME.log.
#   probed NAME ID             0 if the probe NAME ran on build ID
#   not_probed NAME ID         0 if the probe NAME ran, never on build ID
#   probe_check NAME           "clean" if the probe NAME ran and found every
#                              root as required; else its complaints or
#                              "not run"
#   farm_bisect TAG ARGS...    runs $ARTBISECT ARGS --json with fresh
#                              --cache-dir $T/TAG.cache and --work-dir
#                              $T/TAG.work, under `timeout 120`: the report
#                              in $T/TAG.json, stderr in $T/TAG.err, the
#                              exit status in RC (124: it hung)
#   report_field FILE PATH     json_get, "" when absent
#   step_field FILE ID KEY     KEY of the first step whose id is ID ("" if none)
#   steps_where FILE KEY=VALUE... FIELD   FIELD of each matching step, one a line

: "${TESTS_SRCDIR:=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}"

NGINX_PID=""
APACHE_PID=""
NGINX_URL=""
APACHE_URL=""
URL=""

free_port() {
	"$PYTHON3" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

farm_servers() {
	local s=""
	command -v nginx >/dev/null 2>&1 && s="nginx"
	command -v apache2 >/dev/null 2>&1 && s="${s:+$s }apache"
	echo "$s"
}

# _farm_readable ROOTDIR: as root, the servers' workers run as nobody:
# the tree world-readable, and every directory from ROOTDIR up to $T (or
# up to ROOTDIR's own parent when it is outside $T) passable.
_farm_readable() {
	local d
	[ "$(id -u)" = 0 ] || return 0
	chmod -R a+rX "$1"
	d=$(cd "$1" && pwd)
	while [ -n "$d" ] && [ "$d" != / ]; do
		chmod o+x "$d" 2>/dev/null || :
		case $d in "$T" | "$T"/*) ;; *) break ;; esac
		[ "$d" = "$T" ] && break
		d=$(dirname "$d")
	done
	return 0
}

# _farm_wait_up URL PID ERRORLOG ACCESSLOG: 0 once the server answers and
# its access log holds that answer, 1 if it died or 10 s passed. A server
# writes the line after the reply, so a test that empties the log at once
# could otherwise find the readiness request there, counted as its own.
_farm_wait_up() {
	local _
	for _ in $(seq 100); do
		if curl -s -o /dev/null "$1/.farm-up"; then
			for _ in $(seq 100); do
				grep -q ' /.farm-up ' "$4" 2>/dev/null && return 0
				sleep 0.05
			done
			diag "the server answered but never logged it in $4"
			return 1
		fi
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	diag "the server did not come up: $(tail -n 5 "$3" 2>/dev/null)"
	return 1
}

start_nginx() { # DIR ROOTDIR
	local dir root port user=""
	mkdir -p "$1/tmp"
	dir=$(cd "$1" && pwd)
	root=$(cd "$2" && pwd)
	stop_nginx
	_farm_readable "$root"
	[ "$(id -u)" = 0 ] && user="user nobody nogroup;"
	port=$(free_port)
	cat >"$dir/nginx.conf" <<EOF
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log;
$user
worker_processes 2;
events { worker_connections 256; }
http {
	log_format farm '\$request_method \$uri \$status \$body_bytes_sent';
	access_log $dir/access.log farm;
	client_body_temp_path $dir/tmp; proxy_temp_path $dir/tmp; fastcgi_temp_path $dir/tmp;
	uwsgi_temp_path $dir/tmp; scgi_temp_path $dir/tmp;
	types { text/html html; }
	default_type application/octet-stream;
	server {
		listen 127.0.0.1:$port;
		root $root;
		location / { autoindex on; }
	}
}
EOF
	: >"$dir/access.log"
	nginx -e "$dir/error.log" -c "$dir/nginx.conf" -p "$dir/" </dev/null >"$dir/stderr" 2>&1 &
	NGINX_PID=$!
	at_exit stop_nginx
	NGINX_URL="http://127.0.0.1:$port"
	URL=$NGINX_URL
	_farm_wait_up "$URL" "$NGINX_PID" "$dir/error.log" "$dir/access.log"
}

stop_nginx() {
	if [ -n "$NGINX_PID" ]; then
		kill "$NGINX_PID" 2>/dev/null
		wait "$NGINX_PID" 2>/dev/null
		NGINX_PID=""
	fi
	return 0
}

start_apache() { # DIR ROOTDIR
	local dir root port user=""
	mkdir -p "$1"
	dir=$(cd "$1" && pwd)
	root=$(cd "$2" && pwd)
	stop_apache
	_farm_readable "$root"
	[ "$(id -u)" = 0 ] && user="User nobody
Group nogroup"
	port=$(free_port)
	# log_config is built into Debian's apache2; loaded as a module elsewhere.
	local logmod=""
	[ -e /usr/lib/apache2/modules/mod_log_config.so ] &&
		logmod="LoadModule log_config_module /usr/lib/apache2/modules/mod_log_config.so"
	cat >"$dir/apache.conf" <<EOF
ServerRoot "$dir"
Listen 127.0.0.1:$port
ServerName 127.0.0.1
PidFile "$dir/apache.pid"
ErrorLog "$dir/error.log"
Mutex file:$dir default
LoadModule mpm_prefork_module /usr/lib/apache2/modules/mod_mpm_prefork.so
LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
LoadModule autoindex_module /usr/lib/apache2/modules/mod_autoindex.so
LoadModule dir_module /usr/lib/apache2/modules/mod_dir.so
LoadModule mime_module /usr/lib/apache2/modules/mod_mime.so
$logmod
TypesConfig /dev/null
AddType text/html .html
$user
LogFormat "%m %U %>s %B" farm
CustomLog "$dir/access.log" farm
DocumentRoot "$root"
<Directory "$root">
	Options +Indexes
	Require all granted
	IndexOptions ${FARM_APACHE_INDEX_OPTIONS:-FancyIndexing}
</Directory>
EOF
	: >"$dir/access.log"
	# Its own process group: on TERM, prefork signals its whole group.
	setsid apache2 -f "$dir/apache.conf" -DFOREGROUND </dev/null >"$dir/stderr" 2>&1 &
	APACHE_PID=$!
	at_exit stop_apache
	APACHE_URL="http://127.0.0.1:$port"
	URL=$APACHE_URL
	_farm_wait_up "$URL" "$APACHE_PID" "$dir/error.log" "$dir/access.log"
}

stop_apache() {
	if [ -n "$APACHE_PID" ]; then
		kill "$APACHE_PID" 2>/dev/null
		wait "$APACHE_PID" 2>/dev/null
		APACHE_PID=""
	fi
	return 0
}

start_farm_server() { # NAME DIR ROOTDIR
	case $1 in
	nginx) start_nginx "$2" "$3" ;;
	apache) start_apache "$2" "$3" ;;
	*) bail_out "start_farm_server: no server named $1" ;;
	esac
}

stop_farm_server() {
	case $1 in
	nginx) stop_nginx ;;
	apache) stop_apache ;;
	esac
}

# -- fixtures -------------------------------------------------------------

mkfarms() {
	"$PYTHON3" "$TESTS_SRCDIR/mkfarms.py" "$@"
}

FARM_KEY=""
OTHER_KEY=""
farm_keys() {
	if [ -z "$FARM_KEY" ]; then
		# Not exported: artbisect must never see the farm's secret keys.
		at_exit 'GNUPGHOME="$T/keys/gnupg" gpgconf --kill all >/dev/null 2>&1'
		mkfarms keys "$T/keys" || bail_out "mkfarms.py keys failed"
		FARM_KEY="$T/keys/farm-key.asc"
		# shellcheck disable=SC2034  # for the tests
		OTHER_KEY="$T/keys/other-key.asc"
	fi
}

farm_probe() { # NAME CHECK [REQUIRED...]
	local name=$1 check=$2 g
	shift 2
	{
		echo '#!/bin/sh'
		echo "log='$T/$name.log'"
		echo 'id=$ARTBISECT_BUILD'
		for g in "$@"; do
			case $g in
			!*)
				printf 'set -- %s\n' "${g#!}"
				printf 'if [ -e "$1" ]; then echo "$id WRONG %s: $*" >>"$log"; exit 3; fi\n' "$g"
				;;
			*)
				printf 'set -- %s\n' "$g"
				printf 'if [ $# != 1 ] || [ ! -f "$1" ]; then echo "$id WRONG %s: $*" >>"$log"; exit 3; fi\n' "$g"
				;;
			esac
		done
		printf 'if grep -q BROKEN %s; then echo "$id bad" >>"$log"; exit 1; fi\n' "$check"
		echo 'echo "$id good" >>"$log"'
		echo 'exit 0'
	} >"$T/$name.probe"
	chmod +x "$T/$name.probe"
	: >"$T/$name.log"
}

probed() { # NAME ID
	grep -q "^$2 " "$T/$1.log" 2>/dev/null
}

report_field() {
	json_get "$1" "$2" 2>/dev/null || :
}

step_field() { # FILE ID KEY
	"$PYTHON3" -c '
import json, sys
try:
    steps = json.load(open(sys.argv[1])).get("steps", [])
except (OSError, ValueError):
    sys.exit(0)
for s in steps:
    if s.get("id") == sys.argv[2]:
        v = s.get(sys.argv[3])
        print("" if v is None else v)
        break
' "$1" "$2" "$3"
}

steps_where() { # FILE KEY=VALUE... FIELD
	local f=$1
	shift
	"$PYTHON3" -c '
import json, sys
try:
    steps = json.load(open(sys.argv[1])).get("steps", [])
except (OSError, ValueError):
    sys.exit(0)
want = dict(a.split("=", 1) for a in sys.argv[2:-1])
for s in steps:
    if all(str(s.get(k)) == v for k, v in want.items()):
        print(s.get(sys.argv[-1]))
' "$f" "$@"
}

# shellcheck disable=SC2034  # RC is for the caller
farm_bisect() {
	local tag=$1
	shift
	RC=0
	rm -rf "$T/$tag.cache" "$T/$tag.work"
	timeout 120 "$ARTBISECT" "$@" --json --cache-dir "$T/$tag.cache" --work-dir "$T/$tag.work" \
		>"$T/$tag.json" 2>"$T/$tag.err" </dev/null || RC=$?
	if [ "$RC" -ne 0 ]; then
		diag "$tag: artbisect $* exited $RC; stderr:" "$(head -c 2000 "$T/$tag.err")"
	fi
	return 0
}

# probe_check NAME: "clean" when the probe NAME ran and every root held
# what it requires; its complaints when not; "not run" when it never ran.
probe_check() {
	if [ ! -s "$T/$1.log" ]; then
		echo "not run"
	elif grep -q WRONG "$T/$1.log"; then
		grep WRONG "$T/$1.log"
	else
		echo clean
	fi
}

# not_probed NAME ID: 0 when the probe NAME ran, but never on build ID.
not_probed() {
	[ -s "$T/$1.log" ] && ! probed "$1" "$2"
}
