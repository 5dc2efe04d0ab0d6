// Thousands of seeded simulations of 3- and 5-voter quorums with observers
// under drops, delays, duplicates, reordering, partitions, crashes and
// restarts, static and dynamic (voters added and removed by the leaders,
// KIP-853); see raftsim.h for what is checked after every step.
//
// HW_RAFTSIM_SEEDS=<n> changes how many seeds each test runs;
// HW_RAFTSIM_SEED=<s> replays one seed (with a trace on stderr when
// HW_RAFTSIM_TRACE=1).
#include <chrono>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "tests/controller/raftsim.h"

namespace hw::controller::raft::sim {
namespace {

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::stoull(v) : fallback;
}

void run_seeds(config base, uint64_t default_seeds, const char* test) {
  uint64_t first = 0;
  uint64_t count = env_or("HW_RAFTSIM_SEEDS", default_seeds);
  if (std::getenv("HW_RAFTSIM_SEED") != nullptr) {
    first = env_or("HW_RAFTSIM_SEED", 0);
    count = 1;
    base.trace = std::getenv("HW_RAFTSIM_TRACE") != nullptr;
  }
  auto started = std::chrono::steady_clock::now();
  int64_t elections = 0;
  int64_t commits = 0;
  int64_t installs = 0;
  int64_t changes = 0;
  for (uint64_t seed = first; seed < first + count; ++seed) {
    config c = base;
    c.seed = seed;
    outcome o = simulation(c).run();
    ASSERT_TRUE(o.ok) << o.failure << "\nreplay: HW_RAFTSIM_SEED=" << seed
                      << " controller_raftsim_tests --gtest_filter=raftsim." << test;
    elections += o.elections;
    commits += o.commits;
    installs += o.snapshot_installs;
    changes += o.voter_changes;
  }
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  std::printf("%llu seeds in %lld ms: %lld elections, %lld offsets committed, %lld snapshots installed, %lld voter "
              "changes\n",
              static_cast<unsigned long long>(count), static_cast<long long>(ms.count()),
              static_cast<long long>(elections), static_cast<long long>(commits), static_cast<long long>(installs),
              static_cast<long long>(changes));
  // The runs must do something: elections and commits happen (checked
  // over many seeds; one replayed seed may be quiet).
  if (count >= 100) {
    EXPECT_GT(elections, static_cast<int64_t>(count) * 2);
    EXPECT_GT(commits, static_cast<int64_t>(count) * 100);
    EXPECT_GT(installs, static_cast<int64_t>(count) / 10);
    if (base.dynamic) EXPECT_GT(changes, static_cast<int64_t>(count));
  }
}

TEST(raftsim, three_voters_two_observers) {
  config c;
  c.voters = 3;
  c.observers = 2;
  run_seeds(c, 8000, "three_voters_two_observers");
}

TEST(raftsim, five_voters_one_observer) {
  config c;
  c.voters = 5;
  c.observers = 1;
  run_seeds(c, 5000, "five_voters_one_observer");
}

// Slow disks (fsync lags far behind appends) and a slow network (delays
// beyond the request timeout: retries, duplicates and reordering galore).
TEST(raftsim, three_voters_slow_disks_and_network) {
  config c;
  c.voters = 3;
  c.observers = 1;
  c.max_delay_ms = 150;
  c.p_flush = 0.05;
  run_seeds(c, 6000, "three_voters_slow_disks_and_network");
}

// A dynamic quorum (KIP-853): leaders add and remove voters at random while
// everything else goes wrong; a removed voter may be added again, a leader
// may remove itself, a change may be cut off by a new leader's truncation.
TEST(raftsim, dynamic_three_voters_two_observers_changing_voters) {
  config c;
  c.voters = 3;
  c.observers = 2;
  c.dynamic = true;
  run_seeds(c, 2000, "dynamic_three_voters_two_observers_changing_voters");
}

TEST(raftsim, dynamic_one_voter_three_observers_changing_voters) {
  config c;
  c.voters = 1;  // formatted --standalone
  c.observers = 3;
  c.dynamic = true;
  c.p_membership = 0.02;
  run_seeds(c, 2000, "dynamic_one_voter_three_observers_changing_voters");
}

}  // namespace
}  // namespace hw::controller::raft::sim
