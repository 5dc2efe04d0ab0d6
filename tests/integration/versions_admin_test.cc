// Version sweeps of ApiVersions and the admin APIs: CreateTopics,
// DeleteTopics, CreatePartitions, DescribeConfigs, AlterConfigs,
// IncrementalAlterConfigs, AlterReplicaLogDirs, DescribeLogDirs, ElectLeaders, DescribeQuorum,
// DescribeCluster, UnregisterBroker, ListConfigResources and DescribeTopicPartitions. Each version changes topics
// of its own and reads the change back.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "protocol/messages/alter_client_quotas.h"
#include "protocol/messages/alter_configs.h"
#include "protocol/messages/create_partitions.h"
#include "protocol/messages/delete_topics.h"
#include "protocol/messages/describe_client_quotas.h"
#include "protocol/messages/describe_cluster.h"
#include "protocol/messages/unregister_broker.h"
#include "protocol/messages/alter_replica_log_dirs.h"
#include "protocol/messages/update_features.h"
#include "protocol/messages/add_raft_voter.h"
#include "protocol/messages/remove_raft_voter.h"
#include "protocol/messages/describe_configs.h"
#include "protocol/messages/describe_log_dirs.h"
#include "protocol/messages/describe_quorum.h"
#include "protocol/messages/describe_topic_partitions.h"
#include "protocol/messages/alter_partition_reassignments.h"
#include "protocol/messages/alter_user_scram_credentials.h"
#include "protocol/messages/create_acls.h"
#include "protocol/messages/create_delegation_token.h"
#include "protocol/messages/describe_delegation_token.h"
#include "protocol/messages/expire_delegation_token.h"
#include "protocol/messages/renew_delegation_token.h"
#include "protocol/messages/delete_acls.h"
#include "protocol/messages/describe_acls.h"
#include "protocol/messages/describe_user_scram_credentials.h"
#include "protocol/messages/elect_leaders.h"
#include "protocol/messages/list_partition_reassignments.h"
#include "protocol/messages/incremental_alter_configs.h"
#include "protocol/messages/list_config_resources.h"
#include "protocol/messages/sasl_authenticate.h"
#include "protocol/messages/sasl_handshake.h"
#include "versions_support.h"

namespace hw::testing::versions {
namespace {

constexpr int16_t k_none = 0, k_unknown_topic = 3, k_topic_exists = 36, k_invalid_partitions = 37,
                  k_election_not_needed = 84, k_unknown_topic_id = 100, k_invalid_replica_assignment = 39,
                  k_no_reassignment_in_progress = 85;
constexpr int8_t k_topic_resource = 2;

std::string tname(const char* api, int16_t v) { return std::string(api) + "-v" + std::to_string(v); }

// A topic config's value as DescribeConfigs v4 reports it (nullopt if absent).
std::optional<std::string> config_value(version_client& c, const std::string& topic, const std::string& key) {
  msg::describe_configs_request req;
  msg::describe_configs_request::describe_configs_resource r;
  r.resource_type = k_topic_resource;
  r.resource_name = topic;
  r.configuration_keys = std::vector<std::string>{key};
  req.resources.push_back(r);
  auto resp = c.call<msg::describe_configs_response>(32, 4, req);
  if (!resp || resp->results.size() != 1 || resp->results[0].configs.size() != 1) return std::nullopt;
  return resp->results[0].configs[0].value;
}

void api_versions_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  msg::api_versions_request req;
  req.client_software_name = "versions-sweep";
  req.client_software_version = "1.0";
  auto resp = c.call<msg::api_versions_response>(18, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, k_none);
  if (v >= 1) { EXPECT_EQ(resp->throttle_time_ms, 0); }
  // Every version lists the same APIs as v3 does.
  auto expected = advertised(c);
  ASSERT_EQ(resp->api_keys.size(), expected.size());
  for (const auto& k : resp->api_keys) {
    ASSERT_TRUE(expected.count(k.api_key)) << k.api_key;
    EXPECT_EQ(std::pair(k.min_version, k.max_version), expected[k.api_key]) << k.api_key;
  }
  if (v >= 3) {
    EXPECT_FALSE(resp->supported_features.empty());
    EXPECT_GE(resp->finalized_features_epoch, 0);
    // From v3 the client software fields are checked.
    req.client_software_name = "-bad name-";
    auto bad = c.call<msg::api_versions_response>(18, v, req);
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->error_code, 42);  // INVALID_REQUEST
  }
}

