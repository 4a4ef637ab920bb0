#!/bin/sh
# treediff: two commits whose trees differ in every way a tree can: a file
# modified, a mode changed, a symlink added, a file that becomes a folder and
# a folder that becomes a file, a folder deleted, new nested folders, a
# non-ASCII name, and a name that sorts before its folder twin (x-y, x/).
# HEAD~1 and HEAD hold the two states.
set -eu
sh "$(dirname "$0")/base.sh"
printf 'sorts before x/ \n' >x-y
printf 'file that becomes a folder\n' >x
mkdir -p gone/deep
printf 'deleted folder\n' >gone/deep/f
git add -A
git commit -q -m one
printf 'modified\n' >a.txt
chmod 644 exec.sh
rm link
ln -s dir link
rm x
mkdir x
printf 'now a folder\n' >x/inside
rm -r dir/sub
printf 'folder became a file\n' >dir/sub
rm -r gone
mkdir -p new/deeper
printf 'added\n' >new/deeper/n.txt
printf 'added\n' >'é name'
git add -A
git commit -q -m two
