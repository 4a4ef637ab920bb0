#!/bin/sh
# A two-minute tour on a throwaway repository: the agent edits a file, the
# user edits the same file, and `gitguard undo` takes out only the agent's
# line. Needs gitguard and git on PATH.
set -eu
demo=$(mktemp -d)
trap 'rm -rf "$demo"' EXIT
cd "$demo"
git init -q -b main
git config user.name demo
git config user.email demo@example.com
printf 'package main\n\nfunc main() {\n\tprintln("hello")\n}\n\n// helpers\n' > main.go
git add main.go && git commit -qm init

step() { printf '\n$ %s\n' "$*"; "$@"; }

step gitguard start --run demo
step gitguard call start c1 --tool write_file -- main.go
sed -i 's/"hello"/"hello, agent"/' main.go                  # the agent's edit
step gitguard call finish c1
echo '// a note the user wrote' >> main.go                   # the user's edit, later
step gitguard status --no-unrecorded
step gitguard diff --call c1
step gitguard undo
step cat main.go
step git status --short
step gitguard redo
step gitguard log
