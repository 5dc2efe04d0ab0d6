#pragma once
// Drives a group_shard in tests: a seeded random source, an injected clock,
// completions collected by request token, appends acknowledged on demand
// (or at once) and the records of successful appends kept as "the log".

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "broker/group/group_shard.h"
#include "protocol/messages/consumer_protocol.h"
#include "protocol/wire/writer.h"

namespace hw::broker::group::testing {

namespace msg = protocol::msg;
using protocol::error_code;

inline int16_t code(error_code e) { return static_cast<int16_t>(e); }

// ConsumerProtocolSubscription bytes (version 0) for `topics`.
inline std::vector<uint8_t> subscription(const std::vector<std::string>& topics) {
  msg::consumer_protocol_subscription s;
  s.topics = topics;
  std::vector<uint8_t> out;
  protocol::writer w(out);
  w.write_int16(0);
  s.encode(w, 0);
  return out;
}

inline std::vector<member_protocol> range_protocol(const std::vector<std::string>& topics = {"t"}) {
  return {{"range", subscription(topics)}};
}

struct join_args {
  std::string group = "g";
  std::string member_id;
  std::optional<std::string> instance_id;
  std::vector<member_protocol> protocols = range_protocol();
  std::string protocol_type = "consumer";
  int32_t session_ms = 10000;
  int32_t rebalance_ms = 30000;
  int16_t version = 9;
  std::string client_id = "client";
};

inline join_args args(std::string group = "g", std::string client_id = "client") {
  join_args a;
  a.group = std::move(group);
  a.client_id = std::move(client_id);
  return a;
}

class shard_harness {
 public:
  explicit shard_harness(group_config config = {}, uint64_t seed = 7, bool start_active = true,
                         consumer::consumer_group_options consumer = {},
                         streams::streams_group_options streams = {})
      : rng_(seed), shard(config, [this] { return rng_(); }, std::move(consumer), streams) {
    if (start_active) {
      shard.begin_load();
      shard.end_load(now);
    }
  }

  // Moves completions and appends out of the shard; acknowledges appends
  // at once when auto_ack is on.
  void drain() {
    for (;;) {
      auto out = shard.take_output();
      for (auto& c : out.completions) {
        EXPECT_FALSE(responses.contains(c.token)) << "token answered twice: " << c.token;
        responses[c.token] = std::move(c.answer);
      }
      for (auto& a : out.appends) pending.push_back(std::move(a));
      if (!auto_ack || pending.empty()) return;
      ack(error_code::none);
    }
  }

  // Acknowledges every pending append with `e` (in order).
  void ack(error_code e) {
    auto batch = std::move(pending);
    pending.clear();
    for (auto& a : batch) {
      if (e == error_code::none) log.insert(log.end(), a.records.begin(), a.records.end());
      shard.on_append_done(a.token, e, now);
    }
    if (!auto_ack) drain();
  }

  template <typename T>
  std::optional<T> take(request_token token) {
    drain();
    auto it = responses.find(token);
    if (it == responses.end()) return std::nullopt;
    auto* v = std::get_if<T>(&it->second);
    EXPECT_NE(v, nullptr) << "response of another type for token " << token;
    if (!v) return std::nullopt;
    T out = std::move(*v);
    responses.erase(it);
    return out;
  }
  bool answered(request_token token) {
    drain();
    return responses.contains(token);
  }

  void advance(int64_t ms) {
    now += ms;
    shard.tick(now);
    drain();
  }

  request_token join(const join_args& a) {
    msg::join_group_request r;
    r.group_id = a.group;
    r.member_id = a.member_id;
    r.group_instance_id = a.instance_id;
    r.protocol_type = a.protocol_type;
    r.session_timeout_ms = a.session_ms;
    r.rebalance_timeout_ms = a.rebalance_ms;
    for (const auto& p : a.protocols) r.protocols.push_back({p.name, p.metadata, {}});
    auto t = next_token++;
    shard.join_group(t, a.version, {a.client_id, "/127.0.0.1"}, r, now);
    drain();
    return t;
  }

