#!/bin/bash
# `artbisect index [farm options] URL` on a farm writes an index v1 that bisects to the
# same answer as the farm itself, and reads no listing when it is used:
# a mainline farm (with --keyring) and a Koji tree (with --package), each
# served by nginx and by Apache.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"
. "$TESTS_SRCDIR/farmlib.sh"

need_cmd curl gpg dpkg-deb rpmbuild timeout
[ -n "$(farm_servers)" ] || skip_all "neither nginx nor apache2 is installed (apt-get install nginx-light apache2)"

farm_keys
F="$T/farms"
mkfarms mainline "$F/mainline" --keys "$T/keys" || bail_out "mkfarms.py mainline failed"
mkfarms koji "$F/koji" --keys "$T/keys" || bail_out "mkfarms.py koji failed"
ML_CULPRIT=$(json_get "$F/mainline.json" culprit)
KOJI_CULPRIT=$(json_get "$F/koji.json" culprit)
KOJI_COMMIT=$(json_get "$F/koji.json" commit)
KP=$(json_get "$F/koji.json" url_path)
# An Arch farm (whose packages need bsdtar and zstd to make), and the
# same with the culprit signed by another key.
AP=""
if command -v bsdtar >/dev/null && command -v zstd >/dev/null; then
	mkfarms arch "$F/arch" --keys "$T/keys" || bail_out "mkfarms.py arch failed"
	mkfarms arch "$F/otherkey" --keys "$T/keys" --from "$F/arch" --variant otherkey ||
		bail_out "mkfarms.py arch otherkey failed"
	AP=$(json_get "$F/arch.json" url_path)
fi

farm_probe generic 'boot/vmlinuz-*-generic' 'boot/vmlinuz-*' 'lib/modules/*-generic/modules.dep'
farm_probe core 'lib/modules/*/vmlinuz' 'lib/modules/*/vmlinuz' '!lib/modules/*/kernel'

# check_index FILE: a valid index v1 with builds, whose every one but failed ones has
# artifacts with absolute http URLs and a sha256. Prints what is wrong.
check_index() {
	"$PYTHON3" -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print("no index: %s" % e)
    sys.exit(0)
bad = []
if d.get("format") != "artbisect-index" or d.get("version") != 1:
    bad.append("format %r version %r" % (d.get("format"), d.get("version")))
if not d.get("builds"):
    bad.append("no builds")
for b in d.get("builds") or []:
    if b.get("status") == "failed":
        continue
    arts = b.get("artifacts") or []
    if not arts:
        bad.append("%s: no artifacts" % b.get("id"))
    for a in arts:
        if not str(a.get("url", "")).startswith("http://127.0.0.1:"):
            bad.append("%s: url %r" % (b.get("id"), a.get("url")))
        if len(str(a.get("sha256", ""))) != 64:
            bad.append("%s: sha256 %r" % (b.get("id"), a.get("sha256")))
print("; ".join(bad))
' "$1" 2>&1
}

listings() { # access log lines for directory URLs (ending in /)
	grep -c ' /[^ ]*/ [0-9]' "$1" 2>/dev/null || :
}

