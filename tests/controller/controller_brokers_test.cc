// Broker registration, heartbeats, fencing on session expiry, controlled
// shutdown, and producer-id blocks.

#include <gtest/gtest.h>

#include <set>

#include "tests/controller/controller_harness.h"

namespace hw::controller {
namespace {

using testing::harness;

error_code code_of(int16_t c) { return static_cast<error_code>(c); }

TEST(ControllerBrokers, RegistrationEpochIsTheRecordOffsetAndStartsFenced) {
  harness h;
  int64_t offset = h.next_offset;
  auto result = h.controller.register_broker(h.registration(1, "rack-a"), offset, h.now_ms);
  ASSERT_EQ(result.response.error_code, 0);
  EXPECT_EQ(result.response.broker_epoch, offset);
  ASSERT_EQ(result.records.size(), 1u);
  const auto& record = std::get<msg::register_broker_record>(result.records[0]);
  EXPECT_TRUE(record.fenced);
  EXPECT_EQ(record.broker_epoch, offset);
  EXPECT_EQ(record.rack, "rack-a");
  EXPECT_EQ(record.log_dirs.size(), 1u);
  EXPECT_EQ(record_version_for(record, h.image().version()), 4);
  h.apply(result.records);

  // The same incarnation registering again keeps its epoch.
  auto again = h.controller.register_broker(h.registration(1, "rack-a"), h.next_offset, h.now_ms);
  EXPECT_EQ(again.response.broker_epoch, offset);
}

TEST(ControllerBrokers, UnfencedOnlyOnceCaughtUp) {
  harness h;
  int64_t epoch = h.register_broker(1);
  msg::broker_heartbeat_request hb;
  hb.broker_id = 1;
  hb.broker_epoch = epoch;
  hb.current_metadata_offset = epoch - 1;
  auto behind = h.controller.broker_heartbeat(hb, h.next_offset, h.now_ms);
  EXPECT_TRUE(behind.response.is_fenced);
  EXPECT_FALSE(behind.response.is_caught_up);
  EXPECT_TRUE(behind.records.empty());

  hb.current_metadata_offset = epoch;
  auto caught_up = h.controller.broker_heartbeat(hb, h.next_offset, h.now_ms);
  EXPECT_FALSE(caught_up.response.is_fenced);
  EXPECT_TRUE(caught_up.response.is_caught_up);
  ASSERT_EQ(caught_up.records.size(), 1u);
  const auto& change = std::get<msg::broker_registration_change_record>(caught_up.records[0]);
  EXPECT_EQ(change.fenced, -1);
  EXPECT_EQ(record_version_for(change, h.image().version()), 0) << "as Kafka 4.3.1 wrote it (fixture offset 16)";
  h.apply(caught_up.records);
  EXPECT_EQ(h.image().alive_brokers(), ids({1}));

  hb.broker_epoch = epoch + 1;
  auto stale = h.controller.broker_heartbeat(hb, h.next_offset, h.now_ms);
  EXPECT_EQ(code_of(stale.response.error_code), error_code::stale_broker_epoch);
}

TEST(ControllerBrokers, SessionTimeoutFencesAndMovesLeaders) {
  harness h;
  h.add_brokers({1, 2, 3});
  h.create("t", 6, 3);
  std::set<int32_t> led_by_1;
  for (const auto& [p, reg] : h.image().topic("t")->partitions) {
    if (reg.leader.value == 1) led_by_1.insert(p);
  }
  ASSERT_FALSE(led_by_1.empty());

  // 2 and 3 keep heartbeating every 2 s; 1 has been silent since it unfenced.
  const int64_t silent_since = h.now_ms;
  const int64_t timeout = harness::session_timeout_ms;
  while (h.now_ms + 2000 - silent_since <= timeout) {
    h.now_ms += 2000;
    h.heartbeat(2);
    h.heartbeat(3);
    EXPECT_TRUE(h.controller.tick(h.now_ms).empty()) << "still within the session at " << h.now_ms - silent_since;
  }
  h.now_ms = silent_since + timeout + 1;
  h.heartbeat(2);
  h.heartbeat(3);
  auto records = h.controller.tick(h.now_ms);
  ASSERT_FALSE(records.empty());
  const auto& fence = std::get<msg::broker_registration_change_record>(records.back());
  EXPECT_EQ(fence.broker_id, 1);
  EXPECT_EQ(fence.fenced, 1);
  const auto before = h.image().topic("t")->partitions;
  h.apply(records);
  EXPECT_TRUE(h.image().broker(node_id(1))->fenced);
  for (const auto& [p, reg] : h.image().topic("t")->partitions) {
    EXPECT_NE(reg.leader.value, 1);
    EXPECT_FALSE(reg.in_isr(node_id(1)));
    const auto& old = before.at(p);
    if (led_by_1.count(p)) {
      // Next in replica order among the ISR; both epochs move.
      int32_t expected = old.replicas[0].value == 1 ? old.replicas[1].value : old.replicas[0].value;
      EXPECT_EQ(reg.leader.value, expected);
      EXPECT_EQ(reg.leader_epoch, old.leader_epoch + 1);
    } else {
      EXPECT_EQ(reg.leader_epoch, old.leader_epoch) << "an ISR shrink keeps the leader epoch since 3.6";
    }
    EXPECT_EQ(reg.partition_epoch, old.partition_epoch + 1);
  }
  EXPECT_TRUE(h.controller.tick(h.now_ms + 1).empty()) << "fenced once";
}

// The controller's tick loop sleeps until this: the first unfenced
// broker's last contact plus the session timeout, moved by heartbeats, and
// gone once every broker is fenced.
TEST(ControllerBrokers, NextSessionExpiryIsTheFirstUnfencedBrokersDeadline) {
  harness h;
  h.add_brokers({1, 2, 3});
  const int64_t timeout = harness::session_timeout_ms;
  h.now_ms += 1000;
  h.heartbeat(2);
  h.heartbeat(3);
  h.controller.tick(h.now_ms);
  const int64_t silent_since = h.now_ms - 1000;
  ASSERT_TRUE(h.controller.next_session_expiry_ms().has_value());
  EXPECT_EQ(*h.controller.next_session_expiry_ms(), silent_since + timeout + 1);
  EXPECT_TRUE(h.controller.tick(*h.controller.next_session_expiry_ms() - 1).empty()) << "not due before";
  h.heartbeat(1);
  EXPECT_EQ(*h.controller.next_session_expiry_ms(), h.now_ms + timeout + 1) << "all three heard at the same time";

  h.now_ms += timeout + 1;
  h.apply(h.controller.tick(h.now_ms));
  for (int32_t id : {1, 2, 3}) EXPECT_TRUE(h.image().broker(node_id(id))->fenced) << id;
  EXPECT_FALSE(h.controller.next_session_expiry_ms().has_value()) << "nobody left to fence";
}

TEST(ControllerBrokers, TwoBrokersExpiringTogetherAreFencedInOneTick) {
  harness h;
  h.add_brokers({1, 2, 3});
  h.create("t", 3, 3);
  h.now_ms += 10'000;
  h.heartbeat(3);
  auto records = h.controller.tick(h.now_ms);
  h.apply(records);
  EXPECT_TRUE(h.image().broker(node_id(1))->fenced);
  EXPECT_TRUE(h.image().broker(node_id(2))->fenced);
  for (const auto& [p, reg] : h.image().topic("t")->partitions) {
    EXPECT_EQ(reg.leader.value, 3);
    EXPECT_EQ(reg.isr, ids({3}));
  }
}

// The records Kafka 4.3.1 wrote for the controlled shutdown of a single
// broker (fixture offsets 198-205): the shutdown flag, every partition
// leaderless with the broker kept as ELR and last leader, then the fence.
TEST(ControllerBrokers, ControlledShutdownMatchesKafka) {
  harness h;
  h.add_brokers({1});
  h.create("t", 2, 1);
  auto first = h.heartbeat(1, true);
  EXPECT_FALSE(first.should_shut_down);
  const broker_registration* b = h.image().broker(node_id(1));
  EXPECT_TRUE(b->in_controlled_shutdown);
  for (const auto& [p, reg] : h.image().topic("t")->partitions) {
    EXPECT_EQ(reg.leader, no_leader);
    EXPECT_TRUE(reg.isr.empty());
    EXPECT_EQ(reg.elr, ids({1}));
    EXPECT_EQ(reg.last_known_elr, ids({1}));
  }
  auto second = h.heartbeat(1, true);
  EXPECT_TRUE(second.should_shut_down);
  EXPECT_TRUE(second.is_fenced);
  EXPECT_TRUE(h.image().broker(node_id(1))->fenced);

  // The restart, as Kafka 4.3.1 logged it: a new incarnation registers
  // after a clean shutdown; unfencing elects it from the ELR and clears
  // ELR and last-known leader in the same record.
  auto restart = h.registration(1);
  restart.incarnation_id = testing::id_of(777);
  restart.previous_broker_epoch = h.image().broker(node_id(1))->epoch.value;
  auto registered = h.controller.register_broker(restart, h.next_offset, h.now_ms);
  ASSERT_EQ(registered.records.size(), 1u) << "a clean shutdown leaves nothing to clean up";
  h.apply(registered.records);
  msg::broker_heartbeat_request hb;
  hb.broker_id = 1;
  hb.broker_epoch = registered.response.broker_epoch;
  hb.current_metadata_offset = h.next_offset - 1;
  auto unfenced = h.controller.broker_heartbeat(hb, h.next_offset, h.now_ms);
  ASSERT_EQ(unfenced.records.size(), 3u);
  for (size_t i = 1; i < 3; ++i) {
    const auto& change = std::get<msg::partition_change_record>(unfenced.records[i]);
    EXPECT_EQ(change.leader, 1);
    EXPECT_EQ(change.isr, std::vector<int32_t>{1});
    EXPECT_EQ(change.eligible_leader_replicas, std::vector<int32_t>{});
    EXPECT_EQ(change.last_known_elr, std::vector<int32_t>{});
  }
}

TEST(ControllerBrokers, ControlledShutdownWaitsForOtherBrokersToCatchUp) {
  harness h;
  h.add_brokers({1, 2});
  h.create("t", 2, 2);
  auto first = h.heartbeat(1, true);
  EXPECT_FALSE(first.should_shut_down);
  for (const auto& [p, reg] : h.image().topic("t")->partitions) EXPECT_EQ(reg.leader.value, 2);
  // Broker 2 has not yet reported the offset of the leadership change.
  auto early = h.heartbeat(1, true);
  EXPECT_FALSE(early.should_shut_down);
  h.heartbeat(2);
  auto done = h.heartbeat(1, true);
  EXPECT_TRUE(done.should_shut_down);
}

TEST(ControllerBrokers, NewIncarnationWhileTheOldSessionLivesIsRefused) {
  harness h;
  h.add_brokers({1});
  auto other = h.registration(1);
  other.incarnation_id = testing::id_of(4242);
  auto refused = h.controller.register_broker(other, h.next_offset, h.now_ms);
  EXPECT_EQ(code_of(refused.response.error_code), error_code::duplicate_broker_registration);
  EXPECT_TRUE(refused.records.empty());

  // After the session expired (and the broker was fenced), the new one wins.
  h.now_ms += 10'000;
  h.apply(h.controller.tick(h.now_ms));
  int64_t epoch = h.next_offset;
  auto accepted = h.controller.register_broker(other, epoch, h.now_ms);
  EXPECT_EQ(accepted.response.error_code, 0);
  EXPECT_EQ(accepted.response.broker_epoch, epoch);
}

// A controller that takes over (the node restarted, or a failover) grants
// every unfenced broker a session so as not to fence it, but has heard
// from none of them: a new incarnation replaces such a registration at
// once (a combined node restarted after a crash). One it has heard from
// keeps the id.
TEST(ControllerBrokers, ANewIncarnationReplacesARegistrationTheControllerNeverHeardFrom) {
  harness h;
  h.add_brokers({1});
  h.controller.revert_to(std::make_shared<const metadata_image>(h.image()));
  h.apply(h.controller.tick(h.now_ms));
  ASSERT_FALSE(h.image().broker(node_id(1))->fenced);
  auto restarted = h.registration(1);
  restarted.incarnation_id = testing::id_of(4242);
  const int64_t epoch = h.next_offset;
  auto accepted = h.controller.register_broker(restarted, epoch, h.now_ms);
  ASSERT_EQ(accepted.response.error_code, 0);
  EXPECT_EQ(accepted.response.broker_epoch, epoch);
  h.apply(accepted.records);
  EXPECT_TRUE(h.image().broker(node_id(1))->fenced);

  // Heard from and unfenced, the new incarnation keeps the id.
  h.heartbeat(1);
  ASSERT_FALSE(h.image().broker(node_id(1))->fenced);
  auto another = h.registration(1);
  another.incarnation_id = testing::id_of(4343);
  EXPECT_EQ(code_of(h.controller.register_broker(another, h.next_offset, h.now_ms).response.error_code),
            error_code::duplicate_broker_registration);
}

TEST(ControllerBrokers, RegistrationChecks) {
  harness h;
  auto wrong_cluster = h.registration(1);
  wrong_cluster.cluster_id = "other";
  EXPECT_EQ(code_of(h.controller.register_broker(wrong_cluster, 0, h.now_ms).response.error_code),
            error_code::inconsistent_cluster_id);
  auto no_dirs = h.registration(1);
  no_dirs.log_dirs.clear();
  EXPECT_EQ(code_of(h.controller.register_broker(no_dirs, 0, h.now_ms).response.error_code),
            error_code::invalid_registration);
  auto old = h.registration(1);
  for (auto& f : old.features) {
    if (f.name == "metadata.version") f.max_supported_version = 21;
  }
  EXPECT_EQ(code_of(h.controller.register_broker(old, 0, h.now_ms).response.error_code),
            error_code::unsupported_version);
}

TEST(ControllerBrokers, ProducerIdBlocksNeverOverlap) {
  harness h;
  h.add_brokers({1, 2});
  std::vector<std::pair<int64_t, int64_t>> blocks;
  for (int i = 0; i < 10; ++i) {
    msg::allocate_producer_ids_request request;
    request.broker_id = 1 + i % 2;
    request.broker_epoch = h.image().broker(node_id(request.broker_id))->epoch.value;
    auto result = h.controller.allocate_producer_ids(request);
    ASSERT_EQ(result.response.error_code, 0);
    EXPECT_EQ(result.response.producer_id_len, 1000);
    blocks.emplace_back(result.response.producer_id_start,
                        result.response.producer_id_start + result.response.producer_id_len);
    h.apply(result.records);
  }
  for (size_t i = 1; i < blocks.size(); ++i) EXPECT_EQ(blocks[i].first, blocks[i - 1].second);
  EXPECT_EQ(blocks.front().first, 0);
  EXPECT_EQ(h.image().next_producer_id, 10'000);

  msg::allocate_producer_ids_request stale;
  stale.broker_id = 1;
  stale.broker_epoch = 12345;
  EXPECT_EQ(code_of(h.controller.allocate_producer_ids(stale).response.error_code), error_code::stale_broker_epoch);
}

TEST(ControllerBrokers, ReplayWithOffsetsStampsTheWorkingImage) {
  harness h;
  msg::no_op_record noop;
  ASSERT_FALSE(h.controller.replay({noop}, storage::offset(41), leader_epoch(3)));
  EXPECT_EQ(h.image().provenance, (image_provenance{storage::offset(41), leader_epoch(3)}));
  msg::remove_topic_record bad;
  EXPECT_TRUE(h.controller.replay({noop, bad}, storage::offset(43), leader_epoch(3)));
  EXPECT_EQ(h.image().provenance.offset, storage::offset(41)) << "a refused batch does not move the stamp";
}

TEST(ControllerBrokers, RevertDropsUncommittedRecords) {
  harness h;
  h.add_brokers({1});
  auto committed = h.controller.working_image();
  h.create("t", 1, 1);
  ASSERT_TRUE(h.image().topic("t"));
  h.controller.revert_to(committed);
  EXPECT_FALSE(h.image().topic("t"));
}

}  // namespace
}  // namespace hw::controller

namespace hw::controller {
namespace {

TEST(ControllerBrokers, UnregisterMovesLeadersAndRemovesTheRegistration) {
  testing::harness h;
  h.add_brokers({1, 2});
  h.create("t", 2, 2);
  msg::unregister_broker_request request;
  request.broker_id = 1;
  auto result = h.controller.unregister_broker(request);
  ASSERT_EQ(result.response.error_code, 0);
  ASSERT_TRUE(std::holds_alternative<msg::unregister_broker_record>(result.records.back()));
  h.apply(result.records);
  EXPECT_FALSE(h.image().broker(node_id(1)));
  for (const auto& [p, reg] : h.image().topic("t")->partitions) {
    EXPECT_EQ(reg.leader.value, 2);
    EXPECT_EQ(reg.isr, ids({2}));
  }
  auto again = h.controller.unregister_broker(request);
  EXPECT_EQ(static_cast<error_code>(again.response.error_code), error_code::broker_id_not_registered);
  EXPECT_EQ(again.response.error_message, "Broker ID 1 is not currently registered");
}

}  // namespace
}  // namespace hw::controller

namespace hw::controller {
namespace {

TEST(ControllerBrokers, ControllerRegistrationIsRecorded) {
  testing::harness h;
  msg::controller_registration_request request;
  request.controller_id = 3000;
  request.incarnation_id = testing::id_of(3000);
  request.listeners.push_back({"CONTROLLER", "localhost", 9093, 0, {}});
  request.features.push_back({"metadata.version", 7, 30, {}});
  auto response = h.run(h.controller.register_controller(request));
  EXPECT_EQ(response.error_code, 0);
  ASSERT_EQ(h.image().controllers.count(node_id(3000)), 1u);
  EXPECT_EQ(h.image().controllers.at(node_id(3000)).endpoints.front().port, 9093);
  EXPECT_EQ(h.image().controllers.at(node_id(3000)).features.at("metadata.version").max_version, 30);
}

}  // namespace
}  // namespace hw::controller

namespace hw::controller {
namespace {

TEST(ControllerBrokers, RecordByRecordReplayIsSeenByTheNextOperation) {
  testing::harness h;
  h.add_brokers({1});
  auto before = h.controller.working_image();
  msg::create_topics_request request;
  request.topics.push_back({"t", 2, 1, {}, {}, {}});
  auto result = h.controller.create_topics(request);
  for (const auto& r : result.records) ASSERT_FALSE(h.controller.replay(r));
  msg::remove_topic_record bogus;
  EXPECT_TRUE(h.controller.replay(bogus)) << "refused, and nothing before it is lost";
  // The next operation sees the topic.
  auto again = h.controller.create_topics(request);
  EXPECT_EQ(static_cast<error_code>(again.response.topics[0].error_code), error_code::topic_already_exists);
  EXPECT_EQ(h.image().topic("t")->partitions.size(), 2u);
  EXPECT_FALSE(before->topic("t")) << "published images never change";
  h.controller.revert_to(before);
  EXPECT_FALSE(h.image().topic("t"));
}

}  // namespace
}  // namespace hw::controller

namespace hw::controller {
namespace {

TEST(ControllerBrokers, OfflineLogDirTakesItsReplicasOutOfTheIsrs) {
  testing::harness h;
  // Broker 1 has two log dirs; its replicas are placed by the broker, so
  // assign them here as AssignReplicasToDirs would.
  auto two_dirs = h.registration(1);
  two_dirs.log_dirs = {testing::id_of(2101), testing::id_of(2102)};
  h.run(h.controller.register_broker(two_dirs, h.next_offset, h.now_ms));
  h.heartbeat(1);
  h.add_brokers({2});
  h.create("t", 2, 2);
  std::vector<metadata_record> assign;
  for (const auto& [p, reg] : h.image().topic("t")->partitions) {
    msg::partition_change_record r;
    r.topic_id = h.image().topic("t")->id.value;
    r.partition_id = p;
    std::vector<protocol::uuid> dirs = reg.directories;
    for (size_t i = 0; i < reg.replicas.size(); ++i) {
      if (reg.replicas[i].value == 1) dirs[i] = testing::id_of(p == 0 ? 2101 : 2102);
    }
    r.directories = dirs;
    assign.push_back(r);
  }
  h.apply(assign);

  msg::broker_heartbeat_request hb;
  hb.broker_id = 1;
  hb.broker_epoch = h.image().broker(node_id(1))->epoch.value;
  hb.current_metadata_offset = h.next_offset - 1;
  hb.offline_log_dirs = {testing::id_of(2101)};
  auto result = h.controller.broker_heartbeat(hb, h.next_offset, h.now_ms);
  h.apply(result.records);
  EXPECT_FALSE(h.image().partition("t", 0)->in_isr(node_id(1))) << "its replica was in the lost dir";
  EXPECT_NE(h.image().partition("t", 0)->leader.value, 1);
  EXPECT_TRUE(h.image().partition("t", 1)->in_isr(node_id(1))) << "the other dir is fine";
  EXPECT_EQ(h.image().broker(node_id(1))->log_dirs, std::vector<protocol::uuid>{testing::id_of(2102)});
  EXPECT_FALSE(h.image().broker(node_id(1))->fenced);
  auto again = h.controller.broker_heartbeat(hb, h.next_offset, h.now_ms);
  EXPECT_TRUE(again.records.empty()) << "already known offline";
}

}  // namespace
}  // namespace hw::controller

namespace hw::controller {
namespace {

TEST(ControllerBrokers, CaughtUpMeansHavingTheLatestRegistration) {
  testing::harness h;
  h.add_brokers({1});
  // The same incarnation registers again (say after a listener change): its
  // epoch stays, but it is caught up only once it has the new record.
  auto again = h.controller.register_broker(h.registration(1), h.next_offset, h.now_ms);
  int64_t record_offset = h.next_offset;
  h.apply(again.records);
  msg::broker_heartbeat_request hb;
  hb.broker_id = 1;
  hb.broker_epoch = again.response.broker_epoch;
  hb.current_metadata_offset = record_offset - 1;
  EXPECT_FALSE(h.controller.broker_heartbeat(hb, h.next_offset, h.now_ms).response.is_caught_up);
  hb.current_metadata_offset = record_offset;
  EXPECT_TRUE(h.controller.broker_heartbeat(hb, h.next_offset, h.now_ms).response.is_caught_up);
}

}  // namespace
}  // namespace hw::controller

namespace hw::controller {
namespace {

protocol::uuid reserved_dir(uint8_t n) {
  protocol::uuid id;
  id.bytes[15] = n;
  return id;
}

protocol::uuid dir_of(const partition_registration& p, int32_t broker) {
  for (size_t i = 0; i < p.replicas.size(); ++i)
    if (p.replicas[i].value == broker) return p.directories.at(i);
  ADD_FAILURE() << "broker " << broker << " is not a replica";
  return {};
}

msg::assign_replicas_to_dirs_request assignment(const testing::harness& h, int32_t broker, const protocol::uuid& dir,
                                                const std::string& topic, std::vector<int32_t> partitions) {
  msg::assign_replicas_to_dirs_request r;
  r.broker_id = broker;
  r.broker_epoch = h.image().broker(node_id(broker))->epoch.value;
  auto& d = r.directories.emplace_back();
  d.id = dir;
  auto& t = d.topics.emplace_back();
  t.topic_id = h.image().topic(topic) ? h.image().topic(topic)->id.value : testing::id_of(999);
  for (int32_t p : partitions) t.partitions.push_back({p, {}});
  return r;
}

// Broker 1 with log dirs 2101 and 2102, broker 2 with one; both unfenced.
void with_two_dir_broker(testing::harness& h) {
  auto two_dirs = h.registration(1);
  two_dirs.log_dirs = {testing::id_of(2101), testing::id_of(2102)};
  h.run(h.controller.register_broker(two_dirs, h.next_offset, h.now_ms));
  h.heartbeat(1);
  h.add_brokers({2});
}

// A broker with several dirs gets UNASSIGNED replicas (it places them) and
// then reports where each went; one dir gets the reserved ids' Kafka values.
TEST(ControllerBrokers, ReplicasOfABrokerWithSeveralDirsAreAssignedWhereItReports) {
  testing::harness h;
  with_two_dir_broker(h);
  h.create("t", 2, 2);
  const auto* p0 = h.image().partition("t", 0);
  EXPECT_EQ(dir_of(*p0, 1), reserved_dir(1)) << "UNASSIGNED: the broker picks the dir";
  EXPECT_EQ(dir_of(*p0, 2), testing::id_of(2002)) << "a broker's only dir is assigned at once";
  const int32_t epoch_before = p0->partition_epoch.value;
  const storage::leader_epoch leader_epoch_before = p0->leader_epoch;

  auto result = h.controller.assign_replicas_to_dirs(assignment(h, 1, testing::id_of(2102), "t", {0, 1}));
  auto response = h.run(std::move(result));
  EXPECT_EQ(response.error_code, 0);
  ASSERT_EQ(response.directories.size(), 1u);
  ASSERT_EQ(response.directories[0].topics.size(), 1u);
  for (const auto& p : response.directories[0].topics[0].partitions) EXPECT_EQ(p.error_code, 0) << p.partition_index;
  for (int32_t p : {0, 1}) EXPECT_EQ(dir_of(*h.image().partition("t", p), 1), testing::id_of(2102));
  EXPECT_EQ(dir_of(*h.image().partition("t", 0), 2), testing::id_of(2002)) << "other replicas keep theirs";
  EXPECT_EQ(h.image().partition("t", 0)->partition_epoch.value, epoch_before + 1);
  EXPECT_EQ(h.image().partition("t", 0)->leader_epoch, leader_epoch_before) << "a dir change is not a new leader epoch";
  // Told again: nothing to write.
  auto again = h.controller.assign_replicas_to_dirs(assignment(h, 1, testing::id_of(2102), "t", {0}));
  EXPECT_TRUE(again.records.empty());
  EXPECT_EQ(again.response.directories[0].topics[0].partitions[0].error_code, 0);
}

TEST(ControllerBrokers, AssignReplicasToDirsRefusals) {
  testing::harness h;
  h.add_brokers({1, 2, 3});
  h.create("t", 1, 2);
  const auto* p = h.image().partition("t", 0);
  int32_t outsider = 0;
  for (int32_t b : {1, 2, 3})
    if (!p->is_replica(node_id(b))) outsider = b;
  const int32_t member = p->replicas.front().value;

  auto stale = assignment(h, member, testing::id_of(2000 + member), "t", {0});
  stale.broker_epoch -= 1;
  auto refused = h.controller.assign_replicas_to_dirs(stale);
  EXPECT_EQ(static_cast<error_code>(refused.response.error_code), error_code::stale_broker_epoch);
  EXPECT_TRUE(refused.response.directories.empty());
  EXPECT_TRUE(refused.records.empty());

  auto unknown_broker = stale;
  unknown_broker.broker_id = 9;
  EXPECT_EQ(static_cast<error_code>(h.controller.assign_replicas_to_dirs(unknown_broker).response.error_code),
            error_code::stale_broker_epoch);

  auto answer = [&](const msg::assign_replicas_to_dirs_request& r) {
    auto out = h.controller.assign_replicas_to_dirs(r);
    EXPECT_TRUE(out.records.empty());
    return static_cast<error_code>(out.response.directories.at(0).topics.at(0).partitions.at(0).error_code);
  };
  EXPECT_EQ(answer(assignment(h, member, testing::id_of(2000 + member), "gone", {0})), error_code::unknown_topic_id);
  EXPECT_EQ(answer(assignment(h, member, testing::id_of(2000 + member), "t", {7})),
            error_code::unknown_topic_or_partition);
  EXPECT_EQ(answer(assignment(h, outsider, testing::id_of(2000 + outsider), "t", {0})),
            error_code::not_leader_or_follower);
}

TEST(ControllerBrokers, AssignReplicasToDirsIsRefusedBeforeDirectoryAssignment) {
  testing::harness h({}, metadata_version{16});  // 3.7-IV1
  h.add_brokers({1});
  h.create("t", 1, 1);
  auto r = assignment(h, 1, testing::id_of(2001), "t", {0});
  auto out = h.controller.assign_replicas_to_dirs(r);
  EXPECT_EQ(static_cast<error_code>(out.response.error_code), error_code::unsupported_version);
  EXPECT_TRUE(out.records.empty());
}

// A replica reported in a dir the broker already lost leaves its ISR and
// cannot lead; and a broker whose dir failed is no leader candidate for
// that dir's partitions, even when it is the only one left.
TEST(ControllerBrokers, AReplicaInAnOfflineDirCannotLead) {
  testing::harness h;
  with_two_dir_broker(h);
  h.create("t", 1, 2, {{"unclean.leader.election.enable", "true"}});
  h.create("u", 1, 2);
  ASSERT_TRUE(h.image().partition("u", 0)->in_isr(node_id(1)));
  h.run(h.controller.assign_replicas_to_dirs(assignment(h, 1, testing::id_of(2101), "t", {0})));

  msg::broker_heartbeat_request hb;
  hb.broker_id = 1;
  hb.broker_epoch = h.image().broker(node_id(1))->epoch.value;
  hb.current_metadata_offset = h.next_offset - 1;
  hb.offline_log_dirs = {testing::id_of(2101)};
  h.run(h.controller.broker_heartbeat(hb, h.next_offset, h.now_ms));
  EXPECT_EQ(h.image().partition("t", 0)->leader.value, 2);
  EXPECT_EQ(h.image().partition("t", 0)->isr, std::vector<node_id>{node_id(2)});

  // Reporting a replica in a dir already offline takes it out at once.
  auto moved = h.run(h.controller.assign_replicas_to_dirs(assignment(h, 1, testing::id_of(2101), "u", {0})));
  EXPECT_EQ(moved.directories[0].topics[0].partitions[0].error_code, 0);
  EXPECT_FALSE(h.image().partition("u", 0)->in_isr(node_id(1)));
  EXPECT_EQ(h.image().partition("u", 0)->leader.value, 2);

  // Broker 2 goes: t-0 has nobody to lead it, unclean or not, since broker
  // 1's copy is in the failed dir.
  h.heartbeat(2, false, true);
  EXPECT_EQ(h.image().partition("t", 0)->leader, no_leader);
}

}  // namespace
}  // namespace hw::controller
