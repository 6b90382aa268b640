#!/bin/bash
# Farm trees on the local disk (tests/mkfarms.py mainline, arch, koji and
# sums, given to --index as a path or a file:// URL) read by the farm code
# that reads them over HTTP: recognised from the directory itself (or named
# with --farm), the same first bad and last good build, build count, trust
# and layout as the same tree served by nginx; a tampered or wrongly signed
# build unavailable for the same reason; a sums tree with its checksum
# lists inside the build directories read as a farm only with --farm; a
# symbolic link inside the tree followed, one out of it never; names with
# control characters refused; bad input said in one line naming the path;
# and a session on a local farm started, given verdicts by hand, run to
# the end by the probe, and resumed without the tree's top being read again.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"
. "$TESTS_SRCDIR/farmlib.sh"

need_cmd gpg dpkg-deb bsdtar zstd rpmbuild timeout

farm_keys
F="$T/farms"
mkfarms mainline "$F/mainline" --keys "$T/keys" || bail_out "mkfarms.py mainline failed"
mkfarms mainline "$F/ml-tampered" --keys "$T/keys" --from "$F/mainline" --variant tampered ||
	bail_out "mkfarms.py mainline tampered failed"
mkfarms mainline "$F/ml-otherkey" --keys "$T/keys" --from "$F/mainline" --variant otherkey ||
	bail_out "mkfarms.py mainline otherkey failed"
mkfarms arch "$F/arch" --keys "$T/keys" || bail_out "mkfarms.py arch failed"
mkfarms arch "$F/arch-tampered" --keys "$T/keys" --from "$F/arch" --variant tampered ||
	bail_out "mkfarms.py arch tampered failed"
mkfarms koji "$F/koji" --keys "$T/keys" || bail_out "mkfarms.py koji failed"
mkfarms sums "$F/sums" --keys "$T/keys" || bail_out "mkfarms.py sums failed"
mkfarms sums "$F/sums-dup" --keys "$T/keys" --from "$F/sums" --variant dup || bail_out "mkfarms.py sums dup failed"

ML_CULPRIT=$(json_get "$F/mainline.json" culprit)   # v6.8.2
ARCH_CULPRIT=$(json_get "$F/arch.json" culprit)     # 6.8.1.arch1-2
AP=$(json_get "$F/arch.json" url_path)              # packages/l/linux/
KOJI_CULPRIT=$(json_get "$F/koji.json" culprit)
KOJI_FAILED=$(json_get "$F/koji.json" failed.0)
KP=$(json_get "$F/koji.json" url_path)              # packages/kernel/
SUMS_CULPRIT=$(json_get "$F/sums.json" culprit)     # 2026-1-10
NP=$(json_get "$F/sums.json" url_path)              # nightly/
FP=$(json_get "$F/sums.json" flat_url_path)         # flat/

farm_probe generic 'boot/vmlinuz-*-generic' 'boot/vmlinuz-*' 'lib/modules/*-generic/modules.dep' \
	'!lib/modules/*-lowlatency' '!usr/src/*-lowlatency'
farm_probe kernel 'usr/lib/modules/*/vmlinuz' 'usr/lib/modules/*/vmlinuz' 'usr/lib/modules/*/pkgbase' \
	'!usr/lib/modules/*/build' '!usr/share/doc/linux'
farm_probe core 'lib/modules/*/vmlinuz' 'lib/modules/*/vmlinuz' 'lib/modules/*/System.map' \
	'!lib/modules/*/kernel' '!usr/share/doc/kernel-doc'
farm_probe app 'app/STATUS' 'app/STATUS' 'app/bin/app'

# What a run found, in one line: exit status, first bad, last good, the
# number of builds, the trust level and the layout.
answer() { # TAG
	printf '%s first=%s last=%s builds=%s trust=%s layout=%s' "$RC" \
		"$(report_field "$T/$1.json" first_new.id)" "$(report_field "$T/$1.json" last_old.id)" \
		"$(report_field "$T/$1.json" builds)" "$(report_field "$T/$1.json" trust.level)" \
		"$(report_field "$T/$1.json" farm.layout)"
}

# -- the four layouts, recognised and forced --------------------------------

: >"$T/generic.log"
farm_bisect ml --index "$F/mainline" --keyring "$FARM_KEY" --check-bounds --probe "$T/generic.probe"
ML_ANSWER=$(answer ml)
like "$ML_ANSWER" "^0 first=$ML_CULPRIT last=v6\\.8\\.1 builds=1[12] trust=signed layout=mainline\$" \
	"mainline tree, a path, no --farm: recognised, the culprit found, signed ($ML_ANSWER)"
