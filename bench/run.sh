#!/bin/sh
# bench/run.sh: time gitguard against git on one generated repository.
#
#   bench/run.sh [-n FILES] [-r ROUNDS] [-k] [-w] [-a]
#
# Builds gitguard and the measuring helper, generates (or reuses, with -k)
# the repository $BENCH_DIR/repo-FILES with bench/gen, and runs every case
# interleaved, round after round, as whole processes: one warm-up round,
# then ROUNDS timed ones. Prints a markdown table (median, min, max wall,
# ratio to `git status --porcelain` run with GIT_OPTIONAL_LOCKS=0, peak RSS).
# With -w only the snapshot cases run, once with the Linux walker and once
# with the portable one (a build with -tags gitguard_portable: what macOS
# and Windows use), so the cost of the fallback is known.
# With -a only the .gitattributes cases run (see attributes_plan below).
# With -S only the whole-tree snapshot cases run; -c times CPU instead.
set -eu

# --- run-length series ---------------------------------------------------
# bench/run.sh -s "10 100 500 2000" [-n FILES] [-r ROUNDS] [-g GITGUARD]:
# how the commands that name a call or a path, the ledger, resume and log,
# and the disk per call (beside a shadow repository) grow with the length
# of a run. Handed to bench/series.sh, which documents it.
case " $* " in *" -s "*) exec "$(dirname "$0")/series.sh" "$@" ;; esac
# --- end of the run-length series section --------------------------------

files=10000 rounds=5 keep=0 walkers=0 attributes=0 snapshots=0 cpu=
while getopts n:r:kwaSc opt; do
	case $opt in
	n) files=$OPTARG ;;
	r) rounds=$OPTARG ;;
	k) keep=1 ;;
	w) walkers=1 ;;
	a) attributes=1 ;;
	S) snapshots=1 ;;
	c) cpu=-cpu ;;
	*) echo "usage: $0 [-n FILES] [-r ROUNDS] [-k] [-w] [-a] [-S] [-c]" >&2; exit 2 ;;
	esac
done

top=$(cd "$(dirname "$0")/.." && pwd)
work=${BENCH_DIR:-/tmp/gitguard-bench}
repo=$work/repo-$files
shadow=$work/shadow-$files
bin=$work/bin
mkdir -p "$work" "$bin"
(cd "$top" && go build -o "$bin/gitguard" ./cmd/gitguard && go build -o "$bin/measure" ./bench/measure)
[ "$walkers" = 0 ] || (cd "$top" && go build -tags gitguard_portable -o "$bin/gitguard-portable" ./cmd/gitguard)
if [ "$keep" = 0 ] || [ ! -d "$repo" ]; then
	rm -rf "$repo"
	(cd "$top" && go run ./bench/gen -files "$files" -out "$repo")
fi
# The generator's packs; every other pack is gitguard's (a snapshot that
# writes many objects stores them as a pack), deleted by the reset.
basepacks=$repo/.git/bench-packs
[ -f "$basepacks" ] || (cd "$repo" && ls .git/objects/pack/pack-*.pack | sed 's/\.pack$//' >"$basepacks")
# The reset deletes every pack the list leaves out, comparing the names
# relative to the repository: a list of other names (absolute paths, say)
# would have it delete them all.
if ! (cd "$repo" && while read -r p; do
	case $p in .git/objects/pack/pack-*) [ -f "$p.pack" ] || exit 1 ;; *) exit 1 ;; esac
done <"$basepacks"); then
	echo "$0: $basepacks names what is not a pack of $repo; list its generated packs as" >&2
	echo "  (cd $repo && ls .git/objects/pack/pack-*.pack | sed 's/\.pack\$//' >.git/bench-packs)" >&2
	exit 2
fi

# A sealed git environment: no user or system configuration.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com

# The 50 paths an agent call edits before status and undo are measured: the
# first file of 50 different folders. Saved once so every round restores them.
touched=$(cd "$repo" && git ls-files | awk -v s=$((files / 50)) 'NR % s == 1' | head -50 | tr '\n' ' ')
saved=$work/saved-$files
rm -rf "$saved" && mkdir -p "$saved"
(cd "$repo" && for p in $touched; do mkdir -p "$saved/$(dirname "$p")"; git show "HEAD:$p" >"$saved/$p"; done)

