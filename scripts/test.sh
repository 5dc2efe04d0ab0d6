#!/usr/bin/env bash
# Builds everything and runs every test group: the fuzzers (bounded, under
# ASan/UBSan) first, then unit, integration, compat and differential tests
# through ctest. The tree the tests run is built with AddressSanitizer and
# UndefinedBehaviorSanitizer (build-san/), so every highwater process the
# integration and compat tests start is checked too; HW_TEST_SANITIZE=0
# runs the plain build/ instead. The containers group (tests/containers)
# builds the image from those binaries and runs the seeds' compose cluster.
# HW_CTEST_ARGS passes extra arguments to the main ctest run (e.g. "-L unit").
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${HW_TEST_SANITIZE:-1}" = 1 ]; then
  export HW_BUILD_DIR=${HW_BUILD_DIR:-build-san} HW_SANITIZE=address,undefined
  # A report fails the process (and the test) at once, with its stack.
  export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:detect_stack_use_after_return=0}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
else
  export HW_BUILD_DIR=${HW_BUILD_DIR:-build} HW_SANITIZE=
fi
./scripts/build.sh
# Apache Kafka's jars (clients, tools, broker) for the compat tests: cached.
./scripts/fetch-kafka.sh >/dev/null
# Kafka Streams 4.3.1 (with rocksdbjni) for the streams group compat test: cached.
./scripts/fetch-kafka-streams.sh >/dev/null
# franz-go's kgo suite for the three-node transactions test: cached.
./scripts/fetch-franz-go.sh >/dev/null
# A container runtime with the docker CLI and compose for tests/containers
# (podman's Docker API; the base image and the compose plugin are cached).
./scripts/install-containers.sh >/dev/null
export DOCKER_HOST=${DOCKER_HOST:-unix:///run/podman/podman.sock}
if [ "${HW_SKIP_FUZZ:-0}" != 1 ]; then
  ./scripts/fuzz.sh
fi
cd "$HW_BUILD_DIR"
# shellcheck disable=SC2086
ctest --output-on-failure -j2 ${HW_CTEST_ARGS:-}
