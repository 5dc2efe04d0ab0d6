// librdkafka (Debian's 2.0.2) against highwater. Until Metadata is served a
// client cannot do anything useful, so this checks the first step every
// librdkafka connection takes: the ApiVersions exchange completes and
// librdkafka reads our version list.

#include <librdkafka/rdkafka.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>
#include <vector>

#include "broker_process.h"

namespace hw::testing {
namespace {

struct captured_logs {
  std::mutex mu;
  std::vector<std::string> lines;
  bool contains(const std::string& s) {
    std::lock_guard lock(mu);
    for (auto& l : lines)
      if (l.find(s) != std::string::npos) return true;
    return false;
  }
  std::string all() {
    std::lock_guard lock(mu);
    std::string out;
    for (auto& l : lines) out += l + "\n";
    return out;
  }
};

void log_cb(const rd_kafka_t* rk, int level, const char* fac, const char* buf) {
  auto* logs = static_cast<captured_logs*>(rd_kafka_opaque(rk));
  std::lock_guard lock(logs->mu);
  logs->lines.push_back(std::string(fac) + ": " + buf);
}

TEST(LibrdkafkaIT, ApiVersionsExchangeCompletes) {
  broker_process broker;
  ASSERT_TRUE(broker.start()) << broker.log();

  captured_logs logs;
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  std::string bootstrap = "127.0.0.1:" + std::to_string(broker.port());
  ASSERT_EQ(rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof err), RD_KAFKA_CONF_OK) << err;
  ASSERT_EQ(rd_kafka_conf_set(conf, "debug", "broker,protocol,feature", err, sizeof err), RD_KAFKA_CONF_OK) << err;
  ASSERT_EQ(rd_kafka_conf_set(conf, "client.id", "highwater-it", err, sizeof err), RD_KAFKA_CONF_OK) << err;
  rd_kafka_conf_set_opaque(conf, &logs);
  rd_kafka_conf_set_log_cb(conf, log_cb);
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  ASSERT_NE(rk, nullptr) << err;

  bool exchanged = wait_until([&] { return logs.contains("Received ApiVersionResponse"); }, 15s);
  bool parsed = wait_until([&] { return logs.contains("ApiKey ApiVersion (18) Versions 0..4"); }, 5s);
  rd_kafka_destroy(rk);

  EXPECT_TRUE(exchanged) << logs.all() << "\n--- broker ---\n" << broker.log();
  EXPECT_TRUE(parsed) << logs.all();
  if (getenv("HW_IT_VERBOSE")) std::cerr << logs.all();
  // The request came in as v3 (librdkafka 2.0.2's newest) and was not refused.
  EXPECT_EQ(broker.log().find("api key 18"), std::string::npos) << broker.log();
}

}  // namespace
}  // namespace hw::testing
