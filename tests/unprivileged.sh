#!/bin/bash
# artbisect as a tester runs it: a normal user, not root. A user is
# made for the test (AB_TEST_USER, default abtester; removed again at
# the end when this run made it) and every command runs as that user
# through setpriv, with HOME its home and no XDG_* variable, so the
# defaults are used: ~/.cache/artbisect, ~/.local/state/artbisect and
# ~/.config/artbisect/config. Standard input is /dev/null throughout.
#
# Covered: files the user cannot write or read (a cache or work
# directory owned by root, a lock a root run left, a config file that
# cannot be read): one line naming the path, the contract's status;
# plain bisections over HTTP (prefetch on, --jobs 2, --check-bounds,
# --flaky, --confirm 2) with --report .html and .md; a session (start,
# good, bad, skip, status, log, run, reset) and a Ctrl-C then run;
# RPM, .deb and zip farms unpacked, --install rpm, artbisect index and
# a local directory as --index; cache list and clean; a checksummed farm
# signed with OpenPGP and --keyring (GnuPG in artbisect's private home);
# --install system refused at once; a probe that mounts and leaves a
# daemon. Then, for all of it: no file in the home that is not the
# user's, nothing written in the home but artbisect's own directories
# and the files asked for (no ~/.rpmdb), nothing left in /tmp or in the
# user's runtime directory, no process of the user left running.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"
. "$TESTS_SRCDIR/farmlib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root, to make a user and run artbisect as it"
for c in setpriv useradd userdel; do
	command -v "$c" >/dev/null 2>&1 || skip_all "$c is not installed (util-linux, passwd)"
done

U=${AB_TEST_USER:-abtester}
if id "$U" >/dev/null 2>&1; then
	# Someone's user: its home is left alone, a fresh one is used.
	UH="$T/home"
	mkdir -p "$UH"
	chown "$U:" "$UH"
	chmod 0700 "$UH"
else
	useradd -m -s /bin/sh "$U" >/dev/null 2>&1 || skip_all "useradd $U failed"
	at_exit "userdel -f -r '$U' >/dev/null 2>&1"
	UH=$(getent passwd "$U" | cut -d: -f6)
fi
UIDN=$(id -u "$U")
chmod 0755 "$T"

# as_user CMD...: CMD as the user, in its home, stdin /dev/null, with a
# clean environment, under a time limit (124: it hung).
as_user_env() {
	setpriv --reuid="$U" --regid="$U" --init-groups \
		env -i HOME="$UH" USER="$U" LOGNAME="$U" LC_ALL=C.UTF-8 \
		PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin "$@"
}
as_user() {
	(cd "$UH" && exec timeout -k 5 60 setpriv --reuid="$U" --regid="$U" --init-groups \
		env -i HOME="$UH" USER="$U" LOGNAME="$U" LC_ALL=C.UTF-8 \
		PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin "$@") </dev/null
}
ab() { as_user "$ARTBISECT" "$@"; }
lines() { printf '%s' "$1" | grep -c ''; }
CACHE="$UH/.cache/artbisect"
WORK="$UH/.local/state/artbisect"

as_user test -x "$ARTBISECT" || skip_all "$U cannot run $ARTBISECT (a directory above it is closed to others)"

# The user's runtime directory, as a login gives it: GnuPG puts the
# sockets of a home of its own there.
RUNDIR=""
if [ -d /run/user ]; then
	RUNDIR="/run/user/$UIDN"
	if [ ! -e "$RUNDIR" ]; then
		mkdir -m 0700 "$RUNDIR" && chown "$U:" "$RUNDIR"
		at_exit "rm -rf '$RUNDIR'"
	fi
fi
runlist() { [ -n "$RUNDIR" ] && (cd "$RUNDIR" && find . | sort); }
run_before=$(runlist)

