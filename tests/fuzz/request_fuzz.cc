// Arbitrary bytes as a request frame (what follows the 4-byte size prefix):
// request header framing, then the generated decoder of the API and version
// the header names. Checks that the zero-copy header parser agrees with the
// generated RequestHeader codec, and that decoding a body and encoding it
// again is stable (decode(encode(m)) encodes to the same bytes).
// Uses hw_protocol only.

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "protocol/messages/api_registry.h"
#include "protocol/messages/headers.h"
#include "protocol/request_header_parse.h"
#include "protocol/wire/reader.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hw::protocol;
  const bytes_view frame(data, size);

  // Both header versions must be safe on any input.
  for (int16_t v = 1; v <= 2; ++v) {
    request_header_result h = parse_request_header(frame, v);
    if (!h.header) continue;
    check(h.header->size <= size);
    msg::request_header generated;
    reader r(frame);
    generated.decode(r, v);
    check(r.ok());
    check(r.position() == h.header->size);
    check(generated.correlation_id == h.header->correlation_id);
    check(generated.client_id.has_value() == h.header->client_id.has_value());
    if (generated.client_id) check(*generated.client_id == *h.header->client_id);
  }

  auto prefix = peek_request_prefix(frame);
  if (!prefix || !find_api(prefix->api_key)) return 0;
  const int16_t header_version = request_header_version(prefix->api_key, prefix->api_version);
  request_header_result h = parse_request_header(frame, header_version);
  if (!h.header) return 0;

  const bytes_view body = h.header->body(frame);
  auto once = reencode_request(prefix->api_key, prefix->api_version, body);
  if (!once) return 0;
  auto twice = reencode_request(prefix->api_key, prefix->api_version, *once);
  check(twice.has_value());
  check(*twice == *once);
  return 0;
}
