#pragma once
// One request on an open connection and its decoded answer, for the tests'
// own requests: nothing when the connection fails, no answer comes in time,
// or the answer does not decode as the response (with its correlation id).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kafka_socket.h"
#include "protocol/messages/api_registry.h"
#include "protocol/messages/headers.h"
#include "protocol/wire/reader.h"
#include "protocol/wire/writer.h"

namespace hw::testing {

template <class Response, class Request>
std::optional<Response> exchange(kafka_socket& socket, int16_t key, int16_t version, int32_t correlation_id,
                                 const Request& req, std::chrono::milliseconds timeout, const std::string& client_id) {
  std::vector<uint8_t> body;
  protocol::writer w(body);
  req.encode(w, version);
  if (!socket.send_frame(request_frame(key, version, correlation_id, body, client_id))) return std::nullopt;
  auto frame = socket.read_frame(timeout);
  if (!frame) return std::nullopt;
  protocol::reader r(*frame);
  protocol::msg::response_header h;
  h.decode(r, protocol::response_header_version(key, version));
  Response resp;
  resp.decode(r, version);
  if (!r.ok() || h.correlation_id != correlation_id) return std::nullopt;
  return resp;
}

}  // namespace hw::testing