# Farms, served over HTTP (the server runs as root; the user reads its
# files through it).
mkfarm --out "$T/www/app" --builds 40 --culprit 27 >/dev/null
mkfarm --out "$T/www/zip" --builds 12 --culprit 7 --format zip >/dev/null
have_rpm=0 have_deb=0
command -v rpmbuild >/dev/null 2>&1 && mkfarm --out "$T/www/rpm" --builds 12 --culprit 7 --format rpm >/dev/null && have_rpm=1
command -v dpkg-deb >/dev/null 2>&1 && mkfarm --out "$T/www/deb" --builds 12 --culprit 7 --format deb >/dev/null && have_deb=1
chmod -R a+rX "$T/www"
start_server "$T/www"
I="$BASE/app/index.json"
touch "$T/start-stamp"
sleep 1	# a second apart: find -newer sees what came after

# -- files the user cannot write or read --------------------------------

mkdir -p "$CACHE"	# root's, as after a "sudo artbisect" that kept HOME
run ab --index "$I" --probe ./usr/bin/app --quiet
is "$RC" 3 "a cache directory owned by root: exit 3"
like "$ERR" "^artbisect: cache directory $CACHE(/sha256)? is not writable: Permission denied\$" \
	"  one line, naming the cache directory"
is "$(lines "$ERR")" 1 "  nothing but that line on standard error"
rm -rf "$UH/.cache" "$UH/.local"

mkdir -p "$WORK"
run ab --index "$I" --probe ./usr/bin/app --quiet
is "$RC" 3 "a work directory owned by root: exit 3"
like "$ERR" "^artbisect: work directory $WORK is not writable: Permission denied\$" \
	"  one line, naming the work directory"
run ab status
is "$RC/$(lines "$ERR")" 2/1 "  status: no session there, exit 2 in one line"
rm -rf "$UH/.local" "$UH/.cache"

# The work directory is the user's, the lock in it root's (left by a
# run as root): the lock is what cannot be written, and is named.
as_user mkdir -p "$WORK"
echo 1 > "$WORK/session.lock"
run ab --index "$I" --probe ./usr/bin/app --quiet
is "$RC" 3 "a lock file owned by root in the user's work directory: exit 3"
like "$ERR" "^artbisect: $WORK/session\\.lock is not writable: Permission denied\$" \
	"  one line, naming the lock file, not the work directory the user can write"
rm -rf "$UH/.local" "$UH/.cache"

as_user mkdir -p "$UH/.config/artbisect"
echo "jobs = 2" > "$UH/.config/artbisect/config"
chmod 0600 "$UH/.config/artbisect/config"	# root's
run ab --index "$I" --probe ./usr/bin/app --quiet
is "$RC" 2 "a config file the user cannot read: exit 2"
like "$ERR" "^artbisect: cannot read the configuration file $UH/\\.config/artbisect/config: Permission denied\$" \
	"  one line, naming the file"
run ab cache list
is "$RC/$(lines "$ERR")" 2/1 "  cache list says the same in one line, exit 2"
rm -rf "$UH/.config" "$UH/.cache" "$UH/.local"

# -- bisections over HTTP -----------------------------------------------

run ab --index "$I" --probe ./usr/bin/app --json
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0027 "a plain bisection, prefetch on: found b0027"
tap_ok "$( [ -f "$WORK/session.json" ] && ls "$CACHE/sha256" | grep -q . ; echo $?)" \
	"  the defaults are used: ~/.local/state/artbisect and ~/.cache/artbisect"
is "$(ls -A "$WORK/roots" | wc -l)" 0 "  every scratch root is removed, early unpacks included"
plain_tested=$(echo "$OUT" | json_get - tested)

run ab --index "$I" --probe ./usr/bin/app --jobs 2 --json
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0027 "--jobs 2: found b0027"
run ab --index "$I" --probe ./usr/bin/app --check-bounds --json
is "$RC/$(echo "$OUT" | json_get - first_new.id)/$(echo "$OUT" | json_get - bounds.ok)" 0/b0027/true \
	"--check-bounds: both ends as expected, found b0027"
