// The admin and introspection APIs against the real binary, over raw
// requests: DescribeConfigs, AlterConfigs, IncrementalAlterConfigs,
// DescribeCluster, DescribeLogDirs, DescribeQuorum, ElectLeaders,
// OffsetForLeaderEpoch, DeleteRecords, DescribeTopicPartitions,
// InitProducerId and DescribeProducers — each one's main answer and errors.

#include <gtest/gtest.h>

#include <algorithm>

#include "broker_process.h"
#include "protocol/messages/alter_configs.h"
#include "protocol/messages/delete_records.h"
#include "protocol/messages/describe_cluster.h"
#include "protocol/messages/describe_configs.h"
#include "protocol/messages/describe_log_dirs.h"
#include "protocol/messages/describe_producers.h"
#include "protocol/messages/describe_quorum.h"
#include "protocol/messages/describe_topic_partitions.h"
#include "protocol/messages/elect_leaders.h"
#include "protocol/messages/incremental_alter_configs.h"
#include "protocol/messages/init_producer_id.h"
#include "protocol/messages/offset_for_leader_epoch.h"
#include "raw_requests.h"

namespace hw::testing {
namespace {

constexpr int8_t k_topic = 2, k_broker = 4, k_broker_logger = 8;

class AdminIT : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(broker.start()) << broker.log();
    client = std::make_unique<raw_client>(broker.port());
  }

  std::optional<msg::describe_configs_response::describe_configs_result> describe_configs(
      int8_t type, const std::string& name, std::optional<std::vector<std::string>> keys = std::nullopt,
      int16_t version = 4, bool synonyms = false) {
    msg::describe_configs_request req;
    msg::describe_configs_request::describe_configs_resource r;
    r.resource_type = type;
    r.resource_name = name;
    r.configuration_keys = std::move(keys);
    req.resources.push_back(r);
    req.include_synonyms = synonyms;
    auto resp = client->call<msg::describe_configs_response>(32, version, req);
    if (!resp || resp->results.size() != 1) return std::nullopt;
    return resp->results[0];
  }
  static const msg::describe_configs_response::describe_configs_resource_result* entry(
      const msg::describe_configs_response::describe_configs_result& r, const std::string& name) {
    for (const auto& c : r.configs)
      if (c.name == name) return &c;
    return nullptr;
  }

  std::optional<msg::incremental_alter_configs_response> set_topic_config(const std::string& topic,
                                                                         const std::string& key,
                                                                         const std::string& value,
                                                                         bool validate_only = false) {
    msg::incremental_alter_configs_request req;
    msg::incremental_alter_configs_request::alter_configs_resource r;
    r.resource_type = k_topic;
    r.resource_name = topic;
    msg::incremental_alter_configs_request::alterable_config c;
    c.name = key;
    c.config_operation = 0;  // SET
    c.value = value;
    r.configs.push_back(c);
    req.resources.push_back(r);
    req.validate_only = validate_only;
    return client->call<msg::incremental_alter_configs_response>(44, 1, req);
  }

  void create(const std::string& topic, int32_t partitions) {
    auto r = client->create_topic(topic, partitions);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->topics.at(0).error_code, 0) << topic;
  }

  broker_process broker;
  std::unique_ptr<raw_client> client;
};

