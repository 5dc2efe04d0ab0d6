#pragma once
// Shared by the versions_*_test.cc files: one API key's sweep is a function
// run once per version the broker advertises for it, against one highwater
// started for the whole executable. Each version builds its own request
// (with the fields that exist at that version), decodes the answer at that
// version with no bytes left over, and checks what the answer means.
// Header-only; the test thread owns everything here.

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "broker_process.h"
#include "kafka_socket.h"
#include "protocol/messages/api_registry.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/headers.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/produce.h"
#include "protocol/messages/sync_group.h"
#include "protocol/records/record_batch_builder.h"
#include "protocol/wire/reader.h"
#include "protocol/wire/writer.h"

namespace hw::testing::versions {

namespace msg = protocol::msg;
using namespace std::chrono_literals;

// A decoded response (or nothing, after a test failure) and the frame it
// came in: records views in the body point into the frame, which is shared
// so that copies stay valid. Used like std::optional<R>.
template <class R>
class reply {
 public:
  reply() = default;
  reply(std::shared_ptr<const std::vector<uint8_t>> frame, R body) : frame_(std::move(frame)), body_(std::move(body)) {}
  explicit operator bool() const { return body_.has_value(); }
  const R* operator->() const { return &*body_; }
  const R& operator*() const { return *body_; }

 private:
  std::shared_ptr<const std::vector<uint8_t>> frame_;
  std::optional<R> body_;
};

// A connection that speaks any version of any API. One per test thread.
class version_client {
 public:
  explicit version_client(uint16_t port) : socket_(port) {}
  bool connected() const { return socket_.connected(); }

  // Encodes req at version, sends it, decodes the response at version.
  // nullopt (and a test failure naming key and version) if the broker
  // closed the connection, did not answer in time, or sent bytes that do
  // not decode exactly (wrong field set, bytes left over, wrong id).
  template <class R, class Q>
  reply<R> call(int16_t key, int16_t version, const Q& req, std::chrono::milliseconds timeout = 20s) {
    std::vector<uint8_t> body;
    protocol::writer w(body);
    req.encode(w, version);
    const int32_t corr = ++correlation_id_;
    if (!socket_.send_frame(request_frame(key, version, corr, body))) {
      ADD_FAILURE() << "send failed: api " << key << " v" << version;
      return {};
    }
    auto frame = socket_.read_frame(timeout);
    if (!frame) {
      ADD_FAILURE() << "no response (closed or timed out): api " << key << " v" << version;
      return {};
    }
    auto shared = std::make_shared<const std::vector<uint8_t>>(std::move(*frame));
    protocol::reader r(*shared);
    msg::response_header h;
    h.decode(r, protocol::response_header_version(key, version));
    R decoded;
    decoded.decode(r, version);
    if (!r.ok()) {
      ADD_FAILURE() << "response does not decode: api " << key << " v" << version << ": " << r.error();
      return {};
    }
    if (r.remaining() != 0) {
      ADD_FAILURE() << r.remaining() << " bytes left after the response: api " << key << " v" << version;
      return {};
    }
    if (h.correlation_id != corr) {
      ADD_FAILURE() << "correlation id " << h.correlation_id << " != " << corr << ": api " << key << " v" << version;
      return {};
    }
    return reply<R>(std::move(shared), std::move(decoded));
  }

 private:
  kafka_socket socket_;
  int32_t correlation_id_ = 0;
};

// What a sweep gets: a connection to the shared broker and its port.
struct sweep_context {
  version_client& client;
  uint16_t port;
  // True against an external broker (Apache Kafka, see versions_sweep_test.cc).
  bool external = false;

