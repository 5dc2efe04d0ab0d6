#!/usr/bin/env bash
# The long chaos run (tests/chaos/README.md): builds highwater and the
# chaos tests with AddressSanitizer and UndefinedBehaviorSanitizer, as
# scripts/test.sh does, then runs ChaosIT with an hour of faults per seed.
# Its output also goes to $HW_BUILD_DIR/chaos-<time>.log.
#
#   scripts/chaos.sh                       one new seed (printed), 3600 s of faults
#   HW_CHAOS_SEEDS=7,8 scripts/chaos.sh    these seeds, one after the other
#   HW_CHAOS_SEEDS=7,8:sasl_ssl scripts/chaos.sh   7 in plaintext, 8 with every listener SASL_SSL
#   HW_CHAOS_SECURITY=sasl_ssl scripts/chaos.sh    a new seed's hour, every listener SASL_SSL
#   HW_CHAOS_DURATION_S=600 scripts/chaos.sh
#   HW_CHAOS_SEED=7 HW_CHAOS_DURATION_S=3600 scripts/chaos.sh   replays seed 7's hour (in plaintext;
#                                          a failure prints its replay line with its HW_CHAOS_SECURITY)
#   HW_CHAOS_SCHEDULE=/path/schedule.txt scripts/chaos.sh        replays a printed schedule
#
# Network faults need root (network namespaces); without them the run has
# process faults only and says so. HW_TEST_SANITIZE=0 runs the plain build.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${HW_TEST_SANITIZE:-1}" = 1 ]; then
  export HW_BUILD_DIR=${HW_BUILD_DIR:-build-san} HW_SANITIZE=address,undefined
  export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:detect_stack_use_after_return=0}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
else
  export HW_BUILD_DIR=${HW_BUILD_DIR:-build} HW_SANITIZE=
fi
# highwater-tools formats the sasl_ssl mode's storage (its SCRAM users).
./scripts/build.sh highwater highwater-tools chaos_tests
export HW_CHAOS_DURATION_S=${HW_CHAOS_DURATION_S:-3600}
if [ -z "${HW_CHAOS_SEED:-}" ] && [ -z "${HW_CHAOS_SEEDS:-}" ] && [ -z "${HW_CHAOS_SCHEDULE:-}" ]; then
  # A new schedule each time; the seed is printed with it, for a replay.
  HW_CHAOS_SEEDS=$(( $(date +%s) % 1000000 ))
  export HW_CHAOS_SEEDS
fi
log="$HW_BUILD_DIR/chaos-$(date +%Y%m%d-%H%M%S).log"
echo "chaos: ${HW_CHAOS_DURATION_S} s of faults per seed, seeds ${HW_CHAOS_SEED:-${HW_CHAOS_SEEDS:-from $HW_CHAOS_SCHEDULE}}${HW_CHAOS_SECURITY:+, all $HW_CHAOS_SECURITY}; log in $log"
"$HW_BUILD_DIR/tests/chaos/chaos_tests" --gtest_filter='ChaosIT.*' 2>&1 | tee "$log"
exit "${PIPESTATUS[0]}"