is "$(probe_check generic)" clean "mainline tree: the generic amd64 image and its modules only"
ok "mainline tree: the failed build is never probed" not_probed generic "$(json_get "$F/mainline.json" failed.0)"
ok "mainline tree: the old-style build was unpacked and tested good" \
	grep -qx "$(json_get "$F/mainline.json" old_style.0) good" "$T/generic.log"

: >"$T/generic.log"
farm_bisect ml-forced --index "file://$F/mainline/" --farm mainline --keyring "$FARM_KEY" --check-bounds \
	--probe "$T/generic.probe"
is "$(answer ml-forced)" "$ML_ANSWER" "mainline tree, a file:// URL and --farm mainline: the same answer"

: >"$T/generic.log"
farm_bisect ml-digest --index "$F/mainline" --probe "$T/generic.probe"
is "$RC:$(report_field "$T/ml-digest.json" first_new.id):$(report_field "$T/ml-digest.json" trust.level)" \
	"0:$ML_CULPRIT:digest" "mainline tree without --keyring: found, trust \"digest\" from CHECKSUMS"

: >"$T/kernel.log"
farm_bisect arch --index "$F/arch/$AP" --keyring "$FARM_KEY" --check-bounds --probe "$T/kernel.probe"
ARCH_ANSWER=$(answer arch)
is "$ARCH_ANSWER" "0 first=$ARCH_CULPRIT last=6.8.1.arch1-1 builds=10 trust=signed layout=arch" \
	"Arch tree, no --farm: recognised; linux-headers and linux-docs are no builds; the culprit found"
is "$(probe_check kernel)" clean "Arch tree: the linux package's files only"
like "$(steps_where "$T/arch.json" bound=new id)" '^(1:)?6\.9\.1\.arch1-1$' \
	"Arch tree: the epoch build is the newest, not the oldest"
: >"$T/kernel.log"
farm_bisect arch-forced --index "$F/arch/$AP" --farm arch --keyring "$FARM_KEY" --check-bounds \
	--probe "$T/kernel.probe"
is "$(answer arch-forced)" "$ARCH_ANSWER" "Arch tree, --farm arch: the same answer"
ARTBISECT_DEFAULT_KEYRINGS= farm_bisect arch-nokey --index "$F/arch/$AP" --probe "$T/kernel.probe"
is "$RC" 2 "Arch tree without a keyring or --allow-unverified: exit 2, as over HTTP"
like "$(cat "$T/arch-nokey.err")" "$F/arch/${AP%/}.*--keyring" \
	"Arch tree without a keyring: the message names the path and says to pass --keyring"

: >"$T/core.log"
farm_bisect koji --index "$F/koji/$KP" --package kernel-core --arch x86_64 --probe "$T/core.probe"
KOJI_ANSWER=$(answer koji)
is "$KOJI_ANSWER" "0 first=$KOJI_CULPRIT last=6.8.4-300.fc40 builds=8 trust=digest layout=koji" \
	"Koji tree, no --farm: recognised, the culprit found"
is "$(probe_check core)" clean "Koji tree: kernel-core's files only"
ok "Koji tree: the release with no x86_64/ is never probed" not_probed core "$KOJI_FAILED"
: >"$T/core.log"
farm_bisect koji-forced --index "$F/koji/$KP" --farm koji --package kernel-core --arch x86_64 \
	--probe "$T/core.probe"
is "$(answer koji-forced)" "$KOJI_ANSWER" "Koji tree, --farm koji: the same answer"

: >"$T/app.log"
farm_bisect sums --index "$F/sums/$NP" --farm sums --arch x86_64 --keyring "$FARM_KEY" --probe "$T/app.probe"
SUMS_ANSWER=$(answer sums)
is "$SUMS_ANSWER" "0 first=$SUMS_CULPRIT last=2026-1-9 builds=12 trust=signed layout=sums" \
	"sums tree (nightly/), --farm sums: the x86_64 builds in natural order, lists signed"
is "$(probe_check app)" clean "sums tree: every root held the x86_64 app"
: >"$T/app.log"
farm_bisect sums-flat --index "$F/sums/$FP" --probe "$T/app.probe"
like "$(answer sums-flat)" '^0 first=(app-)?1\.10 last=(app-)?1\.9 builds=12 trust=digest layout=sums$' \
	"sums tree (flat/, FILE.sha256 beside each file), no --farm: recognised, the culprit found"
# nightly/ holds only directories: it may be a farm (over HTTP it is taken
# for one), but a directory of builds looks the same, and that is what a
# local directory stays unless --farm says otherwise.
farm_bisect sums-guess --index "$F/sums/$NP" --probe "$T/app.probe"
is "$(report_field "$T/sums-guess.json" farm.layout)" "" \
	"sums tree whose lists are in its build directories, no --farm: read as a directory of builds, as before"

# -- what is refused, as over HTTP ------------------------------------------

