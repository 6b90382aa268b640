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

if [ -f /usr/share/bash-completion/bash_completion ]; then
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
else
	skip "zsh completion" "zsh is not installed"
fi

plan_done