void create_topics_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = tname("create-topics", v);
  msg::create_topics_request req;
  msg::create_topics_request::creatable_topic t;
  t.name = topic;
  t.num_partitions = 3;
  t.replication_factor = 1;
  req.topics.push_back(t);
  req.timeout_ms = 30000;
  auto resp = c.call<msg::create_topics_response>(19, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->throttle_time_ms, 0);
  ASSERT_EQ(resp->topics.size(), 1u);
  const auto& r = resp->topics[0];
  EXPECT_EQ(r.name, topic);
  EXPECT_EQ(r.error_code, k_none);
  EXPECT_FALSE(r.error_message.has_value());
  if (v >= 5) {
    EXPECT_EQ(r.num_partitions, 3);
    EXPECT_EQ(r.replication_factor, 1);
    ASSERT_TRUE(r.configs.has_value());
    EXPECT_TRUE(std::any_of(r.configs->begin(), r.configs->end(), [](auto& x) { return x.name == "retention.ms"; }))
        << r.configs->size() << " configs";
  }
  if (v >= 7) { EXPECT_FALSE(r.topic_id.is_zero()); }
  std::optional<msg::metadata_response::metadata_response_topic> md;
  EXPECT_TRUE(ctx.settled([&] {
    md = topic_metadata(c, topic);
    return md && md->error_code == k_none;
  }));
  ASSERT_TRUE(md);
  EXPECT_EQ(md->partitions.size(), 3u);
  if (v >= 7) { EXPECT_EQ(md->topic_id, r.topic_id); }

  auto again = c.call<msg::create_topics_response>(19, v, req);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->topics.at(0).error_code, k_topic_exists);

  // validateOnly: checked, not created.
  auto dry = req;
  dry.topics[0].name = tname("create-topics-dry", v);
  dry.validate_only = true;
  auto checked = c.call<msg::create_topics_response>(19, v, dry);
  ASSERT_TRUE(checked);
  EXPECT_EQ(checked->topics.at(0).error_code, k_none);
  auto absent = topic_metadata(c, dry.topics[0].name);
  ASSERT_TRUE(absent);
  EXPECT_EQ(absent->error_code, k_unknown_topic);
}

// DeleteTopics: by name below v6, by id (or name) in the Topics list at v6.
void delete_topics_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = tname("delete-topics", v);
  const auto id = create_topic(c, topic, 2);
  msg::delete_topics_request req;
  req.timeout_ms = 30000;
  if (v >= 6) {
    msg::delete_topics_request::delete_topic_state s;
    s.name.reset();
    s.topic_id = id;
    req.topics.push_back(s);
  } else {
    req.topic_names = {topic};
  }
  auto resp = c.call<msg::delete_topics_response>(20, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->throttle_time_ms, 0);
  ASSERT_EQ(resp->responses.size(), 1u);
  const auto& r = resp->responses[0];
  EXPECT_EQ(r.error_code, k_none);
  EXPECT_EQ(r.name, std::optional<std::string>(topic));
  if (v >= 6) { EXPECT_EQ(r.topic_id, id); }
  EXPECT_FALSE(r.error_message.has_value());
  EXPECT_TRUE(wait_until(
      [&] {
        auto md = topic_metadata(c, topic);
        return md && md->error_code == k_unknown_topic;
      },
      20s));

  auto again = c.call<msg::delete_topics_response>(20, v, req);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->responses.at(0).error_code, v >= 6 ? k_unknown_topic_id : k_unknown_topic);
}

void create_partitions_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = tname("create-partitions", v);
  create_topic(c, topic, 1);
  auto grow = [&](int32_t count, bool validate_only) -> int16_t {
    msg::create_partitions_request req;
    msg::create_partitions_request::create_partitions_topic t;
    t.name = topic;
    t.count = count;
    t.assignments.reset();
    req.topics.push_back(t);
    req.timeout_ms = 30000;
    req.validate_only = validate_only;
    auto resp = c.call<msg::create_partitions_response>(37, v, req);
    if (!resp || resp->results.size() != 1) return -1;
    EXPECT_EQ(resp->throttle_time_ms, 0);
    EXPECT_EQ(resp->results[0].name, topic);
    if (resp->results[0].error_code == 0) { EXPECT_FALSE(resp->results[0].error_message.has_value()); }
    return resp->results[0].error_code;
  };
  EXPECT_EQ(grow(3, true), k_none);
  EXPECT_EQ(topic_metadata(c, topic)->partitions.size(), 1u);
  EXPECT_EQ(grow(3, false), k_none);
  EXPECT_TRUE(ctx.settled([&] {
    auto md = topic_metadata(c, topic);
    return md && md->partitions.size() == 3u;
  }));
  EXPECT_EQ(grow(2, false), k_invalid_partitions);
}

void describe_configs_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = tname("describe-configs", v);
  create_topic(c, topic, 1);
  msg::describe_configs_request req;
  msg::describe_configs_request::describe_configs_resource r;
  r.resource_type = k_topic_resource;
  r.resource_name = topic;
  r.configuration_keys = std::vector<std::string>{"retention.ms", "cleanup.policy"};
  req.resources.push_back(r);
  req.include_synonyms = true;
  req.include_documentation = v >= 3;
  auto resp = c.call<msg::describe_configs_response>(32, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->throttle_time_ms, 0);
  ASSERT_EQ(resp->results.size(), 1u);
  const auto& res = resp->results[0];
  EXPECT_EQ(res.error_code, k_none);
  EXPECT_EQ(res.resource_type, k_topic_resource);
  EXPECT_EQ(res.resource_name, topic);
  ASSERT_EQ(res.configs.size(), 2u);
  for (const auto& e : res.configs) {
    SCOPED_TRACE(e.name);
    EXPECT_FALSE(e.read_only);
    EXPECT_FALSE(e.is_sensitive);
    EXPECT_EQ(e.config_source, 5);  // DEFAULT_CONFIG
    if (v >= 3) {
      EXPECT_EQ(e.config_type, e.name == "retention.ms" ? 5 : 7);  // LONG, LIST
      EXPECT_TRUE(e.documentation.has_value() && !e.documentation->empty());
    }
  }
  const auto& retention = res.configs[0].name == "retention.ms" ? res.configs[0] : res.configs[1];
  EXPECT_EQ(retention.value, std::optional<std::string>("604800000"));
}

