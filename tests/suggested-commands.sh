#!/bin/bash
# Every command artbisect suggests works when pasted as printed: each
# hint is brought about for real, taken from the output as printed, and
# run with sh -c (bash -c where the quoting is $'...', which sh lacks)
# from another directory than the one it was typed in, unless it says
# cd itself; then what it says it does is checked. Work directories and
# index paths hold spaces, quotes, '$' and non-ASCII; the index's build
# ids hold shell; one run speaks German.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

mkfarm --out "$T/farm" --builds 20 --culprit 7
start_server "$T/farm"
# The hints say "artbisect": the one being tested.
PATH="$(dirname "$ARTBISECT"):$PATH"
mkdir -p "$T/elsewhere"
E="$T/elsewhere"
idx="$BASE/index.json"
# pasted SHELL DIR CMD: CMD pasted into SHELL (sh or bash) in DIR; RC, OUT, ERR.
pasted() {
	diag "pasted into $1 in $2: $3"
	run env -C "$2" "$1" -c "$3"
}
status_of() { "$ARTBISECT" status --json --work-dir "$1" | json_get - "$2"; }
# The command in "... if it works," and the like (padded to 40 columns).
hint_line() { sed -n "s/^  \\(.*[^ ]\\) *$2\$/\\1/p" <<<"$1"; }
# interrupt_at FILE ERRFILE DIR ARG...: artbisect ARG... started in DIR,
# stderr to ERRFILE, given a Ctrl-C once it is fetching FILE (which
# stalls); RC its exit.
interrupt_at() {
	local file=$1 errf=$2 dir=$3 pid i=0
	shift 3
	reset_log
	set_faults "{\"$file\": [\"always:stall\"]}"
	(cd "$dir" && exec "$@") > /dev/null 2> "$errf" &
	pid=$!
	while [ $i -lt 100 ] && [ "$(count_requests "GET /$file")" = 0 ]; do sleep 0.05; i=$((i + 1)); done
	sleep 0.2
	kill -INT "$pid"
	wait "$pid"
	RC=$?
	set_faults '{}'
}

# --- good, bad and skip after start ------------------------------------------
W="$T/w d'q \$x ä"
run "$ARTBISECT" start --index "$idx" --work-dir "$W"
is "$RC" 0 "start in a work directory with a space, quotes, \$ and ä: exit 0"
good=$(hint_line "$OUT" 'if it works,') bad=$(hint_line "$OUT" 'if it shows the problem,')
skip=$(hint_line "$OUT" 'if it cannot be tested\.')
pasted sh "$E" "$good"
is "$RC/$(status_of "$W" steps.0.id)/$(status_of "$W" steps.0.verdict)" 0/b0009/good \
	"the printed 'good' command, pasted elsewhere: b0009 is recorded good"
pasted sh "$E" "$bad"
is "$RC/$(status_of "$W" steps.1.verdict)" 0/bad "the printed 'bad' command records bad"
pasted sh "$E" "$skip"
is "$RC/$(status_of "$W" steps.2.verdict)" 0/skip "the printed 'skip' command records skip"

# --- a session that is in the way ---------------------------------------------
# A probe that stops the run (status 200) the first time, then judges:
# $T/onceN.sh, a new one each time, its name in ONCE.
n_once=0
new_once() {
	n_once=$((n_once + 1))
	ONCE="$T/once$n_once.sh"
	printf '#!/bin/sh\n[ -e "%s" ] || { : > "%s"; exit 200; }\nexec ./usr/bin/app\n' \
		"$T/once$n_once" "$T/once$n_once" > "$ONCE"
	chmod +x "$ONCE"
}
# stopped WORKDIR: a bisection stopped by its probe; the session is kept.
stopped() {
	new_once
	run "$ARTBISECT" --index "$idx" --probe "$ONCE" --work-dir "$1"
}
# found OUT: 0/1 when the report in OUT names b0007.
found() { grep -c 'The first bad build is b0007' <<<"$1"; }
W2="$T/w2 'stopped'"
stopped "$W2"
hint=$(sed -n 's/^The session is kept in .*; to go on: //p' <<<"$ERR")
is "$RC/$hint" "4/artbisect run --work-dir '$T/w2 '\\''stopped'\\'''" "a stopped run: exit 4, says how to go on"
pasted sh "$E" "$hint"
is "$RC/$(found "$OUT")" 0/1 "... pasted elsewhere: found"
run "$ARTBISECT" good --work-dir "$W2"
hint=$(sed -n "s/^artbisect: the session in .* has ended already; to clear it: //p" <<<"$ERR")
like "$hint" '^artbisect reset --work-dir ' "a verdict after the end says how to clear the session"
pasted sh "$E" "$hint"
is "$RC/$(ls "$W2")" 0/session.lock "... pasted: the session is gone"