TEST_F(AdminIT, DescribeConfigsTopicBrokerAndErrors) {
  create("conf", 1);
  for (int16_t v = 1; v <= 4; ++v) {
    auto r = describe_configs(k_topic, "conf", std::nullopt, v);
    ASSERT_TRUE(r) << v;
    EXPECT_EQ(r->error_code, 0);
    const auto* ret = entry(*r, "retention.ms");
    ASSERT_NE(ret, nullptr) << v;
    EXPECT_EQ(ret->value, "604800000");
    EXPECT_EQ(ret->config_source, 5);  // DEFAULT_CONFIG
    EXPECT_NE(entry(*r, "cleanup.policy"), nullptr);
  }
  // A key filter answers just those keys; unknown keys are left out.
  auto filtered = describe_configs(k_topic, "conf", std::vector<std::string>{"segment.bytes", "no.such.key"});
  ASSERT_TRUE(filtered);
  ASSERT_EQ(filtered->configs.size(), 1u);
  EXPECT_EQ(filtered->configs[0].name, "segment.bytes");

  auto unknown = describe_configs(k_topic, "nope");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->error_code, 3);  // UNKNOWN_TOPIC_OR_PARTITION
  EXPECT_TRUE(unknown->configs.empty());
  auto invalid = describe_configs(k_topic, "bad/name");
  ASSERT_TRUE(invalid);
  EXPECT_EQ(invalid->error_code, 17);  // INVALID_TOPIC_EXCEPTION

  auto b = describe_configs(k_broker, "1", std::vector<std::string>{"log.retention.hours", "log.dirs", "num.io.threads"});
  ASSERT_TRUE(b);
  EXPECT_EQ(b->error_code, 0);
  ASSERT_NE(entry(*b, "log.retention.hours"), nullptr);
  EXPECT_EQ(entry(*b, "log.retention.hours")->value, "168");
  EXPECT_TRUE(entry(*b, "log.dirs")->read_only);
  EXPECT_FALSE(entry(*b, "num.io.threads")->read_only);  // dynamic per broker and cluster-wide
  auto other = describe_configs(k_broker, "7");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->error_code, 42);  // INVALID_REQUEST
  auto loggers = describe_configs(k_broker_logger, "1");
  ASSERT_TRUE(loggers);
  EXPECT_EQ(loggers->error_code, 0);
  ASSERT_NE(entry(*loggers, "root"), nullptr);
  auto other_logger = describe_configs(k_broker_logger, "2");
  ASSERT_TRUE(other_logger);
  EXPECT_EQ(other_logger->error_code, 42);
}

TEST_F(AdminIT, IncrementalAndLegacyAlterConfigs) {
  create("alt", 1);
  auto dry = set_topic_config("alt", "retention.ms", "12345", /*validate_only=*/true);
  ASSERT_TRUE(dry);
  EXPECT_EQ(dry->responses.at(0).error_code, 0);
  EXPECT_EQ(entry(*describe_configs(k_topic, "alt"), "retention.ms")->value, "604800000");

  auto set = set_topic_config("alt", "retention.ms", "12345");
  ASSERT_TRUE(set);
  EXPECT_EQ(set->responses.at(0).error_code, 0);
  auto after = describe_configs(k_topic, "alt", std::nullopt, 4, /*synonyms=*/true);
  const auto* ret = entry(*after, "retention.ms");
  ASSERT_NE(ret, nullptr);
  EXPECT_EQ(ret->value, "12345");
  EXPECT_EQ(ret->config_source, 1);  // TOPIC_CONFIG
  ASSERT_FALSE(ret->synonyms.empty());
  EXPECT_EQ(ret->synonyms[0].source, 1);

  auto bad = set_topic_config("alt", "retention.ms", "abc");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->responses.at(0).error_code, 40);  // INVALID_CONFIG
  auto missing = set_topic_config("missing", "retention.ms", "1");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->responses.at(0).error_code, 3);

  // The legacy AlterConfigs replaces the whole set: retention.ms goes back
  // to the default, segment.bytes is set.
  msg::alter_configs_request req;
  msg::alter_configs_request::alter_configs_resource r;
  r.resource_type = k_topic;
  r.resource_name = "alt";
  msg::alter_configs_request::alterable_config c;
  c.name = "segment.bytes";
  c.value = "1048576";
  r.configs.push_back(c);
  req.resources.push_back(r);
  for (int16_t v : {0, 2}) {
    auto resp = client->call<msg::alter_configs_response>(33, v, req);
    ASSERT_TRUE(resp);
    EXPECT_EQ(resp->responses.at(0).error_code, 0) << v;
  }
  auto legacy = describe_configs(k_topic, "alt");
  EXPECT_EQ(entry(*legacy, "segment.bytes")->value, "1048576");
  EXPECT_EQ(entry(*legacy, "retention.ms")->value, "604800000");
}

