#pragma once
// The wall clock in milliseconds since the epoch: what token expiries and
// login lifetimes are measured against (Kafka's System.currentTimeMillis),
// and what the broker's services hand to handlers as `now_ms`. Logic takes
// the time as a value; only the code that drives it reads this.

#include <chrono>
#include <cstdint>

namespace hw::broker {

inline int64_t wall_clock_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace hw::broker