  // Highwater answers an admin or coordinator change only once it is
  // applied here, so a read right after must see it; Kafka applies such
  // changes asynchronously, so against it the read is retried until a
  // deadline.
  bool settled(const std::function<bool()>& pred) const { return external ? wait_until(pred, 30s) : pred(); }
};

// One API key's check at one version. Failures are gtest expectations.
using sweep_fn = void (*)(sweep_context&, int16_t version);

struct api_sweep {
  int16_t api_key;
  const char* name;  // for test names
  sweep_fn run;
};

// The tables, one per file.
std::vector<api_sweep> data_sweeps();   // versions_data_test.cc
std::vector<api_sweep> group_sweeps();  // versions_groups_test.cc
std::vector<api_sweep> consumer_group_sweeps();  // versions_consumer_groups_test.cc
std::vector<api_sweep> streams_group_sweeps();   // versions_streams_groups_test.cc
std::vector<api_sweep> admin_sweeps();  // versions_admin_test.cc
std::vector<api_sweep> txn_sweeps();    // versions_txn_test.cc

inline std::vector<api_sweep> all_sweeps() {
  std::vector<api_sweep> all;
  for (auto part : {data_sweeps(), group_sweeps(), consumer_group_sweeps(), streams_group_sweeps(), admin_sweeps(),
                    txn_sweeps()})
    all.insert(all.end(), part.begin(), part.end());
  return all;
}

// Versions the helpers below use when the API is not the one swept.
inline constexpr int16_t k_metadata_v = 12;
inline constexpr int16_t k_create_topics_v = 7;
inline constexpr int16_t k_produce_v = 12;
inline constexpr int16_t k_join_v = 9;
inline constexpr int16_t k_sync_v = 5;

// The advertised (min, max) per API key, from ApiVersions v3.
inline std::map<int16_t, std::pair<int16_t, int16_t>> advertised(version_client& c) {
  std::map<int16_t, std::pair<int16_t, int16_t>> out;
  msg::api_versions_request req;
  req.client_software_name = "versions-sweep";
  req.client_software_version = "1";
  auto resp = c.call<msg::api_versions_response>(18, 3, req);
  if (!resp) return out;
  EXPECT_EQ(resp->error_code, 0);
  for (const auto& k : resp->api_keys) out[k.api_key] = {k.min_version, k.max_version};
  return out;
}

// Metadata of one topic (v12, by name).
inline std::optional<msg::metadata_response::metadata_response_topic> topic_metadata(version_client& c,
                                                                                    const std::string& name) {
  msg::metadata_request req;
  msg::metadata_request::metadata_request_topic t;
  t.name = name;
  req.topics->push_back(t);
  req.allow_auto_topic_creation = false;
  auto resp = c.call<msg::metadata_response>(3, k_metadata_v, req);
  if (!resp || resp->topics.size() != 1) return std::nullopt;
  return resp->topics[0];
}

// A topic with this many partitions; its id (zero and a test failure if
// creation failed).
inline protocol::uuid create_topic(version_client& c, const std::string& name, int32_t partitions) {
  msg::create_topics_request req;
  msg::create_topics_request::creatable_topic t;
  t.name = name;
  t.num_partitions = partitions;
  t.replication_factor = 1;
  req.topics.push_back(t);
  auto resp = c.call<msg::create_topics_response>(19, k_create_topics_v, req);
  if (!resp || resp->topics.size() != 1) {
    ADD_FAILURE() << "create " << name;
    return {};
  }
  EXPECT_EQ(resp->topics[0].error_code, 0) << name;
  EXPECT_FALSE(resp->topics[0].topic_id.is_zero()) << name;
  // Highwater answers once the topic is in its metadata; Kafka may not have
  // propagated it yet. Either way the topic is usable when this returns.
  EXPECT_TRUE(wait_until(
      [&] {
        auto md = topic_metadata(c, name);
        if (!md || md->error_code != 0 || md->partitions.size() != static_cast<size_t>(partitions)) return false;
        for (const auto& p : md->partitions)
          if (p.leader_id < 0) return false;
        return true;
      },
      30s))
      << name << " has no leaders";
  return resp->topics[0].topic_id;
}

// A batch of count records whose values are "<tag>-<i>".
inline std::vector<uint8_t> tagged_batch(const std::string& tag, int count, int64_t first_timestamp = 1700000000000) {
  protocol::record_batch_builder b(protocol::record_batch_options{});
  for (int i = 0; i < count; ++i) {
    std::string v = tag + "-" + std::to_string(i);
    b.append(first_timestamp + i, std::nullopt,
             protocol::bytes_view(reinterpret_cast<const uint8_t*>(v.data()), v.size()));
  }
  return b.finish();
}

// Produce one batch to one partition at this version (by name below v13, by
// topic id from v13); the partition's answer.
inline std::optional<msg::produce_response::partition_produce_response> produce_at(
    version_client& c, int16_t version, const std::string& topic, const protocol::uuid& topic_id, int32_t partition,
    const std::vector<uint8_t>& batch, int16_t acks = -1) {
  msg::produce_request req;
  req.transactional_id.reset();
  req.acks = acks;
  req.timeout_ms = 10000;
  msg::produce_request::topic_produce_data t;
  if (version >= 13) t.topic_id = topic_id;
  else t.name = topic;
  msg::produce_request::partition_produce_data p;
  p.index = partition;
  p.records = protocol::records_view(protocol::bytes_view(batch));
  t.partition_data.push_back(p);
  req.topic_data.push_back(t);
  auto resp = c.call<msg::produce_response>(0, version, req);
  if (!resp || resp->responses.size() != 1 || resp->responses[0].partition_responses.size() != 1) {
    ADD_FAILURE() << "produce v" << version << ": not exactly one partition in the answer";
    return std::nullopt;
  }
  const auto& tr = resp->responses[0];
  if (version >= 13) {
    EXPECT_EQ(tr.topic_id, topic_id) << "produce v" << version;
    EXPECT_EQ(tr.name, "") << "produce v" << version;
  } else {
    EXPECT_EQ(tr.name, topic) << "produce v" << version;
  }
  EXPECT_EQ(resp->throttle_time_ms, 0);
  return tr.partition_responses[0];
}

// The batch bytes a broker must keep as produced: everything after the CRC
// (attributes, offsets deltas, timestamps, producer fields, records). The
// base offset and partition leader epoch are the broker's to assign.
inline std::vector<uint8_t> batch_payload(protocol::bytes_view batch) {
  constexpr size_t attributes_at = 21;
  if (batch.size() < attributes_at) return {};
  return {batch.begin() + attributes_at, batch.end()};
}

// Waits (with a deadline) until FindCoordinator v3 finds group's coordinator:
// the first request for any group creates __consumer_offsets, and until its
// partitions are loaded the answer is COORDINATOR_NOT_AVAILABLE.
inline bool wait_for_coordinator(version_client& c, const std::string& group) {
  return wait_until(
      [&] {
        msg::find_coordinator_request req;
        req.key = group;
        auto r = c.call<msg::find_coordinator_response>(10, 3, req);
        return static_cast<bool>(r) && r->error_code == 0;
      },
      30s);
}

// A consumer-protocol member that joined and synced a classic group.
struct member {
  std::string group;
  std::string member_id;
  int32_t generation = -1;
};

// Joins group as a new member at version join_v (doing the MEMBER_ID_REQUIRED
// round trip from v4), then syncs at sync_v as leader with this assignment.
// The member on success; a test failure otherwise.
inline std::optional<member> join_and_sync(sweep_context& ctx, const std::string& group, int16_t join_v = k_join_v,
                                           int16_t sync_v = k_sync_v,
                                           std::vector<uint8_t> assignment = {0, 1, 2, 3}) {
  version_client& c = ctx.client;
  if (!wait_for_coordinator(c, group)) {
    ADD_FAILURE() << "no coordinator for " << group;
    return std::nullopt;
  }
  msg::join_group_request join;
  join.group_id = group;
  join.session_timeout_ms = 30000;
  join.rebalance_timeout_ms = 30000;
  join.protocol_type = "consumer";
  msg::join_group_request::join_group_request_protocol proto;
  proto.name = "range";
  proto.metadata = {0, 3, 9, 9};
  join.protocols.push_back(proto);
  auto first = c.call<msg::join_group_response>(11, join_v, join);
  // Kafka may still be loading the coordinator partition (14, 16).
  ctx.settled([&] {
    if (!first || (first->error_code != 14 && first->error_code != 16)) return true;
    first = c.call<msg::join_group_response>(11, join_v, join);
    return false;
  });
  if (!first) return std::nullopt;
  if (join_v >= 4) {
    // From v4 an unknown member is first given its id and asked to come back.
    EXPECT_EQ(first->error_code, 79) << "JoinGroup v" << join_v << " MEMBER_ID_REQUIRED";
    EXPECT_FALSE(first->member_id.empty());
    join.member_id = first->member_id;
    first = c.call<msg::join_group_response>(11, join_v, join);
    if (!first) return std::nullopt;
  }
  const auto& j = *first;
  EXPECT_EQ(j.error_code, 0) << "JoinGroup v" << join_v;
  EXPECT_EQ(j.throttle_time_ms, 0);
  if (j.error_code != 0) return std::nullopt;
  EXPECT_GE(j.generation_id, 1);
  EXPECT_EQ(j.protocol_name, std::optional<std::string>("range"));
  if (join_v >= 7) { EXPECT_EQ(j.protocol_type, std::optional<std::string>("consumer")); }
  else EXPECT_FALSE(j.protocol_type.has_value()) << "ProtocolType does not exist before v7";
  EXPECT_EQ(j.leader, j.member_id);
  EXPECT_FALSE(j.skip_assignment);
  EXPECT_EQ(j.members.size(), 1u);
  if (!j.members.empty()) {
    EXPECT_EQ(j.members[0].member_id, j.member_id);
    EXPECT_EQ(j.members[0].metadata, proto.metadata);
  }
  member m{group, j.member_id, j.generation_id};

  msg::sync_group_request sync;
  sync.group_id = group;
  sync.generation_id = m.generation;
  sync.member_id = m.member_id;
  if (sync_v >= 5) {
    sync.protocol_type = "consumer";
    sync.protocol_name = "range";
  }
  msg::sync_group_request::sync_group_request_assignment a;
  a.member_id = m.member_id;
  a.assignment = assignment;
  sync.assignments.push_back(a);
  auto s = c.call<msg::sync_group_response>(14, sync_v, sync);
  if (!s) return std::nullopt;
  EXPECT_EQ(s->error_code, 0) << "SyncGroup v" << sync_v;
  EXPECT_EQ(s->assignment, assignment);
  if (sync_v >= 5) {
    EXPECT_EQ(s->protocol_type, std::optional<std::string>("consumer"));
    EXPECT_EQ(s->protocol_name, std::optional<std::string>("range"));
  }
  if (s->error_code != 0) return std::nullopt;
  return m;
}

}  // namespace hw::testing::versions