gg="$bin/gitguard"
one=$(echo $touched | cut -d' ' -f2) # the file the daemon cases' call changes (the first is .gitignore)
ok1='rc=$?; [ $rc -le 1 ]' # status and undo exit 1 when they find something
plan=$work/plan-$files
T="$(printf '\t')"
cat >"$plan" <<PLAN
# Reset: no gitguard state, none of its objects, the 50 paths as committed.
reset${T}setup${T}{ $gg watch stop >/dev/null 2>&1; true; } && git for-each-ref --format='delete %(refname)' refs/agent-checkpoints/ | git update-ref --stdin && rm -rf .git/gitguard && for f in .git/objects/pack/pack-*; do grep -qxF "\${f%.*}" .git/bench-packs || rm -f "\$f"; done && git prune --expire=now && for p in $touched; do cp "$saved/\$p" "\$p"; done && git update-index -q --refresh
git status${T}time${T}GIT_OPTIONAL_LOCKS=0 git status --porcelain >/dev/null
gitguard snapshot (first)${T}time${T}$gg snapshot >/dev/null 2>&1
gitguard snapshot${T}time${T}$gg snapshot >/dev/null 2>&1
git status (locks)${T}time${T}git status --porcelain >/dev/null
git stash create${T}time${T}git stash create >/dev/null
gitguard call start${T}time${T}$gg call start c\$ROUND --tool run_command >/dev/null 2>&1
gitguard call finish${T}time${T}$gg call finish c\$ROUND >/dev/null 2>&1
# An agent call edits 50 files (untimed), for status and undo to classify.
edit${T}setup${T}$gg call start e\$ROUND --tool edit -- $touched >/dev/null 2>&1 && for p in $touched; do echo edited >>"\$p"; done && $gg call finish e\$ROUND >/dev/null 2>&1
gitguard status${T}time${T}$gg status >/dev/null 2>&1; $ok1
gitguard status --no-unrecorded${T}time${T}$gg status --no-unrecorded >/dev/null 2>&1; $ok1
gitguard undo --dry-run${T}time${T}$gg undo --dry-run >/dev/null 2>&1; $ok1
git status, 50 more changed${T}time${T}GIT_OPTIONAL_LOCKS=0 git status --porcelain >/dev/null
# The same calls with a watch daemon (started and armed untimed): each
# process asks the daemon instead of walking; one file changes in the call.
watch${T}setup${T}$gg watch --detach --idle 10m >/dev/null && { $gg status >/dev/null 2>&1; true; }
gitguard call start (daemon)${T}time${T}$gg call start d\$ROUND --tool run_command >/dev/null 2>&1
edit-one${T}setup${T}echo again >>$one
gitguard call finish (daemon)${T}time${T}$gg call finish d\$ROUND >/dev/null 2>&1
gitguard snapshot (daemon)${T}time${T}$gg snapshot >/dev/null 2>&1
gitguard status (daemon)${T}time${T}$gg status >/dev/null 2>&1; $ok1
unwatch${T}setup${T}$gg watch stop >/dev/null
shadow-init${T}setup${T}rm -rf "$shadow" && git init -q --bare "$shadow" && git --git-dir="$shadow" config gc.auto 0
shadow checkpoint (first)${T}time${T}GIT_DIR="$shadow" GIT_WORK_TREE="$repo" git add -A && GIT_DIR="$shadow" GIT_WORK_TREE="$repo" git commit -q -m x
shadow checkpoint (later)${T}time${T}GIT_DIR="$shadow" GIT_WORK_TREE="$repo" git add -A && GIT_DIR="$shadow" GIT_WORK_TREE="$repo" git commit -q --allow-empty -m x
PLAN
if [ "$walkers" = 1 ]; then
	ggp="$bin/gitguard-portable"
	reset=$(grep '^reset' "$plan")
	cat >"$plan" <<PLAN
# The snapshot cases with each walker, each from a reset.
$reset
git status${T}time${T}GIT_OPTIONAL_LOCKS=0 git status --porcelain >/dev/null
gitguard snapshot (first)${T}time${T}$gg snapshot >/dev/null 2>&1
gitguard snapshot${T}time${T}$gg snapshot >/dev/null 2>&1
$reset
portable snapshot (first)${T}time${T}$ggp snapshot >/dev/null 2>&1
portable snapshot${T}time${T}$ggp snapshot >/dev/null 2>&1
PLAN
fi

# --- whole-tree snapshot cases (-S) ----------------------------------------
# Only the snapshot cases, each pair from a reset, between two git status:
# gitguard's first and later snapshot and, with GITGUARD_BEFORE=/path/to/an/
# older/gitguard, the same for that binary, interleaved in every round.
# -c times CPU (user+system of the process tree) instead of wall time.
if [ "$snapshots" = 1 ]; then
	reset=$(grep '^reset' "$plan")
	cat >"$plan" <<PLAN