W3="$T/w3 \$HOME"
stopped "$W3"
run "$ARTBISECT" --index "$idx" --probe "$ONCE" --work-dir "$W3"
hint=$(sed -n "s/^Continuing the session in .* (0 verdicts kept); to start over: //p" <<<"$ERR")
like "$RC/$hint" "^0/artbisect reset --work-dir '" "the same command again continues the session, says how to start over"
pasted sh "$E" "$hint"
is "$RC/$(ls "$W3")" 0/session.lock "... pasted: the session is gone"

W4="$T/w4 x"
stopped "$W4"
run "$ARTBISECT" --index "$idx" --probe ./usr/bin/app --work-dir "$W4" --good b0002
cont=$(hint_line "$ERR" 'continues it,')
like "$RC/$cont" "^2/artbisect run --work-dir '" "another range in the way: exit 2, says how to continue it"
pasted sh "$E" "$cont"
is "$RC/$(found "$OUT")/$(status_of "$W4" last_old.id)" 0/1/b0006 \
	"... pasted: the old session goes on to its answer"
# A byte that is not UTF-8 in the work directory (Latin-1 ä): the hints
# that go through the terminal filter stay pasteable, as \xe4.
W5="$T/w5 $(printf '\344')"
stopped "$W5"
run "$ARTBISECT" --index "$idx" --probe ./usr/bin/app --work-dir "$W5" --good b0002
rm_hint=$(hint_line "$ERR" 'removes it\.')
like "$rm_hint" "^artbisect reset --work-dir \\$'" "a work directory that is not UTF-8: the hint quotes it with \$'...'"
pasted bash "$E" "$rm_hint"
is "$RC/$(ls "$W5")" 0/session.lock "... pasted into bash: that session is gone"

# --- no session, a damaged one ----------------------------------------------
run "$ARTBISECT" status --work-dir "$T/no such"
hint=$(sed -n "s/^artbisect: no session in .*; start one with: //p" <<<"$ERR")
like "$RC/$hint" "^2/artbisect start --index URL --work-dir '$T/no such'\$" "no session: exit 2, says how to start one"
pasted sh "$E" "${hint/ URL / $idx }"
is "$RC/$(status_of "$T/no such" current.id)" 0/b0009 "... pasted with the URL: a session there"

# One in the default work directory, which a hint for another must not touch.
"$ARTBISECT" start --index "$idx" > /dev/null 2>&1
W6="$T/w6 'damaged'"
"$ARTBISECT" start --index "$idx" --work-dir "$W6" > /dev/null 2>&1
printf '{"format": "artbisect-session", "argv": [' > "$W6/session.json"
run "$ARTBISECT" good --work-dir "$W6"
hint=$(sed -n "s/^artbisect: .*: not a session file this version can read (.*); to remove it: //p" <<<"$ERR")
like "$RC/$hint" "^3/artbisect reset --work-dir '" "a damaged session file: exit 3, says how to remove it, with its work directory"
pasted sh "$E" "$hint"
is "$RC/$(ls "$W6")" 0/session.lock "... pasted: the damaged session is gone"
is "$(status_of "$XDG_STATE_HOME/artbisect" current.id)" b0009 "the session in the default work directory is untouched"
"$ARTBISECT" start --index "$idx" --work-dir "$W6" > /dev/null 2>&1
"$PYTHON3" -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["steps"] = [{"id": "b0003", "verdict": "maybe", "by": "user"}]
json.dump(d, open(sys.argv[1], "w"))' "$W6/session.json"
run "$ARTBISECT" status --work-dir "$W6"
hint=$(sed -n "s/^artbisect: .*: step 1 is damaged; to remove the session: //p" <<<"$ERR")
like "$RC/$hint" "^3/artbisect reset --work-dir '" "a damaged step: exit 3, says how to remove the session"
pasted sh "$E" "$hint"
is "$RC/$(ls "$W6")" 0/session.lock "... pasted: that session is gone too"

