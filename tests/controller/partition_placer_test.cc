// Striped replica placement: distinct replicas, even leadership, racks
// spread, fenced brokers never first, Kafka's errors.

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "controller/replica_placer.h"

namespace hw::controller {
namespace {

using placement = std::vector<std::vector<int32_t>>;

placement place_ok(std::vector<usable_broker> brokers, int32_t partitions, int32_t rf, uint64_t seed = 1) {
  std::mt19937_64 random(seed);
  auto result = place_replicas(std::move(brokers), partitions, rf, random);
  EXPECT_TRUE(std::holds_alternative<placement>(result));
  return std::holds_alternative<placement>(result) ? std::get<placement>(result) : placement{};
}

std::string place_error(std::vector<usable_broker> brokers, int32_t partitions, int32_t rf) {
  std::mt19937_64 random(1);
  auto result = place_replicas(std::move(brokers), partitions, rf, random);
  return std::holds_alternative<placement_error>(result) ? std::get<placement_error>(result).message : "";
}

TEST(PartitionPlacer, DistinctReplicasAndEvenLeadership) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    auto p = place_ok({{1, {}, false}, {2, {}, false}, {3, {}, false}, {4, {}, false}}, 8, 3, seed);
    ASSERT_EQ(p.size(), 8u);
    std::map<int32_t, int> leaders;
    for (const auto& replicas : p) {
      ASSERT_EQ(replicas.size(), 3u);
      EXPECT_EQ(std::set<int32_t>(replicas.begin(), replicas.end()).size(), 3u);
      ++leaders[replicas.front()];
    }
    for (int32_t b = 1; b <= 4; ++b) EXPECT_EQ(leaders[b], 2) << "seed " << seed << " broker " << b;
  }
}

TEST(PartitionPlacer, ReplicasSpreadAcrossRacks) {
  std::vector<usable_broker> brokers = {{1, "a", false}, {2, "a", false}, {3, "b", false},
                                        {4, "b", false}, {5, "c", false}, {6, "c", false}};
  std::map<int32_t, std::string> rack = {{1, "a"}, {2, "a"}, {3, "b"}, {4, "b"}, {5, "c"}, {6, "c"}};
  for (const auto& replicas : place_ok(brokers, 12, 3)) {
    std::set<std::string> racks;
    for (int32_t r : replicas) racks.insert(rack[r]);
    EXPECT_EQ(racks.size(), 3u);
  }
}

TEST(PartitionPlacer, FencedBrokersAreNeverFirst) {
  auto p = place_ok({{1, {}, true}, {2, {}, false}, {3, {}, true}}, 6, 3);
  for (const auto& replicas : p) EXPECT_EQ(replicas.front(), 2);
}

TEST(PartitionPlacer, KafkasErrors) {
  EXPECT_EQ(place_error({{1, {}, false}}, 1, 3),
            "The target replication factor of 3 cannot be reached because only 1 broker(s) are registered or some "
            "brokers have all their log directories cordoned.");
  EXPECT_EQ(place_error({{1, {}, true}}, 1, 1),
            "All brokers are currently fenced, or have all their log directories cordoned.");
  EXPECT_EQ(place_error({{1, {}, false}}, 1, 0),
            "Invalid replication factor 0: the replication factor must be positive.");
}

}  // namespace
}  // namespace hw::controller