void alter_configs_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = tname("alter-configs", v);
  create_topic(c, topic, 1);
  const std::string value = std::to_string(3600000 + v);
  msg::alter_configs_request req;
  msg::alter_configs_request::alter_configs_resource r;
  r.resource_type = k_topic_resource;
  r.resource_name = topic;
  msg::alter_configs_request::alterable_config cfg;
  cfg.name = "retention.ms";
  cfg.value = value;
  r.configs.push_back(cfg);
  req.resources.push_back(r);
  req.validate_only = false;
  auto resp = c.call<msg::alter_configs_response>(33, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->throttle_time_ms, 0);
  ASSERT_EQ(resp->responses.size(), 1u);
  EXPECT_EQ(resp->responses[0].error_code, k_none);
  EXPECT_EQ(resp->responses[0].resource_type, k_topic_resource);
  EXPECT_EQ(resp->responses[0].resource_name, topic);
  EXPECT_TRUE(ctx.settled([&] { return config_value(c, topic, "retention.ms") == std::optional<std::string>(value); }))
      << config_value(c, topic, "retention.ms").value_or("(none)");
  req.resources[0].configs[0].value = "not-a-number";
  auto bad = c.call<msg::alter_configs_response>(33, v, req);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->responses.at(0).error_code, 40);  // INVALID_CONFIG
  EXPECT_TRUE(ctx.settled([&] { return config_value(c, topic, "retention.ms") == std::optional<std::string>(value); }))
      << config_value(c, topic, "retention.ms").value_or("(none)");
}

void incremental_alter_configs_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = tname("incremental-alter-configs", v);
  create_topic(c, topic, 1);
  const std::string value = std::to_string(7200000 + v);
  msg::incremental_alter_configs_request req;
  msg::incremental_alter_configs_request::alter_configs_resource r;
  r.resource_type = k_topic_resource;
  r.resource_name = topic;
  msg::incremental_alter_configs_request::alterable_config cfg;
  cfg.name = "segment.ms";
  cfg.config_operation = 0;  // SET
  cfg.value = value;
  r.configs.push_back(cfg);
  req.resources.push_back(r);
  auto resp = c.call<msg::incremental_alter_configs_response>(44, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->throttle_time_ms, 0);
  ASSERT_EQ(resp->responses.size(), 1u);
  EXPECT_EQ(resp->responses[0].error_code, k_none);
  EXPECT_EQ(resp->responses[0].resource_name, topic);
  EXPECT_TRUE(ctx.settled([&] { return config_value(c, topic, "segment.ms") == std::optional<std::string>(value); }))
      << config_value(c, topic, "segment.ms").value_or("(none)");
  req.resources[0].configs[0].config_operation = 1;  // DELETE: back to the default
  auto reset = c.call<msg::incremental_alter_configs_response>(44, v, req);
  ASSERT_TRUE(reset);
  EXPECT_EQ(reset->responses.at(0).error_code, k_none);
  EXPECT_TRUE(ctx.settled([&] { return config_value(c, topic, "segment.ms") == std::optional<std::string>("604800000"); }))
      << config_value(c, topic, "segment.ms").value_or("(none)");
}

// One log dir here: a move to it answers NONE (already there), to a path
// that is not a log dir LOG_DIR_NOT_FOUND, of a partition the cluster does
// not have UNKNOWN_TOPIC_OR_PARTITION.
void alter_replica_log_dirs_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = tname("move-dirs", v);
  create_topic(c, topic, 1);
  msg::describe_log_dirs_request describe;
  describe.topics.reset();
  auto dirs = c.call<msg::describe_log_dirs_response>(35, 4, describe);
  ASSERT_TRUE(dirs && dirs->results.size() == 1u);
  const std::string here = dirs->results[0].log_dir;
  msg::alter_replica_log_dirs_request req;
  auto add = [&](const std::string& path, const std::string& name, int32_t partition) {
    auto& d = req.dirs.emplace_back();
    d.path = path;
    auto& t = d.topics.emplace_back();
    t.name = name;
    t.partitions = {partition};
  };
  add(here, topic, 0);
  add("/nonexistent-log-dir", topic + "-other", 0);
  add(here, topic, 5);
  auto resp = c.call<msg::alter_replica_log_dirs_response>(34, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->throttle_time_ms, 0);
  std::map<std::pair<std::string, int32_t>, int16_t> errors;
  for (const auto& t : resp->results)
    for (const auto& p : t.partitions) errors[{t.topic_name, p.partition_index}] = p.error_code;
  EXPECT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[std::make_pair(topic, 0)], k_none);
  EXPECT_EQ(errors[std::make_pair(topic + "-other", 0)], 57);  // LOG_DIR_NOT_FOUND
  EXPECT_EQ(errors[std::make_pair(topic, 5)], 3);              // UNKNOWN_TOPIC_OR_PARTITION
}

