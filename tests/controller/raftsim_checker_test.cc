// The simulation's checker can fail: with votes granted without the log
// check (unsafe_test_switches), committed entries get lost, and the checker
// must say so within a bounded number of seeds.
#include <string>

#include <gtest/gtest.h>

#include "tests/controller/raftsim.h"

namespace hw::controller::raft::sim {
namespace {

TEST(raftsim_checker, catches_votes_granted_without_the_log_check) {
  config c;
  c.voters = 3;
  c.observers = 1;
  c.unsafe.grant_votes_without_log_check = true;
  int caught_at = -1;
  std::string failure;
  for (int seed = 0; seed < 300 && caught_at < 0; ++seed) {
    c.seed = static_cast<uint64_t>(seed);
    outcome o = simulation(c).run();
    if (!o.ok) {
      caught_at = seed;
      failure = o.failure;
    }
  }
  ASSERT_GE(caught_at, 0) << "the checker missed a broken vote rule in 300 seeds";
  std::printf("caught at seed %d: %s\n", caught_at, failure.c_str());
  // The same seed with the rule intact passes.
  c.unsafe.grant_votes_without_log_check = false;
  c.seed = static_cast<uint64_t>(caught_at);
  outcome o = simulation(c).run();
  EXPECT_TRUE(o.ok) << o.failure;
}

}  // namespace
}  // namespace hw::controller::raft::sim
