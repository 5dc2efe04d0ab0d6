#pragma once
// The SCRAM primitives and credentials, under the broker's names. They live
// in protocol/sasl/scram.h, low enough for the controller (AlterUserScram-
// Credentials' salted password → stored and server keys) and the tools to
// derive credentials with the same code; see that header.

#include "protocol/sasl/scram.h"

namespace hw::broker {

using protocol::parse_scram_mechanism;
using protocol::scram_credential;
using protocol::scram_max_iterations;
using protocol::scram_mechanism;
using protocol::scram_mechanism_from_type;
using protocol::scram_mechanism_name;
using protocol::scram_mechanism_type;
using protocol::scram_min_iterations;
namespace scram = protocol::scram;

}  // namespace hw::broker
