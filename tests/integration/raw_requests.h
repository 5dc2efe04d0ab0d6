#pragma once
// Typed requests over a kafka_socket for the integration tests: encode a
// generated request struct, send it, decode the response with the header
// version the API key and version call for. Header-only so that the test
// executables that glob *_test.cc need no extra source. One per test thread.

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kafka_socket.h"
#include "protocol/messages/api_registry.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/headers.h"
#include "protocol/messages/list_offsets.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/produce.h"
#include "protocol/records/record_batch_builder.h"
#include "protocol/wire/reader.h"
#include "protocol/wire/writer.h"

namespace hw::testing {

namespace msg = protocol::msg;

// Versions the tests speak: flexible ones that still name topics (Fetch v13+
// and Produce v13 name them by id).
inline constexpr int16_t k_produce_version = 9;
inline constexpr int16_t k_fetch_version = 12;
inline constexpr int16_t k_list_offsets_version = 7;
inline constexpr int16_t k_metadata_version = 12;
inline constexpr int16_t k_create_topics_version = 7;

// A consumer's Fetch of one partition from `offset`, waiting up to
// max_wait_ms for a byte (no fetch session).
inline msg::fetch_request fetch_request_of(const std::string& topic, int32_t partition, int64_t offset,
                                           int32_t current_leader_epoch = -1, int32_t max_wait_ms = 0) {
  msg::fetch_request req;
  req.max_wait_ms = max_wait_ms;
  req.min_bytes = 1;
  req.max_bytes = 16 << 20;
  req.session_id = 0;
  req.session_epoch = -1;
  msg::fetch_request::fetch_topic t;
  t.topic = topic;
  msg::fetch_request::fetch_partition p;
  p.partition = partition;
  p.current_leader_epoch = current_leader_epoch;
  p.fetch_offset = offset;
  p.partition_max_bytes = 8 << 20;
  t.partitions.push_back(p);
  req.topics.push_back(t);
  return req;
}

class raw_client {
 public:
  explicit raw_client(const endpoint& to) : socket_(to) {}
  bool connected() const { return socket_.connected(); }
  // The client id of the requests that follow ("it" by default).
  void use_client_id(std::string id) { client_id_ = std::move(id); }
  // For what is not a request (a SASL v0 raw token) and for closes.
  kafka_socket& socket() { return socket_; }

  // Sends req and decodes the response; nullopt (and a test failure) if the
  // broker closed the connection, timed out or sent bytes that do not decode.
  template <class Response, class Request>
  std::optional<Response> call(int16_t key, int16_t version, const Request& req,
                               std::chrono::milliseconds timeout = 20s) {
    std::vector<uint8_t> body;
    protocol::writer w(body);
    req.encode(w, version);
    int32_t corr = ++correlation_id_;
    if (!socket_.send_frame(request_frame(key, version, corr, body, client_id_))) {
      ADD_FAILURE() << "send failed for api key " << key;
      return std::nullopt;
    }
    auto frame = socket_.read_frame(timeout);
    if (!frame) {
      ADD_FAILURE() << "no response to api key " << key << " v" << version;
      return std::nullopt;
    }
    protocol::reader r(*frame);
    msg::response_header h;
    h.decode(r, protocol::response_header_version(key, version));
    Response resp;
    resp.decode(r, version);
    if (!r.ok() || r.remaining() != 0 || h.correlation_id != corr) {
      ADD_FAILURE() << "bad response to api key " << key << ": " << (r.ok() ? "trailing bytes" : r.error());
      return std::nullopt;
    }
    return resp;
  }

