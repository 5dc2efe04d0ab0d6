#!/usr/bin/env bash
# Builds everything and runs every test group: the fuzzers (bounded, under
# ASan/UBSan) first, then unit, integration and compat tests through ctest.
# HW_CTEST_ARGS passes extra arguments to the main ctest run (e.g. "-L unit").
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
# Apache Kafka's jars (clients, tools, broker) for the compat tests: cached.
./scripts/fetch-kafka.sh >/dev/null
if [ "${HW_SKIP_FUZZ:-0}" != 1 ]; then
  ./scripts/fuzz.sh
fi
cd build
# shellcheck disable=SC2086
ctest --output-on-failure -j2 ${HW_CTEST_ARGS:-}
