// CreateTopics, DeleteTopics, CreatePartitions and ElectLeaders: records and
// Kafka 4.3's error codes and messages (the messages were checked against
// a real Kafka 4.3.1 broker with kafka-topics.sh where it reaches them).

#include <gtest/gtest.h>

#include <set>

#include "tests/controller/controller_harness.h"

namespace hw::controller {
namespace {

using testing::harness;

error_code code_of(int16_t c) { return static_cast<error_code>(c); }

TEST(ControllerTopics, CreateWritesTopicConfigsThenPartitions) {
  harness h;
  h.add_brokers({1, 2, 3});
  msg::create_topics_request request;
  auto& t = request.topics.emplace_back();
  t.name = "orders";
  t.num_partitions = 6;
  t.replication_factor = 3;
  t.configs.push_back({"retention.ms", "1000", {}});
  t.configs.push_back({"cleanup.policy", "compact", {}});
  auto result = h.controller.create_topics(request);
  ASSERT_EQ(result.response.topics.size(), 1u);
  const auto& r = result.response.topics[0];
  EXPECT_EQ(r.error_code, 0);
  EXPECT_FALSE(r.error_message);
  EXPECT_EQ(r.num_partitions, 6);
  EXPECT_EQ(r.replication_factor, 3);
  EXPECT_FALSE(r.topic_id.is_zero());

  // TopicRecord, ConfigRecords sorted by key (as Kafka's output shows), PartitionRecords.
  ASSERT_EQ(result.records.size(), 1u + 2u + 6u);
  EXPECT_EQ(std::get<msg::topic_record>(result.records[0]).topic_id, r.topic_id);
  EXPECT_EQ(std::get<msg::config_record>(result.records[1]).name, "cleanup.policy");
  EXPECT_EQ(std::get<msg::config_record>(result.records[2]).name, "retention.ms");
  std::map<int32_t, int> leaders;
  for (int p = 0; p < 6; ++p) {
    const auto& part = std::get<msg::partition_record>(result.records[3 + static_cast<size_t>(p)]);
    EXPECT_EQ(part.partition_id, p);
    EXPECT_EQ(std::set<int32_t>(part.replicas.begin(), part.replicas.end()).size(), 3u);
    EXPECT_EQ(part.isr, part.replicas);
    EXPECT_EQ(part.leader, part.replicas.front());
    EXPECT_EQ(part.leader_epoch, 0);
    EXPECT_EQ(part.directories.size(), 3u);
    ++leaders[part.leader];
  }
  EXPECT_EQ(leaders, (std::map<int32_t, int>{{1, 2}, {2, 2}, {3, 2}})) << "leadership spread evenly";

  h.apply(result.records);
  EXPECT_EQ(h.image().topic("orders")->partitions.size(), 6u);
  EXPECT_EQ(h.image().config(config_resource_type::topic, "orders", "cleanup.policy"), "compact");
}

TEST(ControllerTopics, DefaultsComeFromOptions) {
  quorum_controller_options o;
  o.replication.num_partitions = 4;
  o.replication.default_replication_factor = 2;
  harness h(o);
  h.add_brokers({1, 2});
  auto r = h.create("t", -1, -1);
  EXPECT_EQ(r.topics[0].num_partitions, 4);
  EXPECT_EQ(r.topics[0].replication_factor, 2);
}

TEST(ControllerTopics, KafkasErrorsForBadRequests) {
  harness h;
  h.add_brokers({1});
  ASSERT_EQ(h.create("t1", 1, 1).topics[0].error_code, 0);
  ASSERT_EQ(h.create("t_1", 1, 1).topics[0].error_code, 0);

  auto expect = [&](const std::string& name, int32_t partitions, int16_t rf, error_code code, const std::string& message) {
    auto r = h.create(name, partitions, rf);
    ASSERT_EQ(r.topics.size(), 1u);
    EXPECT_EQ(code_of(r.topics[0].error_code), code) << name;
    EXPECT_EQ(r.topics[0].error_message, message) << name;
  };
  expect("t1", 1, 1, error_code::topic_already_exists, "Topic 't1' already exists.");
  expect("t.1", 1, 1, error_code::invalid_topic_exception, "Topic 't.1' collides with existing topic: t_1");
  expect("bad!name", 1, 1, error_code::invalid_topic_exception,
         "Topic name is invalid: 'bad!name' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'");
  expect("t3", 1, 3, error_code::invalid_replication_factor,
         "Unable to replicate the partition 3 time(s): The target replication factor of 3 cannot be reached because "
         "only 1 broker(s) are registered or some brokers have all their log directories cordoned.");
  expect("t4", 0, 1, error_code::invalid_partitions, "Number of partitions was set to an invalid non-positive value.");
  expect("t5", 1, 0, error_code::invalid_replication_factor,
         "Replication factor must be larger than 0, or -1 to use the default value.");
  expect(std::string(250, 'x'), 1, 1, error_code::invalid_topic_exception,
         "Topic name is invalid: the length of '" + std::string(250, 'x') + "' is longer than the max allowed length 249");
  expect("", 1, 1, error_code::invalid_topic_exception, "Topic name is invalid: the empty string is not allowed");
  expect(".", 1, 1, error_code::invalid_topic_exception, "Topic name is invalid: '.' is not allowed");
  expect("__cluster_metadata", 1, 1, error_code::invalid_request,
         "Creation of internal topic __cluster_metadata is prohibited.");
  expect("t6", -2, 1, error_code::invalid_partitions, "Number of partitions was set to an invalid non-positive value.");
}

TEST(ControllerTopics, OneBadTopicDoesNotStopTheOthers) {
  harness h;
  h.add_brokers({1});
  msg::create_topics_request request;
  request.topics.push_back({"good", 2, 1, {}, {}, {}});
  request.topics.push_back({"bad", 1, 5, {}, {}, {}});
  auto result = h.controller.create_topics(request);
  EXPECT_EQ(result.response.topics[0].error_code, 0);
  EXPECT_EQ(code_of(result.response.topics[1].error_code), error_code::invalid_replication_factor);
  EXPECT_EQ(result.response.topics[1].num_partitions, -1);
  EXPECT_EQ(result.records.size(), 3u);
}

TEST(ControllerTopics, ValidateOnlyWritesNothing) {
  harness h;
  h.add_brokers({1});
  msg::create_topics_request request;
  request.validate_only = true;
  request.topics.push_back({"t", 3, 1, {}, {}, {}});
  auto result = h.controller.create_topics(request);
  EXPECT_TRUE(result.records.empty());
  EXPECT_EQ(result.response.topics[0].error_code, 0);
  EXPECT_EQ(result.response.topics[0].num_partitions, 3);
}

TEST(ControllerTopics, ConfigsAreValidated) {
  quorum_controller_options o;
  o.configuration.validate_topic_config = [](std::string_view key, std::string_view value)
      -> std::optional<std::pair<error_code, std::string>> {
    if (key == "retention.ms" && value == "abc") {
      return std::pair{error_code::invalid_config,
                       "Invalid value abc for configuration retention.ms: Not a number of type LONG"};
    }
    if (key != "retention.ms") return std::pair{error_code::invalid_config, "Unknown topic config name: " + std::string(key)};
    return std::nullopt;
  };
  harness h(o);
  h.add_brokers({1});
  auto bad = h.create("t", 1, 1, {{"retention.ms", "abc"}});
  EXPECT_EQ(code_of(bad.topics[0].error_code), error_code::invalid_config);
  EXPECT_EQ(bad.topics[0].error_message, "Invalid value abc for configuration retention.ms: Not a number of type LONG");
  auto unknown = h.create("t", 1, 1, {{"foo.bar", "1"}});
  EXPECT_EQ(unknown.topics[0].error_message, "Unknown topic config name: foo.bar");
  EXPECT_FALSE(h.image().topic("t"));

  msg::create_topics_request request;
  request.topics.push_back({"n", 1, 1, {}, {{"retention.ms", std::nullopt, {}}}, {}});
  auto nulls = h.controller.create_topics(request);
  EXPECT_EQ(nulls.response.topics[0].error_message, "Null value not supported for topic configs: retention.ms");
}

TEST(ControllerTopics, ManualAssignments) {
  harness h;
  h.add_brokers({1, 2, 3});
  auto create = [&](std::vector<std::vector<int32_t>> assignment, int32_t partitions = -1, int16_t rf = -1) {
    msg::create_topics_request request;
    auto& t = request.topics.emplace_back();
    t.name = "m";
    t.num_partitions = partitions;
    t.replication_factor = rf;
    for (size_t i = 0; i < assignment.size(); ++i) {
      t.assignments.push_back({static_cast<int32_t>(i), assignment[i], {}});
    }
    return h.controller.create_topics(request);
  };
  auto ok = create({{3, 1}, {2, 3}});
  ASSERT_EQ(ok.response.topics[0].error_code, 0);
  EXPECT_EQ(std::get<msg::partition_record>(ok.records[1]).replicas, (std::vector<int32_t>{3, 1}));
  EXPECT_EQ(std::get<msg::partition_record>(ok.records[1]).leader, 3);

  EXPECT_EQ(create({{1, 1}}).response.topics[0].error_message,
            "The manual partition assignment includes the broker 1 more than once.");
  EXPECT_EQ(create({{1, 9}}).response.topics[0].error_message,
            "The manual partition assignment includes broker 9, but no such broker is registered.");
  EXPECT_EQ(create({{1, 2}, {3}}).response.topics[0].error_message,
            "The manual partition assignment includes a partition with 1 replica(s), but this is not consistent with "
            "previous partitions, which have 2 replica(s).");
  EXPECT_EQ(create({{1}}, 1).response.topics[0].error_message,
            "A manual partition assignment was specified, but numPartitions was not set to -1.");
  EXPECT_EQ(code_of(create({{1}}, -1, 1).response.topics[0].error_code), error_code::invalid_request);
  EXPECT_EQ(create({{1}, {}}).response.topics[0].error_message,
            "The manual partition assignment includes an empty replica list.");
  msg::create_topics_request gap;
  auto& t = gap.topics.emplace_back();
  t.name = "g";
  t.num_partitions = -1;
  t.replication_factor = -1;
  t.assignments.push_back({0, {1}, {}});
  t.assignments.push_back({2, {1}, {}});
  EXPECT_EQ(h.controller.create_topics(gap).response.topics[0].error_message,
            "partitions should be a consecutive 0-based integer sequence");
}

TEST(ControllerTopics, FencedBrokersTakeNoLeadership) {
  harness h;
  h.register_broker(1);  // registered, never heartbeated: fenced
  auto r = h.create("t", 1, 1);
  EXPECT_EQ(code_of(r.topics[0].error_code), error_code::invalid_replication_factor);
  EXPECT_EQ(r.topics[0].error_message,
            "Unable to replicate the partition 1 time(s): All brokers are currently fenced, or have all their log "
            "directories cordoned.");
}

TEST(ControllerTopics, DeleteByNameAndById) {
  harness h;
  h.add_brokers({1});
  h.create("a", 1, 1, {{"retention.ms", "5"}});
  protocol::uuid b = h.create("b", 1, 1).topics[0].topic_id;
  msg::delete_topics_request request;
  request.topics.push_back({std::string("a"), {}, {}});
  request.topics.push_back({std::nullopt, b, {}});
  request.topics.push_back({std::string("nope"), {}, {}});
  request.topics.push_back({std::nullopt, testing::id_of(77), {}});
  request.topics.push_back({std::string("a"), {}, {}});
  auto result = h.controller.delete_topics(request, 6);
  const auto& rs = result.response.responses;
  ASSERT_EQ(rs.size(), 5u);
  EXPECT_EQ(rs[0].error_code, 0);
  EXPECT_EQ(rs[1].error_code, 0);
  EXPECT_EQ(rs[1].name, "b");
  EXPECT_EQ(code_of(rs[2].error_code), error_code::unknown_topic_or_partition);
  EXPECT_EQ(code_of(rs[3].error_code), error_code::unknown_topic_id);
  EXPECT_EQ(rs[4].error_message, "Duplicate topic name.");
  ASSERT_EQ(result.records.size(), 2u);
  h.apply(result.records);
  EXPECT_TRUE(h.image().topics_by_id.empty());
  EXPECT_FALSE(h.image().config(config_resource{config_resource_type::topic, "a"}));

  quorum_controller_options o;
  o.replication.delete_topic_enable = false;
  harness off(o);
  off.add_brokers({1});
  off.create("a", 1, 1);
  msg::delete_topics_request old;
  old.topic_names = {"a"};
  auto refused = off.controller.delete_topics(old, 5);
  EXPECT_EQ(code_of(refused.response.responses[0].error_code), error_code::topic_deletion_disabled);
  EXPECT_TRUE(refused.records.empty());
}

TEST(ControllerTopics, CreatePartitions) {
  harness h;
  h.add_brokers({1, 2});
  h.create("t1", 3, 2);
  msg::create_partitions_request request;
  request.topics.push_back({"t1", 5, std::nullopt, {}});
  auto grown = h.controller.create_partitions(request);
  EXPECT_EQ(grown.response.results[0].error_code, 0);
  ASSERT_EQ(grown.records.size(), 2u);
  EXPECT_EQ(std::get<msg::partition_record>(grown.records[0]).partition_id, 3);
  EXPECT_EQ(std::get<msg::partition_record>(grown.records[1]).replicas.size(), 2u);
  h.apply(grown.records);

  auto expect = [&](int32_t count, const std::string& message) {
    msg::create_partitions_request r;
    r.topics.push_back({"t1", count, std::nullopt, {}});
    auto result = h.controller.create_partitions(r);
    EXPECT_EQ(code_of(result.response.results[0].error_code), error_code::invalid_partitions);
    EXPECT_EQ(result.response.results[0].error_message, message);
    EXPECT_TRUE(result.records.empty());
  };
  expect(2, "The topic t1 currently has 5 partition(s); 2 would not be an increase.");
  expect(5, "Topic already has 5 partition(s).");

  msg::create_partitions_request mismatch;
  mismatch.topics.push_back({"t1", 7, std::vector<msg::create_partitions_request::create_partitions_assignment>{{{1, 2}, {}}}, {}});
  EXPECT_EQ(h.controller.create_partitions(mismatch).response.results[0].error_message,
            "Attempted to add 2 additional partition(s), but only 1 assignment(s) were specified.");
  msg::create_partitions_request unknown;
  unknown.topics.push_back({"zz", 7, std::nullopt, {}});
  EXPECT_EQ(code_of(h.controller.create_partitions(unknown).response.results[0].error_code),
            error_code::unknown_topic_or_partition);
}

TEST(ControllerTopics, PreferredElectionMovesLeadershipBack) {
  harness h;
  h.add_brokers({1, 2});
  h.create("t", 1, 2);
  int32_t preferred = h.image().partition("t", 0)->replicas.front().value;
  int32_t other = h.image().partition("t", 0)->replicas.back().value;
  // The preferred leader goes away; leadership moves; it comes back.
  h.heartbeat(preferred, false, true);  // asks to be fenced
  EXPECT_EQ(h.image().partition("t", 0)->leader.value, other);
  h.heartbeat(preferred);  // unfenced again (caught up)
  EXPECT_EQ(h.image().partition("t", 0)->leader.value, other);

  msg::elect_leaders_request request;
  request.election_type = 0;
  request.topic_partitions = std::vector<msg::elect_leaders_request::topic_partitions_data>{{"t", {0, 9}, {}}};
  auto result = h.controller.elect_leaders(request, 2);
  const auto& parts = result.response.replica_election_results[0].partition_result;
  ASSERT_EQ(parts.size(), 2u);
  // The fenced broker left the ISR: it is not eligible until it rejoins.
  EXPECT_EQ(code_of(parts[0].error_code), error_code::preferred_leader_not_available);
  EXPECT_EQ(parts[1].error_message, "No such partition as t-9");

  // Back in the ISR (as AlterPartition would do), it is elected.
  msg::partition_change_record rejoin;
  rejoin.topic_id = h.image().topic("t")->id.value;
  rejoin.partition_id = 0;
  rejoin.isr = std::vector<int32_t>{other, preferred};
  h.apply({rejoin});
  auto again = h.controller.elect_leaders(request, 2);
  EXPECT_EQ(again.response.replica_election_results[0].partition_result[0].error_code, 0);
  h.apply(again.records);
  EXPECT_EQ(h.image().partition("t", 0)->leader.value, preferred);
  auto not_needed = h.controller.elect_leaders(request, 2);
  EXPECT_EQ(code_of(not_needed.response.replica_election_results[0].partition_result[0].error_code),
            error_code::election_not_needed);
}

TEST(ControllerTopics, UncleanElectionPicksALiveReplicaOutsideTheIsr) {
  quorum_controller_options o;
  harness h(o);
  h.add_brokers({1, 2});
  // ELR off for this topic: min ISR 1 means the ISR never goes below it
  // until the last member leaves.
  h.create("t", 1, 2);
  const partition_registration* p = h.image().partition("t", 0);
  int32_t first = p->leader.value;
  int32_t second = p->replicas[0].value == first ? p->replicas[1].value : p->replicas[0].value;
  h.heartbeat(second, false, true);  // second fenced: ISR {first}
  h.heartbeat(first, false, true);   // first fenced: no leader, ELR keeps first
  ASSERT_EQ(h.image().partition("t", 0)->leader, no_leader);
  h.heartbeat(second);               // second back, but not eligible
  EXPECT_EQ(h.image().partition("t", 0)->leader, no_leader);

  msg::elect_leaders_request request;
  request.election_type = 1;
  request.topic_partitions = std::vector<msg::elect_leaders_request::topic_partitions_data>{{"t", {0}, {}}};
  auto result = h.controller.elect_leaders(request, 2);
  ASSERT_EQ(result.response.replica_election_results[0].partition_result[0].error_code, 0);
  h.apply(result.records);
  EXPECT_EQ(h.image().partition("t", 0)->leader.value, second);
  EXPECT_EQ(h.image().partition("t", 0)->isr, ids({second}));
  EXPECT_EQ(h.image().partition("t", 0)->leader_recovery_state, 1);

  // The new leader recovers (KIP-704): its AlterPartition adding the other
  // replica back says RECOVERED, which the partition keeps; going back to
  // RECOVERING, or staying there with more than the leader in the ISR, is
  // refused.
  h.heartbeat(first);
  auto alter = [&](std::vector<int32_t> isr, int8_t state) {
    const partition_registration* now = h.image().partition("t", 0);
    msg::alter_partition_request r;
    r.broker_id = second;
    r.broker_epoch = h.image().broker(node_id(second))->epoch.value;
    auto& t = r.topics.emplace_back();
    t.topic_id = h.image().topic("t")->id.value;
    auto& d = t.partitions.emplace_back();
    d.partition_index = 0;
    d.leader_epoch = now->leader_epoch.value;
    d.partition_epoch = now->partition_epoch.value;
    d.leader_recovery_state = state;
    for (int32_t b : isr) d.new_isr_with_epochs.push_back({b, h.image().broker(node_id(b))->epoch.value, {}});
    auto out = h.controller.alter_partition(r, 3);
    h.apply(out.records);
    return static_cast<error_code>(out.response.topics[0].partitions[0].error_code);
  };
  EXPECT_EQ(alter({second, first}, 1), error_code::invalid_request);
  EXPECT_EQ(alter({second, first}, 0), error_code::none);
  EXPECT_EQ(h.image().partition("t", 0)->leader_recovery_state, 0);
  EXPECT_EQ(h.image().partition("t", 0)->isr, ids({second, first}));
  EXPECT_EQ(alter({second}, 1), error_code::invalid_request);
  EXPECT_EQ(h.image().partition("t", 0)->leader_recovery_state, 0);
}

TEST(ControllerTopics, BalanceLeadersReturnsLeadershipToPreferredReplicas) {
  harness h;
  h.add_brokers({1, 2});
  h.create("t", 4, 2);
  h.heartbeat(1, false, true);  // 1 fenced: it leads nothing now
  h.heartbeat(1);               // back, but out of every ISR
  for (const auto& [p, reg] : h.image().topic("t")->partitions) EXPECT_EQ(reg.leader.value, 2);
  EXPECT_TRUE(h.controller.replication().balance_leaders(h.image()).empty()) << "1 is not in the ISRs yet";
  // The leaders let 1 back into their ISRs.
  std::vector<metadata_record> rejoin;
  for (const auto& [p, reg] : h.image().topic("t")->partitions) {
    msg::partition_change_record r;
    r.topic_id = h.image().topic("t")->id.value;
    r.partition_id = p;
    r.isr = std::vector<int32_t>{2, 1};
    rejoin.push_back(r);
  }
  h.apply(rejoin);
  auto records = h.controller.replication().balance_leaders(h.image(), 1);
  EXPECT_EQ(records.size(), 1u) << "bounded";
  h.apply(h.controller.replication().balance_leaders(h.image()));
  for (const auto& [p, reg] : h.image().topic("t")->partitions) EXPECT_EQ(reg.leader, reg.replicas.front());
  EXPECT_TRUE(h.controller.replication().balance_leaders(h.image()).empty());
}

// unclean.leader.election.enable=true on the topic (IncrementalAlterConfigs).
void allow_unclean_elections(harness& h, const std::string& topic) {
  msg::incremental_alter_configs_request allow;
  auto& r = allow.resources.emplace_back();
  r.resource_type = static_cast<int8_t>(config_resource_type::topic);
  r.resource_name = topic;
  r.configs.push_back({"unclean.leader.election.enable", 0, "true", {}});
  h.run(h.controller.incremental_alter_configs(allow));
}

TEST(ControllerTopics, UncleanLeadersOnlyWhereTheTopicAllowsIt) {
  harness h;
  h.add_brokers({1, 2});
  h.create("strict", 1, 2);
  h.create("lenient", 1, 2);
  // 2 leaves the ISRs, then 1 goes too: no leader, 1 kept as ELR; 2 returns
  // but holds nothing committed it can vouch for.
  h.heartbeat(2, false, true);
  h.heartbeat(1, false, true);
  h.heartbeat(2);
  EXPECT_EQ(h.image().partition("strict", 0)->leader, no_leader);
  EXPECT_EQ(h.image().partition("lenient", 0)->leader, no_leader);
  EXPECT_TRUE(h.controller.replication().elect_unclean_leaders(h.image()).empty());

  allow_unclean_elections(h, "lenient");
  auto records = h.controller.replication().elect_unclean_leaders(h.image());
  ASSERT_EQ(records.size(), 1u);
  h.apply(records);
  EXPECT_EQ(h.image().partition("lenient", 0)->leader.value, 2);
  EXPECT_EQ(h.image().partition("lenient", 0)->leader_recovery_state, 1);
  EXPECT_EQ(h.image().partition("strict", 0)->leader, no_leader);
}

// The active controller's tick runs the unclean elections every
// unclean.leader.election.interval.ms, as Kafka's deferred
// maybeElectUncleanLeaders event: a topic that allows them gets a leader
// within one interval of its config change.
TEST(ControllerTopics, TickElectsUncleanLeadersEveryInterval) {
  quorum_controller_options o;
  o.replication.unclean_election_interval_ms = 60'000;
  o.replication.auto_leader_rebalance_enable = false;
  harness h(o);
  h.add_brokers({1, 2});
  h.create("lenient", 1, 2);
  h.heartbeat(2, false, true);
  h.heartbeat(1, false, true);
  h.heartbeat(2);
  ASSERT_EQ(h.image().partition("lenient", 0)->leader, no_leader);
  EXPECT_TRUE(h.controller.tick(h.now_ms).empty());

  allow_unclean_elections(h, "lenient");
  h.now_ms += 59'000;
  h.heartbeat(2);
  EXPECT_TRUE(h.controller.tick(h.now_ms).empty()) << "not due yet";
  h.now_ms += 1'000;
  h.heartbeat(2);
  auto records = h.controller.tick(h.now_ms);
  ASSERT_EQ(records.size(), 1u);
  h.apply(records);
  EXPECT_EQ(h.image().partition("lenient", 0)->leader.value, 2);
  EXPECT_EQ(h.image().partition("lenient", 0)->leader_recovery_state, 1);
}

}  // namespace
}  // namespace hw::controller