  std::optional<msg::create_topics_response> create_topic(
      const std::string& name, int32_t partitions, int16_t replication_factor = 1,
      const std::vector<std::pair<std::string, std::string>>& configs = {}) {
    msg::create_topics_request req;
    msg::create_topics_request::creatable_topic t;
    t.name = name;
    t.num_partitions = partitions;
    t.replication_factor = replication_factor;
    for (const auto& [key, value] : configs) {
      msg::create_topics_request::creatable_topic_config c;
      c.name = key;
      c.value = value;
      t.configs.push_back(c);
    }
    req.topics.push_back(t);
    return call<msg::create_topics_response>(19, k_create_topics_version, req);
  }

  // Metadata for these topics (all topics if names is nullopt).
  std::optional<msg::metadata_response> metadata(std::optional<std::vector<std::string>> names,
                                                 bool auto_create = false) {
    msg::metadata_request req;
    if (!names) {
      req.topics.reset();
    } else {
      req.topics.emplace();
      for (auto& n : *names) {
        msg::metadata_request::metadata_request_topic t;
        t.name = n;
        req.topics->push_back(t);
      }
    }
    req.allow_auto_topic_creation = auto_create;
    return call<msg::metadata_response>(3, k_metadata_version, req);
  }

  // FindCoordinator v3 for a group (key type 0) or transactional id (1):
  // (error, node id), (-1, -1) without an answer.
  std::pair<int16_t, int32_t> find_coordinator(const std::string& key, int8_t key_type) {
    msg::find_coordinator_request req;
    req.key = key;
    req.key_type = key_type;
    auto resp = call<msg::find_coordinator_response>(10, 3, req);
    if (!resp) return {-1, -1};
    return {resp->error_code, resp->node_id};
  }

  // One partition's produce result; a transactional batch goes with its
  // transactional id (at version 12, a transactions v2 producer's write).
  std::optional<msg::produce_response::partition_produce_response> produce(
      const std::string& topic, int32_t partition, const std::vector<uint8_t>& batch, int16_t acks = -1,
      const std::optional<std::string>& transactional_id = std::nullopt, int16_t version = k_produce_version) {
    msg::produce_request req;
    req.transactional_id = transactional_id;
    req.acks = acks;
    req.timeout_ms = 10000;
    msg::produce_request::topic_produce_data t;
    t.name = topic;
    msg::produce_request::partition_produce_data p;
    p.index = partition;
    p.records = protocol::records_view(protocol::bytes_view(batch));
    t.partition_data.push_back(p);
    req.topic_data.push_back(t);
    auto resp = call<msg::produce_response>(0, version, req, 40s);
    if (!resp || resp->responses.size() != 1 || resp->responses[0].partition_responses.size() != 1) {
      ADD_FAILURE() << "produce response without exactly one partition";
      return std::nullopt;
    }
    return resp->responses[0].partition_responses[0];
  }

  // One partition's fetch result; records are copied out of the frame.
  struct fetched {
    msg::fetch_response::partition_data partition;  // records cleared: see below
    std::vector<uint8_t> records;
    bool records_null = false;  // the answer's records were null (not empty)
  };
  // rack: the consumer's client.rack (v11+, KIP-392).
  std::optional<fetched> fetch(const std::string& topic, int32_t partition, int64_t offset,
                               int32_t current_leader_epoch = -1, int32_t max_wait_ms = 0,
                               const std::string& rack = "", int16_t version = k_fetch_version) {
    msg::fetch_request req = fetch_request_of(topic, partition, offset, current_leader_epoch, max_wait_ms);
    req.rack_id = rack;
    std::vector<uint8_t> body;
    protocol::writer w(body);
    req.encode(w, version);
    int32_t corr = ++correlation_id_;
    if (!socket_.send_frame(request_frame(1, version, corr, body))) return std::nullopt;
    auto frame = socket_.read_frame(20s);
    if (!frame) {
      ADD_FAILURE() << "no fetch response";
      return std::nullopt;
    }
    protocol::reader r(*frame);
    msg::response_header h;
    h.decode(r, protocol::response_header_version(1, version));
    msg::fetch_response resp;
    resp.decode(r, version);
    if (!r.ok() || resp.responses.size() != 1 || resp.responses[0].partitions.size() != 1) {
      ADD_FAILURE() << "bad fetch response (top-level error " << resp.error_code << ")";
      return std::nullopt;
    }
    fetched out;
    out.partition = resp.responses[0].partitions[0];
    auto b = out.partition.records.bytes();
    out.records.assign(b.begin(), b.end());
    out.records_null = out.partition.records.null;
    out.partition.records = {};
    return out;
  }

