#pragma once
// A group shard with consumer groups (KIP-848) under test: the topic
// "orders" (4 partitions) in its image, ConsumerGroupHeartbeat requests
// built and sent, offsets committed and fetched as a member.

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/broker/consumer_group_support.h"
#include "tests/broker/group_test_support.h"

namespace hw::broker::group::testing {

using consumer::consumer_group_options;
using request = msg::consumer_group_heartbeat_request;

inline consumer_group_options no_interval() {
  consumer_group_options o;
  o.assignment_interval_ms = 0;
  return o;
}

struct consumer_shard : shard_harness {
  explicit consumer_shard(bool start_active = true, group_config config = {},
                          consumer_group_options options = no_interval(),
                          streams::streams_group_options streams = {})
      : shard_harness(config, 7, false, std::move(options), streams) {
    topics->add("orders", 1, 4);
    shard.set_topics(topics, {}, false);
    if (start_active) {
      shard.begin_load();
      shard.end_load(now);
    }
  }
  group_shard& s() { return shard; }

  // Replays `records` into this (inactive) shard and makes it active.
  void load_from(const std::vector<coordinator_record>& records) {
    shard.begin_load();
    for (const auto& r : records) {
      loaded_record in;
      in.key = r.key;
      if (r.value) in.value = std::span<const uint8_t>(*r.value);
      ASSERT_TRUE(shard.load(in));
    }
    shard.end_load(now);
  }

  request_token send(const request& r) {
    auto t = next_token++;
    s().consumer_group_heartbeat(t, 1, {"client", "/127.0.0.1"}, r, now);
    drain();
    return t;
  }
  msg::consumer_group_heartbeat_response beat(const request& r) {
    auto a = take<msg::consumer_group_heartbeat_response>(send(r));
    EXPECT_TRUE(a.has_value());
    return a.value_or(msg::consumer_group_heartbeat_response{});
  }
  void tick(int64_t ms) { advance(ms); }

  // An OffsetCommit of one partition of "orders".
  int16_t commit_as(const std::string& group, const std::string& member_id, int32_t epoch, int32_t partition,
                    int64_t offset, int16_t version = 9) {
    msg::offset_commit_request r;
    r.group_id = group;
    r.member_id = member_id;
    r.generation_id_or_member_epoch = epoch;
    auto& t = r.topics.emplace_back();
    t.name = "orders";
    auto& p = t.partitions.emplace_back();
    p.partition_index = partition;
    p.committed_offset = offset;
    auto token = next_token++;
    s().commit_offsets(token, version, r, now);
    auto resp = take<msg::offset_commit_response>(token);
    EXPECT_TRUE(resp.has_value());
    return resp ? resp->topics.at(0).partitions.at(0).error_code : -999;
  }
  offset_fetch_group_response fetch_as(const std::string& group, std::optional<std::string> member_id, int32_t epoch) {
    msg::offset_fetch_request::offset_fetch_request_group g;
    g.group_id = group;
    g.member_id = std::move(member_id);
    g.member_epoch = epoch;
    g.topics = std::vector<msg::offset_fetch_request::offset_fetch_request_topics>{};
    g.topics->push_back({"orders", {}, {0, 1, 2, 3}, {}});
    auto t = next_token++;
    s().fetch_offsets(t, g, false);
    return take<offset_fetch_group_response>(t).value_or(offset_fetch_group_response{});
  }

  std::shared_ptr<hw::testing::topic_map_image> topics = std::make_shared<hw::testing::topic_map_image>();
};

inline request join(const std::string& member_id, const std::string& group = "g") {
  request r;
  r.group_id = group;
  r.member_id = member_id;
  r.member_epoch = 0;
  r.rebalance_timeout_ms = 60000;
  r.subscribed_topic_names = std::vector<std::string>{"orders"};
  r.topic_partitions.emplace();
  return r;
}

inline request beat(const std::string& member_id, int32_t epoch, const msg::consumer_group_heartbeat_response& last,
             const std::string& group = "g") {
  request r;
  r.group_id = group;
  r.member_id = member_id;
  r.member_epoch = epoch;
  r.topic_partitions.emplace();
  if (last.assignment) {
    for (const auto& tp : last.assignment->topic_partitions) r.topic_partitions->push_back({tp.topic_id, tp.partitions, {}});
  }
  return r;
}

inline request leave(const std::string& member_id, const std::string& group = "g") {
  request r;
  r.group_id = group;
  r.member_id = member_id;
  r.member_epoch = -1;
  return r;
}

inline size_t partition_count(const msg::consumer_group_heartbeat_response& r) {
  size_t n = 0;
  if (r.assignment)
    for (const auto& tp : r.assignment->topic_partitions) n += tp.partitions.size();
  return n;
}

}  // namespace hw::broker::group::testing