  request_token sync(const std::string& group, const std::string& member_id, int32_t generation,
                     const std::map<std::string, std::vector<uint8_t>>& assignments = {},
                     std::optional<std::string> instance_id = std::nullopt) {
    msg::sync_group_request r;
    r.group_id = group;
    r.member_id = member_id;
    r.generation_id = generation;
    r.group_instance_id = std::move(instance_id);
    for (const auto& [m, a] : assignments) r.assignments.push_back({m, a, {}});
    auto t = next_token++;
    shard.sync_group(t, 5, r, now);
    drain();
    return t;
  }

  int16_t heartbeat(const std::string& group, const std::string& member_id, int32_t generation,
                    std::optional<std::string> instance_id = std::nullopt) {
    msg::heartbeat_request r;
    r.group_id = group;
    r.member_id = member_id;
    r.generation_id = generation;
    r.group_instance_id = std::move(instance_id);
    auto t = next_token++;
    shard.heartbeat(t, 4, r, now);
    auto resp = take<msg::heartbeat_response>(t);
    EXPECT_TRUE(resp.has_value());
    return resp ? resp->error_code : -999;
  }

  msg::leave_group_response leave(const std::string& group, const std::string& member_id,
                                  std::optional<std::string> instance_id = std::nullopt) {
    msg::leave_group_request r;
    r.group_id = group;
    r.members.push_back({member_id, std::move(instance_id), std::nullopt, {}});
    auto t = next_token++;
    shard.leave_group(t, 5, r, now);
    auto resp = take<msg::leave_group_response>(t);
    EXPECT_TRUE(resp.has_value());
    return resp.value_or(msg::leave_group_response{});
  }

  request_token commit(const std::string& group, const std::string& member_id, int32_t generation,
                       const std::string& topic, int32_t partition, int64_t offset, int16_t version = 9,
                       std::optional<std::string> metadata = "") {
    msg::offset_commit_request r;
    r.group_id = group;
    r.member_id = member_id;
    r.generation_id_or_member_epoch = generation;
    msg::offset_commit_request::offset_commit_request_topic t;
    t.name = topic;
    msg::offset_commit_request::offset_commit_request_partition p;
    p.partition_index = partition;
    p.committed_offset = offset;
    p.committed_metadata = std::move(metadata);
    t.partitions.push_back(p);
    r.topics.push_back(t);
    auto token = next_token++;
    shard.commit_offsets(token, version, r, now);
    drain();
    return token;
  }
  int16_t commit_error(const std::string& group, const std::string& member_id, int32_t generation,
                       const std::string& topic, int32_t partition, int64_t offset, int16_t version = 9) {
    auto t = commit(group, member_id, generation, topic, partition, offset, version);
    auto resp = take<msg::offset_commit_response>(t);
    EXPECT_TRUE(resp.has_value());
    if (!resp || resp->topics.empty() || resp->topics[0].partitions.empty()) return -999;
    return resp->topics[0].partitions[0].error_code;
  }

  // The committed offset of one partition as OffsetFetch reports it (-1: none).
  int64_t fetched(const std::string& group, const std::string& topic, int32_t partition) {
    msg::offset_fetch_request::offset_fetch_request_group g;
    g.group_id = group;
    g.topics = std::vector<msg::offset_fetch_request::offset_fetch_request_topics>{};
    g.topics->push_back({topic, {}, {partition}, {}});
    auto t = next_token++;
    shard.fetch_offsets(t, g, false);
    auto resp = take<offset_fetch_group_response>(t);
    EXPECT_TRUE(resp.has_value());
    return resp ? resp->topics.at(0).partitions.at(0).committed_offset : -999;
  }

  // Full handshake of a dynamic v9 member: MEMBER_ID_REQUIRED, then the
  // parked join. Returns the member id and the join's token.
  std::pair<std::string, request_token> join_dynamic(join_args a) {
    a.member_id.clear();
    auto first = take<msg::join_group_response>(join(a));
    EXPECT_TRUE(first.has_value());
    EXPECT_EQ(first->error_code, code(error_code::member_id_required));
    a.member_id = first->member_id;
    return {first->member_id, join(a)};
  }

  std::mt19937_64 rng_;
  group_shard shard;
  int64_t now = 1'000'000;
  request_token next_token = 1;
  bool auto_ack = true;
  std::map<request_token, shard_response> responses;
  std::vector<append_request> pending;
  std::vector<coordinator_record> log;
};

}  // namespace hw::broker::group::testing