TEST_F(AdminIT, DescribeCluster) {
  for (int16_t v = 0; v <= 2; ++v) {
    msg::describe_cluster_request req;
    req.include_cluster_authorized_operations = true;
    auto resp = client->call<msg::describe_cluster_response>(60, v, req);
    ASSERT_TRUE(resp) << v;
    EXPECT_EQ(resp->error_code, 0);
    EXPECT_FALSE(resp->cluster_id.empty());
    EXPECT_EQ(resp->controller_id, 1);
    ASSERT_EQ(resp->brokers.size(), 1u);
    EXPECT_EQ(resp->brokers[0].broker_id, 1);
    EXPECT_EQ(resp->brokers[0].port, broker.port());
    EXPECT_EQ(resp->cluster_authorized_operations, 8096);  // every cluster operation
  }
  msg::describe_cluster_request controllers;
  controllers.endpoint_type = 2;
  auto mismatched = client->call<msg::describe_cluster_response>(60, 1, controllers);
  ASSERT_TRUE(mismatched);
  EXPECT_EQ(mismatched->error_code, 114);  // MISMATCHED_ENDPOINT_TYPE
  controllers.endpoint_type = 9;
  auto unsupported = client->call<msg::describe_cluster_response>(60, 1, controllers);
  ASSERT_TRUE(unsupported);
  EXPECT_EQ(unsupported->error_code, 115);  // UNSUPPORTED_ENDPOINT_TYPE
}

TEST_F(AdminIT, DescribeLogDirs) {
  create("dirs", 2);
  auto produced = client->produce("dirs", 1, simple_batch(20, 100));
  ASSERT_TRUE(produced);
  ASSERT_EQ(produced->error_code, 0);
  msg::describe_log_dirs_request all;
  all.topics.reset();
  for (int16_t v : {1, 4}) {
    auto resp = client->call<msg::describe_log_dirs_response>(35, v, all);
    ASSERT_TRUE(resp);
    ASSERT_EQ(resp->results.size(), 1u);
    const auto& dir = resp->results[0];
    EXPECT_EQ(dir.error_code, 0);
    EXPECT_EQ(dir.log_dir.front(), '/');
    if (v >= 4) {
      EXPECT_GT(dir.total_bytes, 0);
      EXPECT_GE(dir.usable_bytes, 0);
    }
    auto t = std::find_if(dir.topics.begin(), dir.topics.end(), [](auto& x) { return x.name == "dirs"; });
    ASSERT_NE(t, dir.topics.end());
    ASSERT_EQ(t->partitions.size(), 2u);
    for (const auto& p : t->partitions) {
      EXPECT_EQ(p.offset_lag, 0);
      EXPECT_FALSE(p.is_future_key);
      if (p.partition_index == 1) EXPECT_GT(p.partition_size, 2000);
      else EXPECT_EQ(p.partition_size, 0);
    }
  }
  // Only the listed partitions; a topic with none of them is left out.
  msg::describe_log_dirs_request some;
  some.topics.emplace();
  msg::describe_log_dirs_request::describable_log_dir_topic dt;
  dt.topic = "dirs";
  dt.partitions = {1};
  some.topics->push_back(dt);
  auto resp = client->call<msg::describe_log_dirs_response>(35, 4, some);
  ASSERT_TRUE(resp);
  ASSERT_EQ(resp->results.at(0).topics.size(), 1u);
  ASSERT_EQ(resp->results[0].topics[0].partitions.size(), 1u);
  EXPECT_EQ(resp->results[0].topics[0].partitions[0].partition_index, 1);
}

