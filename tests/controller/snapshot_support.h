#pragma once
// Test support for the snapshot tests: a rich metadata log (every kind of
// state the image keeps, including deleted topics, fenced brokers and ELRs)
// and a comparison of two images that names the first difference.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "controller/metadata/delta.h"

namespace hw::controller::testing {

inline protocol::uuid snap_id(int n) {
  protocol::uuid id;
  id.bytes[0] = 0x53;
  id.bytes[14] = static_cast<uint8_t>(n >> 8);
  id.bytes[15] = static_cast<uint8_t>(n);
  return id;
}

inline void expect_same_image(const metadata_image& a, const metadata_image& b) {
  EXPECT_EQ(a.topics_by_name, b.topics_by_name);
  ASSERT_EQ(a.topics_by_id.size(), b.topics_by_id.size());
  for (const auto& [id, t] : a.topics_by_id) {
    const topic_image* other = b.topic(id);
    ASSERT_TRUE(other) << t->name;
    EXPECT_EQ(t->name, other->name);
    EXPECT_EQ(t->id, other->id);
    EXPECT_EQ(t->partitions, other->partitions) << t->name;
  }
  EXPECT_EQ(a.brokers, b.brokers);
  EXPECT_EQ(a.controllers, b.controllers);
  EXPECT_EQ(a.configs, b.configs);
  EXPECT_EQ(a.features, b.features);
  EXPECT_EQ(a.next_producer_id, b.next_producer_id);
  EXPECT_EQ(a.scram, b.scram);
  EXPECT_EQ(a.acls, b.acls);
}

inline msg::user_scram_credential_record scram_record(const std::string& user, int8_t mechanism, uint8_t seed,
                                                      int32_t iterations) {
  msg::user_scram_credential_record r;
  r.name = user;
  r.mechanism = mechanism;
  r.salt.assign(16, seed);
  r.stored_key.assign(mechanism == 1 ? 32 : 64, static_cast<uint8_t>(seed + 1));
  r.server_key.assign(mechanism == 1 ? 32 : 64, static_cast<uint8_t>(seed + 2));
  r.iterations = iterations;
  return r;
}

inline msg::feature_level_record feature(const std::string& name, int16_t level) {
  msg::feature_level_record r;
  r.name = name;
  r.feature_level = level;
  return r;
}

inline msg::register_broker_record broker_record(int32_t id, int64_t epoch, bool with_dirs) {
  msg::register_broker_record r;
  r.broker_id = id;
  r.broker_epoch = epoch;
  r.incarnation_id = snap_id(100 + id);
  r.end_points.push_back({"PLAINTEXT", "host-" + std::to_string(id), static_cast<uint16_t>(9092 + id), 0, {}});
  r.end_points.push_back({"SSL", "host-" + std::to_string(id), static_cast<uint16_t>(9192 + id), 1, {}});
  r.features.push_back({"metadata.version", 7, 30, {}});
  r.features.push_back({"group.version", 0, 1, {}});
  r.rack = id % 2 ? std::optional<std::string>("rack-" + std::to_string(id)) : std::nullopt;
  r.fenced = true;
  if (with_dirs) r.log_dirs = {snap_id(200 + id), snap_id(300 + id)};
  return r;
}

inline msg::config_record config(config_resource_type type, const std::string& resource, const std::string& name,
                                 std::optional<std::string> value) {
  msg::config_record r;
  r.resource_type = static_cast<int8_t>(type);
  r.resource_name = resource;
  r.name = name;
  r.value = std::move(value);
  return r;
}

// A log at metadata.version `level` with everything the image keeps. With
// `modern` (level >= 23 and ELR on): directories, ELRs, controllers,
// cordoned log dirs; without, only what 3.3-IV3 can carry.
inline std::vector<metadata_record> rich_log(int16_t level, bool modern) {
  std::vector<metadata_record> log;
  log.push_back(feature("metadata.version", level));
  if (modern) {
    log.push_back(feature("eligible.leader.replicas.version", 1));
    log.push_back(feature("group.version", 1));
  }
  log.push_back(feature("transaction.version", 2));
  log.push_back(feature("transaction.version", 0));  // turned off again: gone from the image
  for (int32_t id : {1, 2, 3, 4}) {
    auto r = broker_record(id, 10 + id, modern);
    if (modern && id == 4) r.cordoned_log_dirs = std::vector<protocol::uuid>{snap_id(404)};
    log.push_back(r);
  }
  // 1 and 2 unfenced, 3 unfenced then in controlled shutdown, 4 stays fenced.
  for (int32_t id : {1, 2, 3}) {
    msg::unfence_broker_record u;
    u.id = id;
    u.epoch = 10 + id;
    log.push_back(u);
  }
  msg::broker_registration_change_record shutdown;
  shutdown.broker_id = 3;
  shutdown.broker_epoch = 13;
  shutdown.in_controlled_shutdown = 1;
  log.push_back(shutdown);
  if (modern) {
    msg::register_controller_record c;
    c.controller_id = 9;
    c.incarnation_id = snap_id(900);
    c.end_points.push_back({"CONTROLLER", "ctl", 9093, 0, {}});
    c.features.push_back({"kraft.version", 0, 1, {}});
    log.push_back(c);
  }

  auto topic = [&](const std::string& name, int n) {
    msg::topic_record t;
    t.name = name;
    t.topic_id = snap_id(n);
    log.push_back(t);
  };
  auto partition = [&](int topic_n, int32_t p, std::vector<int32_t> replicas) {
    msg::partition_record r;
    r.topic_id = snap_id(topic_n);
    r.partition_id = p;
    r.replicas = replicas;
    r.isr = replicas;
    r.leader = replicas.front();
    r.leader_epoch = 0;
    r.partition_epoch = 0;
    if (modern) {
      for (int32_t b : replicas) r.directories.push_back(snap_id(200 + b));
    }
    log.push_back(r);
  };
  topic("alpha", 1);
  partition(1, 0, {1, 2, 3});
  partition(1, 1, {2, 3, 1});
  partition(1, 2, {3, 1, 2});
  topic("beta", 2);
  partition(2, 0, {1, 2});
  topic("doomed", 3);
  partition(3, 0, {1});
  topic("gamma", 4);
  partition(4, 0, {2, 3, 4});

  // ISR shrinks with ELR, a new leader, an unclean election, a reassignment.
  msg::partition_change_record shrink;
  shrink.topic_id = snap_id(1);
  shrink.partition_id = 0;
  shrink.isr = std::vector<int32_t>{1};
  if (modern) {
    shrink.eligible_leader_replicas = std::vector<int32_t>{2};
    shrink.last_known_elr = std::vector<int32_t>{3};
  }
  log.push_back(shrink);
  msg::partition_change_record lead;
  lead.topic_id = snap_id(1);
  lead.partition_id = 1;
  lead.leader = 3;
  log.push_back(lead);
  msg::partition_change_record unclean;
  unclean.topic_id = snap_id(4);
  unclean.partition_id = 0;
  unclean.leader = 4;
  unclean.isr = std::vector<int32_t>{4};
  unclean.leader_recovery_state = 1;
  log.push_back(unclean);
  msg::partition_change_record reassign;
  reassign.topic_id = snap_id(2);
  reassign.partition_id = 0;
  reassign.replicas = std::vector<int32_t>{1, 2, 3};
  reassign.adding_replicas = std::vector<int32_t>{3};
  reassign.removing_replicas = std::vector<int32_t>{1};
  if (modern) reassign.directories = std::vector<protocol::uuid>{snap_id(201), snap_id(202), snap_id(203)};
  log.push_back(reassign);

  log.push_back(config(config_resource_type::topic, "alpha", "retention.ms", "1000"));
  log.push_back(config(config_resource_type::topic, "alpha", "cleanup.policy", "compact"));
  log.push_back(config(config_resource_type::topic, "doomed", "segment.bytes", "1048576"));
  log.push_back(config(config_resource_type::broker, "", "min.insync.replicas", "2"));
  log.push_back(config(config_resource_type::broker, "1", "log.cleaner.threads", "2"));
  log.push_back(config(config_resource_type::broker, "1", "log.cleaner.threads", std::nullopt));  // deleted
  log.push_back(config(config_resource_type::broker, "2", "num.io.threads", "4"));
  log.push_back(config(config_resource_type::broker_logger, "1", "kafka.server", "DEBUG"));
  log.push_back(config(config_resource_type::client_metrics, "all", "interval.ms", "60000"));
  log.push_back(config(config_resource_type::group, "g1", "consumer.session.timeout.ms", "45000"));

  msg::remove_topic_record remove;
  remove.topic_id = snap_id(3);
  log.push_back(remove);

  msg::producer_ids_record ids;
  ids.broker_id = 1;
  ids.broker_epoch = 11;
  ids.next_producer_id = 1000;
  log.push_back(ids);
  ids.next_producer_id = 2000;
  log.push_back(ids);

  if (level >= 11) {  // SCRAM records from 3.5-IV2
    log.push_back(scram_record("alice", 1, 1, 8192));
    log.push_back(scram_record("alice", 2, 2, 4096));
    log.push_back(scram_record("bob", 2, 3, 4096));
    log.push_back(scram_record("bob", 2, 4, 10000));  // replaces the one before
    log.push_back(scram_record("carol", 1, 5, 4096));
    msg::remove_user_scram_credential_record gone;
    gone.name = "carol";
    gone.mechanism = 1;
    log.push_back(gone);
  }
  return log;
}

inline std::shared_ptr<const metadata_image> replay_from_empty(const std::vector<metadata_record>& records,
                                                               std::string* error) {
  return replay_all(std::make_shared<const metadata_image>(), records, storage::offset(0), leader_epoch(1), error);
}

}  // namespace hw::controller::testing
