#pragma once
// Who a forwarded request came from, as an EnvelopeRequest carries it: a
// broker that forwards a client's admin request to the active controller
// wraps it with the client's principal (Kafka's DefaultPrincipalData,
// prefixed with its version) and IP address (4 or 16 raw bytes), so the
// controller authorizes the client, not the broker.
//
// Pure functions; any thread.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/security/principal.h"
#include "protocol/wire/reader.h"

namespace hw::broker {

std::vector<uint8_t> serialize_principal(const kafka_principal& principal);
// Nothing if the bytes are not a DefaultPrincipalData this broker reads.
std::optional<kafka_principal> deserialize_principal(protocol::bytes_view bytes);

// "10.1.2.3" or an IPv6 address as the connection names it
// (listener/connection.cc host_text) to its raw bytes; empty if not an address.
std::vector<uint8_t> address_bytes(std::string_view text);
// Raw bytes back to the text ACLs match; nothing unless 4 or 16 bytes.
std::optional<std::string> address_text(protocol::bytes_view bytes);

}  // namespace hw::broker
