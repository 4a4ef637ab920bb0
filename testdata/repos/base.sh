#!/bin/sh
# base: a small committed repository with files, folders, an executable and
# a symlink. File times are set in the past before the commit, so the index
# holds no racily clean entries and a snapshot can trust its stat data.
set -eu
mkdir -p dir/sub lib
printf 'alpha\n' >a.txt
printf 'bravo\n' >dir/b.txt
printf 'charlie\n' >dir/sub/c.txt
printf 'delta\n' >dir/sub/d.txt
printf 'package lib\n' >lib/x.go
printf '#!/bin/sh\necho hi\n' >exec.sh
chmod 755 exec.sh
ln -s a.txt link
printf 'zulu\n' >z-last
find . -path ./.git -prune -o -type f -exec touch -t 202001010000 {} +
git add -A
git commit -q -m base
