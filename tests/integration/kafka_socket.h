#pragma once
// A blocking TCP client for tests: sends raw bytes or framed requests and
// reads framed responses, every read bounded by a deadline.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hw::testing {

using namespace std::chrono_literals;

class kafka_socket {
 public:
  explicit kafka_socket(uint16_t port);
  ~kafka_socket();
  kafka_socket(const kafka_socket&) = delete;

  bool connected() const { return fd_ >= 0; }
  bool send_raw(const std::vector<uint8_t>& bytes);
  // Sends a request frame: 4-byte size, then frame (header + body).
  bool send_frame(const std::vector<uint8_t>& frame);
  // Reads one response frame (without its size prefix); nullopt on close,
  // error or timeout.
  std::optional<std::vector<uint8_t>> read_frame(std::chrono::milliseconds timeout = 10s);
  // True if the broker closes the connection (EOF or reset) within timeout
  // without sending anything more.
  bool closed_by_peer(std::chrono::milliseconds timeout = 10s);

 private:
  bool read_exact(uint8_t* p, size_t n, std::chrono::steady_clock::time_point deadline);
  int fd_ = -1;
};

// Request frames (header + body) built with the generated codecs.
std::vector<uint8_t> request_frame(int16_t key, int16_t version, int32_t correlation_id,
                                   const std::vector<uint8_t>& body, const std::string& client_id = "it");
std::vector<uint8_t> api_versions_frame(int16_t version, int32_t correlation_id);
std::vector<uint8_t> with_size(const std::vector<uint8_t>& frame);

}  // namespace hw::testing
