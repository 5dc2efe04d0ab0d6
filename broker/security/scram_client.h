#pragma once
// The client side of SCRAM (and PLAIN's token) under the broker's names. It
// lives in protocol/sasl/scram_client.h, low enough for the native tools to
// log in with the same code; see that header.

#include "broker/security/scram.h"
#include "protocol/sasl/scram_client.h"

namespace hw::broker {

using protocol::plain_client_token;
using protocol::scram_client;

}  // namespace hw::broker
