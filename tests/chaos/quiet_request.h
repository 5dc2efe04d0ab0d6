#pragma once
// One request to a node and its answer, or nothing. Unlike the integration
// tests' raw_client, a node that is down, stopped, cut off or slow is
// expected in a chaos run and fails no test. In the sasl_ssl mode each
// connection runs TLS (the node's certificate checked against its address)
// and a SASL login first; a node that answers but refuses them is not
// expected, and is tallied for the run's report.

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "protocol/messages/api_registry.h"
#include "protocol/messages/headers.h"
#include "protocol/wire/reader.h"
#include "protocol/wire/writer.h"
#include "tests/integration/kafka_socket.h"
#include "tests/integration/sasl_login.h"

namespace hw::chaos {

// Refusals of the harness's own connections by reason (node and what it
// said): a certificate that does not verify, a SASL login refused.
class refusals {
 public:
  void add(const std::string& why) {
    std::lock_guard lock(mutex_);
    ++counts_[why];
  }
  std::map<std::string, int64_t> counts() const {
    std::lock_guard lock(mutex_);
    return counts_;
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, int64_t> counts_;
};

// How the harness reaches a node's client listener: in plain TCP, or over
// TLS with a SASL login (chaos_cluster::reach).
struct route {
  testing::endpoint to;
  std::optional<testing::tls_client> tls;
  std::optional<testing::sasl_credentials> login;
  refusals* refused = nullptr;  // where refusals go (with tls)
};

// An answer with the frame it was decoded from: some answers (Fetch's
// records) are views into it. Moving it keeps them valid.
template <class Response>
struct answer {
  std::vector<uint8_t> frame;
  Response body;
};

template <class Response, class Request>
std::optional<answer<Response>> ask(const route& to, int16_t key, int16_t version, const Request& req,
                                    std::chrono::milliseconds timeout = std::chrono::seconds(3)) {
  std::optional<testing::kafka_socket> socket;
  if (to.tls) socket.emplace(to.to, *to.tls);
  else socket.emplace(to.to);
  if (!socket->connected()) {
    // A node down, stopped or slow fails the handshake too; one whose
    // certificate does not verify against its address never will pass.
    if (to.refused && socket->tls_error().find("certificate verify failed") != std::string::npos)
      to.refused->add(to.to.str() + ": TLS: " + socket->tls_error());
    return std::nullopt;
  }
  if (to.login) {
    auto in = testing::sasl_login(*socket, *to.login, timeout);
    if (!in) {
      if (in.refused && to.refused) to.refused->add(to.to.str() + ": " + in.error);
      return std::nullopt;
    }
  }
  std::vector<uint8_t> body;
  protocol::writer w(body);
  req.encode(w, version);
  if (!socket->send_frame(testing::request_frame(key, version, 1, body, "chaos"))) return std::nullopt;
  auto frame = socket->read_frame(timeout);
  if (!frame) return std::nullopt;
  answer<Response> out;
  out.frame = std::move(*frame);
  protocol::reader r(out.frame);
  protocol::msg::response_header h;
  h.decode(r, protocol::response_header_version(key, version));
  out.body.decode(r, version);
  if (!r.ok() || h.correlation_id != 1) return std::nullopt;
  return out;
}

}  // namespace hw::chaos