: >"$T/generic.log"
farm_bisect ml-tampered --index "$F/ml-tampered" --keyring "$FARM_KEY" --probe "$T/generic.probe"
is "$RC:$(report_field "$T/ml-tampered.json" candidates)" "1:[\"$ML_CULPRIT\", \"v6.8.3\"]" \
	"mainline tree, the culprit's .deb changed after CHECKSUMS: inconclusive, the culprit and the next remain"
is "$(step_field "$T/ml-tampered.json" "$ML_CULPRIT" by)" unavailable "tampered .deb: the culprit is unavailable"
like "$(step_field "$T/ml-tampered.json" "$ML_CULPRIT" reason)" '[Ss][Hh][Aa]-?256' "tampered .deb: the reason is the SHA-256"
ok "tampered .deb: never unpacked" not_probed generic "$ML_CULPRIT"

: >"$T/generic.log"
farm_bisect ml-otherkey --index "$F/ml-otherkey" --farm mainline --keyring "$FARM_KEY" --probe "$T/generic.probe"
is "$RC:$(step_field "$T/ml-otherkey.json" "$ML_CULPRIT" by)" "1:unavailable" \
	"mainline tree, the culprit's CHECKSUMS signed by another key: unavailable"
like "$(step_field "$T/ml-otherkey.json" "$ML_CULPRIT" reason)" 'CHECKSUMS.*([Ss]ignature|[Kk]ey)|([Ss]ignature|[Kk]ey).*CHECKSUMS' \
	"another key: the reason names the checksum list and the signature"

: >"$T/kernel.log"
farm_bisect arch-tampered --index "$F/arch-tampered/$AP" --keyring "$FARM_KEY" --probe "$T/kernel.probe"
is "$RC:$(step_field "$T/arch-tampered.json" "$ARCH_CULPRIT" by)" "1:unavailable" \
	"Arch tree, the culprit changed after signing: unavailable, inconclusive"
like "$(step_field "$T/arch-tampered.json" "$ARCH_CULPRIT" reason)" 'BAD signature' "Arch tampered: a bad .sig signature"
ok "Arch tampered: never unpacked" not_probed kernel "$ARCH_CULPRIT"

: >"$T/app.log"
farm_bisect sums-dup --index "$F/sums-dup/$NP" --farm sums --arch x86_64 --keyring "$FARM_KEY" --probe "$T/app.probe"
is "$RC:$(step_field "$T/sums-dup.json" "$SUMS_CULPRIT" by)" "1:unavailable" \
	"sums tree, the culprit's SHA256SUMS names its file twice: unavailable"
like "$(step_field "$T/sums-dup.json" "$SUMS_CULPRIT" reason)" 'listed twice with different digests' \
	"sums dup: the report says why"

# The same tree over HTTP: the same answers.
if command -v nginx >/dev/null 2>&1 && command -v curl >/dev/null 2>&1 && start_nginx "$T/nginx" "$F"; then
	: >"$T/generic.log"
	farm_bisect h-ml --index "$URL/mainline/" --keyring "$FARM_KEY" --check-bounds --probe "$T/generic.probe"
	is "$(answer h-ml)" "$ML_ANSWER" "mainline: the local tree and the tree over HTTP give the same answer"
	is "$(steps_where "$T/h-ml.json" by=probe id | tr '\n' ' ')" "$(steps_where "$T/ml.json" by=probe id | tr '\n' ' ')" \
		"mainline: the same builds tested, in the same order"
	farm_bisect h-arch --index "$URL/arch/$AP" --keyring "$FARM_KEY" --check-bounds --probe "$T/kernel.probe"
	is "$(answer h-arch)" "$ARCH_ANSWER" "Arch: local and HTTP give the same answer"
	farm_bisect h-koji --index "$URL/koji/$KP" --package kernel-core --arch x86_64 --probe "$T/core.probe"
	is "$(answer h-koji)" "$KOJI_ANSWER" "Koji: local and HTTP give the same answer"
	farm_bisect h-sums --index "$URL/sums/$NP" --farm sums --arch x86_64 --keyring "$FARM_KEY" --probe "$T/app.probe"
	is "$(answer h-sums)" "$SUMS_ANSWER" "sums: local and HTTP give the same answer"
	farm_bisect h-ml-tampered --index "$URL/ml-tampered/" --keyring "$FARM_KEY" --probe "$T/generic.probe"
	is "$(report_field "$T/h-ml-tampered.json" candidates)" "$(report_field "$T/ml-tampered.json" candidates)" \
		"tampered mainline: local and HTTP leave the same candidates"
	stop_nginx
else
	skip "the same trees over HTTP" "nginx (or curl) is not installed or did not start"
fi

# -- links, names and bad input ----------------------------------------------

