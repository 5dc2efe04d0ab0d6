#pragma once
// A response ready for the socket: size prefix, response header and body in
// one buffer, encoded with a single allocation.

#include <cassert>
#include <cstdint>
#include <vector>

#include "protocol/request_header_parse.h"
#include "protocol/wire/writer.h"

namespace hw::broker {

struct response_frame {
  std::vector<uint8_t> bytes;  // the whole frame, size prefix included
};

// Encodes message M (a generated response struct) at version for a request
// with this correlation id, behind a response header of header_version.
template <typename M>
response_frame encode_response(int32_t correlation_id, int16_t header_version, const M& message, int16_t version) {
  const size_t body_size = message.encoded_size(version);
  const size_t payload = protocol::response_header_size(header_version) + body_size;
  response_frame f;
  f.bytes.reserve(4 + payload);
  protocol::writer w(f.bytes);
  w.write_int32(static_cast<int32_t>(payload));
  protocol::write_response_header(w, correlation_id, header_version);
  message.encode(w, version);
  assert(f.bytes.size() == 4 + payload && "encoded_size disagrees with encode");
  return f;
}

}  // namespace hw::broker