run ab --index "$I" --probe ./usr/bin/app --flaky --json
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0027 "--flaky: found b0027"
run ab --index "$I" --probe ./usr/bin/app --confirm 2 --json
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0027 "--confirm 2: found b0027"
tap_ok $(( $(echo "$OUT" | json_get - tested) >= plain_tested + 4 ? 0 : 1 )) "  the two builds ran twice more each"

run ab --index "$I" --probe ./usr/bin/app --jobs 2 --report "$UH/report.html" --quiet
is "$RC" 0 "--report FILE.html: exit 0"
ok "  the HTML page names the first bad build" grep -q b0027 "$UH/report.html"
ok "  it draws the range" grep -q '<svg' "$UH/report.html"
run grep -ci '<script' "$UH/report.html"
is "$OUT" 0 "  and has no script"
run ab --index "$I" --probe ./usr/bin/app --report "$UH/report.md" --quiet
is "$RC" 0 "--report FILE.md: exit 0"
like "$(head -n 1 "$UH/report.md")" 'regression in build b0027' "  the Markdown report names the first bad build"

# -- a session by hand, and one interrupted -----------------------------

run ab reset
is "$RC" 0 "reset: exit 0"
run ab start --index "$I"
is "$RC" 0 "start: exit 0"
like "$OUT" '^Build b0019 is ready to test' "  b0019 is ready"
ok "  unpacked under ~/.local/state/artbisect/roots" test -x "$WORK/roots/19-b0019/usr/bin/app"
run ab good
is "$RC" 0 "good: exit 0"
like "$OUT" '^Build b0029 is ready to test' "  b0029 is next"
run ab bad
is "$RC" 0 "bad: exit 0"
next=$(ab status --json | json_get - current.id)
run ab skip
is "$RC" 0 "skip: exit 0 ($next skipped)"
run ab status --json
is "$RC/$(echo "$OUT" | json_get - result)" 0/running "status --json: running"
isnt "$(echo "$OUT" | json_get - current.id)" "$next" "  another build waits"
run ab log
is "$RC" 0 "log: exit 0"
like "$OUT" "^artbisect start --index $I" "  the session as commands"
like "$OUT" "artbisect skip -- $next  # user" "  with the verdicts by hand"
run ab run --probe ./usr/bin/app --json
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0027 "run --probe: found b0027"
run ab reset
is "$RC" 0 "reset: exit 0"
tap_ok "$( [ ! -e "$WORK/session.json" ] && ls "$CACHE/sha256" | grep -q . ; echo $?)" \
	"  the session is gone, the cache kept"

# Ctrl-C: the running probe is stopped, the session kept, run goes on.
# shellcheck disable=SC2016
(cd "$UH" && exec setpriv --reuid="$U" --regid="$U" --init-groups \
	env -i HOME="$UH" USER="$U" LOGNAME="$U" LC_ALL=C.UTF-8 PATH=/usr/bin:/bin \
	"$ARTBISECT" --index "$I" --probe 'sleep 0.4; ./usr/bin/app') </dev/null >"$T/int.out" 2>"$T/int.err" &
pid=$!
for _ in $(seq 200); do
	grep -q 'b0019: good' "$T/int.err" 2>/dev/null && break
	sleep 0.05
done
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
is "$rc" 4 "Ctrl-C during a bisection: exit 4"
like "$(cat "$T/int.err")" 'to go on: artbisect run$' "  it says how to go on"
run ab run --json
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0027 "run after the Ctrl-C: found b0027"
has_step "$OUT" id=b0019 verdict=good by=probe
tap_ok $? "  the verdict before the Ctrl-C is kept"

# No stdin at all (closed, not /dev/null): no prompt, no hang.
run as_user_env "$ARTBISECT" --index "$I" <&-
is "$RC" 2 "no --probe and standard input closed: exit 2"
like "$ERR" 'not a terminal' "  it says why"

