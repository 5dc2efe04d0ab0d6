#pragma once
// Request and response header framing for the network front door, without
// copies: the parsed request header holds views into the request frame.
//
// A request frame (after the 4-byte size prefix) starts with api_key int16,
// api_version int16, correlation_id int32 and client_id as a nullable string
// with an int16 length (never compact, even in header v2, so that any broker
// can read the header of an ApiVersions request of any version). Header v2
// (flexible request versions) adds a tagged-field section: a uvarint count,
// then per field a uvarint tag, a uvarint size and that many bytes. Header v0
// (no client_id) was removed in Kafka 4.0 and is not accepted.
//
// Response header v0 is the correlation id; v1 adds an empty tagged-field
// section (one 0 byte). ApiVersions responses always use v0.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "protocol/wire/reader.h"
#include "protocol/wire/writer.h"

namespace hw::protocol {

// The fixed first 8 bytes of every request, enough to choose the header
// version and to address an answer.
struct request_prefix {
  int16_t api_key = 0;
  int16_t api_version = 0;
  int32_t correlation_id = 0;
};

// Reads the prefix; nullopt if the frame is shorter than 8 bytes.
std::optional<request_prefix> peek_request_prefix(bytes_view frame);

struct request_header_view {
  int16_t api_key = 0;
  int16_t api_version = 0;
  int32_t correlation_id = 0;
  std::optional<std::string_view> client_id;  // nullopt: the client sent null
  uint32_t tagged_field_count = 0;            // header v2 only; their contents are skipped
  size_t size = 0;                            // header bytes; the body starts here

  bytes_view body(bytes_view frame) const { return frame.subspan(size); }
};

struct request_header_result {
  std::optional<request_header_view> header;
  const char* error = nullptr;  // set when header is empty
};

// Parses a request header of version 1 or 2 at the start of frame.
request_header_result parse_request_header(bytes_view frame, int16_t header_version);

// Response header bytes for version 0 or 1.
constexpr size_t response_header_size(int16_t header_version) { return header_version >= 1 ? 5 : 4; }
void write_response_header(writer& w, int32_t correlation_id, int16_t header_version);

}  // namespace hw::protocol
