#pragma once
// Every API handler the broker serves, one per API key, sorted by key.

#include <span>

#include "broker/handlers/handler.h"

namespace hw::broker {

// One declaration per handler file.
api_handler api_versions_handler();  // 18_api_versions.cc

std::span<const api_handler> all_handlers();

}  // namespace hw::broker