TEST_F(AdminIT, DescribeQuorum) {
  msg::describe_quorum_request req;
  msg::describe_quorum_request::topic_data t;
  t.topic_name = "__cluster_metadata";
  t.partitions.push_back({});
  req.topics.push_back(t);
  for (int16_t v = 0; v <= 2; ++v) {
    auto resp = client->call<msg::describe_quorum_response>(55, v, req);
    ASSERT_TRUE(resp);
    EXPECT_EQ(resp->error_code, 0);
    ASSERT_EQ(resp->topics.size(), 1u);
    const auto& p = resp->topics[0].partitions.at(0);
    EXPECT_EQ(p.error_code, 0);
    EXPECT_EQ(p.leader_id, 1);
    EXPECT_GE(p.leader_epoch, 1);
    EXPECT_GT(p.high_watermark, 0);
    ASSERT_EQ(p.current_voters.size(), 1u);
    EXPECT_EQ(p.current_voters[0].replica_id, 1);
    EXPECT_EQ(p.current_voters[0].log_end_offset, p.high_watermark);
    EXPECT_TRUE(p.observers.empty());
  }
  req.topics[0].topic_name = "other";
  auto wrong = client->call<msg::describe_quorum_response>(55, 2, req);
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->topics.at(0).partitions.at(0).error_code, 3);
}

TEST_F(AdminIT, ElectLeaders) {
  create("elect", 1);
  msg::elect_leaders_request req;
  req.election_type = 0;  // preferred
  req.topic_partitions.emplace();
  msg::elect_leaders_request::topic_partitions_data tp;
  tp.topic = "elect";
  tp.partitions = {0, 5};
  req.topic_partitions->push_back(tp);
  auto resp = client->call<msg::elect_leaders_response>(43, 2, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, 0);
  ASSERT_EQ(resp->replica_election_results.size(), 1u);
  const auto& results = resp->replica_election_results[0].partition_result;
  ASSERT_EQ(results.size(), 2u);
  for (const auto& r : results) {
    if (r.partition_id == 0) EXPECT_EQ(r.error_code, 84);  // ELECTION_NOT_NEEDED
    else EXPECT_EQ(r.error_code, 3);                       // UNKNOWN_TOPIC_OR_PARTITION
  }
}

TEST_F(AdminIT, OffsetForLeaderEpoch) {
  create("epochs", 1);
  ASSERT_EQ(client->produce("epochs", 0, simple_batch(7))->error_code, 0);
  auto md = client->metadata(std::vector<std::string>{"epochs"});
  ASSERT_TRUE(md);
  const int32_t epoch = md->topics.at(0).partitions.at(0).leader_epoch;
  auto ask = [&](const std::string& topic, int32_t current, int32_t wanted, int16_t v = 4) {
    msg::offset_for_leader_epoch_request req;
    req.replica_id = -1;
    msg::offset_for_leader_epoch_request::offset_for_leader_topic t;
    t.topic = topic;
    msg::offset_for_leader_epoch_request::offset_for_leader_partition p;
    p.partition = 0;
    p.current_leader_epoch = current;
    p.leader_epoch = wanted;
    t.partitions.push_back(p);
    req.topics.push_back(t);
    auto resp = client->call<msg::offset_for_leader_epoch_response>(23, v, req);
    EXPECT_TRUE(resp);
    return resp->topics.at(0).partitions.at(0);
  };
  for (int16_t v = 2; v <= 4; ++v) {
    auto latest = ask("epochs", epoch, epoch, v);
    EXPECT_EQ(latest.error_code, 0);
    EXPECT_EQ(latest.leader_epoch, epoch);
    EXPECT_EQ(latest.end_offset, 7);
  }
  auto above = ask("epochs", -1, epoch + 5);
  EXPECT_EQ(above.error_code, 0);
  EXPECT_EQ(above.leader_epoch, -1);
  EXPECT_EQ(above.end_offset, -1);
  EXPECT_EQ(ask("epochs", epoch + 1, epoch).error_code, 75);  // UNKNOWN_LEADER_EPOCH
  if (epoch > 0) {
    EXPECT_EQ(ask("epochs", epoch - 1, epoch).error_code, 74);  // FENCED_LEADER_EPOCH
  }
  EXPECT_EQ(ask("nope", -1, 0).error_code, 3);
}

