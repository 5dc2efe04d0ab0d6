#include "broker/metadata/envelope.h"

#include "broker/security/forwarded_identity.h"
#include "protocol/messages/api_registry.h"
#include "protocol/messages/envelope.h"
#include "protocol/messages/headers.h"
#include "protocol/request_header_parse.h"
#include "protocol/wire/writer.h"

namespace hw::broker {

namespace {

// The correlation id of the inner request: the envelope's own carries the
// exchange; this one only comes back inside the response.
constexpr int32_t k_inner_correlation_id = 0;

}  // namespace

bool can_envelope(const request_context& client) {
  return client.principal != nullptr && !address_bytes(client.client_address).empty();
}

std::vector<uint8_t> envelope_request_body(const request_context& client, int16_t api_key, int16_t version,
                                           std::span<const uint8_t> body) {
  protocol::msg::request_header header;
  header.request_api_key = api_key;
  header.request_api_version = version;
  header.correlation_id = k_inner_correlation_id;
  header.client_id = client.client_id ? std::optional<std::string>(std::string(*client.client_id)) : std::nullopt;
  protocol::msg::envelope_request envelope;
  {
    protocol::writer w(envelope.request_data);
    header.encode(w, protocol::request_header_version(api_key, version));
    w.write_raw(body);
  }
  envelope.request_principal = serialize_principal(*client.principal);
  envelope.client_host_address = address_bytes(client.client_address);
  std::vector<uint8_t> out;
  protocol::writer w(out);
  envelope.encode(w, 0);
  return out;
}

unwrapped_response unwrap_envelope_response(protocol::bytes_view envelope_body, int16_t api_key, int16_t version) {
  unwrapped_response out;
  protocol::msg::envelope_response envelope;
  protocol::reader r(envelope_body);
  envelope.decode(r, 0);
  if (!r.ok()) {
    out.error = protocol::error_code::unknown_server_error;
    return out;
  }
  out.error = static_cast<protocol::error_code>(envelope.error_code);
  if (out.error != protocol::error_code::none) return out;
  if (!envelope.response_data) {
    out.error = protocol::error_code::unknown_server_error;
    return out;
  }
  // Skip the inner response header: its correlation id, and from header v1
  // its tagged fields.
  protocol::reader inner(protocol::bytes_view(envelope.response_data->data(), envelope.response_data->size()));
  inner.read_int32();
  if (protocol::response_header_version(api_key, version) >= 1) {
    const uint32_t tags = inner.read_uvarint();
    for (uint32_t i = 0; i < tags && inner.ok(); ++i) {
      inner.read_uvarint();
      inner.read_view(inner.read_uvarint());
    }
  }
  if (!inner.ok()) {
    out.error = protocol::error_code::unknown_server_error;
    return out;
  }
  const size_t at = inner.position();
  out.body.assign(envelope.response_data->begin() + static_cast<std::ptrdiff_t>(at), envelope.response_data->end());
  return out;
}

}  // namespace hw::broker