# --- probes that cannot run -------------------------------------------------
mkdir -p "$T/my dir"
printf '#!/bin/sh\nexec ./usr/bin/app\n' > "$T/my dir/p.sh"
chmod +x "$T/my dir/p.sh"
W7="$T/w7"
(cd "$T/my dir" && "$ARTBISECT" --index "$idx" --probe './p.sh' --work-dir "$W7") > /dev/null 2> "$T/w7.err"
hint=$(sed -n 's/^The session is kept in .*; to go on: //p' "$T/w7.err")
like "$hint" "^artbisect run --work-dir $W7 --probe .*my dir/p\\.sh" \
	"a relative probe meant from a directory with a space: the hint names the file there"
pasted sh "$E" "$hint"
is "$RC/$(found "$OUT")" 0/1 "... pasted elsewhere: the probe runs, found"
# run with a probe of its own, stopped: the hint keeps that probe (the
# session's saved one cannot run).
(cd "$T/my dir" && "$ARTBISECT" --index "$idx" --probe './p.sh' --work-dir "$T/w7b") > /dev/null 2>&1
new_once
run "$ARTBISECT" run --work-dir "$T/w7b" --probe "$ONCE"
hint=$(sed -n 's/^The session is kept in .*; to go on: //p' <<<"$ERR")
is "$RC/$hint" "4/artbisect run --work-dir $T/w7b --probe $ONCE" \
	"run --probe P, stopped: the hint goes on with P, not the session's probe"
pasted sh "$E" "$hint"
is "$RC/$(found "$OUT")" 0/1 "... pasted elsewhere: found"
W8="$T/w8"
run "$ARTBISECT" --index "$idx" --probe 'no-such-probe-command' --work-dir "$W8"
hint=$(sed -n 's/^The session is kept in .*; to go on, give \(.*\) a --probe that runs\.$/\1/p' <<<"$ERR")
is "$RC/$hint" "4/artbisect run --work-dir $W8" "a probe not on \$PATH: says what to give a --probe"
pasted sh "$E" "$hint --probe ./usr/bin/app"
is "$RC/$(found "$OUT")" 0/1 "... pasted with a --probe that runs: found"

# --- the report file could not be written -------------------------------------
mkdir -p "$T/typed/rep"
printf '#!/bin/sh\nrm -rf "%s/typed/rep"\nexec ./usr/bin/app\n' "$T" > "$T/rm-rep.sh"
chmod +x "$T/rm-rep.sh"
(cd "$T/typed" && "$ARTBISECT" --index "$idx" --probe "$T/rm-rep.sh" --work-dir "$T/w9" --report rep/r.md) \
	> /dev/null 2> "$T/w9.err"
hint=$(sed -n 's/^artbisect: cannot write the report to .*; once that is fixed, \(.*\) writes it again$/\1/p' "$T/w9.err")
like "$hint" "^artbisect run --work-dir $T/w9 --report $T/typed/rep/r\\.md\$" \
	"a report that cannot be written: the command that writes it, by its absolute path"
mkdir "$T/typed/rep"
pasted sh "$E" "$hint"
is "$RC/$(grep -c 'regression in build b0007$' "$T/typed/rep/r.md" 2>/dev/null)" 0/1 \
	"... pasted elsewhere once the directory is back: the report is where it was asked for"

# --- Ctrl-C -------------------------------------------------------------------
# A German locale of our own (as tests/i18n.sh makes it).
gmo="$TESTS_BUILDDIR/../po/de.gmo"
[ -f "$gmo" ] || gmo="$TESTS_SRCDIR/../po/de.gmo"
mkdir -p "$T/mo/de/LC_MESSAGES" "$T/loc"
de=()
if [ -f "$gmo" ] && cp "$gmo" "$T/mo/de/LC_MESSAGES/artbisect.mo" &&
	{ localedef -i de_DE -f UTF-8 "$T/loc/de_DE.UTF-8" > /dev/null 2>&1 || [ -d "$T/loc/de_DE.UTF-8" ]; }; then
	de=(env LOCPATH="$T/loc" LC_ALL=de_DE.UTF-8 ARTBISECT_LOCALEDIR="$T/mo")