$reset
git status${T}time${T}GIT_OPTIONAL_LOCKS=0 git status --porcelain >/dev/null
gitguard snapshot (first)${T}time${T}$gg snapshot >/dev/null 2>&1
gitguard snapshot${T}time${T}$gg snapshot >/dev/null 2>&1
PLAN
	if [ -n "${GITGUARD_BEFORE:-}" ]; then
		cat >>"$plan" <<PLAN
$reset
before: snapshot (first)${T}time${T}$GITGUARD_BEFORE snapshot >/dev/null 2>&1
before: snapshot${T}time${T}$GITGUARD_BEFORE snapshot >/dev/null 2>&1
PLAN
	fi
	echo "git status again${T}time${T}GIT_OPTIONAL_LOCKS=0 git status --porcelain >/dev/null" >>"$plan"
fi
# --- end of the whole-tree snapshot cases ----------------------------------

# --- .gitattributes cases (-a) ---------------------------------------------
# A typical .gitattributes at the top and one in a folder (descriptions,
# binary, a diff driver, and one real conversion: the generator's *.txt files
# get text eol=lf), 100 new files of mixed kinds (untracked: every snapshot
# hashes them), then the snapshot cases with and without the attribute
# files, each from a reset. GITGUARD_BEFORE=/path/to/an/older/gitguard adds
# the same cases for that binary. The files are removed afterwards.
attributes_plan() {
	newfiles=$(cd "$repo" && git ls-files | awk -v s=$((files / 100)) 'NR % s == 3' | head -100 |
		awk '{ sub(/[^\/]*$/, ""); printf "%snew%03d.%s ", $0, NR, (NR % 4 == 0 ? "png" : NR % 4 == 1 ? "md" : NR % 4 == 2 ? "txt" : "c") }')
	sub=$(cd "$repo" && git ls-files | sed -n 2p | cut -d/ -f1)
	reset=$(grep '^reset' "$plan")
	attrs="printf '*.png binary\\n*.md diff=markdown\\n$sub/** linguist-documentation\\n*.txt text eol=lf\\n' >.gitattributes && printf '*.c diff=cpp\\n*.md linguist-generated\\n' >$sub/.gitattributes"
	noattrs="rm -f .gitattributes $sub/.gitattributes"
	(cd "$repo" && for p in $newfiles; do printf 'new file %s\r\nsecond line\r\n' "$p" >"$p"; done)
	echo "$newfiles" >"$work/attr-newfiles-$files"
	cat >"$plan" <<PLAN
# The snapshot cases with a typical .gitattributes, then without, each from a reset.
$reset
attributes${T}setup${T}$attrs
git status${T}time${T}GIT_OPTIONAL_LOCKS=0 git status --porcelain >/dev/null
gitguard snapshot (first, .gitattributes)${T}time${T}$gg snapshot >/dev/null 2>&1
gitguard snapshot (.gitattributes)${T}time${T}$gg snapshot >/dev/null 2>&1
$reset
no-attributes${T}setup${T}$noattrs
gitguard snapshot (first, none)${T}time${T}$gg snapshot >/dev/null 2>&1
gitguard snapshot (none)${T}time${T}$gg snapshot >/dev/null 2>&1
PLAN
	if [ -n "${GITGUARD_BEFORE:-}" ]; then
		cat >>"$plan" <<PLAN
$reset
attributes-before${T}setup${T}$attrs
before: snapshot (first, .gitattributes)${T}time${T}$GITGUARD_BEFORE snapshot >/dev/null 2>&1
before: snapshot (.gitattributes)${T}time${T}$GITGUARD_BEFORE snapshot >/dev/null 2>&1
$reset
no-attributes-before${T}setup${T}$noattrs
before: snapshot (first, none)${T}time${T}$GITGUARD_BEFORE snapshot >/dev/null 2>&1
before: snapshot (none)${T}time${T}$GITGUARD_BEFORE snapshot >/dev/null 2>&1
PLAN
	fi
}
attributes_cleanup() {
	(cd "$repo" && rm -f .gitattributes $(cat "$work/attr-newfiles-$files") && rm -f "$(git ls-files | sed -n 2p | cut -d/ -f1)/.gitattributes")
}
[ "$attributes" = 0 ] || attributes_plan
# --- end of the .gitattributes cases ---------------------------------------

echo "repository: $repo ($files tracked files), $rounds rounds after a warm-up, $(nproc) cores, $(git --version)" >&2
status=0
"$bin/measure" $cpu -C "$repo" -plan "$plan" -rounds "$rounds" -base "git status" || status=$?
[ "$attributes" = 0 ] || attributes_cleanup
exit $status
