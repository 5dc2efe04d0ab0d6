#!/usr/bin/env bash
# Configures and builds the main tree (build/) with Ninja and ccache.
# Usage: scripts/build.sh [ninja targets...]
# HW_BUILD_DIR picks another build folder (default build/), e.g. one per
# developer task working in the same checkout. HW_SANITIZE builds it with
# sanitizers (e.g. address,undefined: what scripts/test.sh uses, in
# build-san/).
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache hits across clones in other folders (CI builds a fresh clone).
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
"./scripts/install-deps.sh"
build_type=${HW_BUILD_TYPE:-RelWithDebInfo}
build_dir=${HW_BUILD_DIR:-build}
sanitize=${HW_SANITIZE:-}
if [ ! -f "$build_dir/build.ninja" ] ||
   [ "$(sed -n 's/^HW_SANITIZE:STRING=//p' "$build_dir/CMakeCache.txt" 2>/dev/null)" != "$sanitize" ]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="$build_type" -DHW_SANITIZE="$sanitize" >/dev/null
fi
ninja -C "$build_dir" "$@"