for srv in $(farm_servers); do
	if ! start_farm_server "$srv" "$T/$srv" "$F"; then
		tap_ok 1 "$srv: the server starts"
		continue
	fi
	U="$URL"
	LOG="$T/$srv/access.log"

	# mainline
	run timeout 120 "$ARTBISECT" index --farm mainline --keyring "$FARM_KEY" \
		--output "$T/$srv-ml.idx.json" "$U/mainline/"
	is "$RC" 0 "$srv: artbisect index URL (mainline): exit 0"
	[ "$RC" = 0 ] || diag "$ERR"
	is "$(check_index "$T/$srv-ml.idx.json")" "" "$srv: mainline: an index v1, every build with absolute URLs and SHA-256s"
	farm_bisect "$srv-ml-farm" --index "$U/mainline/" --keyring "$FARM_KEY" --probe "$T/generic.probe"
	: >"$LOG"
	farm_bisect "$srv-ml-idx" --index "$T/$srv-ml.idx.json" --probe "$T/generic.probe"
	is "$RC:$(report_field "$T/$srv-ml-idx.json" first_new.id)" "0:$ML_CULPRIT" \
		"$srv: mainline: bisecting the written index finds the culprit"
	is "$(report_field "$T/$srv-ml-farm.json" first_new.id) $(report_field "$T/$srv-ml-farm.json" last_old.id)" \
		"$ML_CULPRIT v6.8.1" "$srv: mainline: the farm itself: first bad and last good"
	is "$(report_field "$T/$srv-ml-idx.json" first_new.id) $(report_field "$T/$srv-ml-idx.json" last_old.id)" \
		"$ML_CULPRIT v6.8.1" "$srv: mainline: the index: the same first bad and last good"
	is "$(report_field "$T/$srv-ml-idx.json" tested)" "$(report_field "$T/$srv-ml-farm.json" tested)" \
		"$srv: mainline: the index: as many probe runs as the farm"
	like "$(listings "$LOG"):$(grep -c '\.deb 200' "$LOG")" '^0:[1-9]' \
		"$srv: mainline: the index run downloads packages and reads no listing"
	# The written index keeps what the farm run checked ("farm_trust":
	# "signed"), but whoever reads it checks only its sha256s: it claims
	# no signature for them, nor does any other index that says so.
	is "$(report_field "$T/$srv-ml-farm.json" trust.level)" "signed" "$srv: mainline: the farm run with --keyring: \"signed\""
	like "$(grep -c '"farm_trust": *"signed"' "$T/$srv-ml.idx.json")" '^[1-9]' "$srv: mainline: the index says so of its builds"
	is "$(report_field "$T/$srv-ml-idx.json" trust.level)" "" \
		"$srv: mainline: a run of that index claims no signature check it did not make (no trust level)"

	# koji
	# (with the cache of the cache-dir setting, as a run would take it)
	run timeout 120 env ARTBISECT_CACHE_DIR="$T/$srv-koji-cache" "$ARTBISECT" index --farm koji \
		--package kernel-core --output "$T/$srv-koji.idx.json" "$U/koji/$KP"
	is "$RC" 0 "$srv: artbisect index URL (koji): exit 0"
	[ "$RC" = 0 ] || diag "$ERR"
	like "$(ls "$T/$srv-koji-cache/sha256" 2>/dev/null | grep -c .)" '^[1-9]' \
		"$srv: koji: the packages were verified in ARTBISECT_CACHE_DIR's cache"
	is "$(check_index "$T/$srv-koji.idx.json")" "" "$srv: koji: an index v1, every build with absolute URLs and SHA-256s"
	: >"$LOG"
	farm_bisect "$srv-koji-idx" --index "$T/$srv-koji.idx.json" --probe "$T/core.probe"
	is "$RC:$(report_field "$T/$srv-koji-idx.json" first_new.id)" "0:$KOJI_CULPRIT" \
		"$srv: koji: bisecting the written index finds the culprit"
	is "$(report_field "$T/$srv-koji-idx.json" first_new.commit)" "$KOJI_COMMIT" "$srv: koji: the snapshot's commit is kept in the index"
	is "$(probe_check core)" "clean" "$srv: koji: the index holds kernel-core only"
	like "$(listings "$LOG"):$(grep -c '\.rpm 200' "$LOG")" '^0:[1-9]' \
		"$srv: koji: the index run downloads packages and reads no listing"

	# arch, with a keyring that lacks the farm's key: no build resolves,
	# so no index (one of failed builds would bisect to "failed to
	# build"), exit 3 and the first reason.
	if [ -n "$AP" ]; then
		run timeout 120 "$ARTBISECT" index --farm arch --keyring "$OTHER_KEY" --cache-dir "$T/$srv-arch.cache" \
			--output "$T/$srv-arch.idx.json" "$U/arch/$AP"
		is "$RC" 3 "$srv: arch, every signature by a key not in the keyring: exit 3"
		ok "$srv: arch, no build resolved: no index written" test ! -e "$T/$srv-arch.idx.json"
		like "$(printf '%s\n' "$ERR" | tail -n 1)" \
			"^artbisect: $U/arch/$AP: no build could be resolved, no index written; the first reason: .*key not in" \
			"$srv: arch, no build resolved: one line that names the key problem"
		run timeout 120 "$ARTBISECT" index --farm arch --keyring "$FARM_KEY" --quiet --cache-dir "$T/$srv-arch.cache" \
			--output "$T/$srv-otherkey.idx.json" "$U/otherkey/$AP"
		is "$RC" 0 "$srv: arch, one build signed by another key: exit 0"
		like "$(printf '%s\n' "$ERR" | grep '^artbisect: warning')" \
			'^artbisect: warning: 1 build failed its check \(marked failed in the index\): .*([Ss]ignature|[Kk]ey)' \
			"$srv: arch, one build signed by another key: a warning says how many and why"
		is "$(grep -c '"status": "failed"' "$T/$srv-otherkey.idx.json")" 1 "$srv: arch, another key: that build is marked failed"
	else
		skip "$srv: arch farm" "bsdtar or zstd is not installed"
	fi

	stop_farm_server "$srv"
done

plan_done
