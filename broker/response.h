#pragma once
// A response ready for the socket: size prefix, response header and body in
// one buffer, encoded with a single allocation; a fetch response's records
// stay in their segment files and go out with sendfile (file_ranges).

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "protocol/request_header_parse.h"
#include "protocol/wire/writer.h"
#include "storage/io/file_system.h"

namespace hw::broker {

// Bytes of a file that belong in a frame at `at` (a position in `bytes`,
// before which everything earlier in `bytes` goes first).
struct file_range {
  size_t at = 0;
  std::shared_ptr<storage::file> file;  // kept open until sent
  uint64_t position = 0;
  uint64_t length = 0;
};

struct response_frame {
  std::vector<uint8_t> bytes;  // the frame, size prefix included, minus file_ranges
  std::vector<file_range> file_ranges;  // in order of `at`

  size_t wire_size() const {
    size_t n = bytes.size();
    for (const auto& r : file_ranges) n += r.length;
    return n;
  }
};

// Encodes message M (a generated response struct) at version for a request
// with this correlation id, behind a response header of header_version. A
// message holding records_view::deferred records passes their file ranges:
// deferred id i (1-based) is ranges[i - 1], which must hold exactly its size.
template <typename M>
response_frame encode_response(int32_t correlation_id, int16_t header_version, const M& message, int16_t version,
                               std::vector<file_range> ranges = {}) {
  const size_t body_size = message.encoded_size(version);
  const size_t payload = protocol::response_header_size(header_version) + body_size;
  std::vector<protocol::deferred_bytes> deferred;
  response_frame f;
  protocol::writer w(f.bytes, &deferred);
  // Ranges a fetch session left out of the response are in `ranges` too,
  // so their total may exceed what the message defers.
  size_t deferred_total = 0;
  for (const auto& r : ranges) deferred_total += r.length;
  f.bytes.reserve(4 + payload - std::min(deferred_total, payload));
  w.write_int32(static_cast<int32_t>(payload));
  protocol::write_response_header(w, correlation_id, header_version);
  message.encode(w, version);
  f.file_ranges.reserve(deferred.size());
  for (const auto& d : deferred) {
    assert(d.id >= 1 && d.id <= ranges.size() && ranges[d.id - 1].length == d.size);
    file_range r = std::move(ranges[d.id - 1]);
    r.at = d.at;
    f.file_ranges.push_back(std::move(r));
  }
  assert(f.wire_size() == 4 + payload && "encoded_size disagrees with encode");
  return f;
}

// A response whose body is already encoded (one relayed from another node).
inline response_frame encode_raw_response(int32_t correlation_id, int16_t header_version,
                                          std::span<const uint8_t> body) {
  const size_t payload = protocol::response_header_size(header_version) + body.size();
  response_frame f;
  f.bytes.reserve(4 + payload);
  protocol::writer w(f.bytes);
  w.write_int32(static_cast<int32_t>(payload));
  protocol::write_response_header(w, correlation_id, header_version);
  f.bytes.insert(f.bytes.end(), body.begin(), body.end());
  return f;
}

}  // namespace hw::broker
