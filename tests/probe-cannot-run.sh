#!/bin/bash
# A probe that cannot run (issue 20, part 1): its first run exits 126 or
# 127 because its program is missing or not executable, so every build
# would be "bad" and the answer a confident wrong one. artbisect stops
# with exit 4 and says why, naming a relative path that exists where it
# was started; a probe whose program is there and exits 127 on purpose
# stops too (contract section 4b), and 126 or 127 later is a verdict.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

mkfarm --out "$T/farm" --builds 40 --culprit 23
start_server "$T/farm"
mkdir -p "$T/here"
printf '#!/bin/sh\nexec ./usr/bin/app\n' > "$T/here/myprobe.sh"
chmod +x "$T/here/myprobe.sh"
ab() { "$ARTBISECT" --index "$BASE/index.json" --cache-dir "$T/cache" "$@"; }

# A relative path meant from where artbisect was started.
run bash -c "cd '$T/here' && '$ARTBISECT' --index '$BASE/index.json' --cache-dir '$T/cache' \
	--work-dir '$T/w1' --probe './myprobe.sh --quiet'"
is "$RC" 4 "a probe not found in the root: exit 4, not a wrong answer"
like "$ERR" "the probe could not be run \\(exit 127 from '\\./myprobe\\.sh --quiet' in $T/w1/roots/[0-9]+-b[0-9]+\\)" \
	"the message names the command, its exit status and the directory it ran in"
like "$ERR" "it is in $T/here, where artbisect was started: give its absolute path, --probe '$T/here/myprobe\\.sh --quiet'" \
	"the message names the file where artbisect was started and the --probe to give"
unlike "$OUT" 'The first bad build' "no first bad build is reported"
like "$ERR" "to go on: artbisect run --work-dir $T/w1 --probe '$T/here/myprobe\\.sh --quiet'" \
	"it says how to go on: with the probe it meant, not the one that cannot run"
# The command as printed, pasted into a shell: the session goes on and
# finds the culprit.
hint=$(sed -n 's/^.*; to go on: //p' "$T/run.err")
run bash -c "cd / && PATH='$(dirname "$ARTBISECT")':\$PATH && $hint --cache-dir '$T/cache'"
is "$RC" 0 "the printed command, pasted: found"
like "$OUT" 'The first bad build is b0023' "the printed command, pasted: the right build"
# A bare name, meant from the directory artbisect was started in.
run bash -c "cd '$T/here' && '$ARTBISECT' --index '$BASE/index.json' --cache-dir '$T/cache' \
	--work-dir '$T/w1b' --probe 'myprobe.sh'"
is "$RC" 4 "a bare name found where artbisect was started: exit 4"
like "$ERR" "myprobe\\.sh is not a command on \\\$PATH; it is in $T/here, where artbisect was started: give its absolute path, --probe $T/here/myprobe\\.sh" \
	"and the message gives the --probe to give"

# A misspelt command name.
run ab --work-dir "$T/w2" --probe 'no-such-probe-command --x'
is "$RC" 4 "a command not on \$PATH: exit 4"
like "$ERR" 'no-such-probe-command is not a command on \$PATH' "the message says it is not on \$PATH"
like "$ERR" "to go on, give artbisect run --work-dir $T/w2 a --probe that runs\\." \
	"and prints no command that would stop again"

# A file that is there but not executable (the shell says 126).
run ab --work-dir "$T/w3" --probe './usr/share/app/version'
is "$RC" 4 "a probe that is not executable: exit 4"
like "$ERR" 'usr/share/app/version is not executable' "the message says it is not executable"

# Under --jobs, whichever probe ends first stops the run the same way.
run ab --work-dir "$T/w4" --jobs 3 --probe './myprobe.sh'
is "$RC" 4 "--jobs 3: a probe not found stops the run too"

# A command broken over lines without a backslash: sh -c runs the second
# line, an option, as a command of its own (127), whatever the first did.
run ab --work-dir "$T/w7" --probe './usr/bin/app --version
    --verbose'
is "$RC" 4 "a --probe broken over two lines: exit 4"
like "$ERR" "line 2 of the command starts with '--verbose'" "the message names the line the shell ran on its own"
like "$ERR" "end the line before it with a backslash" "and says how to join it"
# With the backslash, as the message says, it is one command: a verdict.
run ab --work-dir "$T/w8" --json --probe './usr/bin/app \
    --version'
isnt "$RC" 4 "joined with a backslash: the probe runs, no stop"

# The program is there and exits 127 itself on the first build: still
# no verdict (contract section 4b), exit 4 with a plainer message.
run ab --work-dir "$T/w5" --json --probe 'sh -c "exit 127"'
is "$RC" 4 "a probe that runs and exits 127 on the first build: exit 4"
is "$(json_get "$T/run.out" result)/$(json_get "$T/run.out" steps)" "aborted/[]" "no verdict was taken from it"
like "$ERR" "the probe exited with status 127 on b[0-9]+, the first build it ran" "the message says why it stopped"
# And 127 on a later build than the first is a verdict too.
run ab --work-dir "$T/w6" --json --probe 'test "$ARTBISECT_STEP" = 1 && ./usr/bin/app || exit 127'
is "$RC" 0 "127 after the first run is a verdict"

plan_done
