#pragma once
// PLAIN's token for raw SASL exchanges, and librdkafka over a SASL_PLAINTEXT
// listener, as a user would configure it:
// one record produced with a mechanism, a user name and a password, and
// what the client reported (its first error callback's code name and text).

#include <librdkafka/rdkafka.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "protocol/sasl/scram_client.h"

namespace hw::testing {

using namespace std::chrono_literals;

// PLAIN's one token (the protocol library's), as SaslAuthenticate carries it.
inline std::vector<uint8_t> plain_token(const std::string& user, const std::string& password) {
  const std::string token = protocol::plain_client_token(user, password);
  return {token.begin(), token.end()};
}

// librdkafka as a user would configure it.
struct rdkafka_result {
  bool delivered = false;
  std::string error;
};

inline rd_kafka_conf_t* sasl_conf(uint16_t port, const std::string& mechanism, const std::string& user,
                                  const std::string& password) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  auto set = [&](const char* k, const std::string& v) {
    EXPECT_EQ(rd_kafka_conf_set(conf, k, v.c_str(), err, sizeof err), RD_KAFKA_CONF_OK) << k << ": " << err;
  };
  set("bootstrap.servers", "127.0.0.1:" + std::to_string(port));
  set("security.protocol", "SASL_PLAINTEXT");
  set("sasl.mechanism", mechanism);
  set("sasl.username", user);
  set("sasl.password", password);
  return conf;
}

inline void error_cb(rd_kafka_t*, int err, const char* reason, void* opaque) {
  auto* r = static_cast<rdkafka_result*>(opaque);
  if (r->error.empty()) r->error = std::string(rd_kafka_err2name(static_cast<rd_kafka_resp_err_t>(err))) + ": " + reason;
}

inline void delivery_cb(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  auto* r = static_cast<rdkafka_result*>(opaque);
  if (!m->err) r->delivered = true;
}

inline rdkafka_result produce_one(uint16_t port, const std::string& mechanism, const std::string& user,
                                  const std::string& password, const std::string& topic) {
  rdkafka_result result;
  rd_kafka_conf_t* conf = sasl_conf(port, mechanism, user, password);
  rd_kafka_conf_set_opaque(conf, &result);
  rd_kafka_conf_set_error_cb(conf, error_cb);
  rd_kafka_conf_set_dr_msg_cb(conf, delivery_cb);
  char err[512];
  rd_kafka_conf_set(conf, "message.timeout.ms", "8000", err, sizeof err);
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (!rk) return {false, err};
  rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_VALUE(const_cast<char*>("v"), 1), RD_KAFKA_V_END);
  const auto deadline = std::chrono::steady_clock::now() + 15s;
  while (!result.delivered && result.error.empty() && std::chrono::steady_clock::now() < deadline) rd_kafka_poll(rk, 50);
  rd_kafka_destroy(rk);
  return result;
}

}  // namespace hw::testing
