#!/usr/bin/env bash
# Builds the libFuzzer targets with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer (build-fuzz/) and runs each for HW_FUZZ_SECONDS
# (default 60) through ctest, seeded from tests/fuzz/corpus/<name>/.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache hits across clones in other folders (CI builds a fresh clone).
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
"./scripts/install-deps.sh"
seconds=${HW_FUZZ_SECONDS:-60}
if [ ! -f build-fuzz/build.ninja ]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DHW_FUZZ=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHW_FUZZ_SECONDS="$seconds" >/dev/null
else
  cmake build-fuzz -DHW_FUZZ_SECONDS="$seconds" >/dev/null
fi
ninja -C build-fuzz
cd build-fuzz && ctest --output-on-failure -j2 -L fuzz