void describe_log_dirs_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = tname("log-dirs", v);
  const auto id = create_topic(c, topic, 2);
  ASSERT_EQ(produce_at(c, k_produce_v, topic, id, 1, tagged_batch("l", 20))->error_code, 0);
  msg::describe_log_dirs_request req;
  req.topics.emplace();
  msg::describe_log_dirs_request::describable_log_dir_topic t;
  t.topic = topic;
  t.partitions = {0, 1};
  req.topics->push_back(t);
  auto resp = c.call<msg::describe_log_dirs_response>(35, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->throttle_time_ms, 0);
  if (v >= 3) { EXPECT_EQ(resp->error_code, k_none); }
  ASSERT_EQ(resp->results.size(), 1u);
  const auto& dir = resp->results[0];
  EXPECT_EQ(dir.error_code, k_none);
  EXPECT_EQ(dir.log_dir.substr(0, 1), "/");
  if (v >= 4) {
    EXPECT_GT(dir.total_bytes, 0);
    EXPECT_GE(dir.usable_bytes, 0);
  }
  EXPECT_FALSE(dir.is_cordoned);
  ASSERT_EQ(dir.topics.size(), 1u);
  EXPECT_EQ(dir.topics[0].name, topic);
  ASSERT_EQ(dir.topics[0].partitions.size(), 2u);
  for (const auto& p : dir.topics[0].partitions) {
    EXPECT_EQ(p.offset_lag, 0);
    EXPECT_FALSE(p.is_future_key);
    if (p.partition_index == 1) { EXPECT_GT(p.partition_size, 0); }
    else EXPECT_EQ(p.partition_size, 0);
  }
}

// ElectLeaders: v0 has no election type (preferred); the only replica is
// already the preferred leader; an unknown partition is named as such.
void elect_leaders_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = tname("elect", v);
  create_topic(c, topic, 1);
  msg::elect_leaders_request req;
  req.election_type = 0;
  req.topic_partitions.emplace();
  msg::elect_leaders_request::topic_partitions_data tp;
  tp.topic = topic;
  tp.partitions = {0, 7};
  req.topic_partitions->push_back(tp);
  req.timeout_ms = 30000;
  auto resp = c.call<msg::elect_leaders_response>(43, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->throttle_time_ms, 0);
  if (v >= 1) { EXPECT_EQ(resp->error_code, k_none); }
  ASSERT_EQ(resp->replica_election_results.size(), 1u);
  EXPECT_EQ(resp->replica_election_results[0].topic, topic);
  const auto& results = resp->replica_election_results[0].partition_result;
  ASSERT_EQ(results.size(), 2u);
  for (const auto& r : results) {
    if (r.partition_id == 0) { EXPECT_EQ(r.error_code, k_election_not_needed); }
    else EXPECT_EQ(r.error_code, k_unknown_topic);
    EXPECT_TRUE(r.error_message.has_value());
  }
}

// AlterPartitionReassignments: the same single replica again changes
// nothing; an unknown partition, a duplicate broker and a cancel with no
// reassignment get Kafka's errors; v1 echoes AllowReplicationFactorChange.
void alter_partition_reassignments_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = tname("reassign", v);
  create_topic(c, topic, 1);
  msg::alter_partition_reassignments_request req;
  req.timeout_ms = 30000;
  req.allow_replication_factor_change = false;
  auto& t = req.topics.emplace_back();
  t.name = topic;
  t.partitions.push_back({0, std::vector<int32_t>{1}, {}});
  t.partitions.push_back({7, std::vector<int32_t>{1}, {}});
  t.partitions.push_back({0, std::vector<int32_t>{1, 1}, {}});
  t.partitions.push_back({0, std::nullopt, {}});
  auto resp = c.call<msg::alter_partition_reassignments_response>(45, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, k_none);
  EXPECT_FALSE(resp->error_message.has_value());
  if (v >= 1) { EXPECT_FALSE(resp->allow_replication_factor_change); }
  ASSERT_EQ(resp->responses.size(), 1u);
  const auto& parts = resp->responses[0].partitions;
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts[0].error_code, k_none);
  EXPECT_FALSE(parts[0].error_message.has_value());
  EXPECT_EQ(parts[1].error_code, k_unknown_topic);
  EXPECT_EQ(parts[2].error_code, k_invalid_replica_assignment) << "checked before the replication factor";
  EXPECT_EQ(parts[3].error_code, k_no_reassignment_in_progress);
}

// ListPartitionReassignments: nothing is moving on one broker.
void list_partition_reassignments_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  msg::list_partition_reassignments_request req;
  req.timeout_ms = 30000;
  auto resp = c.call<msg::list_partition_reassignments_response>(46, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, k_none);
  EXPECT_TRUE(resp->topics.empty());
}

void describe_quorum_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  msg::describe_quorum_request req;
  msg::describe_quorum_request::topic_data t;
  t.topic_name = "__cluster_metadata";
  t.partitions.push_back({});
  req.topics.push_back(t);
  auto resp = c.call<msg::describe_quorum_response>(55, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, k_none);
  EXPECT_EQ(resp->error_message.value_or(""), "");
  ASSERT_EQ(resp->topics.size(), 1u);
  EXPECT_EQ(resp->topics[0].topic_name, "__cluster_metadata");
  const auto& p = resp->topics[0].partitions.at(0);
  EXPECT_EQ(p.error_code, k_none);
  EXPECT_EQ(p.leader_id, 1);
  EXPECT_GE(p.leader_epoch, 1);
  EXPECT_GT(p.high_watermark, 0);
  ASSERT_EQ(p.current_voters.size(), 1u);
  EXPECT_EQ(p.current_voters[0].replica_id, 1);
  EXPECT_GE(p.current_voters[0].log_end_offset, p.high_watermark);
  if (v >= 1) { EXPECT_GT(p.current_voters[0].last_caught_up_timestamp, 0); }
  if (v >= 2) {
    ASSERT_EQ(resp->nodes.size(), 1u);
    EXPECT_EQ(resp->nodes[0].node_id, 1);
    // The voter's controller endpoint (controller.quorum.voters); none for
    // a combined node started without a controller listener, which Kafka
    // would refuse to start.
    if (ctx.external) EXPECT_FALSE(resp->nodes[0].listeners.empty());
    for (const auto& l : resp->nodes[0].listeners) EXPECT_GT(l.port, 0);
  }
}