# -- packages, archives, local directories ------------------------------

run ab --index "$BASE/zip/index.json" --probe ./usr/bin/app --json
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0007 "zip farm: found b0007"
if [ $have_deb = 1 ]; then
	run ab --index "$BASE/deb/index.json" --probe ./usr/bin/app --jobs 2 --json
	is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0007 ".deb farm, unpacked: found b0007"
	run ab index --output "$UH/debs.json" "$T/www/deb/builds"
	is "$RC/$(json_get "$UH/debs.json" builds.11.id)" 0/1.0.11-1 "artbisect index DIR --output FILE"
	run ab --index "$T/www/deb/builds" --probe ./usr/bin/app --json
	is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/1.0.7-1 "a local directory of .debs as --index: found"
else
	for d in ".deb farm" "artbisect index" "a local directory as --index"; do skip "$d" "dpkg-deb is not installed"; done
fi
if [ $have_rpm = 1 ]; then
	run ab --index "$BASE/rpm/index.json" --probe ./usr/bin/app --json
	is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0007 "RPM farm, unpacked: found b0007"
	run ab index "$T/www/rpm/builds"
	is "$RC/$(echo "$OUT" | json_get - builds.0.id)" 0/1.0.0-1 "artbisect index over RPMs"
	ok "  reading and checking RPMs leaves no rpm database in the home (~/.rpmdb)" test ! -e "$UH/.rpmdb"
	if as_user unshare --user true >/dev/null 2>&1; then
		# The probe notes the uid it runs as: librpm's user namespace
		# (where the user is uid 0) must not reach it.
		printf '#!/bin/sh\nid -u >> "%s/rpm-uids"\nexec ./usr/bin/app\n' "$UH" > "$UH/uid-probe"
		chmod 755 "$UH/uid-probe"
		chown "$U" "$UH/uid-probe" 2>/dev/null
		run ab --index "$BASE/rpm/index.json" --probe "$UH/uid-probe" --install rpm --json
		is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0007 "--install rpm with user namespaces: found b0007"
		is "$(sort -u "$UH/rpm-uids" 2>/dev/null | tr '\n' ' ')" "$(id -u "$U") " \
			"  every probe ran as the user, not as uid 0 of rpm's user namespace"
		rm -f "$UH/rpm-uids" "$UH/uid-probe"
		# Signed RPMs (rpm.org's) under --keyring: the keys go to the
		# process that runs the transaction, which checks them again.
		R=${TESTDATA:-}/rpm-org
		if [ -n "${TESTDATA:-}" ] && [ -f "$R/hello-2.0-1.x86_64-signed.rpm" ]; then
			mkdir -p "$T/www/signed"
			cp "$R/hello-2.0-1.x86_64-signed.rpm" "$T/www/signed/"
			"$PYTHON3" - "$T/www/signed" <<'PY'
import hashlib, json, os, sys
d = sys.argv[1]
data = open(os.path.join(d, "hello-2.0-1.x86_64-signed.rpm"), "rb").read()
art = {"url": "hello-2.0-1.x86_64-signed.rpm", "sha256": hashlib.sha256(data).hexdigest(), "type": "rpm"}
json.dump({"format": "artbisect-index", "version": 1,
           "builds": [{"id": i, "artifacts": [art]} for i in ("first", "middle", "last")]},
          open(os.path.join(d, "index.json"), "w"))
PY
			chmod -R a+rX "$T/www/signed"
			cp "$R/rpm.org-rsa-2048-test.pub" "$UH/key.asc"
			chown "$U" "$UH/key.asc"
			run ab --index "$BASE/signed/index.json" --probe 'test -x ./usr/bin/hello' --install rpm \
				--keyring "$UH/key.asc" --json
			is "$RC/$(echo "$OUT" | json_get - steps.0.id)/$(echo "$OUT" | json_get - steps.0.verdict)" \
				0/middle/good "  signed RPMs under --keyring, installed as the user: the probe saw them"
			rm -f "$UH/key.asc"
		else
			skip "  signed RPMs under --keyring" "rpm.org's test packages are not in TESTDATA"
		fi
		is "$(ls -A "$WORK/roots" | wc -l)" 0 "  its roots are removed"
		ok "  and no ~/.rpmdb" test ! -e "$UH/.rpmdb"
	else
		for d in "--install rpm" "the probes' uid" "signed RPMs" "its roots" "no ~/.rpmdb"; do
			skip "$d" "no user namespaces for $U"
		done
	fi