TEST_F(AdminIT, DeleteRecords) {
  create("del", 1);
  ASSERT_EQ(client->produce("del", 0, simple_batch(10))->error_code, 0);
  auto del = [&](int64_t offset, int16_t v = 2, const std::string& topic = "del") {
    msg::delete_records_request req;
    req.timeout_ms = 5000;
    msg::delete_records_request::delete_records_topic t;
    t.name = topic;
    msg::delete_records_request::delete_records_partition p;
    p.partition_index = 0;
    p.offset = offset;
    t.partitions.push_back(p);
    req.topics.push_back(t);
    auto resp = client->call<msg::delete_records_response>(21, v, req);
    EXPECT_TRUE(resp);
    return resp->topics.at(0).partitions.at(0);
  };
  auto first = del(4, 0);
  EXPECT_EQ(first.error_code, 0);
  EXPECT_EQ(first.low_watermark, 4);
  EXPECT_EQ(client->list_offset("del", 0, -2)->offset, 4);
  auto beyond = del(11);
  EXPECT_EQ(beyond.error_code, 1);  // OFFSET_OUT_OF_RANGE
  EXPECT_EQ(beyond.low_watermark, -1);
  auto to_hw = del(-1);
  EXPECT_EQ(to_hw.error_code, 0);
  EXPECT_EQ(to_hw.low_watermark, 10);
  EXPECT_EQ(del(0, 2, "nope").error_code, 3);
  EXPECT_EQ(del(0, 2, "__consumer_offsets").error_code, 17);  // INVALID_TOPIC_EXCEPTION
}

TEST_F(AdminIT, DescribeTopicPartitionsPages) {
  create("pa", 3);
  create("pb", 2);
  msg::describe_topic_partitions_request req;
  req.response_partition_limit = 2;
  auto page1 = client->call<msg::describe_topic_partitions_response>(75, 0, req);
  ASSERT_TRUE(page1);
  ASSERT_EQ(page1->topics.size(), 1u);
  EXPECT_EQ(page1->topics[0].name, "pa");
  EXPECT_EQ(page1->topics[0].partitions.size(), 2u);
  EXPECT_EQ(page1->topics[0].topic_authorized_operations, 3576);
  ASSERT_TRUE(page1->next_cursor);
  EXPECT_EQ(page1->next_cursor->topic_name, "pa");
  EXPECT_EQ(page1->next_cursor->partition_index, 2);

  req.cursor.emplace();
  req.cursor->topic_name = "pa";
  req.cursor->partition_index = 2;
  auto page2 = client->call<msg::describe_topic_partitions_response>(75, 0, req);
  ASSERT_TRUE(page2);
  ASSERT_EQ(page2->topics.size(), 2u);
  EXPECT_EQ(page2->topics[0].partitions.size(), 1u);
  EXPECT_EQ(page2->topics[0].partitions[0].partition_index, 2);
  EXPECT_EQ(page2->topics[1].name, "pb");
  EXPECT_EQ(page2->topics[1].partitions.size(), 1u);
  ASSERT_TRUE(page2->next_cursor);
  EXPECT_EQ(page2->next_cursor->topic_name, "pb");
  EXPECT_EQ(page2->next_cursor->partition_index, 1);

  // Named topics: unknown ones are answered with an error; the cursor's
  // topic must be among them.
  msg::describe_topic_partitions_request named;
  for (const char* n : {"pb", "zz"}) {
    msg::describe_topic_partitions_request::topic_request t;
    t.name = n;
    named.topics.push_back(t);
  }
  auto resp = client->call<msg::describe_topic_partitions_response>(75, 0, named);
  ASSERT_TRUE(resp);
  ASSERT_EQ(resp->topics.size(), 2u);
  EXPECT_EQ(resp->topics[0].name, "pb");
  EXPECT_EQ(resp->topics[0].partitions.size(), 2u);
  EXPECT_EQ(resp->topics[0].partitions[0].leader_id, 1);
  EXPECT_EQ(resp->topics[1].error_code, 3);
  EXPECT_FALSE(resp->next_cursor);
  named.cursor.emplace();
  named.cursor->topic_name = "pa";
  auto invalid = client->call<msg::describe_topic_partitions_response>(75, 0, named);
  ASSERT_TRUE(invalid);
  for (const auto& t : invalid->topics) EXPECT_EQ(t.error_code, 42);
}

