#pragma once
// One request to a node and its answer, or nothing. Unlike the integration
// tests' raw_client, a node that is down, stopped, cut off or slow is
// expected in a chaos run and fails no test.

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "protocol/messages/api_registry.h"
#include "protocol/messages/headers.h"
#include "protocol/wire/reader.h"
#include "protocol/wire/writer.h"
#include "tests/integration/kafka_socket.h"

namespace hw::chaos {

// An answer with the frame it was decoded from: some answers (Fetch's
// records) are views into it. Moving it keeps them valid.
template <class Response>
struct answer {
  std::vector<uint8_t> frame;
  Response body;
};

template <class Response, class Request>
std::optional<answer<Response>> ask(const testing::endpoint& to, int16_t key, int16_t version, const Request& req,
                                    std::chrono::milliseconds timeout = std::chrono::seconds(3)) {
  testing::kafka_socket socket(to);
  if (!socket.connected()) return std::nullopt;
  std::vector<uint8_t> body;
  protocol::writer w(body);
  req.encode(w, version);
  if (!socket.send_frame(testing::request_frame(key, version, 1, body, "chaos"))) return std::nullopt;
  auto frame = socket.read_frame(timeout);
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
