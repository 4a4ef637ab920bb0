#!/bin/sh
# scripts/release.sh: cross-compile gitguard release archives.
#
#   scripts/release.sh [VERSION]      # VERSION defaults to `git describe --tags --always --dirty`
#   OUT=/some/dir TARGETS="linux/amd64 darwin/arm64" scripts/release.sh v0.3.0
#
# Builds cmd/gitguard for every target (static, CGO_ENABLED=0, -trimpath,
# -tags urfave_cli_no_docs: urfave/cli's man-page and markdown writers,
# which gitguard never calls, bring a markdown package whose init costs
# every process about 1.5 ms) with the version and commit stamped into
# main.version and main.commit (what `gitguard --version` prints), and
# packs each binary with README.md into $OUT (default dist/):
# gitguard_VERSION_OS_ARCH.tar.gz for Linux and macOS, .zip for Windows,
# plus SHA256SUMS.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
version=${1:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
out=${OUT:-$top/dist}
targets=${TARGETS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"}

case $version in
*/* | *" "*) echo "release.sh: bad version '$version'" >&2; exit 2 ;;
esac
mkdir -p "$out"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

for t in $targets; do
	os=${t%/*} arch=${t#*/}
	name=gitguard_${version}_${os}_${arch}
	ext=
	[ "$os" = windows ] && ext=.exe
	mkdir -p "$stage/$name"
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -tags urfave_cli_no_docs \
		-ldflags "-s -w -X main.version=$version -X main.commit=$commit" \
		-o "$stage/$name/gitguard$ext" ./cmd/gitguard
	# The agent hook client: installed beside gitguard, init picks it.
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "-s -w" \
		-o "$stage/$name/gitguard-hook$ext" ./cmd/gitguard-hook
	cp README.md "$stage/$name/"
	[ -f LICENSE ] && cp LICENSE "$stage/$name/"
	if [ "$os" = windows ]; then
		rm -f "$out/$name.zip"
		(cd "$stage" && zip -qr "$out/$name.zip" "$name")
	else
		tar -C "$stage" -czf "$out/$name.tar.gz" "$name"
	fi
	echo "built $name" >&2
done
(cd "$out" && sha256sum gitguard_"${version}"_* >SHA256SUMS)
echo "archives and SHA256SUMS in $out" >&2
