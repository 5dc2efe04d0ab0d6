#pragma once
// A blocking TCP client for tests: sends raw bytes or framed requests and
// reads framed responses, every read bounded by a deadline; over TLS
// (OpenSSL's client) when given a tls_client.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

struct ssl_ctx_st;
struct ssl_st;

namespace hw::testing {

using namespace std::chrono_literals;

// Where a broker listens: a port on 127.0.0.1 (a plain port converts), or
// a network_lab host's address and port.
struct endpoint {
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  endpoint(uint16_t p) : port(p) {}  // NOLINT(google-explicit-constructor): a local broker's port
  endpoint(std::string h, uint16_t p) : host(std::move(h)), port(p) {}
  std::string str() const { return host + ":" + std::to_string(port); }
};

// How a kafka_socket speaks TLS: the authority it trusts and, for a
// listener that asks for a client certificate, its own key and chain (PEM
// files as scripts/make-certs.sh writes them).
struct tls_client {
  std::string ca_file;           // empty: the server's certificate is not checked
  std::string chain_file;        // client certificate chain, empty: none
  std::string key_file;          // its key (PKCS#8, encrypted with key_password when set)
  std::string key_password;
  std::string server_name = "localhost";  // checked against the certificate (and sent as SNI)
};

class kafka_socket {
 public:
  explicit kafka_socket(const endpoint& to);
  // Connects, then runs the TLS handshake; not connected() when either
  // failed, with OpenSSL's reason (the server's alert) in tls_error().
  kafka_socket(const endpoint& to, const tls_client& tls);
  ~kafka_socket();
  kafka_socket(const kafka_socket&) = delete;

  bool connected() const { return fd_ >= 0; }
  const std::string& tls_error() const { return tls_error_; }
  bool send_raw(const std::vector<uint8_t>& bytes);
  // Sends a request frame: 4-byte size, then frame (header + body).
  bool send_frame(const std::vector<uint8_t>& frame);
  // Reads one response frame (without its size prefix); nullopt on close,
  // error or timeout.
  std::optional<std::vector<uint8_t>> read_frame(std::chrono::milliseconds timeout = 10s);
  // True if the broker closes the connection (EOF or reset) within timeout
  // without sending anything more.
  bool closed_by_peer(std::chrono::milliseconds timeout = 10s);
  // What the broker sends until it closes the connection (an alert, say);
  // nullopt if it is still open after timeout.
  std::optional<std::vector<uint8_t>> read_until_closed(std::chrono::milliseconds timeout = 10s);

 private:
  bool read_exact(uint8_t* p, size_t n, std::chrono::steady_clock::time_point deadline);
  // One read of up to n bytes once readable: >0 bytes, 0 on EOF, -1 on an
  // error, -2 on timeout.
  long read_some(uint8_t* p, size_t n, std::chrono::steady_clock::time_point deadline);
  void close_fd();
  int fd_ = -1;
  ssl_ctx_st* ctx_ = nullptr;
  ssl_st* ssl_ = nullptr;
  std::string tls_error_;
};

// Request frames (header + body) built with the generated codecs.
std::vector<uint8_t> request_frame(int16_t key, int16_t version, int32_t correlation_id,
                                   const std::vector<uint8_t>& body, const std::string& client_id = "it");
std::vector<uint8_t> api_versions_frame(int16_t version, int32_t correlation_id);
std::vector<uint8_t> with_size(const std::vector<uint8_t>& frame);

}  // namespace hw::testing
