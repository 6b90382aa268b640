#!/bin/bash
# Shell completion: bash through bash-completion's own machinery, zsh
# by loading the function in a real zsh.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

C="$TESTS_SRCDIR/../data/completion"
complete_bash() {
	bash -c '
		. /usr/share/bash-completion/bash_completion
		. "$1"
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(( $# - 1 ))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_artbisect artbisect "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"
	' complete "$C/artbisect" "$@" 2>&1
}

# What _arguments and _describe are given, one spec a line: the zsh
# function run with those two stubbed, the words as typed.
complete_zsh() {
	zsh -f -c '
		_arguments() { print -rl -- "$@" }
		_describe() { print -rl -- "$@" }
		words=("${@[2,-1]}")
		CURRENT=${#words}
		source "$1"
	' complete "$C/_artbisect" "$@" 2>&1
}

# The options each command takes: for the session commands their --help
# (made from the option table in src/cli/cli.c; --version is offered at
# the top only), for index and cache their getopt tables.
SRC="$TESTS_SRCDIR/../src/cli"
COMMANDS="top start good bad skip run status log replay reset index cache"
help_opts() {
	"$ARTBISECT" "$@" --help | grep -oE '(^  |, )--[a-z][a-z-]*' | sed 's/^[ ,]*//' | sort -u
}
getopt_opts() {
	grep -hoE '\{ "[a-z-]+", (required|no)_argument' "$@" | sed -E 's/^\{ "([a-z-]+)".*/--\1/' | sort -u
}
takes() { # CMD
	case $1 in
	top) help_opts ;;
	index) getopt_opts "$SRC/cmd_index.c" "$SRC/cmd_index_farm.c" ;;
	cache) getopt_opts "$SRC/cmd_cache.c" ;;
	*) help_opts "$1" | grep -vx -- --version ;;
	esac
}
words_for() { # CMD: the words before the one completed
	[ "$1" = top ] && echo artbisect || echo "artbisect $1"
}
for cmd in $COMMANDS; do
	takes "$cmd" > "$T/takes-$cmd"
done
# Every option of the table itself, in case one has no --help line.
grep -oE '^[[:space:]]*\{ "[a-z-]+", [01], OPT_' "$SRC/cli.c" | sed -E 's/.*"([a-z-]+)".*/--\1/' |
	sort -u > "$T/takes-table"
[ -s "$T/takes-table" ] || echo "--no-option-table-in-cli.c" > "$T/takes-table"
install_values=$("$ARTBISECT" --help | sed -nE 's/^  --install ([a-z]+) .*/\1/p' | sort | tr '\n' ' ')
: "${install_values:=(none in --help)}"
# Options taken but not offered ("missing:"), offered but not taken ("extra:").
drift() { # FILE-OFFERED CMD
	comm -3 "$1" "$T/takes-$2" | sed -E 's/^\t(.*)/missing:\1/; /^missing:/!s/^/extra:/' | tr '\n' ' '
}
# The table's options that no session command offers.
unoffered() { # SHELL
	cat "$T/$1-"{top,start,good,bad,skip,run,status,log,replay,reset} | sort -u > "$T/$1-session"
	comm -23 "$T/takes-table" "$T/$1-session" | tr '\n' ' '
}

