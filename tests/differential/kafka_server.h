#pragma once
// An Apache Kafka 4.3.1 broker for the differential tests, run by
// scripts/kafka-server.sh (single node, KRaft combined mode, node id 1) in
// its own temporary directory. Owned by the test binary's environment; used
// from the main test thread only.

#include <cstdint>
#include <string>
#include <vector>

namespace hw::testing::differential {

class kafka_server {
 public:
  kafka_server();
  ~kafka_server();  // stops the broker if it runs and removes the directory
  kafka_server(const kafka_server&) = delete;

  // Starts Kafka with these extra server.properties lines and, after its
  // PLAINTEXT and CONTROLLER listeners, these others (NAME:PROTOCOL, their
  // keys in extra_props). Ports are picked free, then bound by Kafka:
  // another process may take them in between, so a failed start is retried
  // with new ports a few times. False with the reason (and the end of
  // Kafka's log) in error() if it never came up.
  bool start(const std::string& extra_props, const std::vector<std::string>& extra_listeners = {});
  void stop();

  uint16_t port() const { return port_; }
  // The port of the i-th extra listener.
  uint16_t extra_port(size_t i) const { return static_cast<uint16_t>(port_ + 3 + i); }
  const std::string& error() const { return error_; }
  const std::string& dir() const { return dir_; }

 private:
  bool start_once(const std::string& extra_props, const std::string& extra_listeners, uint16_t port);

  std::string dir_;
  uint16_t port_ = 0;
  bool running_ = false;
  std::string error_;
};

}  // namespace hw::testing::differential
