#pragma once
// JAAS configuration under the broker's names. The parser lives in
// protocol/sasl/jaas.h, low enough for the native tools (a client's
// sasl.jaas.config) to read it with the same grammar; see that header.

#include "protocol/sasl/jaas.h"

namespace hw::broker {

using protocol::jaas_entry;
using protocol::jaas_file;
using protocol::jaas_parse_result;
using protocol::parse_jaas_config;
using protocol::parse_jaas_file;
using protocol::plain_users;

}  // namespace hw::broker
