#include "protocol/request_header_parse.h"

namespace hw::protocol {

std::optional<request_prefix> peek_request_prefix(bytes_view frame) {
  reader r(frame);
  request_prefix p;
  p.api_key = r.read_int16();
  p.api_version = r.read_int16();
  p.correlation_id = r.read_int32();
  if (!r.ok()) return std::nullopt;
  return p;
}

request_header_result parse_request_header(bytes_view frame, int16_t header_version) {
  if (header_version < 1 || header_version > 2) return {std::nullopt, "unsupported request header version"};
  reader r(frame);
  request_header_view h;
  h.api_key = r.read_int16();
  h.api_version = r.read_int16();
  h.correlation_id = r.read_int32();
  int16_t client_id_length = r.read_int16();
  if (client_id_length < -1) return {std::nullopt, "negative client_id length"};
  if (client_id_length >= 0) h.client_id = r.read_string_view(static_cast<size_t>(client_id_length));
  if (header_version >= 2) {
    h.tagged_field_count = r.read_uvarint();
    // Each field takes at least two bytes (tag and size).
    if (!r.plausible_count(h.tagged_field_count, 2)) return {std::nullopt, r.error()};
    for (uint32_t i = 0; i < h.tagged_field_count && r.ok(); ++i) {
      r.read_uvarint();  // tag: the request header defines none yet
      uint32_t size = r.read_uvarint();
      r.skip(size);
    }
  }
  if (!r.ok()) return {std::nullopt, r.error()};
  h.size = r.position();
  return {h, nullptr};
}

void write_response_header(writer& w, int32_t correlation_id, int16_t header_version) {
  w.write_int32(correlation_id);
  if (header_version >= 1) w.write_uvarint(0);
}

}  // namespace hw::protocol