void describe_cluster_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  msg::describe_cluster_request req;
  req.include_cluster_authorized_operations = false;
  req.endpoint_type = 1;         // brokers (v1+)
  req.include_fenced_brokers = true;  // v2+
  auto resp = c.call<msg::describe_cluster_response>(60, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->throttle_time_ms, 0);
  EXPECT_EQ(resp->error_code, k_none);
  EXPECT_FALSE(resp->error_message.has_value());
  if (v >= 1) { EXPECT_EQ(resp->endpoint_type, 1); }
  EXPECT_FALSE(resp->cluster_id.empty());
  EXPECT_EQ(resp->controller_id, 1);
  ASSERT_EQ(resp->brokers.size(), 1u);
  EXPECT_EQ(resp->brokers[0].broker_id, 1);
  EXPECT_EQ(resp->brokers[0].host, "127.0.0.1");
  EXPECT_EQ(resp->brokers[0].port, ctx.port);
  EXPECT_FALSE(resp->brokers[0].rack.has_value());  // no broker.rack
  EXPECT_FALSE(resp->brokers[0].is_fenced);
  EXPECT_EQ(resp->cluster_authorized_operations, INT32_MIN);  // not asked for
}

// The one broker stays: an id nobody registered gets the controller's refusal.
void unregister_broker_sweep(sweep_context& ctx, int16_t v) {
  msg::unregister_broker_request req;
  req.broker_id = 900 + v;
  auto resp = ctx.client.call<msg::unregister_broker_response>(64, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, 102);  // BROKER_ID_NOT_REGISTERED
  EXPECT_EQ(resp->error_message, "Broker ID " + std::to_string(req.broker_id) + " is not currently registered");
}

// A validate-only upgrade to the levels in force (nothing moves), then a
// refusal; versions 0 and 1 list each feature, 2 none.
void update_features_sweep(sweep_context& ctx, int16_t v) {
  msg::update_features_request req;
  req.validate_only = true;
  auto& u = req.feature_updates.emplace_back();
  u.feature = "group.version";
  u.max_version_level = 1;
  auto resp = ctx.client.call<msg::update_features_response>(57, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, 0) << resp->error_message.value_or("");
  EXPECT_FALSE(resp->error_message.has_value());
  ASSERT_EQ(resp->results.size(), v <= 1 ? 1u : 0u);
  if (v <= 1) EXPECT_EQ(resp->results[0].error_message, "NONE");
  u.max_version_level = 2;
  resp = ctx.client.call<msg::update_features_response>(57, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, 95);  // INVALID_UPDATE_VERSION
  EXPECT_EQ(resp->error_message,
            "The update failed for all features since the following feature had an error: Invalid update version 2 "
            "for feature group.version. Local controller 1 only supports versions 0-1");
  EXPECT_TRUE(resp->results.empty());
}

// A static quorum (controller.quorum.voters, kraft.version 0): the leader
// refuses voter changes with Kafka's words, whichever listener asked.
void add_raft_voter_sweep(sweep_context& ctx, int16_t v) {
  msg::add_raft_voter_request req;
  req.cluster_id.reset();
  req.timeout_ms = 5000;
  req.voter_id = 7;
  req.voter_directory_id.bytes[15] = 7;
  req.listeners.push_back({"CONTROLLER", "127.0.0.1", 9999, {}});
  auto resp = ctx.client.call<msg::add_raft_voter_response>(80, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, 35);  // UNSUPPORTED_VERSION
  if (!ctx.external)
    EXPECT_EQ(resp->error_message, "Cluster doesn't support adding voter because the kraft.version feature is 0");
  // No voter (a zero directory): refused before anything else.
  req.voter_directory_id = {};
  resp = ctx.client.call<msg::add_raft_voter_response>(80, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, 42);
  EXPECT_EQ(resp->error_message, "Add voter request didn't include a valid voter");
}

void remove_raft_voter_sweep(sweep_context& ctx, int16_t v) {
  msg::remove_raft_voter_request req;
  req.cluster_id.reset();
  req.voter_id = 1;
  req.voter_directory_id.bytes[15] = 1;
  auto resp = ctx.client.call<msg::remove_raft_voter_response>(81, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, 35);
  if (!ctx.external)
    EXPECT_EQ(resp->error_message, "Cluster doesn't support removing voter because the kraft.version feature is 0");
}