fi
mkdir -p "$T/typed 'de'"
if [ ${#de[@]} -gt 0 ]; then
	interrupt_at index.json "$T/de.err" "$T/typed 'de'" "${de[@]}" "$ARTBISECT" --index "$idx" \
		--probe ./usr/bin/app --work-dir "wd ä" --report r.md
	hint=$(sed -n 's/^Noch nichts gespeichert; zum Neubeginn: //p' "$T/de.err")
	like "$RC/$hint" "^4/cd '$T/typed '\\\\''de'\\\\''' && artbisect --index .* --work-dir 'wd ä' --report r\\.md\$" \
		"Ctrl-C before anything is saved, in German: the command as typed, from where it was typed"
	run "${de[@]}" env -C "$E" sh -c "$hint"
	is "$RC/$(grep -c 'Regression in Build b0007$' "$T/typed 'de'/r.md" 2>/dev/null)" 0/1 \
		"... pasted elsewhere: found, the report where it was asked for"
	"${de[@]}" "$ARTBISECT" start --index "$idx" --work-dir "$T/w-de ä" > "$T/de.out" 2>&1
	hint=$(hint_line "$(cat "$T/de.out")" 'wenn er funktioniert,')
	like "$hint" "^artbisect good --work-dir '$T/w-de ä'\$" "start in German: the command for a build that works"
	run "${de[@]}" env -C "$E" sh -c "$hint"
	is "$RC/$(status_of "$T/w-de ä" steps.0.verdict)" 0/good "... pasted: recorded good"
else
	skip "Ctrl-C hint in German" "no German catalog or locale"
	skip "... pasted" "no German catalog or locale"
	skip "start in German" "no German catalog or locale"
	skip "... pasted" "no German catalog or locale"
fi

# The session kept, its command interrupted while the index came: the
# command as typed goes on with it.
W10=w10
stopped "$T/$W10"
interrupt_at index.json "$T/w10.err" "$T" "$ARTBISECT" --index "$idx" --probe ./usr/bin/app --work-dir "$W10"
hint=$(sed -n 's/^The session is kept in .*; to go on: //p' "$T/w10.err")
like "$RC/$hint" "^4/cd $T && artbisect --index .* --work-dir w10\$" "Ctrl-C while a kept session's index comes: says how to go on"
pasted sh "$E" "$hint"
is "$RC/$(found "$OUT")" 0/1 "... pasted elsewhere: found"

# A local index in a directory with quotes and '$', whose first and last
# builds have ids that are shell: start is interrupted while it fetches
# the first build; the hint goes on with the session's own options.
ev="$T/in'dex \$d"
mkdir -p "$ev"
"$PYTHON3" - "$T/farm/index.json" "$ev/index.json" "$BASE" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["builds"]:
    for a in b["artifacts"]:
        a["url"] = sys.argv[3] + "/" + a["url"]
d["builds"][0]["id"] = "b0000 $(touch pwned)`touch pwned`'x"
d["builds"][-1]["id"] = "--probe=touch pwned;b0019"
json.dump(d, open(sys.argv[2], "w"))
EOF
# A long work directory: the hints are longer than an error message holds.
long=$(printf '%0200d' 0)
W11="$T/w11/$long/$long"
interrupt_at builds/b0009.tar.gz "$T/w11.err" "$T" "$ARTBISECT" start --index "$ev/index.json" --work-dir "$W11" \
	--cache-dir "$T/cache11"
hint=$(sed -n 's/^The session is kept in .*; to go on: //p' "$T/w11.err")
like "$RC/$hint" "^4/artbisect start --work-dir $W11 --index '.*' --good 'b0000 .*' --bad '--probe=touch pwned;b0019' --cache-dir $T/cache11\$" \
	"Ctrl-C while start fetches the build: says how to go on, every word quoted"
run "$ARTBISECT" good --work-dir "$W11"
verdict=$(sed -n "s/^artbisect: no build is waiting for a verdict; name one (\\(.*\\) ID), or prepare the next with: .*/\\1/p" <<<"$ERR")
start=$(sed -n "s/^artbisect: no build is waiting for a verdict; name one (.* ID), or prepare the next with: //p" <<<"$ERR")
is "$RC/$verdict" "2/artbisect good --work-dir $W11" "a verdict with no build waiting: exit 2, the verdict command with its work directory"
is "$start" "$hint" "... and the start command that goes on"
pasted sh "$E" "$start"
like "$RC/$OUT" '^0/Build b0009 is ready to test' "... that start command, pasted elsewhere: the build is made ready"
tap_ok "$([ ! -e "$E/pwned" ] && [ ! -e "$T/pwned" ]; echo $?)" "no build id ran as a command"
pasted sh "$E" "$verdict b0004"
is "$RC/$(status_of "$W11" steps.0.id)/$(status_of "$W11" steps.0.verdict)" 0/b0004/good \
	"... that verdict command with b0004, pasted: b0004 is recorded good"
# The log says how to make the session again.
"$ARTBISECT" log --work-dir "$W11" > "$T/w11.log"
like "$(head -n 1 "$T/w11.log")" 'artbisect replay FILE makes it again' "the log says how to replay it"
pasted sh "$E" "artbisect replay '$T/w11.log' --work-dir '$T/w11 replayed'"
is "$RC/$(status_of "$T/w11 replayed" steps.0.id)/$(status_of "$T/w11 replayed" current.id)" \
	"0/b0004/$(status_of "$W11" current.id)" \
	"replay FILE, pasted: the same verdicts, the next build ready"
tap_ok "$([ ! -e "$E/pwned" ] && [ ! -e "$T/pwned" ]; echo $?)" "no build id ran as a command on replay either"

# --- the prompt: quit, then status --------------------------------------------
W12="$T/w12'q\$"
run env TERM=xterm "$PYTHON3" "$TESTS_SRCDIR/person.py" '[["good or bad\\?[^\\n]*: $", "q\n"], ["never", ""]]' \
	"$ARTBISECT" --index "$idx" --work-dir "$W12"
hint=$(sed -n 's/^The session is kept in .*; to go on: \(.*\)\r\{0,1\}$/\1/p' <<<"$OUT")
run "$ARTBISECT" status --work-dir "$W12"
hint2=$(sed -n 's/^  waiting:    b0009 (not unpacked now: \(.*\) unpacks it again)$/\1/p' <<<"$OUT")
is "$hint2" "$hint" "quit at the prompt: status says the same command unpacks the build again"
run env -C "$E" TERM=xterm NO_COLOR=1 "$PYTHON3" "$TESTS_SRCDIR/person.py" '[]' /bin/sh -c "$hint2"
is "$RC/$(grep -cF "Build b0009 is ready in $W12/roots/" <<<"$OUT")/$(found "$OUT")" 0/1/1 \
	"... pasted at a terminal: unpacks b0009 again, asks, finds"

# --- --index DIR with an index.json in it ------------------------------------
cp -R "$T/farm" "$T/my farm"
run "$ARTBISECT" --index "$T/my farm" --probe ./usr/bin/app --work-dir "$T/w13" --json
frag=$(sed -n 's/^.* holds an index.json; reading the builds in the directory instead (\(--index .*\) reads that index)$/\1/p' <<<"$ERR")
like "$frag" "^--index '$T/my farm/index.json'\$" "a directory with an index.json: says which --index reads it"
pasted sh "$E" "artbisect $frag --probe ./usr/bin/app --work-dir '$T/w13b'"
like "$RC/$ERR" '^0/Bisecting mkfarm test farm' "... with it, pasted elsewhere: that index is read"

# --- the way to --help -------------------------------------------------------
for args in "--nope" "--probe x" "start --nope" "good --nope" "run --nope" "status --probe x" "index --nope" \
	"cache --nope" "nosuchcommand" "start" "cache" "log x"; do
	# shellcheck disable=SC2086  # the words as typed
	run "$ARTBISECT" $args
	hint=$(sed -n 's/^.*(see \(.* --help\))$/\1/p' <<<"$ERR")
	pasted sh "$E" "$hint"
	like "$RC/$hint/$OUT" '^0/artbisect.* --help/Usage: ' "'artbisect $args': the --help it names, pasted, prints the usage"
done

# --- the git commands of the report ------------------------------------------
if command -v git > /dev/null; then
	repo="$T/repo"
	broken_history "$repo"
	mkfarm --from-git "$repo" --out "$T/gitfarm"
	run "$ARTBISECT" --index "$T/gitfarm/index.json" --probe 'sh ./test.sh' --work-dir "$T/w14"
	log=$(sed -n 's/^  \(git log .*\)$/\1/p' <<<"$OUT") bis=$(sed -n 's/^  \(git bisect start .*\)$/\1/p' <<<"$OUT")
	pasted sh "$repo" "$log"
	like "$RC/$OUT" '^0/[0-9a-f]+ commit 5$' "the report's git log, pasted in the clone: the one commit between"
	c5=$(git -C "$repo" rev-parse main~2)
	pasted sh "$repo" "$bis"
	is "$RC/$(head -n 1 <<<"$OUT")" "0/$c5 is the first bad commit" \
		"the report's git bisect start, pasted in the clone: git names commit 5"
	git -C "$repo" bisect reset -q > /dev/null 2>&1
else
	skip "git log, pasted" "git is not installed"
	skip "git bisect start, pasted" "git is not installed"
fi

# --- --install system: a kernel that is running, one that is installed -------
if command -v dpkg > /dev/null && command -v dpkg-deb > /dev/null; then
	mkfarm --out "$T/debfarm" --builds 6 --culprit 3 --format deb --package-name linux-image-6.1.0-test
	SYS="$T/sys"
	mkdir -p "$SYS/var/lib/dpkg/info" "$SYS/var/lib/dpkg/updates" "$SYS/var/lib/dpkg/triggers" \
		"$SYS/boot/grub" "$SYS/proc/sys/kernel" "$T/stubs"
	: > "$SYS/var/lib/dpkg/status"
	: > "$SYS/var/lib/dpkg/available"
	printf "menuentry 'Linux 6.1.0-test' {\n\tlinux /boot/vmlinuz-6.1.0-test\n}\n" > "$SYS/boot/grub/grub.cfg"
	# The boot loader's one-shot tool, a recording stub (this test only).
	printf '#!/bin/sh\necho "grub-reboot $*" >> "%s/calls"\n' "$T" > "$T/stubs/grub-reboot"
	chmod +x "$T/stubs/grub-reboot"
	Ws="$T/w sys"
	sys() { PATH="$T/stubs:$PATH" "$@"; }
	run sys "$ARTBISECT" start --index "$T/debfarm/index.json" --install system --system-root "$SYS" --work-dir "$Ws"
	is "$RC/$(status_of "$Ws" current.id)" 0/b0002 "start --install system: b0002 installed"
	echo 6.1.0-test > "$SYS/proc/sys/kernel/osrelease"	# rebooted into it
	run sys "$ARTBISECT" run --work-dir "$Ws"
	good=$(sed -n 's/^artbisect: run needs --probe to judge the running kernel (or type \(.*\) or .*)$/\1/p' <<<"$ERR")
	is "$RC/$good" "2/artbisect good --work-dir '$Ws'" "run without --probe after the boot: exit 2, says what to type"
	run sys env -C "$E" sh -c "$good"
	is "$RC/$(status_of "$Ws" steps.0.id)/$(status_of "$Ws" steps.0.verdict)" 0/b0002/good \
		"... pasted: b0002 is recorded good"
	n=0
	while [ "$(status_of "$Ws" result)" = running ] && [ $n -lt 6 ]; do
		sys "$ARTBISECT" bad --work-dir "$Ws" > /dev/null 2>&1
		n=$((n + 1))
	done
	run sys "$ARTBISECT" start --index "$T/debfarm/index.json" --install system --system-root "$SYS" \
		--work-dir "$Ws" --good b0001
	hint=$(sed -n "s/^artbisect: the finished session in .* installed kernels on this machine; remove them first with: //p" <<<"$ERR")
	like "$RC/$hint" "^2/artbisect reset --work-dir '$Ws'\$" "a new session over a finished one that installed kernels: says how to remove them"
	run sys env -C "$E" sh -c "$hint"
	is "$RC/$(dpkg --root="$SYS" -l 2>/dev/null | grep -c '^ii')/$(ls "$Ws")" 0/0/session.lock \
		"... pasted: the kernel is purged, the session gone"
else
	for i in 1 2 3 4 5; do skip "--install system hints" "dpkg is not installed"; done
fi

plan_done
