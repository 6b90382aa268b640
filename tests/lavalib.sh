#!/bin/bash
# tests/lavalib.sh - a real LAVA lab on this machine for tests/lava.sh and
# bench/lava.sh: Debian's lava-server, lava-dispatcher and lavacli,
# started without systemd, every service on 127.0.0.1, two qemu devices
# on one worker. It installs nothing (the README's test line does:
# apt-get install lava-server lava-dispatcher lavacli).
#
# Source it after lib.sh, then:
#   lava_need             skip_all with the reason when LAVA cannot run here
#                         (not installed, not root, no PostgreSQL)
#   lava_start            starts it (PostgreSQL, gunicorn, publisher,
#                         scheduler, worker); stopped at exit. Exports
#                         LAVA_URL (http://127.0.0.1:PORT), LAVA_TOKEN_FILE,
#                         LAVA_USER, LAVA_DEVICES ("ab-qemu01 ab-qemu02"),
#                         LAVA_DEVICE_TYPE (qemu)
#   lava_manage ARGS...   lava-server manage ARGS (as the services see it)
#   lava_api PATH         GET $LAVA_URL/api/v0.2/PATH with the token
#   lava_device_health DEVICE HEALTH   Good, Maintenance, Retired...
#   lava_unfinished       prints the ids of the lab's jobs not Finished
#
# The lab's database is the machine's (PostgreSQL 15 "main", started
# with pg_ctlcluster when it is down, stopped at exit if it was); one
# lab at a time, under a lock (/run/lock/artbisect-lava.lock). Service
# logs are in $T/lava/.

LAVA_PY=/usr/bin/python3
LAVA_WORKER=ab-worker
LAVA_DEVICES="ab-qemu01 ab-qemu02"
LAVA_DEVICE_TYPE=qemu
LAVA_USER=artbisect
_lava_pids=""
_lava_pg_started=""

lava_need() {
	local c
	for c in lava-server lava-worker lavacli gunicorn3 pg_ctlcluster qemu-system-x86_64; do
		command -v "$c" > /dev/null 2>&1 ||
			skip_all "LAVA is not installed here ($c is missing): apt-get install lava-server lava-dispatcher lavacli"
	done
	[ -f /usr/share/lava-server/postinst.py ] ||
		skip_all "LAVA is not installed here: apt-get install lava-server lava-dispatcher lavacli"
	[ "$(id -u)" = 0 ] || skip_all "LAVA's services run as root and lavaserver: run the LAVA test as root"
	[ "$(uname -m)" = x86_64 ] || skip_all "the LAVA devices here are x86_64 qemu ones"
	_lava_pgver=$(pg_lsclusters -h 2>/dev/null | awk 'NR == 1 {print $1}')
	[ -n "$_lava_pgver" ] || skip_all "no PostgreSQL cluster for LAVA (pg_lsclusters lists none)"
}

