#!/bin/sh
# bench/series.sh: how gitguard's commands and disk grow with a run's length.
#
#   bench/series.sh [-n FILES] [-r ROUNDS] [-s "10 100 500 2000"] [-g GITGUARD] [-c]
#
# Copies the generated repository $BENCH_DIR/repo-FILES (made by bench/gen
# when missing) to $BENCH_DIR/series-FILES, starts one run and grows it call
# by call to each size of the series in turn (each call: `call start` naming
# one of 10 tracked files, in turn, so that every size names the same paths
# and only the run's length grows; a line appended to it, `call finish`; the same
# edit is committed into a shadow repository, a bare repository with
# gc.auto=0 whose work tree is the same folder). At each size it measures,
# with bench/measure, interleaved with `git status --porcelain`: call
# start+finish of one path, status --no-unrecorded, diff --call, undo --call
# (redone untimed), undo --dry-run, resume, ledger and log. Then the disk
# the growth took (du of .git/objects and of the shadow's objects, no gc),
# and at the end what `finish`, `prune --keep 0` and `prune --gc` leave.
# -g times another gitguard binary (an older build, say) on the same plan;
# -c times CPU (user+system of the process tree) instead of wall time, which
# a busy machine disturbs far less.
# The tables go to stdout; the per-size tables are kept in $BENCH_DIR.
set -eu

files=10000 rounds=5 sizes="10 100 500 2000" gg="" cpu=""
while getopts n:r:s:g:c opt; do
	case $opt in
	n) files=$OPTARG ;;
	r) rounds=$OPTARG ;;
	s) sizes=$OPTARG ;;
	g) gg=$OPTARG ;;
	c) cpu=-cpu ;;
	*) echo "usage: $0 [-n FILES] [-r ROUNDS] [-s SIZES] [-g GITGUARD] [-c]" >&2; exit 2 ;;
	esac
done

top=$(cd "$(dirname "$0")/.." && pwd)
work=${BENCH_DIR:-/tmp/gitguard-bench}
bin=$work/bin
mkdir -p "$work" "$bin"
(cd "$top" && go build -o "$bin/measure" ./bench/measure)
if [ -z "$gg" ]; then
	(cd "$top" && go build -o "$bin/gitguard" ./cmd/gitguard)
	gg=$bin/gitguard
fi
[ -d "$work/repo-$files" ] || (cd "$top" && go run ./bench/gen -files "$files" -out "$work/repo-$files")
repo=$work/series-$files
shadow=$work/series-shadow-$files
out=$work/series-out-$files
rm -rf "$repo" "$shadow" "$out"
cp -a "$work/repo-$files" "$repo"
mkdir -p "$out"

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com

cd "$repo"
git config gc.auto 0
git init -q --bare "$shadow"
git --git-dir="$shadow" config gc.auto 0
sh_git() { GIT_DIR="$shadow" GIT_WORK_TREE="$repo" git "$@"; }
sh_git add -A && sh_git commit -q -m base

# 11 tracked files: the series' calls edit the first 10 in turn, the timed
# call start+finish the last, so status and undo have 11 paths at most.
set -- $(git ls-files | awk -v s=$((files / 60)) 'NR % s == 2' | head -11)
paths="$*"
extra=$(echo $paths | cut -d' ' -f11)
"$gg" start --run series >/dev/null

