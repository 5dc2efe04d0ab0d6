#pragma once
// librdkafka helpers for integration tests: a topic created with configs
// (CreateTopics), a producer that records each message's offset, the
// partition's watermarks (ListOffsets) and reading a partition from the
// beginning with the simple consumer (no group). Every wait has a deadline.

#include <librdkafka/rdkafka.h>

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kafka_socket.h"

namespace hw::testing::rdk {

struct rd_record {
  int64_t offset = -1;
  std::string key;
  std::string value;
};

inline rd_kafka_conf_t* rd_conf(const endpoint& broker, const std::map<std::string, std::string>& extra = {}) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  const std::string bootstrap = broker.str();
  EXPECT_EQ(rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof err), RD_KAFKA_CONF_OK) << err;
  for (const auto& [k, v] : extra)
    EXPECT_EQ(rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err), RD_KAFKA_CONF_OK) << k << ": " << err;
  return conf;
}

struct rd_handle {
  rd_kafka_t* rk = nullptr;
  ~rd_handle() {
    if (rk) rd_kafka_destroy(rk);
  }
};

// CreateTopics with one partition, replication factor 1 (unless told) and these configs.
inline std::string create_topic(const endpoint& port, const std::string& name,
                                const std::vector<std::pair<std::string, std::string>>& configs,
                                int replication_factor = 1) {
  char err[512];
  rd_handle h;
  h.rk = rd_kafka_new(RD_KAFKA_PRODUCER, rd_conf(port), err, sizeof err);
  if (!h.rk) return err;
  rd_kafka_NewTopic_t* topic = rd_kafka_NewTopic_new(name.c_str(), 1, replication_factor, err, sizeof err);
  for (const auto& [k, v] : configs) rd_kafka_NewTopic_set_config(topic, k.c_str(), v.c_str());
  rd_kafka_queue_t* q = rd_kafka_queue_new(h.rk);
  rd_kafka_CreateTopics(h.rk, &topic, 1, nullptr, q);
  std::string result = "timed out";
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, 20000);
  if (ev) {
    if (rd_kafka_event_error(ev)) {
      result = rd_kafka_event_error_string(ev);
    } else {
      size_t n = 0;
      const rd_kafka_topic_result_t** topics =
          rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &n);
      result = n == 1 && rd_kafka_topic_result_error(topics[0]) == RD_KAFKA_RESP_ERR_NO_ERROR
                   ? ""
                   : (n == 1 ? rd_kafka_topic_result_error_string(topics[0]) : "no topic result");
    }
    rd_kafka_event_destroy(ev);
  }
  rd_kafka_queue_destroy(q);
  rd_kafka_NewTopic_destroy(topic);
  return result;
}

// Produces (key, value) pairs in order, one request at a time, and returns
// them with the offsets the broker gave them (offset -1: not delivered;
// then `errors`, if given, gets the delivery error).
inline std::vector<rd_record> produce_all(const endpoint& port, const std::string& topic,
                                          const std::vector<std::pair<std::string, std::string>>& messages,
                                          const std::string& acks = "1",
                                          std::vector<rd_kafka_resp_err_t>* errors = nullptr,
                                          const std::map<std::string, std::string>& extra = {}) {
  struct delivered {
    std::vector<rd_record>* out;
  };
  std::vector<rd_record> out;
  for (const auto& [k, v] : messages) out.push_back({-1, k, v});
  char err[512];
  std::map<std::string, std::string> settings{
      {"max.in.flight.requests.per.connection", "1"}, {"acks", acks}, {"linger.ms", "5"}};
  for (const auto& [k, v] : extra) settings[k] = v;
  rd_kafka_conf_t* conf = rd_conf(port, settings);
  rd_kafka_conf_set_opaque(conf, errors);
  rd_kafka_conf_set_dr_msg_cb(conf, [](rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
    auto* r = static_cast<rd_record*>(m->_private);
    if (!m->err) r->offset = m->offset;
    else if (opaque) static_cast<std::vector<rd_kafka_resp_err_t>*>(opaque)->push_back(m->err);
  });
  rd_handle h;
  h.rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  EXPECT_NE(h.rk, nullptr) << err;
  if (!h.rk) return out;
  for (auto& r : out) {
    for (;;) {
      auto e = rd_kafka_producev(h.rk, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(0),
                                 RD_KAFKA_V_KEY(r.key.data(), r.key.size()),
                                 RD_KAFKA_V_VALUE(r.value.data(), r.value.size()),
                                 RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_OPAQUE(&r), RD_KAFKA_V_END);
      if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        EXPECT_EQ(e, RD_KAFKA_RESP_ERR_NO_ERROR) << rd_kafka_err2str(e);
        break;
      }
      rd_kafka_poll(h.rk, 10);
    }
  }
  EXPECT_EQ(rd_kafka_flush(h.rk, 30000), RD_KAFKA_RESP_ERR_NO_ERROR);
  return out;
}

// ListOffsets earliest and latest; nothing on error.
inline std::optional<std::pair<int64_t, int64_t>> watermarks(rd_kafka_t* rk, const std::string& topic) {
  int64_t low = -1, high = -1;
  if (rd_kafka_query_watermark_offsets(rk, topic.c_str(), 0, &low, &high, 5000) != RD_KAFKA_RESP_ERR_NO_ERROR)
    return std::nullopt;
  return std::make_pair(low, high);
}

// Every record of partition 0 from the beginning up to `end` (exclusive),
// by a consumer with these settings added.
inline std::vector<rd_record> read_from_beginning(const endpoint& port, const std::string& topic, int64_t end,
                                                  std::map<std::string, std::string> extra = {}) {
  std::vector<rd_record> out;
  char err[512];
  rd_handle h;
  extra.emplace("fetch.message.max.bytes", "2000000");
  h.rk = rd_kafka_new(RD_KAFKA_CONSUMER, rd_conf(port, extra), err, sizeof err);
  EXPECT_NE(h.rk, nullptr) << err;
  if (!h.rk) return out;
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(h.rk, topic.c_str(), nullptr);
  EXPECT_EQ(rd_kafka_consume_start(rkt, 0, RD_KAFKA_OFFSET_BEGINNING), 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    rd_kafka_message_t* m = rd_kafka_consume(rkt, 0, 500);
    if (!m) continue;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      rd_kafka_message_destroy(m);
      if (!out.empty() && out.back().offset + 1 >= end) break;
      continue;
    }
    if (!m->err) {
      out.push_back({m->offset, std::string(static_cast<const char*>(m->key), m->key_len),
                     std::string(static_cast<const char*>(m->payload), m->len)});
    }
    const bool done = !m->err && m->offset + 1 >= end;
    rd_kafka_message_destroy(m);
    if (done) break;
  }
  rd_kafka_consume_stop(rkt, 0);
  rd_kafka_topic_destroy(rkt);
  return out;
}

}  // namespace hw::testing::rdk
