#!/bin/sh
# Wall time of a "call start" + "call finish" pair, for two gitguard
# binaries on the same repository, rounds interleaved so both run under the
# same load: bench/callpair.sh OLD_BINARY NEW_BINARY [PAIRS] [ROUNDS]
# Each round runs PAIRS pairs of path-scoped calls (one file) and PAIRS
# pairs of whole-workspace calls in a repository of 2000 files, and prints
# the mean time per pair in ms.
set -eu
old=$1 new=$2 pairs=${3:-20} rounds=${4:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
repo=$dir/repo
git init -q -b main "$repo"
cd "$repo"
i=0
while [ $i -lt 2000 ]; do
	d=d$((i / 50))
	mkdir -p "$d"
	echo "file $i" > "$d/f$i.txt"
	i=$((i + 1))
done
git add -A
git -c user.name=b -c user.email=b@b commit -qm init
ms() { date +%s%N | cut -c1-13; }
run_pairs() { # binary kind round
	bin=$1 kind=$2 round=$3
	t0=$(ms)
	j=0
	while [ $j -lt "$pairs" ]; do
		id=$kind-$round-$j-$(basename "$bin")
		if [ "$kind" = path ]; then
			"$bin" call start "$id" --tool edit -- d0/f0.txt >/dev/null 2>&1
			echo "$id" > d0/f0.txt
		else
			"$bin" call start "$id" --tool run_command >/dev/null 2>&1
			echo "$id" > d1/f50.txt
		fi
		"$bin" call finish "$id" >/dev/null 2>&1
		j=$((j + 1))
	done
	echo $(( ($(ms) - t0) / pairs ))
}
"$new" start --run bench >/dev/null 2>&1
printf 'round\tpath old\tpath new\twhole old\twhole new  (ms per pair)\n'
r=1
while [ $r -le "$rounds" ]; do
	po=$(run_pairs "$old" path $r) pn=$(run_pairs "$new" path $r)
	wo=$(run_pairs "$old" whole $r) wn=$(run_pairs "$new" whole $r)
	printf '%s\t%s\t%s\t%s\t%s\n' $r "$po" "$pn" "$wo" "$wn"
	r=$((r + 1))
done