else
	for d in "RPM farm" "artbisect index over RPMs" "no ~/.rpmdb" "--install rpm" "the probes' uid" "signed RPMs" \
		"its roots" "no ~/.rpmdb"; do
		skip "$d" "rpmbuild is not installed"
	done
fi

run ab cache list
is "$RC" 0 "cache list: exit 0"
like "$OUT" "$BASE/app/builds/b0027\\.tar\\.gz" "  names where each entry came from"
like "$OUT" "entries, .* in $CACHE( |\$)" "  and the cache"
# A cache the user cannot write (root's, say) can be listed, not cleaned.
cp -r "$CACHE" "$T/rootcache"
chmod -R go-w "$T/rootcache"
run ab cache list --cache-dir "$T/rootcache"
is "$RC" 0 "cache list of a cache root owns: exit 0"
like "$OUT" "$BASE/app/builds/b0027\\.tar\\.gz" "  names its entries"
run ab cache clean --cache-dir "$T/rootcache"
is "$RC/$(lines "$ERR")" 3/1 "  cache clean of it: exit 3, one line"
like "$ERR" "$T/rootcache/.* is not writable" "  naming the directory"
run ab cache clean --older-than 1
is "$RC" 0 "cache clean --older-than 1: exit 0"
like "$OUT" '^freed 0 B' "  nothing that young goes"
run ab cache clean
is "$RC" 0 "cache clean: exit 0"
run ab cache list
like "$OUT" "^0 entries, 0 B in $CACHE\$" "  the cache is empty"

# -- a signed checksummed farm, with the user's GnuPG ---------------------

if command -v gpg >/dev/null 2>&1 && [ -n "$(farm_servers)" ]; then
	farm_keys
	mkfarms sums "$T/farms/sums" --keys "$T/keys" >/dev/null || bail_out "mkfarms.py sums failed"
	chmod 0755 "$T/keys"
	chmod 0644 "$FARM_KEY"
	srv=$(farm_servers)
	srv=${srv%% *}
	start_farm_server "$srv" "$T/$srv" "$T/farms" || bail_out "$srv did not start"
	printf '#!/bin/sh\n! grep -q BROKEN app/STATUS\n' > "$T/sums.probe"
	chmod 0755 "$T/sums.probe"
	run ab --index "$URL/sums/$(json_get "$T/farms/sums.json" url_path)" --farm sums --arch x86_64 \
		--keyring "$FARM_KEY" --probe "$T/sums.probe" --json
	is "$RC/$(echo "$OUT" | json_get - first_new.id)" "0/$(json_get "$T/farms/sums.json" culprit)" \
		"sums farm with --keyring: found"
	is "$(echo "$OUT" | "$PYTHON3" -c 'import json,sys; print(" ".join(sorted({s.get("trust","") for s in json.load(sys.stdin)["steps"]})))')" \
		signed "  every build tested was checked against the key"
	is "$(find /tmp /var/tmp -maxdepth 1 -user "$U" -name 'artbisect-gpg.*' 2>/dev/null | wc -l)" 0 \
		"  the private GnuPG home is removed"
	if [ -n "$RUNDIR" ]; then
		is "$(runlist | grep -v '^\./gnupg$')" "$(printf '%s\n' "$run_before" | grep -v '^\./gnupg$')" \
			"  nothing left in $RUNDIR (GnuPG's socket directory for that home)"
	else
		skip "  nothing left in the runtime directory" "no /run/user here"
	fi
