#pragma once
// The check on a request's 4-byte size prefix, made before anything is
// allocated for the frame (Kafka's NetworkReceive).

#include <cstdint>
#include <optional>
#include <string>

namespace hw::broker {

// nullopt if a frame of this size may be read; otherwise why not, in Kafka's words.
inline std::optional<std::string> frame_size_error(int32_t size, int32_t max_bytes) {
  if (size < 0) return "Invalid receive (size = " + std::to_string(size) + ")";
  if (size > max_bytes)
    return "Invalid receive (size = " + std::to_string(size) + " larger than " + std::to_string(max_bytes) + ")";
  return std::nullopt;
}

}  // namespace hw::broker
