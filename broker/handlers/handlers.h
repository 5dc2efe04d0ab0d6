#pragma once
// Every API handler the broker serves, one per API key, sorted by key.
//
// Adding an API:
//  1. broker/handlers/NN_name.cc: the handler (decode_request, then respond,
//     no_response or close) and `api_handler name_handler()` with the version
//     range to advertise; advertise only versions the handler answers.
//  2. Declare name_handler() below and list it in handlers.cc.
//  3. Unit tests in tests/broker/ for each version, including a body that
//     does not decode; an integration test against the real binary.

#include <span>

#include "broker/handlers/handler.h"

namespace hw::broker {

// One declaration per handler file.
api_handler api_versions_handler();  // 18_api_versions.cc

std::span<const api_handler> all_handlers();

}  // namespace hw::broker