TEST_F(AdminIT, InitProducerIdAndDescribeProducers) {
  create("idem", 1);
  msg::init_producer_id_request req;
  req.transactional_id.reset();
  req.transaction_timeout_ms = 60000;
  std::vector<int64_t> ids;
  for (int16_t v = 0; v <= 5; ++v) {
    auto resp = client->call<msg::init_producer_id_response>(22, v, req);
    ASSERT_TRUE(resp);
    EXPECT_EQ(resp->error_code, 0) << v;
    EXPECT_EQ(resp->producer_epoch, 0);
    ids.push_back(resp->producer_id);
  }
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::unique(ids.begin(), ids.end()), ids.end());
  EXPECT_GE(ids.front(), 0);

  auto txn = req;
  txn.transactional_id = "tx";
  EXPECT_EQ(client->call<msg::init_producer_id_response>(22, 5, txn)->error_code, 16);  // NOT_COORDINATOR
  auto half = req;
  half.producer_id = 5;  // epoch left at -1
  EXPECT_EQ(client->call<msg::init_producer_id_response>(22, 4, half)->error_code, 42);

  // An idempotent batch, then its retry: the retry gets the original offset.
  const int64_t pid = ids.back();
  protocol::record_batch_options o;
  o.producer_id = pid;
  o.producer_epoch = 0;
  o.base_sequence = 0;
  protocol::record_batch_builder b(o);
  for (int i = 0; i < 3; ++i) b.append(1700000000000 + i, std::nullopt, std::nullopt);
  auto batch = b.finish();
  ASSERT_EQ(client->produce("idem", 0, simple_batch(2))->base_offset, 0);
  auto first = client->produce("idem", 0, batch);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->error_code, 0);
  EXPECT_EQ(first->base_offset, 2);
  auto retry = client->produce("idem", 0, batch);
  ASSERT_TRUE(retry);
  EXPECT_EQ(retry->error_code, 0);
  EXPECT_EQ(retry->base_offset, 2);
  EXPECT_EQ(client->list_offset("idem", 0, -1)->offset, 5);

  msg::describe_producers_request dp;
  msg::describe_producers_request::topic_request t;
  t.name = "idem";
  t.partition_indexes = {0, 3};
  dp.topics.push_back(t);
  auto producers = client->call<msg::describe_producers_response>(61, 0, dp);
  ASSERT_TRUE(producers);
  const auto& parts = producers->topics.at(0).partitions;
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].error_code, 0);
  ASSERT_EQ(parts[0].active_producers.size(), 1u);
  EXPECT_EQ(parts[0].active_producers[0].producer_id, pid);
  EXPECT_EQ(parts[0].active_producers[0].producer_epoch, 0);
  EXPECT_EQ(parts[0].active_producers[0].last_sequence, 2);
  EXPECT_EQ(parts[0].active_producers[0].current_txn_start_offset, -1);
  EXPECT_EQ(parts[1].error_code, 3);
}

}  // namespace
}  // namespace hw::testing