void describe_topic_partitions_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = tname("describe-topic-partitions", v);
  const auto id = create_topic(c, topic, 3);
  msg::describe_topic_partitions_request req;
  for (const std::string& n : {topic, std::string("no-such-topic")}) {
    msg::describe_topic_partitions_request::topic_request t;
    t.name = n;
    req.topics.push_back(t);
  }
  req.response_partition_limit = 2000;
  auto resp = c.call<msg::describe_topic_partitions_response>(75, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->throttle_time_ms, 0);
  ASSERT_EQ(resp->topics.size(), 2u);
  const auto& t = resp->topics[0];
  EXPECT_EQ(t.error_code, k_none);
  EXPECT_EQ(t.name, std::optional<std::string>(topic));
  EXPECT_EQ(t.topic_id, id);
  EXPECT_FALSE(t.is_internal);
  ASSERT_EQ(t.partitions.size(), 3u);
  for (int32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(t.partitions[i].partition_index, i);
    EXPECT_EQ(t.partitions[i].leader_id, 1);
    EXPECT_EQ(t.partitions[i].replica_nodes, std::vector<int32_t>{1});
    EXPECT_EQ(t.partitions[i].isr_nodes, std::vector<int32_t>{1});
  }
  EXPECT_EQ(resp->topics[1].error_code, k_unknown_topic);
  EXPECT_FALSE(resp->next_cursor.has_value());
}

// v0 lists CLIENT_METRICS resources only (none here); v1 the types asked
// for: a group that has configs, and the topics.
void list_config_resources_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string group = tname("list-config-resources", v);
  const std::string topic = tname("list-config-resources-t", v);
  create_topic(c, topic, 1);
  msg::incremental_alter_configs_request set;
  auto& r = set.resources.emplace_back();
  r.resource_type = 32;
  r.resource_name = group;
  r.configs.push_back({"consumer.session.timeout.ms", 0, "50000", {}});
  auto altered = c.call<msg::incremental_alter_configs_response>(44, 1, set);
  ASSERT_TRUE(altered);
  ASSERT_EQ(altered->responses.at(0).error_code, k_none);
  msg::list_config_resources_request req;
  req.resource_types = {32, k_topic_resource};
  auto resp = c.call<msg::list_config_resources_response>(74, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, k_none);
  auto listed = [&](int8_t type, const std::string& name) {
    return std::any_of(resp->config_resources.begin(), resp->config_resources.end(), [&](const auto& e) {
      return e.resource_name == name && e.resource_type == type;
    });
  };
  if (v == 0) {
    EXPECT_TRUE(resp->config_resources.empty());
  } else {
    EXPECT_TRUE(listed(32, group));
    EXPECT_TRUE(listed(k_topic_resource, topic));
  }
}

// On a PLAINTEXT listener both SASL requests are out of place: Kafka answers
// ILLEGAL_SASL_STATE (KafkaApis), SaslAuthenticate with its text.
void sasl_handshake_sweep(sweep_context& ctx, int16_t v) {
  msg::sasl_handshake_request req;
  req.mechanism = "PLAIN";
  auto resp = ctx.client.call<msg::sasl_handshake_response>(17, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, 34);  // ILLEGAL_SASL_STATE
  EXPECT_TRUE(resp->mechanisms.empty());
}

void sasl_authenticate_sweep(sweep_context& ctx, int16_t v) {
  msg::sasl_authenticate_request req;
  req.auth_bytes = {0, 'u', 0, 'p'};
  auto resp = ctx.client.call<msg::sasl_authenticate_response>(36, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, 34);  // ILLEGAL_SASL_STATE
  EXPECT_EQ(resp->error_message, "SaslAuthenticate request received after successful authentication");
  EXPECT_TRUE(resp->auth_bytes.empty());
  EXPECT_EQ(resp->session_lifetime_ms, 0);
}

// One upsertion (mechanism 1 SCRAM-SHA-256, 2 SCRAM-SHA-512).
msg::alter_user_scram_credentials_request scram_upsertion(const std::string& user, int8_t mechanism,
                                                          int32_t iterations) {
  msg::alter_user_scram_credentials_request req;
  auto& u = req.upsertions.emplace_back();
  u.name = user;
  u.mechanism = mechanism;
  u.iterations = iterations;
  u.salt = {1, 2, 3, 4};
  u.salted_password = std::vector<uint8_t>(mechanism == 1 ? 32 : 64, 7);
  return req;
}

// A credential set, then described: mechanism and iterations, never a key.
void alter_user_scram_credentials_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string user = tname("scram-alter", v);
  const auto req = scram_upsertion(user, 2, 8192);
  auto resp = c.call<msg::alter_user_scram_credentials_response>(51, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->throttle_time_ms, 0);
  ASSERT_EQ(resp->results.size(), 1u);
  EXPECT_EQ(resp->results[0].user, user);
  EXPECT_EQ(resp->results[0].error_code, k_none);
  EXPECT_FALSE(resp->results[0].error_message.has_value());
}

void describe_user_scram_credentials_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string user = tname("scram-describe", v);
  auto altered = c.call<msg::alter_user_scram_credentials_response>(51, 0, scram_upsertion(user, 1, 4096));
  ASSERT_TRUE(altered);
  ASSERT_EQ(altered->results.at(0).error_code, k_none);
  msg::describe_user_scram_credentials_request req;
  req.users = std::vector<msg::describe_user_scram_credentials_request::user_name>{{user, {}}};
  auto resp = c.call<msg::describe_user_scram_credentials_response>(50, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, k_none);
  ASSERT_EQ(resp->results.size(), 1u);
  EXPECT_EQ(resp->results[0].user, user);
  EXPECT_EQ(resp->results[0].error_code, k_none);
  ASSERT_EQ(resp->results[0].credential_infos.size(), 1u);
  EXPECT_EQ(resp->results[0].credential_infos[0].mechanism, 1);
  EXPECT_EQ(resp->results[0].credential_infos[0].iterations, 4096);
}

