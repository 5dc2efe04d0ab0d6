#pragma once
// The gtest environment of the differential test binary: starts Apache Kafka
// (scripts/kafka-server.sh) and Highwater (build/highwater) once, with the
// same settings, before the first test and stops both after the last. Both
// have a PLAINTEXT listener (the twin's) and the same secured ones
// (k_secured_listeners in twin_environment.cc) with the same certificates
// and users, the OAUTHBEARER listeners OAUTH and OIDC included (unless
// HW_DIFF_OAUTH says otherwise: twin.h's oauth_listeners). Owned by gtest (registered
// in differential_main.cc); read from the test thread.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "twin.h"

namespace hw::testing {
class broker_process;
class test_certificates;
}

namespace hw::testing::differential {

class kafka_server;

class brokers_environment : public ::testing::Environment {
 public:
  brokers_environment();
  ~brokers_environment() override;

  // The one registered with gtest; the tests reach the brokers through it.
  static brokers_environment& instance();

  void SetUp() override;
  void TearDown() override;

  uint16_t port(side s) const { return ports_[static_cast<int>(s)]; }
  // A secured listener's port ("SASL_PLAINTEXT", "SSL", "MTLS", "SASL_SSL",
  // "REAUTH", and "OAUTH" and "OIDC" where oauth() says so); 0 if that
  // broker does not have it.
  uint16_t port(side s, const std::string& listener) const;
  // Which brokers have the OAUTHBEARER listeners (HW_DIFF_OAUTH).
  oauth_listeners oauth() const { return oauth_; }
  // The OIDC listener's keys (oauth_tokens.h's files).
  std::string oauth_keys_dir() const;
  // The certificates both brokers use (scripts/make-certs.sh's files).
  std::string certificates_dir() const;
  const std::string& error() const { return error_; }
  std::string highwater_log() const;
  bool highwater_alive();

 private:
  // Kafka's secured listeners (name, protocol) in the order its script
  // binds them.
  std::vector<std::pair<std::string, std::string>> kafka_listener_names() const;

  oauth_listeners oauth_;
  std::unique_ptr<test_certificates> certificates_;
  std::unique_ptr<kafka_server> kafka_;
  std::unique_ptr<broker_process> highwater_;
  std::array<uint16_t, 2> ports_{};
  std::string error_;
};

}  // namespace hw::testing::differential
