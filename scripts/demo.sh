#!/bin/sh
# A short tour on a throwaway repository: the agent edits a file, you edit
# the same file, and `gitguard undo` takes out only the agent's line;
# `gitguard redo` puts it back. Needs gitguard and git on PATH.
set -eu
demo=$(mktemp -d)
trap 'rm -rf "$demo"' EXIT
cd "$demo"
git init -q -b main
git config user.name demo
git config user.email demo@example.com
printf 'package main\n\nfunc main() {\n\tprintln("hello")\n}\n\n// helpers\n' >main.go
git add main.go && git commit -qm init

say() { printf '\n# %s\n' "$*"; }
step() { printf '$ %s\n' "$*"; "$@"; }

say "The agent's edit, recorded as call c1 (gitguard call start c1 ... ; call finish c1):"
gitguard -q start --run demo
gitguard -q call start c1 --tool write_file -- main.go
printf 'package main\n\nfunc main() {\n\tprintln("hello, agent")\n}\n\n// helpers\n' >main.go
gitguard -q call finish c1
step gitguard diff --call c1

say "You add a note to the same file; status calls it conflicted (you changed it too):"
printf '// a note you wrote\n' >>main.go
step gitguard status --no-unrecorded --exit-zero

say "Undo takes out the agent's line and keeps yours:"
step gitguard undo
step cat main.go

say "Redo puts the agent's line back, your note still there:"
step gitguard redo
step cat main.go
