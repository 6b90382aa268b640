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
