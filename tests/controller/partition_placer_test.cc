// Striped replica placement: distinct replicas, even leadership, racks
// spread, fenced brokers never first, Kafka's errors.

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <string>

#include "controller/replica_placer.h"

namespace hw::controller {
namespace {

using placement = std::vector<std::vector<node_id>>;

usable_broker broker(int32_t id, std::optional<std::string> rack = std::nullopt, bool fenced = false) {
  return {node_id(id), std::move(rack), fenced};
}

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
    auto p = place_ok({broker(1), broker(2), broker(3), broker(4)}, 8, 3, seed);
    ASSERT_EQ(p.size(), 8u);
    std::map<node_id, int> leaders;
    for (const auto& replicas : p) {
      ASSERT_EQ(replicas.size(), 3u);
      EXPECT_EQ(std::set<node_id>(replicas.begin(), replicas.end()).size(), 3u);
      ++leaders[replicas.front()];
    }
    for (int32_t b = 1; b <= 4; ++b) EXPECT_EQ(leaders[node_id(b)], 2) << "seed " << seed << " broker " << b;
  }
}

TEST(PartitionPlacer, ReplicasSpreadAcrossRacks) {
  std::vector<usable_broker> brokers = {broker(1, "a"), broker(2, "a"), broker(3, "b"),
                                        broker(4, "b"), broker(5, "c"), broker(6, "c")};
  std::map<int32_t, std::string> rack = {{1, "a"}, {2, "a"}, {3, "b"}, {4, "b"}, {5, "c"}, {6, "c"}};
  for (const auto& replicas : place_ok(brokers, 12, 3)) {
    std::set<std::string> racks;
    for (node_id r : replicas) racks.insert(rack[r.value]);
    EXPECT_EQ(racks.size(), 3u);
  }
}

TEST(PartitionPlacer, FencedBrokersAreNeverFirst) {
  auto p = place_ok({broker(1, {}, true), broker(2), broker(3, {}, true)}, 6, 3);
  for (const auto& replicas : p) EXPECT_EQ(replicas.front(), node_id(2));
}

TEST(PartitionPlacer, KafkasErrors) {
  EXPECT_EQ(place_error({broker(1)}, 1, 3),
            "The target replication factor of 3 cannot be reached because only 1 broker(s) are registered or some "
            "brokers have all their log directories cordoned.");
  EXPECT_EQ(place_error({broker(1, {}, true)}, 1, 1),
            "All brokers are currently fenced, or have all their log directories cordoned.");
  EXPECT_EQ(place_error({broker(1)}, 1, 0),
            "Invalid replication factor 0: the replication factor must be positive.");
}

}  // namespace
}  // namespace hw::controller