  // ListOffsets for one partition: timestamp -1 latest, -2 earliest; as a
  // consumer (replica_id -1) or as a tool asking any replica (-2).
  std::optional<msg::list_offsets_response::list_offsets_partition_response> list_offset(
      const std::string& topic, int32_t partition, int64_t timestamp, int32_t current_leader_epoch = -1,
      int32_t replica_id = -1) {
    msg::list_offsets_request req;
    req.replica_id = replica_id;
    msg::list_offsets_request::list_offsets_topic t;
    t.name = topic;
    msg::list_offsets_request::list_offsets_partition p;
    p.partition_index = partition;
    p.current_leader_epoch = current_leader_epoch;
    p.timestamp = timestamp;
    t.partitions.push_back(p);
    req.topics.push_back(t);
    auto resp = call<msg::list_offsets_response>(2, k_list_offsets_version, req);
    if (!resp || resp->topics.size() != 1 || resp->topics[0].partitions.size() != 1) {
      ADD_FAILURE() << "list offsets response without exactly one partition";
      return std::nullopt;
    }
    return resp->topics[0].partitions[0];
  }

 private:
  kafka_socket socket_;
  int32_t correlation_id_ = 0;
  std::string client_id_ = "it";
};

// A batch of count records with values of value_bytes bytes each.
inline std::vector<uint8_t> simple_batch(int count, size_t value_bytes = 10,
                                         protocol::compression codec = protocol::compression::none) {
  protocol::record_batch_options o;
  o.codec = codec;
  protocol::record_batch_builder b(o);
  std::vector<uint8_t> value(value_bytes, 'v');
  for (int i = 0; i < count; ++i) b.append(1700000000000 + i, std::nullopt, protocol::bytes_view(value));
  return b.finish();
}

// A batch of these values (no keys) with these options.
inline std::vector<uint8_t> batch_of(const std::vector<std::string>& values, protocol::record_batch_options o = {}) {
  protocol::record_batch_builder b(o);
  for (size_t i = 0; i < values.size(); ++i)
    b.append(1700000000000 + static_cast<int64_t>(i), std::nullopt,
             protocol::bytes_view(reinterpret_cast<const uint8_t*>(values[i].data()), values[i].size()));
  return b.finish();
}

// A transactional batch of these values, at base sequence `sequence`.
inline std::vector<uint8_t> transactional_batch(int64_t producer_id, int16_t epoch, int32_t sequence,
                                                const std::vector<std::string>& values) {
  protocol::record_batch_options o;
  o.transactional = true;
  o.producer_id = producer_id;
  o.producer_epoch = epoch;
  o.base_sequence = sequence;
  return batch_of(values, o);
}

// Number of records in a v2 batch stream (walks the batch headers only).
inline int count_records(const std::vector<uint8_t>& records) {
  int n = 0;
  size_t pos = 0;
  while (pos + 61 <= records.size()) {
    protocol::reader r(protocol::bytes_view(records.data() + pos, records.size() - pos));
    r.read_int64();                       // base offset
    int32_t length = r.read_int32();      // batch length after this field
    if (pos + 12 + static_cast<size_t>(length) > records.size()) break;  // a partial batch at the end
    protocol::reader c(protocol::bytes_view(records.data() + pos + 57, 4));
    n += c.read_int32();                  // records count at offset 57
    pos += 12 + static_cast<size_t>(length);
  }
  return n;
}

}  // namespace hw::testing
