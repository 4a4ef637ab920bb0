package main

import (
	"github.com/urfave/cli/v2"
)

func newCompletionCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh or fish)",
		UsageText: "gitguard completion bash|zsh|fish",
		Description: "Prints a script that completes gitguard's commands and flags, for the\n" +
			"installed name gitguard and for 'git guard' (git-guard on PATH). Load it with\n" +
			"  bash: source <(gitguard completion bash)       (e.g. in ~/.bashrc)\n" +
			"  zsh:  source <(gitguard completion zsh)        (after compinit)\n" +
			"  fish: gitguard completion fish > ~/.config/fish/completions/gitguard.fish\n" +
			"The scripts ask gitguard itself (--generate-bash-completion) what to offer.",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("completion takes one shell: bash, zsh or fish")
			}
			switch c.Args().First() {
			case "bash":
				e.printf("%s", bashCompletion)
			case "zsh":
				e.printf("%s", zshCompletion)
			case "fish":
				s, err := c.App.ToFishCompletion()
				if err != nil {
					return err
				}
				e.printf("%s\n", s)
			default:
				return usagef("completion: unknown shell %q (want bash, zsh or fish)", c.Args().First())
			}
			return nil
		},
	}
}

const bashCompletion = `# bash completion for gitguard; load with: source <(gitguard completion bash)
_gitguard_words() {
	# $1: the program; then the words typed so far, the current one last.
	local prog=$1 cur=${!#}
	local -a args=("${@:2:$#-2}")
	if [[ $cur == -* ]]; then
		"$prog" "${args[@]}" "$cur" --generate-bash-completion 2>/dev/null
	else
		"$prog" "${args[@]}" --generate-bash-completion 2>/dev/null
	fi
}
_gitguard() {
	local cur=${COMP_WORDS[COMP_CWORD]}
	COMPREPLY=($(compgen -W "$(_gitguard_words "${COMP_WORDS[0]}" "${COMP_WORDS[@]:1:COMP_CWORD-1}" "$cur")" -- "$cur"))
}
complete -o bashdefault -o default -F _gitguard gitguard
# 'git guard ...': git's own completion calls _git_guard when it is defined.
_git_guard() {
	local cur=${COMP_WORDS[COMP_CWORD]} i=1
	# Skip git's global options to find the word "guard".
	while [[ $i -lt $COMP_CWORD && ${COMP_WORDS[i]} != guard ]]; do i=$((i + 1)); done
	local prog=gitguard
	command -v gitguard >/dev/null 2>&1 || prog=git-guard
	COMPREPLY=($(compgen -W "$(_gitguard_words "$prog" "${COMP_WORDS[@]:i+1:COMP_CWORD-i-1}" "$cur")" -- "$cur"))
}
`

const zshCompletion = `#compdef gitguard
# zsh completion for gitguard; load with: source <(gitguard completion zsh)
_gitguard() {
	local -a opts
	local cur=${words[-1]}
	if [[ $cur == -* ]]; then
		opts=("${(@f)$(_CLI_ZSH_AUTOCOMPLETE_HACK=1 ${words[1]} ${words[@]:1:#words[@]-2} $cur --generate-bash-completion 2>/dev/null)}")
	else
		opts=("${(@f)$(_CLI_ZSH_AUTOCOMPLETE_HACK=1 ${words[1]} ${words[@]:1:#words[@]-2} --generate-bash-completion 2>/dev/null)}")
	fi
	if [[ -n ${opts[1]} ]]; then
		_describe 'values' opts
	else
		_files
	fi
}
if (( $+functions[compdef] )); then
	compdef _gitguard gitguard
else
	print -u2 "gitguard completion: run 'autoload -U compinit && compinit' first"
fi
`