else
	for d in "sums farm with --keyring" "checked against the key" "GnuPG home removed" "runtime directory"; do
		skip "$d" "needs gpg and nginx or apache2"
	done
fi

# -- what only root may do ------------------------------------------------

# A farm of packages, where --install system makes sense.
SYS=app
[ $have_rpm = 1 ] && SYS=rpm
ab reset >/dev/null 2>&1
reset_log
run ab start --index "$BASE/$SYS/index.json" --install system
is "$RC" 2 "start --install system as a normal user: exit 2"
like "$ERR" '^artbisect: --install system .*needs root.*--system-root' "  one line: it needs root, or --system-root"
is "$(lines "$ERR")" 1 "  and nothing else"
is "$(count_requests "^GET /$SYS/builds/")" 0 "  nothing downloaded"
ok "  no session left" test ! -e "$WORK/session.json"
printf 'artbisect start --index %s --install system\nartbisect good -- b0005\n' "$BASE/$SYS/index.json" > "$T/system.log"
chmod 0644 "$T/system.log"
run ab replay "$T/system.log"
is "$RC/$(lines "$ERR")" 2/1 "replay of an --install system session: exit 2, one line"
run ab --index "$BASE/$SYS/index.json" --install system --probe true
is "$RC/$(lines "$ERR")" 2/1 "a run with --install system: exit 2, one line"
is "$(count_requests "^GET /$SYS/builds/")" 0 "  nothing downloaded by any of them"

# -- the probe: mounts and daemons ------------------------------------------

# As a normal user the probe gets no namespace of artbisect's: it cannot
# mount in the machine's, and what it mounts in one of its own (unshare)
# goes with it. A daemon it leaves is killed after its step.
cat > "$T/contain.probe" <<EOF
#!/bin/sh
setsid sleep 300 >/dev/null 2>&1 </dev/null &
mkdir -p mnt
if mount -t tmpfs none mnt 2>/dev/null; then echo "\$ARTBISECT_BUILD mounted" >> "$UH/contain.log"; fi
if command -v unshare >/dev/null && unshare -rm sh -c 'mount -t tmpfs none mnt && touch mnt/x' 2>/dev/null; then
	echo "\$ARTBISECT_BUILD ns" >> "$UH/contain.log"
fi
exec ./usr/bin/app
EOF
chmod 0755 "$T/contain.probe"
as_user touch "$UH/contain.log"
run ab --index "$I" --probe "$T/contain.probe" --json
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0027 "a probe that mounts and leaves daemons: found b0027"
grep -q mounted "$UH/contain.log"
none_found $? "  it could not mount in the machine's namespace"
grep -qF "$UH" /proc/self/mountinfo
none_found $? "  no mount of it is left"
grep -q ns "$UH/contain.log" && diag "the probe mounted in a namespace of its own (unshare -rm)"
is "$(ls -A "$WORK/roots" | wc -l)" 0 "  every root is removed"
sleep 0.2
is "$(ps -u "$U" -o stat= | grep -vc '^Z')" 0 "no process of $U is left running"
rm -f "$UH/contain.log"

# -- nothing anywhere else ----------------------------------------------------

is "$(find "$UH" ! -user "$U" | wc -l)" 0 "no file in the home that is not $U's"
is "$(cd "$UH" && find . -newer "$T/start-stamp" ! -path . ! -path ./.cache ! -path ./.local ! -path ./.local/state \
	! -path './.cache/artbisect*' ! -path './.local/state/artbisect*' \
	! -name report.html ! -name report.md ! -name debs.json | sort | tr '\n' ' ')" "" \
	"nothing written in the home but artbisect's directories and the files asked for"
left=$(find /tmp /var/tmp /dev/shm -xdev -user "$U" 2>/dev/null | grep -v "^$T")
is "$left" "" "nothing of $U's in /tmp, /var/tmp or /dev/shm"

plan_done
