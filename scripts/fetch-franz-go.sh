#!/usr/bin/env bash
# Builds franz-go's own kgo integration test binary (the Go client's suite,
# run against a cluster named in KGO_SEEDS) from the released module, and
# prints its path. The module and its dependencies come from the Go module
# proxy; the binary is cached, so this builds once per franz-go version.
#
# Usage: scripts/fetch-franz-go.sh      # prints the path of kgo.test
#
# Environment:
#   FRANZ_GO_VERSION  franz-go release (default v1.22.3)
#   HW_FRANZ_CACHE    cache dir (default $HOME/.cache/highwater/franz-go-<version>)
#
# franz-go needs Go 1.26. A machine without a Go that can switch toolchains
# (1.21+) gets Debian's Go, which then downloads Go 1.26's toolchain module
# from the module proxy (what GOTOOLCHAIN does itself on newer Go).
set -euo pipefail

FRANZ_GO_VERSION="${FRANZ_GO_VERSION:-v1.22.3}"
GO_TOOLCHAIN_VERSION="${GO_TOOLCHAIN_VERSION:-go1.26.8}"
CACHE="${HW_FRANZ_CACHE:-$HOME/.cache/highwater/franz-go-${FRANZ_GO_VERSION}}"
binary="$CACHE/kgo.test"
if [[ -x "$binary" ]]; then
  echo "$binary"
  exit 0
fi
mkdir -p "$CACHE"

export PATH="$PATH:/usr/local/go/bin"
go_minor() { "$1" env GOVERSION 2>/dev/null | sed -n 's/^go1\.\([0-9]*\).*/\1/p'; }
go_bin=$(command -v go || true)
if [[ -z "$go_bin" || "$(go_minor "$go_bin")" -lt 21 ]]; then
  if [[ -z "$go_bin" ]]; then
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends golang-go >&2
    go_bin=$(command -v go)
  fi
  # An old Go cannot switch toolchains: fetch the toolchain module by hand.
  arch=$(dpkg --print-architecture)
  module="golang.org/toolchain@v0.0.1-${GO_TOOLCHAIN_VERSION}.linux-${arch}"
  dir=$(GOFLAGS=-mod=mod "$go_bin" mod download -json "$module" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')
  go_bin="$dir/bin/go"
  chmod +x "$dir/bin/"* "$dir/pkg/tool/"*/* 2>/dev/null || true
fi

module_dir=$(cd "$CACHE" && GOFLAGS=-mod=mod "$go_bin" mod download -json "github.com/twmb/franz-go@${FRANZ_GO_VERSION}" |
  sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')
[[ -d "$module_dir/pkg/kgo" ]] || { echo "fetch-franz-go: no pkg/kgo in $module_dir" >&2; exit 1; }
# The module cache is read-only; the test binary is built from it as it is.
(cd "$module_dir/pkg/kgo" && GOTOOLCHAIN=auto "$go_bin" test -c -o "$binary.tmp" .) >&2
mv "$binary.tmp" "$binary"
echo "$binary"