// Delegation tokens over PLAINTEXT: every version decodes and is refused
// DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, as Kafka refuses token requests on
// PLAINTEXT (the token stories themselves: delegation_tokens_test.cc).
constexpr int16_t k_token_request_not_allowed = 64;

void create_delegation_token_sweep(sweep_context& ctx, int16_t v) {
  msg::create_delegation_token_request req;
  req.max_lifetime_ms = -1;
  auto resp = ctx.client.call<msg::create_delegation_token_response>(38, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, k_token_request_not_allowed);
  EXPECT_EQ(resp->principal_type, "User");
  EXPECT_EQ(resp->principal_name, "ANONYMOUS");
  EXPECT_EQ(resp->issue_timestamp_ms, -1);
  EXPECT_EQ(resp->max_timestamp_ms, -1);
  EXPECT_TRUE(resp->token_id.empty());
  EXPECT_TRUE(resp->hmac.empty());
}

void renew_delegation_token_sweep(sweep_context& ctx, int16_t v) {
  msg::renew_delegation_token_request req;
  req.hmac = {1, 2, 3};
  req.renew_period_ms = -1;
  auto resp = ctx.client.call<msg::renew_delegation_token_response>(39, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, k_token_request_not_allowed);
  EXPECT_EQ(resp->expiry_timestamp_ms, -1);
}

void expire_delegation_token_sweep(sweep_context& ctx, int16_t v) {
  msg::expire_delegation_token_request req;
  req.hmac = {1, 2, 3};
  req.expiry_time_period_ms = -1;
  auto resp = ctx.client.call<msg::expire_delegation_token_response>(40, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, k_token_request_not_allowed);
  EXPECT_EQ(resp->expiry_timestamp_ms, -1);
}

void describe_delegation_token_sweep(sweep_context& ctx, int16_t v) {
  msg::describe_delegation_token_request req;
  req.owners.reset();
  auto resp = ctx.client.call<msg::describe_delegation_token_response>(41, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, k_token_request_not_allowed);
  EXPECT_TRUE(resp->tokens.empty());
}

// Client quotas: a user's producer_byte_rate set, read back with an EXACT
// filter (strict and not), then removed.
msg::alter_client_quotas_request quota_alteration(const std::string& user, std::optional<double> value) {
  msg::alter_client_quotas_request req;
  auto& e = req.entries.emplace_back();
  e.entity.push_back({"user", user, {}});
  auto& op = e.ops.emplace_back();
  op.key = "producer_byte_rate";
  op.value = value.value_or(0.0);
  op.remove = !value;
  return req;
}

std::optional<double> described_rate(version_client& c, const std::string& user, int16_t v) {
  msg::describe_client_quotas_request req;
  req.components.push_back({"user", 0, user, {}});
  req.strict = true;
  auto resp = c.call<msg::describe_client_quotas_response>(48, v, req);
  if (!resp || resp->error_code != k_none || !resp->entries || resp->entries->size() != 1) return std::nullopt;
  const auto& entry = (*resp->entries)[0];
  if (entry.entity.size() != 1 || entry.entity[0].entity_name != user || entry.values.size() != 1) return std::nullopt;
  return entry.values[0].value;
}

void alter_client_quotas_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string user = tname("quota-alter", v);
  auto resp = c.call<msg::alter_client_quotas_response>(49, v, quota_alteration(user, 1048576));
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->throttle_time_ms, 0);
  ASSERT_EQ(resp->entries.size(), 1u);
  EXPECT_EQ(resp->entries[0].error_code, k_none);
  EXPECT_FALSE(resp->entries[0].error_message.has_value());
  ASSERT_EQ(resp->entries[0].entity.size(), 1u);
  EXPECT_EQ(resp->entries[0].entity[0].entity_name, user);
  EXPECT_TRUE(ctx.settled([&] { return described_rate(c, user, 1) == 1048576.0; }));
  // A fractional rate is refused with Kafka's text and changes nothing.
  auto refused = c.call<msg::alter_client_quotas_response>(49, v, quota_alteration(user, 0.5));
  ASSERT_TRUE(refused);
  ASSERT_EQ(refused->entries.size(), 1u);
  EXPECT_EQ(refused->entries[0].error_code, 42);  // INVALID_REQUEST
  EXPECT_EQ(refused->entries[0].error_message, "producer_byte_rate cannot be a fractional value.");
  auto removed = c.call<msg::alter_client_quotas_response>(49, v, quota_alteration(user, std::nullopt));
  ASSERT_TRUE(removed);
  EXPECT_EQ(removed->entries.at(0).error_code, k_none);
  EXPECT_TRUE(ctx.settled([&] { return !described_rate(c, user, 1).has_value(); }));
}

void describe_client_quotas_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string user = tname("quota-describe", v);
  auto altered = c.call<msg::alter_client_quotas_response>(49, 0, quota_alteration(user, 2048));
  ASSERT_TRUE(altered);
  ASSERT_EQ(altered->entries.at(0).error_code, k_none);
  EXPECT_TRUE(ctx.settled([&] { return described_rate(c, user, v) == 2048.0; }));
  // An invalid filter: Kafka's error at the top, no entries.
  msg::describe_client_quotas_request bad;
  bad.components.push_back({"user", 0, std::nullopt, {}});
  auto resp = c.call<msg::describe_client_quotas_response>(48, v, bad);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, 42);
  EXPECT_EQ(resp->error_message, "Request specified MATCH_TYPE_EXACT, but set match string to null.");
  EXPECT_FALSE(resp->entries.has_value());
}

