#pragma once
// Partitions by topic id: what a consumer-group member is assigned, owns or
// is asked to give up (KIP-848 names topics by id). Pure; any thread.

#include <cstdint>
#include <map>
#include <set>

#include "protocol/wire/uuid.h"

namespace hw::broker::group::consumer {

using topic_partitions = std::map<protocol::uuid, std::set<int32_t>>;

}  // namespace hw::broker::group::consumer
