// AlterPartition: the leader's ISR changes, checked like Kafka's controller
// does (epochs compare-and-set, eligibility), with ELR on shrink below min ISR.

#include <gtest/gtest.h>

#include "tests/controller/controller_harness.h"

namespace hw::controller {
namespace {

using testing::harness;

error_code code_of(int16_t c) { return static_cast<error_code>(c); }

struct fixture {
  harness h;
  protocol::uuid topic;
  int32_t leader = -1;
  std::vector<int32_t> replicas;

  fixture() {
    h.add_brokers({1, 2, 3});
    topic = h.create("t", 1, 3, {{"min.insync.replicas", "2"}}).topics[0].topic_id;
    leader = h.image().partition("t", 0)->leader.value;
    replicas = storage::plain_list(h.image().partition("t", 0)->replicas);
  }

  msg::alter_partition_request request(std::vector<int32_t> isr, int32_t from = -1) {
    const partition_registration* p = h.image().partition("t", 0);
    msg::alter_partition_request r;
    r.broker_id = from < 0 ? leader : from;
    r.broker_epoch = h.image().broker(node_id(r.broker_id))->epoch.value;
    auto& t = r.topics.emplace_back();
    t.topic_id = topic;
    auto& d = t.partitions.emplace_back();
    d.partition_index = 0;
    d.leader_epoch = p->leader_epoch.value;
    d.partition_epoch = p->partition_epoch.value;
    for (int32_t b : isr) d.new_isr_with_epochs.push_back({b, h.image().broker(node_id(b))->epoch.value, {}});
    return r;
  }

  error_code error_of(const msg::alter_partition_request& r) {
    auto result = h.controller.alter_partition(r, 3);
    if (result.response.error_code != 0) return code_of(result.response.error_code);
    return code_of(result.response.topics[0].partitions[0].error_code);
  }

  std::vector<int32_t> others() const {
    std::vector<int32_t> out;
    for (int32_t r : replicas) {
      if (r != leader) out.push_back(r);
    }
    return out;
  }
};

TEST(ControllerAlterPartition, ShrinkBelowMinIsrFillsTheElrAndExpandClearsIt) {
  fixture f;
  auto o = f.others();
  auto shrink = f.h.controller.alter_partition(f.request({f.leader, o[0]}), 3);
  ASSERT_EQ(shrink.response.topics[0].partitions[0].error_code, 0);
  EXPECT_EQ(shrink.response.topics[0].partitions[0].isr, (std::vector<int32_t>{f.leader, o[0]}));
  EXPECT_EQ(shrink.response.topics[0].partitions[0].partition_epoch, 1);
  EXPECT_EQ(shrink.response.topics[0].partitions[0].leader_epoch, 0) << "ISR changes keep the leader epoch";
  f.h.apply(shrink.records);
  EXPECT_TRUE(f.h.image().partition("t", 0)->elr.empty()) << "still at min ISR 2";

  auto alone = f.h.controller.alter_partition(f.request({f.leader}), 3);
  ASSERT_EQ(alone.response.topics[0].partitions[0].error_code, 0);
  f.h.apply(alone.records);
  EXPECT_EQ(f.h.image().partition("t", 0)->isr, ids({f.leader}));
  EXPECT_EQ(f.h.image().partition("t", 0)->elr, ids({o[0]})) << "left below min ISR: eligible";

  auto back = f.h.controller.alter_partition(f.request({f.leader, o[1]}), 3);
  ASSERT_EQ(back.response.topics[0].partitions[0].error_code, 0);
  f.h.apply(back.records);
  EXPECT_TRUE(f.h.image().partition("t", 0)->elr.empty()) << "back at min ISR";
  EXPECT_EQ(f.h.image().partition("t", 0)->partition_epoch.value, 3);
}

TEST(ControllerAlterPartition, EpochsAndRequesterAreChecked) {
  fixture f;
  auto o = f.others();
  auto stale_partition = f.request({f.leader, o[0]});
  stale_partition.topics[0].partitions[0].partition_epoch = -1;
  EXPECT_EQ(f.error_of(stale_partition), error_code::invalid_update_version);
  auto future_partition = f.request({f.leader, o[0]});
  future_partition.topics[0].partitions[0].partition_epoch = 9;
  EXPECT_EQ(f.error_of(future_partition), error_code::not_controller);
  auto stale_leader = f.request({f.leader, o[0]});
  stale_leader.topics[0].partitions[0].leader_epoch = -1;
  EXPECT_EQ(f.error_of(stale_leader), error_code::fenced_leader_epoch);
  EXPECT_EQ(f.error_of(f.request({f.leader, o[0]}, o[0])), error_code::invalid_request) << "not the leader";
  EXPECT_EQ(f.error_of(f.request({o[0], o[1]})), error_code::invalid_request) << "ISR without the leader";
  EXPECT_EQ(f.error_of(f.request({f.leader, f.leader})), error_code::invalid_request);
  auto stale_broker = f.request({f.leader});
  stale_broker.broker_epoch = 999;
  EXPECT_EQ(f.error_of(stale_broker), error_code::stale_broker_epoch);
  auto unknown = f.request({f.leader});
  unknown.topics[0].topic_id = testing::id_of(999);
  EXPECT_EQ(f.error_of(unknown), error_code::unknown_topic_id);
}

TEST(ControllerAlterPartition, IneligibleReplicasCannotJoin) {
  fixture f;
  auto o = f.others();
  auto shrink = f.h.controller.alter_partition(f.request({f.leader}), 3);
  f.h.apply(shrink.records);
  // o[0] is fenced: it may not rejoin.
  f.h.heartbeat(o[0], false, true);
  msg::alter_partition_request join = f.request({f.leader});
  const int64_t epoch_of_0 = f.h.image().broker(node_id(o[0]))->epoch.value;
  join.topics[0].partitions[0].new_isr_with_epochs.push_back({o[0], epoch_of_0, {}});
  EXPECT_EQ(f.error_of(join), error_code::ineligible_replica);
  // An older incarnation's epoch does not count.
  msg::alter_partition_request old = f.request({f.leader});
  const int64_t epoch_of_1 = f.h.image().broker(node_id(o[1]))->epoch.value;
  old.topics[0].partitions[0].new_isr_with_epochs.push_back({o[1], epoch_of_1 - 1, {}});
  EXPECT_EQ(f.error_of(old), error_code::ineligible_replica);
}

}  // namespace
}  // namespace hw::controller
