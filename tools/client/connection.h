#pragma once
// One blocking connection to a Kafka listener: framed requests and their
// responses, one at a time, every wait bounded by a deadline. Owned by one
// tool on its only thread.
//
// With security (client_security.h) the connection is made as Kafka's
// client makes it: the TLS handshake first (SSL, SASL_SSL: the peer's
// certificate checked against the trust store and, with endpoint
// identification, its host name or IP address), then ApiVersions, then the
// SASL exchange (SaslHandshake v1, SaslAuthenticate with PLAIN's token or
// SCRAM's rounds) before any other request. An authentication failure's
// error is "<Kafka's exception class>: <Kafka's message>" and is not worth
// retrying (authentication_failure()).

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "protocol/wire/reader.h"

struct ssl_ctx_st;
struct ssl_st;

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

// How every connection of a tool run protects and identifies itself.
// Holds a password: never print it.
struct connection_security {
  std::shared_ptr<ssl_ctx_st> tls;  // SSL and SASL_SSL; null otherwise
  bool verify_host = true;          // ssl.endpoint.identification.algorithm=https
  std::string sasl_mechanism;       // PLAIN, SCRAM-SHA-256, SCRAM-SHA-512; empty: no SASL
  std::string username, password;
  bool token_auth = false;  // SCRAM's tokenauth=true extension: username a token id, password its HMAC
};

class connection {
 public:
  // Resolves host (names like kafka-1 too) and connects to the first
  // address that answers before the deadline, then secures and
  // authenticates the connection as `security` says (none: PLAINTEXT);
  // nullptr with the reason.
  static std::unique_ptr<connection> open(const host_port& to, clock::time_point deadline, std::string* error,
                                          const connection_security* security = nullptr);
  // Whether an error of open() is an authentication failure (TLS or SASL),
  // which Kafka's client does not retry.
  static bool authentication_failure(const std::string& error) {
    return error.starts_with("org.apache.kafka.common.errors.");
  }
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
  bool start_tls(const connection_security& s, clock::time_point deadline, std::string* error);
  bool authenticate(const connection_security& s, clock::time_point deadline, std::string* error);
  void close_now();

  int fd_ = -1;
  ssl_st* ssl_ = nullptr;
  host_port peer_;
  int32_t next_correlation_id_ = 1;
  std::vector<std::pair<int16_t, int16_t>> versions_;  // index: api key
};

}  // namespace hw::tools
