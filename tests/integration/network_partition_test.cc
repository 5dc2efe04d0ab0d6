// Network partitions on three combined nodes (RF 3, min.insync.replicas=2),
// each node on its own network_lab host so that a test cuts real links: a
// leader cut off from every other node acknowledges no acks=all write, and
// the acks=1 writes it took are truncated when it rejoins (its log says
// so); a follower cut off leaves the ISR after replica.lag.time.max.ms and
// comes back after the heal; the active controller cut off is replaced and
// no partition is left without a leader. The test process reaches every
// node throughout: only the links between nodes are cut.

#include <gtest/gtest.h>

#include <set>

#include "protocol/messages/metadata.h"
#include "protocol/messages/produce.h"
#include "replication_cluster.h"

namespace hw::testing {
namespace {

class NetworkPartitionIT : public replication_cluster {
 protected:
  bool networked() const override { return true; }

  // Every partition of topic as node i's metadata has it: (leader, ISR).
  std::optional<std::vector<partition_view>> partitions_of(int i, const std::string& topic) {
    raw_client client(at(i));
    auto resp = client.metadata(std::vector<std::string>{topic});
    if (!resp || resp->topics.size() != 1 || resp->topics[0].error_code != 0) return std::nullopt;
    std::vector<partition_view> out(resp->topics[0].partitions.size());
    for (const auto& p : resp->topics[0].partitions) {
      if (p.partition_index < 0 || static_cast<size_t>(p.partition_index) >= out.size()) return std::nullopt;
      out[p.partition_index] = partition_view{p.leader_id, p.leader_epoch, p.replica_nodes, p.isr_nodes};
    }
    return out;
  }
};

TEST_F(NetworkPartitionIT, ACutOffFollowerLeavesTheIsrAndRejoinsAfterTheHeal) {
  create_replicated("cut-follower");
  auto v = view(0, "cut-follower");
  ASSERT_TRUE(v);
  const int leader = v->leader;
  const int follower = leader % 3 + 1;
  const int third = follower % 3 + 1;

  lab->isolate(follower - 1);
  // replica.lag.time.max.ms is 3 s here; the ISR keeps min.insync.replicas.
  ASSERT_TRUE(wait_until([&] { return isr_is(leader - 1, "cut-follower", {leader, third}); }, 30s)) << logs();
  auto written = produce_all(at(leader - 1), "cut-follower", messages("cut", 20), "all");
  for (const auto& r : written) ASSERT_GE(r.offset, 0) << logs();

  lab->heal(follower - 1);
  ASSERT_TRUE(wait_until([&] { return isr_is(leader - 1, "cut-follower", {1, 2, 3}); }, 60s)) << logs();
  ASSERT_TRUE(wait_until([&] { return segments_identical("cut-follower"); }, 30s)) << logs();
}

TEST_F(NetworkPartitionIT, ACutOffLeaderAcknowledgesNoAcksAllWriteAndLosesItsAcksOneWritesWhenBack) {
  create_replicated("cut-leader");
  auto v = view(0, "cut-leader");
  ASSERT_TRUE(v);
  const int old_leader = v->leader;
  const int survivor = old_leader % 3 + 1;
  auto first = produce_all(at(survivor - 1), "cut-leader", messages("before", 10), "all");
  for (const auto& r : first) ASSERT_GE(r.offset, 0) << logs();

  lab->isolate(old_leader - 1);
  // Still the leader as far as it knows: it takes acks=1 writes...
  auto stale = produce_all(at(old_leader - 1), "cut-leader", messages("stale", 5), "1");
  for (const auto& r : stale) ASSERT_GE(r.offset, 10) << logs();
  // ...but never acknowledges an acks=all one: its followers cannot fetch
  // and it cannot reach the controller to shrink the ISR.
  raw_client late(at(old_leader - 1));
  auto all = late.produce("cut-leader", 0, simple_batch(1, 10), -1);
  ASSERT_TRUE(all) << logs();
  EXPECT_NE(all->error_code, 0) << "a write to the cut-off leader was acknowledged";

  // The others fence it and elect a leader from the ISR.
  auto after = new_leader_of(survivor - 1, "cut-leader", *v, 30s);
  ASSERT_TRUE(after) << logs();
  auto second = produce_all(at(survivor - 1), "cut-leader", messages("after", 10), "all");
  for (const auto& r : second) ASSERT_GE(r.offset, 10) << logs();

  lab->heal(old_leader - 1);
  ASSERT_TRUE(wait_until([&] { return isr_is(survivor - 1, "cut-leader", {1, 2, 3}); }, 60s)) << logs();
  ASSERT_TRUE(wait_until([&] { return segments_identical("cut-leader"); }, 30s)) << logs();
  EXPECT_NE(nodes[old_leader - 1]->log().find("Truncating partition cut-leader-0 to offset 10"), std::string::npos)
      << nodes[old_leader - 1]->log();
  auto read = read_from_beginning(at(survivor - 1), "cut-leader", 20);
  ASSERT_EQ(read.size(), 20u) << logs();
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(read[i].key, "before" + std::to_string(i));
    EXPECT_EQ(read[10 + i].key, "after" + std::to_string(i));
  }
}

TEST_F(NetworkPartitionIT, ACutOffControllerIsReplacedAndNoPartitionStaysLeaderless) {
  raw_client client(at(0));
  auto created = client.create_topic("cut-controller", 6, 3);
  ASSERT_TRUE(created && created->topics.size() == 1 && created->topics[0].error_code == 0) << logs();
  std::optional<std::pair<int32_t, int32_t>> before;
  ASSERT_TRUE(wait_until(
      [&] {
        before = quorum_leader(0);
        auto parts = partitions_of(0, "cut-controller");
        if (!before || !parts || parts->size() != 6) return false;
        for (const auto& p : *parts)
          if (p.leader <= 0 || p.isr.size() != 3) return false;
        return true;
      },
      30s))
      << logs();
  const int controller = before->first;
  const int other = controller % 3 + 1;

  lab->isolate(controller - 1);
  // The two others elect a controller among themselves...
  ASSERT_TRUE(wait_until(
      [&] {
        auto now = quorum_leader(other - 1);
        return now && now->first != controller && now->second > before->second;
      },
      30s))
      << logs();
  // ...which fences the cut-off broker and moves its leaderships away.
  ASSERT_TRUE(wait_until(
      [&] {
        auto parts = partitions_of(other - 1, "cut-controller");
        if (!parts || parts->size() != 6) return false;
        for (const auto& p : *parts) {
          if (p.leader <= 0 || p.leader == controller) return false;
          if (std::set<int32_t>(p.isr.begin(), p.isr.end()).count(controller)) return false;
        }
        return true;
      },
      30s))
      << logs();
  auto written = produce_all(at(other - 1), "cut-controller", messages("during", 10), "all");
  for (const auto& r : written) ASSERT_GE(r.offset, 0) << logs();

  lab->heal(controller - 1);
  ASSERT_TRUE(wait_until(
      [&] {
        auto parts = partitions_of(other - 1, "cut-controller");
        if (!parts || parts->size() != 6) return false;
        for (const auto& p : *parts)
          if (p.leader <= 0 || p.isr.size() != 3) return false;
        return true;
      },
      60s))
      << logs();
}

}  // namespace
}  // namespace hw::testing