// The ACL APIs on a broker without an authorizer: SECURITY_DISABLED with
// Kafka's texts, the top-level error for DescribeAcls and one per creation
// or filter for the others (the ACLs themselves: acls_test.cc).
constexpr int16_t k_security_disabled = 54;

void describe_acls_sweep(sweep_context& ctx, int16_t v) {
  msg::describe_acls_request req;
  req.resource_type_filter = 1;  // ANY
  req.resource_name_filter = std::nullopt;
  req.pattern_type_filter = 1;
  req.principal_filter = std::nullopt;
  req.host_filter = std::nullopt;
  req.operation = 1;
  req.permission_type = 1;
  auto resp = ctx.client.call<msg::describe_acls_response>(29, v, req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->error_code, k_security_disabled);
  EXPECT_EQ(resp->error_message, "No Authorizer is configured on the broker");
  EXPECT_TRUE(resp->resources.empty());
}

void create_acls_sweep(sweep_context& ctx, int16_t v) {
  msg::create_acls_request req;
  auto& c = req.creations.emplace_back();
  c.resource_type = 2;  // TOPIC
  c.resource_name = tname("acl", v);
  c.resource_pattern_type = 3;  // LITERAL
  c.principal = "User:alice";
  c.host = "*";
  c.operation = 3;        // READ
  c.permission_type = 3;  // ALLOW
  auto resp = ctx.client.call<msg::create_acls_response>(30, v, req);
  ASSERT_TRUE(resp);
  ASSERT_EQ(resp->results.size(), 1u);
  EXPECT_EQ(resp->results[0].error_code, k_security_disabled);
  EXPECT_EQ(resp->results[0].error_message, "No Authorizer is configured.");
}

void delete_acls_sweep(sweep_context& ctx, int16_t v) {
  msg::delete_acls_request req;
  auto& f = req.filters.emplace_back();
  f.resource_type_filter = 1;
  f.resource_name_filter = std::nullopt;
  f.pattern_type_filter = 1;
  f.principal_filter = std::nullopt;
  f.host_filter = std::nullopt;
  f.operation = 1;
  f.permission_type = 1;
  auto resp = ctx.client.call<msg::delete_acls_response>(31, v, req);
  ASSERT_TRUE(resp);
  ASSERT_EQ(resp->filter_results.size(), 1u);
  EXPECT_EQ(resp->filter_results[0].error_code, k_security_disabled);
  EXPECT_EQ(resp->filter_results[0].error_message, "No Authorizer is configured.");
  EXPECT_TRUE(resp->filter_results[0].matching_acls.empty());
}

}  // namespace

std::vector<api_sweep> admin_sweeps() {
  return {
      {17, "SaslHandshake", &sasl_handshake_sweep},
      {18, "ApiVersions", &api_versions_sweep},
      {19, "CreateTopics", &create_topics_sweep},
      {20, "DeleteTopics", &delete_topics_sweep},
      {29, "DescribeAcls", &describe_acls_sweep},
      {30, "CreateAcls", &create_acls_sweep},
      {31, "DeleteAcls", &delete_acls_sweep},
      {32, "DescribeConfigs", &describe_configs_sweep},
      {33, "AlterConfigs", &alter_configs_sweep},
      {34, "AlterReplicaLogDirs", &alter_replica_log_dirs_sweep},
      {35, "DescribeLogDirs", &describe_log_dirs_sweep},
      {36, "SaslAuthenticate", &sasl_authenticate_sweep},
      {37, "CreatePartitions", &create_partitions_sweep},
      {38, "CreateDelegationToken", &create_delegation_token_sweep},
      {39, "RenewDelegationToken", &renew_delegation_token_sweep},
      {40, "ExpireDelegationToken", &expire_delegation_token_sweep},
      {41, "DescribeDelegationToken", &describe_delegation_token_sweep},
      {43, "ElectLeaders", &elect_leaders_sweep},
      {44, "IncrementalAlterConfigs", &incremental_alter_configs_sweep},
      {45, "AlterPartitionReassignments", &alter_partition_reassignments_sweep},
      {46, "ListPartitionReassignments", &list_partition_reassignments_sweep},
      {48, "DescribeClientQuotas", &describe_client_quotas_sweep},
      {49, "AlterClientQuotas", &alter_client_quotas_sweep},
      {50, "DescribeUserScramCredentials", &describe_user_scram_credentials_sweep},
      {51, "AlterUserScramCredentials", &alter_user_scram_credentials_sweep},
      {55, "DescribeQuorum", &describe_quorum_sweep},
      {57, "UpdateFeatures", &update_features_sweep},
      {60, "DescribeCluster", &describe_cluster_sweep},
      {64, "UnregisterBroker", &unregister_broker_sweep},
      {74, "ListConfigResources", &list_config_resources_sweep},
      {75, "DescribeTopicPartitions", &describe_topic_partitions_sweep},
      {80, "AddRaftVoter", &add_raft_voter_sweep},
      {81, "RemoveRaftVoter", &remove_raft_voter_sweep},
  };
}

}  // namespace hw::testing::versions
