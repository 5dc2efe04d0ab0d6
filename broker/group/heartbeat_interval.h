#pragma once
// The heartbeat interval a consumer-protocol or streams member is answered.

#include <algorithm>
#include <cstdint>

namespace hw::broker::group {

// A member waiting for partitions (or active tasks) that other members
// still hold (UNRELEASED_PARTITIONS, UNRELEASED_TASKS) gets them at its
// first heartbeat after the last of those owners has let go: asked back
// within this long, it takes them a fraction of a second after their
// release rather than up to a whole interval later. Kafka answers every
// member the configured interval; every other member is answered that here
// too.
inline constexpr int32_t k_unreleased_heartbeat_interval_ms = 250;

constexpr int32_t answered_heartbeat_interval(int32_t configured, bool waiting_on_others) {
  return waiting_on_others ? std::min(configured, k_unreleased_heartbeat_interval_ms) : configured;
}

}  // namespace hw::broker::group
