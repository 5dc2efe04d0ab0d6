#pragma once
// One blocking connection to a Kafka listener: framed requests and their
// responses, one at a time, every wait bounded by a deadline. Owned by one
// tool on its only thread.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "protocol/wire/reader.h"

namespace hw::tools {

using clock = std::chrono::steady_clock;

struct host_port {
  std::string host;
  uint16_t port = 0;
  std::string str() const { return host + ":" + std::to_string(port); }
};

// "host:port,host:port" as bootstrap.server lists are written; false with
// the offending entry named in *error.
bool parse_host_ports(const std::string& list, std::vector<host_port>* out, std::string* error);

class connection {
 public:
  // Resolves host (names like kafka-1 too) and connects to the first
  // address that answers before the deadline; nullptr with the reason.
  static std::unique_ptr<connection> open(const host_port& to, clock::time_point deadline, std::string* error);
  ~connection();
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;

  // Sends one request (header built here) and returns the response body
  // after its header; false with the reason (the connection is then unusable).
  bool call(int16_t api_key, int16_t api_version, const std::vector<uint8_t>& body, std::vector<uint8_t>* response,
            clock::time_point deadline, std::string* error);

  // The versions the broker advertised in ApiVersions, per API key
  // ({-1,-1} for a key it does not support). Filled by the first
  // handshake() call.
  bool handshake(clock::time_point deadline, std::string* error);
  // The newest version both sides know, or nullopt.
  std::optional<int16_t> version_for(int16_t api_key, int16_t client_min, int16_t client_max) const;

  const host_port& peer() const { return peer_; }

 private:
  connection(int fd, host_port peer) : fd_(fd), peer_(std::move(peer)) {}
  bool write_all(const std::vector<uint8_t>& bytes, clock::time_point deadline, std::string* error);
  bool read_exact(uint8_t* p, size_t n, clock::time_point deadline, std::string* error);

  int fd_ = -1;
  host_port peer_;
  int32_t next_correlation_id_ = 1;
  std::vector<std::pair<int16_t, int16_t>> versions_;  // index: api key
};

}  // namespace hw::tools
