// Partition reassignment in the controller: the records that start it, the
// AlterPartition that completes it, cancels, and Kafka's errors.

#include <gtest/gtest.h>

#include "tests/controller/controller_harness.h"

namespace hw::controller {
namespace {

using testing::harness;

error_code code_of(int16_t c) { return static_cast<error_code>(c); }

struct fixture {
  harness h;
  protocol::uuid topic;

  fixture() {
    h.add_brokers({1, 2, 3, 4});
    msg::create_topics_request request;
    auto& t = request.topics.emplace_back();
    t.name = "t";
    t.num_partitions = -1;
    t.replication_factor = -1;
    t.assignments.push_back({0, {1, 2, 3}, {}});
    t.assignments.push_back({1, {2, 3, 1}, {}});
    auto created = h.run(h.controller.create_topics(request));
    topic = created.topics[0].topic_id;
  }
  const partition_registration& partition(int32_t p) { return *h.image().partition("t", p); }

  // Reassigns partition p of "t" (nullopt: cancels); applies the records.
  controller_result<msg::alter_partition_reassignments_response> reassign(
      int32_t p, std::optional<std::vector<int32_t>> replicas, bool allow_rf_change = true) {
    msg::alter_partition_reassignments_request request;
    request.allow_replication_factor_change = allow_rf_change;
    auto& t = request.topics.emplace_back();
    t.name = "t";
    t.partitions.push_back({p, std::move(replicas), {}});
    auto result = h.controller.alter_partition_reassignments(request, 1);
    h.apply(result.records);
    return result;
  }
  error_code error_of(const controller_result<msg::alter_partition_reassignments_response>& r) {
    return code_of(r.response.responses.at(0).partitions.at(0).error_code);
  }
  // The leader of p reports this ISR; returns the partition's error code.
  error_code report_isr(int32_t p, std::vector<int32_t> isr) {
    const partition_registration& part = partition(p);
    msg::alter_partition_request r;
    r.broker_id = part.leader.value;
    r.broker_epoch = h.image().broker(node_id(r.broker_id))->epoch.value;
    auto& t = r.topics.emplace_back();
    t.topic_id = topic;
    auto& d = t.partitions.emplace_back();
    d.partition_index = p;
    d.leader_epoch = part.leader_epoch.value;
    d.partition_epoch = part.partition_epoch.value;
    for (int32_t b : isr) d.new_isr_with_epochs.push_back({b, h.image().broker(node_id(b))->epoch.value, {}});
    auto result = h.controller.alter_partition(r, 3);
    h.apply(result.records);
    return code_of(result.response.topics[0].partitions[0].error_code);
  }
  std::vector<int32_t> listed(int32_t p) {
    msg::list_partition_reassignments_request request;
    auto response = h.controller.list_partition_reassignments(request);
    for (const auto& t : response.topics)
      for (const auto& part : t.partitions)
        if (t.name == "t" && part.partition_index == p) return part.replicas;
    return {};
  }
};

TEST(ControllerReassignment, NewReplicasJoinThenTheRemovedOnesLeave) {
  fixture f;
  const int32_t epoch = f.partition(0).leader_epoch.value;
  // {1,2,3} → {4,2,3}: 4 is added, 1 (the leader) removed.
  auto started = f.reassign(0, std::vector<int32_t>{4, 2, 3});
  ASSERT_EQ(f.error_of(started), error_code::none);
  ASSERT_EQ(started.response.responses[0].partitions[0].error_message, std::nullopt);
  EXPECT_EQ(f.partition(0).replicas, ids({4, 2, 3, 1}));
  EXPECT_EQ(f.partition(0).adding, ids({4}));
  EXPECT_EQ(f.partition(0).removing, ids({1}));
  EXPECT_EQ(f.partition(0).leader.value, 1) << "the leader stays until the new replica is in sync";
  EXPECT_EQ(f.partition(0).leader_epoch.value, epoch) << "adding replicas needs no new leader epoch";
  EXPECT_EQ(f.partition(0).directories.size(), 4u);
  EXPECT_EQ(f.listed(0), (std::vector<int32_t>{4, 2, 3, 1}));
  EXPECT_TRUE(f.listed(1).empty());

  // 4 caught up: the leader adds it, which completes the move. The leader
  // is being removed, so the change elects the first target replica and
  // tells the old leader NEW_LEADER_ELECTED.
  EXPECT_EQ(f.report_isr(0, {1, 2, 3, 4}), error_code::new_leader_elected);
  const partition_registration& done = f.partition(0);
  EXPECT_EQ(done.replicas, ids({4, 2, 3}));
  EXPECT_EQ(done.isr, ids({2, 3, 4}));
  EXPECT_TRUE(done.adding.empty());
  EXPECT_TRUE(done.removing.empty());
  EXPECT_EQ(done.leader.value, 4) << "the first target replica in sync that can lead";
  EXPECT_GT(done.leader_epoch.value, epoch);
  EXPECT_EQ(done.directories.size(), 3u);
  EXPECT_TRUE(f.listed(0).empty());
}

TEST(ControllerReassignment, WhatIsInSyncAlreadyCompletesAtOnce) {
  fixture f;
  // A reorder: every target replica is in the ISR, done in one record.
  auto reordered = f.reassign(0, std::vector<int32_t>{3, 2, 1});
  ASSERT_EQ(f.error_of(reordered), error_code::none);
  ASSERT_EQ(reordered.records.size(), 1u);
  EXPECT_EQ(f.partition(0).replicas, ids({3, 2, 1}));
  EXPECT_TRUE(f.partition(0).adding.empty());
  EXPECT_EQ(f.partition(0).leader.value, 1) << "a reorder moves no leadership (a preferred election does)";
  // Dropping a follower (RF 3 → 2): done at once, with a new leader epoch.
  const int32_t epoch = f.partition(0).leader_epoch.value;
  ASSERT_EQ(f.error_of(f.reassign(0, std::vector<int32_t>{2, 1})), error_code::none);
  EXPECT_EQ(f.partition(0).replicas, ids({2, 1}));
  EXPECT_EQ(f.partition(0).isr, ids({1, 2}));
  EXPECT_GT(f.partition(0).leader_epoch.value, epoch);
  // The same assignment again changes nothing.
  EXPECT_TRUE(f.reassign(0, std::vector<int32_t>{2, 1}).records.empty());
}

TEST(ControllerReassignment, CancelGoesBackToTheOriginalReplicas) {
  fixture f;
  ASSERT_EQ(f.error_of(f.reassign(1, std::vector<int32_t>{4, 3, 1})), error_code::none);
  ASSERT_EQ(f.partition(1).replicas, ids({4, 3, 1, 2}));
  auto cancelled = f.reassign(1, std::nullopt);
  ASSERT_EQ(f.error_of(cancelled), error_code::none);
  EXPECT_EQ(f.partition(1).replicas, ids({3, 1, 2}))
      << "target order minus the added replicas, then the removed one";
  EXPECT_TRUE(f.partition(1).adding.empty());
  EXPECT_TRUE(f.partition(1).removing.empty());
  EXPECT_EQ(f.partition(1).leader.value, 2);
  auto again = f.reassign(1, std::nullopt);
  EXPECT_EQ(f.error_of(again), error_code::no_reassignment_in_progress);
  EXPECT_EQ(again.response.responses[0].partitions[0].error_message, std::nullopt);  // as Kafka: no text
}

TEST(ControllerReassignment, ANewTargetMidwayReplacesTheOldOne) {
  fixture f;
  ASSERT_EQ(f.error_of(f.reassign(0, std::vector<int32_t>{4, 2, 3})), error_code::none);
  // Back to the original replicas before 4 caught up: 4 is dropped at once.
  ASSERT_EQ(f.error_of(f.reassign(0, std::vector<int32_t>{1, 2, 3})), error_code::none);
  EXPECT_EQ(f.partition(0).replicas, ids({1, 2, 3}));
  EXPECT_TRUE(f.partition(0).adding.empty());
  EXPECT_TRUE(f.partition(0).removing.empty());
}

TEST(ControllerReassignment, KafkasErrors) {
  fixture f;
  msg::alter_partition_reassignments_request request;
  auto& unknown = request.topics.emplace_back();
  unknown.name = "nope";
  unknown.partitions.push_back({0, std::vector<int32_t>{1}, {}});
  auto& t = request.topics.emplace_back();
  t.name = "t";
  t.partitions.push_back({7, std::vector<int32_t>{1}, {}});
  t.partitions.push_back({0, std::vector<int32_t>{1, 9}, {}});
  t.partitions.push_back({1, std::vector<int32_t>{1, 1}, {}});
  t.partitions.push_back({0, std::vector<int32_t>{}, {}});
  auto result = f.h.controller.alter_partition_reassignments(request, 0);
  EXPECT_TRUE(result.records.empty());
  const auto& r = result.response.responses;
  EXPECT_EQ(code_of(r[0].partitions[0].error_code), error_code::unknown_topic_or_partition);
  EXPECT_EQ(r[0].partitions[0].error_message, "Unable to find a topic named nope.");
  EXPECT_EQ(r[1].partitions[0].error_message, "Unable to find partition t:7.");
  EXPECT_EQ(code_of(r[1].partitions[1].error_code), error_code::invalid_replica_assignment);
  EXPECT_EQ(r[1].partitions[1].error_message,
            "The manual partition assignment includes broker 9, but no such broker is registered.");
  EXPECT_EQ(code_of(r[1].partitions[2].error_code), error_code::invalid_replica_assignment);
  EXPECT_EQ(code_of(r[1].partitions[3].error_code), error_code::invalid_replica_assignment);

  // v1 with AllowReplicationFactorChange=false (KIP-860).
  auto grown = f.reassign(0, std::vector<int32_t>{1, 2, 3, 4}, false);
  EXPECT_EQ(f.error_of(grown), error_code::invalid_replication_factor);
  EXPECT_EQ(grown.response.responses[0].partitions[0].error_message, "The replication factor is changed from 3 to 4");
  EXPECT_FALSE(grown.response.allow_replication_factor_change);
  EXPECT_EQ(f.error_of(f.reassign(0, std::vector<int32_t>{4, 2, 3}, false)), error_code::none);
}

TEST(ControllerReassignment, ACancelThatNeedsAnUncleanElectionIsRefused) {
  fixture f;
  // Growing {2,3,1} by 4; then only 4 is left in sync (and leads).
  ASSERT_EQ(f.error_of(f.reassign(1, std::vector<int32_t>{2, 3, 1, 4})), error_code::none);
  msg::partition_change_record only_new;
  only_new.topic_id = f.topic;
  only_new.partition_id = 1;
  only_new.isr = std::vector<int32_t>{4};
  only_new.leader = 4;
  f.h.apply({only_new});
  auto refused = f.reassign(1, std::nullopt);
  EXPECT_EQ(f.error_of(refused), error_code::invalid_replica_assignment);
  EXPECT_EQ(refused.response.responses[0].partitions[0].error_message,
            "Unable to revert partition assignment for t:1 because it would require an unclean leader election.");
}

}  // namespace
}  // namespace hw::controller