if [ -f /usr/share/bash-completion/bash_completion ]; then
	for cmd in $COMMANDS; do
		complete_bash $(words_for "$cmd") -- | grep -- '^--' | sort -u > "$T/bash-$cmd"
		is "$(drift "$T/bash-$cmd" "$cmd")" "" "bash: '$cmd' offers exactly the options it takes"
	done
	is "$(unoffered bash)" "" "bash: every option in src/cli/cli.c's table is offered"
	is "$(complete_bash artbisect --install '' | sort | tr '\n' ' ')" "$install_values" \
		"bash: the values of --install"
	is "$(complete_bash artbisect start --farm '' | sort | tr '\n' ' ')" "arch koji mainline sums " \
		"bash: the values of --farm"
	is "$(complete_bash artbisect st | sort | tr '\n' ' ')" "start status " "bash: subcommands"
	like "$(complete_bash artbisect --ti)" '^--timeout$' "bash: options"
	is "$(complete_bash artbisect --timeout-verdict '' | sort | tr '\n' ' ')" "bad skip " "bash: option values"
	out=$(complete_bash artbisect good --)
	like "$out" '^--work-dir$' "bash: good takes --work-dir"
	unlike "$out" '^--index$' "bash: good does not offer --index"
	is "$(complete_bash artbisect cache '' | sort | tr '\n' ' ')" "--cache-dir --help --older-than clean list " \
		"bash: cache actions"
	# Build ids: from a local --index, and from the session's snapshot
	# (the index is then served over HTTP: no request may be made).
	mkfarm --out "$T/farm" --builds 30 --culprit 20
	export PATH="$(dirname "$ARTBISECT"):$PATH"
	is "$(complete_bash artbisect --index "$T/farm/index.json" --good b001 | tr '\n' ' ')" \
		"b0010 b0011 b0012 b0013 b0014 b0015 b0016 b0017 b0018 b0019 " "bash: --good completes ids of a local --index"
	start_server "$T/farm"
	"$ARTBISECT" start --index "$BASE/index.json" --work-dir "$T/w" --cache-dir "$T/c" > /dev/null 2>&1
	reset_log
	is "$(complete_bash artbisect bad --work-dir "$T/w" b002 | tr '\n' ' ')" \
		"b0020 b0021 b0022 b0023 b0024 b0025 b0026 b0027 b0028 b0029 " "bash: bad completes ids from the session"
	is "$(complete_bash artbisect --work-dir "$T/w" --index "$BASE/index.json" --bad b0029 | tr '\n' ' ')" \
		"b0029 " "bash: --bad completes from the session, whatever --index says"
	is "$(ARTBISECT_WORK_DIR="$T/w" complete_bash artbisect good b001 | tr '\n' ' ')" \
		"b0010 b0011 b0012 b0013 b0014 b0015 b0016 b0017 b0018 b0019 " \
		"bash: ids from the session of the work-dir setting (ARTBISECT_WORK_DIR)"
	is "$(grep -c . "$T/server.log" || true)" 0 "completion made no request to the farm"
	is "$(complete_bash artbisect --work-dir "$T/none" --index "$BASE/index.json" --good b00 | grep -c . || true)" 0 \
		"no session and a remote index: nothing offered"
	is "$(grep -c . "$T/server.log" || true)" 0 "and nothing fetched"
else
	skip "bash completion" "bash-completion is not installed"
fi

if command -v zsh > /dev/null; then
	run zsh -f -c "autoload -Uz compinit && compinit -u -d '$T/zcompdump' && fpath=('$C' \$fpath) && autoload -Uz _artbisect && whence -w _artbisect"
	like "$RC/$OUT" '^0/_artbisect: function' "zsh: the completion function loads"
	run zsh -n "$C/_artbisect"
	is "$RC" 0 "zsh: the completion file parses"
	for cmd in $COMMANDS; do
		complete_zsh $(words_for "$cmd") -- | sed -nE 's/^[*]?(\([^)]*\))?(--[a-z][a-z-]*).*/\2/p' |
			sort -u > "$T/zsh-$cmd"
		is "$(drift "$T/zsh-$cmd" "$cmd")" "" "zsh: '$cmd' offers exactly the options it takes"
	done
	is "$(unoffered zsh)" "" "zsh: every option in src/cli/cli.c's table is offered"
	like "$(complete_zsh artbisect start --)" "^--install\\[.*:\\(${install_values% }\\)\$" \
		"zsh: the values of --install"
	like "$(complete_zsh artbisect start --)" '^--farm\[.*:\(mainline arch koji sums\)$' \
		"zsh: the values of --farm"
else
	skip "zsh completion" "zsh is not installed"
fi

plan_done