kib() { du -sk "$1" | cut -f1; }
objects() { find "$1" -type f | wc -l; }
made=0
T="$(printf '\t')"
printf '| calls | gitguard KiB/call | objects/call | shadow KiB/call | objects/call | gitguard total MiB | shadow total MiB |\n|---:|---:|---:|---:|---:|---:|---:|\n' >"$out/disk.md"
for n in $sizes; do
	g0=$(kib .git/objects) s0=$(kib "$shadow/objects") go0=$(objects .git/objects) so0=$(objects "$shadow/objects")
	from=$made
	while [ "$made" -lt "$n" ]; do
		made=$((made + 1))
		p=$(echo $paths | cut -d' ' -f$(((made - 1) % 10 + 1)))
		"$gg" call start "c$made" --tool edit -- "$p" >/dev/null 2>&1
		echo "line $made" >>"$p"
		"$gg" call finish "c$made" >/dev/null 2>&1
		sh_git add -A && sh_git commit -q -m "c$made"
	done
	d=$((made - from))
	g1=$(kib .git/objects) s1=$(kib "$shadow/objects") go1=$(objects .git/objects) so1=$(objects "$shadow/objects")
	awk -v n="$n" -v d="$d" -v g="$((g1 - g0))" -v go="$((go1 - go0))" -v s="$((s1 - s0))" -v so="$((so1 - so0))" -v gt="$g1" -v st="$s1" \
		'BEGIN { printf "| %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", n, g/d, go/d, s/d, so/d, gt/1024, st/1024 }' >>"$out/disk.md"
	last=c$made
	plan=$out/plan-$n
	cat >"$plan" <<PLAN
git status${T}time${T}GIT_OPTIONAL_LOCKS=0 git status --porcelain >/dev/null
call start+finish, 1 path${T}time${T}$gg call start x$n-\$ROUND --tool edit -- $extra >/dev/null && echo x >>$extra && $gg call finish x$n-\$ROUND >/dev/null
status --no-unrecorded${T}time${T}$gg status --no-unrecorded >/dev/null; [ \$? -le 1 ]
diff --call last${T}time${T}$gg diff --call $last >/dev/null
undo --call last${T}time${T}$gg undo --call $last >/dev/null; [ \$? -le 1 ]
redo${T}setup${T}$gg redo >/dev/null; [ \$? -le 1 ]
undo --dry-run${T}time${T}$gg undo --dry-run >/dev/null; [ \$? -le 1 ]
resume${T}time${T}$gg resume >/dev/null
ledger${T}time${T}$gg ledger >/dev/null
log${T}time${T}$gg log >/dev/null
PLAN
	echo "series: $n calls in the run, measuring" >&2
	"$bin/measure" $cpu -C "$repo" -plan "$plan" -rounds "$rounds" -base "git status" >"$out/times-$n.md"
done

# One table: each case's median per size, its ratio to git status at that
# size, and its growth from the first size to the last.
awk -F'|' -v sizes="$sizes" '
	FNR == 1 { k++ }
	FNR > 2 { name = $2; gsub(/^ +| +$/, "", name); med[name, k] = $3 + 0; ratio[name, k] = $6 + 0
		if (!(name in seen)) { seen[name] = 1; order[++m] = name } }
	END {
		ns = split(sizes, sz, " ")
		printf "| command |"; for (i = 1; i <= ns; i++) printf " %s calls |", sz[i]; printf " growth |\n|---|"
		for (i = 1; i <= ns; i++) printf "---:|"; printf "---:|\n"
		for (j = 1; j <= m; j++) { n = order[j]; printf "| %s |", n
			for (i = 1; i <= ns; i++) printf " %.1f ms (%.2f×) |", med[n, i], ratio[n, i]
			printf " %.2f× |\n", (med[n, 1] > 0 ? med[n, ns] / med[n, 1] : 0) }
	}' $(for n in $sizes; do echo "$out/times-$n.md"; done) >"$out/series.md"

# What pruning the run frees (no gc, then gc). Prune leaves packs written
# in the last minute alone (a writer may not have moved its ref yet): wait.
before=$(kib .git)
"$gg" finish >/dev/null
sleep 61
"$gg" prune --keep 0 >/dev/null
pruned=$(kib .git)
"$gg" prune --keep 0 --gc >/dev/null 2>&1 || true
gcd=$(kib .git)
{
	echo "times (median${cpu:+ CPU}, ratio to git status in the same rounds), $rounds rounds, $files files:"
	echo
	cat "$out/series.md"
	echo
	echo "disk during the growth (no gc):"
	echo
	cat "$out/disk.md"
	echo
	echo "prune: .git $before KiB with the run, $pruned KiB after finish and prune --keep 0, $gcd KiB after prune --gc (du -sk)"
} | tee "$out/summary.md"