_lava_free_port() {
	"$LAVA_PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

lava_manage() {
	/usr/bin/lava-server manage "$@"
}

lava_api() {
	curl -sS --max-time 20 -H "Authorization: Token $(cat "$LAVA_TOKEN_FILE")" "$LAVA_URL/api/v0.2/$1"
}

lava_device_health() {	# DEVICE HEALTH
	lava_manage devices update --health "$2" "$1" > /dev/null 2>&1
}

lava_unfinished() {
	lava_manage shell -c "from lava_scheduler_app.models import TestJob
for j in TestJob.objects.exclude(state=TestJob.STATE_FINISHED): print(j.id)" 2>/dev/null
}

# Every service starts with fd 8 (the lock) closed: one that inherited it
# and outlived a killed test would hold the lock for the next one.
_lava_bg() {	# NAME COMMAND...: a service in the background, logged
	local name=$1
	shift
	PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@" > "$T/lava/$name.log" 2>&1 8>&- &
	_lava_pids="$_lava_pids $!"
}

lava_stop() {
	local p n
	for p in $_lava_pids; do
		kill "$p" 2> /dev/null
	done
	for p in $_lava_pids; do
		n=0
		while kill -0 "$p" 2> /dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
		kill -9 "$p" 2> /dev/null
		wait "$p" 2> /dev/null
	done
	_lava_pids=""
	# qemu or lava-run left by a job the worker did not finish
	for p in $(pgrep -f "lava-run.*--output-dir=$T/lava" 2> /dev/null); do kill -9 "$p" 2> /dev/null; done
	rm -f /etc/lava-server/settings.d/90-artbisect-test.yaml
	[ -n "$_lava_pg_started" ] && pg_ctlcluster "$_lava_pgver" main stop > /dev/null 2>&1
	_lava_pg_started=""
	return 0
}

lava_start() {
	local port ws evport i ok wtoken d
	mkdir -p "$T/lava"
	# One lab at a time on this machine: the database and /etc are shared.
	mkdir -p /run/lock
	exec 8> /run/lock/artbisect-lava.lock
	flock -w 600 8 || bail_out "another LAVA test holds /run/lock/artbisect-lava.lock"
	at_exit lava_stop
	if ! pg_ctlcluster "$_lava_pgver" main status > /dev/null 2>&1; then
		pg_ctlcluster "$_lava_pgver" main start > "$T/lava/pg.log" 2>&1 8>&- ||
			skip_all "PostgreSQL does not start: $(tail -n 1 "$T/lava/pg.log")"
		_lava_pg_started=1
	fi
	# The database, once per machine (the postinst could not make it
	# without a running PostgreSQL).
	if [ ! -s /etc/lava-server/settings.d/00-database.yaml ] ||
		! su postgres -c "psql -tAc \"select 1 from pg_database where datname='lavaserver'\"" 2> /dev/null | grep -q 1; then
		"$LAVA_PY" /usr/share/lava-server/postinst.py > "$T/lava/postinst.log" 2>&1 ||
			bail_out "LAVA's database setup failed: $(tail -n 3 "$T/lava/postinst.log")"
	fi
	port=$(_lava_free_port)
	ws=$(_lava_free_port)
	evport=$(_lava_free_port)
	# Events on loopback: the scheduler and worker react at once
	# (a job takes seconds, not the 20 s polling).
	printf 'EVENT_NOTIFICATION: true\nEVENT_SOCKET: "tcp://127.0.0.1:%s"\n' "$evport" \
		> /etc/lava-server/settings.d/90-artbisect-test.yaml
	chmod 644 /etc/lava-server/settings.d/90-artbisect-test.yaml

	# Objects, made once and kept: the user and its token, the device
	# type, the worker, the two devices.
	# shellcheck disable=SC2086  # one argument per device
	"$LAVA_PY" - "$LAVA_USER" "$LAVA_WORKER" "$LAVA_DEVICE_TYPE" $LAVA_DEVICES > "$T/lava/objects.out" 2> "$T/lava/objects.err" <<'EOF' ||
import os, sys
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lava_server.settings.prod")
import django
django.setup()
from django.contrib.auth.models import User
from django.db import transaction
from linaro_django_xmlrpc.models import AuthToken
from lava_scheduler_app.models import Device, DeviceType, TestJob, Worker
user, worker, dtype, devices = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
u, _ = User.objects.get_or_create(username=user)
u.is_superuser = u.is_staff = True
u.save()
tok = AuthToken.objects.filter(user=u).first() or AuthToken.objects.create(user=u, description="artbisect tests")
dt, _ = DeviceType.objects.get_or_create(name=dtype)
w, _ = Worker.objects.get_or_create(hostname=worker)
w.health = Worker.HEALTH_ACTIVE
w.save()
# Jobs an earlier run left behind would hold the devices.
for j in TestJob.objects.exclude(state=TestJob.STATE_FINISHED):
    with transaction.atomic():
        j.go_state_finished(TestJob.HEALTH_CANCELED)
        j.save()
for name in devices:
    d, _ = Device.objects.get_or_create(hostname=name, defaults={"device_type": dt, "worker_host": w})
    d.device_type, d.worker_host = dt, w
    d.health, d.state = Device.HEALTH_GOOD, Device.STATE_IDLE
    d.save()
print(tok.secret)
print(w.token)
EOF
		bail_out "LAVA objects: $(tail -n 3 "$T/lava/objects.err")"
	LAVA_TOKEN_FILE="$T/lava/token"
	sed -n 1p "$T/lava/objects.out" > "$LAVA_TOKEN_FILE"
	chmod 600 "$LAVA_TOKEN_FILE"
	wtoken=$(sed -n 2p "$T/lava/objects.out")
	i=1
	for d in $LAVA_DEVICES; do
		printf "{%% extends 'qemu.jinja2' %%}\n{%% set mac_addr = '52:54:00:12:34:%02d' %%}\n{%% set memory = 256 %%}\n{%% set arch = 'amd64' %%}\n{%% set no_kvm = True %%}\n" \
			"$i" > "/etc/lava-server/dispatcher-config/devices/$d.jinja2"
		i=$((i + 1))
	done

	_lava_bg gunicorn /usr/bin/gunicorn3 lava_server.wsgi -u lavaserver -g lavaserver \
		--worker-class eventlet --workers 2 --bind "127.0.0.1:$port" --log-level warning
	_lava_bg publisher /usr/bin/lava-server manage lava-publisher --host 127.0.0.1 --port "$ws" \
		--level INFO --log-file -
	_lava_bg scheduler /usr/bin/lava-server manage lava-scheduler --level INFO \
		--log-file - --event-url "tcp://127.0.0.1:$evport"
	LAVA_URL="http://127.0.0.1:$port"
	ok=""
	for i in $(seq 1 120); do
		if curl -fsS --max-time 2 "$LAVA_URL/api/v0.2/system/version/" > /dev/null 2>&1; then ok=1; break; fi
		sleep 0.5
	done
	[ -n "$ok" ] || bail_out "LAVA's web server did not answer within 60 s: $(tail -n 3 "$T/lava/gunicorn.log")"
	_lava_bg worker /usr/bin/lava-worker --name "$LAVA_WORKER" --url "$LAVA_URL/" \
		--ws-url "http://127.0.0.1:$ws/ws/" --token "$wtoken" --worker-dir "$T/lava/worker" \
		--ping-interval 2 --job-log-interval 1 --level INFO --log-file "$T/lava/worker.txt"
	ok=""
	for i in $(seq 1 60); do
		if lava_api "workers/$LAVA_WORKER/" 2> /dev/null | grep -q '"state": *"Online"'; then ok=1; break; fi
		sleep 0.5
	done
	[ -n "$ok" ] || bail_out "the LAVA worker did not come online: $(tail -n 3 "$T/lava/worker.txt" 2> /dev/null)"
	export LAVA_URL LAVA_TOKEN_FILE LAVA_USER LAVA_DEVICES LAVA_DEVICE_TYPE
}
