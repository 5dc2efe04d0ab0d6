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
api_handler produce_handler();            // 00_produce.cc
api_handler fetch_handler();              // 01_fetch.cc
api_handler list_offsets_handler();       // 02_list_offsets.cc
api_handler metadata_handler();           // 03_metadata.cc
api_handler api_versions_handler();       // 18_api_versions.cc
api_handler create_topics_handler();      // 19_create_topics.cc
api_handler delete_topics_handler();      // 20_delete_topics.cc
api_handler create_partitions_handler();  // 37_create_partitions.cc

std::span<const api_handler> all_handlers();

}  // namespace hw::broker
