#pragma once
// The epoch of a consumer-group member (KIP-848): the group epoch of the
// target assignment it has reconciled to, also the epoch at which it holds
// each of its partitions. A strong type, so it cannot be mixed up with a
// partition id or a classic generation. Pure; any thread.

#include <compare>
#include <cstdint>
#include <ostream>

namespace hw::broker::group::consumer {

struct member_epoch {
  int32_t value = 0;

  constexpr member_epoch() = default;
  constexpr explicit member_epoch(int32_t v) : value(v) {}

  constexpr auto operator<=>(const member_epoch&) const = default;
  constexpr bool operator==(const member_epoch&) const = default;

  friend std::ostream& operator<<(std::ostream& os, member_epoch e) { return os << e.value; }
};

// What a ConsumerGroupHeartbeat's MemberEpoch means besides a real epoch,
// and what a member record holds before its first epoch.
inline constexpr member_epoch joining_epoch{0};               // (re)join the group
inline constexpr member_epoch leave_group_epoch{-1};           // a dynamic member leaves
inline constexpr member_epoch leave_group_static_epoch{-2};    // a static member leaves, may come back
inline constexpr member_epoch no_previous_epoch{-1};           // a new member's previous epoch

}  // namespace hw::broker::group::consumer