# flat/ with one more build that is a link inside the tree (followed), and
# one whose file and checksum are links out of it (never read).
mkdir -p "$T/outside"
cp -a "$F/sums/$FP" "$T/flat"
cp "$T/flat/app-1.11.tar.gz" "$T/flat/app-1.11.tar.gz.sha256" "$T/outside/"
ln -s app-1.11.tar.gz "$T/flat/app-1.12.tar.gz"
sed 's/app-1\.11/app-1.12/' "$T/flat/app-1.11.tar.gz.sha256" >"$T/flat/app-1.12.tar.gz.sha256"
ln -s ../outside/app-1.11.tar.gz "$T/flat/app-1.13.tar.gz"
ln -s ../outside/app-1.11.tar.gz.sha256 "$T/flat/app-1.13.tar.gz.sha256"
: >"$T/flat/$(printf 'app-1.14\n.tar.gz')"
farm_bisect links --index "$T/flat" --farm sums --check-bounds --probe "$T/app.probe"
like "$(answer links)" '^0 first=(app-)?1\.10 last=(app-)?1\.9 builds=13 ' \
	"a link inside the tree is a build (13), a link out of it and a name with a newline are none"
like "$(steps_where "$T/links.json" bound=new id)" '^(app-)?1\.12$' \
	"the newest build is the one whose file is a link inside the tree"
ln -s "$T/flat" "$T/flat-link"
farm_bisect link-top --index "$T/flat-link" --farm sums --probe "$T/app.probe"
like "$(answer link-top)" '^0 first=(app-)?1\.10 last=(app-)?1\.9 builds=13 ' \
	"a top directory that is itself a link: its tree is the one it leads to"

farm_bisect wrong-layout --index "$F/mainline" --farm koji --package kernel-core --probe true
is "$RC" 2 "--farm koji on a mainline tree: exit 2"
like "$(cat "$T/wrong-layout.err")" "^artbisect: $F/mainline/?: no version directories" \
	"--farm koji on a mainline tree: the message names the path and what koji did not find"
is "$(wc -l <"$T/wrong-layout.err")" 1 "--farm koji on a mainline tree: one line"
farm_bisect nodir --index "$T/no-such-dir" --farm mainline --probe true
is "$RC" 2 "--farm mainline on a missing directory: exit 2"
like "$(cat "$T/nodir.err")" "^artbisect: $T/no-such-dir: " "missing directory: the message names the path"
mkdir -p "$T/empty"
farm_bisect empty --index "$T/empty" --farm sums --probe true
like "$RC:$(cat "$T/empty.err")" "^2:artbisect: $T/empty/?: .*empty" "an empty directory with --farm: exit 2, named, said empty"
farm_bisect afile --index "$F/mainline.json" --farm mainline --probe true
like "$RC:$(cat "$T/afile.err")" "^2:artbisect: .*mainline\\.json" "--farm with a file, not a directory: exit 2, named"

# -- a session on a local farm -----------------------------------------------

W="$T/sess.work"
ab() { "$ARTBISECT" "$@" --work-dir "$W"; }
status_of() { ab status --json | json_get - "$1" 2>/dev/null; }
judge() {
	local id
	id=$(status_of current.id) && [ -n "$id" ] || return 1
	if grep -q BROKEN "$W"/roots/*-"$id"/boot/vmlinuz-*-generic 2>/dev/null; then echo bad; else echo good; fi
}
cp -a "$F/mainline" "$T/sess-farm"
run ab start --index "$T/sess-farm" --farm mainline --good v6.6 --bad v6.9 --keyring "$FARM_KEY" \
	--cache-dir "$T/sess.cache"
is "$RC" 0 "start --index DIR --farm mainline: exit 0"
is "$(head -c 8 "$W/index.snapshot" 2>/dev/null)" '{"farm":' "the session's snapshot is the farm's"
like "$(status_of current.id)" '^v6\.' "start: a build is waiting"
v=$(judge) && run ab "$v"
is "$RC" 0 "a verdict by hand ($v): exit 0"
v=$(judge) && run ab "$v"
is "$RC" 0 "a second verdict by hand ($v): exit 0"
# A version added to the tree since: the session bisects the builds it
# started with (its snapshot), it does not read the top directory again.
mkdir "$T/sess-farm/v7.0"
builds_before=$(status_of builds)
: >"$T/generic.log"
run ab run --probe "$T/generic.probe" --json
is "$RC" 0 "run resumes the session on the local farm and finishes: exit 0"
is "$(printf '%s' "$OUT" | json_get - first_new.id)" "$ML_CULPRIT" "the session finds the culprit"
is "$(printf '%s' "$OUT" | json_get - farm.layout)" mainline "the session's report names the layout"
is "$(probe_check generic)" clean "the session's probe runs saw the generic image only"
is "$(printf '%s' "$OUT" | json_get - builds)" "${builds_before:-12}" \
	"the resumed session kept its builds: the top directory was not read again"

plan_done
